//! What a comparison asks: the scenario, one serializable description of a whole
//! comparison, and everything that reads or writes it without running it: its resolution
//! against the strategy registries ([`Scenario::resolve`], `resolve.rs`, the one place names
//! and parameters are checked), loading its files (`load.rs`), the default scenario
//! (`defaults.rs`), what a what-if sweep asks (`sweep.rs`) and the share-link codec
//! (`link/`). It sits above the model and the strategies (the model never imports a
//! registry) and below the runner: nothing here imports `compare`, `sweep` (the runner) or
//! `sim`.
//!
//! It names the graph (bundled by name, a file, or inline), the cluster (a file, inline, or
//! generated from ranges), optional randomization of op costs and tensor sizes (Mayer17
//! §5.1), the strategies and their parameters, the link model, the number of seeds, the
//! base seed, and what-if changes (compute and bandwidth scales, per-device speeds).
//!
//! Seed `i` of a scenario realizes its own cluster (when generated) and its own costs
//! (when randomized) from streams derived from `seed` and `i`; see [`Scenario::realize`].
//! The same scenario therefore gives the same numbers everywhere.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{parse_json, Error, Result};
use crate::model::cluster::{Cluster, ClusterGen};
use crate::model::graph::Graph;
use crate::model::problem::{Footprint, Overrides};
use crate::model::LinkModel;
use crate::model::MAX_AMOUNT;
use crate::rng::Rng;
use crate::schedule::SCHEDULERS;

pub mod defaults;
pub mod link;
pub mod load;
mod resolve;
pub mod sweep;
pub use resolve::{Resolved, Strategy};

pub const SCENARIO_VERSION: u32 = 1;

/// Where the graph comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum GraphSource {
    /// A graph shipped in `graphs/`, by file stem (`vgg19_layers`).
    Bundled(String),
    /// A graph file path (CLI only).
    File(String),
    /// The graph JSON itself.
    Inline(serde_json::Value),
}

/// Where the cluster comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum ClusterSource {
    /// Drawn per seed from ranges.
    Generate(ClusterGen),
    /// A cluster file path (CLI only).
    File(String),
    /// The cluster JSON itself.
    Inline(serde_json::Value),
}

/// Redraw op costs and tensor sizes uniformly from ranges (Mayer17 §5.1: both 1..100).
/// Costs replace `cost` and `time` tables; only tensors with bytes > 0 are redrawn, so
/// control edges stay pure ordering edges. `mem` redraws each op's resident bytes; `[0, 0]`
/// models Mayer17 eq. 2, where a device's memory holds tensors only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Randomize {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<[f64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<[f64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem: Option<[f64; 2]>,
}

fn non_empty_randomize<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<Randomize>, D::Error> {
    let r: Option<Randomize> = Deserialize::deserialize(d)?;
    Ok(r.filter(|r| r.cost.is_some() || r.bytes.is_some() || r.mem.is_some()))
}

/// What-if changes applied to every seed's cluster.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WhatIf {
    /// Multiplies every device speed.
    #[serde(default = "one_f64")]
    pub compute: f64,
    /// Multiplies every link bandwidth.
    #[serde(default = "one_f64")]
    pub bandwidth: f64,
    /// Multiplies every link latency (the `b0` of Pesto21 §3.1's `b0 + b1 * bytes`);
    /// written only when not 1, so scenarios without it print as they always did.
    #[serde(default = "one_f64", skip_serializing_if = "is_one_f64")]
    pub latency: f64,
    /// Device id -> speed, applied after the scales.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub speeds: BTreeMap<String, f64>,
}

impl Default for WhatIf {
    fn default() -> Self {
        WhatIf {
            compute: 1.0,
            bandwidth: 1.0,
            latency: 1.0,
            speeds: BTreeMap::new(),
        }
    }
}

impl WhatIf {
    pub fn is_identity(&self) -> bool {
        *self == WhatIf::default()
    }
}

