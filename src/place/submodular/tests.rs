//! The hand-computed and property tests of `submodular` and `submodular-gi` (Carbonari17's
//! appendix walk-through, the lazy greedy against the plain one) and, in `speed`, the
//! ignored timing run. Not the strategy: that is `place/submodular.rs` and the
//! files beside this one.

use std::cmp::Ordering;

use super::fast::{ordered_bits, FILE_ABOVE};
use super::model::{cmp_f, order, parallel_classes, Cand, NONE};
use super::*;
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::LinkModel;
use crate::model::{cluster::Cluster, graph::Graph};
use crate::place::verify;
use crate::sim::{simulate, SimOptions};
use crate::testutil::{carbonari_appendix, cluster, graph, joined};

/// One round of the plain greedy: every candidate, `f(S)` before it, the choice.
struct Round {
    phi: f64,
    cands: Vec<Cand>,
    chosen: Cand,
}

/// The paper's greedy as written: every round evaluates every (unit, device) pair from
/// scratch (pf counted from the raw predecessor sets) and adds the best.
fn reference(m: &Model, mut rounds: Option<&mut Vec<Round>>) -> Result<Placement> {
    let g = m.problem.graph;
    let preds: Vec<Vec<NodeIx>> = (0..g.node_count() as NodeIx)
        .map(|v| {
            let mut p: Vec<NodeIx> = g.predecessors(v).collect();
            p.sort_unstable();
            p.dedup();
            p
        })
        .collect();
    let mut st = m.state();
    for _ in 0..m.units.len() {
        let (gb, phi) = m.values(&st);
        let mut cands = Vec::new();
        for u in 0..m.units.len() as u32 {
            if st.unit_placed[u as usize] {
                continue;
            }
            for i in 0..m.k as DevIx {
                if !m.feasible(&st, u, i) {
                    continue;
                }
                let mut pf = 1;
                for &j in &m.units.members[u as usize] {
                    if preds[j as usize].is_empty() {
                        continue;
                    }
                    for (v, &d) in st.dev.iter().enumerate() {
                        if d != NONE && d != i && preds[v] == preds[j as usize] {
                            pf += 1;
                        }
                    }
                }
                let x = m.charged(&st, u, i);
                let stepped = m.stepped(&st, u, i);
                cands.push(m.score(&st, u, i, x, pf, stepped, phi, gb[i as usize]));
            }
        }
        let Some(&chosen) = cands.iter().reduce(|a, b| {
            if order(b, a) == Ordering::Greater {
                b
            } else {
                a
            }
        }) else {
            let u = (0..m.units.len() as u32)
                .find(|&u| !st.unit_placed[u as usize])
                .unwrap();
            return Err(m.stuck(&st, u));
        };
        m.add(&mut st, &chosen);
        if let Some(r) = rounds.as_deref_mut() {
            r.push(Round { phi, cands, chosen });
        }
    }
    Ok(st.dev)
}

fn model<'p, 'a>(p: &'p Problem<'a>, improved: bool, params: &Params) -> Model<'p, 'a> {
    Model::new(p, Config::from_params(improved, params))
}

fn fast_trace(m: &Model) -> (Result<Placement>, Vec<(Cand, f64)>) {
    fast_trace_filing(m, FILE_ABOVE)
}

/// The lazy greedy filing its active groups by pf when more than `file_above` are active
/// (0: from the first one).
fn fast_trace_filing(m: &Model, file_above: usize) -> (Result<Placement>, Vec<(Cand, f64)>) {
    let mut t = Vec::new();
    let mut fast = Fast::new(m);
    fast.file_above = file_above;
    let r = fast.run(Some(&mut t));
    (r, t)
}

fn makespan(p: &Problem, placement: &[DevIx]) -> f64 {
    let mut sched =
        (crate::schedule::scheduler("fifo").unwrap().make)(&Params::default(), Rng::new(0));
    let mut queue = (crate::transfer::link_order("fifo").unwrap().make)(
        &Params::default(),
        crate::rng::Rng::new(0),
    );
    simulate(
        p,
        placement,
        sched.as_mut(),
        queue.as_mut(),
        SimOptions {
            links: LinkModel::Parallel,
            record: false,
        },
    )
    .makespan
}

/// The walk-through's three-decimal arithmetic: each f^i truncated, then summed.
fn printed(m: &Model, st_benefit: &[f64], c: &Cand) -> f64 {
    let mut b = st_benefit.to_vec();
    b[c.dev as usize] += c.b;
    b.iter()
        .filter(|&&x| x > 0.0)
        .map(|&x| (m.cfg.g(x) * 1000.0 + 1e-9).floor() / 1000.0)
        .sum()
}

