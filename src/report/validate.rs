//! A graph's one-line check, as `placesim validate` prints it: sizes and totals, and whether
//! it fits a cluster (the cost model builds: every node has a device, every colocation group
//! a common one).
//!
//! Not here: loading or validating the files (`model/`, `scenario::load`); a file that does
//! not load never gets this far.

use crate::error::Result;
use crate::model::cluster::Cluster;
use crate::model::graph::Graph;
use crate::model::problem::Problem;
use crate::units;

/// The summary line of a loaded graph (no newline), with `; fits cluster ...` when a cluster
/// is given; an error when the graph does not fit it.
pub fn summary(g: &Graph, cluster: Option<&Cluster>) -> Result<String> {
    let cost: f64 = g.nodes.iter().filter_map(|n| n.cost).sum();
    let bytes: f64 = g.tensors.iter().map(|t| t.bytes).sum();
    let mut line = format!(
        "{}: ok, {} nodes, {} edges, {} tensors, {} colocation groups, total cost {}, total tensor bytes {}",
        g.name,
        g.node_count(),
        g.edge_count(),
        g.tensors.len(),
        g.groups.len(),
        units::num(cost),
        units::num(bytes)
    );
    if let Some(cl) = cluster {
        Problem::new(g, cl)?;
        line.push_str(&format!(
            "; fits cluster '{}' ({} devices)",
            cl.name,
            cl.len()
        ));
    }
    Ok(line)
}
