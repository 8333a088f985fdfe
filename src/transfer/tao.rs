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
//! Cost per device: `O(|R|^2)` comparisons for the scans, plus, per op, its recv count
//! times the work of recomputing its `M` (an op's `M` changes each time one of its recvs
//! goes); it was `O(|R| x (ops x |R| / 64 + dependencies))` when every round recomputed
//! every property.

use std::collections::BinaryHeap;

use super::recvs::{DeviceRecvs, Oracle, RankedLinks};
use super::{LinkOrderInfo, Transfer};
use crate::model::cluster::DevIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::rng::Rng;
use crate::util::MaxEntry;

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

/// TAO's priority order of one device's recvs: `|R|` rounds, each taking the least
/// outstanding recv under [`before`] by a linear scan in ascending index.
///
/// The properties are kept up to date incrementally instead of recomputed per round
/// ([`DeviceRecvs::properties`] is the reference; `same_order_as_recomputing_each_round`
/// checks both give the same order): removing a recv touches only the ops that depend on it.
/// Each number is computed as `properties` computes it (`P` summed over an op list in
/// ascending op order, an op's `M+` contribution from its outstanding recvs in ascending
/// order), so the order is the same bits.
pub fn tao_order(dev: &DeviceRecvs) -> Vec<usize> {
    let nr = dev.recv.len();
    let nops = dev.ops.len();
    let mut outstanding = vec![true; nr];
    // The ops depending on each recv, ascending; each op's count of outstanding recvs.
    let mut ops_of: Vec<Vec<u32>> = vec![Vec::new(); nr];
    let mut count = vec![0u32; nops];
    for (o, dep) in dev.dep.iter().enumerate() {
        for i in dep.iter() {
            ops_of[i].push(o as u32);
            count[o] += 1;
        }
    }
    // P: per recv, the ops (ascending) whose only outstanding recv it is, and their sum.
    let mut single: Vec<Vec<u32>> = vec![Vec::new(); nr];
    let mut p = vec![0.0; nr];
    let m = dev.time.clone();
    // M+: per recv, a lazy min-heap of (op M, op, version) over the ops with at least two
    // outstanding recvs, one of them this one.
    let mut version = vec![0u32; nops];
    let mut heaps: Vec<BinaryHeap<MaxEntry<f64, u32, u32>>> = vec![BinaryHeap::new(); nr];
    let mut m_plus = vec![f64::INFINITY; nr];
    let mut ins: Vec<usize> = Vec::new();
    let mut per_channel: Vec<(u32, f64)> = Vec::new();
    // The op's outstanding recvs (ascending) into `ins`, and its M (Algorithm 1).
    let op_m = |o: usize,
                outstanding: &[bool],
                ins: &mut Vec<usize>,
                per_channel: &mut Vec<(u32, f64)>| {
        ins.clear();
        ins.extend(dev.dep[o].iter().filter(|&i| outstanding[i]));
        per_channel.clear();
        for &i in ins.iter() {
            match per_channel.iter_mut().find(|(c, _)| *c == dev.channel[i]) {
                Some((_, s)) => *s += dev.time[i],
                None => per_channel.push((dev.channel[i], dev.time[i])),
            }
        }
        per_channel.iter().map(|x| x.1).fold(0.0, f64::max)
    };
    let sum_p = |ops: &[u32]| ops.iter().fold(0.0, |s, &o| s + dev.op_time[o as usize]);
    let mut dirty: Vec<usize> = Vec::new();
    for o in 0..nops {
        match count[o] {
            0 => {}
            1 => {
                let i = dev.dep[o].iter().next().unwrap_or(0);
                single[i].push(o as u32);
            }
            _ => {
                let om = op_m(o, &outstanding, &mut ins, &mut per_channel);
                for &i in &ins {
                    heaps[i].push(MaxEntry {
                        key: -om,
                        tie: o as u32,
                        data: 0,
                    });
                }
            }
        }
    }
    for i in 0..nr {
        p[i] = sum_p(&single[i]);
        if let Some(top) = heaps[i].peek() {
            m_plus[i] = -top.key;
        }
    }
    let mut order = Vec::with_capacity(nr);
    for _ in 0..nr {
        let mut best: Option<usize> = None;
        for c in (0..nr).filter(|&c| outstanding[c]) {
            if best.is_none_or(|b| before(c, b, &p, &m, &m_plus)) {
                best = Some(c);
            }
        }
        let Some(b) = best else { break };
        outstanding[b] = false;
        order.push(b);
        dirty.clear();
        for &o in &ops_of[b] {
            let o = o as usize;
            count[o] -= 1;
            match count[o] {
                0 => {}
                1 => {
                    // Its M no longer counts anywhere; it now adds its run time to the P of
                    // its last outstanding recv.
                    version[o] += 1;
                    let i = dev.dep[o].iter().find(|&i| outstanding[i]).unwrap_or(b);
                    let at = single[i].partition_point(|&x| x < o as u32);
                    single[i].insert(at, o as u32);
                    p[i] = sum_p(&single[i]);
                    dirty.push(i);
                }
                _ => {
                    version[o] += 1;
                    let om = op_m(o, &outstanding, &mut ins, &mut per_channel);
                    for &i in &ins {
                        heaps[i].push(MaxEntry {
                            key: -om,
                            tie: o as u32,
                            data: version[o],
                        });
                        dirty.push(i);
                    }
                }
            }
        }
        for &i in &dirty {
            let heap = &mut heaps[i];
            while heap
                .peek()
                .is_some_and(|e| e.data != version[e.tie as usize])
            {
                heap.pop();
            }
            m_plus[i] = heap.peek().map_or(f64::INFINITY, |e| -e.key);
        }
    }
    order
}

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
mod tests {
    use super::*;
    use crate::model::LinkModel;
    use crate::schedule::fifo::Fifo;
    use crate::sim::{simulate, SimOptions};
    use crate::testutil::tictac;

