//! `heft`: Heterogeneous Earliest Finish Time (Topcuoglu, Hariri, Wu, IEEE TPDS 2002),
//! modified for the TensorFlow constraints as Mayer17 §5.1 describes.
//!
//! HEFT (2002, §4.2): order the ops by decreasing upward rank `rank_u`
//! ([`heft_rank_u`](crate::analysis::heft_rank_u): mean run time over the allowed devices
//! plus the costliest path of mean communication `L̄ + bytes / B̄` and ranks below); then,
//! op by op, choose the device with the earliest finish time, using the insertion-based
//! policy: the op may start in the earliest idle gap between ops already scheduled on that
//! device that is long enough for it, not before its inputs arrive. An input arrives
//! `edge_transfer_time(e, p(u), d)` after its producer `u` finishes (0 on one device).
//!
//! Mayer17 §5.1 modifications: "we consider only feasible devices for a vertex v, i.e.,
//! devices to which colocated vertices are already assigned and that satisfy the device
//! constraints of vertex v ... If the vertex is collocated, all collocated vertices are
//! assigned but as their predecessor vertices might be not assigned yet the earliest
//! finish time can not be computed. So their computing time slot is only computed and
//! added to the devices time schedule when it is their turn due to the task
//! prioritization list." So:
//! - an op whose colocation group already has a device may only use that device;
//! - the first member of a group to come up chooses among devices that every member may
//!   use (the problem's narrowed rules) and that have memory for the whole group's
//!   footprint ([`Groups`], [`Loads`]); the whole group is assigned and charged there;
//! - memory: a device is feasible only if the unit's static footprint fits (the same
//!   rule every placer follows; the paper's HEFT does not mention memory).
//!
//! Choices where the papers are silent:
//! - Equal `rank_u` are ordered by topological position, which keeps the list a
//!   topological order even with zero-cost ops (so every input's finish time is known).
//! - Equal finish times go to the lowest device index.
//! - `B̄` is the mean bandwidth, as HEFT defines `c̄ = L̄ + data / B̄` (not the mean of
//!   `bytes / bandwidth`).
//!
//! Cost: ranks `O(V·k + E + k²)`; sorting `O(V log V)`; data-ready times `O(E·k)`; the
//! gap search per (op, device) and the occupation of the chosen gap are `O(log V)`
//! expected: each device's gaps are a treap keyed by start whose subtrees know their
//! longest gap (`gaps.rs`). In all `O(V log V + E·k + V·k·log V)`. (The pure insertion
//! search is `O(V)` per device per op, `O(V²·k)` in all; the chunked lists before this
//! tree, 64 gaps a chunk, were `O(V·(k·64 + V/64))` in the worst case.)

mod gaps;

use gaps::{FreeTime, Slot};

use super::{assign, no_device_error, Groups, Loads, PlaceContext, Placer, PlacerInfo};
use crate::analysis::{shared_rank_u, shared_topo_position, topo_position};
use crate::error::Result;
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::plan::{BoundScope, SolveStatus};
use crate::plan::{Order, Placement, Plan, SolveReport};
use crate::rng::Rng;

pub const INFO: PlacerInfo = PlacerInfo {
    name: "heft",
    summary:
        "HEFT with insertion, feasible devices only, groups whole (Topcuoglu 2002; Mayer17 §5.1)",
    params: &[],
    plans: true,
    make: || Box::new(Heft),
};

pub struct Heft;

/// HEFT's own schedule: where and when it plans every op.
#[derive(Debug, Clone, PartialEq)]
pub struct HeftSchedule {
    pub placement: Placement,
    pub start: Vec<f64>,
    pub finish: Vec<f64>,
    /// Latest finish time.
    pub makespan: f64,
}

/// HEFT's priority list: ops by decreasing `rank_u`, ties by topological position.
pub fn priority_order(problem: &Problem, rank: &[f64]) -> Vec<NodeIx> {
    let pos = shared_topo_position(problem);
    let mut order: Vec<NodeIx> = (0..problem.node_count() as NodeIx).collect();
    order.sort_by(|&a, &b| {
        rank[b as usize]
            .total_cmp(&rank[a as usize])
            .then(pos[a as usize].cmp(&pos[b as usize]))
    });
    order
}