/// Carbonari17 appendix 6.1, Submodular-G: 5 nodes of Figure 1a on CPU1, CPU2, GPU with the
/// costs of Table 5, cap 100. Every candidate of every round, `(node, device, f(S))` as
/// printed (E_ij = node j on device i).
const APPENDIX: [&[(u32, u32, f64)]; 5] = [
    &[
        (1, 1, 1.400),
        (2, 1, 1.392),
        (3, 1, 1.410),
        (4, 1, 1.400),
        (5, 1, 1.396),
        (1, 2, 1.400),
        (2, 2, 1.392),
        (3, 2, 1.410),
        (4, 2, 1.400),
        (5, 2, 1.396),
        (1, 3, 1.407),
        (2, 3, 1.396),
        (3, 3, 1.403),
        (4, 3, 1.407),
        (5, 3, 1.389),
    ],
    &[
        (1, 1, 1.984),
        (2, 1, 1.979),
        (4, 1, 1.984),
        (5, 1, 1.982),
        (1, 2, 2.810),
        (2, 2, 2.806),
        (4, 2, 3.389),
        (5, 2, 2.806),
        (1, 3, 2.817),
        (2, 3, 2.806),
        (4, 3, 3.399),
        (5, 3, 2.799),
    ],
    &[
        (1, 1, 3.973),
        (2, 1, 3.968),
        (5, 1, 3.978),
        (1, 2, 4.799),
        (2, 2, 4.791),
        (5, 2, 4.795),
        (1, 3, 3.843),
        (2, 3, 3.836),
        (5, 3, 3.832),
    ],
    &[
        (2, 1, 5.368),
        (5, 1, 5.371),
        (2, 2, 5.363),
        (5, 2, 5.361),
        (2, 3, 5.236),
        (5, 3, 5.232),
    ],
    &[(2, 1, 5.799), (2, 2, 5.935), (2, 3, 5.808)],
];

/// The appendix's printed values that its own arithmetic contradicts, with what the
/// formulas give (in its three-decimal style):
/// - round 2, E_22: sqrt(1.99) + sqrt(1.94) = 1.410 + 1.392 = 2.802, printed 2.806;
/// - round 3, E_15: uses c = 2 instead of c_{1,5} = 5: b = 2 - 6/100 = 1.94,
///   sqrt(1.99 + 1.94) = 1.982, f = 3.971, printed 3.978 (b = 1.97);
/// - round 4, E_25: 2 - (5 + 4)/100 is 1.91, printed "2 - 0.11 = 1.89";
///   sqrt(1.96 + 1.91) = 1.967, f = 5.366, printed 5.361.
///
/// None changes a round's choice.
const APPENDIX_SLIPS: [(usize, u32, u32, f64); 3] =
    [(1, 2, 2, 2.802), (2, 5, 1, 3.971), (3, 5, 2, 5.366)];

#[test]
fn appendix_walk_through_round_by_round() {
    let (g, c) = carbonari_appendix();
    let p = Problem::new(&g, &c).unwrap();
    let m = model(&p, false, &Params::defaults(PARAMS));
    let mut rounds = Vec::new();
    let placement = reference(&m, Some(&mut rounds)).unwrap();
    // Replay the rounds to know B before each.
    let mut st = m.state();
    for (r, (round, table)) in rounds.iter().zip(APPENDIX).enumerate() {
        let mut ours: Vec<(u32, u32)> = round
            .cands
            .iter()
            .map(|c| (c.node + 1, c.dev + 1))
            .collect();
        let mut theirs: Vec<(u32, u32)> = table.iter().map(|&(j, i, _)| (j, i)).collect();
        ours.sort_unstable();
        theirs.sort_unstable();
        assert_eq!(ours, theirs, "round {}: candidate set", r + 1);
        for &(j, i, f) in table {
            let cand = round
                .cands
                .iter()
                .find(|c| c.node + 1 == j && c.dev + 1 == i)
                .unwrap();
            let value = printed(&m, &st.benefit, cand);
            // f(S ∪ e) = f(S) + Δ, exactly as the greedy compares.
            let exact: f64 = {
                let mut b = st.benefit.clone();
                b[cand.dev as usize] += cand.b;
                b.iter().map(|&x| x.sqrt()).sum()
            };
            assert!((round.phi + cand.value - exact).abs() < 1e-12);
            match APPENDIX_SLIPS
                .iter()
                .find(|s| s.0 == r && s.1 == j && s.2 == i)
            {
                Some(&(_, _, _, right)) => {
                    assert!((value - right).abs() < 1e-9, "round {} E{i}{j}", r + 1);
                    assert!((value - f).abs() > 1e-3);
                }
                None => assert!(
                    (value - f).abs() < 1e-9,
                    "round {} E{i}{j}: {value} vs printed {f}",
                    r + 1
                ),
            }
        }
        m.add(&mut st, &round.chosen);
    }
    // Rounds choose E_13, E_34, E_21, E_15, E_22 (node, device).
    let chosen: Vec<(u32, u32)> = rounds
        .iter()
        .map(|r| (r.chosen.node + 1, r.chosen.dev + 1))
        .collect();
    assert_eq!(chosen, vec![(3, 1), (4, 3), (1, 2), (5, 1), (2, 2)]);
    // f after each round, in closed form (B per device: CPU1, CPU2, GPU).
    let s = f64::sqrt;
    let f_after = [
        s(1.99),
        s(1.99) + s(3.96),
        s(1.99) + s(1.96) + s(3.96),
        s(1.99 + 1.94) + s(1.96) + s(3.96),
        s(1.99 + 1.94) + s(1.96 + 1.90) + s(3.96),
    ];
    for (r, round) in rounds.iter().enumerate() {
        assert!((round.phi + round.chosen.value - f_after[r]).abs() < 1e-12);
    }
    // node1 and node2 on CPU2, node3 and node5 on CPU1, node4 on the GPU.
    assert_eq!(placement, vec![1, 1, 0, 2, 0]);
    // The lazy greedy makes the same choices.
    let (fast, trace) = fast_trace(&m);
    assert_eq!(fast.unwrap(), placement);
    let fast_chosen: Vec<Cand> = trace.iter().map(|t| t.0).collect();
    let ref_chosen: Vec<Cand> = rounds.iter().map(|r| r.chosen).collect();
    assert_eq!(fast_chosen, ref_chosen);
    // The appendix's JCT: 4 + 6 + max(1, 2) + 5 = 17, which the simulator agrees with.
    assert_eq!(makespan(&p, &placement), 17.0);
    verify(&p, &placement).unwrap();
}

