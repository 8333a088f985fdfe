//! Earliest-start list scheduling over (ready op, device) pairs: the loop Baechi's m-ETF and
//! m-SCT share (Jeon et al., SoCC'20, as Pesto21 §5.2 compares against them; `m_etf.rs` and
//! `m_sct.rs` hold each strategy's reading and choices). Baechi's code is the specification
//! (github.com/beomyeol/baechi, `placer/`): `m_etf.py` (`ETF`, `ETFDevice`), `m_sct.py`
//! (`SCTDevice`), `device.py` (`DeviceWrapper`) and `placer_utils.py` (`ReadyOpManager`).
//!
//! At each step, among every (ready op, device) pair, the op that can start earliest goes to
//! the device where it starts earliest. Ties go to the op earlier in topological order
//! (Baechi's `TimestampOpTuple` compares `(ts, topo_order)`), then to the lower device index
//! (`ETF._get_next_op_metadata` keeps the first device on equal tuples). An op's start on `d`
//! is `max(now, d free, data ready on d)`: `now` is the start chosen last (Baechi's
//! `current_ts`, to which `ETFDevice.advance` moves every idle device's clock). A colocation
//! group is placed whole, with its first member, and its other members may only use that
//! device (Baechi with `colocation`: `place_op` on every op of the group).
//!
//! **Transfers** ([`Options::channel`]). With Baechi's channel model (the default), each
//! device has one channel, shared by everything it sends and receives
//! (`DeviceWrapper.channel_available_ts`). Data ready on `d` is the latest over the op's
//! producers `u` (its in-edges from one producer are one transfer, as Baechi's graph merges
//! them into one edge) of: `u`'s finish when `u` is on `d`; else, for the tensors already on
//! `d` (sent there for another consumer: `DeviceWrapper.get_cached_tensor`), when they
//! arrived, and for the others, sent together (`_estimate_tensor_transfer_end_ts`, dry run):
//! `max(max(u's finish, u's device's channel), d's channel) + w`, `w` the sum of their
//! transfer times (`latency + bytes / bandwidth` of the pair). Estimates do not occupy the
//! channels; placing the op sends its tensors one by one, in its in-edges' order, each
//! occupying the sender's channel from `max(u's finish, its channel)` and then the
//! receiver's from `max(that, its channel)` (`send_tensor`, `recv_tensor`), so the op starts
//! at `max(d free, last arrival)`, which may be later than its estimate. Without the
//! channel model, data ready is the latest producer finish plus its edge's transfer time,
//! every edge alone and without contention (placesim's reading before; the same placements).
//!
//! **Memory** ([`Options::static_memory`]). Baechi's rule (the default): a device has room
//! for an op when the op's memory, its `mem` (Baechi's persistent memory) plus its output
//! tensors (Baechi's `output_memory`), fits in what is free now (`ETFDevice.is_placeable`);
//! running it allocates that (`run_op`), and once every consumer of a producer has run, the
//! producer's outputs are freed, its `mem` stays (`deallocate_predecessor_memory`). A
//! colocation group not yet placed also needs the sum of its members' `mem` free
//! (`_is_placeable_group` without reserved memory). The static rule (the parameter): a unit
//! fits while the static footprints of everything placed on the device plus its own stay
//! within capacity (`Loads`, the rule every other placer follows). A placement Baechi's
//! rule accepts is still checked by the scenario against its static `footprint` rule
//! (`plan::verify`), and reported out of memory when that rule rejects it.
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
//! Cost. Without favourites (m-ETF), each (ready op, device) pair is filed in an index
//! ([`Index`]). With the channel model, an estimate is the largest of a fixed part and, per
//! device `s` the op receives from, `max(channel[s], channel[d]) + w_s` (exact: rounding is
//! monotone, so `max(a, b) + w` is `max(a + w, b + w)`); each pair sits in the tree of its
//! largest term, keyed by the part that does not move (`w_s`, or the fixed part), so a
//! channel that moves re-keys nothing: the tree reads its channel when asked. A tree's value
//! is a lower bound of its pairs' estimates, exact while their term stays the largest; a
//! device's best is the least position among pairs whose bound is at most the device's free
//! time (they all start then), else the least bound and the least position reaching it
//! (ties after rounding included), checked, and re-filed under its new largest term when
//! another has overtaken it (one receiving from several devices whose channels leapfrog).
//! A tensor that arrives on `d` lowers its other consumers' estimates there: they are filed
//! anew. Each step asks the devices best first (by a lower bound of their start: free time,
//! `now`, their trees' least value), each only until its candidates left start later than
//! the next device's bound or the best answer so far, so a stale pair is re-checked only
//! when its bound is no later than the step's answer. An op with many producers keeps its
//! estimate's parts per device (fixed part, largest transfer per source device) until one
//! of its tensors arrives there, so re-checking it costs `k`, not its in-degree. So
//! `O((V + E) * k * log V)` plus one re-file per overtaking (a device's pairs that
//! memory shuts out wait, by size, until memory is freed there). With favourites (m-SCT) a
//! waiting device can stop waiting and starts can fall, so a step where some device waits
//! recomputes every ready op's start (`O(ready * k * in-degree)`); in a step where none
//! waits, m-SCT's choice is m-ETF's (`best` is then the least own start, ties to the lower
//! device) and the index answers, kept filed through every step. So m-SCT costs m-ETF's plus
//! `O(ready * k * in-degree)` per step where a device waits (623 of 4,908 steps on nasnet at
//! 50 devices). The tests check the index
//! against that direct loop on random graphs, placement for placement, and every device's
//! answer against its filed pairs' estimates.

use std::collections::BinaryHeap;

use super::{assign, no_device_error, Accelerators, Groups, Loads, UNPLACED};
use crate::analysis::topo_position;
use crate::error::{Error, Result};
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::params::{ParamKind, ParamSpec, Params};
use crate::plan::Placement;
use crate::util::MaxEntry;

/// How the loop models transfers and memory (the placers' parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Options {
    /// Baechi's one channel per device for its sends and receives (`true`), or transfers
    /// estimated alone, without contention.
    pub channel: bool,
    /// The static footprint rule (`true`), or Baechi's memory allocated when an op runs and
    /// freed after its last consumer.
    pub static_memory: bool,
}

impl Options {
    /// The options `params` set ([`CHANNEL`], [`STATIC_MEMORY`]; a parameter not given
    /// takes its default).
    pub fn from_params(params: &Params) -> Options {
        let switch = |spec: &ParamSpec| {
            let v = params.get(spec.name);
            if v.is_nan() {
                spec.default != 0.0
            } else {
                v != 0.0
            }
        };
        Options {
            channel: switch(&CHANNEL),
            static_memory: switch(&STATIC_MEMORY),
        }
    }
}

