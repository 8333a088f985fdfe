//! The decoder of the anytime search (Pesto21 §3.2's objective, the makespan of one training
//! step): a candidate's placement and order, simulated on the full problem by the pair that
//! will replay the plan (`crate::pair`: the registry's `given` scheduler in the scenario's
//! mode, the scenario's link order and link model, the pair's own random streams), so the
//! objective the search reports *is* the makespan `pesto x given` simulates, bit for bit.
//!
//! It also counts the work (a deterministic budget: `ops + edges` of the full graph per
//! simulation, so native and wasm runs stop at the same point) and keeps the search's
//! convergence history (not in the paper: a point at each improvement of the makespan or of
//! the instance's lower bound, counted in work, never in seconds).
//!
//! What it is not: a simulator (it builds no policy itself and calls no simulator but
//! through the pair) and a search (it scores what it is given).

use crate::model::cluster::DevIx;
use crate::model::problem::Problem;
use crate::pair::Pair;
use crate::plan::{History, Order};

/// Simulates candidates on the full problem, counting the work, and keeps the search's
/// convergence history (work, best makespan, best bound at each improvement).
pub struct Decoder<'p, 'a> {
    problem: &'p Problem<'a>,
    /// The pair candidates are simulated by (its link model is the search's: the
    /// scenario's, or parallel links for a search that ignores congestion).
    pub pair: Pair,
    per_eval: u64,
    /// Work of the simulations so far (`per_eval` each).
    pub used: u64,
    /// Simulations so far.
    pub evals: u64,
    /// Work done outside decoding: solver steps and search nodes.
    pub steps: u64,
    /// The best lower bound of the instance proven so far.
    pub bound: f64,
    pub history: History,
}

impl<'p, 'a> Decoder<'p, 'a> {
    /// A decoder simulating by `pair`, counting `per_eval` work per simulation.
    pub fn new(problem: &'p Problem<'a>, pair: Pair, per_eval: u64) -> Decoder<'p, 'a> {
        Decoder {
            problem,
            pair,
            per_eval,
            used: 0,
            evals: 0,
            steps: 0,
            bound: 0.0,
            history: History::default(),
        }
    }

    /// The problem candidates are simulated on.
    pub fn problem(&self) -> &'p Problem<'a> {
        self.problem
    }

    /// Records a point of the history: `objective` found (or `bound` raised) after the work
    /// done so far (schedules simulated plus solver steps, the report's `work`). The bound
    /// is never shown above the objective: like the report's, only rounding (the work
    /// bound's sum against the simulator's) could put it there.
    pub fn improved(&mut self, objective: f64) {
        self.history.record(
            self.evals + self.steps,
            objective,
            self.bound.min(objective),
        );
    }

    /// Makespan of `placement` replayed by `order` under the pair, with the schedule's
    /// trace (`None` for a replay that deadlocks, whose makespan is infinite).
    pub fn decode_traced(
        &mut self,
        placement: &[DevIx],
        order: &Order,
    ) -> (f64, Option<crate::sim::Trace>) {
        let r = self
            .pair
            .simulate(self.problem, placement, Some(order), true);
        self.used += self.per_eval;
        self.evals += 1;
        if r.unfinished > 0 {
            (f64::INFINITY, None)
        } else {
            (r.makespan, r.trace)
        }
    }

    /// Makespan of `placement` replayed by `order` under the pair; infinite for a replay
    /// that deadlocks.
    pub fn decode(&mut self, placement: &[DevIx], order: &Order) -> f64 {
        let r = self
            .pair
            .simulate(self.problem, placement, Some(order), false);
        self.used += self.per_eval;
        self.evals += 1;
        if r.unfinished > 0 {
            f64::INFINITY
        } else {
            r.makespan
        }
    }
}
