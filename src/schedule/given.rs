//! `given`: replays the order of the placer's plan (a joint strategy such as `heft`, whose
//! plan is its own insertion-based schedule; Pesto21's optimiser).
//!
//! Two modes, chosen by `given.work_conserving` (shared with the `given` link order):
//! - **strict** (0, the default): each device runs exactly its planned sequence. A free
//!   device whose next planned op is not executable yet *holds* (stays idle) even when
//!   other ops are executable, as the plan intends; this is the non-work-conserving rule the
//!   scheduler contract allows (see the module doc of `schedule`). A sequence that
//!   contradicts the graph deadlocks; the simulator then reports unfinished ops and the
//!   comparison a failed run. A strict replay of a plan whose ops never overlap on a device
//!   and never start before their inputs arrive reproduces its times exactly.
//! - **priority** (1): work-conserving; a free device runs its executable op with the highest
//!   plan priority (ties: topological position). A plan with no sequences is replayed
//!   this way in both modes.
//!
//! Without a hint (direct use outside a comparison) every priority is equal: topological
//! order.

use super::{ReadyHeaps, Scheduler, SchedulerInfo, SimView};
use crate::analysis::topo_position;
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::plan::Order;
use crate::plan::REPLAY_MODE;
use crate::rng::Rng;

pub const INFO: SchedulerInfo = SchedulerInfo {
    name: "given",
    summary: "replays the placer's plan: its per-device sequences, or its priorities",
    params: &[REPLAY_MODE],
    needs_plan: true,
    make: |params: &Params, _: Rng| Box::new(Given::new(params.get(REPLAY_MODE.name) != 0.0)),
};

pub struct Given {
    work_conserving: bool,
    order: Option<Order>,
    /// Strict mode: the position of each device's next planned op, and which ops are ready.
    cursor: Vec<usize>,
    is_ready: Vec<bool>,
    /// Priority mode.
    heaps: ReadyHeaps,
    pos: Vec<u32>,
}

impl Given {
    pub fn new(work_conserving: bool) -> Given {
        Given {
            work_conserving,
            order: None,
            cursor: Vec::new(),
            is_ready: Vec::new(),
            heaps: ReadyHeaps::default(),
            pos: Vec::new(),
        }
    }

    fn sequences(&self) -> Option<&Vec<Vec<NodeIx>>> {
        if self.work_conserving {
            return None;
        }
        self.order.as_ref().and_then(|o| o.sequences.as_ref())
    }
}

impl Scheduler for Given {
    fn hint(&mut self, order: &Order) {
        self.order = Some(order.clone());
    }

    fn init(&mut self, problem: &Problem, _: &[DevIx]) {
        let k = problem.device_count();
        if self.sequences().is_some() {
            self.cursor = vec![0; k];
            self.is_ready = vec![false; problem.node_count()];
        } else {
            self.heaps = ReadyHeaps::new(k);
            self.pos = topo_position(problem);
        }
    }

    fn ready(&mut self, v: NodeIx, d: DevIx, _: f64) {
        if self.sequences().is_some() {
            self.is_ready[v as usize] = true;
        } else {
            let key = self.order.as_ref().map_or(0.0, |o| o.priority[v as usize]);
            self.heaps.push(d, v, key, self.pos[v as usize] as u64);
        }
    }

