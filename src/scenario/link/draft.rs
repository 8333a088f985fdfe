//! A link's keys as values ([`Draft`]): what every entry of the key table reads into and
//! writes from. Reading starts from the defaults ([`Draft::defaults`]), lets each key of the
//! link set its part in the link's order, then assembles the scenario, its graph and the
//! page's view ([`Draft::into_link`]). Writing flattens a scenario into a draft
//! ([`Draft::of`]), and each key writes its part when it differs from the default.
//!
//! The scenario's own fields (strategies, seeds, what-if, ...) are kept in a [`Scenario`];
//! what a link spells differently from the scenario (how the graph is given, a generated or
//! explicit cluster, randomization, replicas) has fields of its own.
//!
//! Not here: the keys themselves ([`mod@super::keys`]).

use serde_json::Value;

use crate::error::Result;
use crate::model::cluster::ClusterGen;
use crate::scenario::defaults::{
    default_cluster_gen, default_devices, defaults, DEFAULT_BW, DEFAULT_GRAPH, DEFAULT_LAT,
};
use crate::scenario::{ClusterSource, GraphSource, Randomize, Replication, Scenario};

use super::atoms::{base64url, deflate_within, graph_name, graph_sha256, valid_name};
use super::table::{cluster_value, simple_cluster};
use super::{bad, GraphHash, Link, LinkGraph, PageView, EMBED_LIMIT};
use crate::scenario::defaults::DeviceRow;

/// How the keys `graph` and `graphz` give the graph (the later of the two wins).
pub(super) enum Given {
    /// `graph=NAME`: a bundled graph.
    Bundled(String),
    /// `graphz`: the payload as written (deflate-raw, base64url) and, in a draft read from a
    /// link, the graph's name and text (empty in a draft to write: only the payload is
    /// written).
    Embedded {
        name: String,
        text: String,
        payload: String,
    },
}

