//! What a problem is: the graph, the cluster, the cost model joining them, and the
//! scenario that describes a whole comparison. Everything here is validated when it is
//! built and immutable afterwards; code downstream never re-checks it.

pub mod cluster;
pub mod graph;
pub mod problem;
pub mod scenario;
pub mod synthetic;
