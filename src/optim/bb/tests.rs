use super::*;
use crate::model::cluster::Cluster;
use crate::model::graph::Graph;
use crate::pair::Pair;
use crate::rng::Rng;

/// An exhausted search of `p` (no incumbent), fifo or free.
fn optimum<'p, 'a>(p: &'p Problem<'a>, fifo: bool) -> Exact<'p, 'a> {
    let mut bb = Exact::new(p, LinkModel::Fcfs, 1e9, u64::MAX).with_fifo(fifo);
    assert!(bb.run(&mut |_| Ok(())).unwrap(), "exhausted");
    assert_eq!(bb.searched_fifo(), fifo);
    bb
}

/// The makespans of the solution's plans (by priority, strictly) under `fcfs` links
/// with the `fifo` link order, replayed by `given` (strict): what pesto's decoder gets.
fn replayed(p: &Problem, bb: &Exact) -> Vec<f64> {
    let pair = Pair::default().with_links(LinkModel::Fcfs);
    assert_eq!(pair.link_order_name(), "fifo");
    let sol = bb.solution.as_ref().expect("a schedule");
    sol.orders(p, bb)
        .iter()
        .map(|o| {
            let r = pair.simulate(p, &sol.placement, Some(o), false);
            assert_eq!(r.unfinished, 0);
            r.makespan
        })
        .collect()
}

/// The CP model's fifo case (`cp::tests`) for the branch and bound: A(1) -> B(1) on g0,
/// A -> C(1) 5 bytes and B -> D(10) 1 byte, C and D on g1, bandwidth 1. Under `fifo`
/// A's send goes first ([1, 6]), B's [6, 7], D [7, 17]: 17, which the strict replay
/// reproduces; ordered freely, B's send goes first: D [3, 13], C [13, 14]: 14.
#[test]
fn the_fifo_rule_sends_the_earlier_producer_first() {
    let (g, c) = crate::testutil::fifo_case();
    let p = Problem::new(&g, &c).unwrap();
    let bb = optimum(&p, true);
    assert_eq!(bb.incumbent, 17.0);
    assert_eq!(replayed(&p, &bb), [17.0, 17.0]);
    let free = optimum(&p, false);
    assert_eq!(free.incumbent, 14.0);
    // Parallel links have no queue: the rule does not apply.
    let par = Exact::new(&p, LinkModel::Parallel, 1e9, 10).with_fifo(true);
    assert!(!par.searched_fifo());
}

/// A random instance with real-valued run and transfer times: `n` ops, each fed by up
/// to two earlier ones (two output tensors per op, so one producer may send two
/// tensors down one link), `k` devices of different speeds.
fn real_valued(n: usize, k: usize, seed: u64) -> (Graph, Cluster) {
    with_isolated(n, k, seed, 0)
}

