//! A coarsening's summary (Pesto21 §3.3) as `placesim coarsen` prints it: the sizes before
//! and after, the acyclicity check, and a line per round.
//!
//! Not here: the coarsening and its summary (`transform::coarsen`), or the JSON form (the
//! summary serializes itself).

use crate::transform::coarsen::Summary;

/// The summary as text: a title line, then a row per round (vertices, edges, pairs merged,
/// edges removed, and whether the batch was undone). Every line ends with a newline.
pub fn text(summary: &Summary) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {} ops, {} edges -> {} vertices ({} counted, {} isolated), {} edges (target {}); largest vertex {:.1}% of the work; acyclic: {}",
        summary.graph,
        summary.nodes,
        summary.edges,
        summary.vertices,
        summary.counted,
        summary.isolated,
        summary.coarse_edges,
        summary.target,
        100.0 * summary.largest_share,
        if summary.acyclic { "yes" } else { "NO" }
    );
    out.push_str("round  vertices     edges  merged  edges removed\n");
    for (i, r) in summary.rounds.iter().enumerate().skip(1) {
        let _ = writeln!(
            out,
            "{i:>5}  {:>8}  {:>8}  {:>6}  {:>12.1}%{}",
            r.vertices,
            r.edges,
            r.merged,
            r.edges_removed_pct,
            if r.fallback {
                "  (batch undone: cycle)"
            } else {
                ""
            }
        );
    }
    out
}