/// Submodular-GI on the appendix graph, by hand (b = 2 - (c + placed)/100, no pf;
/// value = (f(S) + Δ) * pf):
/// 1. f = 0, pf = 1: the largest b is node3 on a CPU (1.99), CPU1 by the tie rule.
/// 2. f = sqrt(1.99) = 1.41067. node4 is parallel to node3: pf = 2 off CPU1.
///    node4 on the GPU: (1.41067 + sqrt(1.98)) * 2 = 5.63559; on CPU2:
///    (1.41067 + sqrt(1.96)) * 2 = 5.62135; everything else has pf = 1 (< 2.82).
/// 3. node1, node2, node5 left, pf = 1: the empty CPU2 gives sqrt(b): node1 (c = 4)
///    b = 1.96 -> 1.4; on CPU1 or the GPU gains are ~0.57.
/// 4. B = (1.99, 1.96, 1.98), placed = (1, 4, 2): node5 on CPU1 b = 1.94,
///    gain sqrt(3.93) - sqrt(1.99) = 0.57175; node2 on the GPU b = 1.93, gain
///    sqrt(3.91) - sqrt(1.98) = 0.57025; node5 on CPU2 0.56723 -> node5 on CPU1.
/// 5. node2: CPU1 b = 1.88, gain 0.42797; CPU2 b = 1.90, gain 0.56469; GPU b = 1.93,
///    gain 0.57025 -> GPU.
///
/// Placement CPU2, GPU, CPU1, GPU, CPU1; simulated: node1 0-4 on CPU2, node2 4-9 on
/// the GPU, node3 9-10 on CPU1 with node4 9-11 on the GPU, node5 11-16: makespan 16.
#[test]
fn appendix_graph_improved_by_hand() {
    let (g, c) = carbonari_appendix();
    let p = Problem::new(&g, &c).unwrap();
    let m = model(&p, true, &Params::defaults(PARAMS));
    let mut rounds = Vec::new();
    let placement = reference(&m, Some(&mut rounds)).unwrap();
    let chosen: Vec<(u32, u32)> = rounds
        .iter()
        .map(|r| (r.chosen.node + 1, r.chosen.dev + 1))
        .collect();
    assert_eq!(chosen, vec![(3, 1), (4, 3), (1, 2), (5, 1), (2, 3)]);
    let s = f64::sqrt;
    let r2 = &rounds[1];
    let find = |r: &Round, j: u32, i: u32| {
        *r.cands
            .iter()
            .find(|c| c.node + 1 == j && c.dev + 1 == i)
            .unwrap()
    };
    assert!((find(r2, 4, 3).value - (s(1.99) + s(1.98)) * 2.0).abs() < 1e-12);
    assert!((find(r2, 4, 2).value - (s(1.99) + s(1.96)) * 2.0).abs() < 1e-12);
    assert!((find(r2, 4, 1).value - (s(1.99) + s(1.99 + 1.95) - s(1.99))).abs() < 1e-12);
    assert!((find(&rounds[3], 5, 1).value - (rounds[3].phi + s(3.93) - s(1.99))).abs() < 1e-12);
    assert_eq!(placement, vec![1, 2, 0, 2, 0]);
    assert_eq!(Fast::new(&m).run(None).unwrap(), placement);
    assert_eq!(makespan(&p, &placement), 16.0);
}

/// §2.3 prints b = 2 - (c - placed)/cap; we keep §2.2's "+": the benefit falls as a
/// device fills. GI round 3 above: node1 on the empty CPU2 has b = 2 - 4/100 = 1.96, on
/// CPU1 (placed 1) 2 - (4 + 1)/100 = 1.95 (the printed sign would give 1.97).
#[test]
fn improved_benefit_falls_as_the_device_fills() {
    let (g, c) = carbonari_appendix();
    let p = Problem::new(&g, &c).unwrap();
    let m = model(&p, true, &Params::defaults(PARAMS));
    let mut rounds = Vec::new();
    reference(&m, Some(&mut rounds)).unwrap();
    let r3 = &rounds[2];
    let b = |j: u32, i: u32| {
        r3.cands
            .iter()
            .find(|c| c.node + 1 == j && c.dev + 1 == i)
            .unwrap()
            .b
    };
    assert!((b(1, 2) - 1.96).abs() < 1e-12);
    assert!((b(1, 1) - 1.95).abs() < 1e-12);
    assert!(b(1, 1) < b(1, 2));
}

fn two_devices(extra: &str) -> Cluster {
    cluster(&format!(
        r#"{{"devices":[{{"id":"d0","speed":1{extra}}},{{"id":"d1","speed":1{extra}}}],"bandwidth":1}}"#
    ))
}

