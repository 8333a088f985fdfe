//! The tests of `msr` (Mayer17 §4.2, eq. 13): scores computed by hand (parallel edges count
//! once, δ on the picking device: the literal reading), the heaps' picks against a
//! brute-force scan (random graphs, rounded ties, the adversarial profiles of docs/cost.md),
//! and simulations that respect dependencies. Not the strategy: that is `schedule/msr.rs`.

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
    let kinds = random_picks(11, 300, 6, None);
    assert!(
        kinds.iter().all(|&c| c > 300),
        "every heap kind is exercised: {kinds:?}"
    );
}

/// As above on at most three devices (many ops share a profile) with a δ so large
/// that `S + δ·count` rounds different `S` to one score: the pick is still the lowest
/// node among the tied (the brute force sums as the scheduler does, [`Msr::score_now`]).
#[test]
fn rounded_ties_in_a_profile_go_to_the_lowest_node() {
    for (seed, delta) in [(5, 2f64.powi(55)), (6, 2f64.powi(60)), (7, 3e17)] {
        let kinds = random_picks(seed, 200, 3, Some(delta));
        assert!(kinds[2] > 500, "multi-device ops: {kinds:?}");
    }
}

/// Picks on random graphs (`cases` of them, up to `max_k` devices) against a brute-force
/// scan: [`naive`] with dyadic weights, or with `delta` given, [`Msr::score_now`] with
/// that δ and α = β = γ = 1 (large enough a δ rounds). Returns the ops of each kind.
fn random_picks(seed: u64, cases: usize, max_k: u64, delta: Option<f64>) -> [usize; 3] {
    let mut rng = Rng::new(seed);
    let mut kinds = [0usize; 3];
    for case in 0..cases {
        // With `delta`, three devices and mostly single parents: many profiles shared.
        let (n, k) = match delta {
            None => (5 + rng.below(40) as usize, 1 + rng.below(max_k) as usize),
            Some(_) => (20 + rng.below(60) as usize, max_k as usize),
        };
        let mut nodes = Vec::new();
        for i in 0..n {
            nodes.push(format!(r#"{{"id":"n{i}","cost":1}}"#));
        }
        // Half the nodes get one parent (sometimes by two parallel edges), the rest
        // up to three random ones.
        let mut edges = Vec::new();
        for b in 1..n as u64 {
            let one = match delta {
                None => rng.below(2) == 0,
                Some(_) => rng.below(4) != 0,
            };
            let parents = if one { 1 } else { rng.below(4) };
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
        let w: Vec<f64> = match delta {
            None => (0..4).map(|_| (rng.below(33) as f64 - 8.0) / 4.0).collect(),
            Some(delta) => vec![1.0, 1.0, 1.0, delta],
        };
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
                .map(|&v| match delta {
                    None => (naive(&s, &p, &placement, v, &busy), v),
                    Some(_) => (s.score_now(v, &view), v),
                })
                .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
            let got = s.pick(d, &view);
            assert_eq!(got, want.map(|x| x.1), "case {case}");
            if let Some(v) = got {
                ready[d as usize].retain(|&x| x != v);
            }
        }
    }
    kinds
}

/// Eq. 13 by a scan of every ready op at each pick ([`Msr::score_now`]; ties to the
/// lowest index): the reference the heaps must reproduce.
struct Scan {
    msr: Msr,
    ready: Vec<Vec<NodeIx>>,
}

impl Scheduler for Scan {
    fn init(&mut self, problem: &Problem, placement: &[DevIx]) {
        self.msr.init(problem, placement);
        self.ready = vec![Vec::new(); problem.device_count()];
    }

    fn ready(&mut self, v: NodeIx, d: DevIx, _: f64) {
        self.ready[d as usize].push(v);
    }

    fn pick(&mut self, d: DevIx, view: &SimView) -> Option<NodeIx> {
        let list = &mut self.ready[d as usize];
        let (at, _) = list
            .iter()
            .enumerate()
            .map(|(at, &v)| (at, (self.msr.score_now(v, view), v)))
            .max_by(|a, b| a.1 .0.total_cmp(&b.1 .0).then(b.1 .1.cmp(&a.1 .1)))?;
        Some(list.swap_remove(at))
    }
}

/// The adversarial shape of docs/cost.md ("Fixed", msr), small: `n` ready ops on d0,
/// each with one single-predecessor successor on d1 and one on d2 (some with a third on
/// d1, two profiles), so d1 and d2 turn busy and idle once per op d0 runs; among them
/// ops whose rank does not depend on the states (`f`, a successor on d0: 7) or on d1's
/// alone (`g`: 3 or 8), so the order depends on every change. The schedule equals the
/// scan's, op for op, under both link models.
#[test]
fn adversarial_profiles_schedule_as_the_scan() {
    let n = 300;
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    for i in 0..n {
        let cost = 1 + i % 3;
        nodes.push(format!(r#"{{"id":"a{i}","cost":{cost}}}"#));
        nodes.push(format!(r#"{{"id":"b{i}","cost":1}}"#));
        nodes.push(format!(r#"{{"id":"c{i}","cost":2}}"#));
        edges.push(format!(r#"{{"src":"a{i}","dst":"b{i}","bytes":1}}"#));
        edges.push(format!(r#"{{"src":"a{i}","dst":"c{i}","bytes":1}}"#));
        if i % 4 == 0 {
            nodes.push(format!(r#"{{"id":"e{i}","cost":1}}"#));
            edges.push(format!(r#"{{"src":"a{i}","dst":"e{i}","bytes":1}}"#));
        }
        if i % 3 == 0 {
            nodes.push(format!(r#"{{"id":"f{i}","cost":1}}"#));
            nodes.push(format!(r#"{{"id":"h{i}","cost":1}}"#));
            edges.push(format!(r#"{{"src":"f{i}","dst":"h{i}","bytes":1}}"#));
        }
        if i % 5 == 0 {
            nodes.push(format!(r#"{{"id":"g{i}","cost":2}}"#));
            nodes.push(format!(r#"{{"id":"j{i}","cost":1}}"#));
            edges.push(format!(r#"{{"src":"g{i}","dst":"j{i}","bytes":1}}"#));
        }
    }
    let g = joined(&nodes, &edges);
    let c = Cluster::uniform(&[1.0, 1.0, 1.0], 4.0, 0.0);
    let p = Problem::new(&g, &c).unwrap();
    let placement: Vec<DevIx> = g
        .nodes
        .iter()
        .map(|node| match node.id.as_bytes()[0] {
            b'a' | b'f' | b'g' | b'h' => 0,
            b'b' | b'e' | b'j' => 1,
            _ => 2,
        })
        .collect();
    let mut s = msr(1.0, 1.0, 1.0, 5.0);
    s.init(&p, &placement);
    assert_eq!(s.profiles.len(), 2, "two profiles on d0");
    for links in [LinkModel::Parallel, LinkModel::Fcfs] {
        let opts = SimOptions {
            links,
            record: true,
        };
        let mut fast = msr(1.0, 1.0, 1.0, 5.0);
        let mut scan = Scan {
            msr: msr(1.0, 1.0, 1.0, 5.0),
            ready: Vec::new(),
        };
        let a = simulate(&p, &placement, &mut fast, &mut FifoLinks::default(), opts);
        let b = simulate(&p, &placement, &mut scan, &mut FifoLinks::default(), opts);
        let (a, b) = (a.trace.unwrap().ops, b.trace.unwrap().ops);
        assert!(
            a.iter()
                .zip(&b)
                .all(|(x, y)| x.0.to_bits() == y.0.to_bits()),
            "{links:?}"
        );
    }
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
