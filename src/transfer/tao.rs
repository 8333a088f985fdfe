//! `tao`: TicTac19's timing-aware ordering (TAO, "TAC" in the MLSys'19 version; §4.2, Eq. 5,
//! Algorithm 2).
//!
//! Per device, with the measured oracle (an op's run time on its device, a recv's transfer
//! time on its link): `|R|` rounds; each round updates the properties of the outstanding
//! recvs (Algorithm 1) and gives the next priority to the least recv under Eq. 5's
//! comparator, `A before B := x != y ? x < y : M+_A < M+_B` with `x = min(P_B, M_A)` and
//! `y = min(P_A, M_B)` (Johnson's rule on channel time `M` and compute time `P`; the `M+`
//! tie-break is §4.2's case 2).
//!
//! Choices (docs/tictac.md, Readings):
//! - A1: Eq. 5, not Algorithm 2 as printed, which swaps `x` and `y` and picks the worst
//!   order on the worked example.
//! - A2, A3: the comparator is not transitive with the `M+` tie-break (a cycle exists on
//!   real DAGs), so "the minimum" is found by a linear scan in ascending transfer index:
//!   `best` starts at the first outstanding recv and is replaced by each later `c` with
//!   `before(c, best)`. Never a sort: Rust's sort may panic on a non-total order.
//! - Ranks are normalized per link (reading A6) and enforced per §3 ([`RankedLinks`]: least rank
//!   first, ties and unranked transfers at random). Computed once per run, in `init`.
//!
//! Cost: `O(|R|^2 + |R| x holders x |R| / 64)` per device (the rounds' scans, and per
//! round the groups that hold the recv taken, each updated word by word), after
//! `DeviceRecvs::of_run`'s dependency sets, `O((V + E) x |R| / 64)` per device:
//! super-linear by Algorithm 2's definition (`|R|` rounds, each a scan of the outstanding
//! recvs; docs/cost.md). Before issue 24f each round also swept the groups in order of
//! `op.M` to rebuild `M+`, `O(groups x |R| / 64)` a round; now only a round whose updates
//! would cost more does.

use super::recvs::{Bits, DeviceRecvs, Oracle, RankedLinks};
use super::{LinkOrderInfo, Transfer};
use crate::model::cluster::DevIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::rng::Rng;

pub const INFO: LinkOrderInfo = LinkOrderInfo {
    name: "tao",
    summary: "TicTac19 timing-aware order (TAO/TAC, §4.2, Eq. 5): Johnson's rule on transfer and compute time",
    params: &[],
    needs_plan: false,
    make: |_: &Params, rng: Rng| Box::new(RankedLinks::new(rng, tao_ranks)),
    ranking: Some(tao_ranks),
};

/// Eq. 5's comparator: whether recv `a` goes before recv `b`.
pub fn before(a: usize, b: usize, p: &[f64], m: &[f64], m_plus: &[f64]) -> bool {
    let x = p[b].min(m[a]);
    let y = p[a].min(m[b]);
    if x != y {
        x < y
    } else {
        m_plus[a] < m_plus[b]
    }
}

/// TAO's order of one device's recvs: recv positions (into `dev.recv`) by priority.
///
/// The same rounds as recomputing Algorithm 1 each round ([`DeviceRecvs::properties`], kept
/// as the reference in the tests), bit for bit, with the properties kept up to date:
/// - ops with the same dependency set form one group (their outstanding sets are always
///   equal); a group's state only moves from "several outstanding" to "exactly `{r}`" to
///   "none", so a removed recv updates only the groups that contain it, once each;
/// - `P[r]` is re-summed in op order (the reference's summation order) only when an op joins
///   the ops whose outstanding set is `{r}`;
/// - a group's `op.M` is re-summed (ascending recv order per channel, as the reference)
///   only when one of its recvs is removed;
/// - `M+` (the least `op.M` over the groups with two or more outstanding recvs that hold
///   the recv) is kept, not rebuilt each round (issue 24f): only the groups that hold the
///   recv taken change, and a group's `op.M` only falls (its sum loses a non-negative
///   term; rounding is monotone), so a group whose `op.M` fell lowers its recvs' `M+` to
///   it (a minimum is exact whatever the order; one whose largest channel was not the
///   recv's keeps its `op.M` and moves nothing); a group that drops to one outstanding recv
///   leaves, and that recv's `M+` is recomputed from the groups that hold it when the
///   group's `op.M` was that least (should an `op.M` ever rise, its recvs are recomputed).
///   A round whose updates would visit more recvs than a sweep of the groups visits words
///   sweeps instead, as before 24f (in ascending `op.M`, each recv takes the first group's
///   that holds it); either gives the same least.
///
/// The pick is the reference's linear scan under Eq. 5 (reading A3), one comparison per
/// outstanding recv.
pub fn tao_order(dev: &DeviceRecvs) -> Vec<usize> {
    order(dev, |updates, sweep| updates > sweep)
}