/// Parallel = same non-empty predecessor set in the full graph.
/// r -> p -> x, p -> y (x, y parallel); a -> q, a -> z, b -> z (q and z share `a` only:
/// not parallel); sources r, a, b are not parallel to each other.
#[test]
fn parallel_means_same_predecessors() {
    let g = graph(
        r#"{"nodes":[{"id":"r","cost":1},{"id":"p","cost":1},{"id":"x","cost":1},{"id":"y","cost":1},
                     {"id":"a","cost":1},{"id":"b","cost":1},{"id":"q","cost":1},{"id":"z","cost":1}],
            "edges":[{"src":"r","dst":"p"},{"src":"p","dst":"x"},{"src":"p","dst":"y"},{"src":"p","dst":"y"},
                     {"src":"a","dst":"q"},{"src":"a","dst":"z"},{"src":"b","dst":"z"}]}"#,
    );
    let c = two_devices("");
    let p = Problem::new(&g, &c).unwrap();
    let (class, count) = parallel_classes(&p);
    assert_eq!(count, 1);
    assert_eq!(
        class,
        vec![NONE, NONE, 0, 0, NONE, NONE, NONE, NONE],
        "only x and y (two edges p -> y count once)"
    );
}

/// The classes are those of a map keyed by the sorted, deduplicated predecessor set (the
/// first way they were computed): same numbering (the sets' order), same members, on a
/// bundled graph with many classes and repeated edges.
#[test]
fn parallel_classes_as_a_map_by_predecessor_set() {
    let g = Graph::from_json(
        include_str!("../../../graphs/rnnlm_ops_train.json"),
        "rnnlm_ops_train",
    )
    .unwrap();
    let c = two_devices("");
    let p = Problem::new(&g, &c).unwrap();
    let mut by_preds: std::collections::BTreeMap<Vec<NodeIx>, Vec<NodeIx>> = Default::default();
    for v in 0..g.node_count() as NodeIx {
        let mut preds: Vec<NodeIx> = g.predecessors(v).collect();
        preds.sort_unstable();
        preds.dedup();
        if !preds.is_empty() {
            by_preds.entry(preds).or_default().push(v);
        }
    }
    let mut want = vec![NONE; g.node_count()];
    let mut count = 0;
    for members in by_preds.values().filter(|m| m.len() >= 2) {
        for &v in members {
            want[v as usize] = count;
        }
        count += 1;
    }
    assert!(count > 10, "a graph with many classes ({count})");
    assert_eq!(parallel_classes(&p), (want, count as usize));
}

/// `ordered_bits` sorts finite values as `cmp_f` does, `-0.0` and `0.0` alike.
#[test]
fn ordered_bits_follow_cmp_f() {
    let xs = [
        -1e300,
        -2.5,
        -1.0,
        -f64::MIN_POSITIVE,
        -0.0,
        0.0,
        5e-324,
        f64::MIN_POSITIVE,
        1.0,
        1.0 + f64::EPSILON,
        3.0,
        1e300,
        f64::MAX,
    ];
    for &a in &xs {
        for &b in &xs {
            assert_eq!(
                ordered_bits(a).cmp(&ordered_bits(b)),
                cmp_f(a, b),
                "{a} against {b}"
            );
        }
    }
}

/// pf counts from 1 and only parallel nodes on other devices: x placed on d0 (p, its
/// parent, unplaced) gives y pf 2 on d1 and 1 on d0. Round 1 is a 4-way tie on b = 1.99
/// (cost 1, cap 100; x and y on d0 or d1... all nodes cost 1) -> node 0 (p) on d0.
/// We check pf directly on the state after placing x on d0 by hand.
#[test]
fn pf_counts_from_one() {
    let g = graph(
        r#"{"nodes":[{"id":"p","cost":1},{"id":"x","cost":1},{"id":"y","cost":1}],
            "edges":[{"src":"p","dst":"x"},{"src":"p","dst":"y"}]}"#,
    );
    let c = two_devices("");
    let p = Problem::new(&g, &c).unwrap();
    let m = model(&p, false, &Params::defaults(PARAMS));
    let mut f = Fast::new(&m);
    // Place x (unit 1) on d0 by hand, as the fast greedy's bookkeeping would.
    let (gb, phi) = m.values(&f.st);
    let cand = m.score(&f.st, 1, 0, 1.0, 1, false, phi, gb[0]);
    m.add(&mut f.st, &cand);
    f.n_class[0] += 1;
    f.n_class_dev[0] += 1;
    let gid = f.group_of[2] as usize - 1;
    assert_eq!(f.pf(gid, 0), 1);
    assert_eq!(f.pf(gid, 1), 2);
    // b of y on d1: (2 - 1/100) * 2 = 3.98; the first round's b is (2 - 1/100) * 1.
    let (gb, phi) = m.values(&f.st);
    let y1 = m.score(&f.st, 2, 1, 1.0, 2, false, phi, gb[1]);
    assert!((y1.b - 3.98).abs() < 1e-12);
    assert!((cand.b - 1.99).abs() < 1e-12);
}

/// Ties: two equal nodes on two equal devices. Round 1: all four pairs tie -> lowest
/// device (d0), then lowest node (a). Round 2: b on d1 (sqrt(1.99)) beats b on d0.
#[test]
fn ties_go_to_lowest_device_then_node() {
    let g = graph(r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1}]}"#);
    let c = two_devices("");
    let p = Problem::new(&g, &c).unwrap();
    for improved in [false, true] {
        let m = model(&p, improved, &Params::defaults(PARAMS));
        let (r, t) = fast_trace(&m);
        assert_eq!(r.unwrap(), vec![0, 1]);
        assert_eq!((t[0].0.node, t[0].0.dev), (0, 0));
    }
}

