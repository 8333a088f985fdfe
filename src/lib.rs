//! # placesim
//!
//! Simulates a deep-learning dataflow graph (ops with costs, tensors with sizes) running one
//! training step on heterogeneous devices, under every placement strategy and every
//! per-device scheduling strategy of four papers, and reports makespan, traffic and memory.
//!
//! Data flows one way:
//!
//! ```text
//! JSON files, ONNX models -> model (validated once) -> place -> sim (with schedule + transfer policies)
//!                         -> compare (pairs x seeds) -> report (tables, JSON, Chrome trace, timeline)
//! ```
//!
//! - [`model`]: graph, cluster, the cost model joining them ([`model::problem::Problem`]).
//! - [`scenario`]: what a comparison asks ([`scenario::Scenario`]): its resolution, loading,
//!   the defaults, the sweep spec, and the share-link codec ([`scenario::link`]).
//! - [`import`]: other formats in: ONNX models to a graph (`docs/onnx.md`).
//! - [`analysis`]: ranks, critical path, lower bounds.
//! - [`place`]: one file per placement strategy behind [`place::Placer`].
//! - [`schedule`]: one file per device scheduling strategy behind [`schedule::Scheduler`].
//! - [`transfer`]: one file per link-queue ordering behind [`transfer::LinkQueue`].
//! - [`sim`]: the discrete-event simulator; it knows no strategy.
//! - [`compare`]: runs a scenario; the one entry point of the CLI and the wasm adapter.
//! - [`report`]: text tables, Chrome trace events, timeline data.
//! - [`util`]: building blocks shared by placers and schedulers (heap entries).

// No `unsafe` in the engine (the fuzz targets rely on it to run without AddressSanitizer);
// only the wasm adapter's generated bindings may use it.
#![deny(unsafe_code)]

pub mod analysis;
pub mod clock;
pub mod compare;
pub mod error;
pub mod import;
pub mod model;
pub mod optim;
pub mod pair;
pub mod params;
pub mod place;
pub mod plan;
pub mod report;
pub mod rng;
pub mod scenario;
pub mod schedule;
pub mod sim;
pub mod sweep;
pub mod transfer;
pub mod transform;
pub mod units;
pub mod util;

#[cfg(test)]
mod testutil;

#[cfg(target_arch = "wasm32")]
#[allow(unsafe_code)]
mod wasm;

pub use error::{Error, Result};
