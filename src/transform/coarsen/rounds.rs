//! The pieces of one incremental coarsening round ([`super::coarsen`]): coarse edges keyed by
//! vertex keys with their tensor lists (the first ones from the graph), the candidate order,
//! the vertices that count, the scan that picks a batch, the contraction of a batch, and
//! heights over the live vertices.

use std::collections::HashSet;

use crate::model::problem::Problem;
use crate::util::merge_sorted;

/// One coarse edge during the rounds: its ends are vertex keys (the topological position
/// of the vertex's first member, which orders vertices as the final numbering does), its
/// distinct tensors are `tensors[slot]` in increasing id order, and `bytes` is their sum
/// in that order (as [`super::coarse_edges`] sums them).
#[derive(Debug, Clone, Copy)]
pub(super) struct Edge {
    pub(super) src: u32,
    pub(super) dst: u32,
    pub(super) bytes: f64,
    pub(super) slot: u32,
}

/// Candidate order of `(bytes, src, dst)`: summed bytes, highest first, ties by lower
/// (src, dst); the greedy scan's order in both kinds of round (`live.rs`'s candidates too).
pub(super) fn candidate_order(x: (f64, u32, u32), y: (f64, u32, u32)) -> std::cmp::Ordering {
    y.0.total_cmp(&x.0).then((x.1, x.2).cmp(&(y.1, y.2)))
}

/// [`candidate_order`] of two edges.
pub(super) fn priority(x: &Edge, y: &Edge) -> std::cmp::Ordering {
    candidate_order((x.bytes, x.src, x.dst), (y.bytes, y.src, y.dst))
}

/// Summed bytes of distinct tensors, in the order given (increasing id; `coarse_edges`'s
/// order, so sums are the same bits whichever part of `coarsen` forms them).
pub(super) fn tensor_sum(problem: &Problem, tensors: &[u32]) -> f64 {
    let mut it = tensors.iter().map(|&t| problem.tensor_bytes[t as usize]);
    let first = it.next().unwrap_or(0.0);
    it.fold(first, |s, b| s + b)
}

/// The edges after merging each vertex `x` into `group[x]` (identity outside the batch;
/// `touched[x]` for every vertex of the batch), in candidate order. An edge neither of
/// whose ends moves and that no moved edge joins keeps its place and its tensor slot;
/// the others are joined per (src, dst), their tensor lists united and re-summed (a new
/// slot pushed on `tensors` for each joined pair, the joined edges' slots listed in
/// `retired`; an edge that only moved keeps its slot), sorted and merged in: `O(E + c log c)` for `c` changed
/// edges, against a sort of every edge of the original graph per round before.
pub(super) fn contract(
    problem: &Problem,
    edges: &[Edge],
    group: &[u32],
    touched: &[bool],
    tensors: &mut Vec<Vec<u32>>,
    retired: &mut Vec<u32>,
) -> Vec<Edge> {
    let mut kept: Vec<Edge> = Vec::with_capacity(edges.len());
    let mut changed: Vec<(u32, u32, u32)> = Vec::new();
    for e in edges {
        let (a, b) = (group[e.src as usize], group[e.dst as usize]);
        if a == b {
            continue;
        }
        if a != e.src || b != e.dst {
            changed.push((a, b, e.slot));
        } else {
            kept.push(*e);
        }
    }
    if changed.is_empty() {
        return kept;
    }
    let mut pairs: Vec<(u32, u32)> = changed.iter().map(|&(a, b, _)| (a, b)).collect();
    pairs.sort_unstable();
    pairs.dedup();
    // A kept edge between two vertices a moved edge now joins changes its bytes.
    kept.retain(|e| {
        let join = (touched[e.src as usize] || touched[e.dst as usize])
            && pairs.binary_search(&(e.src, e.dst)).is_ok();
        if join {
            changed.push((e.src, e.dst, e.slot));
        }
        !join
    });
    changed.sort_unstable();
    let mut fresh: Vec<Edge> = Vec::new();
    let mut i = 0;
    while i < changed.len() {
        let (a, b, slot) = changed[i];
        let mut j = i + 1;
        while j < changed.len() && changed[j].0 == a && changed[j].1 == b {
            j += 1;
        }
        if j - i == 1 {
            // Only its ends moved: same tensors, same slot, same sum.
            fresh.push(Edge {
                src: a,
                dst: b,
                bytes: tensor_sum(problem, &tensors[slot as usize]),
                slot,
            });
        } else {
            let mut ts: Vec<u32> = Vec::new();
            for &(_, _, old) in &changed[i..j] {
                ts.extend_from_slice(&tensors[old as usize]);
                retired.push(old);
            }
            ts.sort_unstable();
            ts.dedup();
            fresh.push(Edge {
                src: a,
                dst: b,
                bytes: tensor_sum(problem, &ts),
                slot: tensors.len() as u32,
            });
            tensors.push(ts);
        }
        i = j;
    }
    fresh.sort_unstable_by(priority);
    merge_sorted(&kept, &fresh, |k, f| priority(k, f).is_le())
}

