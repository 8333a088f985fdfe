//! `heft`: HEFT's task priority as a per-device order (Topcuoglu, Hariri, Wu 2002, §4.1;
//! Mayer17 §5.1 baseline).
//!
//! A free device runs its executable op with the highest upward rank `rank_u`
//! ([`heft_rank_u`](crate::analysis::heft_rank_u): mean run time over allowed devices plus the costliest path of mean
//! communication `L̄ + bytes / B̄` and ranks below). It gives any placement HEFT's
//! prioritisation; `heft` placement with `heft` scheduling is the classic joint algorithm
//! run through the simulator.
//!
//! Choices:
//! - The rank uses HEFT's placement-independent means, not the actual placement (that is
//!   what `pct` does), so the order is the one the `heft` placer planned with.
//! - Ties go to the op earlier in the graph's topological order, as in the placer's list.
//! - The simulator never leaves a device idle while it has an executable op, so the run
//!   may differ from the placer's insertion-based plan: an op that HEFT slotted into a
//!   later gap may run earlier here if its device is free, and vice versa. The plan is
//!   available from the `heft` placer's `heft_schedule` (`place/heft/mod.rs`).

use super::{ReadyHeaps, Scheduler, SchedulerInfo, SimView};
use std::sync::Arc;

use crate::analysis::{shared_rank_u, shared_topo_position};
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::rng::Rng;

pub const INFO: SchedulerInfo = SchedulerInfo {
    name: "heft",
    summary: "highest HEFT upward rank first (Topcuoglu 2002; Mayer17 §5.1)",
    params: &[],
    needs_plan: false,
    make: |_: &Params, _: Rng| Box::new(HeftOrder::default()),
};

#[derive(Default)]
pub struct HeftOrder {
    /// The problem's ranks and positions, computed once per problem (placement-independent).
    rank: Arc<[f64]>,
    pos: Arc<[u32]>,
    ready: ReadyHeaps,
}

impl Scheduler for HeftOrder {
    fn init(&mut self, problem: &Problem, _: &[DevIx]) {
        self.rank = shared_rank_u(problem);
        self.pos = shared_topo_position(problem);
        self.ready = ReadyHeaps::new(problem.device_count());
    }

    fn ready(&mut self, v: NodeIx, d: DevIx, _: f64) {
        self.ready
            .push(d, v, self.rank[v as usize], self.pos[v as usize] as u64);
    }

    fn pick(&mut self, d: DevIx, _: &SimView) -> Option<NodeIx> {
        self.ready.pop(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::heft_rank_u;
    use crate::model::cluster::Cluster;
    use crate::model::LinkModel;
    use crate::place::heft::heft_schedule;
    use crate::sim::{simulate, SimOptions};
    use crate::testutil::{assert_inputs_arrive, graph, topcuoglu};
    use crate::transfer::fifo::FifoLinks;

    /// Five ops, everything on d0 of two devices (speeds 1, 1; bandwidth 1; latency 0):
    ///
    /// ```text
    ///   s(1) --> p(1) --> q(4)        s --> r(3)
    /// ```
    /// Mean run times equal the costs; every edge is 0 bytes, so c̄ = 0.
    /// rank_u: q 4, p 1 + 4 = 5, r 3, s 1 + max(5, 3) = 6.
    /// After s, p (5) and r (3) are ready on d0: p runs first, then r (3) and q (4) are
    /// both ready: q first. Order s, p, q, r: s 0-1, p 1-2, q 2-6, r 6-9.
    #[test]
    fn hand_computed_order() {
        let g = graph(
            r#"{"nodes":[{"id":"s","cost":1},{"id":"p","cost":1},{"id":"q","cost":4},{"id":"r","cost":3}],
                "edges":[{"src":"s","dst":"p"},{"src":"p","dst":"q"},{"src":"s","dst":"r"}]}"#,
        );
        let c = Cluster::uniform(&[1.0, 1.0], 1.0, 0.0);
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(heft_rank_u(&p), vec![6.0, 5.0, 4.0, 3.0]);
        let r = simulate(
            &p,
            &[0, 0, 0, 0],
            &mut HeftOrder::default(),
            &mut FifoLinks::default(),
            SimOptions {
                links: LinkModel::Parallel,
                record: true,
            },
        );
        assert_eq!(
            r.trace.unwrap().ops,
            vec![(0.0, 1.0), (1.0, 2.0), (2.0, 6.0), (6.0, 9.0)]
        );
    }

    /// The Topcuoglu 2002 example through the simulator: HEFT's placement with HEFT's
    /// order. Every edge is honoured; the plan's makespan is 80.
    #[test]
    fn joint_heft_respects_dependencies() {
        let (g, c) = topcuoglu();
        let p = Problem::new(&g, &c).unwrap();
        let plan = heft_schedule(&p).unwrap();
        assert_eq!(plan.makespan, 80.0);
        for links in [LinkModel::Parallel, LinkModel::Fcfs] {
            let r = simulate(
                &p,
                &plan.placement,
                &mut HeftOrder::default(),
                &mut FifoLinks::default(),
                SimOptions {
                    links,
                    record: true,
                },
            );
            let ops = r.trace.unwrap().ops;
            assert_inputs_arrive(&p, &plan.placement, &ops, 0.0, &format!("{links:?}"));
            // Under parallel links the plan's timing is reproduced exactly here.
            if links == LinkModel::Parallel {
                assert_eq!(r.makespan, 80.0);
            }
        }
    }
}
