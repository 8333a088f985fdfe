//! Loading a scenario's graph and cluster: the one path the CLI and the wasm adapter share.
//!
//! Where file bytes come from is the caller's business (the CLI reads the disk and finds
//! bundled graphs in `graphs/`; the page passes the texts it holds): it hands [`load`] a
//! reader for [`FileRef`]s. Everything else, which source needs which file, whether a graph
//! file is graph JSON or an ONNX model ([`graph_bytes`]), what a graph is named, and which
//! errors name which file, happens here once.
//!
//! Not here: reading the disk or the network, or resolving the scenario for a run.

use crate::error::{Error, Result};
use crate::import::onnx;
use crate::model::cluster::Cluster;
use crate::model::graph::Graph;

use super::{ClusterSource, GraphSource, Scenario};

/// A file a scenario refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileRef<'a> {
    /// A bundled graph, by name (`vgg19_layers`).
    BundledGraph(&'a str),
    /// A graph file, by path.
    GraphFile(&'a str),
    /// A cluster file, by path.
    ClusterFile(&'a str),
}

/// A scenario with its graph and (when not generated) its cluster loaded, and the texts they
/// came from (what a share link embeds or hashes).
#[derive(Debug, Clone)]
pub struct Loaded {
    pub scenario: Scenario,
    pub graph: Graph,
    /// The graph's JSON text (an ONNX model's is its imported graph's JSON).
    pub graph_text: String,
    /// What importing the graph reported (ONNX: ops not sized, external data); empty for
    /// graph JSON.
    pub graph_notes: Vec<String>,
    pub cluster: Option<Cluster>,
    /// The cluster file's text, when the cluster is a file.
    pub cluster_text: Option<String>,
}

/// The name of a graph that has none of its own: a bundled graph's name, a file's stem.
fn fallback_name(source: &GraphSource) -> String {
    match source {
        GraphSource::Bundled(name) => name.clone(),
        GraphSource::File(path) => {
            let base = path.rsplit(['/', '\\']).next().unwrap_or(path);
            let lower = base.to_ascii_lowercase();
            let cut = [".json", ".onnx"]
                .iter()
                .find(|x| lower.ends_with(*x))
                .map_or(0, |x| x.len());
            base[..base.len() - cut].to_string()
        }
        GraphSource::Inline(_) => "inline graph".to_string(),
    }
}

/// A graph read from a file: the graph, its JSON text, and what an import reported.
#[derive(Debug, Clone)]
pub struct GraphRead {
    pub graph: Graph,
    /// Graph JSON: the file's text, or an imported model's graph as JSON.
    pub text: String,
    /// An import's report lines (empty for graph JSON).
    pub notes: Vec<String>,
}

/// A graph file's bytes as a graph: an ONNX model (by extension or magic byte, see
/// [`onnx::is_onnx`]) imported with `options`, else graph JSON. Named `name` unless the JSON
/// has a name of its own; errors name the file. The one place a graph file's format is
/// decided.
pub fn graph_bytes(
    path: &str,
    name: &str,
    bytes: Vec<u8>,
    options: &onnx::Options,
) -> Result<GraphRead> {
    if onnx::is_onnx(path, &bytes) {
        let imported = onnx::import(bytes, name, options).map_err(|e| in_file(path, e))?;
        return Ok(GraphRead {
            text: imported.graph.to_json(),
            graph: imported.graph,
            notes: imported.report.lines(),
        });
    }
    let text = utf8(path, bytes)?;
    let graph = Graph::from_json(&text, name).map_err(|e| in_file(path, e))?;
    Ok(GraphRead {
        graph,
        text,
        notes: Vec::new(),
    })
}

/// A graph file as a graph, named by the file's stem when it has no name of its own (the
/// CLI's `validate`, `coarsen` and `import`, and the page's uploads, read a graph file this
/// way, as `load` does a scenario's graph file with the default import options).
pub fn graph_file(path: &str, bytes: Vec<u8>, options: &onnx::Options) -> Result<GraphRead> {
    let name = fallback_name(&GraphSource::File(path.to_string()));
    graph_bytes(path, &name, bytes, options)
}

/// A file's bytes as text; an error names the file.
pub fn utf8(path: &str, bytes: Vec<u8>) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| Error::Parse {
        what: path.to_string(),
        message: format!(
            "not UTF-8 text (byte {}): neither JSON nor an ONNX model",
            e.utf8_error().valid_up_to()
        ),
    })
}

