//! `msr`: Maximum Successor Rank first (Mayer17 §4.2, eq. 13).
//!
//! A free device runs its executable op `v_i` with the highest
//!
//! `MSR(v_i) = sum over v_j in succ(v_i) of ( α + β·[p(v_j) ≠ p(v_i)] + γ·[|pred(v_j)| = 1]
//!             + δ·[idle(p(v_j)) ∧ |pred(v_j)| = 1] )`
//!
//! with the paper's weights α = β = γ = 1, δ = 5 (§5.2) as defaults.
//!
//! Choices where the paper is ambiguous:
//! - `succ(v_i)` and `pred(v_j)` are sets of distinct nodes, as the paper writes them:
//!   several edges between the same two nodes count once, both in the sum and in
//!   `|pred(v_j)| = 1`.
//! - `idle(d)` is live: the device's state in the simulator at the moment of the pick
//!   ([`SimView::idle`]), including devices that picked earlier in the same instant.
//! - A successor on the picking device itself: the simulator only asks an idle device to
//!   pick, so `idle(p(v_j))` is true there and, read literally, eq. 13 gives it the δ
//!   term. We keep the literal reading; that term is then static and precomputed.
//! - Ties (equal scores) go to the lowest node index.
//!
//! Efficient exact argmax. Split `MSR(v) = S(v) + δ·D(v)`: `S` holds every static term
//! (α, β, γ, and δ for single-predecessor successors on `v`'s own device) and `D(v)` is
//! the number of single-predecessor successors on *other* devices that are idle now.
//! Per op, init lists those other devices with counts. Each device's ready ops are kept
//! in max-heaps ordered by (key, lowest index), by how many remote devices they list:
//! - none: one heap keyed by `S` (exact, never changes);
//! - exactly one, `e` (count `c`): two heaps per `e`, keyed by `S + δ·c` (the score
//!   while `e` is idle) and `S` (while `e` is busy); a pick reads the heap that matches
//!   `e`'s state now. An op sits in both; the copy left behind is dropped lazily when it
//!   reaches a top. Cost `O(k + log R)` per pick (`k` devices, `R` ready ops).
//! - two or more: ops with the same remote devices and counts (a "profile") on one device
//!   have the same dynamic part, so they rank among themselves by `S` alone: each profile
//!   keeps its ready ops ordered by (`S` descending, index), and enters one heap per
//!   device as a single entry whose key is never below its best score (the best of its
//!   ops, ties to the lowest index; as a sum that rounds can tie two different `S`, the
//!   ops tied with the first form a prefix of that order, and each distinct `S` of it is
//!   looked at once). Each pick first compares the devices' states with the last ones it
//!   saw. A change that raises scores (a device turning idle when `δ > 0`, busy when
//!   `δ < 0`) re-keys at once the profiles with ready ops that list the device
//!   (per-device watcher lists) whose best now exceeds their key. A change that lowers
//!   scores is handled lazily: a top whose key is above its best now goes back with the
//!   right key. The first top whose key equals its best is the group's best.
//!
//! A pick costs `O(k + log R)` plus `O(log R)` per re-key. Re-keys are driven by device
//! state changes, at most one per (change, profile with ready ops listing that device):
//! bounded by the activity of the devices ops fan out to times the distinct profiles, never
//! a scan of all ready ops per pick. (Until issue 24b each op was its own entry: a device
//! turning idle re-keyed every ready op listing it, `O(V R log R)` on many ready ops that
//! share two remote devices; docs/cost.md, "Fixed".)
//!
//! The tests (hand-computed scores, the heaps against a brute-force scan) are in
//! `msr/tests.rs`.

use super::{Scheduler, SchedulerInfo, SimView};
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::{FlatLists, Problem};
use crate::params::{ParamSpec, Params};
use crate::rng::Rng;
use crate::util::total_order_bits;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::non_negative("alpha", 1.0, "weight per successor (eq. 13 α)"),
    ParamSpec::non_negative(
        "beta",
        1.0,
        "weight per successor on another device (eq. 13 β)",
    ),
    ParamSpec::non_negative(
        "gamma",
        1.0,
        "weight per successor whose only predecessor is this op (eq. 13 γ)",
    ),
    ParamSpec::non_negative(
        "delta",
        5.0,
        "weight per such successor whose device is idle now (eq. 13 δ)",
    ),
];

pub const INFO: SchedulerInfo = SchedulerInfo {
    name: "msr",
    summary: "maximum successor rank first, rewards activating idle devices (Mayer17 §4.2, eq. 13)",
    params: PARAMS,
    needs_plan: false,
    make: |p: &Params, _: Rng| Box::new(Msr::new(p)),
};

