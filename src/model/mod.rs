//! What a problem is: the graph, the cluster and the cost model joining them. Everything
//! here is validated when it is built and immutable afterwards; code downstream never
//! re-checks it. The model knows no strategy: it imports nothing from `place`, `schedule`
//! or `transfer` (a test in `tests/architecture.rs` keeps it so).

/// Largest magnitude of any amount a graph, cluster or scenario gives (cost, time, mem,
/// bytes, speed, memory, bandwidth, latency, op speed factor, what-if scale, randomized
/// range). Far above any real model (an op of 1e30 flops, a tensor of 1e30 bytes), it keeps
/// every quantity the engine derives finite: run times `cost / (speed * factor)` under
/// what-if scales, transfer times, sums over millions of ops and seeds, and their squares in
/// a standard deviation. Loading rejects a larger number with an error naming its field.
pub const MAX_AMOUNT: f64 = 1e30;
/// Smallest value of an amount that must be positive (speed, bandwidth, op speed factor,
/// what-if scale, memory fraction): what divides by it stays below `1e90`, and a product of
/// two of them never rounds to zero.
pub const MIN_POSITIVE: f64 = 1e-30;

/// A number in an error message: plain, or in exponent form when that is much shorter
/// (`1e308`, not three hundred digits).
pub(crate) fn show(x: f64) -> String {
    let plain = format!("{x}");
    let exp = format!("{x:e}");
    if exp.len() + 4 < plain.len() {
        exp
    } else {
        plain
    }
}

pub mod cluster;
pub mod graph;
pub mod groups;
mod links;
pub mod problem;
pub mod synthetic;

pub use links::LinkModel;
