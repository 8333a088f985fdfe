//! The live coarse graph of [`super::coarsen`]'s rounds, updated in place (issue 24a): the
//! edges with their tensor lists, predecessor and successor sets, heights with each
//! vertex's multiset of predecessor heights, and the candidate edges grouped by an owning
//! end, so that a round costs what it changes (amortized), not a pass over the graph.
//!
//! Vertices are keyed by the topological position of their first member (which orders
//! them as the final numbering does); a merged pair keeps the lower key, and the slot of
//! the end with more edges (issue 24d: the smaller side's edges move, whichever key it had).
//! Edges refused by rule (ii) are parked until something that decides the refusal changes
//! ([`Live::scan`]).

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};
use std::ops::Bound::{Excluded, Unbounded};

use super::rounds::{candidate_order, kahn_heights, tensor_sum};
use super::works::Works;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;

/// A candidate edge's place in the scan ([`candidate_order`]: summed bytes, highest first,
/// ties by lower (src, dst) key). No two live edges compare equal (one edge per (src, dst)).
#[derive(Debug, Clone, Copy)]
pub(super) struct Cand {
    pub(super) bytes: f64,
    pub(super) src: u32,
    pub(super) dst: u32,
}

impl Ord for Cand {
    fn cmp(&self, o: &Self) -> Ordering {
        candidate_order((self.bytes, self.src, self.dst), (o.bytes, o.src, o.dst))
    }
}