/// The eq. 13 score from its static part and the number of counted idle remote devices'
/// successors. Every path (heaps, re-keys, tests) computes scores with this one
/// expression, so equal inputs give bit-equal scores.
#[inline]
fn score(stat: f64, delta: f64, idle_count: u32) -> f64 {
    stat + delta * idle_count as f64
}

/// A heap entry: larger score key first, then the smaller node (`tie`). `data` is the key
/// version of a multi-device op's profile (an entry with an older one is stale; its node
/// is the profile's best op when it was keyed), else 0. Packed into one integer that is
/// greater for a better entry: the key's `total_cmp` order bits, the node inverted, then
/// the version (a node belongs to one profile and a profile's entries have distinct
/// versions, so the order is strict and the pops do not depend on how a heap stores them;
/// among a profile's entries the version's place in the order changes nothing, as all but
/// one are stale).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Entry(u128);

impl Entry {
    #[inline]
    fn tie(self) -> NodeIx {
        !((self.0 >> 32) as u32)
    }

    #[inline]
    fn data(self) -> u32 {
        self.0 as u32
    }

    /// The entry's place in the order without its version: key, then node.
    #[inline]
    fn rank(self) -> u128 {
        self.0 >> 32
    }
}

fn entry(key: f64, v: NodeIx, ver: u32) -> Entry {
    Entry((total_order_bits(key) as u128) << 64 | ((!v) as u128) << 32 | ver as u128)
}

/// A max-heap of entries: the best pops first (`dary_heap`'s 4-ary heap; the order is
/// strict, so the pops do not depend on the heap's layout).
type Heap = dary_heap::QuaternaryHeap<Entry>;

/// Which heaps a ready op lives in.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Plain,
    /// One remote device and its count.
    One(DevIx, u32),
    /// Several remote devices.
    Many,
}

/// Ready ops of one remote-device class: keyed for when that device is idle, and busy.
#[derive(Default)]
struct Pair {
    idle: Heap,
    busy: Heap,
}

/// The ready ops of one profile on one device (ops with two or more remote devices, the
/// same devices and counts).
struct Profile {
    dev: DevIx,
    /// An op with this profile, whose remote list is the profile's.
    op: NodeIx,
    /// Ready ops by (`S` descending, node): `S`'s order bits inverted, then the node.
    ready: BTreeSet<(u64, NodeIx)>,
    /// Version of the profile's live heap entry (older entries are stale).
    ver: u32,
    /// The live heap entry: never below the profile's best entry now.
    best: Entry,
    /// Bumped each time the profile gets ready ops again after having none; watcher
    /// entries of an older epoch are stale.
    epoch: u32,
}

/// Orders `S` descending in a [`Profile`]'s set.
#[inline]
fn stat_key(stat: f64) -> u64 {
    !total_order_bits(stat)
}

/// The best entry (score, then lowest node) of a profile's ready ops whose dynamic part
/// counts `count` idle successors, versioned `ver`. Scores are `S + δ·count`, monotone in
/// `S`, so the ops tied with the first form a prefix of the set's order; the lowest node
/// of the prefix is the first of one of its distinct `S`, each reached by one range query.
fn profile_best(
    ready: &BTreeSet<(u64, NodeIx)>,
    stat: &[f64],
    delta: f64,
    count: u32,
    ver: u32,
) -> Option<Entry> {
    let &(first, v) = ready.first()?;
    let best = score(stat[v as usize], delta, count);
    let mut rep = v;
    let mut at = first;
    while let Some(&(next, w)) = ready
        .range((Bound::Excluded((at, NodeIx::MAX)), Bound::Unbounded))
        .next()
    {
        if !score(stat[w as usize], delta, count)
            .total_cmp(&best)
            .is_eq()
        {
            break;
        }
        rep = rep.min(w);
        at = next;
    }
    Some(entry(best, rep, ver))
}

#[derive(Default)]
struct DeviceHeaps {
    plain: Heap,
    /// Ops with exactly one remote device, per remote device (ascending, non-empty).
    one: Vec<(DevIx, Pair)>,
    many: Heap,
}

