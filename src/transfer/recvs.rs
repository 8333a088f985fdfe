//! TicTac19's model of a device's inbound transfers (§4.1), shared by the `tao` and `tio`
//! link orders, and the enforcement of their ranks on the links (§3).
//!
//! - **Recvs** of device `d` (docs/tictac.md, reading A18): transfers into `d` with
//!   bytes > 0 whose producer has no ancestor on `d` (a leaf of `d`'s partition, TicTac19
//!   §2.4; in a parameter-server replica these are exactly the parameter reads). Other inbound
//!   transfers stay unranked.
//! - **dep(op)** for an op on `d`: the recvs of `d` it depends on directly or transitively,
//!   through any path of the whole graph (Algorithm 1's DFS), as a bitset.
//! - **Properties** (Algorithm 1, "UpdateProperties") over the outstanding recvs `R`:
//!   `op.M` = the largest, over channels (links into `d`, reading A7), of the summed `Time` of
//!   `dep(op) ∩ R` on that channel; a recv's own `M` is its `Time`. `r.P` = summed `Time` of
//!   the ops whose outstanding dependencies are exactly `{r}`; `r.M+` = the least `op.M` over
//!   ops with more than one outstanding dependency including `r` (+inf when there is none).
//!   Only the compute ops of `d` count (reading A9).
//! - **Enforcement** ([`RankedLinks`], §3, readings A5, A6): ranks are normalized per link
//!   (competition rank within the link); a free link sends a transfer drawn uniformly among
//!   the queued ones with the least rank and the queued unranked ones.

use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::rng::Rng;

use super::{LinkOrder, Transfer};

/// A fixed-size set of recv indices (`0..n`) as 64-bit words.
#[derive(Debug, Clone, PartialEq)]
pub struct Bits(Vec<u64>);

impl Bits {
    pub fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }
    pub fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    pub fn contains(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }
    pub fn union_with(&mut self, other: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }
    /// The words (bit `i % 64` of word `i / 64` is member `i`).
    pub fn words(&self) -> &[u64] {
        &self.0
    }
    /// Members, ascending.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        Bits::iter_words(&self.0)
    }
    /// Members of a set given as words, ascending.
    pub fn iter_words(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
        set_bits(words.iter().copied())
    }

    /// The members of both `a` and `b` (words of two sets over the same items), ascending.
    pub fn iter_and<'a>(a: &'a [u64], b: &'a [u64]) -> impl Iterator<Item = usize> + 'a {
        set_bits(a.iter().zip(b).map(|(&x, &y)| x & y))
    }
}

/// The indices of the set bits of `words` (word `w` holds items `64 w ..`), ascending.
fn set_bits(words: impl Iterator<Item = u64>) -> impl Iterator<Item = usize> {
    words.enumerate().flat_map(|(w, word)| {
        let mut rest = word;
        std::iter::from_fn(move || {
            (rest != 0).then(|| {
                let b = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                w * 64 + b
            })
        })
    })
}

/// How long things take, as TicTac19's `Time` oracle sees them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Oracle {
    /// The measured times: an op's run time on its device, a recv's transfer time on its
    /// link (TAO, §4.2).
    Measured,
    /// Eq. 6, the general oracle: 0 for an op, 1 for a recv (TIO, §4.3).
    General,
}

/// The recvs of one device and the dependency sets of its ops.
#[derive(Debug, Clone)]
pub struct DeviceRecvs {
    /// Transfer index of each recv, ascending.
    pub recv: Vec<u32>,
    /// Channel (link index) of each recv.
    pub channel: Vec<u32>,
    /// Time of each recv under the oracle.
    pub time: Vec<f64>,
    /// The compute ops of the device, their times and dependency sets.
    pub ops: Vec<NodeIx>,
    pub op_time: Vec<f64>,
    pub dep: Vec<Bits>,
}

