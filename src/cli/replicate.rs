//! `placesim replicate`: TicTac19's replica of a graph (`--workers`, `--ps`) as graph JSON.
//!
//! Not here: the transform (`transform::replicate`).

use placesim::{Error, Result};

use super::args::ProblemArgs;
use super::files::{graph_path, load_graph};
use super::scenario::replication_of;

pub fn replicate(problem: &ProblemArgs) -> Result<()> {
    let r = replication_of(problem)
        .ok_or_else(|| Error::Scenario("replicate needs --workers and --ps".into()))?;
    let graph_arg = problem
        .graph
        .as_deref()
        .ok_or_else(|| Error::Scenario("--graph is required".into()))?;
    let g = load_graph(&graph_path(graph_arg, None)?)?;
    let replica = placesim::transform::replicate::replicate(&g, &r.spec())?;
    out!("{}", replica.transformed.graph.to_json());
    Ok(())
}
