//! `m-etf`: Baechi's memory-constrained Earliest Task First (m-ETF; Jeon et al., SoCC'20, as
//! Pesto21 §5.2 compares against it; ETF is Hwang, Chow, Anger, Lee 1989).
//!
//! List scheduling by time: at each step, among every (ready op, device) pair, the op that
//! can start earliest goes to the device where it starts earliest, and that device's clock
//! moves to the op's end. An op's start on `d` is `max(data ready on d, d free)`, data ready
//! being the latest producer finish plus its transfer time to `d` (`edge_transfer_time`,
//! zero on one device). Only devices with memory left for the op qualify (its static
//! footprint, as every placer); a colocation group is placed whole, with its first member,
//! and its other members may only use that device.
//!
//! Choices:
//! - Ties go to the op earlier in topological order, then to the lower device index.
//! - Transfers are estimated without contention (Baechi models one channel per device; the
//!   final makespan always comes from placesim's simulator, as Pesto21 ran Baechi's
//!   placements in TensorFlow).
//! - No insertion into idle gaps (that is HEFT's, not ETF's).
//!
//! Cost: a lazy heap of each ready op's best start (starts only grow as devices fill), so
//! `O((V + re-insertions) * k * in-degree * log V)`.

use std::collections::BinaryHeap;

use super::{assign, no_device_error, Loads, Placement, Placer, PlacerInfo, Units, UNPLACED};
use crate::analysis::topo_position;
use crate::error::Result;
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::rng::Rng;
use crate::util::MaxEntry;

pub const INFO: PlacerInfo = PlacerInfo {
    name: "m-etf",
    summary: "earliest start first over (ready op, device) pairs, memory-aware (Baechi m-ETF; Pesto21 §5.2)",
    params: &[],
    plans: false,
    make: || Box::new(MEtf),
};

pub struct MEtf;

struct State<'a> {
    problem: &'a Problem<'a>,
    units: Units,
    loads: Loads,
    unit_device: Vec<Option<DevIx>>,
    placement: Vec<DevIx>,
    finish: Vec<f64>,
    free: Vec<f64>,
}

impl State<'_> {
    /// The earliest start of ready op `v` and its device; `None` when no device may take it.
    fn best(&self, v: NodeIx) -> Option<(f64, DevIx)> {
        let g = self.problem.graph;
        let unit = self.units.of[v as usize];
        let fixed = self.unit_device[unit as usize];
        let mut best: Option<(f64, DevIx)> = None;
        for d in 0..self.problem.device_count() as DevIx {
            let ok = match fixed {
                Some(f) => f == d,
                None => self.loads.feasible(self.problem, &self.units, unit, d),
            };
            if !ok {
                continue;
            }
            let ready = g
                .in_edges(v)
                .iter()
                .map(|&e| {
                    let u = g.edges[e as usize].src as usize;
                    self.finish[u] + self.problem.edge_transfer_time(e, self.placement[u], d)
                })
                .fold(self.free[d as usize], f64::max);
            if best.is_none_or(|(b, _)| ready < b) {
                best = Some((ready, d));
            }
        }
        best
    }
}

