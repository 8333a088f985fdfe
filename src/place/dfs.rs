//! `dfs`: depth-first traversal with a traffic x execution-time score (Mayer17 §3.3.2,
//! eq. 11).
//!
//! "The DFS algorithm starts at the source vertex with the highest total rank ... Whenever a
//! vertex is visited, it is assigned to the device that minimizes
//! `dfsScore(v, d) = traffic(v, d) x execTime(v, d)`", with traffic (eq. 10) and execution
//! time scores as in MITE. Both scores come from `scores.rs` ([`UnitScores`]), with the same
//! choices documented there: transfer time `latency + bytes / bandwidth` per tensor from an
//! already placed predecessor on another device, plus a floor (`traffic_floor`, default
//! 0.001 x the mean slowest op run time) so a device that needs no transfer does not zero
//! the product and the execution time still ranks such devices; run time normalised by
//! the unit's slowest allowed run time.
//!
//! Choices where the paper is ambiguous:
//! - **Every vertex is visited.** After the DFS from the source with the highest total rank
//!   (upward + downward rank, eq. 5 and 6), DFS runs again from each remaining source in
//!   descending total rank (ties: lower node index); every node of a DAG is reachable from
//!   some source, so every node is placed.
//! - **Children order.** A visited vertex's successors are explored in descending total
//!   rank (ties: lower node index), so the traversal follows the longest path first.
//! - **Traversal.** Pre-order, with an explicit stack (no recursion: graphs have tens of
//!   thousands of ops and long chains); a vertex is assigned when it is first popped.
//! - **Traffic** counts only in-edges from predecessors placed earlier (eq. 10 sums over
//!   in-edges; a successor already placed by an earlier DFS does not count).
//! - **Colocation groups** are placed whole when their first member is visited: traffic over
//!   every member's in-edges from placed nodes, execution time summed over the members.
//!   Later members are still visited (the traversal goes on through them) but keep the
//!   group's device.
//! - **Memory and rules.** Only devices the unit may use and that have memory left for it
//!   compete; ties go to the smaller execution time, then the lower device index. There is
//!   no memory or balance term in eq. 11: without memory limits every op follows its
//!   predecessors onto the fastest device the sources chose.

use super::scores::{traffic_floor, UnitScores, TRAFFIC_FLOOR};
use super::{assign, best_device, no_device_error, Groups, Loads, Placer, PlacerInfo, UNPLACED};
use crate::analysis::total_rank;
use crate::error::Result;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::plan::Placement;
use crate::rng::Rng;

pub const INFO: PlacerInfo = PlacerInfo {
    name: "dfs",
    summary: "depth-first from the top-ranked source, min traffic x exec time (Mayer17 §3.3.2)",
    params: &[TRAFFIC_FLOOR],
    plans: false,
    make: || Box::new(Dfs),
};

pub struct Dfs;

