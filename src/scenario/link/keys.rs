//! The key table: every key of the link format, each defined once ([`Key`]) with the format
//! version that carries it, its writer and its reader, in the order links write them
//! (`docs/url-format.md`'s table, which a test checks against this one). Adding a key is
//! adding one entry here (and a field to [`Draft`] when the key holds something new).
//!
//! A writer returns the key's value, or `None` when the draft holds the default (a key with
//! its default is not written). A reader sets its part of the draft from the value, in the
//! link's order; checks that need several keys are the draft's ([`Draft::into_link`]).
//!
//! Not here: splitting a link into keys, the version key `v`, or assembling a scenario
//! ([`super`], [`super::draft`]).

use crate::error::{Error, Result};
use crate::model::problem::Footprint;
use crate::model::LinkModel;
use crate::scenario::defaults::{
    default_cluster_gen, default_devices, defaults, DEFAULT_BW, DEFAULT_GRAPH, DEFAULT_LAT,
};
use crate::scenario::sweep::{Axis, SweepSpec};

use super::atoms::{
    base64url, decode, deflate, encode, graph_name, inflate, list, number, parse_flag, parse_int,
    parse_list, parse_number, parse_range, range, unbase64url, valid_name, valid_sort,
};
use super::draft::{Draft, Given};
use super::table::{device_table, parse_device_table};
use super::{bad, MAX_SEED};

/// What a key writes.
pub(super) enum Write {
    /// Its value, `None` for the default (not written).
    Value(fn(&Draft) -> Result<Option<String>>),
    /// A family of keys (`STRATEGY.NAME`): each key and its value.
    Family(fn(&Draft) -> Vec<(String, String)>),
}

/// One key of the link format.
pub(super) struct Key {
    /// The key as a link spells it (a family's pattern, for a family).
    pub name: &'static str,
    /// What the key means (`docs/url-format.md` says it in full).
    pub doc: &'static str,
    /// The lowest format version of a link that writes the key (for some keys it depends on
    /// the value: several link orders need version 2, one does not).
    pub version: fn(&Draft) -> u32,
    pub write: Write,
    /// Sets the draft from the value; the key as the link spelt it comes first (for error
    /// messages and families).
    pub read: fn(&mut Draft, &str, &str) -> Result<()>,
}

fn v1(_: &Draft) -> u32 {
    1
}

fn v2(_: &Draft) -> u32 {
    2
}

/// `Some(value())` when `changed`.
fn when(changed: bool, value: impl FnOnce() -> String) -> Result<Option<String>> {
    Ok(changed.then(value))
}

fn scale(key: &str, v: &str) -> Result<bool> {
    match v {
        "log" => Ok(true),
        "linear" => Ok(false),
        _ => Err(bad(format!(
            "{key}: '{v}' is not a chart scale (log or linear)"
        ))),
    }
}

fn count<T: TryFrom<u64>>(key: &str, v: &str) -> Result<T> {
    parse_int(key, v)?
        .try_into()
        .map_err(|_| bad(format!("{key}: too many")))
}

/// The key that reads `name` in a link: its own entry, or the strategy parameters' family
/// for any other key with a dot.
pub(super) fn find(name: &str) -> Option<&'static Key> {
    let family = |k: &&Key| matches!(k.write, Write::Family(_));
    KEYS.iter()
        .find(|k| !family(k) && k.name == name)
        .or_else(|| {
            name.contains('.')
                .then(|| KEYS.iter().find(family))
                .flatten()
        })
}

