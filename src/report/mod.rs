//! Turning results into things people read: text tables, Chrome traces, timeline data.

pub mod run;
pub mod sweep;
pub mod table;
pub mod trace;
