//! The exact mode's constraint model (Pesto21 §3.2.2's problem, with the simulator's
//! semantics), solved by Pumpkin, a lazy-clause-generation CP solver that builds for wasm
//! (crates `pumpkin-core`, `pumpkin-constraints`, `pumpkin-conflict-resolvers`; not
//! `pumpkin-solver`, whose command-line dependencies do not build for wasm32), in place of
//! the paper's CPLEX ILP:
//!
//! - [`instance`]: the scheduling instance (the problem's ops, or a coarse graph's vertices,
//!   §3.3) and what a schedule of it replays as;
//! - [`model`]: the constraints, one posting function per family;
//! - [`search`]: the time scale, the branching, the budget and the SAT-UNSAT loop.
//!
//! Why a CP model and not the branch and bound alone (`cargo bench --bench pesto -- exact`,
//! 20 ops, fcfs links, 2-4 GPUs, 4 seeds each; timings include the anytime phase): the model
//! proved 12 of 12 instances in 0.17-0.36 s; the branch and bound proved 5 of 12
//! (0.17-2.4 s) and stopped at its 2e6-node limit on the others after 3.3-10.7 s with gaps
//! of 11-18%.
//!
//! What it is not: a placer; the placer decides when it runs and what its outcome claims.

pub mod instance;
pub mod model;
pub mod search;

pub use instance::{CpInstance, CpSchedule, WindowTimes};
pub use search::{solve, Budget, CpOutcome};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use crate::model::problem::Problem;
    use crate::model::LinkModel;

    /// The fifo rule: A(1) -> B(1) pinned to g0, A -> C(1) 5 bytes and B -> D(10) 1 byte,
    /// C and D pinned to g1, bandwidth 1. A's send is ready first (A precedes B), so under
    /// `fifo` it goes first: [1, 6], B's [6, 7], C [6, 7], D [7, 17]: 17. A free link order
    /// sends B's first ([2, 3], then A's [3, 8]): D [3, 13], C [13, 14]: 14.
    #[test]
    fn the_fifo_rule_sends_the_earlier_producer_first() {
        let (g, c) = crate::testutil::fifo_case();
        let p = Problem::new(&g, &c).unwrap();
        let clock = Clock::start();
        let budget = Budget {
            limit: 100_000,
            seconds: 0.0,
            clock: &clock,
        };
        for (fifo, optimum) in [(true, 17.0), (false, 14.0)] {
            let inst = CpInstance::of_problem(&p, LinkModel::Fcfs).with_fifo(fifo);
            assert_eq!(inst.fifo, fifo);
            let out = solve(&p, &inst, 100.0, &[0, 0, 1, 1], &budget, &mut |_| Ok(())).unwrap();
            assert!(out.proven && out.exact, "fifo {fifo}");
            assert_eq!(out.lower, optimum, "fifo {fifo}");
            let s = out.best.expect("a schedule");
            let first = s.sends[0].1;
            // Message 1 is a -> c (5 bytes), message 2 is b -> d.
            assert_eq!(first, if fifo { 1 } else { 2 }, "fifo {fifo}");
        }
        // Parallel links have no queue: the rule does not apply.
        let inst = CpInstance::of_problem(&p, LinkModel::Parallel).with_fifo(true);
        assert!(!inst.fifo);
    }
}