/// cap is a hard constraint: costs 3, cap 5 -> each device takes one node
/// (3 + 3 > 5); a third node fits nowhere and the error names cap.
#[test]
fn cap_is_a_constraint() {
    let c = two_devices("");
    let g = graph(r#"{"nodes":[{"id":"a","cost":3},{"id":"b","cost":3},{"id":"c","cost":3}]}"#);
    let p = Problem::new(&g, &c).unwrap();
    let params = Params::defaults(PARAMS).with("cap", 5.0);
    let e = Submodular { improved: false }
        .place(&p, &params, &mut Rng::new(0))
        .unwrap_err()
        .to_string();
    assert!(e.contains("node 'c'") && e.contains("cap = 5"), "{e}");
    let g2 = graph(r#"{"nodes":[{"id":"a","cost":3},{"id":"b","cost":3}]}"#);
    let p2 = Problem::new(&g2, &c).unwrap();
    let placement = Submodular { improved: true }
        .place(&p2, &params, &mut Rng::new(0))
        .unwrap();
    assert_eq!(placement, vec![0, 1]);
    // An exponent outside (0, 1] never reaches the placer: resolving refuses it.
    let o = std::collections::BTreeMap::from([("submodular.g".to_string(), 1.5)]);
    let e = Params::resolve("submodular", PARAMS, &o)
        .unwrap_err()
        .to_string();
    assert!(e.contains("submodular.g"), "{e}");
}

/// A colocation group is one element: cost the sum, one device, memory for all.
/// Group w = {a (cost 2, mem 3), c (cost 2, mem 3)}, b (cost 1), device d0 has memory 5
/// (the group's 6 bytes only fit d1). Round 1 (cap 100): b on d0 has b = 1.99, the
/// group on d1 has b = 2 - 4/100 = 1.96 -> b on d0. Round 2: the group on d1.
#[test]
fn groups_are_one_element() {
    let c = cluster(
        r#"{"devices":[{"id":"d0","speed":1,"memory":5},{"id":"d1","speed":1}],"bandwidth":1}"#,
    );
    let g = graph(
        r#"{"nodes":[{"id":"a","cost":2,"mem":3,"colocate":"w"},{"id":"b","cost":1},{"id":"c","cost":2,"mem":3,"colocate":"w"}]}"#,
    );
    let p = Problem::new(&g, &c).unwrap();
    for improved in [false, true] {
        let m = model(&p, improved, &Params::defaults(PARAMS));
        let (r, t) = fast_trace(&m);
        let placement = r.unwrap();
        assert_eq!(placement, vec![1, 0, 1]);
        assert!((t[1].0.b - 1.96).abs() < 1e-12);
        assert_eq!(t[1].0.node, 0);
        verify(&p, &placement).unwrap();
    }
    let tiny = cluster(r#"{"devices":[{"id":"d0","speed":1,"memory":5}],"bandwidth":1}"#);
    let p = Problem::new(&g, &tiny).unwrap();
    let e = Submodular { improved: false }
        .place(&p, &Params::defaults(PARAMS), &mut Rng::new(0))
        .unwrap_err()
        .to_string();
    assert!(e.contains("colocation group 'w'"), "{e}");
}

/// Memory-aware g (§5), with a linear g (p = 1, so no diversity pull) and cap 10:
/// node costs 1 on d0 and 9 on d1 (time tables), mem 4 each, memory 20 per device.
/// Without the step every node goes to d0 (b = 2 - (placed + 1)/10 >= 1.7 > 1.1 on d1).
/// With mem_step 0.5 (10 bytes): the third node would bring d0 to 12 > 10 -> b = 0
/// there, so it goes to d1 (b = 1.1).
#[test]
fn memory_step_moves_nodes_off_full_devices() {
    let c = cluster(
        r#"{"devices":[{"id":"d0","kind":"fast","speed":1,"memory":20},{"id":"d1","kind":"slow","speed":1,"memory":20}],"bandwidth":1}"#,
    );
    let nodes: Vec<String> = (0..3)
        .map(|i| format!(r#"{{"id":"n{i}","time":{{"fast":1,"slow":9}},"mem":4}}"#))
        .collect();
    let g = joined(&nodes, &[]);
    let p = Problem::new(&g, &c).unwrap();
    let base = Params::defaults(PARAMS).with("g", 1.0).with("cap", 10.0);
    for improved in [false, true] {
        let m = model(&p, improved, &base);
        assert_eq!(Fast::new(&m).run(None).unwrap(), vec![0, 0, 0]);
        let stepped = base.clone().with("mem_step", 0.5);
        let m = model(&p, improved, &stepped);
        assert_eq!(Fast::new(&m).run(None).unwrap(), vec![0, 0, 1]);
        assert_eq!(reference(&m, None).unwrap(), vec![0, 0, 1]);
    }
}

/// Transfer term (§5): a (cost 1) -> b (cost 1), 5 bytes over bandwidth 1 (T = 5),
/// cap 10, two equal devices.
/// Round 1: a and b tie (b = 1.9) -> a on d0. Round 2, b: on d0 placed 1, b = 1.8,
/// gain sqrt(3.7) - sqrt(1.9) = 0.545; on d1 with weight w: b = 2 - (1 + 5w)/10:
/// w = 0: 1.9, gain 1.378 -> d1; w = 3: 0.4, gain 0.632 -> d1; w = 4: -0.1 -> 0 -> d0.
/// Reversed costs (a 2, b 1): b goes first to d0; then a's *successor* is placed and
/// with w = 4, a on d1 has 2 - (2 + 20)/10 < 0 -> 0, on d0 b = 1.7 -> d0.
#[test]
fn transfer_term_keeps_neighbours_together() {
    let c = two_devices("");
    let g = graph(
        r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1}],"edges":[{"src":"a","dst":"b","bytes":5}]}"#,
    );
    let p = Problem::new(&g, &c).unwrap();
    let run = |p: &Problem, w: f64| {
        let params = Params::defaults(PARAMS)
            .with("cap", 10.0)
            .with("transfer", w);
        let m = model(p, false, &params);
        let fast = Fast::new(&m).run(None).unwrap();
        assert_eq!(fast, reference(&m, None).unwrap());
        fast
    };
    assert_eq!(run(&p, 0.0), vec![0, 1]);
    assert_eq!(run(&p, 3.0), vec![0, 1]);
    assert_eq!(run(&p, 4.0), vec![0, 0]);
    let g2 = graph(
        r#"{"nodes":[{"id":"a","cost":2},{"id":"b","cost":1}],"edges":[{"src":"a","dst":"b","bytes":5}]}"#,
    );
    let p2 = Problem::new(&g2, &c).unwrap();
    assert_eq!(run(&p2, 0.0), vec![1, 0]);
    assert_eq!(run(&p2, 4.0), vec![0, 0]);
}

/// A random DAG whose nodes often copy an earlier node's predecessors (so parallel
/// classes of several nodes appear), with random integer-ish costs (ties), groups,
/// device rules, memory, and time tables per kind.
fn random_case(rng: &mut Rng) -> (Graph, Cluster) {
    let n = 2 + rng.below(28) as usize;
    let k = 1 + rng.below(4) as usize;
    let kinds = ["cpu", "gpu"];
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    let mut preds_of: Vec<Vec<usize>> = Vec::new();
    for v in 0..n {
        let mut preds: Vec<usize> = Vec::new();
        if v > 0 && rng.unit() < 0.85 {
            if v > 1 && rng.unit() < 0.5 {
                preds = preds_of[rng.below(v as u64) as usize].clone();
            }
            if preds.is_empty() {
                for _ in 0..1 + rng.below(2) {
                    let u = rng.below(v as u64) as usize;
                    if !preds.contains(&u) {
                        preds.push(u);
                    }
                }
            }
        }
        for &u in &preds {
            edges.push(format!(
                r#"{{"src":"n{u}","dst":"n{v}","bytes":{}}}"#,
                rng.below(6)
            ));
        }
        preds_of.push(preds);
        let cost = if rng.unit() < 0.5 {
            (1 + rng.below(5)) as f64
        } else {
            rng.uniform(0.5, 6.0)
        };
        let mut fields = vec![format!(r#""id":"n{v}""#)];
        if rng.unit() < 0.3 {
            fields.push(format!(
                r#""time":{{"cpu":{},"gpu":{}}}"#,
                1 + rng.below(6),
                1 + rng.below(6)
            ));
        } else {
            fields.push(format!(r#""cost":{cost}"#));
        }
        if rng.unit() < 0.4 {
            fields.push(format!(r#""mem":{}"#, rng.below(5)));
        }
        if rng.unit() < 0.15 {
            fields.push(format!(r#""colocate":"g{}""#, rng.below(3)));
        } else if rng.unit() < 0.1 {
            fields.push(format!(r#""device":"{}""#, kinds[rng.below(2) as usize]));
        }
        nodes.push(format!("{{{}}}", fields.join(",")));
    }
    let devices: Vec<String> = (0..k)
        .map(|d| {
            let mem = if rng.unit() < 0.5 {
                format!(r#","memory":{}"#, 8 + rng.below(20))
            } else {
                String::new()
            };
            format!(
                r#"{{"id":"d{d}","kind":"{}","speed":{}{mem}}}"#,
                kinds[d % 2],
                1 + rng.below(3)
            )
        })
        .collect();
    let g = joined(&nodes, &edges);
    let c = cluster(&format!(
        r#"{{"devices":[{}],"bandwidth":{},"latency":{}}}"#,
        devices.join(","),
        1 + rng.below(3),
        rng.below(2)
    ));
    (g, c)
}

/// The lazy greedy makes exactly the plain greedy's choices (same candidate, same
/// numbers, round by round, or the same error) on random graphs, both variants, with
/// and without the §5 terms and for several g.
#[test]
fn lazy_greedy_equals_plain_greedy() {
    let mut rng = Rng::new(2017);
    let mut compared = 0;
    let mut errors = 0;
    for case in 0..600 {
        let (g, c) = random_case(&mut rng);
        let Ok(p) = Problem::new(&g, &c) else {
            continue;
        };
        let improved = rng.unit() < 0.5;
        let mut params = Params::defaults(PARAMS);
        if rng.unit() < 0.5 {
            params = params.with("cap", [20.0, 40.0, 100.0][rng.below(3) as usize]);
        }
        if rng.unit() < 0.3 {
            params = params.with("g", [0.3, 1.0, 0.75][rng.below(3) as usize]);
        }
        if rng.unit() < 0.3 {
            params = params.with("mem_step", [0.5, 0.8, 1.0][rng.below(3) as usize]);
        }
        if rng.unit() < 0.3 {
            params = params.with("transfer", [0.5, 2.0, 10.0][rng.below(3) as usize]);
        }
        let m = model(&p, improved, &params);
        let mut rounds = Vec::new();
        let plain = reference(&m, Some(&mut rounds));
        let (fast, trace) = fast_trace(&m);
        let plain_chosen: Vec<Cand> = rounds.iter().map(|r| r.chosen).collect();
        let fast_chosen: Vec<Cand> = trace.iter().map(|t| t.0).collect();
        assert_eq!(
            fast_chosen, plain_chosen,
            "case {case}: improved {improved}, {params:?}"
        );
        assert_eq!(fast, plain, "case {case}");
        // Active groups filed by pf from the first one (few are active on these graphs).
        let (filed, trace) = fast_trace_filing(&m, 0);
        let filed_chosen: Vec<Cand> = trace.iter().map(|t| t.0).collect();
        assert_eq!(filed_chosen, plain_chosen, "case {case}: filed");
        assert_eq!(filed, plain, "case {case}: filed");
        match &fast {
            Ok(placement) => verify(&p, placement).unwrap(),
            Err(_) => errors += 1,
        }
        compared += 1;
    }
    assert!(compared > 500, "{compared}");
    assert!(
        errors > 0 && errors < compared / 4,
        "{errors} of {compared}"
    );
}

/// docs/cost.md's adversarial shape for the active groups ("Fixed", submodular), small:
/// `n` sibling pairs under their own source, pinned to one device of three (pf stays 1
/// there) with the cheap sibling placed first, so up to `n` groups are partly placed at
/// once; some pairs pinned to the other devices and some free, so pf buckets of 1, 2 and
/// 3 meet. The lazy greedy makes the plain greedy's choices round by round.
#[test]
fn many_active_groups_as_the_plain_greedy() {
    let n = 40;
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    for i in 0..n {
        let pin = match i % 5 {
            0 | 1 => r#","device":"d0""#.to_string(),
            2 => format!(r#","device":"d{}""#, 1 + i % 2),
            _ => String::new(),
        };
        nodes.push(format!(r#"{{"id":"p{i}","cost":{}{pin}}}"#, 2 + i % 3));
        nodes.push(format!(r#"{{"id":"a{i}","cost":1{pin}}}"#));
        nodes.push(format!(r#"{{"id":"b{i}","cost":{}{pin}}}"#, 3 + i % 4));
        if i % 7 == 0 {
            nodes.push(format!(r#"{{"id":"c{i}","cost":5{pin}}}"#));
            edges.push(format!(r#"{{"src":"p{i}","dst":"c{i}","bytes":1}}"#));
        }
        edges.push(format!(r#"{{"src":"p{i}","dst":"a{i}","bytes":1}}"#));
        edges.push(format!(r#"{{"src":"p{i}","dst":"b{i}","bytes":1}}"#));
    }
    let g = joined(&nodes, &edges);
    let c = cluster(
        r#"{"devices":[{"id":"d0","speed":1},{"id":"d1","speed":2},{"id":"d2","speed":1}],"bandwidth":1}"#,
    );
    let p = Problem::new(&g, &c).unwrap();
    let mut most_active = 0;
    for improved in [false, true] {
        for transfer in [0.0, 2.0] {
            let params = Params::defaults(PARAMS)
                .with("cap", 1e4)
                .with("transfer", transfer);
            let m = model(&p, improved, &params);
            let mut rounds = Vec::new();
            let plain = reference(&m, Some(&mut rounds));
            let plain_chosen: Vec<Cand> = rounds.iter().map(|r| r.chosen).collect();
            // Filed from the first active group, from the ninth (in and out as they
            // complete), never.
            let mut fast_chosen = Vec::new();
            for file_above in [0, FILE_ABOVE, usize::MAX] {
                let (fast, trace) = fast_trace_filing(&m, file_above);
                fast_chosen = trace.iter().map(|t| t.0).collect();
                assert_eq!(
                    fast_chosen, plain_chosen,
                    "improved {improved}, transfer {transfer}, file above {file_above}"
                );
                assert_eq!(fast, plain);
            }
            // How many pairs were partly placed at once (the shape's point).
            let (class_of, _) = parallel_classes(&p);
            let mut placed = std::collections::BTreeMap::new();
            let mut active = 0usize;
            for c in &fast_chosen {
                let cl = class_of[c.node as usize];
                if cl != NONE {
                    let e = placed.entry(cl).or_insert(0);
                    *e += 1;
                    if *e == 1 {
                        active += 1;
                    } else if *e == 2 {
                        active -= 1;
                    }
                    most_active = most_active.max(active);
                }
            }
        }
    }
    assert!(most_active >= 10, "{most_active}");
}

/// With memory a hard constraint, a step at 100% of memory changes nothing.
#[test]
fn memory_step_at_full_memory_is_the_hard_limit() {
    let mut rng = Rng::new(5);
    for _ in 0..100 {
        let (g, c) = random_case(&mut rng);
        let Ok(p) = Problem::new(&g, &c) else {
            continue;
        };
        for improved in [false, true] {
            let off = model(&p, improved, &Params::defaults(PARAMS));
            let on = model(
                &p,
                improved,
                &Params::defaults(PARAMS).with("mem_step", 1.0),
            );
            assert_eq!(Fast::new(&off).run(None), Fast::new(&on).run(None));
        }
    }
}

/// Placement times against `tf-greedy` (ignored; run by hand).
mod speed {
    use super::super::*;
    use crate::model::{cluster::Cluster, graph::Graph};
    use crate::place::tf_greedy::TfGreedy;
    use std::time::Instant;

    /// An inception-like chain of blocks: a split node feeding `width` parallel branches of
    /// `depth` ops each, joined by a concat; op costs drawn at random (so sibling sets are
    /// placed at different rounds and many are partly placed at once).
    pub(super) fn blocks(nodes: usize, width: usize, depth: usize, seed: u64) -> Graph {
        let mut rng = Rng::new(seed);
        let mut ns = Vec::new();
        let mut es = Vec::new();
        let mut prev = "in".to_string();
        ns.push(r#"{"id":"in","op":"Input","cost":1}"#.to_string());
        let mut b = 0;
        while ns.len() + width * depth < nodes {
            let join = format!("b{b}_join");
            for w in 0..width {
                let mut last = prev.clone();
                for d in 0..depth {
                    let id = format!("b{b}_{w}_{d}");
                    let op = if d % 2 == 0 { "Conv2D" } else { "Activation" };
                    ns.push(format!(
                        r#"{{"id":"{id}","op":"{op}","cost":{}}}"#,
                        rng.uniform(1e8, 4e9)
                    ));
                    es.push(format!(
                        r#"{{"src":"{last}","dst":"{id}","bytes":{}}}"#,
                        rng.uniform(1e5, 1e7)
                    ));
                    last = id;
                }
                es.push(format!(r#"{{"src":"{last}","dst":"{join}","bytes":1e6}}"#));
            }
            ns.push(format!(
                r#"{{"id":"{join}","op":"Concatenate","cost":1e7}}"#
            ));
            prev = join;
            b += 1;
        }
        Graph::from_json(
            &format!(
                r#"{{"nodes":[{}],"edges":[{}]}}"#,
                ns.join(","),
                es.join(",")
            ),
            "blocks",
        )
        .unwrap()
    }

    pub(super) fn cluster(k: usize) -> Cluster {
        let devs: Vec<String> = (0..k)
            .map(|i| {
                if i % 3 == 2 {
                    format!(r#"{{"id":"gpu{i}","kind":"gpu","speed":1e12}}"#)
                } else {
                    format!(r#"{{"id":"cpu{i}","kind":"cpu","speed":5e10}}"#)
                }
            })
            .collect();
        crate::testutil::cluster(&format!(
            r#"{{"devices":[{}],"bandwidth":1.2e10,"latency":1e-5,"kinds":{{"gpu":{{"op_speed":{{"Conv2D":5}}}}}}}}"#,
            devs.join(",")
        ))
    }

    /// Fastest of several runs (the machine is shared).
    fn time(p: &Problem, placer: &dyn Placer, params: &Params) -> f64 {
        let reps = if p.node_count() > 1000 { 7 } else { 101 };
        (0..reps)
            .map(|_| {
                let t = Instant::now();
                placer.place(p, params, &mut Rng::new(0)).unwrap();
                t.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
    }

    /// `cargo test --release --lib place::submodular::tests::speed -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn placement_times() {
        let mut cases: Vec<(String, Graph, Cluster)> = Vec::new();
        let inception = Graph::from_json(
            include_str!("../../../graphs/inception_v3_layers.json"),
            "inception_v3_layers",
        )
        .unwrap();
        let large = Cluster::from_json(
            include_str!("../../../graphs/clusters/carbonari_large.json"),
            "large",
        )
        .unwrap();
        cases.push((
            "inception_v3_layers on carbonari_large (60)".into(),
            inception,
            large,
        ));
        for (width, depth) in [(4, 1), (4, 3), (1, 1)] {
            cases.push((
                format!("20k ops, blocks of {width} x {depth}, 50 devices"),
                blocks(20_000, width, depth, 7),
                cluster(50),
            ));
        }
        for (name, g, c) in &cases {
            let p = Problem::new(g, c).unwrap();
            let params = Params::defaults(PARAMS).with("cap", 1e6);
            let tf = time(&p, &TfGreedy, &Params::default());
            let sg = time(&p, &Submodular { improved: false }, &params);
            let si = time(&p, &Submodular { improved: true }, &params);
            let with_transfer = params.clone().with("transfer", 1.0);
            let st = time(&p, &Submodular { improved: false }, &with_transfer);
            println!(
                "{name} ({} nodes): tf-greedy {:.2} ms, submodular {:.2} ms ({:.1}x), \
                 submodular-gi {:.2} ms ({:.1}x), submodular transfer=1 {:.2} ms ({:.1}x)",
                g.node_count(),
                tf * 1e3,
                sg * 1e3,
                sg / tf,
                si * 1e3,
                si / tf,
                st * 1e3,
                st / tf
            );
        }
    }
}
