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

pub use instance::{CpInstance, CpSchedule};
pub use search::{solve, Budget, CpOutcome};
