//! TicTac19's priority of every parameter transfer into a replica's first worker, as
//! `placesim order` prints it: [`first_worker`] places the replica (every op pinned), ranks
//! its transfers with a link order's ranking (tao, Algorithm 2; tio, Algorithm 3) and keeps
//! those into the first worker, keyed by the base graph's node id of the parameter read;
//! [`OrderTable::text`] is the table.
//!
//! Not here: the ranking algorithms themselves (`transfer/`, through the registry's
//! `transfer::ranking`) or choosing which to run (the caller passes the ranking).

use serde::Serialize;

use crate::compare;
use crate::error::{Error, Result};
use crate::model::cluster::Cluster;
use crate::model::graph::Graph;
use crate::rng::Rng;
use crate::scenario::Scenario;
use crate::transfer::recvs::Ranking;

/// The ranked transfers into a replica's first worker.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OrderTable {
    /// The first worker's device id.
    pub worker: String,
    /// Lowest priority first (ties by id).
    pub rows: Vec<OrderRow>,
}

/// One parameter read into the first worker.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OrderRow {
    /// The node id of the tensor's source (the parameter read).
    pub id: String,
    pub priority: f64,
}

/// The priorities `ranking` gives the transfers into the first worker of the scenario's
/// replica, at seed index 0 (its realized cluster and costs), the replica placed as pinned.
/// An error when the scenario has no replica or its first worker is not in the cluster.
pub fn first_worker(
    scenario: &Scenario,
    graph: &Graph,
    cluster: Option<&Cluster>,
    ranking: Ranking,
) -> Result<OrderTable> {
    let real = compare::realize(scenario, graph, cluster, 0)?;
    let problem = compare::problem(scenario, graph, &real.cluster, real.overrides.as_ref())?;
    let pinned = crate::place::placer("pinned")?;
    let placement = (pinned.make)().place(&problem, &Default::default(), &mut Rng::new(0))?;
    let worker = scenario
        .replica
        .as_ref()
        .and_then(|r| r.workers.first())
        .and_then(|w| real.cluster.device_index(w))
        .ok_or_else(|| {
            Error::Scenario("replica.workers: the first worker is not in the cluster".into())
        })?;
    let transfers = crate::sim::transfers_of(&problem, &placement);
    let ranks = ranking(&problem, &placement, &transfers);
    let mut rows: Vec<(f64, &str)> = transfers
        .iter()
        .zip(&ranks)
        .filter(|(x, _)| x.dst == worker)
        .filter_map(|(x, r)| {
            r.map(|r| {
                (
                    r,
                    graph.nodes[graph.tensors[x.tensor as usize].src as usize]
                        .id
                        .as_str(),
                )
            })
        })
        .collect();
    rows.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(b.1)));
    Ok(OrderTable {
        worker: real.cluster.devices[worker as usize].id.clone(),
        rows: rows
            .into_iter()
            .map(|(priority, id)| OrderRow {
                id: id.to_string(),
                priority,
            })
            .collect(),
    })
}

impl OrderTable {
    /// The table: a header naming the worker, then a line per transfer (priority, id).
    pub fn text(&self) -> String {
        let mut out = format!("priority  parameter read (into {})\n", self.worker);
        for r in &self.rows {
            out.push_str(&format!("{:>8}  {}\n", r.priority, r.id));
        }
        out
    }
}
