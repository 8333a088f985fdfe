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
//! - two or more: one heap whose keys are never below the op's score. Each pick first
//!   compares the devices' states with the last ones it saw. A change that raises scores
//!   (a device turning idle when `δ > 0`, busy when `δ < 0`) re-keys at once the ready
//!   ops that list the device (per-device watcher lists) whose score now exceeds their
//!   key. A change that lowers scores is handled lazily: a top whose key is above its
//!   score now goes back with the right key. The first top whose key equals its score
//!   is the group's best.
//!
//! A pick costs `O(k + log R)` plus `O(log R)` per re-key. Re-keys are driven by device
//! state changes, at most one per (change, ready op listing that device): bounded by
//! the activity of the devices ops fan out to, never a scan of all ready ops per pick.

use super::{Scheduler, SchedulerInfo, SimView};
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::{FlatLists, Problem};
use crate::params::{ParamSpec, Params};
use crate::rng::Rng;
use crate::util::{from_total_order_bits, total_order_bits};

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
/// version of a multi-device op (an entry with an older one is stale), else 0. Packed into
/// one integer that is greater for a better entry: the key's `total_cmp` order bits, the
/// node inverted, then the version (an op's entries have distinct versions, so the order
/// is strict and the pops do not depend on how a heap stores them; among an op's entries
/// the version's place in the order changes nothing, as all but one are stale).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Entry(u128);

impl Entry {
    #[inline]
    fn key(self) -> f64 {
        from_total_order_bits((self.0 >> 64) as u64)
    }

    #[inline]
    fn tie(self) -> NodeIx {
        !((self.0 >> 32) as u32)
    }

    #[inline]
    fn data(self) -> u32 {
        self.0 as u32
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
    /// Current key version of each multi-device op, and that entry's key.
    ver: Vec<u32>,
    key: Vec<f64>,
    /// Ready multi-device ops listing each device (taken ones dropped lazily).
    watchers: Vec<Vec<NodeIx>>,
    /// Device states the multi-device keys were last brought up to date with.
    seen_idle: Vec<bool>,
    /// Live multi-device ops per device, to compact heaps full of stale entries.
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
            ver: Vec::new(),
            key: Vec::new(),
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
        self.ver = vec![0; n];
        self.key = vec![0.0; n];
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
                let key = score(stat, self.delta, count);
                self.key[v as usize] = key;
                h.many.push(entry(key, v, 0));
                self.many_live[d as usize] += 1;
                let range = self.remote_start[v as usize] as usize
                    ..self.remote_start[v as usize + 1] as usize;
                for &(e, _) in &self.remote[range] {
                    self.watchers[e as usize].push(v);
                }
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
            ver,
            key,
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
        // Multi-device ops: keys are never below scores, so the first top whose key is
        // its score now is the group's best; tops with stale keys go back re-keyed.
        let mut from_many = false;
        while let Some(&top) = h.many.peek() {
            let v = top.tie();
            if taken[v as usize] || top.data() != ver[v as usize] {
                h.many.pop();
                continue;
            }
            if best.is_some_and(|b| top <= b) {
                break;
            }
            let count = idle_count_in(remote_start, remote, v, |e| seen_idle[e as usize]);
            let exact = score(stat[v as usize], *delta, count);
            if exact.total_cmp(&top.key()).is_eq() {
                best = Some(top);
                from_many = true;
                break;
            }
            h.many.pop();
            ver[v as usize] += 1;
            key[v as usize] = exact;
            h.many.push(entry(exact, v, ver[v as usize]));
        }
        let chosen = best?;
        if from_many {
            h.many.pop();
            many_live[d as usize] -= 1;
        }
        if h.many.len() > 4 * many_live[d as usize] + 64 {
            h.many.retain(|e| {
                !taken[e.tie() as usize]
                    && e.data() == ver[e.tie() as usize]
                    && e.tie() != chosen.tie()
            });
        }
        taken[chosen.tie() as usize] = true;
        Some(chosen.tie())
    }
}