impl PartialOrd for Cand {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl PartialEq for Cand {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}

impl Eq for Cand {}

/// One coarse edge: its distinct tensors in increasing id order, `bytes` their sum in that
/// order (as [`super::coarse_edges`] sums them), the end whose candidate list holds it, and
/// whether it is still a candidate (an edge refused for the work cap or the devices is
/// refused for as long as its ends stay: a kept end's work only grows and its devices only
/// shrink; an edge whose end moves or that a moved edge joins is a candidate again).
struct Link {
    tensors: Vec<u32>,
    bytes: f64,
    owner: u32,
    cand: bool,
    /// The stamp of its parking (see [`Live::park`]) while it is parked, else 0.
    parked: u64,
}

/// A parked edge's entry in a watch list: `(src, dst, stamp, witness)`; stale once the
/// edge is woken, removed or parked again (stamps are never reused: 64 bits, one per
/// parking).
type Watch = (u32, u32, u64, u32);

/// Union of two increasing lists of distinct ids.
fn union(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// What the scan makes of a candidate edge.
enum Verdict {
    Accept,
    /// Refused this round (an end used, or rule (iii)).
    NotNow,
    /// Refused by rule (ii), with a witness: parked until something it depends on changes.
    Park(u32),
    /// Refused for as long as its ends stay (work cap, devices).
    Never,
}

#[cfg(test)]
thread_local! {
    /// What the parking and the re-keying did on this thread, for the tests: edges parked by
    /// the scan, parked again when woken (still refused), woken back into the candidates;
    /// kept slots given a lower key, and their edges re-keyed in other vertices' lists.
    pub(super) static PARKING: std::cell::Cell<[u64; 5]> = const { std::cell::Cell::new([0; 5]) };
}

/// Counts a parking or re-keying event for the tests (`PARKING`).
fn parking_event(_i: usize) {
    #[cfg(test)]
    PARKING.with(|c| {
        let mut v = c.get();
        v[_i] += 1;
        c.set(v);
    });
}

/// Rule (ii) for the edge `u -> v` (see [`super`]): `None` when it holds (`|succ(u)| = 1`,
/// `|prec(v)| = 1`, `H(v) = H(u) + 1`, or every other successor of `u` is higher than
/// `v`), else a witness: the first other successor of `u` no higher than `v`.
fn rule_ii_witness(
    succ: &[BTreeMap<u32, u32>],
    pred: &[BTreeSet<u32>],
    h: &[u32],
    u: u32,
    v: u32,
) -> Option<u32> {
    let (ui, vi) = (u as usize, v as usize);
    if succ[ui].len() == 1 || pred[vi].len() == 1 || h[vi] == h[ui] + 1 {
        return None;
    }
    succ[ui]
        .keys()
        .copied()
        .find(|&w| w != v && h[w as usize] <= h[vi])
}

/// An entry of an owner's candidate list: the edge's bytes and the key of its other end.
/// An owner keeps its out-edges and its in-edges in two lists, each in scan order
/// ([`candidate_order`] with the owner's key fixed: bytes, highest first, then the other
/// end's key), an order that does not depend on the owner's own key, so a vertex whose key
/// moves keeps its lists (issue 24d).
#[derive(Debug, Clone, Copy)]
struct Entry {
    bytes: f64,
    other: u32,
}

impl Ord for Entry {
    fn cmp(&self, o: &Self) -> Ordering {
        candidate_order((self.bytes, self.other, 0), (o.bytes, o.other, 0))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}

impl Eq for Entry {}

/// The candidate of `entry` in side `side` (0: out-edges, 1: in-edges) of the list of an
/// owner whose key is `key`.
fn cand_of(key: u32, side: usize, entry: &Entry) -> Cand {
    let (src, dst) = if side == 0 {
        (key, entry.other)
    } else {
        (entry.other, key)
    };
    Cand {
        bytes: entry.bytes,
        src,
        dst,
    }
}

/// The live coarse graph during the rounds. Vertices are held in slots (`key_of`,
/// `slot_of`): a merged pair keeps the slot of the end with more edges, which takes the
/// lower key, so a hub whose key moves keeps its edges where they are (issue 24d; before,
/// the higher key's edges always moved). Every per-vertex array below is by slot.
pub(super) struct Live {
    alive: Vec<bool>,
    /// Live vertices.
    pub(super) live: usize,
    /// Live edges.
    pub(super) edges: usize,
    /// Each slot's key, and each key's slot (`u32::MAX`: no live vertex has that key).
    key_of: Vec<u32>,
    slot_of: Vec<u32>,
    /// Successors: `succ[a][b]` is the edge `a -> b`'s slot in `links`.
    succ: Vec<BTreeMap<u32, u32>>,
    links: Vec<Link>,
    /// Slots of removed edges, for reuse.
    free: Vec<u32>,
    pred: Vec<BTreeSet<u32>>,
    /// Heights (Definition 3.4).
    h: Vec<u32>,
    /// Each vertex's predecessors' heights, with multiplicity.
    predh: Vec<BTreeMap<u32, u32>>,
    /// Candidate edges by owning end: its out-edges and its in-edges, in scan order.
    owned: Vec<[BTreeSet<Entry>; 2]>,
    /// Each vertex's candidate edges held in the other end's lists (re-keyed when its key
    /// moves).
    lent: Vec<u32>,
    /// The first of every non-empty `owned` list.
    heads: BTreeSet<Cand>,
    /// Vertices whose predecessors or their heights changed since the last [`Live::settle`].
    dirty: Vec<u32>,
    tail_of: Vec<u32>,
    head_of: Vec<u32>,
    /// Edges parked for rule (ii) ([`Live::park`]) by their source: woken when it changes
    /// height.
    as_src: Vec<Vec<Watch>>,
    /// Edges parked for rule (ii) by their head and by their witness: woken when it changes
    /// height or is merged away.
    on_height: Vec<Vec<Watch>>,
    /// Parked edges to wake at the next scan (some stale).
    woken: Vec<Watch>,
    /// The last parking's stamp.
    stamp: u64,
}

impl Live {
    /// The coarse graph of a grouping: vertex `x` holds `members[x]` (empty: not live), an
    /// edge the distinct tensors between two vertices; heights by Kahn's algorithm. `None`
    /// when it has a cycle. Slots start as the keys.
    pub(super) fn build(problem: &Problem, members: &[Vec<NodeIx>]) -> Option<Live> {
        let g = problem.graph;
        let n = members.len();
        let mut of = vec![u32::MAX; g.node_count()];
        for (x, ms) in members.iter().enumerate() {
            for &v in ms {
                of[v as usize] = x as u32;
            }
        }
        let mut keyed: Vec<(u32, u32, u32)> = g
            .edges
            .iter()
            .map(|e| (of[e.src as usize], of[e.dst as usize], e.tensor))
            .filter(|&(a, b, _)| a != b)
            .collect();
        keyed.sort_unstable();
        keyed.dedup();
        let mut links: Vec<(u32, u32, Vec<u32>)> = Vec::new();
        for (a, b, t) in keyed {
            match links.last_mut() {
                Some(last) if last.0 == a && last.1 == b => last.2.push(t),
                _ => links.push((a, b, vec![t])),
            }
        }
        let mut degree = vec![0usize; n];
        for &(a, b, _) in &links {
            degree[a as usize] += 1;
            degree[b as usize] += 1;
        }
        let alive: Vec<bool> = members.iter().map(|ms| !ms.is_empty()).collect();
        let mut s = Live {
            live: alive.iter().filter(|&&a| a).count(),
            alive,
            edges: links.len(),
            key_of: (0..n as u32).collect(),
            slot_of: (0..n as u32).collect(),
            succ: (0..n).map(|_| BTreeMap::new()).collect(),
            links: Vec::with_capacity(links.len()),
            free: Vec::new(),
            pred: (0..n).map(|_| BTreeSet::new()).collect(),
            h: vec![1; n],
            predh: (0..n).map(|_| BTreeMap::new()).collect(),
            owned: (0..n).map(|_| [BTreeSet::new(), BTreeSet::new()]).collect(),
            lent: vec![0; n],
            heads: BTreeSet::new(),
            dirty: Vec::new(),
            tail_of: vec![u32::MAX; n],
            head_of: vec![u32::MAX; n],
            as_src: (0..n).map(|_| Vec::new()).collect(),
            on_height: (0..n).map(|_| Vec::new()).collect(),
            woken: Vec::new(),
            stamp: 0,
        };
        for (a, b, tensors) in links {
            let bytes = tensor_sum(problem, &tensors);
            let owner = if degree[b as usize] > degree[a as usize] {
                b
            } else {
                a
            };
            s.succ[a as usize].insert(b, s.links.len() as u32);
            s.links.push(Link {
                tensors,
                bytes,
                owner,
                cand: true,
                parked: 0,
            });
            s.pred[b as usize].insert(a);
            s.add_cand(a, b, bytes, owner);
        }
        s.kahn().then_some(s)
    }

    /// Heights of every live vertex by Kahn's algorithm, and the predecessor heights; false
    /// (heights unusable) when the graph has a cycle.
    fn kahn(&mut self) -> bool {
        let n = self.alive.len();
        let indeg: Vec<u32> = self.pred.iter().map(|p| p.len() as u32).collect();
        let alive = &self.alive;
        let live = (0..n as u32).filter(|&x| alive[x as usize]);
        let succ = &self.succ;
        if !kahn_heights(live, indeg, |x| succ[x].keys().copied(), &mut self.h) {
            return false;
        }
        // Heights may have changed anywhere: every parked edge is woken.
        for x in 0..n {
            self.height_changed(x as u32);
        }
        for x in 0..n {
            let mut m = BTreeMap::new();
            for &p in &self.pred[x] {
                *m.entry(self.h[p as usize]).or_insert(0) += 1;
            }
            self.predh[x] = m;
        }
        self.dirty.clear();
        true
    }

    /// Whether the vertex keyed `key` counts toward the target: live, with work and at
    /// least one edge.
    pub(super) fn counts(&self, key: u32, works: &Works) -> bool {
        let x = self.slot_of[key as usize];
        if x == u32::MAX {
            return false;
        }
        let xi = x as usize;
        self.alive[xi]
            && works.positive(key)
            && !(self.succ[xi].is_empty() && self.pred[xi].is_empty())
    }

    fn degree(&self, x: u32) -> usize {
        self.succ[x as usize].len() + self.pred[x as usize].len()
    }

    /// Inserts `e` into side `side` of `owner`'s list, keeping `heads`.
    fn list_insert(&mut self, owner: u32, side: usize, e: Entry) {
        let key = self.key_of[owner as usize];
        let set = &mut self.owned[owner as usize][side];
        let first = set.first().copied();
        set.insert(e);
        if first.is_none_or(|f| e < f) {
            if let Some(f) = first {
                self.heads.remove(&cand_of(key, side, &f));
            }
            self.heads.insert(cand_of(key, side, &e));
        }
    }

    /// Removes `e` from side `side` of `owner`'s list, keeping `heads`.
    fn list_remove(&mut self, owner: u32, side: usize, e: Entry) {
        let key = self.key_of[owner as usize];
        let set = &mut self.owned[owner as usize][side];
        let first = set.first() == Some(&e);
        set.remove(&e);
        if first {
            self.heads.remove(&cand_of(key, side, &e));
            if let Some(f) = set.first() {
                self.heads.insert(cand_of(key, side, f));
            }
        }
    }

    /// The list side and entry of the edge `a -> b` (slots) in `owner`'s lists, and the
    /// other end.
    fn place(&self, a: u32, b: u32, bytes: f64, owner: u32) -> (usize, Entry, u32) {
        let (side, other) = if owner == a { (0, b) } else { (1, a) };
        let e = Entry {
            bytes,
            other: self.key_of[other as usize],
        };
        (side, e, other)
    }

    /// Makes the edge `a -> b` (slots) a candidate in `owner`'s list.
    fn add_cand(&mut self, a: u32, b: u32, bytes: f64, owner: u32) {
        let (side, e, other) = self.place(a, b, bytes, owner);
        self.list_insert(owner, side, e);
        self.lent[other as usize] += 1;
    }

    /// Takes the edge `a -> b` (slots) out of `owner`'s list.
    fn drop_cand(&mut self, a: u32, b: u32, bytes: f64, owner: u32) {
        let (side, e, other) = self.place(a, b, bytes, owner);
        self.list_remove(owner, side, e);
        self.lent[other as usize] -= 1;
    }

    /// Gives slot `s` the key `key`: its own lists stay (their order does not depend on
    /// it), their heads are re-keyed, and so are its edges held in other vertices' lists.
    fn rekey(&mut self, s: u32, key: u32) {
        let si = s as usize;
        let old = self.key_of[si];
        for side in 0..2 {
            if let Some(f) = self.owned[si][side].first() {
                self.heads.remove(&cand_of(old, side, f));
            }
        }
        // Its candidate edges in the other ends' lists: (owner, side, bytes).
        let mut moved: Vec<(u32, usize, f64)> = Vec::new();
        if self.lent[si] > 0 {
            for (&y, &slot) in &self.succ[si] {
                let l = &self.links[slot as usize];
                if l.cand && l.owner == y {
                    moved.push((y, 1, l.bytes));
                }
            }
            for &p in &self.pred[si] {
                let slot = self.succ[p as usize][&s];
                let l = &self.links[slot as usize];
                if l.cand && l.owner == p {
                    moved.push((p, 0, l.bytes));
                }
            }
        }
        parking_event(3);
        for &(owner, side, bytes) in &moved {
            parking_event(4);
            self.list_remove(owner, side, Entry { bytes, other: old });
        }
        if self.slot_of[old as usize] == s {
            self.slot_of[old as usize] = u32::MAX;
        }
        self.key_of[si] = key;
        self.slot_of[key as usize] = s;
        for side in 0..2 {
            if let Some(f) = self.owned[si][side].first() {
                self.heads.insert(cand_of(key, side, f));
            }
        }
        for &(owner, side, bytes) in &moved {
            self.list_insert(owner, side, Entry { bytes, other: key });
        }
    }

    /// `x`'s height changed: every edge parked on it, in any role, is woken.
    fn height_changed(&mut self, x: u32) {
        let x = x as usize;
        for list in [&mut self.as_src, &mut self.on_height] {
            let woken = std::mem::take(&mut list[x]);
            self.woken.extend(woken);
        }
    }

    /// Parks the candidate `a -> b` (slots; owned by `owner`), refused by rule (ii) with
    /// `witness` (a successor of `a` other than `b`, no higher than `b`): it leaves the
    /// candidates until the witness is merged away or one of the three changes height (see
    /// [`Live::scan`] for why that is exact).
    fn park(&mut self, a: u32, b: u32, bytes: f64, owner: u32, witness: u32) {
        let Some(&slot) = self.succ[a as usize].get(&b) else {
            return;
        };
        self.drop_cand(a, b, bytes, owner);
        self.links[slot as usize].cand = false;
        parking_event(0);
        self.park_slot(slot, a, b, witness);
    }

    /// Parks the edge `u -> v` at `slot` (not a candidate) with `witness`, a fresh stamp.
    fn park_slot(&mut self, slot: u32, u: u32, v: u32, witness: u32) {
        self.stamp += 1;
        self.links[slot as usize].parked = self.stamp;
        let w = (u, v, self.stamp, witness);
        self.as_src[u as usize].push(w);
        self.on_height[v as usize].push(w);
        self.on_height[witness as usize].push(w);
    }

    /// Parked edges woken since the last scan (their stale entries skipped): each is
    /// checked against rule (ii) as the scan would check it (nothing changes the graph
    /// between here and the scan, and the scan's other verdicts cannot accept it), parked
    /// again with a fresh witness when the rule still refuses it, else a candidate again.
    fn wake(&mut self) {
        let woken = std::mem::take(&mut self.woken);
        for (a, b, stamp, old) in woken {
            let Some(&slot) = self.succ[a as usize].get(&b) else {
                continue;
            };
            let link = &mut self.links[slot as usize];
            if link.parked != stamp {
                continue;
            }
            link.parked = 0;
            let (ai, bi) = (a as usize, b as usize);
            let h = &self.h;
            // The old witness first (`O(log)`), then a search.
            let still = self.pred[bi].len() > 1
                && h[bi] != h[ai] + 1
                && self.succ[ai].contains_key(&old)
                && h[old as usize] <= h[bi];
            let witness = if still {
                Some(old)
            } else {
                rule_ii_witness(&self.succ, &self.pred, h, a, b)
            };
            if let Some(w) = witness {
                parking_event(1);
                self.park_slot(slot, a, b, w);
                continue;
            }
            parking_event(2);
            link.cand = true;
            let (bytes, owner) = (link.bytes, link.owner);
            self.add_cand(a, b, bytes, owner);
        }
    }

    fn sub_height(&mut self, x: u32, height: u32) {
        let m = &mut self.predh[x as usize];
        if let Some(c) = m.get_mut(&height) {
            *c -= 1;
            if *c == 0 {
                m.remove(&height);
            }
        }
    }

    fn add_height(&mut self, x: u32, height: u32) {
        *self.predh[x as usize].entry(height).or_insert(0) += 1;
    }

    /// Removes the edge `a -> b` (slots) and returns its tensors and bytes.
    fn detach(&mut self, a: u32, b: u32) -> Option<(Vec<u32>, f64)> {
        let slot = self.succ[a as usize].remove(&b)?;
        self.free.push(slot);
        let link = &mut self.links[slot as usize];
        let (tensors, bytes, owner, cand) = (
            std::mem::take(&mut link.tensors),
            link.bytes,
            link.owner,
            link.cand,
        );
        self.pred[b as usize].remove(&a);
        self.sub_height(b, self.h[a as usize]);
        if cand {
            self.drop_cand(a, b, bytes, owner);
        }
        self.edges -= 1;
        self.dirty.push(b);
        Some((tensors, bytes))
    }

    /// Adds tensors between `a` and `b` (slots): a new edge (with the `bytes` they sum
    /// to), or joined with the edge already there (the union re-summed in id order).
    fn attach(&mut self, problem: &Problem, a: u32, b: u32, tensors: Vec<u32>, bytes: f64) {
        let owner = if self.degree(b) > self.degree(a) {
            b
        } else {
            a
        };
        if let Some(&slot) = self.succ[a as usize].get(&b) {
            let link = &mut self.links[slot as usize];
            let old = (link.cand, link.bytes, link.owner);
            link.tensors = union(&link.tensors, &tensors);
            link.bytes = tensor_sum(problem, &link.tensors);
            link.cand = true;
            link.parked = 0;
            link.owner = owner;
            let bytes = link.bytes;
            if old.0 {
                self.drop_cand(a, b, old.1, old.2);
            }
            self.add_cand(a, b, bytes, owner);
            return;
        }
        let link = Link {
            tensors,
            bytes,
            owner,
            cand: true,
            parked: 0,
        };
        let slot = match self.free.pop() {
            Some(slot) => {
                self.links[slot as usize] = link;
                slot
            }
            None => {
                self.links.push(link);
                self.links.len() as u32 - 1
            }
        };
        self.succ[a as usize].insert(b, slot);
        self.pred[b as usize].insert(a);
        self.add_height(b, self.h[a as usize]);
        self.edges += 1;
        self.dirty.push(b);
        self.add_cand(a, b, bytes, owner);
    }

    /// Contracts the edge `u -> v` (keys): the end with fewer edges moves them to the
    /// other (joining edges already there), which takes the lower key; the other slot is no
    /// longer live. The same coarse graph as moving the higher key's edges to the lower key
    /// (edges are sets of tensors, joined by union), at the cost of the smaller side. An
    /// edge of the kept end keeps its standing: refused for the cap or the devices stays
    /// refused (work only grows, devices only shrink), and a parked edge is woken by the
    /// changes the merge makes (a lost successor, heights). Heights are settled by
    /// [`Live::settle`].
    pub(super) fn merge(&mut self, problem: &Problem, u: u32, v: u32) {
        let (su, sv) = (self.slot_of[u as usize], self.slot_of[v as usize]);
        self.detach(su, sv);
        let (km, ko) = (u.min(v), u.max(v));
        let (sm, so) = (self.slot_of[km as usize], self.slot_of[ko as usize]);
        let (keep, gone) = if self.degree(so) > self.degree(sm) {
            (so, sm)
        } else {
            (sm, so)
        };
        // `gone`'s predecessors lose it as a successor: the edges parked with it as their
        // witness wake (with those it heads, which its merge makes stale); those parked on
        // it as their source move away with its edges, stale too.
        let woken = std::mem::take(&mut self.on_height[gone as usize]);
        self.woken.extend(woken);
        self.as_src[gone as usize].clear();
        let outs: Vec<u32> = self.succ[gone as usize].keys().copied().collect();
        for y in outs {
            if let Some((ts, bytes)) = self.detach(gone, y) {
                self.attach(problem, keep, y, ts, bytes);
            }
        }
        let ins: Vec<u32> = self.pred[gone as usize].iter().copied().collect();
        for p in ins {
            if let Some((ts, bytes)) = self.detach(p, gone) {
                self.attach(problem, p, keep, ts, bytes);
            }
        }
        self.alive[gone as usize] = false;
        self.live -= 1;
        self.slot_of[ko as usize] = u32::MAX;
        if self.key_of[keep as usize] != km {
            self.rekey(keep, km);
        }
        self.dirty.push(keep);
    }
    /// Heights after merges, and the cycle check: from the vertices whose predecessors
    /// changed, each vertex popped (lowest height first) takes `1 + max` of its
    /// predecessors' heights and, when that changes it, passes it on to its successors.
    /// When no vertex is left to update, every live vertex satisfies Definition 3.4's
    /// equation, which a graph with a cycle cannot (along the cycle the heights would have
    /// to rise forever) and a DAG satisfies only with its heights: so the heights are exact
    /// and the graph acyclic. Should the updates cost more than a pass over the graph, Kahn's
    /// algorithm decides instead (exact too). False when the graph has a cycle.
    pub(super) fn settle(&mut self) -> bool {
        let budget = self.live + self.edges + self.dirty.len();
        let mut spent = 0usize;
        let mut heap: BinaryHeap<Reverse<(u32, u32)>> =
            self.dirty.drain(..).map(|x| Reverse((0, x))).collect();
        while let Some(Reverse((_, x))) = heap.pop() {
            let xi = x as usize;
            if !self.alive[xi] {
                continue;
            }
            spent += 1;
            let new = 1 + self.predh[xi].last_key_value().map_or(0, |(&k, _)| k);
            let old = self.h[xi];
            if new == old {
                continue;
            }
            self.h[xi] = new;
            self.height_changed(x);
            let succs: Vec<u32> = self.succ[xi].keys().copied().collect();
            spent += succs.len();
            if spent > budget {
                return self.kahn();
            }
            for y in succs {
                self.sub_height(y, old);
                self.add_height(y, new);
                heap.push(Reverse((self.h[y as usize], y)));
            }
        }
        true
    }

    /// One round's greedy scan (Pesto21 §3.3 rules (i)-(iii) and the device rule, see the
    /// module doc of [`super`]): candidate edges by priority, highest first, the batch of
    /// accepted pairs, stopping once `active - removed <= target`. The candidates are
    /// merged from the owners' lists (an owner's next edge enters when its current one is
    /// refused); an owner in the batch drops its whole list, since every edge of it has a
    /// used end. Edges refused for the cap or the devices leave the candidates.
    ///
    /// Edges refused by rule (ii) are parked (issue 24d): they leave the candidates, watched
    /// by their source `u`, head `v` and a witness `w` (a successor of `u` other than `v`
    /// with `H(w) <= H(v)`), and come back only when `w` is merged away or one of `u`, `v`,
    /// `w` changes height (when `u` or `v` is merged away, or the edge itself goes, its
    /// entries are stale: the edge, if any, is a new candidate). Exact, because while none
    /// of that happens the refusal holds
    /// at every later scan: `w` and `v` stay successors of `u` (so `|succ(u)| > 1`),
    /// `H(w) <= H(v)` and `H(v) != H(u) + 1` stay as they were, and `|prec(v)| > 1` stays
    /// too (were `u` left as `v`'s only predecessor, `H(v)` would become `H(u) + 1`, a
    /// change of `H(v)` or `H(u)`); rule (ii) depends on nothing else (not on the batch, not
    /// on bytes or work). And an edge that the scan would refuse, whatever the verdict (an
    /// owner or an end used, the cap, the devices, rule (ii)), changes nothing of the round
    /// but the edges it lets through after it, which the candidates without it let through
    /// in the same order: the batch is the same. Woken edges are checked again before the
    /// scan ([`Live::wake`]) and parked again while the rule still refuses them. (`u` loses
    /// `w` as a successor only when one of them is merged away: a merge detaches only the
    /// edges of the end that goes. Until session 15 every edge parked on `u` woke whenever
    /// `u` lost any successor, so a hub losing one each round paid `O(log)` per parked edge
    /// per round: two ops feeding 40,000 others, 4,000 rounds, 1.4 s.) Edges refused by
    /// rule (iii) (which depends on the round's batch) or for a used end are examined again
    /// next round, as before. `Live::build` after a fallback starts with nothing parked.
    pub(super) fn scan(
        &mut self,
        active: usize,
        target: usize,
        cap: f64,
        works: &mut Works,
        allowed: &[Vec<bool>],
    ) -> Vec<(u32, u32)> {
        self.wake();
        // The batch by keys, and by slots.
        let mut batch: Vec<(u32, u32)> = Vec::new();
        let mut slots: Vec<(u32, u32)> = Vec::new();
        let mut removed = 0usize;
        // Refused edges (slots), their bytes and owner (and witness).
        let mut never: Vec<(u32, u32, f64, u32)> = Vec::new();
        let mut parked: Vec<(u32, u32, f64, u32, u32)> = Vec::new();
        {
            let Live {
                succ,
                links,
                pred,
                h,
                owned,
                heads,
                tail_of,
                head_of,
                key_of,
                slot_of,
                ..
            } = self;
            let mut firsts = heads.iter().copied().peekable();
            let mut later: BinaryHeap<Reverse<Cand>> = BinaryHeap::new();
            loop {
                if active - removed <= target {
                    break;
                }
                let e = match (firsts.peek(), later.peek()) {
                    (Some(a), Some(Reverse(b))) if b < a => later.pop().map(|r| r.0),
                    (Some(_), _) => firsts.next(),
                    (None, _) => later.pop().map(|r| r.0),
                };
                let Some(e) = e else { break };
                // Keys (the work, the devices, the batch), and slots (the graph).
                let (u, v) = (e.src, e.dst);
                let (su, sv) = (slot_of[u as usize], slot_of[v as usize]);
                let (ui, vi) = (su as usize, sv as usize);
                let Some(owner) = succ[ui].get(&sv).map(|&l| links[l as usize].owner) else {
                    continue;
                };
                let used = |x: usize| tail_of[x] != u32::MAX || head_of[x] != u32::MAX;
                if used(owner as usize) {
                    continue;
                }
                let verdict = if works.over_cap(u, v, cap)
                    || !allowed[u as usize]
                        .iter()
                        .zip(&allowed[v as usize])
                        .any(|(&a, &b)| a && b)
                {
                    Verdict::Never
                } else if used(ui) || used(vi) {
                    Verdict::NotNow
                } else {
                    let (out_u, pv) = (&succ[ui], &pred[vi]);
                    let witness = rule_ii_witness(succ, pred, h, su, sv);
                    // Corrected (iii): no cross edge u -> v_j or u_j -> v at v's height;
                    // through the shorter of the neighbour list and the batch.
                    let cross_out = || {
                        if out_u.len() <= batch.len() {
                            out_u
                                .keys()
                                .any(|&w| head_of[w as usize] != u32::MAX && h[w as usize] == h[vi])
                        } else {
                            slots
                                .iter()
                                .any(|&(_, vj)| h[vj as usize] == h[vi] && out_u.contains_key(&vj))
                        }
                    };
                    let cross_in = || {
                        if pv.len() <= batch.len() {
                            pv.iter().any(|&x| {
                                let vj = tail_of[x as usize];
                                vj != u32::MAX && h[vj as usize] == h[vi]
                            })
                        } else {
                            slots
                                .iter()
                                .any(|&(uj, vj)| h[vj as usize] == h[vi] && pv.contains(&uj))
                        }
                    };
                    if let Some(w) = witness {
                        Verdict::Park(w)
                    } else if !cross_out() && !cross_in() {
                        Verdict::Accept
                    } else {
                        Verdict::NotNow
                    }
                };
                match verdict {
                    Verdict::Accept => {
                        tail_of[ui] = sv;
                        head_of[vi] = su;
                        batch.push((u, v));
                        slots.push((su, sv));
                        if works.positive(u) && works.positive(v) {
                            removed += 1;
                        }
                        continue;
                    }
                    Verdict::Never => never.push((su, sv, e.bytes, owner)),
                    Verdict::Park(w) => parked.push((su, sv, e.bytes, owner, w)),
                    Verdict::NotNow => {}
                }
                let (side, other) = if owner == su { (0, v) } else { (1, u) };
                let entry = Entry {
                    bytes: e.bytes,
                    other,
                };
                let list = &owned[owner as usize][side];
                if let Some(next) = list.range((Excluded(entry), Unbounded)).next() {
                    later.push(Reverse(cand_of(key_of[owner as usize], side, next)));
                }
            }
        }
        for &(u, v) in &slots {
            self.tail_of[u as usize] = u32::MAX;
            self.head_of[v as usize] = u32::MAX;
        }
        for (a, b, bytes, owner) in never {
            if let Some(&slot) = self.succ[a as usize].get(&b) {
                self.links[slot as usize].cand = false;
            }
            self.drop_cand(a, b, bytes, owner);
        }
        for (a, b, bytes, owner, w) in parked {
            self.park(a, b, bytes, owner, w);
        }
        batch
    }

    /// The live vertices' keys, increasing.
    pub(super) fn keys(&self) -> Vec<u32> {
        (0..self.slot_of.len() as u32)
            .filter(|&k| {
                let s = self.slot_of[k as usize];
                s != u32::MAX && self.alive[s as usize]
            })
            .collect()
    }

    /// The live edges `(src key, dst key, bytes)`.
    pub(super) fn edge_list(&self) -> Vec<(u32, u32, f64)> {
        let mut out = Vec::with_capacity(self.edges);
        for (a, s) in self.succ.iter().enumerate() {
            for (&b, &slot) in s {
                out.push((
                    self.key_of[a],
                    self.key_of[b as usize],
                    self.links[slot as usize].bytes,
                ));
            }
        }
        out
    }
}