    fn pick(&mut self, d: DevIx, _: &SimView) -> Option<NodeIx> {
        let Some(seqs) = self.sequences() else {
            return self.heaps.pop(d);
        };
        let &v = seqs[d as usize].get(self.cursor[d as usize])?;
        if !self.is_ready[v as usize] {
            return None; // hold: the plan's next op on d is not executable yet
        }
        self.cursor[d as usize] += 1;
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cluster::Cluster;
    use crate::model::graph::Graph;
    use crate::model::LinkModel;
    use crate::place::heft::{heft_schedule, Heft};
    use crate::place::{PlaceContext, Placer};
    use crate::sim::{simulate, SimOptions, SimResult};
    use crate::testutil::{graph, topcuoglu};
    use crate::transfer::given::GivenLinks;
    use crate::transfer::LinkOrder;

    fn replay(
        p: &Problem,
        placement: &[DevIx],
        order: &Order,
        wc: bool,
        links: LinkModel,
    ) -> SimResult {
        let mut s = Given::new(wc);
        let mut q = GivenLinks::new(wc);
        s.hint(order);
        q.hint(order);
        simulate(
            p,
            placement,
            &mut s,
            &mut q,
            SimOptions {
                links,
                record: true,
            },
        )
    }

    /// HEFT's plan of `p`, checked.
    fn heft_plan(p: &Problem) -> crate::plan::Plan {
        let mut ctx = PlaceContext::quiet(Rng::new(0));
        let plan = Heft.plan(p, &Params::default(), &mut ctx).unwrap();
        plan.check(p).unwrap();
        plan
    }

    /// `heft x given` on Topcuoglu's example runs HEFT's own schedule: makespan 80 and every
    /// op at its planned start and finish.
    #[test]
    fn heft_plan_replays_exactly_on_topcuoglus_example() {
        let (g, c) = topcuoglu();
        let p = Problem::new(&g, &c).unwrap();
        let s = heft_schedule(&p).unwrap();
        let plan = heft_plan(&p);
        assert_eq!(plan.report.as_ref().unwrap().objective, 80.0);
        let r = replay(
            &p,
            &plan.placement,
            plan.order.as_ref().unwrap(),
            false,
            LinkModel::Parallel,
        );
        assert_eq!(r.makespan, 80.0);
        let ops = r.trace.unwrap().ops;
        for (v, &times) in ops.iter().enumerate() {
            assert_eq!(times, (s.start[v], s.finish[v]), "node {v}");
        }
    }

    /// Random DAGs (zero-cost ops, zero-byte edges, shared tensors, latencies, heterogeneous
    /// speeds and bandwidths) under parallel links: the strict replay of HEFT's plan gives
    /// HEFT's makespan and times, bit for bit; the work-conserving replay never deadlocks.
    #[test]
    fn heft_plan_replays_exactly_on_random_dags() {
        for seed in 0..300u64 {
            let mut r = Rng::new(seed);
            let n = 2 + r.below(40) as usize;
            let k = 1 + r.below(5) as usize;
            let mut nodes = Vec::new();
            for i in 0..n {
                let cost = if r.below(6) == 0 {
                    0.0
                } else {
                    r.uniform(0.5, 20.0)
                };
                nodes.push(format!(r#"{{"id":"n{i}","cost":{cost}}}"#));
            }
            let mut edges = Vec::new();
            for j in 1..n {
                for i in 0..j {
                    if r.below(5) == 0 {
                        let bytes = if r.below(5) == 0 {
                            0.0
                        } else {
                            r.uniform(1.0, 50.0)
                        };
                        let tensor = if r.below(2) == 0 {
                            r#","tensor":"t""#
                        } else {
                            ""
                        };
                        edges.push(format!(
                            r#"{{"src":"n{i}","dst":"n{j}","bytes":{bytes}{tensor}}}"#
                        ));
                    }
                }
            }
            let g = Graph::from_json(
                &format!(
                    r#"{{"nodes":[{}],"edges":[{}]}}"#,
                    nodes.join(","),
                    edges.join(",")
                ),
                "g",
            )
            .unwrap();
            let speeds: Vec<f64> = (0..k).map(|_| r.uniform(1.0, 8.0)).collect();
            let c = Cluster::uniform(&speeds, r.uniform(1.0, 20.0), r.uniform(0.0, 2.0));
            let p = Problem::new(&g, &c).unwrap();
            let plan = heft_plan(&p);
            let order = plan.order.as_ref().unwrap();
            let want = plan.report.as_ref().unwrap().objective;
            let s = heft_schedule(&p).unwrap();
            let strict = replay(&p, &plan.placement, order, false, LinkModel::Parallel);
            assert_eq!(strict.unfinished, 0);
            assert_eq!(strict.makespan, want, "seed {seed}");
            let ops = strict.trace.unwrap().ops;
            for (v, &times) in ops.iter().enumerate() {
                assert_eq!(times, (s.start[v], s.finish[v]), "seed {seed} node {v}");
            }
            for links in [LinkModel::Parallel, LinkModel::Fcfs] {
                let wc = replay(&p, &plan.placement, order, true, links);
                assert_eq!(wc.unfinished, 0, "seed {seed}");
                let strict_fcfs = replay(&p, &plan.placement, order, false, LinkModel::Fcfs);
                assert_eq!(strict_fcfs.unfinished, 0, "seed {seed}");
                // Contention only delays: never faster than the contention-free plan.
                assert!(strict_fcfs.makespan >= want, "seed {seed}");
            }
        }
    }

    /// One device, s(1) -> x(1) on d1 and y(1) on d0 ready at once, x needs s's output (2
    /// bytes over bandwidth 1): d0 runs s 0..1; the transfer takes 1..3; x is on d0.
    ///
    /// ```text
    ///   d1: s(1) --2 bytes--> d0: x(1)        d0: y(1) (no inputs)
    /// ```
    /// Plan sequence on d0: [x, y].
    /// - strict: d0 holds while only y is ready (0..3), runs x 3..4, then y 4..5: makespan 5.
    /// - work-conserving by the same priorities: y runs at once 0..1, x 3..4: makespan 4.
    #[test]
    fn strict_holds_a_device_and_priority_mode_does_not() {
        let g = graph(
            r#"{"nodes":[{"id":"s","cost":1},{"id":"x","cost":1},{"id":"y","cost":1}],
                "edges":[{"src":"s","dst":"x","bytes":2}]}"#,
        );
        let c = Cluster::uniform(&[1.0, 1.0], 1.0, 0.0);
        let p = Problem::new(&g, &c).unwrap();
        let placement = [1, 0, 0];
        let order = Order {
            priority: vec![3.0, 2.0, 1.0],
            sequences: Some(vec![vec![1, 2], vec![0]]),
            transfers: None,
        };
        let strict = replay(&p, &placement, &order, false, LinkModel::Parallel);
        assert_eq!(
            strict.trace.unwrap().ops,
            vec![(0.0, 1.0), (3.0, 4.0), (4.0, 5.0)]
        );
        let wc = replay(&p, &placement, &order, true, LinkModel::Parallel);
        assert_eq!(
            wc.trace.unwrap().ops,
            vec![(0.0, 1.0), (3.0, 4.0), (0.0, 1.0)]
        );
        assert_eq!(wc.makespan, 4.0);
    }

    /// A strict sequence against the graph (b before a, but a feeds b, both on d0) would wait
    /// forever: the run ends, both ops unrun, and nothing hangs.
    #[test]
    fn a_strict_replay_that_deadlocks_ends_with_unfinished_ops() {
        let g = graph(
            r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1},{"id":"c","cost":1}],
                "edges":[{"src":"a","dst":"b","bytes":1}]}"#,
        );
        let c = Cluster::uniform(&[1.0, 1.0], 1.0, 0.0);
        let p = Problem::new(&g, &c).unwrap();
        let order = Order {
            priority: vec![0.0; 3],
            sequences: Some(vec![vec![1, 0], vec![2]]),
            transfers: None,
        };
        let r = replay(&p, &[0, 0, 1], &order, false, LinkModel::Fcfs);
        assert_eq!(r.unfinished, 2);
        assert_eq!(r.makespan, 1.0, "c on d1 still ran");
        // The work-conserving replay of the same plan runs everything.
        assert_eq!(
            replay(&p, &[0, 0, 1], &order, true, LinkModel::Fcfs).unfinished,
            0
        );
    }
}