/// Every key but `v`, in the order links write them.
pub(super) const KEYS: &[Key] = &[
    // The graph: named, embedded or hashed.
    Key {
        name: "graph",
        doc: "a bundled graph (file stem in graphs/)",
        version: v1,
        write: Write::Value(|d| {
            Ok(match &d.given {
                Given::Bundled(name) if name != DEFAULT_GRAPH => Some(name.clone()),
                _ => None,
            })
        }),
        read: |d, key, v| {
            let name = decode(key, v)?;
            if !valid_name(&name) {
                return Err(bad(format!(
                    "graph: '{name}' is not a bundled graph name (letters, digits, '_', '-')"
                )));
            }
            d.given = Given::Bundled(name);
            Ok(())
        },
    },
    Key {
        name: "graphz",
        doc: "an uploaded graph: its text, deflate-raw, base64url",
        version: v1,
        write: Write::Value(|d| {
            Ok(match &d.given {
                Given::Embedded { payload, .. } => Some(payload.clone()),
                Given::Bundled(_) => None,
            })
        }),
        read: |d, key, v| {
            let text = inflate(key, &unbase64url(key, v)?)?;
            let value: serde_json::Value = serde_json::from_str(&text)
                .map_err(|e| bad(format!("graphz: the embedded graph is not JSON ({e})")))?;
            d.given = Given::Embedded {
                name: graph_name(&value, "graph"),
                text,
                payload: v.to_string(),
            };
            Ok(())
        },
    },
    Key {
        name: "graphsha256",
        doc: "a graph too large to embed: the SHA-256 of its exact text",
        version: v1,
        write: Write::Value(|d| Ok(d.graph_sha256.clone())),
        read: |d, _, v| {
            let h = v.to_ascii_lowercase();
            if h.len() != 64 || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(bad("graphsha256: not 64 hex digits"));
            }
            d.graph_sha256 = Some(h);
            Ok(())
        },
    },
    Key {
        name: "graphname",
        doc: "a graph named by hash: its name",
        version: v1,
        write: Write::Value(|d| Ok(d.graph_name.as_deref().map(encode))),
        read: |d, key, v| {
            d.graph_name = Some(decode(key, v)?);
            Ok(())
        },
    },
    // A generated cluster.
    Key {
        name: "devices",
        doc: "generated: number of devices",
        version: v1,
        write: Write::Value(|d| {
            when(d.gen.devices != default_cluster_gen().devices, || {
                d.gen.devices.to_string()
            })
        }),
        read: |d, key, v| {
            d.gen.devices = count(key, v)?;
            Ok(())
        },
    },
    Key {
        name: "speed",
        doc: "generated: speed range (work per second)",
        version: v1,
        write: Write::Value(|d| {
            when(d.gen.speed != default_cluster_gen().speed, || {
                range(d.gen.speed)
            })
        }),
        read: |d, key, v| {
            d.gen.speed = parse_range(key, v)?;
            Ok(())
        },
    },
    Key {
        name: "bandwidth",
        doc: "generated: bandwidth range per device pair (bytes per second)",
        version: v1,
        write: Write::Value(|d| {
            when(d.gen.bandwidth != default_cluster_gen().bandwidth, || {
                range(d.gen.bandwidth)
            })
        }),
        read: |d, key, v| {
            d.gen.bandwidth = parse_range(key, v)?;
            Ok(())
        },
    },
    Key {
        name: "latency",
        doc: "generated: latency range per device pair (seconds)",
        version: v1,
        write: Write::Value(|d| {
            when(d.gen.latency != default_cluster_gen().latency, || {
                range(d.gen.latency)
            })
        }),
        read: |d, key, v| {
            d.gen.latency = parse_range(key, v)?;
            Ok(())
        },
    },
    Key {
        name: "memory",
        doc: "generated: memory per device (bytes)",
        version: v1,
        write: Write::Value(|d| Ok(d.gen.memory.map(number))),
        read: |d, key, v| {
            d.gen.memory = Some(parse_number(key, v)?);
            Ok(())
        },
    },
    Key {
        name: "memfraction",
        doc: "generated: memory per device as a fraction of the graph's footprint",
        version: v1,
        write: Write::Value(|d| Ok(d.gen.memory_fraction.map(number))),
        read: |d, key, v| {
            d.gen.memory_fraction = Some(parse_number(key, v)?);
            Ok(())
        },
    },
    Key {
        name: "kinds",
        doc: "generated: device kinds, assigned round-robin",
        version: v1,
        write: Write::Value(|d| when(!d.gen.kinds.is_empty(), || list(&d.gen.kinds))),
        read: |d, key, v| {
            d.gen.kinds = parse_list(key, v)?;
            Ok(())
        },
    },
    // An explicit cluster: a device table, or compressed.
    Key {
        name: "cluster",
        doc: "generate (from ranges, per seed) or explicit (a device table)",
        version: v1,
        write: Write::Value(|d| when(d.explicit, || "explicit".into())),
        read: |d, _, v| {
            d.explicit = match v {
                "explicit" => true,
                "generate" => false,
                other => {
                    return Err(bad(format!(
                        "cluster: '{other}' is neither 'generate' nor 'explicit'"
                    )))
                }
            };
            Ok(())
        },
    },
    Key {
        name: "dev",
        doc: "explicit: devices id:kind:speed:memory (implies cluster=explicit)",
        version: v1,
        write: Write::Value(|d| when(d.dev != default_devices(), || device_table(&d.dev))),
        read: |d, _, v| {
            d.explicit = true;
            d.dev = parse_device_table(v)?;
            Ok(())
        },
    },
    Key {
        name: "bw",
        doc: "explicit: bandwidth of every link",
        version: v1,
        write: Write::Value(|d| when(d.bw != DEFAULT_BW, || number(d.bw))),
        read: |d, key, v| {
            d.bw = parse_number(key, v)?;
            Ok(())
        },
    },
    Key {
        name: "lat",
        doc: "explicit: latency of every link",
        version: v1,
        write: Write::Value(|d| when(d.lat != DEFAULT_LAT, || number(d.lat))),
        read: |d, key, v| {
            d.lat = parse_number(key, v)?;
            Ok(())
        },
    },
    Key {
        name: "clusterz",
        doc: "an explicit cluster with more than a device table: its JSON, deflate-raw, base64url",
        version: v1,
        write: Write::Value(|d| {
            Ok(d.clusterz
                .as_ref()
                .map(|v| base64url(&deflate(&v.to_string()))))
        }),
        read: |d, key, v| {
            let text = inflate(key, &unbase64url(key, v)?)?;
            let value = serde_json::from_str(&text)
                .map_err(|e| bad(format!("clusterz: the embedded cluster is not JSON ({e})")))?;
            d.clusterz = Some(value);
            Ok(())
        },
    },
    // Strategies.
    Key {
        name: "placers",
        doc: "placers, in run order",
        version: v1,
        write: Write::Value(|d| {
            let s = &d.scenario;
            when(s.placers != defaults().placers, || list(&s.placers))
        }),
        read: |d, key, v| {
            d.scenario.placers = parse_list(key, v)?;
            Ok(())
        },
    },
    Key {
        name: "schedulers",
        doc: "schedulers, in run order",
        version: v1,
        write: Write::Value(|d| {
            let s = &d.scenario;
            when(s.schedulers != defaults().schedulers, || {
                list(&s.schedulers)
            })
        }),
        read: |d, key, v| {
            d.scenario.schedulers = parse_list(key, v)?;
            Ok(())
        },
    },
    Key {
        name: "STRATEGY.NAME",
        doc: "a strategy parameter: any other key with a dot, in byte order of the key",
        version: v1,
        write: Write::Family(|d| {
            let params = &d.scenario.params;
            params
                .iter()
                .map(|(k, v)| (encode(k), number(*v)))
                .collect()
        }),
        read: |d, key, v| {
            d.scenario
                .params
                .insert(key.to_string(), parse_number(key, v)?);
            Ok(())
        },
    },
    Key {
        name: "links",
        doc: "link model: parallel or fcfs",
        version: v1,
        write: Write::Value(|d| {
            let links = d.scenario.links;
            when(links != defaults().links, || links.name().into())
        }),
        read: |d, _, v| {
            d.scenario.links = LinkModel::parse(v)
                .ok_or_else(|| bad(format!("links: '{v}' is neither 'parallel' nor 'fcfs'")))?;
            Ok(())
        },
    },
    Key {
        name: "order",
        doc: "link orders under fcfs links (several: version 2)",
        version: |d| {
            if d.scenario.link_order.len() > 1 {
                2
            } else {
                1
            }
        },
        write: Write::Value(|d| {
            let s = &d.scenario;
            when(s.link_order != defaults().link_order, || {
                list(&s.link_order)
            })
        }),
        read: |d, key, v| {
            d.scenario.link_order = parse_list(key, v)?;
            Ok(())
        },
    },
    Key {
        name: "footprint",
        doc: "the placement footprint rule (Pesto21 §3.1; live: the simulated peak)",
        version: v2,
        write: Write::Value(|d| {
            let f = d.scenario.footprint;
            when(f != defaults().footprint, || f.name().into())
        }),
        read: |d, key, v| {
            d.scenario.footprint =
                Footprint::parse(v).ok_or_else(|| bad(Footprint::unknown(key, v)))?;
            Ok(())
        },
    },
    Key {
        name: "seeds",
        doc: "number of seeds averaged",
        version: v1,
        write: Write::Value(|d| {
            let n = d.scenario.seeds;
            when(n != defaults().seeds, || n.to_string())
        }),
        read: |d, key, v| {
            d.scenario.seeds = count(key, v)?;
            Ok(())
        },
    },
    Key {
        name: "iterations",
        doc: "simulated steps per seed and row",
        version: v2,
        write: Write::Value(|d| {
            let n = d.scenario.iterations;
            when(n != defaults().iterations, || n.to_string())
        }),
        read: |d, key, v| {
            d.scenario.iterations = count(key, v)?;
            Ok(())
        },
    },
    // TicTac19's replicas.
    Key {
        name: "replica.workers",
        doc: "the workers' device ids",
        version: v2,
        write: Write::Value(|d| {
            let r = &d.replica;
            when(!r.workers.is_empty(), || list(&r.workers))
        }),
        read: |d, key, v| {
            d.replica.workers = parse_list(key, v)?;
            Ok(())
        },
    },
    Key {
        name: "replica.ps",
        doc: "the parameter servers' device ids",
        version: v2,
        write: Write::Value(|d| when(!d.replica.ps.is_empty(), || list(&d.replica.ps))),
        read: |d, key, v| {
            d.replica.ps = parse_list(key, v)?;
            Ok(())
        },
    },
    Key {
        name: "replica.target",
        doc: "forward only: the op the graph is pruned to before it is replicated",
        version: v2,
        write: Write::Value(|d| Ok(d.replica.forward_target.as_deref().map(encode))),
        read: |d, key, v| {
            d.replica.forward_target = Some(decode(key, v)?);
            Ok(())
        },
    },
    Key {
        name: "replica.aggregate",
        doc: "1: the servers sum the workers' updates before one update",
        version: v2,
        write: Write::Value(|d| when(d.replica.aggregate, || "1".into())),
        read: |d, key, v| {
            d.replica.aggregate = parse_flag(key, v)?;
            Ok(())
        },
    },
    Key {
        name: "replica.paramops",
        doc: "op types that read a parameter",
        version: v2,
        write: Write::Value(|d| Ok(d.replica.param_ops.as_deref().map(list))),
        read: |d, key, v| {
            d.replica.param_ops = Some(parse_list(key, v)?);
            Ok(())
        },
    },
    Key {
        name: "replica.sources",
        doc: "1: every source with outgoing bytes reads a parameter",
        version: v2,
        write: Write::Value(|d| when(d.replica.params_from_sources, || "1".into())),
        read: |d, key, v| {
            d.replica.params_from_sources = parse_flag(key, v)?;
            Ok(())
        },
    },
    Key {
        name: "replica.balance",
        doc: "the server-worker bandwidth's transfer / compute ratio on the first worker",
        version: v2,
        write: Write::Value(|d| Ok(d.replica.balance.map(number))),
        read: |d, key, v| {
            d.replica.balance = Some(parse_number(key, v)?);
            Ok(())
        },
    },
    // Draws.
    Key {
        name: "seed",
        doc: "base seed of every random draw (at most 2^53 - 1)",
        version: v1,
        write: Write::Value(|d| {
            let seed = d.scenario.seed;
            if seed > MAX_SEED {
                return Err(bad(format!(
                    "seed {seed} is larger than 2^53 - 1, which a link cannot carry exactly"
                )));
            }
            when(seed != defaults().seed, || seed.to_string())
        }),
        read: |d, key, v| {
            d.scenario.seed = parse_int(key, v)?;
            if d.scenario.seed > MAX_SEED {
                return Err(bad("seed: larger than 2^53 - 1"));
            }
            Ok(())
        },
    },
    Key {
        name: "randcost",
        doc: "redraw op costs per seed from this range",
        version: v1,
        write: Write::Value(|d| Ok(d.randomize.cost.map(range))),
        read: |d, key, v| {
            d.randomize.cost = Some(parse_range(key, v)?);
            Ok(())
        },
    },
    Key {
        name: "randbytes",
        doc: "redraw tensor sizes per seed from this range",
        version: v1,
        write: Write::Value(|d| Ok(d.randomize.bytes.map(range))),
        read: |d, key, v| {
            d.randomize.bytes = Some(parse_range(key, v)?);
            Ok(())
        },
    },
    Key {
        name: "randmem",
        doc: "redraw every op's resident memory per seed from this range",
        version: v1,
        write: Write::Value(|d| Ok(d.randomize.mem.map(range))),
        read: |d, key, v| {
            d.randomize.mem = Some(parse_range(key, v)?);
            Ok(())
        },
    },
    // What-if.
    Key {
        name: "whatif.compute",
        doc: "what-if: multiply every device speed",
        version: v1,
        write: Write::Value(|d| {
            let x = d.scenario.what_if.compute;
            when(x != 1.0, || number(x))
        }),
        read: |d, key, v| {
            d.scenario.what_if.compute = parse_number(key, v)?;
            Ok(())
        },
    },
    Key {
        name: "whatif.bandwidth",
        doc: "what-if: multiply every link bandwidth",
        version: v1,
        write: Write::Value(|d| {
            let x = d.scenario.what_if.bandwidth;
            when(x != 1.0, || number(x))
        }),
        read: |d, key, v| {
            d.scenario.what_if.bandwidth = parse_number(key, v)?;
            Ok(())
        },
    },
    Key {
        name: "whatif.latency",
        doc: "what-if: multiply every link latency",
        version: v1,
        write: Write::Value(|d| {
            let x = d.scenario.what_if.latency;
            when(x != 1.0, || number(x))
        }),
        read: |d, key, v| {
            d.scenario.what_if.latency = parse_number(key, v)?;
            Ok(())
        },
    },
    Key {
        name: "whatif.speeds",
        doc: "what-if: device speeds id:speed, in byte order of the id",
        version: v1,
        write: Write::Value(|d| {
            let speeds = &d.scenario.what_if.speeds;
            when(!speeds.is_empty(), || {
                let items: Vec<String> = speeds
                    .iter()
                    .map(|(id, sp)| format!("{}:{}", encode(id), number(*sp)))
                    .collect();
                items.join(",")
            })
        }),
        read: |d, key, v| {
            for item in v.split(',').filter(|x| !x.is_empty()) {
                let (id, sp) = item
                    .split_once(':')
                    .ok_or_else(|| bad(format!("whatif.speeds: '{item}' is not id:speed")))?;
                d.scenario
                    .what_if
                    .speeds
                    .insert(decode(key, id)?, parse_number(key, sp)?);
            }
            Ok(())
        },
    },
    // The page's view.
    Key {
        name: "pair",
        doc: "page view: the row whose timeline is shown",
        version: v1,
        write: Write::Value(|d| Ok(d.view.pair.as_deref().map(encode))),
        read: |d, key, v| {
            d.view.pair = Some(decode(key, v)?);
            Ok(())
        },
    },
    Key {
        name: "pairseed",
        doc: "page view: the seed index whose timeline is shown",
        version: v1,
        write: Write::Value(|d| {
            let seed = d.view.pair_seed;
            when(seed != 0, || seed.to_string())
        }),
        read: |d, _, v| {
            d.view.pair_seed = v.parse().map_err(|_| {
                bad(format!(
                    "pairseed: '{v}' is not a seed index (0 .. 2^32 - 1)"
                ))
            })?;
            Ok(())
        },
    },
    Key {
        name: "pair2",
        doc: "page view: a second row whose timeline is shown below the first",
        version: v1,
        write: Write::Value(|d| Ok(d.view.pair2.as_deref().map(encode))),
        read: |d, key, v| {
            d.view.pair2 = Some(decode(key, v)?);
            Ok(())
        },
    },
    Key {
        name: "sort",
        doc: "page view: the results table's sort column, - first for descending",
        version: v1,
        write: Write::Value(|d| {
            match &d.view.sort {
            Some(sort) if !valid_sort(sort) => Err(Error::Scenario(format!(
                "the table sort '{sort}' is not a column name (letters, digits, '_'; '-' first for descending)"
            ))),
            sort => Ok(sort.clone()),
        }
        }),
        read: |d, key, v| {
            let sort = decode(key, v)?;
            if !valid_sort(&sort) {
                return Err(bad(format!(
                    "sort: '{sort}' is not a column name (letters, digits, '_'; '-' first for descending)"
                )));
            }
            d.view.sort = Some(sort);
            Ok(())
        },
    },
    Key {
        name: "scale",
        doc: "page view: the makespan chart's value axis, log or linear",
        version: v1,
        write: Write::Value(|d| when(d.view.log_scale, || "log".into())),
        read: |d, key, v| {
            d.view.log_scale = scale(key, v)?;
            Ok(())
        },
    },
    Key {
        name: "sweep",
        doc: "page view: the Sweep panel's axis and factors, axis:f1,f2,...",
        version: v1,
        write: Write::Value(|d| {
            let Some(sweep) = &d.view.sweep else {
                return Ok(None);
            };
            // Checked as a link reads it, so that a written link always reads back.
            let spec = SweepSpec::new(sweep.axis, sweep.factors.clone())?;
            let factors: Vec<String> = spec.factors.iter().map(|&f| number(f)).collect();
            Ok(Some(format!("{}:{}", spec.axis.name(), factors.join(","))))
        }),
        read: |d, _, v| {
            let (axis, factors) = v
                .split_once(':')
                .ok_or_else(|| bad(format!("sweep: '{v}' is not axis:factors")))?;
            let axis = Axis::parse(axis).map_err(|e| bad(format!("sweep: {e}")))?;
            d.view.sweep =
                Some(SweepSpec::parse(axis, factors).map_err(|e| bad(format!("sweep: {e}")))?);
            Ok(())
        },
    },
    Key {
        name: "sweepscale",
        doc: "page view: the sweep chart's factor axis, log or linear",
        version: v1,
        write: Write::Value(|d| when(d.view.sweep_log, || "log".into())),
        read: |d, key, v| {
            d.view.sweep_log = scale(key, v)?;
            Ok(())
        },
    },
];