impl Placer for MEtf {
    fn place(&self, problem: &Problem, _: &Params, _: &mut Rng) -> Result<Placement> {
        let g = problem.graph;
        let n = g.node_count();
        let pos = topo_position(problem);
        let mut s = State {
            problem,
            units: Units::new(problem),
            loads: Loads::new(problem),
            unit_device: Vec::new(),
            placement: vec![UNPLACED; n],
            finish: vec![0.0; n],
            free: vec![0.0; problem.device_count()],
        };
        s.unit_device = vec![None; s.units.len()];
        let mut pending: Vec<u32> = (0..n as NodeIx)
            .map(|v| g.in_edges(v).len() as u32)
            .collect();
        // Earliest start first: the key is the negated start; ties by topological position,
        // then device.
        let mut heap: BinaryHeap<MaxEntry<f64, (u32, DevIx), NodeIx>> = BinaryHeap::new();
        let fail = |s: &State, v: NodeIx| {
            let unit = s.units.of[v as usize];
            no_device_error(INFO.name, problem, &s.units, unit)
        };
        for v in 0..n as NodeIx {
            if pending[v as usize] == 0 {
                let (t, d) = s.best(v).ok_or_else(|| fail(&s, v))?;
                heap.push(MaxEntry {
                    key: -t,
                    tie: (pos[v as usize], d),
                    data: v,
                });
            }
        }
        while let Some(MaxEntry { key, data: v, .. }) = heap.pop() {
            let (t, d) = s.best(v).ok_or_else(|| fail(&s, v))?;
            if t > -key {
                // A device filled up or got busier since: try again with the new start.
                heap.push(MaxEntry {
                    key: -t,
                    tie: (pos[v as usize], d),
                    data: v,
                });
                continue;
            }
            let unit = s.units.of[v as usize];
            if s.unit_device[unit as usize].is_none() {
                s.unit_device[unit as usize] = Some(d);
                assign(problem, &s.units, &mut s.loads, &mut s.placement, unit, d);
            }
            s.finish[v as usize] = t + problem.exec(v, d);
            s.free[d as usize] = s.finish[v as usize];
            for &e in g.out_edges(v) {
                let w = g.edges[e as usize].dst;
                pending[w as usize] -= 1;
                if pending[w as usize] == 0 {
                    let (t, d) = s.best(w).ok_or_else(|| fail(&s, w))?;
                    heap.push(MaxEntry {
                        key: -t,
                        tie: (pos[w as usize], d),
                        data: w,
                    });
                }
            }
        }
        Ok(s.placement)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::parse;

    /// Fork-join a(2) -> b(4) [3 B], a -> c(3) [2 B], b -> d(1) [1 B], c -> d [1 B]; two
    /// devices of speed 1, bandwidth 1, latency 0.
    /// - a: 0 on both, d0 by index: 0..2.
    /// - b and c both start earliest at 2 on d0; b comes first in topological order: 2..6.
    /// - c: d0 now free at 6, d1 at 2 + 2 = 4: d1, 4..7.
    /// - d: d0 max(6, 7 + 1) = 8, d1 max(6 + 1, 7) = 7: d1, 7..8.
    #[test]
    fn hand_computed_fork_join() {
        let (g, c) = parse(
            r#"{"nodes":[{"id":"a","cost":2},{"id":"b","cost":4},{"id":"c","cost":3},{"id":"d","cost":1}],
                "edges":[{"src":"a","dst":"b","bytes":3},{"src":"a","dst":"c","bytes":2},
                         {"src":"b","dst":"d","bytes":1},{"src":"c","dst":"d","bytes":1}]}"#,
            r#"{"devices":[{"id":"d0","speed":1},{"id":"d1","speed":1}],"bandwidth":1}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        let placement = MEtf
            .place(&p, &Params::default(), &mut Rng::new(0))
            .unwrap();
        assert_eq!(placement, vec![0, 0, 1, 1]);
        // b and d in one group: d may only go where b went (d0), though d1 would start it
        // sooner; the rest is as above.
        let (g, c) = parse(
            r#"{"nodes":[{"id":"a","cost":2},{"id":"b","cost":4,"colocate":"w"},{"id":"c","cost":3},{"id":"d","cost":1,"colocate":"w"}],
                "edges":[{"src":"a","dst":"b","bytes":3},{"src":"a","dst":"c","bytes":2},
                         {"src":"b","dst":"d","bytes":1},{"src":"c","dst":"d","bytes":1}]}"#,
            r#"{"devices":[{"id":"d0","speed":1},{"id":"d1","speed":1}],"bandwidth":1}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        let placement = MEtf
            .place(&p, &Params::default(), &mut Rng::new(0))
            .unwrap();
        assert_eq!(placement, vec![0, 0, 1, 0], "d follows b's group to d0");
    }
}
