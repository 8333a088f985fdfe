//! The loop `etf/` replaced, kept verbatim for its tests: m-ETF and m-SCT as placesim
//! placed before Baechi's channel and memory models (transfers alone, static footprints)
//! and before m-ETF's heaps. `etf::Options { channel: false, static_memory: true }` must
//! give its placements, bit for bit.

use std::collections::BinaryHeap;

use super::super::{assign, no_device_error, Accelerators, Groups, Loads, UNPLACED};
use crate::analysis::topo_position;
use crate::error::Result;
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::plan::Placement;
use crate::util::MaxEntry;

struct State<'a> {
    problem: &'a Problem<'a>,
    units: Groups,
    accelerators: Accelerators,
    /// Each op's fastest run time over the devices it may use (m-SCT's SCT devices).
    fastest: Vec<f64>,
    loads: Loads,
    unit_device: Vec<Option<DevIx>>,
    placement: Vec<DevIx>,
    finish: Vec<f64>,
    free: Vec<f64>,
    /// The op each device ran last.
    last: Vec<Option<NodeIx>>,
    /// Producers not yet placed, per op (0: ready).
    pending: Vec<u32>,
    /// The favourite child each device waits for and when it is ready (m-SCT), recomputed
    /// after every placement.
    waits_for: Vec<Option<(NodeIx, f64)>>,
}

impl State<'_> {
    /// Start of ready op `v` on `d` (`None` when `d` may not take it), before any wait.
    fn start(&self, v: NodeIx, d: DevIx) -> Option<f64> {
        let g = self.problem.graph;
        let unit = self.units.of[v as usize];
        let ok = match self.unit_device[unit as usize] {
            Some(f) => f == d,
            None => {
                self.accelerators.usable(unit, d)
                    && self.loads.feasible(self.problem, &self.units, unit, d)
            }
        };
        ok.then(|| {
            g.in_edges(v)
                .iter()
                .map(|&e| {
                    let u = g.edges[e as usize].src as usize;
                    self.finish[u] + self.problem.edge_transfer_time(e, self.placement[u], d)
                })
                .fold(self.free[d as usize], f64::max)
        })
    }

    /// Whether `d` is one of `v`'s SCT devices: one where it runs fastest.
    fn sct_device(&self, v: NodeIx, d: DevIx) -> bool {
        self.problem.exec(v, d) == self.fastest[v as usize]
    }

    /// The earliest start of ready op `v` and its device; `None` when no device may take
    /// it. A device waiting for another op's favourite child (m-SCT) starts `v` no sooner
    /// than `v`'s urgent time; among equal starts the device whose own start is earlier
    /// wins (Baechi ranks a waiting device's offer by its own schedule time), then the
    /// lower index.
    fn best(&self, v: NodeIx) -> Option<(f64, DevIx)> {
        let k = self.problem.device_count() as DevIx;
        let waiting = self
            .waits_for
            .iter()
            .any(|w| w.is_some_and(|(f, _)| f != v));
        let urgent = if waiting {
            (0..k)
                .filter(|&d| self.sct_device(v, d))
                .filter_map(|d| self.start(v, d))
                .fold(f64::NEG_INFINITY, f64::max)
        } else {
            f64::NEG_INFINITY
        };
        let mut best: Option<(f64, f64, DevIx)> = None;
        for d in 0..k {
            let Some(own) = self.start(v, d) else {
                continue;
            };
            let t = match self.waits_for[d as usize] {
                Some((f, ready)) if f != v && ready <= own => own.max(urgent),
                _ => own,
            };
            if best.is_none_or(|(bt, bown, _)| t < bt || (t == bt && own < bown)) {
                best = Some((t, own, d));
            }
        }
        best.map(|(t, _, d)| (t, d))
    }

    /// Which favourite child each device waits for now, and when that child is ready (its
    /// producers' latest finish): the favourite of the device's last op, when it is not
    /// placed, its producers are, and this is one of its SCT devices where it starts no
    /// later than on any other.
    fn update_waits(&mut self, favourite: &[Option<NodeIx>]) {
        let g = self.problem.graph;
        let k = self.problem.device_count() as DevIx;
        for d in 0..k {
            let f = self.last[d as usize].and_then(|u| favourite[u as usize]);
            self.waits_for[d as usize] = f
                .filter(|&f| {
                    self.placement[f as usize] == UNPLACED
                        && self.pending[f as usize] == 0
                        && self.sct_device(f, d)
                        && self.start(f, d).is_some_and(|t| {
                            (0..k)
                                .filter(|&e| self.sct_device(f, e))
                                .all(|e| self.start(f, e).is_none_or(|te| t <= te))
                        })
                })
                .map(|f| {
                    let ready = g
                        .in_edges(f)
                        .iter()
                        .map(|&e| self.finish[g.edges[e as usize].src as usize])
                        .fold(0.0, f64::max);
                    (f, ready)
                });
        }
    }
}

