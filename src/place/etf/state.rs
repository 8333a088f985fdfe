//! The loop's state: what is placed where and when, the channels, memory and the tensors
//! already sent ([`State`]), and the direct step every ready op's best start is computed in
//! (the tests' reference: the direct loop, and each waiting step of m-SCT's checked run).

use fixedbitset::FixedBitSet;

use super::super::{assign, no_device_error, Accelerators, Groups, Loads, UNPLACED};
use super::options::Options;
use crate::error::Error;
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;

/// Memory as the loop tracks it.
enum Memory {
    /// Static footprints (`Loads`).
    Static(Loads),
    /// Baechi's: what is allocated now per device.
    Live {
        used: Vec<f64>,
        capacity: Vec<f64>,
        /// An op's memory while it lives: `mem` plus its output tensors.
        need: Vec<f64>,
        /// The part freed after the last consumer: its output tensors.
        outputs: Vec<f64>,
        /// Sum of the members' `mem` per unit (what a group needs free to be placed).
        unit_mem: Vec<f64>,
        /// Consumers (distinct) not yet run, per op.
        consumers_left: Vec<u32>,
    },
}

/// One producer of an op and the distinct tensors it sends (Baechi's one edge per pair).
pub(super) struct Feed {
    pub(super) src: NodeIx,
    /// The tensors, in in-edge order.
    pub(super) tensors: Vec<u32>,
}

pub(super) struct State<'a> {
    pub(super) problem: &'a Problem<'a>,
    pub(super) opts: Options,
    pub(super) units: Groups,
    /// Bit `unit * k + d`: whether the unit may use device `d` before it is placed (device
    /// rules and Baechi's devices): what [`State::allowed`] reads.
    may: FixedBitSet,
    /// Each op's fastest run time over the devices it may use (m-SCT's SCT devices).
    pub(super) fastest: Vec<f64>,
    memory: Memory,
    pub(super) feeds: Vec<Vec<Feed>>,
    pub(super) unit_device: Vec<Option<DevIx>>,
    pub(super) placement: Vec<DevIx>,
    pub(super) finish: Vec<f64>,
    pub(super) free: Vec<f64>,
    /// When each device's channel is next free (Baechi's `channel_available_ts`).
    pub(super) channel: Vec<f64>,
    /// Where each tensor has arrived and when (Baechi's `_cached_tensors`).
    pub(super) arrived: Vec<Vec<(DevIx, f64)>>,
    /// The tensors the last commit sent to its device.
    pub(super) sent: Vec<u32>,
    /// The start chosen last (Baechi's `current_ts`).
    pub(super) now: f64,
    /// The op each device ran last.
    pub(super) last: Vec<Option<NodeIx>>,
    /// Producers not yet placed, per op (0: ready).
    pub(super) pending: Vec<u32>,
    /// Whether each op has run (been placed and scheduled).
    pub(super) done: Vec<bool>,
    /// The favourite child each device waits for and when it is ready (m-SCT), recomputed
    /// after every placement.
    pub(super) waits_for: Vec<Option<(NodeIx, f64)>>,
}

