//! The tests of `tao` (TicTac19 §4.2, Eq. 5, Algorithm 2): the worked example W and the
//! cases computed by hand (Johnson's rule, seq 4), the order against a plain reference on
//! random devices, and a cyclic comparator that must not panic. Not the strategy: that is
//! `transfer/tao.rs`.

use super::*;
use crate::model::LinkModel;
use crate::schedule::fifo::Fifo;
use crate::sim::{simulate, SimOptions};
use crate::testutil::{tictac, V8_OPS, V8_READS};

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

/// Random devices (dependency sets grown as in a DAG: an op's set is the union of some
/// earlier ops' sets plus a few recvs; a few channels; times with many ties and
/// non-dyadic sums, over 64 recvs in some): the incremental order equals the reference's.
#[test]
fn same_order_as_the_reference_on_random_devices() {
    let mut gen = Rng::new(11);
    for case in 0..400 {
        let nr = gen.below(if case % 10 == 0 { 140 } else { 20 }) as usize;
        let nops = gen.below(40) as usize;
        let channels = 1 + gen.below(5) as u32;
        let ties = gen.below(2) == 0;
        let time = |gen: &mut Rng| {
            if ties {
                gen.below(4) as f64
            } else {
                gen.below(1000) as f64 / 7.0
            }
        };
        let mut dep: Vec<Bits> = Vec::new();
        for _ in 0..nops {
            let mut b = Bits::new(nr);
            if !dep.is_empty() {
                for _ in 0..gen.below(3) {
                    let from = gen.below(dep.len() as u64) as usize;
                    let other = dep[from].clone();
                    b.union_with(&other);
                }
            }
            if nr > 0 {
                for _ in 0..gen.below(3) {
                    b.insert(gen.below(nr as u64) as usize);
                }
            }
            dep.push(b);
        }
        let dev = DeviceRecvs {
            recv: (0..nr as u32).collect(),
            channel: (0..nr).map(|_| gen.below(channels as u64) as u32).collect(),
            time: (0..nr).map(|_| time(&mut gen)).collect(),
            ops: (0..nops as u32).collect(),
            op_time: (0..nops).map(|_| time(&mut gen)).collect(),
            dep,
        };
        let reference = tao_order_reference(&dev);
        assert_eq!(tao_order(&dev), reference, "case {case}");
        // Each way of keeping M+ alone: updated every round, swept every round.
        assert_eq!(order(&dev, |_, _| false), reference, "case {case}, updated");
        assert_eq!(order(&dev, |_, _| true), reference, "case {case}, swept");
    }
}

/// docs/tictac.md, vector V8: a cyclic comparator (A < B by M+, B < C by M+, C < A by Eq. 5).
/// The linear scan picks C, then A, B, D: makespan 15, the optimum; no panic.
#[test]
fn cyclic_comparator_does_not_panic() {
    let case = tictac(V8_READS, V8_OPS);
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