/// A parse error names the file it came from.
pub fn in_file(path: &str, e: Error) -> Error {
    match e {
        Error::Parse { message, .. } => Error::Parse {
            what: path.to_string(),
            message,
        },
        other => other,
    }
}

/// The graph the scenario runs: the file's, or its TicTac19 replica (an error naming the
/// `replica` field when the transform cannot build it).
fn replicated(scenario: &Scenario, graph: Graph) -> Result<Graph> {
    match &scenario.replica {
        None => Ok(graph),
        Some(r) => crate::transform::replicate::replicate(&graph, &r.spec())
            .map(|rep| rep.transformed.graph)
            .map_err(|e| Error::Scenario(format!("replica: {e}"))),
    }
}

/// Checks the scenario (names, parameters, pairs: [`Scenario::validate`]), then reads and
/// validates its graph and cluster through `read`. The caller resolves the scenario it runs
/// ([`Scenario::into_resolved`]), once: it may still change it (the CLI's flags) first.
pub fn load(scenario: Scenario, read: &dyn Fn(FileRef) -> Result<Vec<u8>>) -> Result<Loaded> {
    load_reusing(scenario, read, None)
}

/// A graph read before, which [`load_reusing`] takes instead of reading the same bytes
/// again: a previous load's (`From<Loaded>`) or a text parsed ahead of the scenario that
/// will name it ([`Prior::parse`]; the page parses an upload while it checks it).
pub struct Prior {
    /// The graph JSON text it was read from.
    pub text: String,
    graph: Graph,
    notes: Vec<String>,
    /// A fallback name under which this text reads as this graph.
    name: String,
    /// The replica made of it (TicTac19), if any.
    replica: Option<super::Replication>,
}

impl From<Loaded> for Prior {
    fn from(l: Loaded) -> Prior {
        Prior {
            name: fallback_name(&l.scenario.graph),
            replica: l.scenario.replica,
            text: l.graph_text,
            graph: l.graph,
            notes: l.graph_notes,
        }
    }
}

impl Prior {
    /// Graph JSON `text` parsed before its scenario exists, named `name` when it has no name
    /// of its own. Either way the graph's name is a fallback name under which the text
    /// reads as this graph, so a scenario whose file gives the graph that name takes it.
    pub fn parse(text: String, name: &str) -> Result<Prior> {
        let graph = Graph::from_json(&text, name)?;
        Ok(Prior {
            name: graph.name.clone(),
            replica: None,
            text,
            graph,
            notes: Vec::new(),
        })
    }

    pub fn graph(&self) -> &Graph {
        &self.graph
    }
}