    type Case = (
        crate::model::graph::Graph,
        crate::model::cluster::Cluster,
        Vec<DevIx>,
    );

    /// docs/tictac.md, vector V4, the worked example W: reads A (2), B (2), C (1);
    /// op1<-A (2), op2<-{op1, B} (1), op3<-C (6), op4<-{op2, op3} (1), op5<-B (1).
    fn w() -> Case {
        tictac(
            &[("A", 2.0, 0), ("B", 2.0, 0), ("C", 1.0, 0)],
            &[
                ("op1", 2.0, &["A"]),
                ("op2", 1.0, &["op1", "B"]),
                ("op3", 6.0, &["C"]),
                ("op4", 1.0, &["op2", "op3"]),
                ("op5", 1.0, &["B"]),
            ],
        )
    }

    /// TAO's order on the worker, as read names.
    fn order_of((g, c, placement): &Case) -> Vec<String> {
        let p = Problem::new(g, c).unwrap();
        let xs = crate::sim::transfers_of(&p, placement);
        let devs = DeviceRecvs::of_run(&p, placement, &xs, Oracle::Measured);
        let worker = devs.last().unwrap();
        tao_order(worker)
            .into_iter()
            .map(|i| {
                let t = xs[worker.recv[i] as usize].tensor;
                g.nodes[g.tensors[t as usize].src as usize].id.clone()
            })
            .collect()
    }

    /// Makespan of one run with the `tao` link order under fcfs links.
    fn makespan((g, c, placement): &Case) -> f64 {
        let p = Problem::new(g, c).unwrap();
        let mut q = RankedLinks::new(Rng::new(0), tao_ranks);
        let opts = SimOptions {
            links: LinkModel::Fcfs,
            record: false,
        };
        simulate(&p, placement, &mut Fifo::new(Rng::new(0)), &mut q, opts).makespan
    }

