//! The search of the constraint model (`model`): minimise the makespan from below the
//! incumbent (its makespan is the horizon), linear SAT-UNSAT (each schedule found tightens
//! the bound below itself). Branching: the incumbent's devices first, then placement
//! literals, then start times earliest first, with VSIDS on top once conflicts teach it;
//! nothing is drawn at random, because Pumpkin's generator (`SmallRng`) differs between 64-
//! and 32-bit targets. The budget is a number of solver steps (decisions and conflicts:
//! deterministic, no clock), plus an optional wall-clock cap.
//!
//! Time is integral: the model's scale is the smallest of 1, 2, 4, 5, 8, 10, ... 10^6 at
//! which every duration is an integer (relative 1e-9) within 2^26 steps of horizon. The
//! model is then exactly the simulator's problem with a free order on every device and link
//! (first come, first served on links under the `fifo` link order, `CpInstance::fifo`):
//! a schedule of it replayed strictly takes exactly its times, and every schedule the
//! simulator makes is one of it. When no such scale exists (real-valued run times)
//! durations are rounded down: the model is a relaxation whose optimum is a valid bound
//! (not with the fifo rule, which rounding can break: then no bound is reported), its
//! schedules are candidates, and the branch and bound (`optim::bb`), in the simulator's own
//! arithmetic and with free link order, does the proof. Pesto21 §3.2.2 solves its ILP with CPLEX instead.
//!
//! What it is not: the constraints (`model`), or what a proof is reported as (the placer).

use pumpkin_conflict_resolvers::resolvers::ResolutionResolver;
use pumpkin_core::branching::branchers::autonomous_search::AutonomousSearch;
use pumpkin_core::branching::branchers::dynamic_brancher::DynamicBrancher;
use pumpkin_core::branching::branchers::independent_variable_value_brancher::IndependentVariableValueBrancher;
use pumpkin_core::branching::value_selection::{InDomainMax, InDomainMin};
use pumpkin_core::branching::variable_selection::{InputOrder, Smallest};
use pumpkin_core::branching::Brancher;
use pumpkin_core::predicate;
use pumpkin_core::results::{ProblemSolution, SatisfactionResultUnderAssumptions};
use pumpkin_core::termination::TerminationCondition;
use pumpkin_core::variables::{DomainId, Literal};

use super::instance::{time_scale, CpInstance, CpSchedule};
use super::model::{self, Model};
use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::model::cluster::DevIx;
use crate::model::problem::Problem;
use crate::optim::Progress;

/// What the constraint solver found.
pub struct CpOutcome {
    /// Its best schedule (none when it found none better than the incumbent).
    pub best: Option<CpSchedule>,
    /// A proven lower bound on the instance's makespan, in seconds.
    pub lower: f64,
    /// Whether the search was exhausted (`lower` is then the model's optimum).
    pub proven: bool,
    /// Whether every duration was an integer at the model's scale; otherwise durations were
    /// rounded down and the model is a relaxation (its optimum a bound, not a makespan).
    pub exact: bool,
    /// Solver steps used (decisions and conflicts).
    pub steps: u64,
}

/// The exact search's budget: `limit` solver steps (decisions and conflicts: deterministic,
/// no clock), plus a wall-clock cap of `seconds` on `clock` when positive.
pub struct Budget<'c> {
    pub limit: u64,
    pub seconds: f64,
    pub clock: &'c Clock,
}