/// [`real_valued`] with `isolated` more ops without edges (`i0`, ...).
fn with_isolated(n: usize, k: usize, seed: u64, isolated: usize) -> (Graph, Cluster) {
    let mut rng = Rng::new(seed);
    let mut nodes: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"id":"o{i}","cost":{}}}"#, rng.uniform(1.0, 9.0)))
        .collect();
    for i in 0..isolated {
        nodes.push(format!(
            r#"{{"id":"i{i}","cost":{}}}"#,
            rng.uniform(1.0, 9.0)
        ));
    }
    let mut edges = Vec::new();
    for i in 1..n {
        for _ in 0..2 {
            let j = rng.below(i as u64);
            let t = rng.below(2);
            let bytes = rng.uniform(0.5, 5.0);
            edges.push(format!(
                r#"{{"src":"o{j}","dst":"o{i}","bytes":{bytes},"tensor":"o{j}:{t}"}}"#
            ));
        }
    }
    let g = crate::testutil::joined(&nodes, &edges);
    let devices: Vec<String> = (0..k)
        .map(|d| format!(r#"{{"id":"g{d}","speed":{}}}"#, rng.uniform(0.7, 1.5)))
        .collect();
    let c = crate::testutil::cluster(&format!(
        r#"{{"devices":[{}],"bandwidth":{}}}"#,
        devices.join(","),
        rng.uniform(0.8, 2.0)
    ));
    (g, c)
}

/// On random real-valued instances: the fifo optimum is what the simulator gives when
/// replaying its schedule strictly (and never less by priority), never below the free
/// order's optimum, and no random plan the simulator replays goes below it.
#[test]
fn the_fifo_optimum_is_what_the_simulator_replays_and_is_never_beaten() {
    let pair = Pair::default().with_links(LinkModel::Fcfs);
    for seed in 0..8u64 {
        let (n, k) = (5 + (seed % 3) as usize, 2 + (seed % 2) as usize);
        let (g, c) = real_valued(n, k, seed);
        let p = Problem::new(&g, &c).unwrap();
        let bb = optimum(&p, true);
        let opt = bb.incumbent;
        let got = replayed(&p, &bb);
        assert_eq!(got[1], opt, "seed {seed}: strict replay");
        assert!(got[0] >= opt, "seed {seed}: by priority {} < {opt}", got[0]);
        let free = optimum(&p, false);
        assert!(free.incumbent <= opt, "seed {seed}");
        let mut rng = Rng::new(100 + seed);
        for _ in 0..300 {
            let placement: Vec<DevIx> = (0..n).map(|_| rng.below(k as u64) as DevIx).collect();
            let priority: Vec<f64> = (0..n).map(|_| rng.unit()).collect();
            let r = pair.simulate(&p, &placement, Some(&by_priority(priority)), false);
            assert!(
                r.makespan >= opt,
                "seed {seed}: {placement:?} makes {} < {opt}",
                r.makespan
            );
        }
    }
}

/// The bounds never exceed a schedule's makespan: on random real-valued instances and
/// random plans replayed by the simulator under `fifo` (strict), the placement bound
/// of the plan's placement and of each of its prefixes (in the search's unit order),
/// and the plan's network bound (static heads plus durations plus tails, and one
/// machine per resource over them), are at most the replayed makespan, and the
/// placement bound of the exhausted optimum's prefixes at most that optimum.
#[test]
fn the_bounds_never_exceed_a_replayed_makespan_or_the_optimum() {
    let pair = Pair::default().with_links(LinkModel::Fcfs);
    let slack = |m: f64| m + 1e-9 * m.abs();
    for seed in 0..8u64 {
        let (n, k) = (5 + (seed % 3) as usize, 2 + (seed % 2) as usize);
        let (g, c) = real_valued(n, k, 200 + seed);
        let p = Problem::new(&g, &c).unwrap();
        let mut bb = optimum(&p, true);
        let opt = bb.incumbent;
        let best = bb.solution.as_ref().unwrap().placement.clone();
        let prefixes = |bb: &Exact, full: &[DevIx]| -> Vec<Vec<DevIx>> {
            let mut part = vec![UNPLACED; n];
            let mut out = Vec::new();
            for &u in &bb.unit_order {
                for &v in &bb.units.members[u as usize] {
                    part[v as usize] = full[v as usize];
                }
                out.push(part.clone());
            }
            out
        };
        for part in prefixes(&bb, &best) {
            let lb = bb.partial_bound(&part);
            assert!(
                lb <= slack(opt),
                "seed {seed}: {part:?} bound {lb} > optimum {opt}"
            );
        }
        let mut rng = Rng::new(300 + seed);
        for _ in 0..100 {
            let placement: Vec<DevIx> = (0..n).map(|_| rng.below(k as u64) as DevIx).collect();
            let priority: Vec<f64> = (0..n).map(|_| rng.unit()).collect();
            let m = pair
                .simulate(&p, &placement, Some(&by_priority(priority)), false)
                .makespan;
            assert!(m >= opt, "seed {seed}");
            for part in prefixes(&bb, &placement) {
                let lb = bb.partial_bound(&part);
                assert!(lb <= slack(m), "seed {seed}: {part:?} bound {lb} > {m}");
            }
            let net = Network::new(&p, &placement, LinkModel::Fcfs);
            let mut items = Vec::new();
            for a in 0..net.dur.len() {
                let through = net.head[a] + net.dur[a] + net.tail[a];
                assert!(
                    through <= slack(m),
                    "seed {seed}: activity {a}: {through} > {m}"
                );
                if net.res[a] != NONE {
                    items.push((net.res[a], net.head[a], net.dur[a], net.tail[a]));
                }
            }
            let lb = one_machine(&mut items);
            assert!(lb <= slack(m), "seed {seed}: one machine {lb} > {m}");
        }
    }
}

/// The search's placement bound updated from its parent's (only the rows whose inputs
/// changed) is bit for bit the bound computed afresh: on random real-valued instances,
/// some with ops without edges and colocated pairs, along random placements in the
/// search's unit order, the updated heads and tails equal the fresh ones at every step,
/// and so do the bounds; the head rows equal the generic path's (`head_row_any`).
#[test]
fn the_updated_placement_bound_is_the_fresh_one() {
    for seed in 0..12u64 {
        let (n, k) = (6 + (seed % 5) as usize, 2 + (seed % 3) as usize);
        let (mut g, c) = with_isolated(n, k, 500 + seed, (seed % 2) as usize);
        if seed % 3 == 0 {
            // Colocate o1 with o3 (units of two members).
            let mut v: serde_json::Value = serde_json::from_str(&g.to_json()).unwrap();
            for node in v["nodes"].as_array_mut().unwrap() {
                if node["id"] == "o1" || node["id"] == "o3" {
                    node["colocate"] = "pair".into();
                }
            }
            g = Graph::from_json(&v.to_string(), "colocated").unwrap();
        }
        let p = Problem::new(&g, &c).unwrap();
        let total = g.node_count();
        let mut bb = Exact::new(&p, LinkModel::Fcfs, 1e9, u64::MAX).with_fifo(true);
        let mut rng = Rng::new(600 + seed);
        for _ in 0..20 {
            let mut placement = vec![UNPLACED; total];
            let mut heads = Vec::new();
            bb.heads_tails(&placement, &mut heads);
            for depth in 0..bb.unit_order.len() {
                let unit = bb.unit_order[depth];
                let d = rng.below(k as u64) as DevIx;
                for &v in &bb.units.members[unit as usize] {
                    placement[v as usize] = d;
                }
                let mut changed = Vec::new();
                bb.update_heads_tails(&placement, unit, &mut heads, &mut changed);
                let mut fresh = Vec::new();
                bb.heads_tails(&placement, &mut fresh);
                let same = heads
                    .iter()
                    .zip(&fresh)
                    .all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(same, "seed {seed}, depth {depth}: {heads:?} != {fresh:?}");
                // The head rows' fast path (producers' ends once per edge) is the
                // generic one's arithmetic.
                let mut any = fresh.clone();
                for &v in g.topo_order() {
                    bb.head_row_any(&placement, &mut any[..total * k], v);
                }
                let same = any
                    .iter()
                    .zip(&fresh)
                    .all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(same, "seed {seed}, depth {depth}: {any:?} != {fresh:?}");
                let updated = bb.bound_from(&placement, &heads);
                assert_eq!(
                    updated.to_bits(),
                    bb.partial_bound(&placement).to_bits(),
                    "seed {seed}, depth {depth}"
                );
            }
        }
    }
}

/// The probe (the placement sequenced without its units without edges, which prunes
/// every placement of them when nothing is under the incumbent) loses no optimum: on
/// random real-valued instances with one or two ops without edges, the exhausted
/// search finds the same optimum with and without it, which the simulator replays
/// strictly, and it pruned somewhere.
#[test]
fn the_probe_before_the_ops_without_edges_keeps_the_optimum() {
    let mut pruned = 0;
    for seed in 0..24u64 {
        let (n, k) = (9 + (seed % 3) as usize, 2 + (seed % 2) as usize);
        let (g, c) = with_isolated(n, k, 400 + seed, 1 + (seed % 2) as usize);
        let p = Problem::new(&g, &c).unwrap();
        let bb = optimum(&p, true);
        assert!(bb.probes > 0, "seed {seed}: no probe");
        pruned += bb.probes_pruned;
        let mut plain = Exact::new(&p, LinkModel::Fcfs, 1e9, u64::MAX).with_fifo(true);
        plain.probe_isolated = false;
        assert!(plain.run(&mut |_| Ok(())).unwrap());
        assert_eq!(plain.probes, 0);
        let (a, b) = (bb.incumbent, plain.incumbent);
        assert!(
            (a - b).abs() <= 1e-9 * b.abs(),
            "seed {seed}: {a} with the probe, {b} without"
        );
        assert_eq!(replayed(&p, &bb)[1], a, "seed {seed}: strict replay");
    }
    assert!(pruned > 0, "no probe pruned");
}
