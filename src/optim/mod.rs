//! The optimiser behind Pesto21's joint placement and ordering (Pesto21 §3.2, the model and
//! its ILP; §3.3, coarsening), as building blocks the `pesto` placer (`place/pesto.rs`)
//! orchestrates:
//!
//! - [`decoder`]: a candidate's makespan, simulated by the pair that will replay the plan
//!   (`crate::pair`), with the work counted and the search's convergence history kept;
//! - [`search_units`]: what the search moves (coarse vertices of §3.3 joined by colocation) and
//!   a candidate over them (a device and a priority per unit);
//! - [`anneal`]: the anytime search, simulated annealing over candidates;
//! - [`local`]: critical-path local search on the full graph from the best warm start;
//! - [`lns`]: large-neighbourhood search: a window of the schedule re-solved by `cp`;
//! - [`cut`]: layer-cut warm starts, the cut points searched by simulation among those
//!   that fit memory;
//! - [`cp`]: the constraint model of §3.2.2's problem with the simulator's semantics,
//!   posted one constraint family at a time, and its search (Pumpkin, a lazy-clause-
//!   generation solver);
//! - [`bb`]: a branch and bound over placement and activity order, in the simulator's own
//!   arithmetic, for real-valued run times the integer model can only bound.
//!
//! What it is not: a placer. It has no parameters of its own, no warm starts (the placer
//! takes them through the placer registry, which this layer may not import), and it words
//! no report: it returns plans, makespans, bounds and work done, and `place/pesto.rs`
//! decides what they claim. Why a search and not the paper's big-M ILP: it needs CPLEX and
//! minutes on ~200 vertices (§5.3) and cannot run in the browser. See ../docs/pesto.md for
//! the shipped scenarios and what they reproduce.

use crate::error::Result;
use crate::model::cluster::DevIx;
use crate::model::problem::Problem;
use crate::plan::{Order, Placement};
use crate::rng::Rng;

pub mod anneal;
pub mod bb;
pub mod cp;
pub mod cut;
pub mod decoder;
pub mod lns;
pub mod local;
pub mod search_units;

pub use decoder::Decoder;
pub use search_units::{project, Candidate, SearchUnits};

/// Relative tolerance under which the exact searches do not chase an improvement.
pub const TOL: f64 = 1e-9;

/// Told the fraction done (0 to 1); an error when the user cancelled, which a search
/// returns at once (`?`). The placer's `PlaceContext::progress`.
pub type Progress<'a> = dyn FnMut(f64) -> Result<()> + 'a;

/// An order by priority only (higher first; no sequences, no transfer order): a
/// work-conserving replay.
pub fn by_priority(priority: Vec<f64>) -> Order {
    Order {
        priority,
        sequences: None,
        transfers: None,
    }
}

/// The best plan found so far, on the full graph.
#[derive(Clone)]
pub struct Best {
    pub placement: Placement,
    pub order: Order,
    pub makespan: f64,
}

impl Best {
    /// Keeps a decoded plan when it beats the best so far, and tells the decoder (whose
    /// history records each improvement).
    pub fn offer(&mut self, placement: &[DevIx], order: Order, makespan: f64, dec: &mut Decoder) {
        if makespan < self.makespan {
            *self = Best {
                placement: placement.to_vec(),
                order,
                makespan,
            };
            dec.improved(makespan);
        }
    }
}

/// Metropolis acceptance, as annealing and the local search take a candidate: always when it
/// is no worse than the current one, else with probability `exp(-(val - cur) / temperature)`
/// (drawing from `rng` only then, so the stream stays as it was).
pub fn metropolis(val: f64, cur: f64, temperature: f64, rng: &mut Rng) -> bool {
    val <= cur || (temperature > 0.0 && rng.unit() < libm::exp(-(val - cur) / temperature))
}

/// Each device's memory capacity.
pub fn capacity(problem: &Problem) -> Vec<f64> {
    problem.cluster.devices.iter().map(|d| d.memory).collect()
}

/// Devices that are interchangeable: same memory, same run time for every task, same links
/// to every other device and both ways between them. A relabelling of identical devices
/// changes no makespan, so the exact searches (`cp`, `bb`) only consider placements that
/// open them in index order.
pub fn device_classes(problem: &Problem, exec: &[Vec<f64>]) -> Vec<usize> {
    let k = problem.device_count();
    let c = problem.cluster;
    let tt = |s, d, x| c.transfer_time(s, d, x);
    let same = |a: DevIx, b: DevIx| {
        c.devices[a as usize].memory == c.devices[b as usize].memory
            && exec.iter().all(|row| row[a as usize] == row[b as usize])
            && (0..k as DevIx).filter(|&e| e != a && e != b).all(|e| {
                [0.0, 1.0]
                    .iter()
                    .all(|&x| tt(a, e, x) == tt(b, e, x) && tt(e, a, x) == tt(e, b, x))
            })
            && [0.0, 1.0].iter().all(|&x| tt(a, b, x) == tt(b, a, x))
    };
    let mut class = vec![usize::MAX; k];
    for d in 0..k {
        if class[d] != usize::MAX {
            continue;
        }
        class[d] = d;
        for (e, c) in class.iter_mut().enumerate().skip(d + 1) {
            if *c == usize::MAX && same(d as DevIx, e as DevIx) {
                *c = d;
            }
        }
    }
    class
}
