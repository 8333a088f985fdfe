//! The scenario as a URL fragment: the format of the page's shareable links.
//!
//! `#v=1&graph=vgg19_layers&devices=50&speed=10..100&placers=hash,single` names a whole
//! comparison in a readable line. Only keys whose value differs from the defaults
//! ([`super::defaults`]) are written; a reader fills every missing key with its default.
//! `docs/url-format.md` is the specification. This is the one implementation of the format:
//! the CLI's `compare --url` writes links through it, and the page reads and writes its
//! links through its wasm build ([`read_link`], [`page_fragment`]); `www/state.js` only maps
//! the page's State to and from a [`Scenario`].
//!
//! The format is a key table (`keys.rs`): each key is defined once, with the format version
//! that carries it, its writer and its reader. A link is read into a [`draft::Draft`] key by
//! key and the draft assembled into a scenario; a scenario is flattened into a draft and
//! every key writes its part, in the table's order. The atoms of values (numbers, lists,
//! percent-encoding, deflate, base64url) are `atoms.rs`; device tables are `table.rs`.
//!
//! Graphs: a bundled graph is named (`graph=NAME`); any other graph is embedded as
//! deflate-raw + base64url (`graphz=...`) when that is at most [`EMBED_LIMIT`] bytes, or
//! else named by the SHA-256 of its text (`graphsha256=HEX&graphname=NAME`), in which case
//! the reader must supply the file ([`check_graph`]; [`parse_fragment_with_graph`]).
//!
//! Besides the scenario, a page link carries its view ([`PageView`]: the pair whose
//! timeline is shown) and may name a graph whose file the page has not been given yet.
//!
//! Not here: reading files (the caller hands over texts), the page's State object, and
//! anything that runs a scenario (the codec imports nothing from the simulator).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::scenario::sweep::SweepSpec;
use crate::scenario::{ClusterSource, GraphSource, Scenario};

mod atoms;
mod draft;
mod keys;
mod table;

pub use crate::scenario::defaults::DeviceRow;
pub use atoms::{
    base64url, decode, deflate, deflate_within, encode, graph_sha256, number, unbase64url,
};
use draft::{Draft, GraphText};
pub use table::cluster_value;

/// The newest link format version this build writes and reads. Version 2 added TicTac19's
/// replicas, iterations and lists of link orders, then Pesto21's `footprint`; a link that
/// uses none of them is written as version 1 (each key says which version carries it), so
/// that builds that know only version 1 still open it, and every version 1 link still opens
/// here.
pub const FORMAT_VERSION: u32 = 2;
/// Largest compressed graph (bytes, before base64url) embedded in a link.
pub const EMBED_LIMIT: usize = 24 * 1024;
/// Whether a link embeds this graph text (deflated within [`EMBED_LIMIT`]) rather than naming it
/// by its SHA-256: the rule [`page_fragment`] follows. Compressing stops at the limit, so a
/// large text costs little (the page asks this of an upload without writing a link).
pub fn embeds(text: &str) -> bool {
    deflate_within(text, EMBED_LIMIT).is_some()
}

/// Seeds above this are not exact in JavaScript numbers.
pub const MAX_SEED: u64 = (1 << 53) - 1;

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
    pub sweep: Option<SweepSpec>,
    /// The sweep chart's factor axis is logarithmic (key `sweepscale=log`; linear is not
    /// written).
    #[serde(default)]
    pub sweep_log: bool,
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

/// Every key of the format and what it means, in the order links write them (after `v`,
/// the version, always first). `STRATEGY.NAME` stands for every strategy parameter.
pub fn keys() -> impl Iterator<Item = (&'static str, &'static str)> {
    keys::KEYS.iter().map(|k| (k.name, k.doc))
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

fn write(s: &Scenario, graph: GraphText, view: &PageView) -> Result<String> {
    let d = Draft::of(s, graph, view)?;
    let mut version = 1;
    let mut body = String::new();
    for key in keys::KEYS {
        let written = match key.write {
            keys::Write::Value(write) => write(&d)?
                .map(|v| vec![(key.name.to_string(), v)])
                .unwrap_or_default(),
            keys::Write::Family(write) => write(&d),
        };
        if !written.is_empty() {
            version = version.max((key.version)(&d));
        }
        for (k, v) in written {
            body.push_str(&format!("&{k}={v}"));
        }
    }
    Ok(format!("#v={version}{body}"))
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

    let mut d = Draft::defaults();
    for (k, v) in &pairs {
        if k == "v" {
            continue;
        }
        let key = keys::find(k).ok_or_else(|| bad(format!("unknown key '{k}'")))?;
        (key.read)(&mut d, k, v)?;
    }
    d.into_link()
}

#[cfg(test)]
mod tests;
