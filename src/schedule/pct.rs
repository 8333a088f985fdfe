//! `pct`: Highest Path Computation Time first (Mayer17 §4.1, eq. 12).
//!
//! "PCT schedules always the executable vertex whose longest path of direct and indirect
//! successors takes most computation time":
//!
//! `PCT(v_i) = max over v_j in succ(v_i) of (PCT(v_j) + trans(v_j, v_i)) + c_i / s_p(v_i)`
//!
//! computed "once for each vertex, after the partitioning is decided" ([`Scheduler::init`]),
//! from the sinks up. A free device runs its executable op with the highest PCT.
//!
//! Choices where the paper is ambiguous:
//! - `c_i / s_p(v_i)` is the op's run time on its placed device, `Problem::exec(v, p(v))`
//!   (which also honours per-kind time tables and op speed factors).
//! - `trans(v_j, v_i)` is the transfer of the edge `v_i -> v_j` (the paper writes the
//!   indices the other way round): `Problem::edge_transfer_time` between the two placed
//!   devices, latency included, 0 when both are on one device. With several edges
//!   between the same pair each edge is a term of the max, so the costliest one counts.
//! - Ties (equal PCT) go to the lowest node index.

use super::{ReadyHeaps, Scheduler, SchedulerInfo, SimView};
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::{FlatLists, Problem};
use crate::params::Params;
use crate::rng::Rng;

pub const INFO: SchedulerInfo = SchedulerInfo {
    name: "pct",
    summary: "highest path computation time first (Mayer17 §4.1, eq. 12)",
    params: &[],
    needs_plan: false,
    make: |_: &Params, _: Rng| Box::new(Pct::default()),
};

#[derive(Default)]
pub struct Pct {
    pct: Vec<f64>,
    ready: ReadyHeaps,
}

/// Every node's out-edges in reverse topological order (the order eq. 12 is computed in),
/// as `(consumer, bytes)`: `list[start[i]..start[i + 1]]` for the `i`-th node of
/// `topo_order().rev()`, in out-edge order. Placement-independent: once per problem.
fn reverse_out(problem: &Problem) -> FlatLists<(NodeIx, f64)> {
    problem
        .memo
        .reverse_out
        .get_or_init(|| {
            let g = problem.graph;
            let mut start = Vec::with_capacity(g.node_count() + 1);
            let mut list = Vec::with_capacity(g.edge_count());
            for &v in g.topo_order().iter().rev() {
                start.push(list.len() as u32);
                list.extend(
                    g.out_edges(v)
                        .iter()
                        .map(|&e| (g.edges[e as usize].dst, problem.edge_bytes(e))),
                );
            }
            start.push(list.len() as u32);
            (start.into(), list.into())
        })
        .clone()
}

/// Eq. 12 for every node under `placement`, in `O(V + E)`.
pub fn path_computation_time(problem: &Problem, placement: &[DevIx]) -> Vec<f64> {
    let g = problem.graph;
    let (start, list) = reverse_out(problem);
    let mut pct = vec![0.0; g.node_count()];
    for (i, &v) in g.topo_order().iter().rev().enumerate() {
        let d = placement[v as usize];
        let tail = list[start[i] as usize..start[i + 1] as usize]
            .iter()
            .map(|&(w, bytes)| {
                let to = placement[w as usize];
                // On one device the transfer is 0: its bytes need not be read.
                let trans = if to == d {
                    0.0
                } else {
                    problem.cluster.transfer_time(d, to, bytes)
                };
                pct[w as usize] + trans
            })
            .fold(0.0, f64::max);
        pct[v as usize] = tail + problem.exec(v, d);
    }
    pct
}

impl Scheduler for Pct {
    fn init(&mut self, problem: &Problem, placement: &[DevIx]) {
        self.pct = path_computation_time(problem, placement);
        self.ready = ReadyHeaps::new(problem.device_count());
    }

    fn ready(&mut self, v: NodeIx, d: DevIx, _: f64) {
        self.ready.push(d, v, self.pct[v as usize], v as u64);
    }