/// [`tao_order`], sweeping M+ anew in a round where `sweep_when(updates, sweep)` holds:
/// `updates` the recvs the incremental update would visit, `sweep` the words a sweep
/// would (the tests force either way).
fn order(dev: &DeviceRecvs, sweep_when: impl Fn(usize, usize) -> bool) -> Vec<usize> {
    let nr = dev.recv.len();
    if nr == 0 {
        return Vec::new();
    }
    let words = nr.div_ceil(64);
    let (gbits, gops) = groups(dev);
    let ng = gbits.len();
    let holders = holders(&gbits, nr);
    let mut outstanding = vec![u64::MAX; words];
    if !nr.is_multiple_of(64) {
        outstanding[words - 1] = (1u64 << (nr % 64)) - 1;
    }
    let is_out = |out: &[u64], i: usize| out[i / 64] >> (i % 64) & 1 == 1;
    // Per group: outstanding count, and op.M while it has two or more.
    let mut count: Vec<u32> = gbits
        .iter()
        .map(|b| b.iter().map(|w| w.count_ones()).sum())
        .collect();
    // Channels as dense indices, each with its recvs as a mask; per group and channel the
    // sum of the outstanding recvs' times in ascending recv order (NaN for none: `f64::max`
    // skips it, as the reference skips a channel without recvs).
    let (ch, nc, chmask) = channels(dev, words);
    let channel_sum = |b: &[u64], out: &[u64], c: usize| -> f64 {
        masked_sum(b, out, &chmask[c * words..(c + 1) * words], &dev.time)
    };
    let mut gsum = vec![f64::NAN; ng * nc];
    let mut op_m = vec![0.0f64; ng];
    // Ops whose outstanding set is exactly {r}, and P[r] summed over them in op order.
    let mut single: Vec<Vec<usize>> = vec![Vec::new(); nr];
    let mut dirty: Vec<usize> = Vec::new();
    let mut active: Vec<usize> = Vec::new();
    for g in 0..ng {
        match count[g] {
            1 => {
                let r = first_out(gbits[g], &outstanding);
                single[r].extend_from_slice(&gops[g]);
                dirty.push(r);
            }
            _ => {
                for c in 0..nc {
                    gsum[g * nc + c] = channel_sum(gbits[g], &outstanding, c);
                }
                op_m[g] = gsum[g * nc..(g + 1) * nc]
                    .iter()
                    .fold(0.0, |a, &x| a.max(x));
                active.push(g);
            }
        }
    }
    let mut p = vec![0.0f64; nr];
    let m = &dev.time;
    // M+: per outstanding recv, the least op.M over the groups with two or more
    // outstanding recvs that hold it (infinite for none).
    let mut m_plus = vec![f64::INFINITY; nr];
    for &g in &active {
        lower_within(gbits[g], &outstanding, op_m[g], &mut m_plus);
    }
    // Recvs whose M+ may have risen (its group left or its op.M rose): recomputed; and the
    // groups whose op.M fell: their recvs' M+ lowered. Or, when that would cost more than
    // a sweep of the groups, M+ is swept anew (`sweep_m_plus`).
    let mut stale: Vec<usize> = Vec::new();
    let mut fell: Vec<usize> = Vec::new();
    let mut unset = vec![0u64; words];
    let mut order = Vec::with_capacity(nr);
    for _ in 0..nr {
        for &r in &dirty {
            single[r].sort_unstable();
            p[r] = single[r].iter().fold(0.0, |s, &o| s + dev.op_time[o]);
        }
        dirty.clear();
        let mut best: Option<usize> = None;
        for c in (0..nr).filter(|&c| is_out(&outstanding, c)) {
            if best.is_none_or(|b| before(c, b, &p, m, &m_plus)) {
                best = Some(c);
            }
        }
        let Some(b) = best else { break };
        outstanding[b / 64] &= !(1u64 << (b % 64));
        order.push(b);
        for &g in &holders[b] {
            let g = g as usize;
            count[g] -= 1;
            match count[g] {
                0 => {}
                1 => {
                    // It leaves M+: its last outstanding recv may have taken its op.M
                    // (`m_plus[r] <= op_m[g]` while it held `r`).
                    let r = first_out(gbits[g], &outstanding);
                    single[r].extend_from_slice(&gops[g]);
                    dirty.push(r);
                    if m_plus[r] == op_m[g] {
                        stale.push(r);
                    }
                }
                _ => {
                    let before = op_m[g];
                    gsum[g * nc + ch[b]] = channel_sum(gbits[g], &outstanding, ch[b]);
                    op_m[g] = gsum[g * nc..(g + 1) * nc]
                        .iter()
                        .fold(0.0, |a, &x| a.max(x));
                    if op_m[g] == before {
                        // Its largest channel was not `b`'s: no M+ moves.
                    } else if op_m[g] < before {
                        fell.push(g);
                    } else {
                        // Not seen (a sum of fewer non-negative terms, rounded, is no
                        // larger), but then its recvs are recomputed.
                        stale.extend(Bits::iter_and(gbits[g], &outstanding));
                    }
                }
            }
        }
        let updates = fell.iter().map(|&g| count[g] as usize).sum::<usize>()
            + stale.iter().map(|&r| holders[r].len()).sum::<usize>();
        if sweep_when(updates, active.len() * words) {
            active.retain(|&g| count[g] >= 2);
            sweep_m_plus(
                &mut active,
                &op_m,
                &gbits,
                &outstanding,
                &mut unset,
                &mut m_plus,
            );
            fell.clear();
            stale.clear();
            continue;
        }
        for g in fell.drain(..) {
            lower_within(gbits[g], &outstanding, op_m[g], &mut m_plus);
        }
        for r in stale.drain(..) {
            m_plus[r] = holders[r]
                .iter()
                .map(|&g| g as usize)
                .filter(|&g| count[g] >= 2 && !op_m[g].is_nan())
                .map(|g| op_m[g])
                .fold(f64::INFINITY, f64::min);
        }
    }
    order
}