/// Heights (Definition 3.4) of the live vertices (`live`, keys below `n`) under `edges`;
/// `None` when the graph has a cycle (Kahn's algorithm: the cycle check and the heights in
/// one pass).
pub(super) fn live_heights(
    n: usize,
    live: &[u32],
    edges: &[Edge],
    succ: &Adjacency,
) -> Option<Vec<u32>> {
    let mut indeg = vec![0u32; n];
    for e in edges {
        indeg[e.dst as usize] += 1;
    }
    let mut h = vec![1u32; n];
    let succ = |v: usize| succ.of(v).iter().copied();
    kahn_heights(live.iter().copied(), indeg, succ, &mut h).then_some(h)
}

/// Heights (Definition 3.4) of `vertices` into `h` by Kahn's algorithm, given each
/// vertex's in-degree (by key) and successors; false when they have a cycle (then `h` is
/// unusable). The one pass every kind of round and the final check use.
pub(super) fn kahn_heights<I: IntoIterator<Item = u32>>(
    vertices: impl Iterator<Item = u32>,
    mut indeg: Vec<u32>,
    succ: impl Fn(usize) -> I,
    h: &mut [u32],
) -> bool {
    let mut count = 0;
    let mut queue: Vec<u32> = Vec::new();
    for v in vertices {
        count += 1;
        h[v as usize] = 1;
        if indeg[v as usize] == 0 {
            queue.push(v);
        }
    }
    let mut head = 0;
    while head < queue.len() {
        let v = queue[head] as usize;
        head += 1;
        for w in succ(v) {
            h[w as usize] = h[w as usize].max(h[v] + 1);
            indeg[w as usize] -= 1;
            if indeg[w as usize] == 0 {
                queue.push(w);
            }
        }
    }
    queue.len() == count
}

/// Neighbour lists of keys below `n`, in one array (compressed rows).
pub(super) struct Adjacency {
    pub(super) start: Vec<u32>,
    pub(super) list: Vec<u32>,
}