/// Minimises the makespan of `inst` (Pesto21 §3.2.2's model with placesim's semantics) below
/// `incumbent` seconds, with `hint` (a device per task) tried first. Reports through
/// `progress` (from 50% to 95%).
pub fn solve(
    problem: &Problem,
    inst: &CpInstance,
    incumbent: f64,
    hint: &[DevIx],
    budget: &Budget,
    progress: &mut Progress,
) -> Result<CpOutcome> {
    let k = problem.device_count();
    let nu = inst.allowed.len();
    let fail = |lower: f64| CpOutcome {
        best: None,
        lower,
        proven: false,
        exact: false,
        steps: 0,
    };
    let durations = inst.durations(problem);
    if !incumbent.is_finite() || incumbent <= 0.0 {
        return Ok(fail(0.0));
    }
    let (scale, exact) = time_scale(&durations, incumbent);
    let horizon = (incumbent * scale * (1.0 + 1e-9)).floor() as i32;
    let Model {
        mut solver,
        x,
        start,
        end,
        cmax,
        sends,
        order_lits,
    } = model::post(problem, inst, scale, horizon);
    let t = solver.get_true_literal();

    // Search: the incumbent's devices first, then every placement literal, then start times
    // earliest first ("set times"), sends likewise, the rest by value; VSIDS on top once
    // conflicts teach it. Nothing is drawn at random (Pumpkin's generator differs between
    // 64- and 32-bit targets), so native and wasm search alike.
    // The hint's device per unit, relabelled so that identical devices open in index order.
    let mut unit_hint: Vec<Option<DevIx>> = vec![None; nu];
    for (v, &d) in hint.iter().enumerate() {
        unit_hint[inst.unit[v] as usize].get_or_insert(d);
    }
    let mut relabel: Vec<Option<DevIx>> = vec![None; k];
    let mut hinted: Vec<Literal> = Vec::new();
    for (u, d) in unit_hint.iter().enumerate() {
        let Some(d) = *d else { continue };
        if relabel[d as usize].is_none() {
            let free = (0..k).find(|&e| {
                inst.class[e] == inst.class[d as usize] && !relabel.contains(&Some(e as DevIx))
            });
            relabel[d as usize] = Some(free.unwrap_or(d as usize) as DevIx);
        }
        let d = relabel[d as usize].unwrap_or(d);
        let on = inst.allowed[u]
            .iter()
            .position(|&e| e == d)
            .map(|i| x[u][i]);
        if let Some(l) = on {
            if l != t {
                hinted.push(l);
            }
        }
    }
    let placement_lits: Vec<Literal> = x.iter().flatten().copied().filter(|&l| l != t).collect();
    let send_starts: Vec<DomainId> = sends.iter().map(|s| s.start).collect();
    let mut rest_lits: Vec<Literal> = sends
        .iter()
        .flat_map(|s| s.by.iter().map(|e| e.1))
        .collect();
    rest_lits.extend(order_lits.iter().copied());
    let mut rest_ints: Vec<DomainId> = end.clone();
    rest_ints.extend(sends.iter().map(|s| s.end));
    rest_ints.push(cmax);
    let branchers: Vec<Box<dyn Brancher>> = [
        literal_stage(&hinted, true),
        literal_stage(&placement_lits, true),
        time_stage(&start),
        time_stage(&send_starts),
        literal_stage(&rest_lits, false),
        time_stage(&rest_ints),
    ]
    .into_iter()
    .flatten()
    .collect();
    let mut brancher = AutonomousSearch::new(DynamicBrancher::new(branchers));
    let mut resolver = ResolutionResolver::default();
    let Budget {
        limit,
        seconds,
        clock,
    } = *budget;
    let mut budget = CpBudget {
        used: 0,
        limit,
        seconds,
        clock,
        progress,
        cancelled: false,
    };

    // Linear SAT-UNSAT: each schedule found tightens the makespan below its own.
    let mut best: Option<CpSchedule> = None;
    let mut ub = horizon;
    let (lower, proven) = loop {
        let bound = predicate![cmax <= ub];
        match solver.satisfy_under_assumptions(&mut brancher, &mut budget, &mut resolver, &[bound])
        {
            SatisfactionResultUnderAssumptions::Satisfiable(sat) => {
                let sol = sat.solution();
                let value = sol.get_integer_value(cmax);
                let mut device = vec![0 as DevIx; nu];
                for u in 0..nu {
                    let i = x[u]
                        .iter()
                        .position(|&l| sol.get_literal_value(l))
                        .unwrap_or(0);
                    device[u] = inst.allowed[u][i];
                }
                let at = |v: DomainId| sol.get_integer_value(v) as f64 / scale;
                let st: Vec<f64> = start.iter().map(|&v| at(v)).collect();
                let mut sent: Vec<(f64, u32, DevIx)> = sends
                    .iter()
                    .filter(|s| {
                        let src =
                            device[inst.unit[inst.messages[s.msg as usize].0 as usize] as usize];
                        src != s.dst
                            && inst.messages[s.msg as usize]
                                .1
                                .iter()
                                .any(|&w| device[inst.unit[w as usize] as usize] == s.dst)
                    })
                    .map(|s| (at(s.start), s.msg, s.dst))
                    .collect();
                sent.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
                best = Some(CpSchedule {
                    device,
                    start: st,
                    sends: sent,
                });
                ub = value - 1;
            }
            SatisfactionResultUnderAssumptions::UnsatisfiableUnderAssumptions(_)
            | SatisfactionResultUnderAssumptions::Unsatisfiable(_) => break (ub + 1, true),
            SatisfactionResultUnderAssumptions::Unknown(solver) => {
                break (solver.lower_bound(&cmax), false);
            }
        }
    };
    if budget.cancelled {
        return Err(Error::Cancelled);
    }
    // A rounded-down model with the fifo rule is no relaxation: rounding may swap two
    // producers' ends, and the rule then forbids the rounded image of a real schedule. Its
    // schedules are still candidates; its bound is not used.
    let lower = if exact || !inst.fifo {
        lower as f64 / scale
    } else {
        0.0
    };
    Ok(CpOutcome {
        best,
        lower,
        proven,
        exact,
        steps: budget.used,
    })
}

/// The solver's deterministic budget (one step per decision or conflict), the optional
/// wall-clock cap and the user's cancel.
struct CpBudget<'c, 'x> {
    used: u64,
    limit: u64,
    seconds: f64,
    clock: &'c Clock,
    progress: &'c mut Progress<'x>,
    cancelled: bool,
}

impl TerminationCondition for CpBudget<'_, '_> {
    fn should_stop(&mut self) -> bool {
        self.used += 1;
        if self.used >= self.limit {
            return true;
        }
        if self.used.is_multiple_of(1024) {
            let f = 0.5 + 0.45 * self.used as f64 / self.limit as f64;
            if (self.progress)(f).is_err() {
                self.cancelled = true;
                return true;
            }
            if self.seconds > 0.0 && self.clock.seconds() > self.seconds {
                return true;
            }
        }
        false
    }
}

/// A search stage: `lits` in order, true first or false first.
fn literal_stage(lits: &[Literal], true_first: bool) -> Option<Box<dyn Brancher>> {
    match (lits.is_empty(), true_first) {
        (true, _) => None,
        (false, true) => Some(Box::new(IndependentVariableValueBrancher::new(
            InputOrder::new(lits),
            InDomainMax,
        ))),
        (false, false) => Some(Box::new(IndependentVariableValueBrancher::new(
            InputOrder::new(lits),
            InDomainMin,
        ))),
    }
}

/// A search stage: the variable of `ints` with the smallest lower bound, at its minimum
/// ("set times").
fn time_stage(ints: &[DomainId]) -> Option<Box<dyn Brancher>> {
    (!ints.is_empty()).then(|| {
        Box::new(IndependentVariableValueBrancher::new(
            Smallest::new(ints),
            InDomainMin,
        )) as Box<dyn Brancher>
    })
}