/// `channel`: Baechi's one channel per device (m-ETF's and m-SCT's parameter).
pub(crate) const CHANNEL: ParamSpec = ParamSpec {
    name: "channel",
    default: 1.0,
    kind: ParamKind::Switch,
    min: 0.0,
    min_open: false,
    max: 1.0,
    doc: "1: Baechi's transfer estimate, one channel per device shared by its sends and receives (DeviceWrapper.channel_available_ts); 0: each edge's transfer alone, without contention (the placements before this parameter)",
};

/// `static_memory`: the static footprint rule instead of Baechi's memory over time.
pub(crate) const STATIC_MEMORY: ParamSpec = ParamSpec {
    name: "static_memory",
    default: 0.0,
    kind: ParamKind::Switch,
    min: 0.0,
    min_open: false,
    max: 1.0,
    doc: "0: Baechi's memory rule, an op's mem and outputs allocated when it runs and its outputs freed after its last consumer ran; 1: the scenario's static footprints, summed per device (the rule before this parameter)",
};

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
struct Feed {
    src: NodeIx,
    /// The tensors, in in-edge order.
    tensors: Vec<u32>,
}

struct State<'a> {
    problem: &'a Problem<'a>,
    opts: Options,
    units: Groups,
    accelerators: Accelerators,
    /// Each op's fastest run time over the devices it may use (m-SCT's SCT devices).
    fastest: Vec<f64>,
    memory: Memory,
    feeds: Vec<Vec<Feed>>,
    unit_device: Vec<Option<DevIx>>,
    placement: Vec<DevIx>,
    finish: Vec<f64>,
    free: Vec<f64>,
    /// When each device's channel is next free (Baechi's `channel_available_ts`).
    channel: Vec<f64>,
    /// Where each tensor has arrived and when (Baechi's `_cached_tensors`).
    arrived: Vec<Vec<(DevIx, f64)>>,
    /// The tensors the last commit sent to its device.
    sent: Vec<u32>,
    /// The start chosen last (Baechi's `current_ts`).
    now: f64,
    /// The op each device ran last.
    last: Vec<Option<NodeIx>>,
    /// Producers not yet placed, per op (0: ready).
    pending: Vec<u32>,
    /// Whether each op has run (been placed and scheduled).
    done: Vec<bool>,
    /// The favourite child each device waits for and when it is ready (m-SCT), recomputed
    /// after every placement.
    waits_for: Vec<Option<(NodeIx, f64)>>,
}

impl<'a> State<'a> {
    fn new(problem: &'a Problem<'a>, opts: Options) -> State<'a> {
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
            accelerators,
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
    fn allowed(&self, v: NodeIx, d: DevIx) -> bool {
        let unit = self.units.of[v as usize];
        match self.unit_device[unit as usize] {
            Some(f) => f == d,
            None => self.accelerators.usable(unit, d) && self.units.allowed(self.problem, unit, d),
        }
    }

