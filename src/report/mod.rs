//! Turning results into things people read: text tables, Chrome traces, timeline data, and
//! the text and JSON of the CLI's commands (`run`, `order`, `coarsen`, `validate`), so the
//! CLI only parses, calls and prints.
//!
//! Not here: running anything (`compare`, `sweep`) or writing it out (the CLI prints, the
//! wasm adapter hands values to the page).

pub mod coarsen;
pub mod order;
pub mod run;
pub mod sweep;
pub mod table;
pub mod trace;
pub mod validate;