/// Runs the modified HEFT and returns its planned schedule.
pub fn heft_schedule(problem: &Problem) -> Result<HeftSchedule> {
    let g = problem.graph;
    let n = g.node_count();
    let k = problem.device_count();
    let rank = shared_rank_u(problem);
    let order = priority_order(problem, &rank);
    let units = Groups::new(problem);
    let mut loads = Loads::new(problem);
    let mut unit_device: Vec<Option<DevIx>> = vec![None; units.len()];
    let mut placement = vec![0 as DevIx; n];
    let mut start = vec![0.0; n];
    let mut finish = vec![0.0; n];
    let mut free: Vec<FreeTime> = (0..k).map(|_| FreeTime::new()).collect();
    let mut makespan = 0.0f64;
    for &v in &order {
        let unit = units.of[v as usize];
        let fixed = unit_device[unit as usize];
        let mut best: Option<(f64, DevIx, Slot)> = None;
        for d in 0..k as DevIx {
            match fixed {
                Some(f) if f != d => continue,
                None if !loads.feasible(problem, &units, unit, d) => continue,
                _ => {}
            }
            let run = problem.exec(v, d);
            // Inputs come from ops earlier in the list (the list is topological).
            let ready = g
                .in_edges(v)
                .iter()
                .map(|&e| {
                    let u = g.edges[e as usize].src;
                    finish[u as usize] + problem.edge_transfer_time(e, placement[u as usize], d)
                })
                .fold(0.0, f64::max);
            let slot = free[d as usize].find(ready, run);
            let eft = slot.time + run;
            if best.is_none_or(|(b, _, _)| eft < b) {
                best = Some((eft, d, slot));
            }
        }
        let Some((eft, d, slot)) = best else {
            return Err(no_device_error(INFO.name, problem, &units, unit));
        };
        if fixed.is_none() {
            unit_device[unit as usize] = Some(d);
            assign(problem, &units, &mut loads, &mut placement, unit, d);
        }
        free[d as usize].occupy(slot, eft - slot.time);
        start[v as usize] = slot.time;
        finish[v as usize] = eft;
        makespan = makespan.max(eft);
    }
    Ok(HeftSchedule {
        placement,
        start,
        finish,
        makespan,
    })
}

impl Placer for Heft {
    fn place(&self, problem: &Problem, _: &Params, _: &mut Rng) -> Result<Placement> {
        heft_schedule(problem).map(|s| s.placement)
    }

