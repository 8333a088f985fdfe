//! `placesim validate`: loads a graph (and a cluster) and prints the one-line summary.
//!
//! Not here: the checks (loading validates, `model/`) or the summary's text
//! (`report::validate`).

use placesim::Result;

use super::files::{graph_path, load_graph, read_cluster};

pub fn validate(graph: &str, cluster: Option<&str>) -> Result<()> {
    let g = load_graph(&graph_path(graph, None)?)?;
    let cluster = cluster.map(read_cluster).transpose()?;
    out!(
        "{}",
        placesim::report::validate::summary(&g, cluster.as_ref())?
    );
    Ok(())
}