impl DeviceRecvs {
    /// Recvs and dependency sets of every device (docs/tictac.md, reading A18), under `oracle`.
    pub fn of_run(
        problem: &Problem,
        placement: &[DevIx],
        transfers: &[Transfer],
        oracle: Oracle,
    ) -> Vec<DeviceRecvs> {
        let g = problem.graph;
        let n = g.node_count();
        let k = problem.device_count();
        // Devices holding an ancestor of each node, as bitsets over devices.
        let words = k.div_ceil(64);
        let mut anc = vec![0u64; n * words];
        for &v in g.topo_order() {
            for &e in g.in_edges(v) {
                let u = g.edges[e as usize].src as usize;
                let du = placement[u] as usize;
                for w in 0..words {
                    let bit = if du / 64 == w { 1u64 << (du % 64) } else { 0 };
                    anc[v as usize * words + w] |= anc[u * words + w] | bit;
                }
            }
        }
        let has_ancestor_on = |v: NodeIx, d: DevIx| {
            let d = d as usize;
            anc[v as usize * words + d / 64] >> (d % 64) & 1 == 1
        };
        let mut out = Vec::with_capacity(k);
        for d in 0..k as DevIx {
            let mut recv = Vec::new();
            for (x, t) in transfers.iter().enumerate() {
                let producer = g.tensors[t.tensor as usize].src;
                if t.dst == d && t.bytes > 0.0 && !has_ancestor_on(producer, d) {
                    recv.push(x as u32);
                }
            }
            let channel = recv.iter().map(|&x| transfers[x as usize].link).collect();
            let time = recv
                .iter()
                .map(|&x| match oracle {
                    Oracle::Measured => {
                        let t = &transfers[x as usize];
                        problem.cluster.transfer_time(t.src, t.dst, t.bytes)
                    }
                    Oracle::General => 1.0,
                })
                .collect();
            // dep over the whole graph in topological order: a node's set is the union of
            // its producers' sets, plus the recv that carries an input edge into d.
            // A node without recv ancestors keeps no set (`None`, the empty set): on one op
            // with many inputs only that op has one, where a set per node was `O(V x |R|)`.
            let nr = recv.len();
            let mut dep_all: Vec<Option<Bits>> = vec![None; if nr == 0 { 0 } else { n }];
            if nr > 0 {
                for (i, &x) in recv.iter().enumerate() {
                    for &w in &transfers[x as usize].consumers {
                        dep_all[w as usize]
                            .get_or_insert_with(|| Bits::new(nr))
                            .insert(i);
                    }
                }
                for &v in g.topo_order() {
                    for &e in g.in_edges(v) {
                        let u = g.edges[e as usize].src as usize;
                        if u != v as usize {
                            let (a, b) = if u < v as usize {
                                let (lo, hi) = dep_all.split_at_mut(v as usize);
                                (&mut hi[0], &lo[u])
                            } else {
                                let (lo, hi) = dep_all.split_at_mut(u);
                                (&mut lo[v as usize], &hi[0])
                            };
                            if let Some(b) = b {
                                a.get_or_insert_with(|| Bits::new(nr)).union_with(b);
                            }
                        }
                    }
                }
            }
            let ops: Vec<NodeIx> = (0..n as NodeIx)
                .filter(|&v| placement[v as usize] == d)
                .collect();
            let op_time = ops
                .iter()
                .map(|&v| match oracle {
                    Oracle::Measured => problem.exec(v, d),
                    Oracle::General => 0.0,
                })
                .collect();
            let dep = if nr == 0 {
                vec![Bits::new(0); ops.len()]
            } else {
                ops.iter()
                    .map(|&v| dep_all[v as usize].clone().unwrap_or_else(|| Bits::new(nr)))
                    .collect()
            };
            out.push(DeviceRecvs {
                recv,
                channel,
                time,
                ops,
                op_time,
                dep,
            });
        }
        out
    }

