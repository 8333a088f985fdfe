//! `critical-path`: the whole critical path on the fastest device, the rest by least
//! accumulated run time (Mayer17 §3.2.2, eq. 6 and 7).
//!
//! The critical path is found from downward ranks (eq. 6) exactly as the paper's steps
//! (1)-(4) say: (1) compute every vertex's downward rank; (2) take the sink with the
//! largest downward rank; (3)-(4) of all the paths from that sink back to a source, keep
//! the longest. Following every path would be exponential; since a downward rank is the
//! length (summed work `c`) of the longest path from a source to the vertex, the longest
//! path back from the sink is found by stepping, from each vertex, to the predecessor
//! with the largest downward rank ([`critical_path`]). Ties: the lower node index.
//!
//! "The critical path is assigned to the fastest feasible device. If no device can hold
//! the complete critical path, it is divided among the fastest devices. A vertex v_k that
//! is not on the critical path is assigned to the device dev_i with minimal sum of
//! execution times of already assigned vertices plus the execution time of v_k on dev_i"
//! (eq. 7).
//!
//! Choices where the paper is ambiguous:
//! - **Fastest for the path.** Devices are ranked by the path's run time on them: the sum
//!   over path vertices of `exec(v, d)`, where a vertex that `d` may not run counts at its
//!   slowest allowed run time (it will run elsewhere); ties: lower index. Under
//!   `cost / speed` without device rules this is simply descending speed.
//! - **Device rules on the path.** Taken literally, "feasible for the complete path"
//!   would send the whole path to the one device every path vertex may use (say the cpu,
//!   when one cpu-only op sits on the path). Instead, the path goes to the first device in
//!   the ranking that may run at least one path vertex and holds in memory all the path
//!   vertices it may run; a path vertex it may not run goes to that vertex's own fastest
//!   feasible device (least run time).
//! - **Colocation.** A path vertex drags its whole colocation group along: memory checks
//!   use the group's summed footprint, and every member lands on the path vertex's device.
//!   The ranking counts only the path vertices' run times.
//! - **Splitting.** When no device holds the path, it is cut into consecutive pieces:
//!   walking the path from its source, vertices go to the fastest device (first in the
//!   ranking) until one does not fit; from then on the next device in the ranking that
//!   has room for it is filled, and so on, never going back to a faster device (a later,
//!   smaller vertex that would still fit there does not return, keeping each piece in one
//!   place). A path vertex that the current device may not run, or that fits on no device
//!   further down the ranking, goes to its fastest feasible device without moving on.
//! - **The other vertices** are assigned in topological order (the graph's order, sources
//!   first), each colocation group when its first member comes up, to the feasible device
//!   minimising eq. 7: run time already assigned there (the path's included) plus its own
//!   (the members' summed) run time; ties: lower index. Eq. 7's `c_j / s_i` is the run
//!   time `exec`, which also covers per-kind time tables.

use super::fill::{least_time, place_in_order};
use super::{assign, no_device_error, slowest_exec, Groups, Loads, Placer, PlacerInfo, UNPLACED};
use crate::analysis::down_rank;
use crate::error::Result;
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::plan::Placement;
use crate::rng::Rng;

pub const INFO: PlacerInfo = PlacerInfo {
    name: "critical-path",
    summary: "critical path on the fastest device, the rest by least load (Mayer17 §3.2.2)",
    params: &[],
    plans: false,
    make: || Box::new(CriticalPath),
};

pub struct CriticalPath;

/// The critical path of Mayer17 §3.2.2 steps (1)-(4), source first: from the sink with
/// the largest downward rank, back through the predecessor with the largest downward rank
/// (ties: lower node index) until a source.
pub fn critical_path(problem: &Problem) -> Vec<NodeIx> {
    let g = problem.graph;
    let down = down_rank(problem);
    // Larger rank wins; on equal rank the lower index (the earlier candidate) stays.
    let better = |best: Option<NodeIx>, v: NodeIx| {
        best.is_none_or(|b| {
            down[v as usize] > down[b as usize] || (down[v as usize] == down[b as usize] && v < b)
        })
    };
    let mut sink = None;
    for v in 0..problem.node_count() as NodeIx {
        if g.out_edges(v).is_empty() && better(sink, v) {
            sink = Some(v);
        }
    }
    let mut path = Vec::new();
    let mut at = sink;
    while let Some(v) = at {
        path.push(v);
        at = None;
        for p in g.predecessors(v) {
            if better(at, p) {
                at = Some(p);
            }
        }
    }
    path.reverse();
    path
}