impl Adjacency {
    /// Successors (`forward`) or predecessors of every vertex.
    pub(super) fn new(n: usize, edges: &[Edge], forward: bool) -> Adjacency {
        let mut start = vec![0u32; n + 1];
        let end = |e: &Edge| {
            if forward {
                (e.src, e.dst)
            } else {
                (e.dst, e.src)
            }
        };
        for e in edges {
            start[end(e).0 as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut list = vec![0u32; edges.len()];
        for e in edges {
            let (a, b) = end(e);
            list[fill[a as usize] as usize] = b;
            fill[a as usize] += 1;
        }
        Adjacency { start, list }
    }

    pub(super) fn of(&self, v: usize) -> &[u32] {
        &self.list[self.start[v] as usize..self.start[v + 1] as usize]
    }
}

/// The live vertices that count toward the target (as [`super::counted`]: work and at
/// least one edge) during the rounds over the whole edge list; `linked` is scratch, unset
/// before and after.
pub(super) fn counted_live(
    live: &[u32],
    edges: &[Edge],
    work: &[f64],
    linked: &mut [bool],
) -> usize {
    for e in edges {
        linked[e.src as usize] = true;
        linked[e.dst as usize] = true;
    }
    let active = live
        .iter()
        .filter(|&&x| linked[x as usize] && work[x as usize] > 0.0)
        .count();
    for e in edges {
        linked[e.src as usize] = false;
        linked[e.dst as usize] = false;
    }
    active
}

/// What a round over the whole edge list reads to pick its batch: the live edges in
/// candidate order, both adjacencies over them, the heights, and each vertex's work and
/// allowed devices (`k` of them), with the work cap.
pub(super) struct Scan<'a> {
    pub(super) edges: &'a [Edge],
    pub(super) succ: &'a Adjacency,
    pub(super) pred: &'a Adjacency,
    pub(super) h: &'a [u32],
    pub(super) work: &'a [f64],
    pub(super) allowed: &'a [Vec<bool>],
    pub(super) k: usize,
    pub(super) cap: f64,
}

impl Scan<'_> {
    /// The round's greedy scan (rules (i)-(iii) of [`super`]'s module doc, the corrected
    /// (iii), the work cap and the device rule): edges in candidate order, a pair accepted
    /// when it passes them and neither end is in the batch yet, stopping once
    /// `active - removed <= target`. `scratch` is unset before and after.
    ///
    /// Rule (ii)'s last clause and rule (iii) read a vertex's neighbours: directly when it
    /// has at most [`FEW`] of them (real graphs, almost always), else through `scratch`, so
    /// that a hub's edges do not each pass over all its neighbours (before session 15, a
    /// round over two ops feeding 40,000 others took 0.5 s this way, quadratic).
    pub(super) fn batch(
        &self,
        active: usize,
        target: usize,
        scratch: &mut BatchScratch,
    ) -> Vec<(u32, u32)> {
        let Scan {
            edges,
            succ,
            pred,
            h,
            work,
            allowed,
            k,
            cap,
        } = *self;
        let mut batch: Vec<(u32, u32)> = Vec::new();
        // Counted vertices the batch removes (a merge with a zero-work vertex removes none).
        let mut removed = 0usize;
        scratch.round += 1;
        let round = scratch.round;
        for e in edges {
            if active - removed <= target {
                break;
            }
            let (u, v) = (e.src, e.dst);
            let (ui, vi) = (u as usize, v as usize);
            let BatchScratch {
                tail_of, head_of, ..
            } = &*scratch;
            let used = |x: usize| tail_of[x] != u32::MAX || head_of[x] != u32::MAX;
            if used(ui) || used(vi) {
                continue;
            }
            if work[ui] + work[vi] > cap {
                continue;
            }
            let (su, pv) = (succ.of(ui), pred.of(vi));
            let only_path = su.len() == 1
                || pv.len() == 1
                || h[vi] == h[ui] + 1
                || if su.len() <= FEW {
                    su.iter().all(|&w| w == v || h[w as usize] > h[vi])
                } else {
                    scratch.lowest_other_than(su, h, ui, v) > h[vi]
                };
            if !only_path {
                continue;
            }
            // Corrected (iii): no cross edge u -> v_j or u_j -> v at v's height.
            let BatchScratch {
                tail_of,
                head_of,
                out,
                into,
                ..
            } = &*scratch;
            let cross_out = if su.len() <= FEW {
                su.iter()
                    .any(|&w| head_of[w as usize] != u32::MAX && h[w as usize] == h[vi])
            } else {
                out.has(round, ui, h[vi])
            };
            let cross_in = || {
                if pv.len() <= FEW {
                    pv.iter().any(|&x| {
                        let vj = tail_of[x as usize];
                        vj != u32::MAX && h[vj as usize] == h[vi]
                    })
                } else {
                    into.has(round, vi, h[vi])
                }
            };
            if cross_out || cross_in() {
                continue;
            }
            if !(0..k).any(|d| allowed[ui][d] && allowed[vi][d]) {
                continue;
            }
            scratch.tail_of[ui] = v;
            scratch.head_of[vi] = u;
            batch.push((u, v));
            // Marks for the hubs: `x -> v` with `H(v)` now refused for every predecessor
            // `x` of `v`, and `u -> y` for every successor `y` of `u`.
            for &x in pv {
                if succ.of(x as usize).len() > FEW {
                    scratch.out.mark(round, x, h[vi]);
                }
            }
            for &y in su {
                if pred.of(y as usize).len() > FEW {
                    scratch.into.mark(round, y, h[vi]);
                }
            }
            if work[ui] > 0.0 && work[vi] > 0.0 {
                removed += 1;
            }
        }
        for &(u, v) in &batch {
            scratch.tail_of[u as usize] = u32::MAX;
            scratch.head_of[v as usize] = u32::MAX;
        }
        scratch.out.more.clear();
        scratch.into.more.clear();
        batch
    }
}

/// Neighbour lists this long or shorter are read directly by [`Scan::batch`].
const FEW: usize = 16;