impl<'a> State<'a> {
    pub(super) fn new(problem: &'a Problem<'a>, opts: Options) -> State<'a> {
        let g = problem.graph;
        let n = g.node_count();
        let k = problem.device_count();
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
        let mut may = FixedBitSet::with_capacity(units.len() * k);
        for unit in 0..units.len() as u32 {
            for d in 0..k as DevIx {
                if accelerators.usable(unit, d) && units.allowed(problem, unit, d) {
                    may.insert(unit as usize * k + d as usize);
                }
            }
        }
        // Each op's producers in in-edge order; `slot[u]` is `u`'s feed in the op being
        // built (valid while `owner[u]` is that op), so an op with many inputs costs its
        // in-degree, not its square.
        let mut slot = vec![0u32; n];
        let mut owner = vec![NodeIx::MAX; n];
        let feeds = (0..n as NodeIx)
            .map(|v| {
                let mut feeds: Vec<Feed> = Vec::new();
                for &e in g.in_edges(v) {
                    let edge = &g.edges[e as usize];
                    let u = edge.src as usize;
                    if owner[u] != v {
                        owner[u] = v;
                        slot[u] = feeds.len() as u32;
                        feeds.push(Feed {
                            src: edge.src,
                            tensors: Vec::new(),
                        });
                    }
                    let feed = &mut feeds[slot[u] as usize];
                    if !feed.tensors.contains(&edge.tensor) {
                        feed.tensors.push(edge.tensor);
                    }
                }
                feeds
            })
            .collect::<Vec<_>>();
        let memory = if opts.static_memory {
            Memory::Static(Loads::new(problem))
        } else {
            let mut outputs = vec![0.0; n];
            for (t, tensor) in g.tensors.iter().enumerate() {
                outputs[tensor.src as usize] += problem.tensor_bytes[t];
            }
            let need = (0..n).map(|v| problem.mem[v] + outputs[v]).collect();
            let unit_mem = units
                .members
                .iter()
                .map(|ms| ms.iter().map(|&v| problem.mem[v as usize]).sum())
                .collect();
            let mut consumers_left = vec![0u32; n];
            for fs in &feeds {
                for f in fs {
                    consumers_left[f.src as usize] += 1;
                }
            }
            Memory::Live {
                used: vec![0.0; k],
                capacity: problem.cluster.devices.iter().map(|d| d.memory).collect(),
                need,
                outputs,
                unit_mem,
                consumers_left,
            }
        };
        State {
            problem,
            opts,
            unit_device: vec![None; units.len()],
            units,
            may,
            fastest,
            memory,
            feeds,
            placement: vec![UNPLACED; n],
            finish: vec![0.0; n],
            free: vec![0.0; k],
            channel: vec![0.0; k],
            arrived: vec![Vec::new(); g.tensors.len()],
            sent: Vec::new(),
            now: 0.0,
            last: vec![None; k],
            pending: (0..n as NodeIx)
                .map(|v| g.in_edges(v).len() as u32)
                .collect(),
            done: vec![false; n],
            waits_for: vec![None; k],
        }
    }

    /// Whether `v`'s unit may use `d` at all (device rules, Baechi's devices, its group's
    /// device once placed), memory aside.
    pub(super) fn allowed(&self, v: NodeIx, d: DevIx) -> bool {
        let unit = self.units.of[v as usize];
        match self.unit_device[unit as usize] {
            Some(f) => f == d,
            None => self.may[unit as usize * self.problem.device_count() + d as usize],
        }
    }

    /// The memory `v` needs free on `d` now (`None`: none needed; the static rule charges a
    /// unit once, when it is placed).
    pub(super) fn required(&self, v: NodeIx) -> Option<f64> {
        let unit = self.units.of[v as usize] as usize;
        let placed = self.unit_device[unit].is_some();
        match &self.memory {
            Memory::Static(_) => (!placed).then(|| self.units.footprint[unit]),
            Memory::Live { need, unit_mem, .. } => Some(if placed {
                need[v as usize]
            } else {
                need[v as usize].max(unit_mem[unit])
            }),
        }
    }

    /// Memory free on `d` now.
    pub(super) fn available(&self, d: DevIx) -> f64 {
        match &self.memory {
            Memory::Static(loads) => loads.free(d),
            Memory::Live { used, capacity, .. } => capacity[d as usize] - used[d as usize],
        }
    }

    /// Whether `v` fits on `d` now.
    pub(super) fn fits(&self, v: NodeIx, d: DevIx) -> bool {
        self.required(v)
            .is_none_or(|bytes| self.fits_bytes(d, bytes))
    }

    /// Whether `bytes` more fit on `d` now (so do fewer).
    pub(super) fn fits_bytes(&self, d: DevIx, bytes: f64) -> bool {
        match &self.memory {
            Memory::Static(loads) => loads.fits(d, bytes),
            Memory::Live { .. } => bytes <= self.available(d),
        }
    }

    /// When ready op `v`'s inputs would all be on `d` (an estimate: transfers do not occupy
    /// the channels).
    pub(super) fn data_ready(&self, v: NodeIx, d: DevIx) -> f64 {
        let p = self.problem;
        if !self.opts.channel {
            let g = p.graph;
            return g
                .in_edges(v)
                .iter()
                .map(|&e| {
                    let u = g.edges[e as usize].src as usize;
                    self.finish[u] + p.edge_transfer_time(e, self.placement[u], d)
                })
                .fold(0.0, f64::max);
        }
        let mut ready: f64 = 0.0;
        for feed in &self.feeds[v as usize] {
            let (there, send) = self.feed_on(feed, d);
            ready = ready.max(there);
            if let Some(w) = send {
                let u = feed.src as usize;
                let start = self.finish[u].max(self.channel[self.placement[u] as usize]);
                ready = ready.max(start.max(self.channel[d as usize]) + w);
            }
        }
        ready
    }

    /// One producer's part of an op's inputs on `d`: the latest of its tensors already there
    /// (its finish when it runs on `d`), and the summed transfer time of those still to send
    /// from its device (`None` when nothing is to send).
    #[inline]
    pub(super) fn feed_on(&self, feed: &Feed, d: DevIx) -> (f64, Option<f64>) {
        let u = feed.src as usize;
        let from = self.placement[u];
        if from == d {
            return (self.finish[u], None);
        }
        let p = self.problem;
        let mut there: f64 = 0.0;
        let mut w = 0.0;
        let mut send = false;
        for &t in &feed.tensors {
            match self.arrival(t, d) {
                Some(at) => there = there.max(at),
                None => {
                    w += p.cluster.transfer_time(from, d, p.tensor_bytes[t as usize]);
                    send = true;
                }
            }
        }
        (there, send.then_some(w))
    }

    pub(super) fn arrival(&self, t: u32, d: DevIx) -> Option<f64> {
        self.arrived[t as usize]
            .iter()
            .find(|&&(e, _)| e == d)
            .map(|&(_, at)| at)
    }

    /// Start of ready op `v` on `d` (`None` when `d` may not take it now), before any wait.
    pub(super) fn start(&self, v: NodeIx, d: DevIx) -> Option<f64> {
        (self.allowed(v, d) && self.fits(v, d)).then(|| {
            self.data_ready(v, d)
                .max(self.free[d as usize])
                .max(self.now)
        })
    }

    /// Whether `d` is one of `v`'s SCT devices: one where it runs fastest.
    pub(super) fn sct_device(&self, v: NodeIx, d: DevIx) -> bool {
        self.problem.exec(v, d) == self.fastest[v as usize]
    }

    /// Runs `v` on `d`, chosen to start at `t`: places its unit if it is the first, sends
    /// its inputs (channels), allocates and frees memory; returns the ops it made ready.
    pub(super) fn commit(&mut self, v: NodeIx, d: DevIx, t: f64) -> Vec<NodeIx> {
        let p = self.problem;
        let g = p.graph;
        let unit = self.units.of[v as usize];
        if self.unit_device[unit as usize].is_none() {
            self.unit_device[unit as usize] = Some(d);
            match &mut self.memory {
                Memory::Static(loads) => {
                    assign(p, &self.units, loads, &mut self.placement, unit, d);
                }
                Memory::Live { .. } => {
                    for &m in &self.units.members[unit as usize] {
                        self.placement[m as usize] = d;
                    }
                }
            }
        }
        self.sent.clear();
        let start = if self.opts.channel {
            let mut ready: f64 = 0.0;
            for feed in &self.feeds[v as usize] {
                let u = feed.src as usize;
                let from = self.placement[u];
                if from == d {
                    ready = ready.max(self.finish[u]);
                    continue;
                }
                for &t in &feed.tensors {
                    if let Some(at) = self.arrival(t, d) {
                        ready = ready.max(at);
                    }
                }
                for &t in &feed.tensors {
                    if self.arrival(t, d).is_some() {
                        continue;
                    }
                    let w = p.cluster.transfer_time(from, d, p.tensor_bytes[t as usize]);
                    let send = self.finish[u].max(self.channel[from as usize]);
                    self.channel[from as usize] = send + w;
                    let end = send.max(self.channel[d as usize]) + w;
                    self.channel[d as usize] = end;
                    self.arrived[t as usize].push((d, end));
                    self.sent.push(t);
                    ready = ready.max(end);
                }
            }
            ready.max(self.free[d as usize]).max(self.now)
        } else {
            t
        };
        self.now = t;
        if let Memory::Live {
            used,
            need,
            outputs,
            consumers_left,
            ..
        } = &mut self.memory
        {
            used[d as usize] += need[v as usize];
            for feed in &self.feeds[v as usize] {
                let u = feed.src as usize;
                consumers_left[u] -= 1;
                if consumers_left[u] == 0 {
                    used[self.placement[u] as usize] -= outputs[u];
                }
            }
        }
        self.finish[v as usize] = start + p.exec(v, d);
        self.free[d as usize] = self.finish[v as usize];
        self.last[d as usize] = Some(v);
        self.done[v as usize] = true;
        let mut new = Vec::new();
        for &e in g.out_edges(v) {
            let w = g.edges[e as usize].dst;
            self.pending[w as usize] -= 1;
            if self.pending[w as usize] == 0 {
                new.push(w);
            }
        }
        new
    }

    /// Ready op `v`'s urgent time: its latest start over its SCT devices that may take it
    /// now (Baechi's `urgent_ts`; `-inf` when none may).
    pub(super) fn urgent(&self, v: NodeIx) -> f64 {
        self.urgent_past(v, None, f64::INFINITY).0
    }

    /// [`State::urgent`], or a lower bound of it later than `bound`, and an SCT device where
    /// `v` starts then (`None` when none may take it): the SCT devices are read `first`
    /// first, and the reading stops at a start later than `bound`.
    pub(super) fn urgent_past(
        &self,
        v: NodeIx,
        first: Option<DevIx>,
        bound: f64,
    ) -> (f64, Option<DevIx>) {
        let k = self.problem.device_count() as DevIx;
        let (mut urgent, mut at) = (f64::NEG_INFINITY, None);
        let devices = first
            .into_iter()
            .chain((0..k).filter(|&d| Some(d) != first));
        for d in devices.filter(|&d| self.sct_device(v, d)) {
            if let Some(t) = self.start(v, d) {
                if at.is_none() || t > urgent {
                    at = Some(d);
                }
                urgent = urgent.max(t);
                if urgent > bound {
                    break;
                }
            }
        }
        (urgent, at)
    }

    /// Whether an SCT device of `v` in `open` may take it now (m-SCT's waiting step: then
    /// `v` is no better on a delayed device than the step's answer, [`waiting_step`]).
    ///
    /// [`waiting_step`]: super::indexed::waiting_step
    pub(super) fn sct_open(&self, v: NodeIx, open: &[bool]) -> bool {
        let k = self.problem.device_count() as DevIx;
        (0..k).any(|e| {
            open[e as usize] && self.sct_device(v, e) && self.allowed(v, e) && self.fits(v, e)
        })
    }

    /// A lower bound of [`State::urgent`] in `O(k)`: the latest `max(free, now)` over the
    /// SCT devices that may take `v` now (`-inf` when none may).
    pub(super) fn urgent_floor(&self, v: NodeIx) -> f64 {
        let k = self.problem.device_count() as DevIx;
        (0..k)
            .filter(|&d| self.sct_device(v, d) && self.allowed(v, d) && self.fits(v, d))
            .map(|d| self.free[d as usize].max(self.now))
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// The earliest start of ready op `v` and its device; `None` when no device may take
    /// it. A device waiting for another op's favourite child (m-SCT) starts `v` no sooner
    /// than `v`'s urgent time; among equal starts the device whose own start is earlier
    /// wins (Baechi ranks a waiting device's offer by its own schedule time), then the
    /// lower index.
    pub(super) fn best(&self, v: NodeIx) -> Option<(f64, DevIx)> {
        let k = self.problem.device_count() as DevIx;
        let waiting = self
            .waits_for
            .iter()
            .any(|w| w.is_some_and(|(f, _)| f != v));
        let urgent = if waiting {
            self.urgent(v)
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

    /// The direct loop's step: of the `ready` ops, the one with the earliest start (then
    /// the lowest topological position, then device), as `(start, position, device, index
    /// in ready)`; `None` when no device may take any.
    pub(super) fn direct_step(
        &self,
        ready: &[NodeIx],
        pos: &[u32],
    ) -> Option<(f64, u32, DevIx, usize)> {
        let mut chosen: Option<(f64, u32, DevIx, usize)> = None;
        for (i, &v) in ready.iter().enumerate() {
            if let Some((t, d)) = self.best(v) {
                let p = pos[v as usize];
                if chosen.is_none_or(|(bt, bp, bd, _)| (t, p, d) < (bt, bp, bd)) {
                    chosen = Some((t, p, d, i));
                }
            }
        }
        chosen
    }

    /// Which favourite child each device waits for now, and when that child is ready (its
    /// producers' latest finish): the favourite of the device's last op, when it is not
    /// placed, its producers are, and this is one of its SCT devices where it starts no
    /// later than on any other.
    pub(super) fn update_waits(&mut self, favourite: &[Option<NodeIx>]) {
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

    /// The error for ready ops no device can take: names the first in topological order.
    pub(super) fn stuck(
        &self,
        placer: &str,
        ready: impl Iterator<Item = NodeIx>,
        pos: &[u32],
    ) -> Error {
        match ready.min_by_key(|&v| pos[v as usize]) {
            Some(v) => {
                no_device_error(placer, self.problem, &self.units, self.units.of[v as usize])
            }
            None => Error::placement(placer, "no op is ready, yet some are not placed"),
        }
    }
}