/// Like [`load`], but takes the first of `priors` that this scenario's graph would read as:
/// the same graph JSON text (not a file read as an ONNX model, which is imported), the same
/// fallback name and the same replica (a worker that runs one big graph under many
/// scenarios parses it once). Everything else is loaded afresh.
pub fn load_reusing(
    scenario: Scenario,
    read: &dyn Fn(FileRef) -> Result<Vec<u8>>,
    priors: impl IntoIterator<Item = Prior>,
) -> Result<Loaded> {
    scenario.validate()?;
    let name = fallback_name(&scenario.graph);
    let (graph, graph_text, graph_notes) = match &scenario.graph {
        GraphSource::Bundled(path) | GraphSource::File(path) => {
            let bytes = read(match &scenario.graph {
                GraphSource::Bundled(_) => FileRef::BundledGraph(path),
                _ => FileRef::GraphFile(path),
            })?;
            let onnx = onnx::is_onnx(path, &bytes);
            let same = priors.into_iter().find(|p| {
                !onnx
                    && p.text.as_bytes() == bytes.as_slice()
                    && p.name == name
                    && p.replica == scenario.replica
            });
            match same {
                Some(p) => (p.graph, p.text, p.notes),
                None => {
                    let g = graph_bytes(path, &name, bytes, &onnx::Options::default())?;
                    (replicated(&scenario, g.graph)?, g.text, g.notes)
                }
            }
        }
        GraphSource::Inline(value) => {
            let text = value.to_string();
            (
                replicated(&scenario, Graph::from_json(&text, &name)?)?,
                text,
                Vec::new(),
            )
        }
    };
    let (cluster, cluster_text) = match &scenario.cluster {
        ClusterSource::Generate(_) => (None, None),
        ClusterSource::File(path) => {
            let text = utf8(path, read(FileRef::ClusterFile(path))?)?;
            let cluster = Cluster::from_json(&text, path).map_err(|e| in_file(path, e))?;
            (Some(cluster), Some(text))
        }
        ClusterSource::Inline(value) => (
            Some(Cluster::from_json(&value.to_string(), "inline cluster")?),
            None,
        ),
    };
    Ok(Loaded {
        scenario,
        graph,
        graph_text,
        graph_notes,
        cluster,
        cluster_text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: &str = r#"{"nodes":[{"id":"a","cost":1}]}"#;
    const C: &str = r#"{"devices":[{"id":"d","speed":1}],"bandwidth":1}"#;

    fn scenario(graph: GraphSource, cluster: ClusterSource) -> Scenario {
        Scenario::new(graph, cluster)
    }

    #[test]
    fn each_source_asks_for_its_file_and_names_it_in_errors() {
        let read = |f: FileRef| -> Result<Vec<u8>> {
            match f {
                FileRef::BundledGraph("g") | FileRef::GraphFile("dir/my.graph.json") => {
                    Ok(G.into())
                }
                FileRef::ClusterFile("c.json") => Ok(C.into()),
                FileRef::GraphFile("bad.json") => Ok(b"{nodes: [".to_vec()),
                other => Err(Error::Io {
                    path: format!("{other:?}"),
                    message: "missing".into(),
                }),
            }
        };
        let l = load(
            scenario(
                GraphSource::Bundled("g".into()),
                ClusterSource::File("c.json".into()),
            ),
            &read,
        )
        .unwrap();
        assert_eq!(l.graph.name, "g");
        assert_eq!(l.cluster_text.as_deref(), Some(C));
        assert_eq!(l.cluster.unwrap().devices[0].id, "d");
        let l = load(
            scenario(
                GraphSource::File("dir/my.graph.json".into()),
                ClusterSource::Inline(serde_json::from_str(C).unwrap()),
            ),
            &read,
        )
        .unwrap();
        assert_eq!(
            l.graph.name, "my.graph",
            "a file's stem names a graph without a name"
        );
        assert!(l.cluster.is_some() && l.cluster_text.is_none());
        let e = load(
            scenario(
                GraphSource::File("bad.json".into()),
                ClusterSource::File("c.json".into()),
            ),
            &read,
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("bad.json: "), "{e}");
        let e = load(
            scenario(
                GraphSource::Bundled("g".into()),
                ClusterSource::File("nope.json".into()),
            ),
            &read,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("nope.json") && e.contains("missing"), "{e}");
        // A bad strategy name is refused before any file is read.
        let mut s = scenario(
            GraphSource::Bundled("zz".into()),
            ClusterSource::File("c.json".into()),
        );
        s.placers = vec!["nope".into()];
        let e = load(s, &read).unwrap_err().to_string();
        assert!(e.contains("unknown placer 'nope'"), "{e}");
    }

    /// A graph read before is taken where the scenario would read the same graph from its
    /// text: the same text, fallback name and replica, and not a file read as an ONNX model.
    /// The prior here holds a three-op marker graph, so a result of three ops is the prior
    /// taken; a prior not taken leaves the result a fresh load's, error or graph.
    #[test]
    fn a_prior_is_taken_only_where_the_scenario_reads_its_text_as_it_was_read() {
        let ahead = r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1}]}"#;
        let text = std::cell::RefCell::new(ahead.to_string());
        let read = |f: FileRef| -> Result<Vec<u8>> {
            match f {
                FileRef::GraphFile(_) | FileRef::BundledGraph(_) => {
                    Ok(text.borrow().clone().into_bytes())
                }
                _ => Ok(C.into()),
            }
        };
        let marked = || Prior {
            text: ahead.into(),
            graph: Graph::from_json(
                r#"{"nodes":[{"id":"x","cost":1},{"id":"y","cost":1},{"id":"z","cost":1}]}"#,
                "up",
            )
            .unwrap(),
            notes: Vec::new(),
            name: "up".into(),
            replica: None,
        };
        let with = |graph: GraphSource| scenario(graph, ClusterSource::File("c.json".into()));
        let file = |p: &str| with(GraphSource::File(p.into()));
        let outcome =
            |r: Result<Loaded>| r.map(|l| l.graph.node_count()).map_err(|e| e.to_string());
        let fresh = |s: Scenario| outcome(load(s, &read));
        let reused = |s: Scenario| outcome(load_reusing(s, &read, Some(marked())));
        // Taken: the same text under the same name, from a file or bundled.
        assert_eq!(reused(file("up.json")), Ok(3));
        assert_eq!(reused(with(GraphSource::Bundled("up".into()))), Ok(3));
        // Another fallback name; a file read as an ONNX model (an error, as a fresh load's).
        assert_eq!(reused(file("other.json")), fresh(file("other.json")));
        assert_eq!(reused(file("up.onnx")), fresh(file("up.onnx")));
        assert!(fresh(file("up.onnx")).is_err());
        // A replica.
        let mut replica = file("up.json");
        replica.replica = Some(super::super::Replication {
            workers: vec!["d".into()],
            ps: vec!["d".into()],
            forward_target: None,
            aggregate: false,
            param_ops: None,
            params_from_sources: false,
            balance: None,
        });
        assert_eq!(reused(replica.clone()), fresh(replica));
        // Another text.
        *text.borrow_mut() = G.into();
        assert_eq!(reused(file("up.json")), Ok(1));
        // The first prior that fits is taken, past one that does not.
        *text.borrow_mut() = ahead.into();
        let other = Prior::parse(G.into(), "up").unwrap();
        let l = load_reusing(file("up.json"), &read, [other, marked()]).unwrap();
        assert_eq!(l.graph.node_count(), 3);
    }

    /// A text parsed ahead reads as its graph under the graph's own name when it has one,
    /// else under the name it was parsed with.
    #[test]
    fn a_parsed_prior_is_named_as_its_graph() {
        let own = r#"{"name":"net","nodes":[{"id":"a","cost":1}]}"#;
        let p = Prior::parse(own.into(), "up").unwrap();
        assert_eq!((p.name.as_str(), p.graph().name.as_str()), ("net", "net"));
        let p = Prior::parse(G.into(), "up").unwrap();
        assert_eq!(p.name, "up");
        assert!(Prior::parse("{nodes: [".into(), "up").is_err());
    }

    /// A graph of the same text and name is kept (the same graph), another one is parsed,
    /// and errors still name the file.
    #[test]
    fn load_reusing_keeps_a_graph_of_the_same_text_only() {
        let text = std::cell::RefCell::new(G.to_string());
        let read = |f: FileRef| -> Result<Vec<u8>> {
            match f {
                FileRef::GraphFile(_) => Ok(text.borrow().clone().into_bytes()),
                _ => Ok(C.into()),
            }
        };
        let s = |p: &str| {
            let mut s = scenario(
                GraphSource::File(p.into()),
                ClusterSource::File("c.json".into()),
            );
            s.seeds = 2;
            s
        };
        let first = load(s("my.json"), &read).unwrap();
        let again = load_reusing(s("my.json"), &read, Some(Prior::from(first.clone()))).unwrap();
        assert_eq!(again.graph.name, "my");
        assert_eq!(again.scenario.seeds, 2);
        // Another fallback name: parsed again, under its own name.
        let other = load_reusing(s("other.json"), &read, Some(Prior::from(first.clone()))).unwrap();
        assert_eq!(other.graph.name, "other");
        // Another text: parsed again (and its errors name the file).
        *text.borrow_mut() = r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":2}]}"#.into();
        let edited = load_reusing(s("my.json"), &read, Some(Prior::from(first.clone()))).unwrap();
        assert_eq!(edited.graph.node_count(), 2);
        *text.borrow_mut() = "{nodes: [".into();
        let e = load_reusing(s("my.json"), &read, Some(Prior::from(first)))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("my.json: "), "{e}");
    }
}