    /// Round 1 of W: P = (2, 1, 6), M = (2, 2, 1), M+ = (4, 4, 5); C before A and B, A
    /// before B. Round 2: A before B. TAO = [C, A, B], and the run takes 12 (the optimum;
    /// E = 0.8). Algorithm 2 as printed (x and y swapped) would order [B, A, C]: the
    /// comparator's direction is checked on the round-1 values.
    /// The order as first written: every round recomputes every property.
    fn recomputing_each_round(dev: &DeviceRecvs) -> Vec<usize> {
        let nr = dev.recv.len();
        let mut outstanding = vec![true; nr];
        let mut order = Vec::new();
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

    /// Random devices (small integer times, so that ties and the M+ tie-break occur; 1..3
    /// channels; ops depending on 0..all recvs): the incremental order is the recomputed one.
    #[test]
    fn same_order_as_recomputing_each_round() {
        use crate::transfer::recvs::Bits;
        let mut rng = Rng::new(24);
        for case in 0..400 {
            let nr = 1 + rng.below(12) as usize;
            let nops = rng.below(15) as usize;
            let channels = 1 + rng.below(3);
            let density = rng.unit();
            let dep: Vec<Bits> = (0..nops)
                .map(|_| {
                    let mut b = Bits::new(nr);
                    for i in 0..nr {
                        if rng.unit() < density {
                            b.insert(i);
                        }
                    }
                    b
                })
                .collect();
            let dev = DeviceRecvs {
                recv: (0..nr as u32).collect(),
                channel: (0..nr).map(|_| rng.below(channels) as u32).collect(),
                time: (0..nr).map(|_| rng.below(4) as f64 * 0.5).collect(),
                ops: (0..nops as u32).collect(),
                op_time: (0..nops).map(|_| rng.below(4) as f64 * 0.1).collect(),
                dep,
            };
            assert_eq!(tao_order(&dev), recomputing_each_round(&dev), "case {case}");
        }
    }

    #[test]
    fn worked_example_w() {
        let case = w();
        assert_eq!(order_of(&case), ["C", "A", "B"]);
        let (p, m, m_plus) = ([2.0, 1.0, 6.0], [2.0, 2.0, 1.0], [4.0, 4.0, 5.0]);
        assert!(before(2, 0, &p, &m, &m_plus) && !before(0, 2, &p, &m, &m_plus));
        assert!(before(0, 1, &p, &m, &m_plus) && !before(1, 0, &p, &m, &m_plus));
        let (g, c, placement) = &case;
        let prob = Problem::new(g, c).unwrap();
        let xs = crate::sim::transfers_of(&prob, placement);
        let dev = &DeviceRecvs::of_run(&prob, placement, &xs, Oracle::Measured)[1];
        assert_eq!(
            dev.properties(&[true; 3]),
            (p.to_vec(), m.to_vec(), m_plus.to_vec())
        );
        assert_eq!(makespan(&case), 12.0);
    }

    /// docs/tictac.md, vector V2 (Fig. 4a): A (1) -> oA (3), B (2) -> oB (1), independent:
    /// min(P_B, M_A) = 1 < min(P_A, M_B) = 2, so [A, B], makespan 5 (B first: 6).
    #[test]
    fn case_1_is_johnsons_rule() {
        let case = tictac(
            &[("A", 1.0, 0), ("B", 2.0, 0)],
            &[("oA", 3.0, &["A"]), ("oB", 1.0, &["B"])],
        );
        assert_eq!(order_of(&case), ["A", "B"]);
        assert_eq!(makespan(&case), 5.0);
    }

    /// docs/tictac.md V5: x (1); m_i <- {m_(i-1) or x, r_i}, all times 1: [r1, r2, r3, r4],
    /// makespan 5 (E = 1).
    #[test]
    fn seq_4() {
        let case = tictac(
            &[
                ("r1", 1.0, 0),
                ("r2", 1.0, 0),
                ("r3", 1.0, 0),
                ("r4", 1.0, 0),
            ],
            &[
                ("x", 1.0, &[]),
                ("m1", 1.0, &["x", "r1"]),
                ("m2", 1.0, &["m1", "r2"]),
                ("m3", 1.0, &["m2", "r3"]),
                ("m4", 1.0, &["m3", "r4"]),
            ],
        );
        assert_eq!(order_of(&case), ["r1", "r2", "r3", "r4"]);
        assert_eq!(makespan(&case), 5.0);
    }

    /// docs/tictac.md, vector V8: a cyclic comparator (A < B by M+, B < C by M+, C < A by Eq. 5).
    /// The linear scan picks C, then A, B, D: makespan 15, the optimum; no panic.
    #[test]
    fn cyclic_comparator_does_not_panic() {
        let case = tictac(
            &[("A", 3.0, 0), ("B", 1.0, 0), ("C", 3.0, 0), ("D", 3.0, 0)],
            &[
                ("o1", 2.0, &["A", "B", "D"]),
                ("o2", 3.0, &["C"]),
                ("o3", 2.0, &["A"]),
                ("o4", 3.0, &["A", "D"]),
                ("o5", 1.0, &["B"]),
            ],
        );
        let (p, m, m_plus) = (
            [2.0, 1.0, 3.0, 0.0],
            [3.0, 1.0, 3.0, 3.0],
            [6.0, 7.0, f64::INFINITY, 6.0],
        );
        assert!(before(0, 1, &p, &m, &m_plus));
        assert!(before(1, 2, &p, &m, &m_plus));
        assert!(before(2, 0, &p, &m, &m_plus), "the cycle closes");
        assert_eq!(order_of(&case), ["C", "A", "B", "D"]);
        assert_eq!(makespan(&case), 15.0);
    }
}