/// [`Scan::batch`]'s scratch, kept from round to round: the batch's pairs by tail and by
/// head; rule (iii)'s cross edges as marks on hubs (`out` marks `(x, H)` when a successor
/// of `x` at height `H` is a head of the batch, so an edge `x -> v` with `H(v) = H` is
/// refused; `into` marks `(y, H)` when a predecessor of `y` is a tail whose head has height
/// `H`), set when a pair is accepted, at the cost of its ends' degrees (each vertex is in
/// at most one pair a round); and each hub's two lowest successors, for rule (ii)'s last
/// clause, computed once a round when first asked.
pub(super) struct BatchScratch {
    tail_of: Vec<u32>,
    head_of: Vec<u32>,
    out: HeightMarks,
    into: HeightMarks,
    /// Per vertex: the round it was computed in, its lowest successor's height and id, and
    /// the second lowest height (`u32::MAX`: none).
    lowest: Vec<(u32, u32, u32, u32)>,
    round: u32,
}

impl BatchScratch {
    pub(super) fn new(n: usize) -> BatchScratch {
        BatchScratch {
            tail_of: vec![u32::MAX; n],
            head_of: vec![u32::MAX; n],
            out: HeightMarks::new(n),
            into: HeightMarks::new(n),
            lowest: vec![(0, u32::MAX, u32::MAX, u32::MAX); n],
            round: 0,
        }
    }

    /// The lowest height among `u`'s successors `su` other than `v` (`u32::MAX`: none).
    fn lowest_other_than(&mut self, su: &[u32], h: &[u32], u: usize, v: u32) -> u32 {
        if self.lowest[u].0 != self.round {
            let mut best = (self.round, u32::MAX, u32::MAX, u32::MAX);
            for &w in su {
                let hw = h[w as usize];
                if hw < best.1 {
                    best = (self.round, hw, w, best.1);
                } else if hw < best.3 {
                    best.3 = hw;
                }
            }
            self.lowest[u] = best;
        }
        let (_, h1, w1, h2) = self.lowest[u];
        if w1 == v {
            h2
        } else {
            h1
        }
    }
}

/// A set of (vertex, height) pairs for one round: one height per vertex in an array
/// stamped with the round (so nothing is unset between rounds), the rare second and later
/// ones in a set cleared after the round (looked up only, never iterated).
struct HeightMarks {
    /// Per vertex: the round of its first mark, its height, and whether it has more.
    one: Vec<(u32, u32, bool)>,
    more: HashSet<(u32, u32)>,
}

impl HeightMarks {
    fn new(n: usize) -> HeightMarks {
        HeightMarks {
            one: vec![(0, 0, false); n],
            more: HashSet::new(),
        }
    }

    fn mark(&mut self, round: u32, x: u32, height: u32) {
        let one = &mut self.one[x as usize];
        if one.0 != round {
            *one = (round, height, false);
        } else if one.1 != height {
            one.2 = true;
            self.more.insert((x, height));
        }
    }

    fn has(&self, round: u32, x: usize, height: u32) -> bool {
        let (r, h, more) = self.one[x];
        r == round && (h == height || (more && self.more.contains(&(x as u32, height))))
    }
}

/// The graph's edges as vertex-keyed coarse edges before the first round (keys are the
/// nodes' topological positions `pos`): one per (source, destination), its distinct tensors
/// listed in `tensors` and their bytes summed in increasing tensor id order, in candidate
/// order ([`priority`]).
pub(super) fn first_edges(
    problem: &Problem,
    pos: &[u32],
    tensors: &mut Vec<Vec<u32>>,
) -> Vec<Edge> {
    let g = problem.graph;
    let mut keyed: Vec<(u32, u32, u32)> = g
        .edges
        .iter()
        .filter(|e| e.src != e.dst)
        .map(|e| (pos[e.src as usize], pos[e.dst as usize], e.tensor))
        .collect();
    keyed.sort_unstable();
    keyed.dedup();
    let mut out: Vec<Edge> = Vec::new();
    for (a, b, t) in keyed {
        match out.last_mut() {
            Some(last) if last.src == a && last.dst == b => {
                tensors[last.slot as usize].push(t);
                last.bytes += problem.tensor_bytes[t as usize];
            }
            _ => {
                out.push(Edge {
                    src: a,
                    dst: b,
                    bytes: problem.tensor_bytes[t as usize],
                    slot: tensors.len() as u32,
                });
                tensors.push(vec![t]);
            }
        }
    }
    out.sort_unstable_by(priority);
    out
}