/// Groups of ops by dependency set, in order of their first op (empty sets never count):
/// each group's set and its ops.
fn groups(dev: &DeviceRecvs) -> (Vec<&[u64]>, Vec<Vec<usize>>) {
    let mut group_of: std::collections::HashMap<&[u64], usize> = Default::default();
    let mut gbits: Vec<&[u64]> = Vec::new();
    let mut gops: Vec<Vec<usize>> = Vec::new();
    for (o, dep) in dev.dep.iter().enumerate() {
        let b = dep.words();
        if b.iter().all(|&w| w == 0) {
            continue;
        }
        let g = *group_of.entry(b).or_insert_with(|| {
            gbits.push(b);
            gops.push(Vec::new());
            gbits.len() - 1
        });
        gops[g].push(o);
    }
    (gbits, gops)
}

/// The groups holding each of the `nr` recvs.
fn holders(gbits: &[&[u64]], nr: usize) -> Vec<Vec<u32>> {
    let mut holders: Vec<Vec<u32>> = vec![Vec::new(); nr];
    for (g, b) in gbits.iter().enumerate() {
        for i in Bits::iter_words(b) {
            holders[i].push(g as u32);
        }
    }
    holders
}

/// The recvs' channels as dense indices (in order of first appearance), their count, and
/// each channel's recvs as a mask of `words` words.
fn channels(dev: &DeviceRecvs, words: usize) -> (Vec<usize>, usize, Vec<u64>) {
    let mut dense: Vec<u32> = Vec::new();
    let ch: Vec<usize> = dev
        .channel
        .iter()
        .map(|&c| match dense.iter().position(|&d| d == c) {
            Some(x) => x,
            None => {
                dense.push(c);
                dense.len() - 1
            }
        })
        .collect();
    let nc = dense.len();
    let mut chmask = vec![0u64; nc * words];
    for (i, &c) in ch.iter().enumerate() {
        chmask[c * words + i / 64] |= 1 << (i % 64);
    }
    (ch, nc, chmask)
}