    fn pick(&mut self, d: DevIx, _: &SimView) -> Option<NodeIx> {
        self.ready.pop(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::LinkModel;
    use crate::model::{cluster::Cluster, graph::Graph};
    use crate::sim::{simulate, SimOptions};
    use crate::testutil::graph;
    use crate::transfer::fifo::FifoLinks;

    /// Five ops on two devices (speeds 1 and 2, bandwidth 10, latency 1):
    ///
    /// ```text
    ///   a(2) --40B--> b(4) --> d(6)      placement: a, b, c, e on d0; d on d1
    ///   a    --------> c(2) --> e(2)
    /// ```
    /// Run times: a 2, b 4, c 2, e 2 on d0 (speed 1); d 6 / 2 = 3 on d1.
    /// - PCT(e) = 2, PCT(d) = 3 (sinks)
    /// - PCT(c) = 2 + (PCT(e) + 0) = 4
    /// - PCT(b) = 4 + (PCT(d) + trans(b->d)); b->d carries 20 bytes: 1 + 20/10 = 3, so 4 + 6 = 10
    /// - PCT(a) = 2 + max(PCT(b) + trans 0, PCT(c) + 0) = 12
    ///
    /// After a, both b and c are executable on d0: b (10) runs before c (4).
    fn case() -> (Graph, Cluster) {
        let g = graph(
            r#"{"nodes":[{"id":"a","cost":2},{"id":"b","cost":4},{"id":"c","cost":2},{"id":"d","cost":6},{"id":"e","cost":2}],
                "edges":[{"src":"a","dst":"b","bytes":40},{"src":"a","dst":"c"},{"src":"b","dst":"d","bytes":20},
                         {"src":"c","dst":"e"}]}"#,
        );
        (g, Cluster::uniform(&[1.0, 2.0], 10.0, 1.0))
    }

    #[test]
    fn hand_computed_pct_and_order() {
        let (g, c) = case();
        let p = Problem::new(&g, &c).unwrap();
        let placement = vec![0, 0, 0, 1, 0];
        assert_eq!(
            path_computation_time(&p, &placement),
            vec![12.0, 10.0, 4.0, 3.0, 2.0]
        );
        let mut s = Pct::default();
        let r = simulate(
            &p,
            &placement,
            &mut s,
            &mut FifoLinks::default(),
            SimOptions {
                links: LinkModel::Parallel,
                record: true,
            },
        );
        let ops = r.trace.unwrap().ops;
        // a 0-2, b 2-6, c 6-8, e 8-10; d waits for b's 20 bytes: 6 + 3 = 9, runs 9-12.
        assert_eq!(
            ops,
            vec![(0.0, 2.0), (2.0, 6.0), (6.0, 8.0), (9.0, 12.0), (8.0, 10.0)]
        );
        assert_eq!(r.makespan, 12.0);
    }

    #[test]
    fn transfers_count_only_across_devices_and_ties_go_to_the_lowest_index() {
        let (g, c) = case();
        let p = Problem::new(&g, &c).unwrap();
        // Everything on d0: no transfer, PCT(b) = 4 + 6 = 10 (d now takes 6 on speed 1).
        let all0 = vec![0; 5];
        assert_eq!(path_computation_time(&p, &all0)[1], 10.0);
        // Tie: two ready ops of equal PCT run lowest index first.
        let mut s = Pct::default();
        s.init(&p, &all0);
        s.pct = vec![1.0; 5];
        let view = SimView {
            now: 0.0,
            busy: &[false, false],
        };
        s.ready(4, 0, 0.0);
        s.ready(2, 0, 0.0);
        s.ready(3, 0, 0.0);
        assert_eq!(s.pick(0, &view), Some(2));
        assert_eq!(s.pick(0, &view), Some(3));
        assert_eq!(s.pick(0, &view), Some(4));
        assert_eq!(s.pick(0, &view), None);
    }
}
