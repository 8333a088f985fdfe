//! The scenario as a URL fragment: the format of the page's shareable links.
//!
//! `#v=1&graph=vgg19_layers&devices=50&speed=10..100&placers=hash,single` names a whole
//! comparison in a readable line. Only keys whose value differs from the defaults
//! ([`defaults`]) are written; a reader fills every missing key with its default.
//! `docs/url-format.md` is the specification. This is the one implementation of the format:
//! the CLI's `compare --url` writes links through it, and the page reads and writes its
//! links through its wasm build ([`read_link`], [`page_fragment`]); `www/state.js` only maps
//! the page's State to and from a [`Scenario`].
//!
//! Graphs: a bundled graph is named (`graph=NAME`); any other graph is embedded as
//! deflate-raw + base64url (`graphz=...`) when that is at most [`EMBED_LIMIT`] bytes, or
//! else named by the SHA-256 of its text (`graphsha256=HEX&graphname=NAME`), in which case
//! the reader must supply the file ([`check_graph`]; [`parse_fragment_with_graph`]).
//!
//! Besides the scenario, a page link carries its view ([`PageView`]: the pair whose
//! timeline is shown) and may name a graph whose file the page has not been given yet.
//!
//! Not here: reading files (the caller hands over texts) and the page's State object.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::model::cluster::ClusterGen;
use crate::model::problem::Footprint;
use crate::model::LinkModel;
use crate::scenario::{ClusterSource, GraphSource, Randomize, Replication, Scenario, WhatIf};

/// The newest link format version this build writes and reads. Version 2 added TicTac19's
/// replicas, iterations and lists of link orders, then Pesto21's `footprint`; a link that uses none of them is written
/// as version 1, so that builds that know only version 1 still open it, and every version
/// 1 link still opens here.
pub const FORMAT_VERSION: u32 = 2;

/// The lowest format version that carries `s`.
fn version_for(s: &Scenario) -> u32 {
    if s.replica.is_some()
        || s.iterations != 1
        || s.link_order.len() > 1
        || !s.footprint.is_default()
    {
        2
    } else {
        1
    }
}
/// Largest compressed graph (bytes, before base64url) embedded in a link.
pub const EMBED_LIMIT: usize = 24 * 1024;
/// Largest text a compressed payload may inflate to.
const INFLATE_LIMIT: usize = 256 * 1024 * 1024;
/// Seeds above this are not exact in JavaScript numbers.
pub const MAX_SEED: u64 = (1 << 53) - 1;

/// The bundled graph a link without `graph` means.
pub const DEFAULT_GRAPH: &str = "resnet50_layers";

/// The generated cluster a link without cluster keys means.
pub fn default_cluster_gen() -> ClusterGen {
    ClusterGen {
        devices: 4,
        speed: [5e12, 1.5e13],
        memory: None,
        memory_fraction: None,
        bandwidth: [1e9, 1e10],
        latency: [1e-5, 1e-5],
        kinds: vec![],
    }
}

/// The explicit device table `cluster=explicit` means when the link has no `dev`:
/// one CPU and two GPUs (the example of the graph format).
pub fn default_devices() -> Vec<DeviceRow> {
    let row = |id: &str, kind: &str, speed: f64, memory: f64| DeviceRow {
        id: id.into(),
        kind: Some(kind.into()),
        speed,
        memory: Some(memory),
    };
    vec![
        row("cpu0", "cpu", 2e11, 6.4e10),
        row("gpu0", "gpu", 1.5e13, 1.6e10),
        row("gpu1", "gpu", 1.5e13, 1.6e10),
    ]
}
/// Default bandwidth and latency of an explicit cluster.
pub const DEFAULT_BW: f64 = 1.2e10;
pub const DEFAULT_LAT: f64 = 1e-5;

/// The scenario of an empty fragment.
pub fn defaults() -> Scenario {
    Scenario::new(
        GraphSource::Bundled(DEFAULT_GRAPH.into()),
        ClusterSource::Generate(default_cluster_gen()),
    )
}

/// One row of an explicit cluster's device table.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceRow {
    pub id: String,
    pub kind: Option<String>,
    pub speed: f64,
    pub memory: Option<f64>,
}

/// A graph a link names by the SHA-256 (lowercase hex) of its exact text, too large to embed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphHash {
    pub sha256: String,
    pub name: String,
}

/// What a page link carries besides its scenario: the page's view.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageView {
    /// The pair whose timeline is shown, `placer/scheduler` (key `pair`).
    #[serde(default)]
    pub pair: Option<String>,
    /// The seed index whose timeline is shown (key `pairseed`; 0 is not written).
    #[serde(default)]
    pub pair_seed: u32,
    /// A second pair whose timeline is shown beside the first on a shared time axis, in the
    /// form of `pair` (key `pair2`; none: one timeline).
    #[serde(default)]
    pub pair2: Option<String>,
    /// The results table's sort: a column name (letters, digits, `_`), `-` first for
    /// descending (key `sort`; none: the comparison's order).
    #[serde(default)]
    pub sort: Option<String>,
    /// The makespan chart's value axis is logarithmic (key `scale=log`; linear is not written).
    #[serde(default)]
    pub log_scale: bool,
    /// The Sweep panel's axis and factors (key `sweep=compute:1,2,4,8`; the page's default
    /// sweep is `None` and not written).
    #[serde(default)]
    pub sweep: Option<crate::sweep::SweepSpec>,
    /// The sweep chart's factor axis is logarithmic (key `sweepscale=log`; linear is not
    /// written).
    #[serde(default)]
    pub sweep_log: bool,
}

/// Whether `s` is a sort as [`PageView::sort`] says.
fn valid_sort(s: &str) -> bool {
    let col = s.strip_prefix('-').unwrap_or(s);
    !col.is_empty() && col.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// How a link gives its graph.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum LinkGraph {
    /// `graph=NAME` (or the default): the scenario's `Bundled` graph.
    Bundled,
    /// `graphz`: the embedded text, exactly as compressed, and the graph's name (its
    /// `name`, or `graph`).
    Embedded { name: String, text: String },
    /// `graphsha256` + `graphname`: the reader must supply the file ([`check_graph`]).
    Hashed(GraphHash),
}

/// A link as the page reads it ([`read_link`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Link {
    /// The scenario. Its graph is `Bundled`, or for an embedded or hashed graph
    /// `File(name)`: the graph's text is in (or, when hashed, missing from) `graph`.
    pub scenario: Scenario,
    pub graph: LinkGraph,
    pub view: PageView,
}

fn bad(message: impl Into<String>) -> Error {
    Error::Parse {
        what: "link".into(),
        message: message.into(),
    }
}

// ---------------------------------------------------------------------------------------
// Atoms: numbers, percent-encoding, base64url, deflate.

/// A number as the page writes it: the shorter of the plain and the exponent form (the
/// plain one on a tie), both exact (shortest round-trip digits).
pub fn number(x: f64) -> String {
    let plain = if x == x.trunc() && x.abs() < 1e21 {
        format!("{}", x as i128)
    } else {
        format!("{x}")
    };
    let exp = format!("{x:e}");
    if exp.len() < plain.len() {
        exp
    } else {
        plain
    }
}