pub struct Msr {
    alpha: f64,
    beta: f64,
    gamma: f64,
    delta: f64,
    /// Static part `S(v)`.
    stat: Vec<f64>,
    kind: Vec<Kind>,
    /// Remote devices (with counts) of each op: `remote[remote_start[v]..remote_start[v+1]]`.
    remote_start: Vec<u32>,
    remote: Vec<(DevIx, u32)>,
    taken: Vec<bool>,
    heaps: Vec<DeviceHeaps>,
    /// Device of each op.
    device: Vec<DevIx>,
    /// Profile of each multi-device op (`u32::MAX` for the others).
    profile_of: Vec<u32>,
    profiles: Vec<Profile>,
    /// Profiles with ready ops listing each device, with their epoch (entries of an older
    /// epoch, or of profiles without ready ops, are dropped lazily).
    watchers: Vec<Vec<(u32, u32)>>,
    /// Device states the multi-device keys were last brought up to date with.
    seen_idle: Vec<bool>,
    /// Profiles with ready ops per device, to compact heaps full of stale entries.
    many_live: Vec<usize>,
    flipped: Vec<DevIx>,
}

/// Drops entries of ops already taken from the top of `heap`; returns the live top.
fn live_top(heap: &mut Heap, taken: &[bool]) -> Option<Entry> {
    while let Some(&e) = heap.peek() {
        if taken[e.tie() as usize] {
            heap.pop();
        } else {
            return Some(e);
        }
    }
    None
}

/// A remote device and how many single-predecessor successors an op has there.
type Remote = (DevIx, u32);

/// How many single-predecessor successors of `v` sit on remote devices `idle` calls idle.
fn idle_count_in(
    remote_start: &[u32],
    remote: &[(DevIx, u32)],
    v: NodeIx,
    idle: impl Fn(DevIx) -> bool,
) -> u32 {
    let range = remote_start[v as usize] as usize..remote_start[v as usize + 1] as usize;
    remote[range]
        .iter()
        .filter(|&&(e, _)| idle(e))
        .map(|&(_, c)| c)
        .sum()
}

impl Msr {
    pub fn new(params: &Params) -> Msr {
        Msr {
            alpha: params.get("alpha"),
            beta: params.get("beta"),
            gamma: params.get("gamma"),
            delta: params.get("delta"),
            stat: Vec::new(),
            kind: Vec::new(),
            remote_start: Vec::new(),
            remote: Vec::new(),
            taken: Vec::new(),
            heaps: Vec::new(),
            device: Vec::new(),
            profile_of: Vec::new(),
            profiles: Vec::new(),
            watchers: Vec::new(),
            seen_idle: Vec::new(),
            many_live: Vec::new(),
            flipped: Vec::new(),
        }
    }

    /// Exact eq. 13 score of `v` under the devices' current states.
    pub fn score_now(&self, v: NodeIx, view: &SimView) -> f64 {
        let count = idle_count_in(&self.remote_start, &self.remote, v, |e| view.idle(e));
        score(self.stat[v as usize], self.delta, count)
    }
}

/// Marks a successor in [`distinct_successors`] whose only distinct predecessor is the op.
const SINGLE: u32 = 1 << 31;

/// Every node's distinct successors (several edges to one node count once), in the order of
/// their first edge, marked [`SINGLE`] when they have one distinct predecessor: the part of
/// eq. 13 that does not depend on the placement, computed once per problem and shared.
fn distinct_successors(problem: &Problem) -> FlatLists<u32> {
    problem
        .memo
        .distinct_successors
        .get_or_init(|| {
            let g = problem.graph;
            let n = g.node_count();
            assert!(n < SINGLE as usize, "node indices under 2^31");
            // Distinct predecessors per node (a stamp array dedups parallel edges).
            let mut stamp = vec![u32::MAX; n];
            let mut preds = vec![0u32; n];
            for w in 0..n as NodeIx {
                for u in g.predecessors(w) {
                    if stamp[u as usize] != w {
                        stamp[u as usize] = w;
                        preds[w as usize] += 1;
                    }
                }
            }
            stamp.fill(u32::MAX);
            let mut start = Vec::with_capacity(n + 1);
            let mut list = Vec::new();
            for v in 0..n as NodeIx {
                start.push(list.len() as u32);
                for w in g.successors(v) {
                    if stamp[w as usize] == v {
                        continue;
                    }
                    stamp[w as usize] = v;
                    list.push(if preds[w as usize] == 1 {
                        SINGLE | w
                    } else {
                        w
                    });
                }
            }
            start.push(list.len() as u32);
            (start.into(), list.into())
        })
        .clone()
}

