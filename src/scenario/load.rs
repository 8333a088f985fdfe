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

/// Like [`load`], but keeps the graph `previous` parsed when this scenario's graph has the
/// same text and the same fallback name (a worker that runs one big graph under many
/// scenarios parses it once). Everything else is loaded afresh.
pub fn load_reusing(
    scenario: Scenario,
    read: &dyn Fn(FileRef) -> Result<Vec<u8>>,
    previous: Option<Loaded>,
) -> Result<Loaded> {
    scenario.validate()?;
    let name = fallback_name(&scenario.graph);
    let (graph, graph_text, graph_notes) = match &scenario.graph {
        GraphSource::Bundled(path) | GraphSource::File(path) => {
            let bytes = read(match &scenario.graph {
                GraphSource::Bundled(_) => FileRef::BundledGraph(path),
                _ => FileRef::GraphFile(path),
            })?;
            // The previous graph, moved out, when its JSON text, name and replica are this
            // scenario's (an ONNX model is imported again).
            let same = previous.filter(|p| {
                p.graph_text.as_bytes() == bytes.as_slice()
                    && fallback_name(&p.scenario.graph) == name
                    && p.scenario.replica == scenario.replica
            });
            match same {
                Some(p) => (p.graph, p.graph_text, p.graph_notes),
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

/// A graph parsed ahead of its scenario (the page parses an upload while it checks it, before
/// the scenario that names the file exists) as the `previous` that [`load_reusing`] takes,
/// when `scenario` reads `graph_text` (the text the load is given) as that parse did: the
/// same text, graph JSON from a file (not an ONNX model, which is imported), no replica (which
/// rewrites the graph), and the graph's name the one this scenario gives it (its own, or the
/// same fallback name). Then [`Graph::from_json`] would give the same graph; otherwise `None`,
/// and the load parses the text itself.
pub fn parsed_ahead(
    scenario: &Scenario,
    graph_text: Option<&str>,
    text: String,
    graph: Graph,
) -> Option<Loaded> {
    let GraphSource::File(path) = &scenario.graph else {
        return None;
    };
    let usable = graph_text == Some(text.as_str())
        && scenario.replica.is_none()
        && !onnx::is_onnx(path, text.as_bytes())
        && graph.name == fallback_name(&scenario.graph);
    usable.then(|| Loaded {
        scenario: scenario.clone(),
        graph,
        graph_text: text,
        graph_notes: Vec::new(),
        cluster: None,
        cluster_text: None,
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

    /// A graph parsed ahead is taken only where the scenario would read its text the same
    /// way: same text, a JSON file, no replica, the name this scenario gives it.
    #[test]
    fn a_graph_parsed_ahead_is_taken_only_as_the_scenario_would_read_it() {
        let ahead = r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1}]}"#;
        let graph = || Graph::from_json(ahead, "up").unwrap();
        let file = |p: &str| {
            scenario(
                GraphSource::File(p.into()),
                ClusterSource::File("c.json".into()),
            )
        };
        let taken = parsed_ahead(&file("up.json"), Some(ahead), ahead.into(), graph()).unwrap();
        assert_eq!(
            (taken.graph.name.as_str(), taken.graph.node_count()),
            ("up", 2)
        );
        assert_eq!(taken.graph_text, ahead);
        // The load is given another text, or none.
        assert!(parsed_ahead(&file("up.json"), Some(G), ahead.into(), graph()).is_none());
        assert!(parsed_ahead(&file("up.json"), None, ahead.into(), graph()).is_none());
        // Another fallback name: the graph would be named otherwise.
        assert!(parsed_ahead(&file("other.json"), Some(ahead), ahead.into(), graph()).is_none());
        // A bundled graph, an ONNX file, a replica.
        let bundled = scenario(
            GraphSource::Bundled("up".into()),
            ClusterSource::File("c.json".into()),
        );
        assert!(parsed_ahead(&bundled, Some(ahead), ahead.into(), graph()).is_none());
        assert!(parsed_ahead(&file("up.onnx"), Some(ahead), ahead.into(), graph()).is_none());
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
        assert!(parsed_ahead(&replica, Some(ahead), ahead.into(), graph()).is_none());
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
        let again = load_reusing(s("my.json"), &read, Some(first.clone())).unwrap();
        assert_eq!(again.graph.name, "my");
        assert_eq!(again.scenario.seeds, 2);
        // Another fallback name: parsed again, under its own name.
        let other = load_reusing(s("other.json"), &read, Some(first.clone())).unwrap();
        assert_eq!(other.graph.name, "other");
        // Another text: parsed again (and its errors name the file).
        *text.borrow_mut() = r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":2}]}"#.into();
        let edited = load_reusing(s("my.json"), &read, Some(first.clone())).unwrap();
        assert_eq!(edited.graph.node_count(), 2);
        *text.borrow_mut() = "{nodes: [".into();
        let e = load_reusing(s("my.json"), &read, Some(first))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("my.json: "), "{e}");
    }
}
