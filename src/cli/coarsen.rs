//! `placesim coarsen`: Pesto21 §3.3's coarsening of a graph down to `--target` vertices,
//! its summary as text or `--json`.
//!
//! Not here: the coarsening and its summary (`transform::coarsen`) or the summary's text
//! (`report::coarsen`).

use placesim::model::cluster::Cluster;
use placesim::model::problem::Problem;
use placesim::{Error, Result};

use super::files::{graph_path, load_graph, read_cluster};

/// The cluster when `--cluster` is absent: one gpu and one cpu device (device rules decide
/// which ops may merge).
const GPU_AND_CPU: &str = r#"{"devices":[{"id":"gpu0","kind":"gpu","speed":1},{"id":"cpu0","kind":"cpu","speed":1}],"bandwidth":1}"#;

/// Prints the summary; with `output`, also writes the coarse graph there (graph JSON, each
/// vertex with `members`).
pub fn coarsen(
    graph: &str,
    cluster: Option<&str>,
    target: usize,
    json: bool,
    output: Option<&str>,
) -> Result<()> {
    if target == 0 {
        return Err(Error::Scenario("--target must be at least 1".into()));
    }
    let g = load_graph(&graph_path(graph, None)?)?;
    let cl = match cluster {
        Some(c) => read_cluster(c)?,
        None => Cluster::from_json(GPU_AND_CPU, "one gpu and one cpu")?,
    };
    let p = Problem::new(&g, &cl)?;
    let coarse = placesim::transform::coarsen::coarsen(&p, target);
    let summary = coarse.summary(&p, target);
    if let Some(path) = output {
        let text =
            serde_json::to_string_pretty(&coarse.to_graph_json(&p)).expect("plain data serializes");
        std::fs::write(path, text + "\n")
            .map_err(|e| Error::Scenario(format!("cannot write --output '{path}': {e}")))?;
    }
    if json {
        out!(
            "{}",
            serde_json::to_string(&summary).expect("plain data serializes")
        );
    } else {
        out_raw!("{}", placesim::report::coarsen::text(&summary));
    }
    Ok(())
}