impl Scheduler for Msr {
    fn init(&mut self, problem: &Problem, placement: &[DevIx]) {
        let n = problem.graph.node_count();
        let k = problem.device_count();
        let (succ_start, succ) = distinct_successors(problem);
        self.stat = vec![0.0; n];
        self.kind = vec![Kind::Plain; n];
        self.remote_start = Vec::with_capacity(n + 1);
        self.remote.clear();
        let mut devs: Vec<DevIx> = Vec::new();
        for v in 0..n as NodeIx {
            self.remote_start.push(self.remote.len() as u32);
            let d = placement[v as usize];
            let mut s = 0.0;
            devs.clear();
            let list = &succ[succ_start[v as usize] as usize..succ_start[v as usize + 1] as usize];
            for &marked in list {
                let w = marked & !SINGLE;
                let e = placement[w as usize];
                let single = marked & SINGLE != 0;
                s += self.alpha;
                if e != d {
                    s += self.beta;
                }
                if single {
                    s += self.gamma;
                    if e == d {
                        s += self.delta;
                    } else {
                        devs.push(e);
                    }
                }
            }
            self.stat[v as usize] = s;
            devs.sort_unstable();
            let start = self.remote.len();
            for &e in &devs {
                match self.remote[start..].last_mut() {
                    Some((last, c)) if *last == e => *c += 1,
                    _ => self.remote.push((e, 1)),
                }
            }
            let mine = &self.remote[start..];
            self.kind[v as usize] = match mine.len() {
                // With δ = 0 no device state matters.
                _ if self.delta == 0.0 => Kind::Plain,
                0 => Kind::Plain,
                1 => Kind::One(mine[0].0, mine[0].1),
                _ => Kind::Many,
            };
        }
        self.remote_start.push(self.remote.len() as u32);
        self.taken = vec![false; n];
        self.heaps = (0..k).map(|_| DeviceHeaps::default()).collect();
        self.device = placement.to_vec();
        // Profiles: multi-device ops keyed by (device, remote devices with counts).
        self.profile_of = vec![u32::MAX; n];
        self.profiles.clear();
        let mut index: BTreeMap<(DevIx, &[Remote]), u32> = BTreeMap::new();
        for v in 0..n as NodeIx {
            if self.kind[v as usize] != Kind::Many {
                continue;
            }
            let d = placement[v as usize];
            let range =
                self.remote_start[v as usize] as usize..self.remote_start[v as usize + 1] as usize;
            let next = self.profiles.len() as u32;
            let id = *index.entry((d, &self.remote[range])).or_insert(next);
            if id == next {
                self.profiles.push(Profile {
                    dev: d,
                    op: v,
                    ready: BTreeSet::new(),
                    ver: 0,
                    best: Entry(0),
                    epoch: 0,
                });
            }
            self.profile_of[v as usize] = id;
        }
        self.watchers = vec![Vec::new(); k];
        self.seen_idle = vec![true; k];
        self.many_live = vec![0; k];
    }

    fn ready(&mut self, v: NodeIx, d: DevIx, _: f64) {
        let h = &mut self.heaps[d as usize];
        let stat = self.stat[v as usize];
        match self.kind[v as usize] {
            Kind::Plain => h.plain.push(entry(stat, v, 0)),
            Kind::One(e, c) => {
                let at = match h.one.binary_search_by_key(&e, |p| p.0) {
                    Ok(at) => at,
                    Err(at) => {
                        h.one.insert(at, (e, Pair::default()));
                        at
                    }
                };
                let pair = &mut h.one[at].1;
                pair.idle.push(entry(score(stat, self.delta, c), v, 0));
                pair.busy.push(entry(stat, v, 0));
            }
            Kind::Many => {
                // Keyed with the states last seen; a pick brings it up to date.
                let count = idle_count_in(&self.remote_start, &self.remote, v, |e| {
                    self.seen_idle[e as usize]
                });
                let mine = entry(score(stat, self.delta, count), v, 0);
                let id = self.profile_of[v as usize];
                let p = &mut self.profiles[id as usize];
                let was_empty = p.ready.is_empty();
                p.ready.insert((stat_key(stat), v));
                if was_empty {
                    // The profile's live entry is this op's; it watches its devices again.
                    p.epoch = p.epoch.wrapping_add(1);
                    self.many_live[d as usize] += 1;
                    let range = self.remote_start[p.op as usize] as usize
                        ..self.remote_start[p.op as usize + 1] as usize;
                    for &(e, _) in &self.remote[range] {
                        self.watchers[e as usize].push((id, p.epoch));
                    }
                } else if mine.rank() <= p.best.rank() {
                    // The live entry stays a bound of the profile's best.
                    return;
                }
                p.ver = p.ver.wrapping_add(1);
                p.best = entry(score(stat, self.delta, count), v, p.ver);
                h.many.push(p.best);
            }
        }
    }