impl Placer for CriticalPath {
    fn place(&self, problem: &Problem, _: &Params, _: &mut Rng) -> Result<Placement> {
        let g = problem.graph;
        let k = problem.device_count();
        let units = Groups::new(problem);
        let mut loads = Loads::new(problem);
        let mut placement = vec![UNPLACED; problem.node_count()];
        let path = critical_path(problem);

        // The path's units in path order, each once.
        let mut on_path = vec![false; units.len()];
        let mut path_units = Vec::new();
        for &v in &path {
            let u = units.of[v as usize];
            if !on_path[u as usize] {
                on_path[u as usize] = true;
                path_units.push(u);
            }
        }

        // Devices ranked by the path's run time on them.
        let mut key = vec![0.0; k];
        for &v in &path {
            let slowest = slowest_exec(problem, v);
            for (s, &t) in key.iter_mut().zip(problem.exec_row(v)) {
                *s += if t.is_finite() { t } else { slowest };
            }
        }
        let mut ranking: Vec<DevIx> = (0..k as DevIx).collect();
        ranking.sort_by(|&a, &b| key[a as usize].total_cmp(&key[b as usize]).then(a.cmp(&b)));

        // The fastest device that holds every path unit it may run.
        let whole = ranking.iter().copied().find(|&d| {
            let mut any = false;
            let mut bytes = 0.0;
            for &u in &path_units {
                if units.allowed(problem, u, d) {
                    any = true;
                    bytes += units.footprint[u as usize];
                }
            }
            any && loads.fits(d, bytes)
        });
        let mut cursor = 0;
        if let Some(d) = whole {
            cursor = ranking.iter().position(|&r| r == d).unwrap_or(0);
        }
        for &u in &path_units {
            let here = ranking[cursor];
            let d = if loads.feasible(problem, &units, u, here) {
                Some(here)
            } else if whole.is_none() && units.allowed(problem, u, here) {
                // Out of memory on the current device: fill the next one down the ranking.
                match (cursor + 1..k).find(|&c| loads.feasible(problem, &units, u, ranking[c])) {
                    Some(c) => {
                        cursor = c;
                        Some(ranking[c])
                    }
                    None => least_time(problem, &units, &loads, u, |_| 0.0),
                }
            } else {
                least_time(problem, &units, &loads, u, |_| 0.0)
            };
            let d = d.ok_or_else(|| no_device_error(INFO.name, problem, &units, u))?;
            assign(problem, &units, &mut loads, &mut placement, u, d);
        }

        // Everything else by eq. 7, in topological order.
        place_in_order(
            INFO.name,
            problem,
            &units,
            &mut loads,
            &mut placement,
            g.topo_order().iter().copied(),
            |loads, d| loads.busy[d as usize],
        )?;
        Ok(placement)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{cluster::Cluster, graph::Graph};
    use crate::place::verify;
    use crate::testutil::{constrained, graph, joined, parse};

    fn run(p: &Problem) -> Result<Placement> {
        CriticalPath.place(p, &Params::default(), &mut Rng::new(0))
    }

    /// a(1) -> b(2) -> d(1), a -> c(5) -> d, and e(3) alone; `mem` gives a, c, d's mem and
    /// `extra` extra node fields for c and e.
    fn diamond(mem: [f64; 3], c_extra: &str, e_extra: &str) -> Graph {
        graph(&format!(
            r#"{{"nodes":[{{"id":"a","cost":1,"mem":{}}},{{"id":"b","cost":2}},{{"id":"c","cost":5,"mem":{}{c_extra}}},
                             {{"id":"d","cost":1,"mem":{}}},{{"id":"e","cost":3{e_extra}}}],
                    "edges":[{{"src":"a","dst":"b"}},{{"src":"a","dst":"c"}},{{"src":"b","dst":"d"}},{{"src":"c","dst":"d"}}]}}"#,
            mem[0], mem[1], mem[2]
        ))
    }

    fn cluster(memory: [&str; 3]) -> Cluster {
        crate::testutil::cluster(&format!(
            r#"{{"devices":[{{"id":"d0","speed":1{}}},{{"id":"d1","speed":4{}}},{{"id":"d2","speed":2{}}}],"bandwidth":1}}"#,
            memory[0], memory[1], memory[2]
        ))
    }

    #[test]
    fn hand_computed_diamond() {
        // Downward ranks: a 1, b 3, c 6, d 7, e 3. Sinks d (7) and e (3): d. Back from d:
        // b (3) or c (6) -> c -> a. Path a, c, d (work 7): d0 7, d1 1.75, d2 3.5 -> d1.
        // Topological order a, e, b, c, d (sources a, e first); the rest: e, then b.
        // e (3): d0 0 + 3 = 3, d1 1.75 + 0.75 = 2.5, d2 0 + 1.5 = 1.5 -> d2.
        // b (2): d0 0 + 2 = 2, d1 1.75 + 0.5 = 2.25, d2 1.5 + 1 = 2.5 -> d0.
        // (In index order, b then e, b would take d2 and e d1.)
        let g = diamond([0.0; 3], "", "");
        let c = cluster(["", "", ""]);
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(critical_path(&p), vec![0, 2, 3]);
        assert_eq!(run(&p).unwrap(), vec![1, 0, 1, 1, 2]);
    }

    #[test]
    fn path_split_fills_the_fastest_devices_in_turn() {
        // a, c, d hold 2 bytes each: 6 in all. d0 holds 1, d1 and d2 hold 4 -> split.
        // d1 (fastest): a (2/4), c (4/4); d does not fit -> d2, the next in the ranking.
        // Loads: d1 0.25 + 1.25 = 1.5, d2 0.5.
        // e (3): d0 3, d1 1.5 + 0.75 = 2.25, d2 0.5 + 1.5 = 2 -> d2.
        // b (2): d0 2, d1 1.5 + 0.5 = 2, d2 2 + 1 = 3 -> tie d0 / d1 -> d0.
        let g = diamond([2.0; 3], "", "");
        let c = cluster([r#","memory":1"#, r#","memory":4"#, r#","memory":4"#]);
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(run(&p).unwrap(), vec![1, 0, 1, 2, 2]);
    }

    #[test]
    fn whole_path_on_a_slower_device_before_splitting() {
        // Same path (6 bytes); d2 holds 10, so the whole path goes to d2 (3.5).
        // e: d0 3, d1 0.75, d2 5 -> d1. b: d0 2, d1 0.75 + 0.5 = 1.25, d2 4.5 -> d1.
        let g = diamond([2.0; 3], "", "");
        let c = cluster([r#","memory":1"#, r#","memory":4"#, r#","memory":10"#]);
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(run(&p).unwrap(), vec![2, 1, 2, 2, 1]);
    }

    #[test]
    fn split_pieces_do_not_return_to_a_faster_device() {
        // a 2, c 3, d 1 bytes (6 in all); d1 holds 4, d2 holds 5: split. a -> d1 (2/4);
        // c (3) does not fit -> d2 (3/5); d (1) would fit d1 (3/4) but stays with the
        // piece on d2 (4/5).
        let g = diamond([2.0, 3.0, 1.0], "", "");
        let c = cluster([r#","memory":0"#, r#","memory":4"#, r#","memory":5"#]);
        let p = Problem::new(&g, &c).unwrap();
        let placement = run(&p).unwrap();
        assert_eq!((placement[0], placement[2], placement[3]), (1, 2, 2));
        verify(&p, &placement).unwrap();
    }

    #[test]
    fn a_path_vertex_the_device_may_not_run_goes_its_own_way() {
        // x(4) -> y(4, cpu only) -> z(4). Path time: cpu 12, g0 1 + 4 + 1 = 6 (y counted at
        // its slowest, 4), g1 2 + 4 + 2 = 8. g0 takes x and z, y goes to the cpu; taken
        // literally ("the device every path vertex may use") all three would go to the cpu.
        let (g, c) = parse(
            r#"{"nodes":[{"id":"x","cost":4},{"id":"y","cost":4,"device":"cpu"},{"id":"z","cost":4}],
                "edges":[{"src":"x","dst":"y"},{"src":"y","dst":"z"}]}"#,
            r#"{"devices":[{"id":"cpu","kind":"cpu","speed":1},{"id":"g0","speed":4},{"id":"g1","speed":2}],"bandwidth":1}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(run(&p).unwrap(), vec![1, 0, 1]);
    }

    #[test]
    fn groups_follow_the_path_or_go_whole_by_eq_7() {
        // c (on the path) shares group w with e: e goes to d1 with the path. Then b alone.
        // Loads: d1 1.75 + 0.75 = 2.5. b: d0 2, d1 3, d2 1 -> d2.
        let g = diamond([0.0; 3], r#","colocate":"w""#, r#","colocate":"w""#);
        let c = cluster(["", "", ""]);
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(run(&p).unwrap(), vec![1, 2, 1, 1, 1]);
        // The group's footprint counts: with 8 bytes on e the path needs 8, more than d1's
        // 6, so d2 (10) takes the whole path, e included.
        let g = diamond([0.0; 3], r#","colocate":"w""#, r#","colocate":"w","mem":8"#);
        let c = cluster(["", r#","memory":6"#, r#","memory":10"#]);
        let p = Problem::new(&g, &c).unwrap();
        let placement = run(&p).unwrap();
        assert_eq!((placement[0], placement[2], placement[4]), (2, 2, 2));
    }

    #[test]
    fn the_path_is_the_longest_source_to_sink_path_of_its_sink() {
        // Random small DAGs: every source-to-sink path, enumerated, is no longer than the
        // chosen path, which is a real path from a source to a sink.
        let mut rng = Rng::new(7);
        for _ in 0..50 {
            let n = 9;
            let mut nodes = Vec::new();
            let mut edges = Vec::new();
            for i in 0..n {
                nodes.push(format!(r#"{{"id":"n{i}","cost":{}}}"#, 1 + rng.below(9)));
                for j in i + 1..n {
                    if rng.unit() < 0.3 {
                        edges.push(format!(r#"{{"src":"n{i}","dst":"n{j}"}}"#));
                    }
                }
            }
            let g = joined(&nodes, &edges);
            let c = Cluster::uniform(&[1.0], 1.0, 0.0);
            let p = Problem::new(&g, &c).unwrap();
            let path = critical_path(&p);
            assert!(g.in_edges(path[0]).is_empty());
            assert!(g.out_edges(*path.last().unwrap()).is_empty());
            for w in path.windows(2) {
                assert!(g.successors(w[0]).any(|s| s == w[1]));
            }
            let len: f64 = path.iter().map(|&v| p.work[v as usize]).sum();
            // Longest path by brute force over every path from every source.
            let mut best = 0.0f64;
            let mut stack: Vec<(NodeIx, f64)> = (0..n as NodeIx)
                .filter(|&v| g.in_edges(v).is_empty())
                .map(|v| (v, p.work[v as usize]))
                .collect();
            while let Some((v, l)) = stack.pop() {
                best = best.max(l);
                for s in g.successors(v) {
                    stack.push((s, l + p.work[s as usize]));
                }
            }
            assert_eq!(len, best);
        }
    }

    #[test]
    fn honours_rules_groups_and_tight_memory() {
        let (g, c) = constrained();
        let p = Problem::new(&g, &c).unwrap();
        let placement = run(&p).unwrap();
        verify(&p, &placement).unwrap();
        // Nothing fits nowhere: an error naming the unit.
        let c = cluster([r#","memory":0"#, r#","memory":3"#, r#","memory":3"#]);
        let g = diamond([2.0, 5.0, 1.0], "", "");
        let p = Problem::new(&g, &c).unwrap();
        let e = run(&p).unwrap_err().to_string();
        assert!(e.contains("node 'c'"), "{e}");
    }
}