impl Placer for Dfs {
    fn place(&self, problem: &Problem, params: &Params, _: &mut Rng) -> Result<Placement> {
        let floor = traffic_floor(INFO.name, problem, params)?;
        let g = problem.graph;
        let n = problem.node_count();
        let units = Groups::new(problem);
        let mut loads = Loads::new(problem);
        let rank = total_rank(problem);
        // Higher rank first, then lower index.
        let before = |a: &NodeIx, b: &NodeIx| {
            rank[*b as usize]
                .total_cmp(&rank[*a as usize])
                .then(a.cmp(b))
        };
        let mut sources: Vec<NodeIx> = (0..n as NodeIx)
            .filter(|&v| g.in_edges(v).is_empty())
            .collect();
        sources.sort_by(before);

        let mut placement = vec![UNPLACED; n];
        let mut visited = vec![false; n];
        let mut scores = UnitScores::new(problem);
        let mut stack: Vec<NodeIx> = Vec::new();
        let mut children: Vec<NodeIx> = Vec::new();
        for s in sources {
            stack.push(s);
            while let Some(v) = stack.pop() {
                if visited[v as usize] {
                    continue;
                }
                visited[v as usize] = true;
                if placement[v as usize] == UNPLACED {
                    let unit = units.of[v as usize];
                    let members = &units.members[unit as usize];
                    scores.fill_exec(problem, members);
                    scores.fill_traffic(problem, members, &placement, floor);
                    // Ties go to the smaller execution time score, then the lower index.
                    let d = best_device(problem, &units, &loads, unit, |d| {
                        let d = d as usize;
                        (scores.traffic[d] * scores.exec[d], scores.exec[d])
                    })
                    .ok_or_else(|| no_device_error(INFO.name, problem, &units, unit))?;
                    assign(problem, &units, &mut loads, &mut placement, unit, d);
                }
                children.clear();
                children.extend(g.successors(v).filter(|&w| !visited[w as usize]));
                children.sort_by(before);
                children.dedup();
                // The stack pops the last pushed first: push the best child last.
                stack.extend(children.iter().rev());
            }
        }
        Ok(placement)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{cluster::Cluster, graph::Graph};
    use crate::place::verify;
    use crate::testutil::{cluster, constrained, graph, joined, parse};

    fn run(p: &Problem) -> Result<Placement> {
        Dfs.place(p, &Params::defaults(INFO.params), &mut Rng::new(0))
    }

    #[test]
    fn hand_computed_spill_follows_the_cheap_link() {
        // s1(2) -> a(1) -> c(1); s1 -> b(3); s2(1) -> c. One tensor "o" of 4 bytes from s1,
        // 2 bytes a -> c, 1 byte s2 -> c. Footprints: s1 4, a 3 + 2 = 5, b 2, c 0, s2 1.
        // Total ranks: s1 2+5 = 7, a 3+2 = 5, b 5+3 = 8, c 4+1 = 5, s2 1+2 = 3.
        // DFS from s1 (7): children b (8) before a (5); then a -> c; then source s2.
        // Visit order: s1, b, a, c, s2.
        // Devices: d0 speed 1, d1 speed 4 memory 6, d2 speed 2; bandwidth 1 except
        // d1 -> d0 at 10. Floor f = 0.001 * mean slowest run (2+1+3+1+1)/5 = 0.0016.
        // s1: traffic f everywhere, exec [1, 1/4, 1/2] -> d1 (memory 4/6).
        // b:  d1 traffic f -> f/4; others f + 4 -> d1 (memory 6/6).
        // a:  d1 full. d0: (f + 4/10) * 1 = 0.4016; d2: (f + 4/1) * 1/2 = 2.0008 -> d0.
        // c (footprint 0, fits full d1): d0: f * 1 = 0.0016; d1: (f + 2/1) / 4 = 0.5004;
        //     d2: (f + 2) / 2 = 1.0008 -> d0.
        // s2: d1 full; d0: f * 1, d2: f / 2 -> d2.
        let (g, c) = parse(
            r#"{"nodes":[{"id":"s1","cost":2},{"id":"a","cost":1,"mem":3},{"id":"b","cost":3,"mem":2},
                         {"id":"c","cost":1},{"id":"s2","cost":1}],
                "edges":[{"src":"s1","dst":"a","bytes":4,"tensor":"o"},{"src":"s1","dst":"b","bytes":4,"tensor":"o"},
                         {"src":"a","dst":"c","bytes":2},{"src":"s2","dst":"c","bytes":1}]}"#,
            r#"{"devices":[{"id":"d0","speed":1},{"id":"d1","speed":4,"memory":6},{"id":"d2","speed":2}],
                "bandwidth":1,"links":[{"src":"d1","dst":"d0","bandwidth":10}]}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(run(&p).unwrap(), vec![1, 0, 1, 0, 2]);
    }

    /// Source s feeds x and y; the fast device d1 has room for s and one child.
    fn fork(x_cost: f64, y_cost: f64) -> Graph {
        graph(&format!(
            r#"{{"nodes":[{{"id":"s","cost":1,"mem":1}},{{"id":"x","cost":{x_cost},"mem":1}},{{"id":"y","cost":{y_cost},"mem":1}}],
                    "edges":[{{"src":"s","dst":"x"}},{{"src":"s","dst":"y"}}]}}"#
        ))
    }

    #[test]
    fn children_in_descending_total_rank() {
        let c = cluster(
            r#"{"devices":[{"id":"d0","speed":1},{"id":"d1","speed":4,"memory":2}],"bandwidth":1}"#,
        );
        // y has the higher rank: visited before x, it takes d1's last byte.
        let g = fork(1.0, 5.0);
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(run(&p).unwrap(), vec![1, 0, 1]);
        // Swap the costs: now x is first.
        let g = fork(5.0, 1.0);
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(run(&p).unwrap(), vec![1, 1, 0]);
    }

    #[test]
    fn sources_in_descending_total_rank_and_every_vertex_placed() {
        // Two independent sources, listed low rank first; d1 (fast) holds one of them.
        let (g, c) = parse(
            r#"{"nodes":[{"id":"lo","cost":1,"mem":1},{"id":"hi","cost":3,"mem":1},{"id":"t","cost":1}],
                "edges":[{"src":"lo","dst":"t"}]}"#,
            r#"{"devices":[{"id":"d0","speed":1},{"id":"d1","speed":4,"memory":1}],"bandwidth":1}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        // hi (3) first -> d1; lo -> d0 (d1 full); t follows lo: d0 traffic f vs d1
        // f + latency 0 + 0 bytes = f, exec 1 vs 1/4 -> d1 (fits: footprint 0).
        assert_eq!(run(&p).unwrap(), vec![0, 1, 1]);
    }

    #[test]
    fn groups_whole_and_long_chains_without_recursion() {
        // A 20,000-node chain; nodes 5 and 19,000 share a group, node 19,000 must run on d0.
        let n = 20_000;
        let mut nodes: Vec<String> = (0..n)
            .map(|i| format!(r#"{{"id":"n{i}","cost":1}}"#))
            .collect();
        nodes[5] = r#"{"id":"n5","cost":1,"colocate":"w"}"#.into();
        nodes[19_000] = r#"{"id":"n19000","cost":1,"colocate":"w","device":"d0"}"#.into();
        let edges: Vec<String> = (1..n)
            .map(|i| format!(r#"{{"src":"n{}","dst":"n{i}","bytes":1}}"#, i - 1))
            .collect();
        let g = joined(&nodes, &edges);
        let c = Cluster::uniform(&[1.0, 2.0], 1.0, 0.0);
        let p = Problem::new(&g, &c).unwrap();
        let placement = run(&p).unwrap();
        verify(&p, &placement).unwrap();
        assert_eq!(placement[5], 0);
        assert_eq!(placement[19_000], 0);
        // The chain runs on the fast d1 until the group drags node 5 to d0; node 6 then
        // follows its predecessor (traffic floor vs a transfer) and stays on d0.
        assert_eq!(placement[4], 1);
        assert_eq!(placement[6], 0);
    }

    #[test]
    fn honours_rules_groups_and_tight_memory() {
        let (g, c) = constrained();
        let p = Problem::new(&g, &c).unwrap();
        let placement = run(&p).unwrap();
        verify(&p, &placement).unwrap();
        let gpus_used = (1..4).filter(|d| placement.contains(d)).count();
        assert!(
            gpus_used >= 2,
            "memory forces the ops onto more than one gpu"
        );
    }
}