    /// Algorithm 1 over the outstanding recvs (`outstanding[i]`): `(P, M, M+)` per recv.
    pub fn properties(&self, outstanding: &[bool]) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let nr = self.recv.len();
        let mut p = vec![0.0; nr];
        let m: Vec<f64> = self.time.clone();
        let mut m_plus = vec![f64::INFINITY; nr];
        let mut per_channel: Vec<(u32, f64)> = Vec::new();
        let mut d: Vec<usize> = Vec::new();
        for (o, dep) in self.dep.iter().enumerate() {
            d.clear();
            d.extend(dep.iter().filter(|&i| outstanding[i]));
            match d.len() {
                0 => {}
                1 => p[d[0]] += self.op_time[o],
                _ => {
                    per_channel.clear();
                    for &i in &d {
                        match per_channel.iter_mut().find(|(c, _)| *c == self.channel[i]) {
                            Some((_, s)) => *s += self.time[i],
                            None => per_channel.push((self.channel[i], self.time[i])),
                        }
                    }
                    let op_m = per_channel.iter().map(|x| x.1).fold(0.0, f64::max);
                    for &i in &d {
                        m_plus[i] = m_plus[i].min(op_m);
                    }
                }
            }
        }
        (p, m, m_plus)
    }
}

/// Ranks normalized per link (reading A6): each ranked transfer's competition rank among the
/// ranked transfers of its link (equal global ranks share a rank). `None` stays unranked.
pub fn per_link(rank: &[Option<f64>], link_of: &[u32]) -> Vec<Option<u32>> {
    let mut out = vec![None; rank.len()];
    let mut by_link: Vec<(u32, f64, usize)> = rank
        .iter()
        .enumerate()
        .filter_map(|(x, r)| r.map(|r| (link_of[x], r, x)))
        .collect();
    by_link.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut i = 0;
    while i < by_link.len() {
        let link = by_link[i].0;
        let start = i;
        // Sorted by rank within the link, equal ranks are adjacent: each takes the position
        // of the first of its run (a scan back to it made long runs of ties quadratic).
        let mut first_equal = i;
        while i < by_link.len() && by_link[i].0 == link {
            if by_link[i].1 != by_link[first_equal].1 {
                first_equal = i;
            }
            out[by_link[i].2] = Some((first_equal - start) as u32);
            i += 1;
        }
    }
    out
}

/// A global rank per transfer (`None`: unranked), as `tao` and `tio` compute it.
pub type Ranking = fn(&Problem, &[DevIx], &[Transfer]) -> Vec<Option<f64>>;

/// TicTac19 §3's enforcement of a [`Ranking`]: ranks per link (reading A6), computed once
/// in the first `init` and kept for the iterations that follow (§5: "all iterations follow
/// the same order"); a free link sends a transfer drawn uniformly among the queued ones with
/// the least rank and the queued unranked ones (reading A5).
pub struct RankedLinks {
    rng: Rng,
    ranking: Ranking,
    rank: Vec<Option<u32>>,
    link_of: Vec<u32>,
    queues: Vec<LinkQueue>,
}

/// One link's queue of transfers under [`RankedLinks`]: the transfers in queue order (a
/// `Vec` that a pop `swap_remove`s from), with the draw's candidates (the unranked ones and
/// those of the least queued rank) flagged in a Fenwick tree over queue positions, so a pop
/// finds the uniformly drawn `n`-th candidate in queue order in `O(log n)` instead of
/// scanning the queue twice. Ranked positions are kept in a set by rank: the least rank is
/// its first entry, and a change of the least rank re-flags only the positions of the two
/// ranks involved.
#[derive(Debug, Clone, Default)]
pub struct LinkQueue {
    q: Vec<u32>,
    /// Whether each position holds a candidate.
    flag: Vec<bool>,
    /// Fenwick tree (1-based) of `flag`, sized to a power of two.
    fen: Vec<u32>,
    candidates: u32,
    /// `(rank, position)` of every queued ranked transfer.
    ranked: std::collections::BTreeSet<(u32, u32)>,
}

