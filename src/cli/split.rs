//! `placesim split`: a graph with its pass-through multi-tensor ops split, one per tensor
//! (`--ops`, default IdentityN), as graph JSON on stdout; what was split or left whole on
//! stderr.
//!
//! Not here: the transform (`transform::passthrough`).

use placesim::Result;

use super::files::{graph_path, load_graph};
use super::output::print_notes;

pub fn split(graph: &str, ops: &[String]) -> Result<()> {
    let g = load_graph(&graph_path(graph, None)?)?;
    let s = placesim::transform::passthrough::split_passthrough(&g, ops)?;
    let mut notes: Vec<String> = s
        .split
        .iter()
        .map(|(id, n)| format!("'{id}' split into {n} pass-throughs"))
        .collect();
    notes.extend(s.left.iter().cloned());
    if notes.is_empty() {
        notes.push(format!("no op of type {} to split", ops.join(", ")));
    }
    print_notes(&notes);
    out!("{}", s.transformed.graph.to_json());
    Ok(())
}
