//! The rebuild-every-round coarsening as it was before the rounds became incremental
//! (issue 24x): the reference the tests compare [`super::coarsen`] against, bit for bit. Its
//! rounds are the old code; the isolated vertices' step after them, which no rewrite
//! touched, is the shared `merge_isolated`.

use petgraph::algo::is_cyclic_directed;
use petgraph::graph::DiGraph;

use super::{
    coarse_edges, counted, heights, merge_isolated, op_work, renumber, work_cap, Coarse, Round,
};
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;

/// Coarsens `problem`'s graph towards `target` vertices (Pesto21 uses about 200), counting
/// only vertices with work and edges; no vertex takes more than [`WORK_SHARE`] of the work
/// (unless one op does); isolated vertices are merged among themselves at the end, by the
/// devices they may use, under the same share.
pub fn coarsen_reference(problem: &Problem, target: usize) -> Coarse {
    let k = problem.device_count();
    let op_work = op_work(problem);
    let cap = work_cap(problem, target);
    let vertex_work = |members: &[Vec<NodeIx>]| -> Vec<f64> {
        members
            .iter()
            .map(|ms| ms.iter().map(|&v| op_work[v as usize]).sum())
            .collect()
    };
    let (mut of, mut members) = renumber(
        problem,
        &(0..problem.node_count() as u32).collect::<Vec<_>>(),
    );
    let mut edges = coarse_edges(problem, &of);
    let mut rounds = vec![Round {
        vertices: members.len(),
        edges: edges.len(),
        merged: 0,
        edges_removed_pct: 0.0,
        fallback: false,
    }];
    let target = target.max(1);
    loop {
        let n = members.len();
        let work = vertex_work(&members);
        let active = counted(n, &edges, &work);
        if active <= target {
            break;
        }
        let h = heights(n, &edges).expect("coarse graphs stay acyclic");
        let mut succ: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut pred: Vec<Vec<u32>> = vec![Vec::new(); n];
        for &(a, b, _) in &edges {
            succ[a as usize].push(b);
            pred[b as usize].push(a);
        }
        let allowed: Vec<Vec<bool>> = members
            .iter()
            .map(|ms| {
                (0..k as DevIx)
                    .map(|d| ms.iter().all(|&v| problem.allowed(v, d)))
                    .collect()
            })
            .collect();
        let mut order: Vec<usize> = (0..edges.len()).collect();
        order.sort_by(|&x, &y| {
            edges[y]
                .2
                .total_cmp(&edges[x].2)
                .then((edges[x].0, edges[x].1).cmp(&(edges[y].0, edges[y].1)))
        });
        // Pair partner of each vertex in M: as tail (u) or head (v).
        let mut tail_of = vec![u32::MAX; n]; // tail_of[u] = v
        let mut head_of = vec![u32::MAX; n]; // head_of[v] = u
        let mut batch: Vec<(u32, u32)> = Vec::new();
        // Counted vertices the batch removes (a merge with a zero-work vertex removes none).
        let mut removed = 0usize;
        for &i in &order {
            if active - removed <= target {
                break;
            }
            let (u, v, _) = edges[i];
            let (ui, vi) = (u as usize, v as usize);
            let used = |x: usize| tail_of[x] != u32::MAX || head_of[x] != u32::MAX;
            if used(ui) || used(vi) {
                continue;
            }
            if work[ui] + work[vi] > cap {
                continue;
            }
            let only_path = succ[ui].len() == 1
                || pred[vi].len() == 1
                || h[vi] == h[ui] + 1
                || succ[ui].iter().all(|&w| w == v || h[w as usize] > h[vi]);
            if !only_path {
                continue;
            }
            // Corrected (iii): no cross edge u -> v_j or u_j -> v at v's height.
            let cross_out = succ[ui]
                .iter()
                .any(|&w| head_of[w as usize] != u32::MAX && h[w as usize] == h[vi]);
            let cross_in = pred[vi].iter().any(|&x| {
                let vj = tail_of[x as usize];
                vj != u32::MAX && h[vj as usize] == h[vi]
            });
            if cross_out || cross_in {
                continue;
            }
            if !(0..k).any(|d| allowed[ui][d] && allowed[vi][d]) {
                continue;
            }
            tail_of[ui] = v;
            head_of[vi] = u;
            batch.push((u, v));
            if work[ui] > 0.0 && work[vi] > 0.0 {
                removed += 1;
            }
        }
        if batch.is_empty() {
            break;
        }
        let contract = |pairs: &[(u32, u32)]| -> Vec<u32> {
            let mut group: Vec<u32> = (0..n as u32).collect();
            for &(u, v) in pairs {
                group[v as usize] = u;
            }
            of.iter().map(|&c| group[c as usize]).collect()
        };
        let before = edges.len();
        let mut fallback = false;
        let mut merged = batch.len();
        let (mut next_of, mut next_members) = renumber(problem, &contract(&batch));
        let mut next_edges = coarse_edges(problem, &next_of);
        if is_cyclic(next_members.len(), &next_edges) {
            fallback = true;
            merged = 1;
            (next_of, next_members) = renumber(problem, &contract(&batch[..1]));
            next_edges = coarse_edges(problem, &next_of);
        }
        of = next_of;
        members = next_members;
        edges = next_edges;
        rounds.push(Round {
            vertices: members.len(),
            edges: edges.len(),
            merged,
            edges_removed_pct: if before > 0 {
                100.0 * (before - edges.len()) as f64 / before as f64
            } else {
                0.0
            },
            fallback,
        });
    }
    // Isolated vertices: the step after the rounds, which the rounds' rewrites left as it
    // was (the oracle is for the rounds).
    merge_isolated(problem, cap, of, members, edges, rounds)
}