fn one_f64() -> f64 {
    1.0
}
fn one_u32() -> u32 {
    1
}
fn version() -> u32 {
    SCENARIO_VERSION
}
fn fifo_list() -> Vec<String> {
    vec!["fifo".into()]
}
fn is_one(n: &u32) -> bool {
    *n == 1
}
fn is_one_f64(x: &f64) -> bool {
    *x == 1.0
}
fn is_false(b: &bool) -> bool {
    !*b
}

/// A name or a list of names (`"tao"` or `["random", "tao"]`).
fn one_or_many<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(s) => vec![s],
        OneOrMany::Many(v) => v,
    })
}

/// One name as a string (what scenarios before link-order lists wrote), several as a list.
fn one_or_list<S: serde::Serializer>(v: &[String], s: S) -> std::result::Result<S::Ok, S::Error> {
    match v {
        [one] => s.serialize_str(one),
        many => many.serialize(s),
    }
}

/// The most iterations a scenario may ask for.
pub const MAX_ITERATIONS: u32 = 10_000;

/// TicTac19's model replicas with parameter servers (§2.3, §2.4, Fig. 3; built by
/// [`crate::transform::replicate`]). The placement is the replica's pins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Replication {
    /// Cluster device ids of the workers.
    pub workers: Vec<String>,
    /// Cluster device ids of the parameter servers.
    pub ps: Vec<String>,
    /// Prune the graph to this op and its ancestors first (the paper's forward runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forward_target: Option<String>,
    /// Sum the workers' updates on the server before one update (else each applies its own).
    #[serde(default, skip_serializing_if = "is_false")]
    pub aggregate: bool,
    /// Op types that read a parameter (default `ReadVariableOp`, `VariableV2`, `Parameter`,
    /// plus ids ending in `/read`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub param_ops: Option<Vec<String>>,
    /// Every source with outgoing bytes is a parameter read (synthetic graphs).
    #[serde(default, skip_serializing_if = "is_false")]
    pub params_from_sources: bool,
    /// Scale the server-worker bandwidth so that transfer time / compute time on the first
    /// worker is this ratio (docs/tictac.md, reading A17).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balance: Option<f64>,
}

impl Replication {
    /// The transform's spec.
    pub fn spec(&self) -> crate::transform::replicate::ReplicaSpec {
        use crate::transform::replicate::{ReplicaSpec, Updates};
        let workers: Vec<&str> = self.workers.iter().map(String::as_str).collect();
        let ps: Vec<&str> = self.ps.iter().map(String::as_str).collect();
        let mut spec = ReplicaSpec::new(&workers, &ps);
        if let Some(ops) = &self.param_ops {
            spec.param_ops = ops.clone();
        }
        spec.params_from_sources = self.params_from_sources;
        spec.forward_target = self.forward_target.clone();
        spec.updates = if self.aggregate {
            Updates::Aggregate
        } else {
            Updates::ApplyEach
        };
        spec
    }
}
fn all_placers() -> Vec<String> {
    crate::place::default_placers()
}
fn all_schedulers() -> Vec<String> {
    SCHEDULERS.iter().map(|s| s.name.to_string()).collect()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default = "version")]
    pub version: u32,
    pub graph: GraphSource,
    pub cluster: ClusterSource,
    /// `None` when nothing is redrawn: an empty `"randomize": {}` reads as absent, so that a
    /// scenario equals itself through its share link (which writes no empty randomize).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "non_empty_randomize"
    )]
    pub randomize: Option<Randomize>,
    /// Placer names; all of them when absent.
    #[serde(default = "all_placers")]
    pub placers: Vec<String>,
    /// Scheduler names; all of them when absent.
    #[serde(default = "all_schedulers")]
    pub schedulers: Vec<String>,
    /// `strategy.parameter -> value`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, f64>,
    #[serde(default)]
    pub links: LinkModel,
    /// What a node's static placement footprint counts (Pesto21 §3.1 and §3.2.2 (8) count
    /// "input and output tensor sizes"): `outputs` (default), `inputs_outputs` or `mem`; or
    /// `live`: placers charge `mem` and the simulated peak of live tensors is the judge.
    /// An unknown value is a parse error naming this field.
    #[serde(default, skip_serializing_if = "Footprint::is_default")]
    pub footprint: Footprint,
    /// Orders of the links' queues under `fcfs` links: each is a third axis of the
    /// comparison (a row per placer x scheduler x link order). A string or a list in JSON.
    #[serde(
        default = "fifo_list",
        deserialize_with = "one_or_many",
        serialize_with = "one_or_list"
    )]
    pub link_order: Vec<String>,
    /// TicTac19's parameter-server replicas: the graph is replicated onto workers and
    /// servers, every op pinned (placer `pinned`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replica: Option<Replication>,
    /// Simulated steps per seed and pair, each with fresh runtime randomness (random link
    /// orders and ties, the `random` scheduler); priorities are computed once (TicTac19 §5).
    #[serde(default = "one_u32", skip_serializing_if = "is_one")]
    pub iterations: u32,
    #[serde(default = "one_u32")]
    pub seeds: u32,
    #[serde(default)]
    pub seed: u64,
    #[serde(default, skip_serializing_if = "WhatIf::is_identity")]
    pub what_if: WhatIf,
}