impl Msr {
    /// Brings the multi-device keys up to date with the device states in `view`: records
    /// every change, and re-keys at once the ready ops whose score a change raises.
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
            let taken = &self.taken;
            let list = &mut self.watchers[e as usize];
            list.retain(|&v| !taken[v as usize]);
            for &v in list.iter() {
                let count = idle_count_in(&self.remote_start, &self.remote, v, |x| {
                    self.seen_idle[x as usize]
                });
                let key = score(self.stat[v as usize], self.delta, count);
                // A key at or above the score is still a valid bound: keep it (this also
                // skips ops re-keyed already for another device in this sync).
                if key <= self.key[v as usize] {
                    continue;
                }
                self.key[v as usize] = key;
                self.ver[v as usize] += 1;
                self.heaps[self.device[v as usize] as usize]
                    .many
                    .push(entry(key, v, self.ver[v as usize]));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::LinkModel;
    use crate::model::{cluster::Cluster, graph::Graph};
    use crate::sim::{simulate, SimOptions};
    use crate::testutil::{assert_inputs_arrive, graph, joined};
    use crate::transfer::fifo::FifoLinks;

    fn msr(alpha: f64, beta: f64, gamma: f64, delta: f64) -> Msr {
        Msr::new(
            &Params::defaults(PARAMS)
                .with("alpha", alpha)
                .with("beta", beta)
                .with("gamma", gamma)
                .with("delta", delta),
        )
    }

    /// Eq. 13 written out naively from the graph, for comparison.
    fn naive(s: &Msr, p: &Problem, placement: &[DevIx], v: NodeIx, busy: &[bool]) -> f64 {
        let g = p.graph;
        let mut succ: Vec<NodeIx> = g.successors(v).collect();
        succ.sort_unstable();
        succ.dedup();
        let mut total = 0.0;
        for w in succ {
            let mut preds: Vec<NodeIx> = g.predecessors(w).collect();
            preds.sort_unstable();
            preds.dedup();
            let single = preds.len() == 1;
            let dw = placement[w as usize];
            let idle = !busy[dw as usize];
            total += s.alpha
                + if dw != placement[v as usize] {
                    s.beta
                } else {
                    0.0
                }
                + if single { s.gamma } else { 0.0 }
                + if single && idle { s.delta } else { 0.0 };
        }
        total
    }

    /// Six ops on two devices, α = β = γ = 1, δ = 5:
    ///
    /// ```text
    ///   a -> x, a -> y        x on d1, only pred a;   y on d0, preds a and b
    ///   b -> y, b -> z        z on d0, only pred b (two parallel edges b -> z)
    ///   c -> z2               z2 on d1, preds c only
    /// ```
    /// a, b, c on d0 and ready at time 0; d1 idle.
    /// - MSR(a) = x: 1 + 1 (remote) + 1 (single) + 5 (d1 idle) = 8; y: 1 = 1 -> 9
    /// - MSR(b) = y: 1; z (counted once): 1 + 1 + 5 (own device, idle as it picks) = 7 -> 8
    /// - MSR(c) = z2: 1 + 1 + 1 + 5 = 8
    ///
    /// With d1 idle: a (9) first, then b and c tie at 8 -> b (lower index).
    /// With d1 busy: a = 4, b = 8, c = 3 -> b, a, c.
    fn case() -> (Graph, Cluster, Vec<DevIx>) {
        let g = graph(
            r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1},{"id":"c","cost":1},
                         {"id":"x","cost":1},{"id":"y","cost":1},{"id":"z","cost":1},{"id":"z2","cost":1}],
                "edges":[{"src":"a","dst":"x"},{"src":"a","dst":"y"},{"src":"b","dst":"y"},
                         {"src":"b","dst":"z","tensor":"t1"},{"src":"b","dst":"z","tensor":"t2"},{"src":"c","dst":"z2"}]}"#,
        );
        let c = Cluster::uniform(&[1.0, 1.0], 1.0, 0.0);
        (g, c, vec![0, 0, 0, 1, 0, 0, 1])
    }

    #[test]
    fn hand_computed_scores_and_live_idleness() {
        let (g, c, placement) = case();
        let p = Problem::new(&g, &c).unwrap();
        for (busy, want) in [([false, false], [0, 1, 2]), ([false, true], [1, 0, 2])] {
            let mut s = msr(1.0, 1.0, 1.0, 5.0);
            s.init(&p, &placement);
            let view = SimView {
                now: 0.0,
                busy: &busy,
            };
            let scores: Vec<f64> = (0..3).map(|v| s.score_now(v, &view)).collect();
            let naive_scores: Vec<f64> = (0..3)
                .map(|v| naive(&s, &p, &placement, v, &busy))
                .collect();
            assert_eq!(scores, naive_scores);
            for v in 0..3 {
                s.ready(v, 0, 0.0);
            }
            let order: Vec<NodeIx> = std::iter::from_fn(|| s.pick(0, &view)).collect();
            assert_eq!(order, want, "busy = {busy:?}, scores {scores:?}");
        }
        // The paper's defaults are the default parameters.
        let s = Msr::new(&Params::defaults(PARAMS));
        assert_eq!((s.alpha, s.beta, s.gamma, s.delta), (1.0, 1.0, 1.0, 5.0));
    }

    #[test]
    fn parallel_edges_count_once_and_own_device_gets_delta() {
        let (g, c, placement) = case();
        let p = Problem::new(&g, &c).unwrap();
        let mut s = msr(1.0, 0.0, 0.0, 0.0);
        s.init(&p, &placement);
        // b has two distinct successors (y, z) over three edges.
        assert_eq!(s.stat[1], 2.0);
        // z's two edges come from one predecessor: it counts as single-predecessor.
        let mut s = msr(0.0, 0.0, 1.0, 10.0);
        s.init(&p, &placement);
        assert_eq!(
            s.stat[1],
            1.0 + 10.0,
            "z on b's own device gets γ and δ statically"
        );
        assert_eq!(s.kind[1], Kind::Plain);
        assert_eq!(s.kind[0], Kind::One(1, 1));
    }

    /// Random graphs, placements, parameters and device states: every pick equals the
    /// brute-force argmax of eq. 13 (ties to the lowest index).
    #[test]
    fn picks_match_a_brute_force_scan() {
        let mut rng = Rng::new(11);
        let mut kinds = [0usize; 3];
        for case in 0..300 {
            let n = 5 + rng.below(40) as usize;
            let k = 1 + rng.below(6) as usize;
            let mut nodes = Vec::new();
            for i in 0..n {
                nodes.push(format!(r#"{{"id":"n{i}","cost":1}}"#));
            }
            // Half the nodes get one parent (sometimes by two parallel edges), the rest
            // up to three random ones.
            let mut edges = Vec::new();
            for b in 1..n as u64 {
                let parents = if rng.below(2) == 0 { 1 } else { rng.below(4) };
                for _ in 0..parents {
                    let a = rng.below(b);
                    for _ in 0..1 + rng.below(2) {
                        edges.push(format!(r#"{{"src":"n{a}","dst":"n{b}"}}"#));
                    }
                }
            }
            let g = joined(&nodes, &edges);
            let c = Cluster::uniform(&vec![1.0; k], 1.0, 0.0);
            let p = Problem::new(&g, &c).unwrap();
            let placement: Vec<DevIx> = (0..n).map(|_| rng.below(k as u64) as DevIx).collect();
            // Dyadic weights keep every sum exact, so scores compare bit for bit.
            let w: Vec<f64> = (0..4).map(|_| (rng.below(33) as f64 - 8.0) / 4.0).collect();
            let mut s = msr(w[0], w[1], w[2], w[3]);
            s.init(&p, &placement);
            for kind in &s.kind {
                kinds[match kind {
                    Kind::Plain => 0,
                    Kind::One(..) => 1,
                    Kind::Many => 2,
                }] += 1;
            }
            let mut ready: Vec<Vec<NodeIx>> = vec![Vec::new(); k];
            let mut order: Vec<NodeIx> = (0..n as NodeIx).collect();
            for i in (1..n).rev() {
                order.swap(i, rng.below(i as u64 + 1) as usize);
            }
            let mut next = 0;
            let mut busy = vec![false; k];
            for _step in 0..3 * n {
                // Announce a few ops, flip device states, pick on a random device.
                for _ in 0..rng.below(4) {
                    if next < n {
                        let v = order[next];
                        next += 1;
                        let d = placement[v as usize];
                        s.ready(v, d, 0.0);
                        ready[d as usize].push(v);
                    }
                }
                for b in busy.iter_mut() {
                    if rng.below(3) == 0 {
                        *b = !*b;
                    }
                }
                let d = rng.below(k as u64) as DevIx;
                busy[d as usize] = false;
                let view = SimView {
                    now: 0.0,
                    busy: &busy,
                };
                let want = ready[d as usize]
                    .iter()
                    .map(|&v| (naive(&s, &p, &placement, v, &busy), v))
                    .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
                let got = s.pick(d, &view);
                assert_eq!(got, want.map(|x| x.1), "case {case}");
                if let Some(v) = got {
                    ready[d as usize].retain(|&x| x != v);
                }
            }
        }
        assert!(
            kinds.iter().all(|&c| c > 300),
            "every heap kind is exercised: {kinds:?}"
        );
    }

    /// Random graphs on four devices under both link models and every registered
    /// scheduler (msr's dynamic state makes it the one most worth checking; the others
    /// come along cheaply): every op starts after each input has arrived, and no device
    /// runs two ops at once.
    #[test]
    fn simulation_respects_dependencies() {
        let mut rng = Rng::new(3);
        for _ in 0..40 {
            let n = 10 + rng.below(60) as usize;
            let nodes: Vec<String> = (0..n)
                .map(|i| format!(r#"{{"id":"n{i}","cost":{}}}"#, 1 + rng.below(9)))
                .collect();
            let mut edges = Vec::new();
            for b in 1..n as u64 {
                for _ in 0..rng.below(3) + 1 {
                    let a = rng.below(b);
                    edges.push(format!(
                        r#"{{"src":"n{a}","dst":"n{b}","bytes":{}}}"#,
                        rng.below(20)
                    ));
                }
            }
            let g = joined(&nodes, &edges);
            let c = Cluster::uniform(&[1.0, 2.0, 3.0, 4.0], 2.0, 0.5);
            let p = Problem::new(&g, &c).unwrap();
            let placement: Vec<DevIx> = (0..n).map(|_| rng.below(4) as DevIx).collect();
            for (links, info) in [LinkModel::Parallel, LinkModel::Fcfs]
                .into_iter()
                .flat_map(|l| crate::schedule::SCHEDULERS.iter().map(move |i| (l, i)))
            {
                let mut s = (info.make)(&Params::defaults(info.params), Rng::new(1));
                let r = simulate(
                    &p,
                    &placement,
                    s.as_mut(),
                    &mut FifoLinks::default(),
                    SimOptions {
                        links,
                        record: true,
                    },
                );
                let ops = r.trace.unwrap().ops;
                assert_inputs_arrive(&p, &placement, &ops, 1e-9, info.name);
                for d in 0..4 {
                    let mut mine: Vec<(f64, f64)> = (0..n)
                        .filter(|&v| placement[v] == d)
                        .map(|v| ops[v])
                        .collect();
                    mine.sort_by(|a, b| a.0.total_cmp(&b.0));
                    assert!(mine.windows(2).all(|w| w[0].1 <= w[1].0));
                }
                assert_eq!(r.devices.iter().map(|d| d.ops).sum::<usize>(), n);
            }
        }
    }
}