impl LinkQueue {
    fn add(&mut self, pos: usize, delta: i32) {
        let mut i = pos + 1;
        while i < self.fen.len() {
            self.fen[i] = self.fen[i].wrapping_add_signed(delta);
            i += i & i.wrapping_neg();
        }
        self.candidates = self.candidates.wrapping_add_signed(delta);
    }

    fn set_flag(&mut self, pos: usize, on: bool) {
        if self.flag[pos] != on {
            self.flag[pos] = on;
            self.add(pos, if on { 1 } else { -1 });
        }
    }

    /// Flags (or unflags) every queued transfer of rank `r`.
    fn flag_rank(&mut self, r: u32, on: bool) {
        let positions: Vec<u32> = self
            .ranked
            .range((r, 0)..=(r, u32::MAX))
            .map(|&(_, p)| p)
            .collect();
        for p in positions {
            self.set_flag(p as usize, on);
        }
    }

    fn least(&self) -> Option<u32> {
        self.ranked.first().map(|&(r, _)| r)
    }

    /// Appends `t` (of rank `rank`) at the end of the queue.
    pub fn push(&mut self, t: u32, rank: Option<u32>) {
        let p = self.q.len();
        self.q.push(t);
        self.flag.push(false);
        if self.fen.len() <= self.q.len() {
            // Grow the tree to the next power of two and rebuild it from the flags.
            let cap = (self.q.len() + 1).next_power_of_two().max(16);
            self.fen = vec![0; cap + 1];
            self.candidates = 0;
            let flags = std::mem::take(&mut self.flag);
            for (i, &f) in flags.iter().enumerate() {
                if f {
                    self.add(i, 1);
                }
            }
            self.flag = flags;
        }
        match rank {
            None => self.set_flag(p, true),
            Some(r) => {
                let old = self.least();
                self.ranked.insert((r, p as u32));
                match old {
                    Some(o) if r > o => {}
                    Some(o) if r == o => self.set_flag(p, true),
                    _ => {
                        if let Some(o) = old {
                            self.flag_rank(o, false);
                        }
                        self.flag_rank(r, true);
                    }
                }
            }
        }
    }

    /// Position of the `k`-th (0-based) candidate in queue order.
    fn nth_candidate(&self, k: u32) -> usize {
        let mut pos = 0;
        let mut rem = k + 1;
        let mut step = (self.fen.len() - 1).next_power_of_two();
        while step > 0 {
            let next = pos + step;
            if next < self.fen.len() && self.fen[next] < rem {
                pos = next;
                rem -= self.fen[next];
            }
            step /= 2;
        }
        pos
    }

    /// Removes and returns a transfer drawn uniformly among the candidates (`rng.below` over
    /// their count, counted in queue order), `None` when the queue is empty; `rank` gives
    /// each transfer's rank.
    pub fn pop(&mut self, rng: &mut Rng, rank: &[Option<u32>]) -> Option<u32> {
        if self.candidates == 0 {
            return None;
        }
        let nth = rng.below(self.candidates as u64) as u32;
        let pick = self.nth_candidate(nth);
        let t = self.q[pick];
        let last = self.q.len() - 1;
        self.set_flag(pick, false);
        let r = rank[t as usize];
        if let Some(r) = r {
            self.ranked.remove(&(r, pick as u32));
        }
        if pick != last {
            let moved = self.q[last];
            let moved_flag = self.flag[last];
            self.set_flag(last, false);
            self.set_flag(pick, moved_flag);
            if let Some(rm) = rank[moved as usize] {
                self.ranked.remove(&(rm, last as u32));
                self.ranked.insert((rm, pick as u32));
            }
        }
        self.q.swap_remove(pick);
        self.flag.pop();
        if let Some(r) = r {
            // `t` was of the least rank: when it was the last one, the next rank's
            // transfers become candidates.
            match self.least() {
                Some(n) if n != r => self.flag_rank(n, true),
                _ => {}
            }
        }
        Some(t)
    }
}

impl RankedLinks {
    pub fn new(rng: Rng, ranking: Ranking) -> RankedLinks {
        RankedLinks {
            rng,
            ranking,
            rank: Vec::new(),
            link_of: Vec::new(),
            queues: Vec::new(),
        }
    }
}

