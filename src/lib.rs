//! # placesim
//!
//! Simulates a deep-learning dataflow graph (ops with costs, tensors with sizes) running one
//! training step on heterogeneous devices, under every placement strategy and every
//! per-device scheduling strategy of four papers (Mayer17, Carbonari17, TicTac19, Pesto21),
//! and reports makespan, traffic and memory.
//!
//! The modules, in layers from the bottom up: each imports only from the lines above it
//! (`tests/architecture.rs` checks it; ARCHITECTURE.md says why).
//!
//! - [`error`]: the one error type, naming the field, node or edge at fault.
//! - [`rng`], [`clock`], [`util`], [`params`], [`units`]: seeded random streams, wall clock,
//!   heap keys, strategy parameters, how numbers read (seconds and bytes, or abstract units).
//! - [`model`]: graph, cluster, link model, the cost model joining them
//!   ([`model::problem::Problem`]), colocation groups; validated once, immutable after.
//! - [`import`], [`transform`], [`analysis`]: ONNX models in; graph rewrites with a map back
//!   (replicate, coarsen); ranks and lower bounds.
//! - [`plan`]: the contract between placers and the policies that run their plans
//!   ([`plan::Plan`], [`plan::Order`], [`plan::SolveReport`]).
//! - [`schedule`], [`transfer`]: one file per device scheduling strategy behind
//!   [`schedule::Scheduler`], one per link order behind [`transfer::LinkOrder`].
//! - [`sim`]: the discrete-event simulator (it knows no strategy), and what reads a run back
//!   (its critical path, TicTac19's metrics).
//! - [`pair`]: the one way a pair (scheduler and link order) runs a plan.
//! - [`optim`]: Pesto21's optimiser: decoder, search units, annealing, constraint model,
//!   branch and bound.
//! - [`place`]: one file per placement strategy behind [`place::Placer`].
//! - [`scenario`]: what a comparison asks: the scenario, its resolution, loading, defaults,
//!   the sweep spec, the link codec ([`scenario::link`]).
//! - [`compare`]: runs a resolved scenario; the entry point of the CLI and the wasm adapter.
//! - [`sweep`]: comparisons at several what-if factors.
//! - [`report`]: text tables, CSV, Chrome trace events, timeline data, command reports.
//!
//! Above them, two thin adapters: the wasm build (`wasm.rs`) and the CLI (`main.rs`, `cli/`,
//! modules of the binary).

// No `unsafe` in the engine (the fuzz targets rely on it to run without AddressSanitizer);
// only the wasm adapter's generated bindings may use it.
#![deny(unsafe_code)]
// These docs are for the engine's developers: `make lint` documents the private items too
// (`cargo doc --document-private-items`, every link checked), so a public item's doc may
// link to a private one; rustdoc warns about such links even when it renders them.
#![allow(rustdoc::private_intra_doc_links)]

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