    fn pick(&mut self, d: DevIx, view: &SimView) -> Option<NodeIx> {
        self.sync(view);
        let Msr {
            delta,
            stat,
            remote_start,
            remote,
            taken,
            heaps,
            profile_of,
            profiles,
            seen_idle,
            many_live,
            ..
        } = self;
        let h = &mut heaps[d as usize];
        let mut best: Option<Entry> = live_top(&mut h.plain, taken);
        // An op sits in both heaps of its pair, so one heap has a live op iff the
        // other does; a pair with none left is dropped.
        h.one.retain_mut(|(e, pair)| {
            let heap = if view.idle(*e) {
                &mut pair.idle
            } else {
                &mut pair.busy
            };
            match live_top(heap, taken) {
                Some(top) => {
                    if best.is_none_or(|b| top > b) {
                        best = Some(top);
                    }
                    true
                }
                None => false,
            }
        });
        // Multi-device ops: a profile's key is never below its best, so the first top
        // whose key is its profile's best now is the group's best; tops with stale keys
        // go back re-keyed.
        let mut from_many = None;
        while let Some(&top) = h.many.peek() {
            let id = profile_of[top.tie() as usize];
            let p = &mut profiles[id as usize];
            if top.data() != p.ver || p.ready.is_empty() {
                h.many.pop();
                continue;
            }
            if best.is_some_and(|b| top <= b) {
                break;
            }
            let count = idle_count_in(remote_start, remote, p.op, |e| seen_idle[e as usize]);
            let ver = p.ver.wrapping_add(1);
            let exact = profile_best(&p.ready, stat, *delta, count, ver)
                .expect("a profile with ready ops has a best");
            if exact.rank() == top.rank() {
                best = Some(top);
                from_many = Some(id);
                break;
            }
            h.many.pop();
            p.ver = ver;
            p.best = exact;
            h.many.push(exact);
        }
        let chosen = best?;
        if let Some(id) = from_many {
            // The profile's next best under the same states is exact.
            h.many.pop();
            let p = &mut profiles[id as usize];
            let v = chosen.tie();
            p.ready.remove(&(stat_key(stat[v as usize]), v));
            p.ver = p.ver.wrapping_add(1);
            if p.ready.is_empty() {
                many_live[d as usize] -= 1;
            } else {
                let count = idle_count_in(remote_start, remote, p.op, |e| seen_idle[e as usize]);
                p.best = profile_best(&p.ready, stat, *delta, count, p.ver)
                    .expect("a profile with ready ops has a best");
                h.many.push(p.best);
            }
        }
        if h.many.len() > 4 * many_live[d as usize] + 64 {
            h.many.retain(|e| {
                let p = &profiles[profile_of[e.tie() as usize] as usize];
                e.data() == p.ver && !p.ready.is_empty()
            });
        }
        taken[chosen.tie() as usize] = true;
        Some(chosen.tie())
    }
}

impl Msr {
    /// Brings the multi-device keys up to date with the device states in `view`: records
    /// every change, and re-keys at once the profiles whose best a change raises.
    fn sync(&mut self, view: &SimView) {
        self.flipped.clear();
        for (e, seen) in self.seen_idle.iter_mut().enumerate() {
            let idle = view.idle(e as DevIx);
            if *seen != idle {
                *seen = idle;
                // Idle raises the δ term when δ > 0, busy raises it when δ < 0.
                if idle == (self.delta > 0.0) {
                    self.flipped.push(e as DevIx);
                }
            }
        }
        for &e in &self.flipped {
            let profiles = &mut self.profiles;
            let list = &mut self.watchers[e as usize];
            list.retain(|&(id, epoch)| {
                let p = &profiles[id as usize];
                p.epoch == epoch && !p.ready.is_empty()
            });
            for &(id, _) in list.iter() {
                let p = &mut profiles[id as usize];
                let count = idle_count_in(&self.remote_start, &self.remote, p.op, |x| {
                    self.seen_idle[x as usize]
                });
                let ver = p.ver.wrapping_add(1);
                let Some(now) = profile_best(&p.ready, &self.stat, self.delta, count, ver) else {
                    continue;
                };
                // A key at or above the best is still a valid bound: keep it (this also
                // skips profiles re-keyed already for another device in this sync).
                if now.rank() <= p.best.rank() {
                    continue;
                }
                p.ver = ver;
                p.best = now;
                self.heaps[p.dev as usize].many.push(now);
            }
        }
    }
}

#[cfg(test)]
mod tests;