/// The most seeds a scenario averages over.
pub const MAX_SEEDS: u32 = 1000;

/// One seed's concrete inputs.
pub struct Realization {
    pub cluster: Cluster,
    pub overrides: Option<Overrides>,
}

impl Scenario {
    /// Parses a scenario and checks it whole: shape, strategy names and parameters.
    pub fn from_json(text: &str) -> Result<Scenario> {
        let s: Scenario = parse_json("scenario", text)?;
        s.validate()?;
        Ok(s)
    }

    /// A scenario with the defaults for everything but the graph and cluster.
    pub fn new(graph: GraphSource, cluster: ClusterSource) -> Scenario {
        Scenario {
            version: SCENARIO_VERSION,
            graph,
            cluster,
            randomize: None,
            placers: all_placers(),
            schedulers: all_schedulers(),
            params: BTreeMap::new(),
            links: LinkModel::Parallel,
            footprint: Footprint::default(),
            link_order: fifo_list(),
            replica: None,
            iterations: 1,
            seeds: 1,
            seed: 0,
            what_if: WhatIf::default(),
        }
    }

    /// Checks the scenario's shape: version, counts and ranges; names and parameters are
    /// checked by [`Scenario::resolve`] (not the graph or cluster files themselves).
    pub fn check(&self) -> Result<()> {
        if self.version != SCENARIO_VERSION {
            return Err(Error::Scenario(format!(
                "version {} is not supported (this build reads version {SCENARIO_VERSION})",
                self.version
            )));
        }
        if self.placers.is_empty() {
            return Err(Error::Scenario("no placers chosen".into()));
        }
        if self.schedulers.is_empty() {
            return Err(Error::Scenario("no schedulers chosen".into()));
        }
        if self.seeds == 0 || self.seeds > MAX_SEEDS {
            return Err(Error::Scenario(format!(
                "seeds must be between 1 and {MAX_SEEDS}, got {}",
                self.seeds
            )));
        }
        if self.iterations == 0 || self.iterations > MAX_ITERATIONS {
            return Err(Error::Scenario(format!(
                "iterations must be between 1 and {MAX_ITERATIONS}, got {}",
                self.iterations
            )));
        }
        if self.link_order.is_empty() {
            return Err(Error::Scenario("no link order chosen".into()));
        }
        if self.links == LinkModel::Parallel {
            if let Some(o) = self.link_order.iter().find(|o| *o != "fifo") {
                return Err(Error::Scenario(format!(
                    "link order '{o}' orders the queues of contended links, and links are parallel (nothing queues): set links to fcfs"
                )));
            }
        }
        if let Some(r) = &self.replica {
            if self.links != LinkModel::Fcfs {
                return Err(Error::Scenario(
                    "a replica needs links fcfs (TicTac19 §5.1: one transfer at a time per server-worker channel)".into(),
                ));
            }
            if self.randomize.is_some() {
                return Err(Error::Scenario(
                    "randomize does not combine with a replica (costs would be drawn per replica, not per base op)".into(),
                ));
            }
            for (what, ids) in [("replica.workers", &r.workers), ("replica.ps", &r.ps)] {
                if ids.is_empty() {
                    return Err(Error::Scenario(format!("{what} is empty")));
                }
            }
            if let Some(w) = r.workers.iter().find(|w| r.ps.contains(w)) {
                return Err(Error::Scenario(format!(
                    "device '{w}' is both a worker (replica.workers) and a server (replica.ps)"
                )));
            }
            if let Some(b) = r.balance {
                if !(b.is_finite() && b > 0.0 && b <= 1e6) {
                    return Err(Error::Scenario(format!(
                        "replica.balance must be a ratio in (0, 1e6], got {b}"
                    )));
                }
            }
        }
        if let Some(r) = &self.randomize {
            for (what, range) in [("cost", r.cost), ("bytes", r.bytes), ("mem", r.mem)] {
                if let Some([lo, hi]) = range {
                    if !(lo.is_finite()
                        && hi.is_finite()
                        && lo >= 0.0
                        && lo <= hi
                        && hi <= MAX_AMOUNT)
                    {
                        return Err(Error::Scenario(format!(
                            "randomize.{what} must be a range lo..hi with 0 <= lo <= hi <= {MAX_AMOUNT:e}, got {lo}..{hi}"
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    /// Loads the cluster when it is given (not generated). `read` reads a file path.
    pub fn fixed_cluster(&self, read: &dyn Fn(&str) -> Result<String>) -> Result<Option<Cluster>> {
        match &self.cluster {
            ClusterSource::Generate(_) => Ok(None),
            ClusterSource::File(path) => Cluster::from_json(&read(path)?, path).map(Some),
            ClusterSource::Inline(value) => {
                Cluster::from_json(&value.to_string(), "inline cluster").map(Some)
            }
        }
    }

    /// The concrete cluster and costs of seed index `i`.
    pub fn realize(&self, graph: &Graph, fixed: Option<&Cluster>, i: u32) -> Result<Realization> {
        let base = match (&self.cluster, fixed) {
            (ClusterSource::Generate(spec), _) => {
                Cluster::generate(spec, &mut Rng::derive(self.seed, &["cluster"], i as u64))?
            }
            (_, Some(c)) => c.clone(),
            (_, None) => {
                return Err(Error::Scenario(
                    "the scenario's cluster was not loaded".into(),
                ))
            }
        };
        let cluster = if self.what_if.is_identity() {
            base
        } else {
            base.scaled(
                self.what_if.compute,
                self.what_if.bandwidth,
                self.what_if.latency,
                &self.what_if.speeds,
            )?
        };
        // One stream per quantity, so that turning one randomization on or off never
        // shifts another's draws.
        let overrides = self.randomize.as_ref().map(|r| {
            let stream = |what: &str| Rng::derive(self.seed, &["randomize", what], i as u64);
            let cost = r.cost.map(|[lo, hi]| {
                let mut rng = stream("cost");
                graph.nodes.iter().map(|_| rng.uniform(lo, hi)).collect()
            });
            let mut rng = stream("bytes");
            let tensor_bytes = graph
                .tensors
                .iter()
                .map(|t| match r.bytes {
                    Some([lo, hi]) if t.bytes > 0.0 => rng.uniform(lo, hi),
                    _ => t.bytes,
                })
                .collect();
            let mut rng = stream("mem");
            let mem = graph
                .nodes
                .iter()
                .map(|n| match r.mem {
                    Some([lo, hi]) => rng.uniform(lo, hi),
                    None => n.mem,
                })
                .collect();
            Overrides {
                cost,
                tensor_bytes,
                mem,
            }
        });
        let mut cluster = cluster;
        if let ClusterSource::Generate(ClusterGen {
            memory_fraction: Some(f),
            ..
        }) = &self.cluster
        {
            let (mem, bytes): (f64, f64) = match &overrides {
                Some(o) => (o.mem.iter().sum(), o.tensor_bytes.iter().sum()),
                None => (
                    graph.nodes.iter().map(|n| n.mem).sum(),
                    graph.tensors.iter().map(|t| t.bytes).sum(),
                ),
            };
            cluster.set_memory(f * (mem + bytes));
        }
        Ok(Realization { cluster, overrides })
    }
}

#[cfg(test)]
mod tests;
