//! Plans: the contract between placers and the policies that run their result.
//!
//! This module sits above the model and below `schedule/`, `transfer/` and `sim/`, which
//! replay a plan, and below `place/` and `optim/`, which make one. It is not in `place/` so
//! that the policies and the simulator can read a plan without importing any placer (that
//! import was a nine-file cycle: place -> sim -> schedule -> place).
//!
//! A placer that only places returns a [`Plan`] with no order (the provided `Placer::plan`
//! does this). A planning placer (HEFT's insertion schedule, Pesto21's
//! optimiser) also returns an [`Order`]: a priority per op and, optionally, strict per-device
//! sequences and an order of transfers. The `given` scheduler and the `given` link order
//! replay it; the simulator still knows no strategy. A [`SolveReport`] says how good the plan
//! claims to be and what that claim rests on.
//!
//! [`Plan::check`] is the one place a plan is checked against its problem (the simulator and
//! the replaying policies trust a checked plan).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::cluster::DevIx;
use crate::model::graph::{NodeIx, TensorIx};
use crate::model::problem::Problem;
use crate::params::{ParamKind, ParamSpec};

/// A device index per node.
pub type Placement = Vec<DevIx>;

/// A placement, and for a planning placer the order it intends and its own report.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub placement: Placement,
    pub order: Option<Order>,
    pub report: Option<SolveReport>,
}

impl Plan {
    /// A plan that only places.
    pub fn placement(placement: Placement) -> Plan {
        Plan {
            placement,
            order: None,
            report: None,
        }
    }