impl LinkOrder for RankedLinks {
    fn init(
        &mut self,
        problem: &Problem,
        placement: &[DevIx],
        transfers: &[Transfer],
        links: usize,
    ) {
        let same = self.link_of.len() == transfers.len()
            && self
                .link_of
                .iter()
                .zip(transfers)
                .all(|(&l, t)| l == t.link);
        if !same || self.rank.len() != transfers.len() {
            self.link_of = transfers.iter().map(|t| t.link).collect();
            self.rank = per_link(
                &(self.ranking)(problem, placement, transfers),
                &self.link_of,
            );
        }
        self.queues = vec![LinkQueue::default(); links];
    }

    fn reseed(&mut self, rng: Rng) {
        self.rng = rng;
    }

    fn push(&mut self, t: u32, _: f64) {
        let rank = self.rank[t as usize];
        self.queues[self.link_of[t as usize] as usize].push(t, rank);
    }

    fn pop(&mut self, link: u32) -> Option<u32> {
        self.queues[link as usize].pop(&mut self.rng, &self.rank)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_are_competition_ranks_within_each_link() {
        let rank = [Some(3.0), Some(0.0), None, Some(3.0), Some(1.0), Some(0.0)];
        let link_of = [0, 0, 0, 0, 1, 1];
        assert_eq!(
            per_link(&rank, &link_of),
            [Some(1), Some(0), None, Some(1), Some(1), Some(0)]
        );
    }

    /// The pop before [`LinkQueue`]: two scans of the queue per pop.
    fn naive_pop(q: &mut Vec<u32>, rng: &mut Rng, rank: &[Option<u32>]) -> Option<u32> {
        let least = q.iter().filter_map(|&t| rank[t as usize]).min();
        let candidate = |t: &u32| rank[*t as usize].is_none() || rank[*t as usize] == least;
        let count = q.iter().filter(|t| candidate(t)).count();
        if count == 0 {
            return None;
        }
        let nth = rng.below(count as u64) as usize;
        let (pick, _) = q
            .iter()
            .enumerate()
            .filter(|(_, t)| candidate(t))
            .nth(nth)?;
        Some(q.swap_remove(pick))
    }

    /// Random pushes and pops (ranks with ties, unranked transfers, lower ranks arriving
    /// late): the same transfers in the same order as the scanning pop, draw for draw.
    #[test]
    fn link_queue_pops_as_the_scan_did() {
        let mut gen = Rng::new(7);
        for case in 0..300u64 {
            let n = 1 + gen.below(80) as usize;
            let ranks = 1 + gen.below(12);
            let rank: Vec<Option<u32>> = (0..n)
                .map(|_| {
                    let r = gen.below(ranks + 1);
                    (r < ranks).then_some(r as u32)
                })
                .collect();
            let (mut a, mut b) = (Rng::new(case), Rng::new(case));
            let mut naive = Vec::new();
            let mut fast = LinkQueue::default();
            let mut next = 0u32;
            while (next as usize) < n || !naive.is_empty() {
                if (next as usize) < n && gen.below(3) < 2 {
                    naive.push(next);
                    fast.push(next, rank[next as usize]);
                    next += 1;
                } else {
                    let x = naive_pop(&mut naive, &mut a, &rank);
                    assert_eq!(fast.pop(&mut b, &rank), x, "case {case}");
                }
            }
            assert_eq!(fast.pop(&mut b, &rank), None);
            assert_eq!(a.below(1 << 40), b.below(1 << 40), "same draws");
        }
    }

    #[test]
    fn bits_iterate_ascending() {
        let mut b = Bits::new(130);
        for i in [129, 3, 64, 0] {
            b.insert(i);
        }
        assert_eq!(b.iter().collect::<Vec<_>>(), [0, 3, 64, 129]);
        assert!(b.contains(64) && !b.contains(65));
    }
}