fn parse_number(key: &str, s: &str) -> Result<f64> {
    let ok = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    match s.parse::<f64>() {
        Ok(x) if ok && x.is_finite() => Ok(x),
        _ => Err(bad(format!("{key}: '{s}' is not a number"))),
    }
}

fn parse_int(key: &str, s: &str) -> Result<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad(format!("{key}: '{s}' is not a whole number")));
    }
    s.parse::<u64>()
        .map_err(|_| bad(format!("{key}: '{s}' is too large")))
}

fn range(r: [f64; 2]) -> String {
    format!("{}..{}", number(r[0]), number(r[1]))
}

fn parse_range(key: &str, s: &str) -> Result<[f64; 2]> {
    match s.split_once("..") {
        Some((lo, hi)) => Ok([parse_number(key, lo)?, parse_number(key, hi)?]),
        None => {
            let x = parse_number(key, s)?;
            Ok([x, x])
        }
    }
}

/// Percent-encodes like JavaScript's `encodeURIComponent`.
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decodes `%XX` escapes (UTF-8); a malformed escape is an error.
pub fn decode(key: &str, s: &str) -> Result<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            let Some(byte) = hex else {
                return Err(bad(format!("{key}: malformed percent escape")));
            };
            out.push(byte);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| bad(format!("{key}: not UTF-8 after decoding")))
}

/// base64url without padding.
pub fn base64url(data: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(data)
}

/// Decodes base64url (padding and the `+/` alphabet are accepted too).
pub fn unbase64url(key: &str, s: &str) -> Result<Vec<u8>> {
    let normalized: String = s
        .chars()
        .filter(|&c| c != '=')
        .map(|c| match c {
            '+' => '-',
            '/' => '_',
            c => c,
        })
        .collect();
    URL_SAFE_NO_PAD
        .decode(normalized.as_bytes())
        .map_err(|_| bad(format!("{key}: not base64url")))
}

/// deflate-raw (what the browser's `CompressionStream('deflate-raw')` reads and writes).
pub fn deflate(text: &str) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 9)
}

/// [`deflate`] of `text` when that is at most `limit` bytes, else `None`. Stops compressing
/// as soon as the output passes the limit, so a huge graph costs about as much as the part
/// of it that fills a link; the output equals [`deflate`]'s when it fits.
pub fn deflate_within(text: &str, limit: usize) -> Option<Vec<u8>> {
    use miniz_oxide::deflate::core::{
        compress, create_comp_flags_from_zip_params, CompressorOxide, TDEFLFlush, TDEFLStatus,
    };
    // Level 9, raw deflate (window bits 0), default strategy: as `deflate`.
    let mut c = CompressorOxide::new(create_comp_flags_from_zip_params(9, 0, 0));
    // Room past the limit: the compressor asks for more once fewer than 30 bytes are left.
    let mut out = vec![0; limit + 64];
    let mut input = text.as_bytes();
    let mut pos = 0;
    loop {
        let (status, used, written) = compress(&mut c, input, &mut out[pos..], TDEFLFlush::Finish);
        pos += written;
        match status {
            TDEFLStatus::Done => {
                out.truncate(pos);
                return (pos <= limit).then_some(out);
            }
            TDEFLStatus::Okay if used <= input.len() && pos <= limit && out.len() - pos >= 30 => {
                input = &input[used..];
            }
            _ => return None,
        }
    }
}

fn inflate(key: &str, data: &[u8]) -> Result<String> {
    let bytes = miniz_oxide::inflate::decompress_to_vec_with_limit(data, INFLATE_LIMIT)
        .map_err(|e| bad(format!("{key}: the compressed data is damaged ({e:?})")))?;
    String::from_utf8(bytes).map_err(|_| bad(format!("{key}: the data is not UTF-8 text")))
}

/// SHA-256 of a graph's exact text, lowercase hex: how a too-large graph is named.
pub fn graph_sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Checks that `text` is the graph a link names by hash (`graphsha256`, `graphname`).
pub fn check_graph(linked: &GraphHash, text: &str) -> Result<()> {
    let got = graph_sha256(text);
    if got == linked.sha256 {
        Ok(())
    } else {
        Err(bad(format!(
            "the file given for graph '{}' is not the linked one (SHA-256 {got}, the link wants {})",
            linked.name, linked.sha256
        )))
    }
}

fn valid_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 200
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

// ---------------------------------------------------------------------------------------
// Explicit clusters.

/// A device table when `value` is a cluster of only devices (id, kind, speed, memory),
/// bandwidth and latency (a `name` is dropped); `None` when it has more (links, link
/// types, kinds), which a link then carries compressed.
fn simple_cluster(value: &Value) -> Option<(Vec<DeviceRow>, f64, f64)> {
    let obj = value.as_object()?;
    if obj
        .keys()
        .any(|k| !matches!(k.as_str(), "name" | "devices" | "bandwidth" | "latency"))
    {
        return None;
    }
    let mut rows = Vec::new();
    for d in obj.get("devices")?.as_array()? {
        let d = d.as_object()?;
        if d.keys()
            .any(|k| !matches!(k.as_str(), "id" | "kind" | "speed" | "memory"))
        {
            return None;
        }
        let opt = |k: &str| d.get(k).filter(|v| !v.is_null());
        rows.push(DeviceRow {
            id: d.get("id")?.as_str()?.to_string(),
            kind: match opt("kind") {
                Some(k) => Some(k.as_str()?.to_string()),
                None => None,
            },
            speed: d.get("speed")?.as_f64()?,
            memory: match opt("memory") {
                Some(m) => Some(m.as_f64()?),
                None => None,
            },
        });
    }
    let bw = obj.get("bandwidth")?.as_f64()?;
    let lat = match obj.get("latency").filter(|v| !v.is_null()) {
        Some(l) => l.as_f64()?,
        None => 0.0,
    };
    Some((rows, bw, lat))
}

/// The cluster JSON of a device table.
pub fn cluster_value(rows: &[DeviceRow], bandwidth: f64, latency: f64) -> Value {
    let devices = rows
        .iter()
        .map(|r| {
            let mut d = Map::new();
            d.insert("id".into(), r.id.clone().into());
            if let Some(k) = &r.kind {
                d.insert("kind".into(), k.clone().into());
            }
            d.insert("speed".into(), r.speed.into());
            if let Some(m) = r.memory {
                d.insert("memory".into(), m.into());
            }
            Value::Object(d)
        })
        .collect();
    serde_json::json!({ "devices": Value::Array(devices), "bandwidth": bandwidth, "latency": latency })
}