    /// The memory `v` needs free on `d` now (`None`: none needed; the static rule charges a
    /// unit once, when it is placed).
    fn required(&self, v: NodeIx) -> Option<f64> {
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
    fn available(&self, d: DevIx) -> f64 {
        match &self.memory {
            Memory::Static(loads) => loads.free(d),
            Memory::Live { used, capacity, .. } => capacity[d as usize] - used[d as usize],
        }
    }

    /// Whether `v` fits on `d` now.
    fn fits(&self, v: NodeIx, d: DevIx) -> bool {
        match (&self.memory, self.required(v)) {
            (_, None) => true,
            (Memory::Static(loads), Some(bytes)) => loads.fits(d, bytes),
            (Memory::Live { .. }, Some(bytes)) => bytes <= self.available(d),
        }
    }

    /// When ready op `v`'s inputs would all be on `d` (an estimate: transfers do not occupy
    /// the channels).
    fn data_ready(&self, v: NodeIx, d: DevIx) -> f64 {
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
    fn feed_on(&self, feed: &Feed, d: DevIx) -> (f64, Option<f64>) {
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

    fn arrival(&self, t: u32, d: DevIx) -> Option<f64> {
        self.arrived[t as usize]
            .iter()
            .find(|&&(e, _)| e == d)
            .map(|&(_, at)| at)
    }

    /// Start of ready op `v` on `d` (`None` when `d` may not take it now), before any wait.
    fn start(&self, v: NodeIx, d: DevIx) -> Option<f64> {
        (self.allowed(v, d) && self.fits(v, d)).then(|| {
            self.data_ready(v, d)
                .max(self.free[d as usize])
                .max(self.now)
        })
    }

    /// Whether `d` is one of `v`'s SCT devices: one where it runs fastest.
    fn sct_device(&self, v: NodeIx, d: DevIx) -> bool {
        self.problem.exec(v, d) == self.fastest[v as usize]
    }

    /// Runs `v` on `d`, chosen to start at `t`: places its unit if it is the first, sends
    /// its inputs (channels), allocates and frees memory; returns the ops it made ready.
    fn commit(&mut self, v: NodeIx, d: DevIx, t: f64) -> Vec<NodeIx> {
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

    /// The direct loop's step: of the `ready` ops, the one with the earliest start (then
    /// the lowest topological position, then device), as `(start, position, device, index
    /// in ready)`; `None` when no device may take any.
    fn direct_step(&self, ready: &[NodeIx], pos: &[u32]) -> Option<(f64, u32, DevIx, usize)> {
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

    /// The error for ready ops no device can take: names the first in topological order.
    fn stuck(&self, placer: &str, ready: impl Iterator<Item = NodeIx>, pos: &[u32]) -> Error {
        match ready.min_by_key(|&v| pos[v as usize]) {
            Some(v) => {
                no_device_error(placer, self.problem, &self.units, self.units.of[v as usize])
            }
            None => Error::placement(placer, "no op is ready, yet some are not placed"),
        }
    }
}

/// Places every op by earliest start first; `favourite[u]` is `u`'s favourite child
/// (m-SCT), all `None` for plain m-ETF. `placer` names the strategy in errors.
pub(crate) fn schedule(
    placer: &str,
    problem: &Problem,
    favourite: &[Option<NodeIx>],
    opts: Options,
) -> Result<Placement> {
    schedule_index(placer, problem, favourite, opts, false)
}

/// The direct loop: every step computes the best start of every ready op (the tests'
/// reference for m-ETF and m-SCT; [`schedule_index`] takes this step only where a device
/// waits).
#[cfg(test)]
pub(crate) fn schedule_simple(
    placer: &str,
    problem: &Problem,
    favourite: &[Option<NodeIx>],
    opts: Options,
) -> Result<Placement> {
    let n = problem.node_count();
    let pos = topo_position(problem);
    let mut s = State::new(problem, opts);
    let sct = favourite.iter().any(Option::is_some);
    let mut ready: Vec<NodeIx> = (0..n as NodeIx)
        .filter(|&v| s.pending[v as usize] == 0)
        .collect();
    while !ready.is_empty() {
        // Earliest start, then topological position, then device.
        let Some((t, _, d, i)) = s.direct_step(&ready, &pos) else {
            return Err(s.stuck(placer, ready.iter().copied(), &pos));
        };
        let v = ready.swap_remove(i);
        ready.extend(s.commit(v, d, t));
        if sct {
            s.update_waits(favourite);
        }
    }
    Ok(s.placement)
}

/// A treap node: one (ready op, device) candidate of m-ETF's index, in the tree of the term
/// that bounded its estimate when it was filed.
#[derive(Clone, Copy)]
struct Node {
    /// The term's part that does not move: the fixed part itself, or the transfer time
    /// added to a channel.
    key: f64,
    /// The op's topological position.
    pos: u32,
    prio: u32,
    left: u32,
    right: u32,
    /// The least position in this subtree.
    best: u32,
    /// The tree it is in (`device * (k + 1) + term`).
    tree: u32,
}

/// Ops with more producers than this keep their estimate's parts per device ([`Index`]).
const WIDE: usize = 16;

/// No node (and no position: the greatest `u32`, so `min` ignores it).
const NIL: u32 = u32::MAX;

/// Treaps ordered by `(key, pos)`, each subtree knowing its least topological position;
/// one arena for all trees.
struct Treaps {
    nodes: Vec<Node>,
    free: Vec<u32>,
    roots: Vec<u32>,
    /// Each non-empty tree's least key.
    first: Vec<f64>,
    /// Trees per group (a device's trees), and per group a bit set of its non-empty ones.
    group: usize,
    live: Vec<u64>,
    /// Priorities: a xorshift stream (the shape only; no answer depends on it).
    rand: u32,
}

impl Treaps {
    fn new(groups: usize, group: usize) -> Treaps {
        Treaps {
            nodes: Vec::new(),
            free: Vec::new(),
            roots: vec![NIL; groups * group],
            first: vec![0.0; groups * group],
            group,
            live: vec![0; groups * group.div_ceil(64)],
            rand: 0x9e37_79b9,
        }
    }

    /// Where tree `tree`'s bit is in `live`.
    fn bit(&self, tree: usize) -> (usize, u64) {
        let (g, t) = (tree / self.group, tree % self.group);
        (g * self.group.div_ceil(64) + t / 64, 1 << (t % 64))
    }

    /// The non-empty trees of group `g`, as indices within the group, into `out`.
    fn live_trees(&self, g: usize, out: &mut Vec<usize>) {
        out.clear();
        let words = self.group.div_ceil(64);
        for w in 0..words {
            let mut bits = self.live[g * words + w];
            while bits != 0 {
                out.push(w * 64 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
    }

    /// The least of `value(tree, least key)` over group `g`'s non-empty trees (`tree`
    /// within the group; infinite when all are empty).
    fn least_first(&self, g: usize, value: impl Fn(usize, f64) -> f64) -> f64 {
        let words = self.group.div_ceil(64);
        let mut low = f64::INFINITY;
        for w in 0..words {
            let mut bits = self.live[g * words + w];
            while bits != 0 {
                let t = w * 64 + bits.trailing_zeros() as usize;
                low = low.min(value(t, self.first[g * self.group + t]));
                bits &= bits - 1;
            }
        }
        low
    }

    /// Whether node `a` comes before `(key, pos)`.
    fn before(&self, a: u32, key: f64, pos: u32) -> bool {
        let n = &self.nodes[a as usize];
        n.key < key || (n.key == key && n.pos < pos)
    }

    fn pull(&mut self, t: u32) {
        let n = self.nodes[t as usize];
        let mut b = n.pos;
        if n.left != NIL {
            b = b.min(self.nodes[n.left as usize].best);
        }
        if n.right != NIL {
            b = b.min(self.nodes[n.right as usize].best);
        }
        self.nodes[t as usize].best = b;
    }

    /// Splits `t` into the nodes before `(key, pos)` and the others.
    fn split(&mut self, t: u32, key: f64, pos: u32) -> (u32, u32) {
        if t == NIL {
            return (NIL, NIL);
        }
        if self.before(t, key, pos) {
            let (l, r) = self.split(self.nodes[t as usize].right, key, pos);
            self.nodes[t as usize].right = l;
            self.pull(t);
            (t, r)
        } else {
            let (l, r) = self.split(self.nodes[t as usize].left, key, pos);
            self.nodes[t as usize].left = r;
            self.pull(t);
            (l, t)
        }
    }

    /// Joins `a` and `b`, every node of `a` before every node of `b`.
    fn merge(&mut self, a: u32, b: u32) -> u32 {
        if a == NIL {
            return b;
        }
        if b == NIL {
            return a;
        }
        if self.nodes[a as usize].prio > self.nodes[b as usize].prio {
            let r = self.merge(self.nodes[a as usize].right, b);
            self.nodes[a as usize].right = r;
            self.pull(a);
            a
        } else {
            let l = self.merge(a, self.nodes[b as usize].left);
            self.nodes[b as usize].left = l;
            self.pull(b);
            b
        }
    }

    /// Puts node `id` into subtree `t`; returns the subtree's root.
    fn put(&mut self, t: u32, id: u32) -> u32 {
        let Node { key, pos, prio, .. } = self.nodes[id as usize];
        if t == NIL {
            return id;
        }
        if prio > self.nodes[t as usize].prio {
            let (l, r) = self.split(t, key, pos);
            self.nodes[id as usize].left = l;
            self.nodes[id as usize].right = r;
            self.pull(id);
            return id;
        }
        if self.before(t, key, pos) {
            let r = self.put(self.nodes[t as usize].right, id);
            self.nodes[t as usize].right = r;
        } else {
            let l = self.put(self.nodes[t as usize].left, id);
            self.nodes[t as usize].left = l;
        }
        self.pull(t);
        t
    }

    /// Takes the node `(key, pos)` out of subtree `t`; returns the subtree's root.
    fn take(&mut self, t: u32, key: f64, pos: u32) -> u32 {
        let n = self.nodes[t as usize];
        if n.pos == pos {
            return self.merge(n.left, n.right);
        }
        if self.before(t, key, pos) {
            let r = self.take(n.right, key, pos);
            self.nodes[t as usize].right = r;
        } else {
            let l = self.take(n.left, key, pos);
            self.nodes[t as usize].left = l;
        }
        self.pull(t);
        t
    }

    fn insert(&mut self, tree: u32, key: f64, pos: u32) -> u32 {
        self.rand ^= self.rand << 13;
        self.rand ^= self.rand >> 17;
        self.rand ^= self.rand << 5;
        let node = Node {
            key,
            pos,
            prio: self.rand,
            left: NIL,
            right: NIL,
            best: pos,
            tree,
        };
        let id = match self.free.pop() {
            Some(id) => {
                self.nodes[id as usize] = node;
                id
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        };
        let tree = tree as usize;
        let root = self.roots[tree];
        if root == NIL || key < self.first[tree] {
            self.first[tree] = key;
        }
        if root == NIL {
            let (w, b) = self.bit(tree);
            self.live[w] |= b;
        }
        self.roots[tree] = self.put(root, id);
        id
    }

    fn remove(&mut self, id: u32) {
        let Node { key, pos, tree, .. } = self.nodes[id as usize];
        let tree = tree as usize;
        // A tree holds an op once: `pos` finds the node.
        let root = self.take(self.roots[tree], key, pos);
        self.roots[tree] = root;
        if root == NIL {
            let (w, b) = self.bit(tree);
            self.live[w] &= !b;
        } else if key == self.first[tree] {
            let mut t = root;
            while self.nodes[t as usize].left != NIL {
                t = self.nodes[t as usize].left;
            }
            self.first[tree] = self.nodes[t as usize].key;
        }
        self.free.push(id);
    }

    /// The least of `below` and the positions of the nodes of `tree` whose key passes
    /// `fits`, which holds for every key up to some bound and none beyond (`NIL`: none
    /// passes). A subtree whose least position is not below the best so far is not entered.
    fn least_within(&self, tree: usize, below: u32, fits: impl Fn(f64) -> bool) -> u32 {
        let mut t = self.roots[tree];
        let mut best = below;
        while t != NIL {
            let n = &self.nodes[t as usize];
            if n.best >= best {
                break;
            }
            if fits(n.key) {
                best = best.min(n.pos);
                if n.left != NIL {
                    best = best.min(self.nodes[n.left as usize].best);
                }
                t = n.right;
            } else {
                t = n.left;
            }
        }
        best
    }
}

/// A device's answer ([`Index::device_best`]).
#[derive(Debug, PartialEq)]
enum Best {
    /// Its best candidate and start.
    Found(f64, NodeIx),
    /// No candidate filed.
    Empty,
    /// Every candidate starts at this time or later, after the bound asked.
    After(f64),
}

/// An estimate in parts ([`summarise`]): the fixed part, and each source device with the
/// largest transfer time it sends, in the order of the op's producers.
type Parts = (f64, Vec<(DevIx, f64)>);

/// m-ETF's index of ready ops: per device, a tree per term of the estimate (see
/// [`Index::classify`]), each candidate in the tree of the term that was the largest when
/// it was filed, keyed by the part of that term that does not move. A channel that moves
/// re-keys nothing: the tree of channel `c` reads `channel[c] + key` when asked.
struct Index {
    k: usize,
    trees: Treaps,
    /// The node of each (op, device) candidate (`v * k + d`), `NIL` when not filed.
    node: Vec<u32>,
    /// Ops memory shuts out now per device (Baechi's rule), by the memory they need, then
    /// position (lazy: an entry is checked when memory is freed).
    blocked: Vec<BinaryHeap<MaxEntry<f64, u32, NodeIx>>>,
    /// Each tensor's consumers (CSR over `consumer_start`): whose estimate falls when it
    /// arrives on a device.
    consumer_start: Vec<u32>,
    consumers: Vec<NodeIx>,
    /// Per source device, the largest transfer time from it (scratch of `summarise`).
    from_w: Vec<f64>,
    /// Scratch: a candidate's source devices and their largest transfer times.
    from_seen: Vec<(DevIx, f64)>,
    /// Each op with more than [`WIDE`] producers (in the tests' checked run, every op): its
    /// row in `sums` (else `NIL`).
    wide_of: Vec<u32>,
    /// Per row and device, such an op's estimate in parts (`summarise`), kept until one of
    /// its tensors arrives there: a candidate re-checked often costs `k`, not its in-degree.
    sums: Vec<Option<Parts>>,
    /// The op at each topological position.
    order: Vec<NodeIx>,
    /// Scratch: a device's non-empty trees.
    live: Vec<usize>,
}

impl Index {
    /// `wide`: ops with more producers than this keep their estimate's parts.
    fn new(s: &State, pos: &[u32], wide: usize) -> Index {
        let k = s.problem.device_count();
        let n = s.problem.node_count();
        let tensors = s.problem.graph.tensors.len();
        let mut order = vec![0; n];
        for (v, &p) in pos.iter().enumerate() {
            order[p as usize] = v as NodeIx;
        }
        let mut consumer_start = vec![0u32; tensors + 1];
        for fs in &s.feeds {
            for f in fs {
                for &t in &f.tensors {
                    consumer_start[t as usize + 1] += 1;
                }
            }
        }
        for t in 0..tensors {
            consumer_start[t + 1] += consumer_start[t];
        }
        let mut fill = consumer_start.clone();
        let mut consumers = vec![0; consumer_start[tensors] as usize];
        for (v, fs) in s.feeds.iter().enumerate() {
            for f in fs {
                for &t in &f.tensors {
                    consumers[fill[t as usize] as usize] = v as NodeIx;
                    fill[t as usize] += 1;
                }
            }
        }
        let (wide_from, mut rows) = (wide, 0);
        let wide_of: Vec<u32> = s
            .feeds
            .iter()
            .map(|fs| {
                if fs.len() > wide_from {
                    rows += 1;
                    rows - 1
                } else {
                    NIL
                }
            })
            .collect();
        Index {
            k,
            wide_of,
            sums: vec![None; rows as usize * k],
            trees: Treaps::new(k, k + 1),
            live: Vec::new(),
            node: vec![NIL; n * k],
            blocked: (0..k).map(|_| BinaryHeap::new()).collect(),
            consumer_start,
            consumers,
            from_w: vec![-1.0; k],
            from_seen: Vec::new(),
            order,
        }
    }

    /// The term that bounds `v`'s estimate on `d` now, the part of it that does not move,
    /// and the estimate (`State::data_ready`'s value). The estimate is the largest of: the
    /// fixed part (producers on `d`, tensors already there, and `u`'s finish plus `w` for
    /// each producer `u` that sends, `w` its transfers' time); per source device `c`,
    /// `channel[c]` plus the largest `w` it sends; `channel[d]` plus the largest `w` of
    /// all. Rounding is monotone, so `max(a, b) + w` is `max(a + w, b + w)` exactly and the
    /// split loses nothing. Terms: `0..k` a channel, `k` the fixed part.
    fn classify(&mut self, s: &State, v: NodeIx, d: DevIx) -> (usize, f64, f64) {
        let k = self.k;
        if !s.opts.channel {
            let ready = s.data_ready(v, d);
            return (k, ready, ready);
        }
        let wide = self.wide_of[v as usize];
        let (fixed, from) = if wide == NIL {
            let fixed = summarise(s, v, d, &mut self.from_w, &mut self.from_seen);
            (fixed, &self.from_seen)
        } else {
            let slot = wide as usize * k + d as usize;
            if self.sums[slot].is_none() {
                let mut from = Vec::new();
                let fixed = summarise(s, v, d, &mut self.from_w, &mut from);
                self.sums[slot] = Some((fixed, from));
            }
            let (fixed, from) = self.sums[slot].as_ref().expect("just computed");
            (*fixed, from)
        };
        let mut best = (k, fixed, fixed);
        let own = s.channel[d as usize];
        for &(c, w) in from {
            let at = s.channel[c as usize].max(own) + w;
            if at > best.2 {
                best = (c as usize, w, at);
            }
        }
        best
    }

    /// Forgets the summaries of `tensor`'s consumers on `d` (it has arrived there).
    fn arrived(&mut self, tensor: u32, d: DevIx) {
        let t = tensor as usize;
        for i in self.consumer_start[t]..self.consumer_start[t + 1] {
            let wide = self.wide_of[self.consumers[i as usize] as usize];
            if wide != NIL {
                self.sums[wide as usize * self.k + d as usize] = None;
            }
        }
    }

    /// What [`Index::device_best`] answers, from every usable candidate filed on `d` and
    /// its estimate (tests).
    fn direct_best(&self, s: &State, d: DevIx, pos: &[u32]) -> Option<(f64, NodeIx)> {
        let base = s.free[d as usize].max(s.now);
        (0..s.problem.node_count() as NodeIx)
            .filter(|&v| self.node[v as usize * self.k + d as usize] != NIL)
            .filter(|&v| !s.done[v as usize] && s.allowed(v, d) && s.fits(v, d))
            .map(|v| (s.data_ready(v, d).max(base), pos[v as usize], v))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
            .map(|(t, _, v)| (t, v))
    }

    /// Files `v` on `d` anew (its term and key now).
    fn file(&mut self, s: &State, v: NodeIx, d: DevIx, p: u32) {
        self.unfile(v, d);
        let (term, key, _) = self.classify(s, v, d);
        let tree = (d as usize * (self.k + 1) + term) as u32;
        self.node[v as usize * self.k + d as usize] = self.trees.insert(tree, key, p);
    }

    fn unfile(&mut self, v: NodeIx, d: DevIx) {
        let slot = v as usize * self.k + d as usize;
        let id = self.node[slot];
        if id != NIL {
            self.trees.remove(id);
            self.node[slot] = NIL;
        }
    }

    fn block(&mut self, s: &State, v: NodeIx, d: DevIx, p: u32) {
        self.unfile(v, d);
        self.blocked[d as usize].push(MaxEntry {
            key: -s.required(v).unwrap_or(0.0),
            tie: p,
            data: v,
        });
    }

    /// No candidate filed on `d` starts before this (infinite when none is filed): the
    /// latest of `max(free, now)` and its trees' least value.
    fn lower(&self, s: &State, d: DevIx) -> f64 {
        let k = self.k;
        let own = s.channel[d as usize];
        let low = self.trees.least_first(d as usize, |term, key| {
            if term == k {
                key
            } else {
                s.channel[term].max(own) + key
            }
        });
        low.max(s.free[d as usize]).max(s.now)
    }

    /// Device `d`'s best candidate and its start: the first in topological order among
    /// those whose data is ready by the time `d` is free, else the earliest data-ready time
    /// (ties to the earlier position). Each tree's value `channel + key` (or `key`) is a
    /// lower bound of its candidates' estimates, exact for those whose term is still the
    /// largest; a candidate found is checked, and re-filed under its largest term when
    /// another has overtaken it. Candidates that ran, went elsewhere with their unit, or
    /// that memory shuts out leave on the way. When none is ready by the time `d` is free
    /// and the least value is later than `bound`, it stops there ([`Best::After`]): the
    /// candidates left start no sooner (so an unbounded ask is exact).
    fn device_best(&mut self, s: &State, d: DevIx, bound: f64) -> Best {
        let k = self.k;
        let base = s.free[d as usize].max(s.now);
        let own = s.channel[d as usize];
        let first = d as usize * (k + 1);
        let mut live = std::mem::take(&mut self.live);
        // The value of a tree's key now: its channel (the sender's or `d`'s, whichever is
        // later) plus the key, or the key itself (the fixed part).
        let value = |term: usize, key: f64| {
            if term == k {
                key
            } else {
                s.channel[term].max(own) + key
            }
        };
        loop {
            // Those that may be ready by `base`: the least position wins. Else the least
            // lower bound, and the least position among those that reach it.
            let mut found = NIL;
            let mut low = f64::INFINITY;
            self.trees.live_trees(d as usize, &mut live);
            for &term in &live {
                let tree = first + term;
                let least = value(term, self.trees.first[tree]);
                if least <= base {
                    found = self
                        .trees
                        .least_within(tree, found, |key| value(term, key) <= base);
                }
                low = low.min(least);
            }
            if live.is_empty() {
                self.live = live;
                return Best::Empty;
            }
            let due = found != NIL;
            if !due && low > bound {
                // Every candidate here starts at `low` or later.
                self.live = live;
                return Best::After(low);
            }
            if !due {
                for &term in &live {
                    let tree = first + term;
                    if value(term, self.trees.first[tree]) <= low {
                        found = self
                            .trees
                            .least_within(tree, found, |key| value(term, key) <= low);
                    }
                }
            }
            let v = self.order[found as usize];
            if s.done[v as usize] || !s.allowed(v, d) {
                self.unfile(v, d);
                continue;
            }
            if !s.fits(v, d) {
                if s.opts.static_memory {
                    self.unfile(v, d);
                } else {
                    self.block(s, v, d, found);
                }
                continue;
            }
            let (term, key, ready) = self.classify(s, v, d);
            if due && ready <= base {
                self.live = live;
                return Best::Found(base, v);
            }
            if !due && ready == low {
                self.live = live;
                return Best::Found(ready.max(base), v);
            }
            // Another term overtook the one it was filed under.
            self.unfile(v, d);
            let tree = (d as usize * (k + 1) + term) as u32;
            self.node[v as usize * k + d as usize] = self.trees.insert(tree, key, found);
        }
    }
}

/// `v`'s estimate on `d` in parts (see [`Index::classify`]): returns the fixed part and
/// fills `from` with each source device and the largest transfer time it sends, in the order
/// of `v`'s producers (`from_w`: scratch, all `-1` on entry and on return). The parts change
/// only when one of `v`'s tensors arrives on `d`.
fn summarise(
    s: &State,
    v: NodeIx,
    d: DevIx,
    from_w: &mut [f64],
    from: &mut Vec<(DevIx, f64)>,
) -> f64 {
    from.clear();
    let mut fixed: f64 = 0.0;
    for feed in &s.feeds[v as usize] {
        let (there, send) = s.feed_on(feed, d);
        fixed = fixed.max(there);
        if let Some(w) = send {
            let u = feed.src as usize;
            let src = s.placement[u];
            fixed = fixed.max(s.finish[u] + w);
            let f = &mut from_w[src as usize];
            if *f < 0.0 {
                from.push((src, 0.0));
            }
            *f = f.max(w);
        }
    }
    for entry in from.iter_mut() {
        entry.1 = from_w[entry.0 as usize];
        from_w[entry.0 as usize] = -1.0;
    }
    fixed
}

/// m-ETF with each device's ready ops in an index, and m-SCT (`favourite`) with the index in
/// the steps where no device waits: the same placements as [`schedule_simple`]. With
/// `check` (tests), each device's answer is compared with every candidate filed there, their
/// estimates computed directly.
fn schedule_index(
    placer: &str,
    problem: &Problem,
    favourite: &[Option<NodeIx>],
    opts: Options,
    check: bool,
) -> Result<Placement> {
    let sct = favourite.iter().any(Option::is_some);
    let n = problem.node_count();
    let k = problem.device_count();
    let pos = topo_position(problem);
    let mut s = State::new(problem, opts);
    // The tests' checked run keeps every op's parts (the unchecked one, the default's).
    let mut ix = Index::new(&s, &pos, if check { 0 } else { WIDE });
    let enqueue = |s: &State, ix: &mut Index, v: NodeIx| {
        let p = pos[v as usize];
        for d in 0..k as DevIx {
            if !s.allowed(v, d) {
                continue;
            }
            if s.fits(v, d) {
                ix.file(s, v, d, p);
            } else if !s.opts.static_memory {
                ix.block(s, v, d, p);
            }
        }
    };
    // m-SCT's ready ops (and where each is in the list), for the steps where a device waits.
    let mut ready: Vec<NodeIx> = Vec::new();
    let mut at = vec![0u32; if sct { n } else { 0 }];
    for v in 0..n as NodeIx {
        if s.pending[v as usize] == 0 {
            enqueue(&s, &mut ix, v);
            if sct {
                at[v as usize] = ready.len() as u32;
                ready.push(v);
            }
        }
    }
    let mut available: Vec<f64> = (0..k as DevIx).map(|d| s.available(d)).collect();
    // Per device, a lower bound of its start (`Index::lower`, then raised by its answers).
    let mut lowers: Vec<(f64, DevIx)> = Vec::with_capacity(k);
    for _ in 0..n {
        // Each device's best (start, position), then the least over the devices: an answer
        // is `(start, position, device)`, least first. Best first: the device whose lower
        // bound is least is asked, bounded by the next device's bound and the best answer so
        // far; one that only finds candidates later than that reports its new bound and
        // waits. Once the least bound is later than the best answer, no device can beat it.
        // So a device re-checks only candidates filed no later than the answer (the tests
        // ask every device, unbounded).
        lowers.clear();
        let mut chosen: Option<(f64, u32, DevIx, NodeIx)> = None;
        if sct && s.waits_for.iter().any(Option::is_some) {
            // A device waits for a favourite child (m-SCT): starts may fall as well as
            // rise, so every ready op's best start is computed (the direct loop's step).
            chosen = s
                .direct_step(&ready, &pos)
                .map(|(t, p, d, i)| (t, p, d, ready[i]));
        } else {
            // No device waits: m-SCT's step is m-ETF's.
            lowers.extend((0..k as DevIx).map(|d| (ix.lower(&s, d), d)));
        }
        while !lowers.is_empty() {
            let mut i = 0;
            for j in 1..lowers.len() {
                let (a, b) = (lowers[j], lowers[i]);
                if a.0 < b.0 || (a.0 == b.0 && a.1 < b.1) {
                    i = j;
                }
            }
            let (lower, d) = lowers[i];
            if !check && chosen.is_some_and(|(bt, ..)| lower > bt) {
                break;
            }
            let next = lowers
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, l)| l.0)
                .fold(f64::INFINITY, f64::min);
            let bound = match chosen {
                _ if check => f64::INFINITY,
                Some((bt, ..)) => bt.min(next),
                None => next,
            };
            let (t, v) = match ix.device_best(&s, d, bound) {
                Best::Found(t, v) => (t, v),
                Best::Empty => {
                    if check {
                        assert_eq!(None, ix.direct_best(&s, d, &pos), "device {d}");
                    }
                    lowers.swap_remove(i);
                    continue;
                }
                Best::After(low) => {
                    lowers[i].0 = low;
                    continue;
                }
            };
            lowers.swap_remove(i);
            if check {
                assert_eq!(Some((t, v)), ix.direct_best(&s, d, &pos), "device {d}");
            }
            let p = pos[v as usize];
            if chosen.is_none_or(|(bt, bp, bd, _)| (t, p, d) < (bt, bp, bd)) {
                chosen = Some((t, p, d, v));
            }
        }
        let Some((t, _, d, v)) = chosen else {
            let ready =
                (0..n as NodeIx).filter(|&v| s.pending[v as usize] == 0 && !s.done[v as usize]);
            return Err(s.stuck(placer, ready, &pos));
        };
        let unit = s.units.of[v as usize];
        let first = s.unit_device[unit as usize].is_none();
        let new = s.commit(v, d, t);
        for e in 0..k as DevIx {
            ix.unfile(v, e);
        }
        if sct {
            let i = at[v as usize] as usize;
            ready.swap_remove(i);
            if let Some(&moved) = ready.get(i) {
                at[moved as usize] = i as u32;
            }
            for &w in &new {
                at[w as usize] = ready.len() as u32;
                ready.push(w);
            }
            s.update_waits(favourite);
        }
        // Tensors now on `d`: their other ready consumers' estimates there fall (the
        // transfer leaves the channel terms for the arrival time): file them anew.
        for &tensor in &s.sent {
            ix.arrived(tensor, d);
            let t = tensor as usize;
            for i in ix.consumer_start[t]..ix.consumer_start[t + 1] {
                let w = ix.consumers[i as usize];
                if ix.node[w as usize * k + d as usize] != NIL {
                    ix.file(&s, w, d, pos[w as usize]);
                }
            }
        }
        if first {
            for &m in &s.units.members[unit as usize] {
                if s.pending[m as usize] == 0 && !s.done[m as usize] {
                    // The unit's other ready members may only use `d` now.
                    for e in (0..k as DevIx).filter(|&e| e != d) {
                        ix.unfile(m, e);
                    }
                    if !opts.static_memory {
                        // They need less memory on `d` now.
                        let p = pos[m as usize];
                        if s.fits(m, d) {
                            ix.file(&s, m, d, p);
                        } else {
                            ix.block(&s, m, d, p);
                        }
                    }
                }
            }
        }
        if !opts.static_memory {
            // Memory freed: ops it shut out may fit again.
            for e in 0..k as DevIx {
                let now = s.available(e);
                let freed = now > available[e as usize];
                available[e as usize] = now;
                if !freed {
                    continue;
                }
                while let Some(top) = ix.blocked[e as usize].peek() {
                    let (bytes, p, m) = (-top.key, top.tie, top.data);
                    if bytes > now {
                        break;
                    }
                    ix.blocked[e as usize].pop();
                    if !s.done[m as usize] && s.allowed(m, e) {
                        ix.file(&s, m, e, p);
                    }
                }
            }
        }
        for w in new {
            enqueue(&s, &mut ix, w);
        }
    }
    Ok(s.placement)
}
#[cfg(test)]
#[path = "etf_legacy.rs"]
mod legacy;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cluster::Cluster;
    use crate::model::graph::Graph;
    use crate::rng::Rng;
    use crate::testutil::parse;

    const LEGACY: Options = Options {
        channel: false,
        static_memory: true,
    };

    const ALL: [Options; 4] = [
        Options {
            channel: true,
            static_memory: false,
        },
        Options {
            channel: true,
            static_memory: true,
        },
        Options {
            channel: false,
            static_memory: false,
        },
        LEGACY,
    ];

    /// A small random instance: integer costs and bytes (so that starts tie), shared
    /// tensors, colocation groups, `mem`, a CPU-only op now and then, two to four devices
    /// (GPUs and a CPU, two speeds), memory that sometimes binds.
    fn random_instance(seed: u64) -> (Graph, Cluster) {
        let mut rng = Rng::derive(seed, &["etf-test"], 0);
        let n = 4 + rng.below(24) as usize;
        let k = 2 + rng.below(3) as usize;
        let mut nodes = Vec::new();
        let mut edges = Vec::new();
        for i in 0..n {
            let mut node = format!(r#"{{"id":"n{i}","cost":{}"#, 1 + rng.below(4));
            if rng.below(3) == 0 {
                node += &format!(r#","mem":{}"#, rng.below(6));
            }
            if i > 0 && rng.below(6) == 0 {
                node += &format!(r#","colocate":"g{}""#, rng.below(2));
            } else if rng.below(12) == 0 {
                node += r#","device":"cpu""#;
            }
            node += "}";
            nodes.push(node);
            if i == 0 {
                continue;
            }
            for _ in 0..rng.below(4) {
                let src = rng.below(i as u64);
                let bytes = rng.below(5);
                if rng.below(3) == 0 {
                    edges.push(format!(
                        r#"{{"src":"n{src}","dst":"n{i}","bytes":{bytes},"tensor":"out"}}"#
                    ));
                } else {
                    edges.push(format!(
                        r#"{{"src":"n{src}","dst":"n{i}","bytes":{bytes}}}"#
                    ));
                }
            }
        }
        let memory = if rng.below(2) == 0 {
            String::new()
        } else {
            format!(r#","memory":{}"#, 8 + rng.below(30))
        };
        let devices: Vec<String> = (0..k)
            .map(|d| {
                let kind = if d == 0 && rng.below(2) == 0 {
                    "cpu"
                } else {
                    "gpu"
                };
                format!(
                    r#"{{"id":"d{d}","kind":"{kind}","speed":{}{memory}}}"#,
                    1 + rng.below(2)
                )
            })
            .collect();
        let graph = format!(
            r#"{{"nodes":[{}],"edges":[{}]}}"#,
            nodes.join(","),
            edges.join(",")
        );
        let cluster = format!(
            r#"{{"devices":[{}],"bandwidth":{},"latency":{}}}"#,
            devices.join(","),
            1 + rng.below(3),
            rng.below(2) as f64 * 0.5
        );
        let g = Graph::from_json(&graph, "g");
        let c = Cluster::from_json(&cluster, "c");
        match (g, c) {
            (Ok(g), Ok(c)) => (g, c),
            // A group whose members demand different devices: drop the CPU pins.
            _ => parse(&graph.replace(r#","device":"cpu""#, ""), &cluster),
        }
    }

    /// A wide instance: layers of 12 to 40 side-by-side ops, each fed by one to three ops of
    /// the layer before (shared tensors now and then, sizes that make transfers cost), four to
    /// eight devices, memory that sometimes binds. Many ready ops wait on channels at once:
    /// the shape where a channel move raises many stored estimates (issue 24). With
    /// `rounding`, run times are 0 or multiples of 2^54 and tensors 0 to 3 times 2^52 bytes
    /// plus 0 to 3, so a channel plus a transfer time rounds: unequal transfer times give
    /// equal estimates (ties that must still go to the lower position), and zero times give
    /// `0.0` sums.
    fn wide_instance(seed: u64, rounding: bool) -> (Graph, Cluster) {
        let label = if rounding {
            "etf-rounding-test"
        } else {
            "etf-wide-test"
        };
        let mut rng = Rng::derive(seed, &[label], 0);
        let layers = 3 + rng.below(3) as usize;
        let mut nodes = Vec::new();
        let mut edges = Vec::new();
        let mut previous: Vec<usize> = Vec::new();
        for _ in 0..layers {
            let width = 12 + rng.below(29) as usize;
            let mut layer = Vec::new();
            for _ in 0..width {
                let i = nodes.len();
                let cost = 1 + rng.below(4);
                let cost = if rounding {
                    format!("{}", (cost - 1) as f64 * 2f64.powi(54))
                } else {
                    cost.to_string()
                };
                let mut node = format!(r#"{{"id":"n{i}","cost":{cost}"#);
                if rng.below(4) == 0 {
                    node += &format!(r#","mem":{}"#, rng.below(4));
                }
                nodes.push(node + "}");
                if !previous.is_empty() {
                    for _ in 0..1 + rng.below(3) {
                        let src = previous[rng.below(previous.len() as u64) as usize];
                        let bytes = if rounding {
                            let big = rng.below(4) as f64 * 2f64.powi(52);
                            big + rng.below(4) as f64
                        } else {
                            1.0 + rng.below(8) as f64
                        };
                        let tensor = if rng.below(3) == 0 {
                            r#","tensor":"out""#
                        } else {
                            ""
                        };
                        edges.push(format!(
                            r#"{{"src":"n{src}","dst":"n{i}","bytes":{bytes}{tensor}}}"#
                        ));
                    }
                }
                layer.push(i);
            }
            previous = layer;
        }
        let k = 4 + rng.below(5) as usize;
        let memory = if rng.below(4) == 0 {
            format!(r#","memory":{}"#, 24 + rng.below(40))
        } else {
            String::new()
        };
        let devices: Vec<String> = (0..k)
            .map(|d| {
                format!(
                    r#"{{"id":"d{d}","kind":"gpu","speed":{}{memory}}}"#,
                    1 + rng.below(2)
                )
            })
            .collect();
        parse(
            &format!(
                r#"{{"nodes":[{}],"edges":[{}]}}"#,
                nodes.join(","),
                edges.join(",")
            ),
            &format!(
                r#"{{"devices":[{}],"bandwidth":{},"latency":{}}}"#,
                devices.join(","),
                1 + rng.below(3),
                rng.below(2) as f64 * 0.5
            ),
        )
    }

    /// m-ETF's heaps against its direct loop on `p`, for every option: the same placement,
    /// or both an error. Returns how many placements were compared.
    fn heaps_agree(p: &Problem, label: &str) -> usize {
        let none = vec![None; p.node_count()];
        let mut placed = 0;
        for opts in ALL {
            let fast = schedule_index("m-etf", p, &none, opts, true);
            let simple = schedule_simple("m-etf", p, &none, opts);
            // Unchecked, devices that cannot win are not asked.
            let pruned = schedule_index("m-etf", p, &none, opts, false);
            assert_eq!(pruned.is_ok(), fast.is_ok(), "{label} {opts:?}");
            if let (Ok(a), Ok(b)) = (&pruned, &fast) {
                assert_eq!(a, b, "{label} {opts:?}: pruned");
            }
            match (&fast, &simple) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a, b, "{label} {opts:?}");
                    placed += 1;
                }
                (Err(_), Err(_)) => {}
                _ => panic!("{label} {opts:?}: {fast:?} against {simple:?}"),
            }
        }
        placed
    }

    /// The heaps against the direct loop on wide instances, for every option: the same
    /// placement, or both an error.
    #[test]
    fn heaps_match_the_direct_loop_on_wide_graphs() {
        let mut placed = 0;
        for seed in 0..24 {
            let (g, c) = wide_instance(seed, false);
            let p = Problem::new(&g, &c).expect("a wide instance is valid");
            placed += heaps_agree(&p, &format!("wide seed {seed}"));
        }
        assert!(placed > 60, "only {placed} wide placements compared");
    }

    /// The same where sums round (see [`wide_instance`]): estimates tie across different
    /// transfer times, across terms and at zero.
    #[test]
    fn heaps_match_the_direct_loop_where_sums_round() {
        let mut placed = 0;
        for seed in 0..24 {
            let (g, c) = wide_instance(seed, true);
            let p = Problem::new(&g, &c).expect("a wide instance is valid");
            placed += heaps_agree(&p, &format!("rounding seed {seed}"));
        }
        assert!(placed > 60, "only {placed} rounding placements compared");
    }

    /// Favourites for m-SCT's loop in tests: each op's first successor, every other op.
    fn every_other_favourite(p: &Problem) -> Vec<Option<NodeIx>> {
        let g = p.graph;
        (0..p.node_count() as NodeIx)
            .map(|v| {
                (v % 2 == 0)
                    .then(|| g.out_edges(v).first().map(|&e| g.edges[e as usize].dst))
                    .flatten()
            })
            .collect()
    }

    /// m-SCT through the index (the direct loop only in steps where a device waits) against
    /// the direct loop in every step: the same placement (or both an error) on random and
    /// wide instances, for every option, checked and unchecked.
    #[test]
    fn sct_index_matches_the_direct_loop() {
        let mut placed = 0;
        let mut waited = 0;
        let instances = (0..300)
            .map(random_instance)
            .chain((0..12).map(|seed| wide_instance(seed, false)))
            .chain((0..12).map(|seed| wide_instance(seed, true)));
        for (i, (g, c)) in instances.enumerate() {
            let Ok(p) = Problem::new(&g, &c) else {
                continue;
            };
            let favourite = every_other_favourite(&p);
            for opts in ALL {
                let simple = schedule_simple("m-sct", &p, &favourite, opts);
                for check in [true, false] {
                    let fast = schedule_index("m-sct", &p, &favourite, opts, check);
                    match (&fast, &simple) {
                        (Ok(a), Ok(b)) => {
                            assert_eq!(a, b, "instance {i} {opts:?} check {check}");
                            placed += 1;
                        }
                        (Err(_), Err(_)) => {}
                        _ => panic!("instance {i} {opts:?}: {fast:?} against {simple:?}"),
                    }
                }
            }
            let etf = schedule_simple("m-etf", &p, &vec![None; p.node_count()], LEGACY);
            let sct = schedule_simple("m-sct", &p, &favourite, LEGACY);
            if let (Ok(a), Ok(b)) = (etf, sct) {
                waited += usize::from(a != b);
            }
        }
        assert!(placed > 1200, "only {placed} placements compared");
        // The favourites change placements, so steps where a device waits were compared.
        assert!(waited > 20, "favourites changed only {waited} placements");
    }

    /// The heaps against the direct loop, and the legacy options against the loop this one
    /// replaced: the same placement (or both an error) on 400 random instances, for every
    /// option, with and without favourites.
    #[test]
    fn heaps_match_the_direct_loop_and_legacy_matches_before() {
        let mut placed = 0;
        for seed in 0..400 {
            let (g, c) = random_instance(seed);
            let Ok(p) = Problem::new(&g, &c) else {
                continue;
            };
            placed += heaps_agree(&p, &format!("seed {seed}"));
            let none = vec![None; p.node_count()];
            let before = legacy::legacy_schedule("m-etf", &p, &none);
            let now = schedule("m-etf", &p, &none, LEGACY);
            assert_eq!(before.is_ok(), now.is_ok(), "seed {seed}");
            if let (Ok(a), Ok(b)) = (before, now) {
                assert_eq!(a, b, "seed {seed}: legacy m-etf");
            }
            let favourite = every_other_favourite(&p);
            let before = legacy::legacy_schedule("m-sct", &p, &favourite);
            let now = schedule("m-sct", &p, &favourite, LEGACY);
            assert_eq!(before.is_ok(), now.is_ok(), "seed {seed}");
            if let (Ok(a), Ok(b)) = (before, now) {
                assert_eq!(a, b, "seed {seed}: legacy m-sct");
            }
        }
        assert!(placed > 800, "only {placed} placements compared");
    }
}