/// Places every op by earliest start first; `favourite[u]` is `u`'s favourite child
/// (m-SCT), all `None` for plain m-ETF. `placer` names the strategy in errors.
pub(crate) fn legacy_schedule(
    placer: &str,
    problem: &Problem,
    favourite: &[Option<NodeIx>],
) -> Result<Placement> {
    let g = problem.graph;
    let n = g.node_count();
    let k = problem.device_count();
    let pos = topo_position(problem);
    let units = Groups::new(problem);
    let accelerators = Accelerators::new(problem, &units);
    // The fastest run time over the devices an op may use (before memory).
    let fastest = (0..n as NodeIx)
        .map(|v| {
            let unit = units.of[v as usize];
            (0..k as DevIx)
                .filter(|&d| accelerators.usable(unit, d) && units.allowed(problem, unit, d))
                .map(|d| problem.exec(v, d))
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    let mut s = State {
        problem,
        unit_device: vec![None; units.len()],
        units,
        accelerators,
        fastest,
        loads: Loads::new(problem),
        placement: vec![UNPLACED; n],
        finish: vec![0.0; n],
        free: vec![0.0; k],
        last: vec![None; k],
        pending: (0..n as NodeIx)
            .map(|v| g.in_edges(v).len() as u32)
            .collect(),
        waits_for: vec![None; k],
    };
    let sct = favourite.iter().any(Option::is_some);
    // Ready ops not placed yet, for recomputing every start (m-SCT).
    let mut ready: Vec<NodeIx> = Vec::new();
    // Earliest start first: the key is the negated start; ties by topological position,
    // then device.
    let mut heap: BinaryHeap<MaxEntry<f64, (u32, DevIx), NodeIx>> = BinaryHeap::new();
    let push = |s: &State, heap: &mut BinaryHeap<_>, v: NodeIx| -> Result<()> {
        let (t, d) = s
            .best(v)
            .ok_or_else(|| no_device_error(placer, problem, &s.units, s.units.of[v as usize]))?;
        heap.push(MaxEntry {
            key: -t,
            tie: (pos[v as usize], d),
            data: v,
        });
        Ok(())
    };
    for v in 0..n as NodeIx {
        if s.pending[v as usize] == 0 {
            ready.push(v);
            push(&s, &mut heap, v)?;
        }
    }
    while let Some(MaxEntry { key, data: v, .. }) = heap.pop() {
        let (t, d) = s
            .best(v)
            .ok_or_else(|| no_device_error(placer, problem, &s.units, s.units.of[v as usize]))?;
        if t > -key {
            // A device filled up or got busier since: try again with the new start.
            push(&s, &mut heap, v)?;
            continue;
        }
        let unit = s.units.of[v as usize];
        if s.unit_device[unit as usize].is_none() {
            s.unit_device[unit as usize] = Some(d);
            assign(problem, &s.units, &mut s.loads, &mut s.placement, unit, d);
        }
        s.finish[v as usize] = t + problem.exec(v, d);
        s.free[d as usize] = s.finish[v as usize];
        s.last[d as usize] = Some(v);
        let mut new = Vec::new();
        for &e in g.out_edges(v) {
            let w = g.edges[e as usize].dst;
            s.pending[w as usize] -= 1;
            if s.pending[w as usize] == 0 {
                new.push(w);
            }
        }
        if sct {
            ready.retain(|&r| r != v);
            ready.extend(new);
            s.update_waits(favourite);
            heap.clear();
            for &r in &ready {
                push(&s, &mut heap, r)?;
            }
        } else {
            for w in new {
                push(&s, &mut heap, w)?;
            }
        }
    }
    Ok(s.placement)
}
