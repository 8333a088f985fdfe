//! Runs a scenario: every placer x scheduler pair x every seed, aggregated.
//!
//! This is the one entry point that both the CLI and the wasm adapter call. For each seed
//! it realizes the cluster and costs, runs each placer once (timing it, and verifying the
//! placement), then simulates that placement under each scheduler. A placer that cannot
//! meet a constraint yields rows with an `error` instead of aborting the comparison.
//!
//! The scenario is resolved once, by the caller ([`Scenario::resolve`]): strategies,
//! parameters and the pairs that run; every entry point takes the [`Resolved`] scenario. A
//! placer returns a [`Plan`]; replaying policies (`given`) get its order.
//! A pair whose placer fails, or whose replay deadlocks, gets a row `error` for that seed.
//!
//! Randomness: placer `p` at seed `i` draws from `derive(seed, ["place", p], i)`; the
//! scheduler and link order of each pair draw from the streams [`Pair::streams`] names
//! (`["schedule", p, s]` and `["link_order", p, s, o]`), the same streams a planning
//! placer's decoder uses for its pair `p x given`; adding or removing a strategy never
//! changes another's numbers. Every pair runs through [`crate::pair`].

use serde::{Deserialize, Serialize};

use crate::analysis;
use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::model::cluster::Cluster;
use crate::model::graph::Graph;
use crate::model::problem::Problem;
use crate::pair::Pair;
use crate::place::{self, PlaceContext};
use crate::plan::{BoundScope, Placement, Plan, SolveReport};
use crate::rng::Rng;
use crate::scenario::{Resolved, Scenario};
use crate::sim::{self, SimResult};
use crate::units::UnitSystem;

mod items;
mod merge;
#[cfg(not(target_arch = "wasm32"))]
mod parallel;
mod seed;
#[cfg(test)]
mod tests;
mod types;

pub use items::*;
pub use merge::*;
#[cfg(not(target_arch = "wasm32"))]
pub use parallel::run_parallel;
pub use seed::*;
pub use types::*;

/// Progress callback: `(done, total)` work units (one per placement and one per
/// simulation; `done` moves by fractions while a long placer reports); return `false` to
/// stop early.
pub type Progress<'a> = &'a mut dyn FnMut(f64, usize) -> bool;

/// Runs `items` (some of a scenario's [`work_items`]) one after the other: the partial
/// comparison a worker of the page returns. `progress(done, total)` counts these items'
/// units; answering `false` stops with `Error::Cancelled`.
pub fn run_part(
    resolved: &Resolved,
    graph: &Graph,
    fixed: Option<&Cluster>,
    items: &[WorkItem],
    cache: &mut SeedCache,
    progress: Progress,
) -> Result<Partial> {
    let total: usize = items.iter().map(|it| item_units(resolved, it)).sum();
    let mut base = 0usize;
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let b = base as f64;
        let r = run_item(resolved, graph, fixed, item, cache, &mut |d, _| {
            progress(b + d, total)
        })?;
        base += item_units(resolved, item);
        // A seed that cannot run stops a sequential run: the merge reports it.
        let stop = r.outcome.is_err();
        out.push(r);
        if stop {
            break;
        }
    }
    Ok(Partial {
        graph: graph_summary(graph),
        items: out,
    })
}

/// Runs every pair of a resolved scenario over its seeds, one after the other. `fixed` is
/// the loaded cluster when the scenario does not generate one.
pub fn run(
    resolved: &Resolved,
    graph: &Graph,
    fixed: Option<&Cluster>,
    progress: Progress,
) -> Result<Comparison> {
    let items = work_items(resolved, 1);
    let part = run_part(
        resolved,
        graph,
        fixed,
        &items,
        &mut SeedCache::default(),
        progress,
    )?;
    merge(resolved, &[part])
}

/// The case the page runs once, at idle, to warm the engine: the default scenario's
/// strategies (`scenario::defaults`) on a generated graph of `ops` ops
/// (`synthetic::layered_dag`, seed 1, file `warm-up.json`) and a generated cluster of
/// `devices` devices. Returns the scenario and the graph's text.
///
/// Why: V8 runs a wasm function as baseline code until the function has run a while, then
/// compiles it to optimized code on a background thread. A page's first large comparison
/// thus ran its hot functions as baseline code and compiled them on the cores its workers
/// needed (a Chromium trace of the 20,000-op comparison on 2 workers: 390 ms of
/// `wasm.TopTierCompilation`). The workers share one compiled module, so one worker's
/// warm-up gives every worker the optimized code; its items' times, once optimized, also
/// rank the placers for the first run's longest-first order (www/worker.js, `warm`).
pub fn warm_up_case(ops: usize, devices: usize) -> (Scenario, String) {
    let text =
        crate::model::synthetic::layered_dag(crate::model::synthetic::SyntheticSpec::new(ops, 1));
    let mut scenario = crate::scenario::defaults::defaults();
    scenario.graph = crate::scenario::GraphSource::File("warm-up.json".into());
    if let crate::scenario::ClusterSource::Generate(spec) = &mut scenario.cluster {
        spec.devices = devices;
    }
    (scenario, text)
}