/// The sum of `time` over the recvs in `b`, `out` and `mask` alike, in ascending recv order
/// (NaN for none).
fn masked_sum(b: &[u64], out: &[u64], mask: &[u64], time: &[f64]) -> f64 {
    let mut sum = f64::NAN;
    for (w, ((&x, &o), &k)) in b.iter().zip(out).zip(mask).enumerate() {
        let mut rest = x & o & k;
        while rest != 0 {
            let i = w * 64 + rest.trailing_zeros() as usize;
            rest &= rest - 1;
            sum = if sum.is_nan() { time[i] } else { sum + time[i] };
        }
    }
    sum
}

/// The first recv of `b` still outstanding in `out` (a group with one outstanding recv).
fn first_out(b: &[u64], out: &[u64]) -> usize {
    let (w, x) = b
        .iter()
        .zip(out)
        .map(|(&x, &o)| x & o)
        .enumerate()
        .find(|&(_, x)| x != 0)
        .expect("a group with one outstanding recv");
    w * 64 + x.trailing_zeros() as usize
}

/// M+ of every outstanding recv anew: the groups of `active` (those with two or more
/// outstanding recvs) in ascending `op.M`, each giving its `op.M` to the recvs no group
/// before it holds (so the least), word by word; `unset` is scratch.
fn sweep_m_plus(
    active: &mut [usize],
    op_m: &[f64],
    gbits: &[&[u64]],
    outstanding: &[u64],
    unset: &mut [u64],
    m_plus: &mut [f64],
) {
    active.sort_by(|&a, &b| op_m[a].total_cmp(&op_m[b]));
    unset.copy_from_slice(outstanding);
    let mut left = outstanding.iter().map(|w| w.count_ones()).sum::<u32>();
    for i in Bits::iter_words(outstanding) {
        m_plus[i] = f64::INFINITY;
    }
    for &g in active.iter() {
        if left == 0 {
            break;
        }
        if op_m[g].is_nan() {
            continue;
        }
        for (w, (u, &x)) in unset.iter_mut().zip(gbits[g]).enumerate() {
            let mut new = *u & x;
            if new == 0 {
                continue;
            }
            *u &= !new;
            left -= new.count_ones();
            while new != 0 {
                let i = w * 64 + new.trailing_zeros() as usize;
                new &= new - 1;
                m_plus[i] = op_m[g];
            }
        }
    }
}

/// Lowers to `value` the M+ of every recv of `bits` that is outstanding (`NaN` lowers
/// none).
fn lower_within(bits: &[u64], outstanding: &[u64], value: f64, m_plus: &mut [f64]) {
    if value.is_nan() {
        return;
    }
    for i in Bits::iter_and(bits, outstanding) {
        m_plus[i] = m_plus[i].min(value);
    }
}

/// The reference: Algorithm 1 recomputed over every op each round.
#[cfg(test)]
pub fn tao_order_reference(dev: &DeviceRecvs) -> Vec<usize> {
    let nr = dev.recv.len();
    let mut outstanding = vec![true; nr];
    let mut order = Vec::with_capacity(nr);
    for _ in 0..nr {
        let (p, m, m_plus) = dev.properties(&outstanding);
        let mut best: Option<usize> = None;
        for c in (0..nr).filter(|&c| outstanding[c]) {
            if best.is_none_or(|b| before(c, b, &p, &m, &m_plus)) {
                best = Some(c);
            }
        }
        let Some(b) = best else { break };
        outstanding[b] = false;
        order.push(b);
    }
    order
}

/// TAO's global rank of every transfer (its round), `None` for transfers that are not recvs.
pub fn tao_ranks(
    problem: &Problem,
    placement: &[DevIx],
    transfers: &[Transfer],
) -> Vec<Option<f64>> {
    let mut rank = vec![None; transfers.len()];
    for dev in DeviceRecvs::of_run(problem, placement, transfers, Oracle::Measured) {
        for (round, i) in tao_order(&dev).into_iter().enumerate() {
            rank[dev.recv[i] as usize] = Some(round as f64);
        }
    }
    rank
}

#[cfg(test)]
mod tests;