fn device_table(rows: &[DeviceRow]) -> String {
    rows.iter()
        .map(|r| {
            format!(
                "{}:{}:{}:{}",
                encode(&r.id),
                encode(r.kind.as_deref().unwrap_or("")),
                number(r.speed),
                r.memory.map(number).unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join(",")
}

fn parse_device_table(s: &str) -> Result<Vec<DeviceRow>> {
    s.split(',')
        .enumerate()
        .map(|(i, item)| {
            let parts: Vec<&str> = item.split(':').collect();
            if parts.len() != 4 {
                return Err(bad(format!(
                    "dev: device {i} must be id:kind:speed:memory, got '{item}'"
                )));
            }
            let key = format!("dev[{i}]");
            let kind = decode(&key, parts[1])?;
            Ok(DeviceRow {
                id: decode(&key, parts[0])?,
                kind: (!kind.is_empty()).then_some(kind),
                speed: parse_number(&key, parts[2])?,
                memory: if parts[3].is_empty() {
                    None
                } else {
                    Some(parse_number(&key, parts[3])?)
                },
            })
        })
        .collect()
}

fn list(items: &[String]) -> String {
    items
        .iter()
        .map(|s| encode(s))
        .collect::<Vec<_>>()
        .join(",")
}

fn parse_flag(key: &str, v: &str) -> Result<bool> {
    match v {
        "0" => Ok(false),
        "1" => Ok(true),
        _ => Err(bad(format!("{key}: '{v}' is neither 0 nor 1"))),
    }
}

fn parse_list(key: &str, s: &str) -> Result<Vec<String>> {
    if s.is_empty() {
        return Ok(vec![]);
    }
    s.split(',').map(|x| decode(key, x)).collect()
}

// ---------------------------------------------------------------------------------------
// Writing.

/// The fragment (from `#` on) of a scenario whose graph is bundled or inline. An inline
/// graph is embedded compressed, or named by the SHA-256 of its compact JSON text when
/// too large (use [`fragment_with_graph_text`] to name a file by its own bytes).
pub fn fragment(s: &Scenario) -> Result<String> {
    fragment_with_graph_text(s, None)
}

/// Like [`fragment`], for a scenario whose graph is a file (or inline) and whose exact
/// text is `graph_text`: that text is what is embedded or hashed, so the page can check
/// the very file the user gives it. The link names it by the file's stem.
pub fn fragment_with_graph_text(s: &Scenario, graph_text: Option<&str>) -> Result<String> {
    fragment_with_files(s, graph_text, None)
}

/// Like [`fragment_with_graph_text`], also for a scenario whose cluster is a file:
/// `cluster_text` is that file's text, written into the link as an explicit cluster (a
/// device table, or compressed when it has more than one).
pub fn fragment_with_files(
    s: &Scenario,
    graph_text: Option<&str>,
    cluster_text: Option<&str>,
) -> Result<String> {
    if let (ClusterSource::File(path), Some(text)) = (&s.cluster, cluster_text) {
        // Validate it as a cluster first, so the link never carries a broken one.
        crate::model::cluster::Cluster::from_json(text, path)?;
        let value: Value = serde_json::from_str(text)
            .map_err(|e| bad(format!("cluster '{path}' is not JSON ({e})")))?;
        let mut inline = s.clone();
        inline.cluster = ClusterSource::Inline(value);
        return write(&inline, GraphText::Text(graph_text), &PageView::default());
    }
    write(s, GraphText::Text(graph_text), &PageView::default())
}

/// The page's link: like [`fragment_with_graph_text`] (the page passes an uploaded graph
/// as `File(name)` with its text), plus the page's view. `graph_hash` stands for a graph
/// that a link named by hash and whose file the page has not been given: it is written
/// back as it came, whatever the scenario's graph says.
pub fn page_fragment(
    s: &Scenario,
    graph_text: Option<&str>,
    graph_hash: Option<&GraphHash>,
    view: &PageView,
) -> Result<String> {
    let graph = match graph_hash {
        Some(h) => GraphText::Hashed(h),
        None => GraphText::Text(graph_text),
    };
    write(s, graph, view)
}

/// What the writer knows of a non-bundled graph.
enum GraphText<'a> {
    Text(Option<&'a str>),
    Hashed(&'a GraphHash),
}

fn write(s: &Scenario, graph: GraphText, view: &PageView) -> Result<String> {
    s.resolve()?;
    let d = defaults();
    let mut kv: Vec<(String, String)> = vec![("v".into(), version_for(s).to_string())];
    let mut put = |k: &str, v: String| kv.push((k.to_string(), v));

    // Graph.
    let hashed = |h: &GraphHash| {
        if h.sha256.len() != 64 || !h.sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad(format!(
                "graph hash '{}' is not 64 hex digits",
                h.sha256
            )));
        }
        Ok(vec![
            ("graphsha256", h.sha256.to_ascii_lowercase()),
            ("graphname", encode(&h.name)),
        ])
    };
    let inline;
    let keys = match (&s.graph, graph) {
        (_, GraphText::Hashed(h)) => hashed(h)?,
        (GraphSource::Bundled(name), _) => {
            if !valid_name(name) {
                return Err(bad(format!(
                    "bundled graph name '{name}' may only hold letters, digits, '_' and '-'"
                )));
            }
            if *name == DEFAULT_GRAPH {
                vec![]
            } else {
                vec![("graph", name.clone())]
            }
        }
        (GraphSource::Inline(v), GraphText::Text(t)) => {
            let text = match t {
                Some(t) => t,
                None => {
                    inline = v.to_string();
                    &inline
                }
            };
            match deflate_within(text, EMBED_LIMIT) {
                Some(z) => vec![("graphz", base64url(&z))],
                None => hashed(&GraphHash {
                    sha256: graph_sha256(text),
                    name: graph_name(v, "graph"),
                })?,
            }
        }
        (GraphSource::File(path), GraphText::Text(Some(t))) => match deflate_within(t, EMBED_LIMIT)
        {
            Some(z) => vec![("graphz", base64url(&z))],
            None => {
                // Named by the graph's own name, else by the file's stem.
                let stem = std::path::Path::new(path)
                    .file_stem()
                    .and_then(|x| x.to_str())
                    .unwrap_or("graph")
                    .to_string();
                let name = serde_json::from_str::<Value>(t)
                    .map(|v| graph_name(&v, &stem))
                    .unwrap_or(stem);
                hashed(&GraphHash {
                    sha256: graph_sha256(t),
                    name,
                })?
            }
        },
        (GraphSource::File(path), GraphText::Text(None)) => {
            return Err(bad(format!(
                "the graph is the file '{path}': give its text to embed it in the link"
            )))
        }
    };
    for (k, v) in keys {
        put(k, v);
    }

    // Cluster.
    match &s.cluster {
        ClusterSource::Generate(g) => {
            let dg = default_cluster_gen();
            if g.devices != dg.devices {
                put("devices", g.devices.to_string());
            }
            if g.speed != dg.speed {
                put("speed", range(g.speed));
            }
            if g.bandwidth != dg.bandwidth {
                put("bandwidth", range(g.bandwidth));
            }
            if g.latency != dg.latency {
                put("latency", range(g.latency));
            }
            if let Some(m) = g.memory {
                put("memory", number(m));
            }
            if let Some(f) = g.memory_fraction {
                put("memfraction", number(f));
            }
            if !g.kinds.is_empty() {
                put("kinds", list(&g.kinds));
            }
        }
        ClusterSource::Inline(v) => match simple_cluster(v) {
            Some((rows, bw, lat)) => {
                put("cluster", "explicit".into());
                if rows != default_devices() {
                    put("dev", device_table(&rows));
                }
                if bw != DEFAULT_BW {
                    put("bw", number(bw));
                }
                if lat != DEFAULT_LAT {
                    put("lat", number(lat));
                }
            }
            None => put("clusterz", base64url(&deflate(&v.to_string()))),
        },
        ClusterSource::File(path) => {
            return Err(bad(format!(
                "the cluster is the file '{path}': give its text to write it into the link"
            )))
        }
    }

    // Strategies.
    if s.placers != d.placers {
        put("placers", list(&s.placers));
    }
    if s.schedulers != d.schedulers {
        put("schedulers", list(&s.schedulers));
    }
    for (k, v) in &s.params {
        put(&encode(k), number(*v));
    }
    if s.links != d.links {
        put("links", s.links.name().into());
    }
    if s.link_order != d.link_order {
        put("order", list(&s.link_order));
    }
    if s.footprint != d.footprint {
        put("footprint", s.footprint.name().into());
    }
    if s.seeds != d.seeds {
        put("seeds", s.seeds.to_string());
    }
    if s.iterations != d.iterations {
        put("iterations", s.iterations.to_string());
    }
    if let Some(r) = &s.replica {
        put("replica.workers", list(&r.workers));
        put("replica.ps", list(&r.ps));
        if let Some(t) = &r.forward_target {
            put("replica.target", encode(t));
        }
        if r.aggregate {
            put("replica.aggregate", "1".into());
        }
        if let Some(ops) = &r.param_ops {
            put("replica.paramops", list(ops));
        }
        if r.params_from_sources {
            put("replica.sources", "1".into());
        }
        if let Some(b) = r.balance {
            put("replica.balance", number(b));
        }
    }
    if s.seed > MAX_SEED {
        return Err(bad(format!(
            "seed {} is larger than 2^53 - 1, which a link cannot carry exactly",
            s.seed
        )));
    }
    if s.seed != d.seed {
        put("seed", s.seed.to_string());
    }
    if let Some(r) = &s.randomize {
        if let Some(c) = r.cost {
            put("randcost", range(c));
        }
        if let Some(b) = r.bytes {
            put("randbytes", range(b));
        }
        if let Some(m) = r.mem {
            put("randmem", range(m));
        }
    }
    let w = &s.what_if;
    if w.compute != 1.0 {
        put("whatif.compute", number(w.compute));
    }
    if w.bandwidth != 1.0 {
        put("whatif.bandwidth", number(w.bandwidth));
    }
    if w.latency != 1.0 {
        put("whatif.latency", number(w.latency));
    }
    if !w.speeds.is_empty() {
        let items: Vec<String> = w
            .speeds
            .iter()
            .map(|(id, sp)| format!("{}:{}", encode(id), number(*sp)))
            .collect();
        put("whatif.speeds", items.join(","));
    }
    if let Some(pair) = &view.pair {
        put("pair", encode(pair));
    }
    if view.pair_seed != 0 {
        put("pairseed", view.pair_seed.to_string());
    }
    if let Some(pair2) = &view.pair2 {
        put("pair2", encode(pair2));
    }
    if let Some(sort) = &view.sort {
        if !valid_sort(sort) {
            return Err(Error::Scenario(format!(
                "the table sort '{sort}' is not a column name (letters, digits, '_'; '-' first for descending)"
            )));
        }
        put("sort", sort.clone());
    }
    if view.log_scale {
        put("scale", "log".into());
    }
    if let Some(sweep) = &view.sweep {
        // Checked as a link reads it, so that a written link always reads back.
        let spec = crate::sweep::SweepSpec::new(sweep.axis, sweep.factors.clone())?;
        let factors: Vec<String> = spec.factors.iter().map(|&f| number(f)).collect();
        put(
            "sweep",
            format!("{}:{}", spec.axis.name(), factors.join(",")),
        );
    }
    if view.sweep_log {
        put("sweepscale", "log".into());
    }
    let body: Vec<String> = kv.into_iter().map(|(k, v)| format!("{k}={v}")).collect();
    Ok(format!("#{}", body.join("&")))
}

fn graph_name(v: &Value, fallback: &str) -> String {
    v.get("name")
        .and_then(|n| n.as_str())
        .filter(|n| !n.is_empty())
        .unwrap_or(fallback)
        .to_string()
}

// ---------------------------------------------------------------------------------------
// Reading.

/// The scenario of a fragment (with or without its leading `#`). A link that names its
/// graph by hash is an error here; use [`parse_fragment_with_graph`].
pub fn parse_fragment(f: &str) -> Result<Scenario> {
    parse_fragment_with_graph(f, None)
}

/// Like [`parse_fragment`]; when the link names its graph by hash, `graph_text` must be
/// the file whose SHA-256 matches, and the scenario gets it as an inline graph.
pub fn parse_fragment_with_graph(f: &str, graph_text: Option<&str>) -> Result<Scenario> {
    let link = read_link(f)?;
    let mut s = link.scenario;
    let (name, text) = match &link.graph {
        LinkGraph::Bundled => return Ok(s),
        LinkGraph::Embedded { name, text } => (name, text.as_str()),
        LinkGraph::Hashed(h) => {
            let Some(text) = graph_text else {
                return Err(bad(format!(
                    "the link names graph '{}' by its SHA-256 {}: give that file",
                    h.name, h.sha256
                )));
            };
            check_graph(h, text)?;
            (&h.name, text)
        }
    };
    let value: Value =
        serde_json::from_str(text).map_err(|e| bad(format!("graph '{name}' is not JSON ({e})")))?;
    s.graph = GraphSource::Inline(value);
    Ok(s)
}

/// Reads a link (with or without its leading `#`) as the page does: the scenario, how the
/// link gives its graph (an embedded graph's text exactly as it was compressed; a graph
/// named by hash without its file), and the page's view (`pair`).
pub fn read_link(f: &str) -> Result<Link> {
    let f = f.strip_prefix('#').unwrap_or(f);
    let mut pairs: Vec<(String, &str)> = Vec::new();
    for item in f.split('&').filter(|x| !x.is_empty()) {
        let (k, v) = item.split_once('=').unwrap_or((item, ""));
        let k = decode("key", k)?;
        if pairs.iter().any(|(seen, _)| *seen == k) {
            return Err(bad(format!("key '{k}' appears twice")));
        }
        pairs.push((k, v));
    }
    let get = |k: &str| pairs.iter().find(|(x, _)| x == k).map(|(_, v)| *v);
    match get("v") {
        None => return Err(bad("not a placesim link: it has no format version (v=1)")),
        Some(v) if !(1..=FORMAT_VERSION).any(|k| v == k.to_string()) => {
            return Err(bad(format!(
                "link format version '{v}' is not supported (this build reads v=1 to v={FORMAT_VERSION})"
            )))
        }
        Some(_) => {}
    }

    let mut s = defaults();
    let mut gen = default_cluster_gen();
    let mut explicit = false;
    let mut rows = default_devices();
    let mut bw = DEFAULT_BW;
    let mut lat = DEFAULT_LAT;
    let mut clusterz = None;
    let mut graph_hash: Option<String> = None;
    let mut hash_name: Option<String> = None;
    let mut randomize = Randomize {
        cost: None,
        bytes: None,
        mem: None,
    };
    let mut what_if = WhatIf::default();
    let mut replica = Replication {
        workers: vec![],
        ps: vec![],
        forward_target: None,
        aggregate: false,
        param_ops: None,
        params_from_sources: false,
        balance: None,
    };
    let mut graph = LinkGraph::Bundled;
    let mut view = PageView::default();

    for (key, v) in &pairs {
        let key = key.as_str();
        match key {
            "v" => {}
            "graph" => {
                let name = decode(key, v)?;
                if !valid_name(&name) {
                    return Err(bad(format!(
                        "graph: '{name}' is not a bundled graph name (letters, digits, '_', '-')"
                    )));
                }
                s.graph = GraphSource::Bundled(name);
                graph = LinkGraph::Bundled;
            }
            "graphz" => {
                let text = inflate(key, &unbase64url(key, v)?)?;
                let value: Value = serde_json::from_str(&text)
                    .map_err(|e| bad(format!("graphz: the embedded graph is not JSON ({e})")))?;
                let name = graph_name(&value, "graph");
                s.graph = GraphSource::File(name.clone());
                graph = LinkGraph::Embedded { name, text };
            }
            "graphsha256" => {
                let h = v.to_ascii_lowercase();
                if h.len() != 64 || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(bad("graphsha256: not 64 hex digits"));
                }
                graph_hash = Some(h);
            }
            "graphname" => hash_name = Some(decode(key, v)?),
            "devices" => {
                gen.devices = parse_int(key, v)?
                    .try_into()
                    .map_err(|_| bad("devices: too many"))?
            }
            "speed" => gen.speed = parse_range(key, v)?,
            "bandwidth" => gen.bandwidth = parse_range(key, v)?,
            "latency" => gen.latency = parse_range(key, v)?,
            "memory" => gen.memory = Some(parse_number(key, v)?),
            "memfraction" => gen.memory_fraction = Some(parse_number(key, v)?),
            "kinds" => gen.kinds = parse_list(key, v)?,
            "cluster" => match *v {
                "explicit" => explicit = true,
                "generate" => explicit = false,
                other => {
                    return Err(bad(format!(
                        "cluster: '{other}' is neither 'generate' nor 'explicit'"
                    )))
                }
            },
            "dev" => {
                explicit = true;
                rows = parse_device_table(v)?;
            }
            "bw" => bw = parse_number(key, v)?,
            "lat" => lat = parse_number(key, v)?,
            "clusterz" => {
                let text = inflate(key, &unbase64url(key, v)?)?;
                let value: Value = serde_json::from_str(&text).map_err(|e| {
                    bad(format!("clusterz: the embedded cluster is not JSON ({e})"))
                })?;
                clusterz = Some(value);
            }
            "placers" => s.placers = parse_list(key, v)?,
            "schedulers" => s.schedulers = parse_list(key, v)?,
            "links" => {
                s.links = LinkModel::parse(v)
                    .ok_or_else(|| bad(format!("links: '{v}' is neither 'parallel' nor 'fcfs'")))?
            }
            "order" => s.link_order = parse_list(key, v)?,
            "footprint" => {
                s.footprint = Footprint::parse(v).ok_or_else(|| bad(Footprint::unknown(key, v)))?
            }
            "seeds" => {
                s.seeds = parse_int(key, v)?
                    .try_into()
                    .map_err(|_| bad("seeds: too many"))?
            }
            "iterations" => {
                s.iterations = parse_int(key, v)?
                    .try_into()
                    .map_err(|_| bad("iterations: too many"))?
            }
            "replica.workers" => replica.workers = parse_list(key, v)?,
            "replica.ps" => replica.ps = parse_list(key, v)?,
            "replica.target" => replica.forward_target = Some(decode(key, v)?),
            "replica.aggregate" => replica.aggregate = parse_flag(key, v)?,
            "replica.paramops" => replica.param_ops = Some(parse_list(key, v)?),
            "replica.sources" => replica.params_from_sources = parse_flag(key, v)?,
            "replica.balance" => replica.balance = Some(parse_number(key, v)?),
            "seed" => {
                s.seed = parse_int(key, v)?;
                if s.seed > MAX_SEED {
                    return Err(bad("seed: larger than 2^53 - 1"));
                }
            }
            "randcost" => randomize.cost = Some(parse_range(key, v)?),
            "randbytes" => randomize.bytes = Some(parse_range(key, v)?),
            "randmem" => randomize.mem = Some(parse_range(key, v)?),
            "whatif.compute" => what_if.compute = parse_number(key, v)?,
            "whatif.bandwidth" => what_if.bandwidth = parse_number(key, v)?,
            "whatif.latency" => what_if.latency = parse_number(key, v)?,
            "whatif.speeds" => {
                for item in v.split(',').filter(|x| !x.is_empty()) {
                    let (id, sp) = item
                        .split_once(':')
                        .ok_or_else(|| bad(format!("whatif.speeds: '{item}' is not id:speed")))?;
                    what_if
                        .speeds
                        .insert(decode(key, id)?, parse_number(key, sp)?);
                }
            }
            "pair" => view.pair = Some(decode(key, v)?),
            "pair2" => view.pair2 = Some(decode(key, v)?),
            "pairseed" => {
                view.pair_seed = v.parse().map_err(|_| {
                    bad(format!(
                        "pairseed: '{v}' is not a seed index (0 .. 2^32 - 1)"
                    ))
                })?
            }
            "sort" => {
                let sort = decode(key, v)?;
                if !valid_sort(&sort) {
                    return Err(bad(format!(
                        "sort: '{sort}' is not a column name (letters, digits, '_'; '-' first for descending)"
                    )));
                }
                view.sort = Some(sort);
            }
            "scale" => {
                view.log_scale = match *v {
                    "log" => true,
                    "linear" => false,
                    _ => {
                        return Err(bad(format!(
                            "scale: '{v}' is not a chart scale (log or linear)"
                        )))
                    }
                }
            }
            "sweep" => {
                let (axis, factors) = v
                    .split_once(':')
                    .ok_or_else(|| bad(format!("sweep: '{v}' is not axis:factors")))?;
                let axis =
                    crate::sweep::Axis::parse(axis).map_err(|e| bad(format!("sweep: {e}")))?;
                view.sweep = Some(
                    crate::sweep::SweepSpec::parse(axis, factors)
                        .map_err(|e| bad(format!("sweep: {e}")))?,
                );
            }
            "sweepscale" => {
                view.sweep_log = match *v {
                    "log" => true,
                    "linear" => false,
                    _ => {
                        return Err(bad(format!(
                            "sweepscale: '{v}' is not a chart scale (log or linear)"
                        )))
                    }
                }
            }
            k if k.contains('.') => {
                s.params.insert(k.to_string(), parse_number(k, v)?);
            }
            k => return Err(bad(format!("unknown key '{k}'"))),
        }
    }

    if let Some(sha256) = graph_hash {
        let name = hash_name.unwrap_or_else(|| "graph".into());
        s.graph = GraphSource::File(name.clone());
        graph = LinkGraph::Hashed(GraphHash { sha256, name });
    }
    s.cluster = match (clusterz, explicit) {
        (Some(v), _) => ClusterSource::Inline(v),
        (None, true) => ClusterSource::Inline(cluster_value(&rows, bw, lat)),
        (None, false) => ClusterSource::Generate(gen),
    };
    if randomize.cost.is_some() || randomize.bytes.is_some() || randomize.mem.is_some() {
        s.randomize = Some(randomize);
    }
    s.what_if = what_if;
    let named = !(replica.workers.is_empty() && replica.ps.is_empty());
    let options = replica.forward_target.is_some()
        || replica.aggregate
        || replica.param_ops.is_some()
        || replica.params_from_sources
        || replica.balance.is_some();
    if named {
        s.replica = Some(replica);
    } else if options {
        return Err(bad(
            "replica options without replica.workers and replica.ps",
        ));
    }
    s.resolve()?;
    Ok(Link {
        scenario: s,
        graph,
        view,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn round_trip(s: &Scenario) -> String {
        let f = fragment(s).unwrap();
        let back = parse_fragment(&f).unwrap();
        assert_eq!(&back, s, "fragment {f}");
        assert_eq!(fragment(&back).unwrap(), f);
        f
    }

    #[test]
    fn a_replica_link_is_version_2_and_round_trips() {
        let mut s = defaults();
        s.links = LinkModel::Fcfs;
        s.link_order = vec!["random".into(), "tio".into(), "tao".into()];
        s.iterations = 200;
        s.replica = Some(Replication {
            workers: vec!["w0".into(), "w 1".into()],
            ps: vec!["ps0".into()],
            forward_target: Some("loss/op".into()),
            aggregate: true,
            param_ops: Some(vec!["VarHandleOp".into()]),
            params_from_sources: true,
            balance: Some(0.9),
        });
        let f = round_trip(&s);
        assert!(f.starts_with("#v=2&"), "{f}");
        assert!(f.contains("&order=random,tio,tao&iterations=200&replica.workers=w0,w%201&replica.ps=ps0&replica.target=loss%2Fop"), "{f}");
        // One order and one iteration without a replica is still a version 1 link.
        s.replica = None;
        s.iterations = 1;
        s.link_order = vec!["tao".into()];
        assert!(round_trip(&s).starts_with("#v=1&"));
        let e = parse_fragment("v=2&replica.balance=1")
            .unwrap_err()
            .to_string();
        assert!(e.contains("replica options without replica.workers"), "{e}");
        let e = parse_fragment("v=3").unwrap_err().to_string();
        assert!(e.contains("v=1 to v=2"), "{e}");
    }

    #[test]
    fn defaults_write_only_the_version() {
        assert_eq!(round_trip(&defaults()), "#v=1");
        assert_eq!(parse_fragment("v=1").unwrap(), defaults());
    }

    #[test]
    fn generated_cluster_and_strategies_round_trip() {
        let mut s = defaults();
        s.graph = GraphSource::Bundled("vgg19_layers".into());
        s.cluster = ClusterSource::Generate(ClusterGen {
            devices: 50,
            speed: [10.0, 100.0],
            memory: Some(1.6e10),
            memory_fraction: Some(0.25),
            bandwidth: [10.0, 60.0],
            latency: [0.0, 0.0],
            kinds: vec!["cpu".into(), "gpu".into()],
        });
        s.placers = vec!["hash".into()];
        s.seeds = 10;
        s.seed = 12345;
        s.links = LinkModel::Fcfs;
        s.randomize = Some(Randomize {
            cost: Some([1.0, 100.0]),
            bytes: Some([1.0, 100.0]),
            mem: Some([0.0, 5.0]),
        });
        s.what_if = WhatIf {
            compute: 2.0,
            bandwidth: 0.5,
            latency: 4.0,
            speeds: BTreeMap::from([("d1".to_string(), 42.5)]),
        };
        let f = round_trip(&s);
        assert_eq!(
            f,
            "#v=1&graph=vgg19_layers&devices=50&speed=10..100&bandwidth=10..60&latency=0..0\
             &memory=1.6e10&memfraction=0.25&kinds=cpu,gpu&placers=hash&links=fcfs&seeds=10\
             &seed=12345&randcost=1..100&randbytes=1..100&randmem=0..5&whatif.compute=2\
             &whatif.bandwidth=0.5&whatif.latency=4&whatif.speeds=d1:42.5"
        );
        // The latency factor is written only when it is not 1, so old links (without it)
        // read as they always did, and a link without it means 1.
        s.what_if.latency = 1.0;
        assert!(!round_trip(&s).contains("whatif.latency"));
    }

    #[test]
    fn explicit_clusters_use_a_device_table_or_compress() {
        let mut s = defaults();
        let rows = vec![
            DeviceRow {
                id: "gpu:0,a".into(),
                kind: None,
                speed: 1.5e13,
                memory: None,
            },
            DeviceRow {
                id: "cpu0".into(),
                kind: Some("cpu".into()),
                speed: 0.25,
                memory: Some(64.0),
            },
        ];
        s.cluster = ClusterSource::Inline(cluster_value(&rows, 1e9, 0.0));
        let f = round_trip(&s);
        assert!(
            f.contains("cluster=explicit&dev=gpu%3A0%2Ca::1.5e13:,cpu0:cpu:0.25:64&bw=1e9&lat=0"),
            "{f}"
        );
        s.cluster =
            ClusterSource::Inline(cluster_value(&default_devices(), DEFAULT_BW, DEFAULT_LAT));
        assert_eq!(round_trip(&s), "#v=1&cluster=explicit");
        let with_links: Value = serde_json::from_str(
            r#"{"devices":[{"id":"a","speed":1},{"id":"b","speed":2}],"bandwidth":10,
                "links":[{"src":"a","dst":"b","bandwidth":5}]}"#,
        )
        .unwrap();
        s.cluster = ClusterSource::Inline(with_links);
        assert!(round_trip(&s).contains("clusterz="));

        // A cluster file: its text goes into the link.
        let mut f = defaults();
        f.cluster = ClusterSource::File("c.json".into());
        assert!(fragment(&f)
            .unwrap_err()
            .to_string()
            .contains("give its text"));
        let text = r#"{"name":"two","devices":[{"id":"a","speed":1},{"id":"b","kind":"cpu","speed":2}],"bandwidth":10,"latency":0}"#;
        let link = fragment_with_files(&f, None, Some(text)).unwrap();
        assert_eq!(link, "#v=1&cluster=explicit&dev=a::1:,b:cpu:2:&bw=10&lat=0");
        let back = parse_fragment(&link).unwrap();
        let c = back.fixed_cluster(&|_| unreachable!()).unwrap().unwrap();
        assert_eq!(c.devices[1].kind, "cpu");
        assert!(fragment_with_files(&f, None, Some(r#"{"devices":[]}"#)).is_err());
    }

    #[test]
    fn inline_graphs_embed_or_hash() {
        let small: Value =
            serde_json::from_str(r#"{"name":"tiny","nodes":[{"id":"a","cost":1}],"edges":[]}"#)
                .unwrap();
        let mut s = defaults();
        s.graph = GraphSource::Inline(small);
        assert!(round_trip(&s).contains("graphz="));

        // A graph whose compressed text is over the limit: random-looking ids.
        let mut rng = crate::rng::Rng::new(1);
        let nodes: Vec<Value> = (0..4000)
            .map(|i| serde_json::json!({"id": format!("n{i}_{:x}", rng.next_u64()), "cost": 1}))
            .collect();
        let big = serde_json::json!({"name": "big one", "nodes": nodes});
        let text = big.to_string();
        s.graph = GraphSource::File("/tmp/big.json".into());
        let f = fragment_with_graph_text(&s, Some(&text)).unwrap();
        assert!(
            f.contains(&format!("graphsha256={}", graph_sha256(&text))),
            "{f}"
        );
        assert!(f.contains("graphname=big%20one"));
        let e = parse_fragment(&f).unwrap_err().to_string();
        assert!(e.contains("give that file"), "{e}");
        let e = parse_fragment_with_graph(&f, Some("{}"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("not the linked one"), "{e}");
        let back = parse_fragment_with_graph(&f, Some(&text)).unwrap();
        assert_eq!(back.graph, GraphSource::Inline(big));
    }

    #[test]
    fn page_links_carry_the_view_and_the_graph_as_given() {
        // The view (`pair`) is written last and read back; a scenario reader ignores it.
        let mut s = defaults();
        s.seeds = 2;
        let view = PageView {
            pair: Some("hash/fifo".into()),
            ..PageView::default()
        };
        let f = page_fragment(&s, None, None, &view).unwrap();
        assert_eq!(f, "#v=1&seeds=2&pair=hash%2Ffifo");
        let link = read_link(&f).unwrap();
        assert_eq!(link.scenario, s);
        assert_eq!(link.graph, LinkGraph::Bundled);
        assert_eq!(link.view, view);
        assert_eq!(parse_fragment(&f).unwrap(), s);
        assert_eq!(fragment(&s).unwrap(), "#v=1&seeds=2");

        // An uploaded graph, as the page passes it (a file name and its text): embedded,
        // and read back as exactly that text.
        let text = "{\"name\": \"tiny\",\n \"nodes\": [{\"id\": \"a\", \"cost\": 1}]}\n";
        s.graph = GraphSource::File("tiny".into());
        let f = page_fragment(&s, Some(text), None, &PageView::default()).unwrap();
        assert!(f.starts_with("#v=1&graphz="), "{f}");
        let link = read_link(&f).unwrap();
        assert_eq!(
            link.graph,
            LinkGraph::Embedded {
                name: "tiny".into(),
                text: text.into()
            }
        );
        assert_eq!(link.scenario, s);
        assert_eq!(page_fragment(&s, Some(text), None, &link.view).unwrap(), f);

        // A graph named by hash: the page reads the link without the file, and writes the
        // hash back as it came until the file is given.
        let h = GraphHash {
            sha256: graph_sha256(text),
            name: "big one".into(),
        };
        s.graph = GraphSource::File("big one".into());
        let f = page_fragment(&s, None, Some(&h), &PageView::default()).unwrap();
        assert_eq!(
            f,
            format!("#v=1&graphsha256={}&graphname=big%20one&seeds=2", h.sha256)
        );
        let link = read_link(&f).unwrap();
        assert_eq!(link.graph, LinkGraph::Hashed(h.clone()));
        assert_eq!(link.scenario, s);
        check_graph(&h, text).unwrap();
        let e = check_graph(&h, "{}").unwrap_err().to_string();
        assert!(e.contains("not the linked one"), "{e}");
        let bad_hash = GraphHash {
            sha256: "xyz".into(),
            name: "g".into(),
        };
        assert!(page_fragment(&s, None, Some(&bad_hash), &PageView::default()).is_err());
    }

    #[test]
    fn links_the_javascript_page_wrote_still_open() {
        // Written by the page before it used this module: its payloads were compressed by
        // the browser's CompressionStream('deflate-raw') (zlib, level 6; these by node's zlib).
        let graph =
            "{\"name\":\"tiny\",\"nodes\":[{\"id\":\"a\",\"cost\":1},{\"id\":\"b\",\"cost\":2}],\
                     \"edges\":[{\"src\":\"a\",\"dst\":\"b\",\"bytes\":4000000}]}";
        let f = "#v=1&graphz=PYsxCsAgEAT_svUVSUh1XwkW6kmwiEK0Ebm_B0Wy5cxOR7JPAKPG1EBIWUIBXx1RwLAg-\
                 FwqeFdazP3sUEMIcq-ivH4lMuw8ulaHPbc5NfoB&clusterz=VY0xDoAgEAT_svUVamLDV4wFcJdIVDR\
                 CpCD-3UIScOvZmQyvd4FCTAcILLezEqCmDMdQ0CCEU4Sh-q7ZQwUwFRh-wEww2nNyHJf2TNicX79EuGx\
                 pcIhF1pzGKnte&whatif.speeds=a:5e11&pair=single/fifo";
        let link = read_link(f).unwrap();
        let LinkGraph::Embedded { name, text } = &link.graph else {
            panic!("{:?}", link.graph)
        };
        assert_eq!((name.as_str(), text.as_str()), ("tiny", graph));
        assert_eq!(link.view.pair.as_deref(), Some("single/fifo"));
        let ClusterSource::Inline(c) = &link.scenario.cluster else {
            panic!()
        };
        assert_eq!(c["links"][0]["bandwidth"], 5e8);
        assert_eq!(link.scenario.what_if.speeds["a"], 5e11);
    }

    #[test]
    fn deflate_within_stops_at_the_limit() {
        let text: String = (0..20_000).map(|i| format!("{i:x},")).collect();
        let z = deflate(&text);
        assert_eq!(deflate_within(&text, z.len()), Some(z.clone()));
        assert_eq!(deflate_within(&text, z.len() - 1), None);
        assert_eq!(deflate_within("", 10), Some(deflate("")));
        assert_eq!(deflate_within(&text, 0), None);
    }

    #[test]
    fn atoms() {
        assert_eq!(number(1.5e13), "1.5e13");
        assert_eq!(number(100.0), "100");
        assert_eq!(number(1000.0), "1e3");
        assert_eq!(number(0.5), "0.5");
        assert_eq!(number(1e-5), "1e-5");
        assert_eq!(number(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(number(123456.789), "123456.789");
        for x in [1.5e13, 0.1 + 0.2, 1e-300, 7e21, 12345678.9, 3.0] {
            assert_eq!(number(x).parse::<f64>().unwrap(), x);
        }
        for data in [
            &b""[..],
            b"f",
            b"fo",
            b"foo",
            b"foob",
            &[0xff, 0xfe, 0x00, 0x7f],
        ] {
            assert_eq!(unbase64url("t", &base64url(data)).unwrap(), data);
        }
        assert_eq!(base64url(b"\xfb\xff"), "-_8");
        assert_eq!(encode("a b,c:d/é"), "a%20b%2Cc%3Ad%2F%C3%A9");
        assert_eq!(decode("t", "a%20b%2Cc%3Ad%2F%C3%A9").unwrap(), "a b,c:d/é");
        assert_eq!(
            inflate("t", &deflate("hello hello hello")).unwrap(),
            "hello hello hello"
        );
    }

    #[test]
    fn params_and_bad_links() {
        let mut s = defaults();
        s.params.insert("hash.x".into(), 3.0);
        // hash has no parameter x: fragment refuses like the scenario does.
        assert!(fragment(&s).is_err());
        for (f, want) in [
            ("graph=x", "no format version"),
            ("v=3", "version '3'"),
            ("v=1&bogus=1", "unknown key 'bogus'"),
            ("v=1&devices=x", "devices: 'x' is not a whole number"),
            ("v=1&speed=1..y", "speed: 'y' is not a number"),
            ("v=1&graph=../etc", "not a bundled graph name"),
            ("v=1&seeds=1&seeds=2", "appears twice"),
            ("v=1&placers=nope", "unknown placer 'nope'"),
            ("v=1&graphz=!!", "not base64url"),
            ("v=1&graphz=AAAA", "damaged"),
            ("v=1&dev=a:gpu:1", "id:kind:speed:memory"),
            ("v=1&links=slow", "neither 'parallel' nor 'fcfs'"),
            ("v=1&fifo.zzz=1", "fifo has no parameter 'zzz'"),
            ("v=1&pair=hash/fifo", ""),
            ("v=1&pairseed=2&sort=-makespan", ""),
            ("v=1&pairseed=-1", "pairseed: '-1' is not a seed index"),
            (
                "v=1&sort=make%20span",
                "sort: 'make span' is not a column name",
            ),
            ("v=1&sort=-", "sort: '-' is not a column name"),
            ("v=1&scale=lin", "scale: 'lin' is not a chart scale"),
        ] {
            match parse_fragment(f) {
                Ok(_) => assert!(want.is_empty(), "{f} parsed"),
                Err(e) => assert!(!want.is_empty() && e.to_string().contains(want), "{f}: {e}"),
            }
        }
    }

    /// The footprint rule travels as `footprint=` (a version 2 key, after `order`) only when
    /// it is not the default, so a scenario with the default writes the link it wrote before
    /// the key existed; every rule reads back to itself; an unknown one is refused by name.
    #[test]
    fn footprint_round_trips_and_the_default_is_not_written() {
        let s = defaults();
        assert_eq!(fragment(&s).unwrap(), "#v=1");
        for f in Footprint::ALL {
            let mut t = defaults();
            t.links = LinkModel::Fcfs;
            t.footprint = f;
            let link = fragment(&t).unwrap();
            if f.is_default() {
                assert_eq!(link, "#v=1&links=fcfs");
            } else {
                assert_eq!(link, format!("#v=2&links=fcfs&footprint={}", f.name()));
            }
            assert_eq!(parse_fragment(&link).unwrap(), t, "{link}");
        }
        assert_eq!(
            parse_fragment("v=2&footprint=outputs").unwrap(),
            s,
            "the default read explicitly"
        );
        let e = parse_fragment("v=2&footprint=inputs")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("footprint: 'inputs' is not a footprint rule")
                && e.contains("inputs_outputs"),
            "{e}"
        );
    }

    /// The table's sort and the timeline's seed travel in a page link (after `pair`), come
    /// back whole, and default to nothing written; links written before them open as before.
    #[test]
    fn page_links_carry_the_tables_sort_and_the_timelines_seed() {
        let s = defaults();
        let view = PageView {
            pair: Some("heft/given".into()),
            pair_seed: 3,
            pair2: Some("random/fifo".into()),
            sort: Some("-makespan".into()),
            log_scale: true,
            ..PageView::default()
        };
        let f = page_fragment(&s, None, None, &view).unwrap();
        assert_eq!(
            f,
            "#v=1&pair=heft%2Fgiven&pairseed=3&pair2=random%2Ffifo&sort=-makespan&scale=log"
        );
        assert_eq!(read_link(&f).unwrap().view, view);
        assert_eq!(parse_fragment(&f).unwrap(), s);
        let asc = PageView {
            sort: Some("traffic_bytes".into()),
            ..PageView::default()
        };
        let f = page_fragment(&s, None, None, &asc).unwrap();
        assert_eq!(f, "#v=1&sort=traffic_bytes");
        assert_eq!(read_link(&f).unwrap().view, asc);
        // Seed 0 and no sort are the defaults: not written.
        assert_eq!(
            page_fragment(&s, None, None, &PageView::default()).unwrap(),
            "#v=1"
        );
        assert_eq!(read_link("#v=1&pair=a/b").unwrap().view.pair_seed, 0);
        let bad = PageView {
            sort: Some("<b>".into()),
            ..PageView::default()
        };
        let e = page_fragment(&s, None, None, &bad).unwrap_err().to_string();
        assert!(e.contains("not a column name"), "{e}");
    }

    /// The Sweep panel's axis, factors and scale travel in a page link and come back whole;
    /// the default (none) is not written, so links written before them are unchanged.
    #[test]
    fn page_links_carry_the_sweep() {
        use crate::sweep::{Axis, SweepSpec};
        let s = defaults();
        let view = PageView {
            sweep: Some(SweepSpec::new(Axis::Bandwidth, vec![1.0, 0.5, 0.2, 0.1]).unwrap()),
            sweep_log: true,
            ..PageView::default()
        };
        let f = page_fragment(&s, None, None, &view).unwrap();
        assert_eq!(f, "#v=1&sweep=bandwidth:1,0.5,0.2,0.1&sweepscale=log");
        assert_eq!(read_link(&f).unwrap().view, view);
        assert_eq!(parse_fragment(&f).unwrap(), s);
        for (f, want) in [
            ("#v=1&sweep=memory:1,2", "compute, bandwidth or latency"),
            ("#v=1&sweep=latency:1,0", "--latency: factor 2 is 0"),
            ("#v=1&sweep=compute:1,0", "--compute: factor 2 is 0"),
            ("#v=1&sweep=compute", "not axis:factors"),
            ("#v=1&sweepscale=big", "not a chart scale"),
        ] {
            let e = read_link(f).unwrap_err().to_string();
            assert!(e.contains(want), "{f}: {e}");
        }
        let bad = PageView {
            sweep: Some(SweepSpec {
                axis: Axis::Compute,
                factors: vec![f64::NAN],
            }),
            ..PageView::default()
        };
        let e = page_fragment(&s, None, None, &bad).unwrap_err().to_string();
        assert!(e.contains("--compute: factor 1 is NaN"), "{e}");
    }
}
