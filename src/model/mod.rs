//! What a problem is: the graph, the cluster and the cost model joining them. Everything
//! here is validated when it is built and immutable afterwards; code downstream never
//! re-checks it. The model knows no strategy: it imports nothing from `place`, `schedule`
//! or `transfer` (a test in `tests/architecture.rs` keeps it so).

pub mod cluster;
pub mod graph;
pub mod problem;
pub mod synthetic;