    /// Checks the order against the problem and the placement: one priority per node (finite),
    /// each device's sequence exactly the nodes placed there, each transfer named once and
    /// between the devices its tensor really crosses. The placement itself is checked by
    /// [`verify`].
    pub fn check(&self, problem: &Problem) -> Result<()> {
        let Some(order) = &self.order else {
            return Ok(());
        };
        let g = problem.graph;
        let n = g.node_count();
        let bad = |m: String| Err(Error::Problem(format!("plan: {m}")));
        if order.priority.len() != n {
            return bad(format!("{} priorities for {n} nodes", order.priority.len()));
        }
        if let Some(v) = order.priority.iter().position(|p| !p.is_finite()) {
            return bad(format!(
                "node '{}' has priority {}",
                g.nodes[v].id, order.priority[v]
            ));
        }
        if let Some(seqs) = &order.sequences {
            if seqs.len() != problem.device_count() {
                return bad(format!(
                    "{} device sequences for {} devices",
                    seqs.len(),
                    problem.device_count()
                ));
            }
            let mut seen = vec![false; n];
            for (d, seq) in seqs.iter().enumerate() {
                for &v in seq {
                    let Some(slot) = seen.get_mut(v as usize) else {
                        return bad(format!(
                            "device {d}'s sequence names node {v}, out of range"
                        ));
                    };
                    if *slot || self.placement[v as usize] as usize != d {
                        return bad(format!(
                            "node '{}' is in device '{}''s sequence twice or not placed there",
                            g.nodes[v as usize].id, problem.cluster.devices[d].id
                        ));
                    }
                    *slot = true;
                }
            }
            if let Some(v) = seen.iter().position(|s| !s) {
                return bad(format!("node '{}' is in no device sequence", g.nodes[v].id));
            }
        }
        if let Some(xs) = &order.transfers {
            let mut seen = std::collections::BTreeSet::new();
            for &(t, dst) in xs {
                let Some(tensor) = g.tensors.get(t as usize) else {
                    return bad(format!("transfer of tensor {t}, out of range"));
                };
                let src = self.placement[tensor.src as usize];
                let crosses = tensor
                    .edges
                    .iter()
                    .any(|&e| self.placement[g.edges[e as usize].dst as usize] == dst);
                if src == dst || !crosses || !seen.insert((t, dst)) {
                    return bad(format!(
                        "transfer of '{}''s output to device {dst} is not a transfer of this placement, or is named twice",
                        g.nodes[tensor.src as usize].id
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The order a planning placer intends.
#[derive(Debug, Clone, PartialEq)]
pub struct Order {
    /// Per node: higher runs first among the ops ready on a device (work-conserving replay).
    pub priority: Vec<f64>,
    /// Per device, every op placed there in the order it must run (strict replay: a device
    /// waits for its next planned op rather than run another).
    pub sequences: Option<Vec<Vec<NodeIx>>>,
    /// Transfers `(tensor, destination device)` in the order the plan sends them; each link
    /// takes its own in this order (strict replay), or treats the position as a priority
    /// (work-conserving). Absent: a transfer's priority is its consumers' highest.
    pub transfers: Option<Vec<(TensorIx, DevIx)>>,
}

impl Order {
    /// The order of a timed schedule (`start` and `finish` per node, all on `placement`):
    /// earlier start first; per-device sequences by start, then finish (a zero-length op at
    /// the same instant runs first), then `pos` (topological position); transfers by the
    /// time their producer finishes, then their first consumer's start, then tensor and
    /// device. A strict replay of a schedule whose ops never start before their inputs
    /// arrive and never overlap on a device reproduces its times exactly.
    pub fn of_schedule(
        problem: &Problem,
        placement: &[DevIx],
        start: &[f64],
        finish: &[f64],
        pos: &[u32],
    ) -> Order {
        let g = problem.graph;
        let n = g.node_count();
        let mut by_start: Vec<NodeIx> = (0..n as NodeIx).collect();
        by_start.sort_by(|&a, &b| {
            let (a, b) = (a as usize, b as usize);
            start[a]
                .total_cmp(&start[b])
                .then(finish[a].total_cmp(&finish[b]))
                .then(pos[a].cmp(&pos[b]))
        });
        let mut priority = vec![0.0; n];
        let mut sequences = vec![Vec::new(); problem.device_count()];
        for (i, &v) in by_start.iter().enumerate() {
            priority[v as usize] = -(i as f64);
            sequences[placement[v as usize] as usize].push(v);
        }
        let mut transfers: Vec<(f64, f64, TensorIx, DevIx)> = Vec::new();
        for (t, tensor) in g.tensors.iter().enumerate() {
            let src = placement[tensor.src as usize];
            let mut dsts: Vec<(DevIx, f64)> = Vec::new();
            for &e in &tensor.edges {
                let w = g.edges[e as usize].dst;
                let d = placement[w as usize];
                if d == src {
                    continue;
                }
                match dsts.iter_mut().find(|(x, _)| *x == d) {
                    Some((_, s)) => *s = s.min(start[w as usize]),
                    None => dsts.push((d, start[w as usize])),
                }
            }
            for (d, first) in dsts {
                transfers.push((finish[tensor.src as usize], first, t as TensorIx, d));
            }
        }
        transfers.sort_by(|a, b| {
            a.0.total_cmp(&b.0)
                .then(a.1.total_cmp(&b.1))
                .then(a.2.cmp(&b.2))
                .then(a.3.cmp(&b.3))
        });
        Order {
            priority,
            sequences: Some(sequences),
            transfers: Some(transfers.into_iter().map(|x| (x.2, x.3)).collect()),
        }
    }
}

/// What a plan's makespan estimate is, and how far it can be trusted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SolveReport {
    /// The makespan the placer predicts for its own plan, in seconds.
    pub objective: f64,
    /// A lower bound on the makespan, when the placer proves one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound: Option<f64>,
    /// What `bound` bounds.
    pub bound_of: BoundScope,
    pub status: SolveStatus,
    /// Work done: schedules evaluated, search nodes, or list steps, as `work_unit` says.
    pub work: u64,
    pub work_unit: Cow<'static, str>,
    /// Vertices of the coarse graph the search ran on (Pesto21 §3.3), when the graph was
    /// coarsened: the size an "optimal for the N-vertex coarse graph" claim is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coarse_vertices: Option<u32>,
    /// How the search converged: a point at each improvement of the objective or the bound
    /// (work done, then the best of each), in work order; at most [`History::CAP`] points.
    /// Counted in work, never in seconds, so the same bits natively and in wasm.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<Improvement>,
}

/// One point of a search's convergence history.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Improvement {
    /// Work done when it was reached, in the report's `work_unit`.
    pub work: u64,
    /// The best makespan found so far, in seconds.
    pub objective: f64,
    /// The best lower bound proven so far, in seconds (of the scope the search bounds: the
    /// instance, or while proving a coarse graph's optimum, still the instance's bound).
    pub bound: f64,
}

/// A convergence history being recorded: only improvements, and at most [`History::CAP`]
/// points (when full, every second interior point is dropped, the first and the newest
/// kept, so the history thins out evenly and stays deterministic).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History(Vec<Improvement>);

impl History {
    /// The most points a report keeps (the page draws them; a JSON plan stays small).
    pub const CAP: usize = 48;

    /// Records `(work, objective, bound)` when it improves on the last point (a lower
    /// objective or a higher bound; the first point always); the best values are kept
    /// (a later, weaker value never replaces a better one), except that a bound is never
    /// kept above the objective (a bound met by rounding only, like the report's).
    pub fn record(&mut self, work: u64, objective: f64, bound: f64) {
        let point = match self.0.last() {
            None => Improvement {
                work,
                objective,
                bound,
            },
            Some(last) if objective < last.objective || bound > last.bound => {
                let objective = objective.min(last.objective);
                Improvement {
                    work: work.max(last.work),
                    objective,
                    bound: bound.max(last.bound).min(objective),
                }
            }
            Some(_) => return,
        };
        if self.0.len() == Self::CAP {
            let kept: Vec<Improvement> = self
                .0
                .iter()
                .enumerate()
                .filter(|&(i, _)| i == 0 || i % 2 == 1 || i == Self::CAP - 1)
                .map(|(_, p)| *p)
                .collect();
            self.0 = kept;
        }
        self.0.push(point);
    }

    /// The recorded points.
    pub fn into_points(self) -> Vec<Improvement> {
        self.0
    }
}

impl SolveReport {
    /// How strong the plan's claim is, worded by the reporting rules of
    /// docs/pesto.md, reading 5.6 (never a bare "optimal"): "optimal (proven)" only for
    /// an optimum proven on the instance itself; "optimal for the coarse graph" for one
    /// proven on a coarsened instance (Pesto21 §3.3), which bounds nothing here; "best found
    /// after E `<work unit>`" for a search stopped by its budget; "heuristic (no bound)" for a
    /// list schedule that claims nothing. A coarse claim names the coarse graph's size when
    /// the report knows it ("optimal for the 40-vertex coarse graph").
    pub fn label(&self) -> String {
        match (self.status, self.bound_of) {
            (SolveStatus::Optimal, BoundScope::Instance) => "optimal (proven)".into(),
            (SolveStatus::Optimal | SolveStatus::CoarseOptimal, _) => match self.coarse_vertices {
                Some(n) => format!("optimal for the {n}-vertex coarse graph"),
                None => "optimal for the coarse graph".into(),
            },
            (SolveStatus::Feasible, _) => {
                format!("best found after {} {}", self.work, self.work_unit)
            }
            (SolveStatus::Heuristic, _) => "heuristic (no bound)".into(),
        }
    }

    /// The order of claims, weakest first (a row of several seeds says its weakest).
    pub fn strength(&self) -> u8 {
        match (self.status, self.bound_of) {
            (SolveStatus::Heuristic, _) => 0,
            (SolveStatus::Feasible, _) => 1,
            (SolveStatus::Optimal, BoundScope::Instance) => 3,
            (SolveStatus::Optimal | SolveStatus::CoarseOptimal, _) => 2,
        }
    }
}

/// The problem a bound is a bound of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BoundScope {
    /// No bound was computed.
    None,
    /// The instance as simulated: a bound on every schedule of it.
    Instance,
    /// A coarsened instance (Pesto21 §3.3): not a bound on the full instance.
    Coarse,
}

/// How the plan came about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SolveStatus {
    /// A heuristic's plan: no claim of optimality.
    Heuristic,
    /// A search's best plan so far (stopped by budget or by the user).
    Feasible,
    /// Proven optimal on the coarse instance only.
    CoarseOptimal,
    /// Proven optimal on the instance itself.
    Optimal,
}

/// `given.work_conserving`, the parameter of both `given` policies (the scheduler and the
/// link order share the name, so one setting switches both).
pub const REPLAY_MODE: ParamSpec = ParamSpec {
    name: "work_conserving",
    default: 0.0,
    kind: ParamKind::Switch,
    min: 0.0,
    min_open: false,
    max: 1.0,
    doc: "0: replay the plan's sequences strictly (a device or link waits for its next planned item); 1: run by the plan's priorities and never wait",
};

/// Checks a placement against device rules, colocation groups and memory capacity.
pub fn verify(problem: &Problem, placement: &[DevIx]) -> Result<()> {
    let g = problem.graph;
    let k = problem.device_count();
    if placement.len() != g.node_count() {
        return Err(Error::Problem(format!(
            "placement has {} entries for {} nodes",
            placement.len(),
            g.node_count()
        )));
    }
    let mut memory = vec![0.0; k];
    for (v, &d) in placement.iter().enumerate() {
        let id = &g.nodes[v].id;
        if d as usize >= k {
            return Err(Error::Problem(format!(
                "node '{id}' placed on unknown device {d}"
            )));
        }
        if !problem.allowed(v as NodeIx, d) {
            return Err(Error::Problem(format!(
                "node '{id}' placed on device '{}', which its rules forbid",
                problem.cluster.devices[d as usize].id
            )));
        }
        memory[d as usize] += problem.footprint[v];
    }
    for (grp, members) in g.group_members.iter().enumerate() {
        if let Some(&first) = members.first() {
            if members
                .iter()
                .any(|&v| placement[v as usize] != placement[first as usize])
            {
                return Err(Error::Problem(format!(
                    "colocation group '{}' is split across devices",
                    g.groups[grp]
                )));
            }
        }
    }
    for (d, dev) in problem.cluster.devices.iter().enumerate() {
        if crate::model::cluster::exceeds(memory[d], dev.memory) {
            // A static rule is the judge: the placement is refused, whatever rule the
            // placer followed (docs/pesto.md, Memory).
            return Err(Error::Problem(format!(
                "device '{}' holds {} bytes of ops by the scenario's footprint rule '{}', \
                 more than its memory {}{}",
                dev.id,
                memory[d],
                problem.footprint_rule.name(),
                dev.memory,
                if problem.footprint_rule.is_static() {
                    " (footprint 'live' judges by the simulated peak of live tensors instead)"
                } else {
                    ""
                }
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(status: SolveStatus, bound_of: BoundScope) -> SolveReport {
        SolveReport {
            objective: 1.0,
            bound: Some(1.0),
            bound_of,
            status,
            work: 1234,
            work_unit: "schedules simulated".into(),
            coarse_vertices: None,
            history: Vec::new(),
        }
    }

    #[test]
    fn labels_follow_the_reporting_rules_and_never_say_a_bare_optimal() {
        use BoundScope::*;
        use SolveStatus::*;
        let cases = [
            (Optimal, Instance, "optimal (proven)", 3),
            (Optimal, Coarse, "optimal for the coarse graph", 2),
            (CoarseOptimal, Coarse, "optimal for the coarse graph", 2),
            (
                Feasible,
                Instance,
                "best found after 1234 schedules simulated",
                1,
            ),
            (Heuristic, None, "heuristic (no bound)", 0),
        ];
        for (status, scope, label, strength) in cases {
            let r = report(status, scope);
            assert_eq!(r.label(), label);
            assert_eq!(r.strength(), strength);
            assert_ne!(r.label(), "optimal");
        }
        let mut coarse = report(CoarseOptimal, Coarse);
        coarse.coarse_vertices = Some(40);
        assert_eq!(coarse.label(), "optimal for the 40-vertex coarse graph");
        assert_eq!(coarse.strength(), 2);
    }

    /// Only improvements are kept, best values never regress, and a full history thins out
    /// to half plus the newest point, keeping its first and its newest.
    #[test]
    fn a_history_keeps_improvements_only_and_stays_capped() {
        let mut h = History::default();
        h.record(0, 10.0, 2.0);
        h.record(5, 10.0, 2.0); // no change: not kept
        h.record(6, 11.0, 1.0); // worse in both: not kept
        h.record(7, 9.0, 1.5); // better objective, weaker bound: the bound stays 2
        h.record(9, 9.0, 3.0); // better bound
        h.record(10, 2.5, 0.0); // an objective below the bound: the bound is kept at it
        let pts = h.clone().into_points();
        assert_eq!(
            pts,
            vec![
                Improvement {
                    work: 0,
                    objective: 10.0,
                    bound: 2.0
                },
                Improvement {
                    work: 7,
                    objective: 9.0,
                    bound: 2.0
                },
                Improvement {
                    work: 9,
                    objective: 9.0,
                    bound: 3.0
                },
                Improvement {
                    work: 10,
                    objective: 2.5,
                    bound: 2.5
                },
            ]
        );
        let mut h = History::default();
        for i in 0..200u64 {
            h.record(i, 1000.0 - i as f64, 0.0);
            assert!(h.0.len() <= History::CAP);
        }
        let pts = h.into_points();
        assert_eq!(pts[0].work, 0);
        assert_eq!(pts.last().unwrap().work, 199);
        assert!(pts
            .windows(2)
            .all(|w| w[0].work < w[1].work && w[0].objective > w[1].objective));
    }
}