/// Whether a graph of `n` vertices with these edges has a cycle (petgraph's DFS check).
fn is_cyclic(n: usize, edges: &[(u32, u32, f64)]) -> bool {
    let mut g = DiGraph::<(), (), u32>::with_capacity(n, edges.len());
    for _ in 0..n {
        g.add_node(());
    }
    for &(a, b, _) in edges {
        g.add_edge(a.into(), b.into(), ());
    }
    is_cyclic_directed(&g)
}

/// Same result, bit for bit: the vertices, their members, the edges and every round.
/// Both ways: the rounds handing over to the in-place updates as `coarsen` does, and in
/// place from the first round (every round through `live.rs`).
fn assert_same(p: &Problem, target: usize, what: &str) {
    let old = format!("{:?}", coarsen_reference(p, target));
    // In place from round 1, the hand-over, and passes over the whole edge list throughout.
    for small_batch in [super::SMALL_BATCH, 0, usize::MAX] {
        let new = super::coarsen_split(p, target, small_batch);
        // Debug prints each float's shortest round-trip form: equal text, equal bits.
        assert_eq!(
            format!("{new:?}"),
            old,
            "{what}, target {target}, hand-over at one pair per {small_batch} edges"
        );
    }
}

/// Random graphs of the shapes that stress the rounds (fan-in and fan-out stars, chains
/// with skips, random DAGs), with colocation groups, device rules, zero-work and isolated
/// ops, tensors with several consumers and parallel tensors, fractional bytes (so that the
/// summation order shows), at targets from 1 to `n`.
#[test]
fn incremental_rounds_match_the_rebuild_on_random_graphs() {
    use crate::rng::Rng;
    use crate::testutil::{cluster, joined};
    let c = cluster(
        r#"{"devices":[{"id":"g0","kind":"gpu","speed":2},{"id":"g1","kind":"gpu","speed":1},{"id":"c0","kind":"cpu","speed":1}],"bandwidth":1}"#,
    );
    let mut fallbacks = 0;
    let mut rounds = 0;
    for seed in 0..1500u64 {
        let mut r = Rng::new(seed);
        let shape = r.below(5);
        let n = 2 + r.below(if shape <= 1 { 120 } else { 40 }) as usize;
        let mut nodes = Vec::new();
        for i in 0..n {
            let mut extra = String::new();
            if r.below(8) == 0 {
                extra += &format!(r#","colocate":"g{}""#, r.below(3));
            }
            match r.below(10) {
                0 => extra += r#","device":"cpu""#,
                1 => extra += r#","device":"gpu""#,
                2 => extra += r#","device":"g1""#,
                _ => {}
            }
            let cost = if r.below(5) == 0 {
                0.0
            } else {
                0.1 * (1 + r.below(30)) as f64
            };
            nodes.push(format!(r#"{{"id":"n{i}","cost":{cost}{extra}}}"#));
        }
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        match shape {
            0 => (0..n - 1).for_each(|i| pairs.push((i, n - 1))),
            1 => (1..n).for_each(|i| pairs.push((0, i))),
            2 => {
                for i in 1..n {
                    pairs.push((i - 1, i));
                    if i >= 3 && r.below(3) == 0 {
                        pairs.push((i - 1 - r.below(3) as usize, i));
                    }
                }
            }
            _ => {
                for j in 1..n {
                    for i in 0..j {
                        if r.below(5) == 0 {
                            pairs.push((i, j));
                        }
                    }
                }
            }
        }
        // Some ops left isolated, some extra parallel edges.
        let isolated: Vec<bool> = (0..n).map(|_| r.below(10) == 0).collect();
        let mut edges = Vec::new();
        for (i, j) in pairs {
            if isolated[i] || isolated[j] {
                continue;
            }
            let copies = 1 + usize::from(r.below(6) == 0);
            for _ in 0..copies {
                // Tensor names per source: a tensor's bytes depend on its source and name only.
                let t = r.below(3);
                let bytes = 0.1 * (1 + (i as u64 * 7 + t * 3) % 17) as f64;
                edges.push(format!(
                    r#"{{"src":"n{i}","dst":"n{j}","bytes":{bytes},"tensor":"t{t}"}}"#
                ));
            }
        }
        let g = joined(&nodes, &edges);
        let Ok(p) = Problem::new(&g, &c) else {
            continue;
        };
        for target in [
            1 + r.below(n as u64) as usize,
            1 + r.below(n as u64) as usize,
        ] {
            assert_same(&p, target, &format!("seed {seed}, shape {shape}"));
            let co = super::coarsen(&p, target);
            rounds += co.rounds.len();
            fallbacks += co.rounds.iter().filter(|x| x.fallback).count();
        }
    }
    assert!(rounds > 6000, "the rounds ran: {rounds}");
    assert_eq!(fallbacks, 0);
}

/// Hubs among a random layered DAG: ops that feed, or are fed by, more than
/// [`super::rounds`]'s `FEW` ops at many heights, so that the passes read rule (ii)'s last
/// clause from each hub's two lowest successors and rule (iii)'s cross edges from the
/// marks (several heights on one hub), and the in-place rounds their own way; compared
/// with the rebuild at several targets.
#[test]
fn hubs_at_many_heights_match_the_rebuild() {
    use crate::rng::Rng;
    use crate::testutil::joined;
    let c = gpu_and_cpu();
    let mut rounds = 0;
    for seed in 0..150u64 {
        let mut r = Rng::new(9000 + seed);
        let n = 30 + r.below(90) as usize;
        let width = 2 + r.below(8) as usize;
        let mut nodes: Vec<String> = (0..n)
            .map(|i| format!(r#"{{"id":"n{i}","cost":{}}}"#, 1 + r.below(4)))
            .collect();
        let mut edges = Vec::new();
        let edge = |edges: &mut Vec<String>, a: &str, b: &str, bytes: f64| {
            edges.push(format!(r#"{{"src":"{a}","dst":"{b}","bytes":{bytes}}}"#));
        };
        for j in width..n {
            for _ in 0..1 + r.below(2) {
                let i = j - 1 - r.below(width.min(j) as u64) as usize;
                edge(
                    &mut edges,
                    &format!("n{i}"),
                    &format!("n{j}"),
                    0.1 * (1 + r.below(40)) as f64,
                );
            }
        }
        let hubs = 1 + r.below(3);
        for k in 0..hubs {
            let fans = 17 + r.below(n as u64 - 17) as usize;
            nodes.push(format!(r#"{{"id":"s{k}","cost":1}}"#));
            nodes.push(format!(r#"{{"id":"t{k}","cost":1}}"#));
            let mut picked: Vec<usize> = (0..n).collect();
            for i in 0..fans {
                let j = i + r.below((n - i) as u64) as usize;
                picked.swap(i, j);
                let bytes = 0.1 * (1 + r.below(40)) as f64;
                edge(
                    &mut edges,
                    &format!("s{k}"),
                    &format!("n{}", picked[i]),
                    bytes,
                );
                let bytes = 0.1 * (1 + r.below(40)) as f64;
                edge(
                    &mut edges,
                    &format!("n{}", picked[i]),
                    &format!("t{k}"),
                    bytes,
                );
            }
        }
        let g = joined(&nodes, &edges);
        let p = Problem::new(&g, &c).unwrap();
        let m = nodes.len();
        for target in [1, 2 + r.below(m as u64) as usize, m / 2, m - m / 8] {
            assert_same(&p, target, &format!("hubs at many heights, seed {seed}"));
            rounds += super::coarsen(&p, target).rounds.len();
        }
    }
    assert!(rounds > 2500, "the rounds ran: {rounds}");
}

/// A GPU twice as fast as a CPU, bandwidth 1 (the device rule's cases in the tests below).
#[cfg(test)]
fn gpu_and_cpu() -> crate::model::cluster::Cluster {
    crate::testutil::cluster(
        r#"{"devices":[{"id":"g0","kind":"gpu","speed":2},{"id":"c0","kind":"cpu","speed":1}],"bandwidth":1}"#,
    )
}

/// Rule (ii) refusals parked and woken (`live.rs`): copies of a random cell (a layered DAG
/// with skip edges, fan-out and fan-in, so that many edges are refused by rule (ii) round
/// after round while heights fall and rise around them, and a merge far upstream changes a
/// witness's height), compared with the rebuild in place from round 1 and with the
/// hand-over, at several targets; the parking must have happened, including edges woken
/// back into the candidates (an edge parked for good by mistake would change the result).
#[test]
fn parked_refusals_match_the_rebuild_on_cells_with_skips() {
    use crate::rng::Rng;
    use crate::testutil::joined;
    let c = gpu_and_cpu();
    let before = super::live::PARKING.with(|p| p.get());
    for seed in 0..200u64 {
        let mut r = Rng::new(1000 + seed);
        let width = 2 + r.below(4) as usize;
        let depth = 3 + r.below(6) as usize;
        let cell = width * depth;
        let copies = 1 + r.below(5) as usize;
        let mut nodes = Vec::new();
        let mut edges = Vec::new();
        for k in 0..copies {
            for i in 0..cell {
                let cost = 0.1 * (1 + r.below(20)) as f64;
                let dev = if r.below(15) == 0 {
                    r#","device":"cpu""#
                } else {
                    ""
                };
                nodes.push(format!(r#"{{"id":"c{k}n{i}","cost":{cost}{dev}}}"#));
            }
            for i in width..cell {
                let layer = i / width;
                // One or two edges from the layer above, sometimes a skip from further up.
                for _ in 0..1 + r.below(2) {
                    let j = (layer - 1) * width + r.below(width as u64) as usize;
                    let bytes = 0.1 * (1 + r.below(40)) as f64;
                    edges.push(format!(
                        r#"{{"src":"c{k}n{j}","dst":"c{k}n{i}","bytes":{bytes}}}"#
                    ));
                }
                if layer >= 2 && r.below(2) == 0 {
                    let j = r.below(((layer - 1) * width) as u64) as usize;
                    let bytes = 0.1 * (1 + r.below(40)) as f64;
                    edges.push(format!(
                        r#"{{"src":"c{k}n{j}","dst":"c{k}n{i}","bytes":{bytes}}}"#
                    ));
                }
            }
            if k > 0 {
                edges.push(format!(
                    r#"{{"src":"c{}n{}","dst":"c{k}n0","bytes":0.05}}"#,
                    k - 1,
                    cell - 1
                ));
            }
        }
        let g = joined(&nodes, &edges);
        let Ok(p) = Problem::new(&g, &c) else {
            continue;
        };
        let n = nodes.len();
        for target in [1, 2 + r.below(n as u64) as usize, n / 3 + 1] {
            assert_same(&p, target, &format!("cells seed {seed}"));
        }
    }
    let after = super::live::PARKING.with(|p| p.get());
    let done: Vec<u64> = (0..3).map(|i| after[i] - before[i]).collect();
    assert!(
        done[0] > 2000 && done[1] > 1000 && done[2] > 200,
        "parked, parked again, woken: {done:?}"
    );
}

/// Every bundled graph (with the CLI's default cluster, one gpu and one cpu) at targets 20,
/// 64 and 200.
#[test]
fn incremental_rounds_match_the_rebuild_on_bundled_graphs() {
    use crate::model::cluster::Cluster;
    use crate::model::graph::Graph;
    let c = Cluster::from_json(
        r#"{"devices":[{"id":"gpu0","kind":"gpu","speed":1},{"id":"cpu0","kind":"cpu","speed":1}],"bandwidth":1}"#,
        "c",
    )
    .unwrap();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("graphs");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut graphs = 0;
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let Ok(g) = Graph::from_json(&text, "g") else {
            continue;
        };
        let Ok(p) = Problem::new(&g, &c) else {
            continue;
        };
        graphs += 1;
        for target in [20, 64, 200] {
            assert_same(&p, target, &f.display().to_string());
        }
    }
    assert!(graphs >= 15, "{graphs} graphs");
}

/// Stars whose hub's first member changes every round (the leaf merged next always comes
/// earlier in topological order: the hub's key moves each round; before 24d every hub edge
/// moved, now the hub keeps its slot and lists), fan-in and fan-out, with a second tensor
/// from some leaves, at several targets.
#[test]
fn incremental_rounds_match_the_rebuild_on_stars_whose_key_moves() {
    use crate::model::cluster::Cluster;
    use crate::testutil::joined;
    let c = Cluster::uniform(&[1.0, 1.0], 1.0, 0.0);
    for fan_in in [true, false] {
        let n = 300;
        let mut nodes: Vec<String> = (0..n)
            .map(|i| format!(r#"{{"id":"l{i}","cost":{}}}"#, 1 + i % 3))
            .collect();
        nodes.push(r#"{"id":"hub","cost":1}"#.to_string());
        let mut edges = Vec::new();
        for i in 0..n {
            let bytes = if fan_in { 1 + i } else { n - i } as f64 * 0.3;
            let (a, b) = if fan_in {
                (format!("l{i}"), "hub".to_string())
            } else {
                ("hub".to_string(), format!("l{i}"))
            };
            edges.push(format!(r#"{{"src":"{a}","dst":"{b}","bytes":{bytes}}}"#));
            if i % 7 == 0 {
                edges.push(format!(
                    r#"{{"src":"{a}","dst":"{b}","bytes":0.7,"tensor":"x"}}"#
                ));
            }
        }
        let g = joined(&nodes, &edges);
        let p = Problem::new(&g, &c).unwrap();
        for target in [1, 2, 20, 64, 200] {
            assert_same(&p, target, &format!("fan_in {fan_in}"));
        }
        assert!(super::coarsen(&p, 1).rounds.len() > 20);
    }
}

/// Hubs whose key moves while they keep their slot (`live.rs`: the end with more edges
/// keeps its lists and takes the lower key): random hubs fed by leaves whose bytes grow
/// with their topological position (each round merges an earlier leaf), feeding leaves
/// and each other with equal bytes (ties between a hub's in- and out-edges, decided by
/// keys that move), some hub edges held in a bigger hub's lists (re-keyed when the smaller
/// hub's key moves), device rules, at several targets, in place and with the hand-over.
#[test]
fn hubs_whose_key_moves_match_the_rebuild() {
    use crate::rng::Rng;
    use crate::testutil::joined;
    let c = gpu_and_cpu();
    let before = super::live::PARKING.with(|p| p.get());
    for seed in 0..80u64 {
        let mut r = Rng::new(5000 + seed);
        let hubs = 1 + r.below(3) as usize;
        let mut nodes = Vec::new();
        let mut edges = Vec::new();
        let edge = |edges: &mut Vec<String>, a: &str, b: &str, bytes: f64| {
            edges.push(format!(r#"{{"src":"{a}","dst":"{b}","bytes":{bytes}}}"#));
        };
        for k in 0..hubs {
            let ins = 5 + r.below(60) as usize;
            let outs = r.below(30) as usize;
            let tie = 0.1 * (1 + r.below(5)) as f64;
            for i in 0..ins {
                let dev = if r.below(20) == 0 {
                    r#","device":"cpu""#
                } else {
                    ""
                };
                nodes.push(format!(
                    r#"{{"id":"h{k}i{i}","cost":{}{dev}}}"#,
                    1 + r.below(3)
                ));
                let bytes = if r.below(4) == 0 {
                    tie
                } else {
                    0.3 * (1 + i) as f64
                };
                edge(&mut edges, &format!("h{k}i{i}"), &format!("h{k}"), bytes);
            }
            nodes.push(format!(r#"{{"id":"h{k}","cost":1}}"#));
            for o in 0..outs {
                nodes.push(format!(r#"{{"id":"h{k}o{o}","cost":1}}"#));
                edge(&mut edges, &format!("h{k}"), &format!("h{k}o{o}"), tie);
            }
            if k > 0 {
                // Hub to hub, and some of the earlier hub's leaves feed this one too.
                edge(&mut edges, &format!("h{}", k - 1), &format!("h{k}"), tie);
                for i in 0..3 {
                    edge(
                        &mut edges,
                        &format!("h{}i{i}", k - 1),
                        &format!("h{k}"),
                        tie,
                    );
                }
            }
        }
        let g = joined(&nodes, &edges);
        let Ok(p) = Problem::new(&g, &c) else {
            continue;
        };
        let n = nodes.len();
        for target in [1, 2 + r.below(n as u64) as usize, n / 2] {
            assert_same(&p, target, &format!("hubs seed {seed}"));
        }
    }
    let after = super::live::PARKING.with(|p| p.get());
    let (rekeyed, lent) = (after[3] - before[3], after[4] - before[4]);
    assert!(
        rekeyed > 5000 && lent > 1000,
        "re-keyed {rekeyed}, lent {lent}"
    );
}
