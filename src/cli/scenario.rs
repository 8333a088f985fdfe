//! The problem flags (`ProblemArgs`) as a scenario: ranges (`LO..HI`), repeated
//! `NAME=NUMBER` assignments, comma lists and the replica (`--workers`, `--ps`), then the
//! library's loading of what the scenario names.
//!
//! Not here: checking names and parameters (the library resolves a scenario once, for the
//! CLI and the page alike) or reading files (`files.rs`).

use std::collections::BTreeMap;

use placesim::model::cluster::ClusterGen;
use placesim::model::problem::Footprint;
use placesim::model::LinkModel;
use placesim::scenario::load::{load, Loaded};
use placesim::scenario::{ClusterSource, GraphSource, Randomize, Replication, Scenario};
use placesim::{Error, Result};

use super::args::ProblemArgs;
use super::files::{bundled_name, disk, graph_path};
use super::output::print_notes;

pub fn parse_range(what: &str, s: &str) -> Result<[f64; 2]> {
    let bad = || Error::Scenario(format!("--{what} expects LO..HI (e.g. 10..100), got '{s}'"));
    let (lo, hi) = s.split_once("..").ok_or_else(bad)?;
    let lo: f64 = lo.trim().parse().map_err(|_| bad())?;
    let hi: f64 = hi.trim().parse().map_err(|_| bad())?;
    if !(lo.is_finite() && hi.is_finite()) || lo > hi {
        return Err(bad());
    }
    Ok([lo, hi])
}

/// Repeated `NAME=NUMBER` options (`--param msr.delta=5`, `--speed-of d0=50`) as a map.
/// The name is everything before the last `=`; naming one twice is an error.
pub fn parse_assignments(flag: &str, form: &str, list: &[String]) -> Result<BTreeMap<String, f64>> {
    let mut out = BTreeMap::new();
    for item in list {
        let bad = || Error::Scenario(format!("--{flag} expects {form}, got '{item}'"));
        let (name, value) = item.rsplit_once('=').ok_or_else(bad)?;
        let name = name.trim();
        let value: f64 = value.trim().parse().map_err(|_| bad())?;
        if name.is_empty() {
            return Err(bad());
        }
        if out.insert(name.to_string(), value).is_some() {
            return Err(Error::Scenario(format!("--{flag} names '{name}' twice")));
        }
    }
    Ok(out)
}

pub fn split_list(s: &str) -> Vec<String> {
    s.split(',')
        .map(|x| x.trim().to_string())
        .filter(|x| !x.is_empty())
        .collect()
}

/// The replica the options ask for (`--workers` and `--ps`).
pub fn replication_of(a: &ProblemArgs) -> Option<Replication> {
    let (workers, ps) = (a.workers.as_ref()?, a.ps.as_ref()?);
    Some(Replication {
        workers: split_list(workers),
        ps: split_list(ps),
        forward_target: a.forward_target.clone(),
        aggregate: a.aggregate,
        param_ops: a.param_ops.as_deref().map(split_list),
        params_from_sources: a.params_from_sources,
        balance: a.balance,
    })
}

/// Builds a scenario from command-line options; returns it with the loaded graph.
pub fn scenario_from_args(a: &ProblemArgs) -> Result<Loaded> {
    let graph_arg = a
        .graph
        .as_deref()
        .ok_or_else(|| Error::Scenario("--graph is required (or --scenario)".into()))?;
    let path = graph_path(graph_arg, None)?;
    let graph_source = match bundled_name(&path)? {
        Some(name) => GraphSource::Bundled(name),
        None => GraphSource::File(path.to_string_lossy().to_string()),
    };
    let cluster_source = match (&a.cluster, a.devices) {
        (Some(c), _) => ClusterSource::File(c.clone()),
        (None, Some(n)) => ClusterSource::Generate(ClusterGen {
            devices: n,
            speed: parse_range("speed", &a.speed)?,
            memory: a.memory,
            memory_fraction: a.memory_fraction,
            bandwidth: parse_range("bandwidth", &a.bandwidth)?,
            latency: parse_range("latency", &a.latency)?,
            kinds: a.kinds.as_deref().map(split_list).unwrap_or_default(),
        }),
        (None, None) => {
            return Err(Error::Scenario(
                "give a cluster: --cluster FILE or --devices N".into(),
            ))
        }
    };
    let mut s = Scenario::new(graph_source, cluster_source);
    if a.cost.is_some() || a.bytes.is_some() || a.mem.is_some() {
        let range =
            |what: &str, r: &Option<String>| r.as_deref().map(|r| parse_range(what, r)).transpose();
        s.randomize = Some(Randomize {
            cost: range("cost", &a.cost)?,
            bytes: range("bytes", &a.bytes)?,
            mem: range("mem", &a.mem)?,
        });
    }
    s.replica = replication_of(a);
    let links = a.links.as_deref().unwrap_or(if s.replica.is_some() {
        "fcfs"
    } else {
        "parallel"
    });
    s.links = LinkModel::parse(links).ok_or_else(|| {
        Error::Scenario(format!("--links must be parallel or fcfs, got '{links}'"))
    })?;
    s.link_order = split_list(&a.link_order);
    s.footprint = Footprint::parse(&a.footprint)
        .ok_or_else(|| Error::Scenario(Footprint::unknown("--footprint", &a.footprint)))?;
    s.seed = a.seed;
    s.params = parse_assignments("param", "STRATEGY.NAME=VALUE", &a.params)?;
    s.what_if.compute = a.compute_scale;
    s.what_if.bandwidth = a.bandwidth_scale;
    s.what_if.latency = a.latency_scale;
    s.what_if.speeds = parse_assignments("speed-of", "ID=SPEED", &a.speed_of)?;
    let loaded = load(s, &disk(None))?;
    print_notes(&loaded.graph_notes);
    Ok(loaded)
}
