//! Earliest-start list scheduling over (ready op, device) pairs: the loop Baechi's m-ETF and
//! m-SCT share (Jeon et al., SoCC'20, as Pesto21 §5.2 compares against them; `m_etf.rs` and
//! `m_sct.rs` hold each strategy's reading and choices).
//!
//! At each step, among every (ready op, device) pair, the op that can start earliest goes to
//! the device where it starts earliest, and that device's clock moves to the op's end. An
//! op's start on `d` is `max(data ready on d, d free)`, data ready being the latest producer
//! finish plus its transfer time to `d` (`edge_transfer_time`, zero on one device). Only
//! devices with memory left for the op qualify (its static footprint); a colocation group is
//! placed whole, with its first member, and its other members may only use that device.
//! Ties go to the op earlier in topological order, then to the lower device index.
//!
//! The devices are Baechi's: the accelerators (`Accelerators`: the GPUs, or every device when
//! there is none); an op no GPU may run uses the devices it may run on. Pesto21 §5.2 says
//! m-SCT takes into account "finite number of GPUs", and Baechi's driver (`train.py`) gives
//! its placers the GPUs only; so on Pesto21's machine (a CPU and two V100s) the slow CPU,
//! where an op often starts earliest and runs 40 times longer, takes only the CPU's ops.
//!
//! m-SCT's favourite children ([`schedule`]'s `favourite`) add one rule, Baechi's AWAKE
//! state: a device whose last op `u` has a favourite child `f` that is not placed, whose
//! producers are all placed, and that starts on this device no later than on any other of
//! `f`'s SCT devices, waits for `f` from the time `f`'s producers have all finished: another
//! op `w` that could start there at or after that time starts there no sooner than its
//! urgent time, the latest of its starts over its SCT devices (Baechi's `urgent_ts` in
//! `placer_utils.py`, used by `SCTDevice` in `m_sct.py`, by
//! which every such device could have started it). Baechi ranks a waiting device's offer of
//! an urgent op by the device's own (earlier) schedule time, so among equal starts the device
//! whose own start is earlier wins, then the lower index. Without favourites the ranking is
//! plain m-ETF's.
//!
//! An op's SCT devices are those of its devices on which it runs fastest. Baechi (and SCT,
//! Hanen and Munier's rule for identical processors) compares every device, all alike; on
//! identical devices the two are the same. Where devices differ in speed, the latest start
//! over all of them waits for the slowest and busiest device, where the op would not run
//! anyway: on 20 random graphs with one device 50 times slower than three others, that
//! reading made m-SCT 1.50 times m-ETF's makespan (geometric mean), and this one 0.98. The
//! cost: on Mayer17's random speeds, where no two devices are alike, each op has one SCT
//! device and m-SCT waits less (0.963 of m-ETF before, 0.995 after; `docs/pesto.md`).
//!
//! Cost: without favourites a lazy heap of each ready op's best start (starts only grow as
//! devices fill), so `O((V + re-insertions) * k * in-degree * log V)`. With favourites a
//! waiting device can stop waiting and starts can fall, so every step recomputes the ready
//! ops' starts: `O(V * ready * k * in-degree)`.

use std::collections::BinaryHeap;

use super::{assign, no_device_error, Accelerators, Groups, Loads, UNPLACED};
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
pub(crate) fn schedule(
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
