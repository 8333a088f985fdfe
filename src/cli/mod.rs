//! The `placesim` command line, a module of the binary (never of the library): the flags
//! (`args.rs`), flags to a scenario (`scenario.rs`), files from disk (`files.rs`), how it
//! writes (`output.rs`), and one file per subcommand, each of which parses what is left,
//! calls the library and prints.
//!
//! Not here: any computing. What a command reports is computed and worded by the library
//! (`compare`, `sweep`, `report/`), the same entry points the wasm adapter uses, so the CLI
//! and the page give the same numbers; an engine error names a field, and the CLI adds the
//! flag that sets it.

#[macro_use]
mod output;

pub mod args;
mod files;
mod scenario;

pub mod coarsen;
pub mod compare;
pub mod generate;
pub mod import;
pub mod list;
pub mod order;
pub mod replicate;
pub mod run;
pub mod split;
pub mod sweep;
pub mod validate;