/// What the writer knows of a non-bundled graph.
pub(super) enum GraphText<'a> {
    /// The graph's exact text, when it is not inline.
    Text(Option<&'a str>),
    /// A graph a link named by hash, written back as it came.
    Hashed(&'a GraphHash),
}

/// A link's content, key by key.
pub(super) struct Draft {
    /// Strategies, parameters, links, orders, footprint, seeds, iterations, seed, what-if;
    /// its graph, cluster, randomization and replica are assembled from the fields below.
    pub scenario: Scenario,
    /// `graph` or `graphz`.
    pub given: Given,
    /// `graphsha256` and `graphname`: a graph named by hash (overrides `given`).
    pub graph_sha256: Option<String>,
    pub graph_name: Option<String>,
    /// `devices` .. `kinds`: a generated cluster.
    pub gen: ClusterGen,
    /// `cluster`: an explicit cluster (`dev`, `bw`, `lat`) instead of a generated one.
    pub explicit: bool,
    pub dev: Vec<DeviceRow>,
    pub bw: f64,
    pub lat: f64,
    /// `clusterz`: a cluster with more than a device table (overrides the above).
    pub clusterz: Option<Value>,
    /// `randcost`, `randbytes`, `randmem` (none: no randomization).
    pub randomize: Randomize,
    /// `replica.*` (no workers and no servers: no replica).
    pub replica: Replication,
    /// The page's view keys.
    pub view: PageView,
}

fn no_replica() -> Replication {
    Replication {
        workers: vec![],
        ps: vec![],
        forward_target: None,
        aggregate: false,
        param_ops: None,
        params_from_sources: false,
        balance: None,
    }
}

fn no_randomize() -> Randomize {
    Randomize {
        cost: None,
        bytes: None,
        mem: None,
    }
}

/// How a link to write gives the graph: `Ok` by name or embedded, `Err` by hash (checked by
/// the caller).
fn graph_keys(
    source: &GraphSource,
    graph: GraphText,
) -> Result<std::result::Result<Given, GraphHash>> {
    let embedded = |text: &str| {
        deflate_within(text, EMBED_LIMIT).map(|z| Given::Embedded {
            name: String::new(),
            text: String::new(),
            payload: base64url(&z),
        })
    };
    Ok(match (source, graph) {
        (_, GraphText::Hashed(h)) => Err(h.clone()),
        (GraphSource::Bundled(name), _) => {
            if !valid_name(name) {
                return Err(bad(format!(
                    "bundled graph name '{name}' may only hold letters, digits, '_' and '-'"
                )));
            }
            Ok(Given::Bundled(name.clone()))
        }
        (GraphSource::Inline(v), GraphText::Text(t)) => {
            let inline;
            let text = match t {
                Some(t) => t,
                None => {
                    inline = v.to_string();
                    &inline
                }
            };
            embedded(text).ok_or_else(|| GraphHash {
                sha256: graph_sha256(text),
                name: graph_name(v, "graph"),
            })
        }
        (GraphSource::File(path), GraphText::Text(Some(t))) => embedded(t).ok_or_else(|| {
            // Named by the graph's own name, else by the file's stem.
            let stem = std::path::Path::new(path)
                .file_stem()
                .and_then(|x| x.to_str())
                .unwrap_or("graph")
                .to_string();
            let name = serde_json::from_str::<Value>(t)
                .map(|v| graph_name(&v, &stem))
                .unwrap_or(stem);
            GraphHash {
                sha256: graph_sha256(t),
                name,
            }
        }),
        (GraphSource::File(path), GraphText::Text(None)) => {
            return Err(bad(format!(
                "the graph is the file '{path}': give its text to embed it in the link"
            )))
        }
    })
}

impl Draft {
    /// What an empty link means: the defaults.
    pub fn defaults() -> Draft {
        Draft {
            scenario: defaults(),
            given: Given::Bundled(DEFAULT_GRAPH.into()),
            graph_sha256: None,
            graph_name: None,
            gen: default_cluster_gen(),
            explicit: false,
            dev: default_devices(),
            bw: DEFAULT_BW,
            lat: DEFAULT_LAT,
            clusterz: None,
            randomize: no_randomize(),
            replica: no_replica(),
            view: PageView::default(),
        }
    }

    /// The draft of a scenario to write, checked whole first. Its graph is named, embedded
    /// or hashed here (an error for a graph file without its text, or a bad name or hash),
    /// its cluster becomes generated keys, a device table or a compressed cluster (an error
    /// for a cluster file).
    pub fn of(s: &Scenario, graph: GraphText, view: &PageView) -> Result<Draft> {
        s.validate()?;
        let mut d = Draft::defaults();
        d.scenario = s.clone();
        d.view = view.clone();
        match graph_keys(&s.graph, graph)? {
            Ok(given) => d.given = given,
            Err(h) => {
                if h.sha256.len() != 64 || !h.sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(bad(format!(
                        "graph hash '{}' is not 64 hex digits",
                        h.sha256
                    )));
                }
                d.graph_sha256 = Some(h.sha256.to_ascii_lowercase());
                d.graph_name = Some(h.name);
            }
        }
        match &s.cluster {
            ClusterSource::Generate(g) => d.gen = g.clone(),
            ClusterSource::Inline(v) => match simple_cluster(v) {
                Some((rows, bw, lat)) => {
                    d.explicit = true;
                    (d.dev, d.bw, d.lat) = (rows, bw, lat);
                }
                None => d.clusterz = Some(v.clone()),
            },
            ClusterSource::File(path) => {
                return Err(bad(format!(
                    "the cluster is the file '{path}': give its text to write it into the link"
                )))
            }
        }
        if let Some(r) = &s.randomize {
            d.randomize = r.clone();
        }
        if let Some(r) = &s.replica {
            d.replica = r.clone();
        }
        Ok(d)
    }

    /// The link a read draft means: its scenario (checked whole), graph and view.
    pub fn into_link(self) -> Result<Link> {
        let Draft {
            mut scenario,
            given,
            graph_sha256,
            graph_name,
            gen,
            explicit,
            dev,
            bw,
            lat,
            clusterz,
            randomize,
            replica,
            view,
        } = self;
        let graph = match graph_sha256 {
            Some(sha256) => {
                let name = graph_name.unwrap_or_else(|| "graph".into());
                scenario.graph = GraphSource::File(name.clone());
                LinkGraph::Hashed(GraphHash { sha256, name })
            }
            None => match given {
                Given::Bundled(name) => {
                    scenario.graph = GraphSource::Bundled(name);
                    LinkGraph::Bundled
                }
                Given::Embedded { name, text, .. } => {
                    scenario.graph = GraphSource::File(name.clone());
                    LinkGraph::Embedded { name, text }
                }
            },
        };
        scenario.cluster = match (clusterz, explicit) {
            (Some(v), _) => ClusterSource::Inline(v),
            (None, true) => ClusterSource::Inline(cluster_value(&dev, bw, lat)),
            (None, false) => ClusterSource::Generate(gen),
        };
        if randomize != no_randomize() {
            scenario.randomize = Some(randomize);
        }
        let named = !(replica.workers.is_empty() && replica.ps.is_empty());
        if named {
            scenario.replica = Some(replica);
        } else if replica != no_replica() {
            return Err(bad(
                "replica options without replica.workers and replica.ps",
            ));
        }
        scenario.validate()?;
        Ok(Link {
            scenario,
            graph,
            view,
        })
    }
}