    /// HEFT's own insertion-based schedule as a plan: `heft x given` replays it (strictly,
    /// per device in planned start order), so under parallel links the simulated makespan
    /// is the plan's. The report's objective is that makespan; HEFT proves no bound. The
    /// order is built only when something replays it.
    fn plan(&self, problem: &Problem, _: &Params, ctx: &mut PlaceContext) -> Result<Plan> {
        let s = heft_schedule(problem)?;
        let order = ctx.wants_order.then(|| {
            Order::of_schedule(
                problem,
                &s.placement,
                &s.start,
                &s.finish,
                &topo_position(problem),
            )
        });
        Ok(Plan {
            report: Some(SolveReport {
                objective: s.makespan,
                bound: None,
                bound_of: BoundScope::None,
                status: SolveStatus::Heuristic,
                work: problem.node_count() as u64,
                work_unit: "ops listed".into(),
                coarse_vertices: None,
                history: Vec::new(),
            }),
            placement: s.placement,
            order,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::heft_rank_u;
    use crate::model::cluster::Cluster;
    use crate::place::verify;
    use crate::testutil::{cluster, graph, topcuoglu};

    #[test]
    fn topcuoglu_2002_example() {
        let (g, c) = topcuoglu();
        let p = Problem::new(&g, &c).unwrap();
        let rank = heft_rank_u(&p);
        // The paper's table of rank_u: 108, 77, 80, 80, 69, 63.33, 42.67, 35.67, 44.33, 14.67.
        let want = [
            108.0, 77.0, 80.0, 80.0, 69.0, 63.333, 42.667, 35.667, 44.333, 14.667,
        ];
        for (r, w) in rank.iter().zip(want) {
            assert!((r - w).abs() < 1e-3, "{rank:?}");
        }
        let s = heft_schedule(&p).unwrap();
        // The paper's schedule (Fig. 4a): n1 P3 0-9, n3 P3 9-28, n4 P2 18-26,
        // n2 P1 27-40, n5 P3 28-38, n6 P2 26-42, n9 P2 56-68, n7 P3 38-49,
        // n8 P1 57-62, n10 P2 73-80; makespan 80.
        assert_eq!(s.placement, vec![2, 0, 2, 1, 2, 1, 2, 0, 1, 1]);
        assert_eq!(
            s.start,
            vec![0.0, 27.0, 9.0, 18.0, 28.0, 26.0, 38.0, 57.0, 56.0, 73.0]
        );
        assert_eq!(s.makespan, 80.0);
        verify(&p, &s.placement).unwrap();
    }

    /// Four ops on two devices (speeds 1 and 2), bandwidth 1, latency 0:
    ///
    /// ```text
    ///   a(4) --2B--> b(2)      c(6) alone, d(2) colocated with a
    /// ```
    /// Mean run times (speed 1 and 2): a 3, b 1.5, c 4.5, d 1.5; mean comm of 2 bytes = 2.
    /// rank_u: b 1.5, a 3 + 2 + 1.5 = 6.5, c 4.5, d 1.5. Order: a, c, then d and b tie at
    /// 1.5; the topological order (sources a, c, d first, then b) puts d first.
    /// - a: d0 finishes 4, d1 finishes 2 -> d1 [0, 2]; group {a, d} goes to d1 at once.
    /// - c: d0 6, d1 2 + 3 = 5 -> d1 [2, 5].
    /// - d: fixed to d1 (colocated with a), no inputs, its slot only now: [5, 6].
    /// - b: on d1 its input is there at 2 but d1 is busy till 6 -> [6, 7]; on d0 the
    ///   2 bytes arrive at 2 + 2 = 4 -> [4, 6]. d0 wins.
    #[test]
    fn hand_computed_with_a_colocated_pair() {
        let g = graph(
            r#"{"nodes":[{"id":"a","cost":4,"colocate":"w"},{"id":"b","cost":2},{"id":"c","cost":6},
                         {"id":"d","cost":2,"colocate":"w"}],
                "edges":[{"src":"a","dst":"b","bytes":2}]}"#,
        );
        let c = Cluster::uniform(&[1.0, 2.0], 1.0, 0.0);
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(heft_rank_u(&p), vec![6.5, 1.5, 4.5, 1.5]);
        let s = heft_schedule(&p).unwrap();
        assert_eq!(s.placement, vec![1, 0, 1, 1]);
        assert_eq!(s.start, vec![0.0, 4.0, 2.0, 5.0]);
        assert_eq!(s.finish, vec![2.0, 6.0, 5.0, 6.0]);
    }

    #[test]
    fn insertion_fills_an_earlier_gap() {
        let mut f = FreeTime::new();
        let s = f.find(0.0, 2.0);
        f.occupy(s, 2.0);
        let s = f.find(10.0, 3.0);
        assert_eq!(s.time, 10.0);
        f.occupy(s, 3.0);
        // Gap [2, 10): a 5-long op ready at 1 starts at 2; an 9-long one goes after 13.
        assert_eq!(f.find(1.0, 5.0).time, 2.0);
        assert_eq!(f.find(1.0, 9.0).time, 13.0);
        // Zero-length op ready inside a busy interval waits for it to end.
        assert_eq!(f.find(11.0, 0.0).time, 13.0);
        // An 8-long op fills [2, 10) exactly: the gap goes; a zero-length one splits the
        // last gap at its instant, and a later op may not span it.
        assert_eq!(f.len(), 2);
        let s = f.find(1.0, 8.0);
        assert_eq!(s.time, 2.0);
        f.occupy(s, 8.0);
        assert_eq!(f.len(), 1);
        let s = f.find(15.0, 0.0);
        f.occupy(s, 0.0);
        assert_eq!(f.len(), 2);
        assert_eq!(f.find(0.0, 2.0).time, 13.0);
        assert_eq!(f.find(0.0, 3.0).time, 15.0);
    }

    /// The gap tree against a plain scan of the busy intervals: short ops at sparse ready
    /// times first (most fit where they are ready, leaving gaps of every length), then
    /// longer ones that pass over many gaps too short (the search walks the tree's longest
    /// gaps), zero-length ops included.
    #[test]
    fn free_time_matches_a_plain_scan() {
        for (seed, span) in [(5, 40_000), (6, 20_000)] {
            let mut rng = Rng::new(seed);
            let mut f = FreeTime::new();
            let mut busy: Vec<(f64, f64)> = Vec::new();
            let mut later = 0;
            for i in 0..3000 {
                let ready = rng.below(span) as f64;
                let run = rng.below(if i < 2000 { 20 } else { 120 }) as f64;
                // Plain scan: earliest t >= ready that overlaps no busy interval or instant.
                busy.sort_by(|a, b| a.0.total_cmp(&b.0));
                let mut t = ready;
                for &(s, e) in &busy {
                    if e <= t {
                        continue;
                    }
                    if t < s && t + run <= s {
                        break;
                    }
                    t = e;
                }
                let slot = f.find(ready, run);
                assert_eq!(slot.time, t, "seed {seed} ready {ready} run {run}");
                f.occupy(slot, run);
                // A zero-length op is a busy instant: nothing may span it.
                busy.push((t, t + run));
                later += usize::from(t > ready);
            }
            assert!(f.len() > 400, "many gaps: {}", f.len());
            assert!(later > 1000, "many ops start later than ready: {later}");
        }
    }

    #[test]
    fn memory_and_device_rules_limit_the_choice() {
        let c = cluster(
            r#"{"devices":[{"id":"fast","speed":10,"memory":5},{"id":"slow","speed":1},
                           {"id":"c","kind":"cpu","speed":100}],"bandwidth":1}"#,
        );
        let g = graph(
            r#"{"nodes":[{"id":"a","cost":10,"mem":4,"device":"gpu"},{"id":"b","cost":10,"mem":4,"device":"gpu"}]}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        let s = heft_schedule(&p).unwrap();
        // Both prefer 'fast', but only one fits its 5 bytes; 'c' is not a gpu.
        assert_eq!(s.placement, vec![0, 1]);
        let g = graph(r#"{"nodes":[{"id":"a","cost":1,"mem":9,"device":"fast"}]}"#);
        let p = Problem::new(&g, &c).unwrap();
        let e = heft_schedule(&p).unwrap_err().to_string();
        assert!(e.contains("placer heft") && e.contains("node 'a'"), "{e}");
    }
}
