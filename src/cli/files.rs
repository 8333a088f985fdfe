//! Files from disk for the CLI: reading a path, finding a bundled graph (`graphs/`) or
//! cluster preset (`graphs/clusters/`) by name, loading a graph file or a scenario file, and
//! the reader a scenario's file references go through ([`disk`]).
//!
//! Not here: parsing or validating what is read (the library's `scenario::load`, the one
//! loading path of the CLI and the page) or turning flags into a scenario (`scenario.rs`).

use std::path::{Path, PathBuf};

use placesim::import::onnx;
use placesim::model::cluster::Cluster;
use placesim::model::graph::Graph;
use placesim::scenario::load::{graph_file, in_file, load, utf8, FileRef, Loaded};
use placesim::scenario::Scenario;
use placesim::{Error, Result};

use super::output::print_notes;

pub fn read(path: &str) -> Result<String> {
    utf8(path, read_bytes(path)?)
}

pub fn read_bytes(path: &str) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::Io {
        path: path.to_string(),
        message: e.to_string(),
    })
}

/// Resolves a cluster argument: an existing file, or the name of a bundled cluster in
/// graphs/clusters/ (the hardware presets: `placesim compare --cluster hw_1node_4xA100_nvlink`).
fn cluster_path(arg: &str) -> String {
    if Path::new(arg).is_file() || arg.contains('/') {
        return arg.to_string();
    }
    let stem = arg.trim_end_matches(".json");
    graph_dirs(None)
        .into_iter()
        .map(|d| d.join("clusters").join(format!("{stem}.json")))
        .find(|f| f.is_file())
        .map_or_else(|| arg.to_string(), |f| f.to_string_lossy().to_string())
}

pub fn read_cluster(arg: &str) -> Result<Cluster> {
    let path = cluster_path(arg);
    Cluster::from_json(&read(&path)?, arg).map_err(|e| in_file(arg, e))
}

/// Where bundled graphs live: ./graphs, or the repository's graphs/ for a dev build.
fn graph_dirs(extra: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs = vec![PathBuf::from("graphs")];
    if let Some(base) = extra {
        dirs.push(base.join("graphs"));
        dirs.push(base.join("..").join("graphs"));
    }
    dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("graphs"));
    dirs
}

/// Resolves a graph argument: an existing file, or the name of a bundled graph.
pub fn graph_path(arg: &str, base: Option<&Path>) -> Result<PathBuf> {
    let p = PathBuf::from(arg);
    if p.is_file() {
        return Ok(p);
    }
    if let Some(b) = base {
        if b.join(arg).is_file() {
            return Ok(b.join(arg));
        }
    }
    if !arg.contains('/') {
        let stem = arg.trim_end_matches(".json");
        for dir in graph_dirs(base) {
            let f = dir.join(format!("{stem}.json"));
            if f.is_file() {
                return Ok(f);
            }
        }
    }
    Err(Error::Io {
        path: arg.to_string(),
        message: "no such graph file, and no bundled graph of that name in graphs/".into(),
    })
}

/// Reads a graph file (graph JSON or an ONNX model); an import's notes go to stderr.
pub fn load_graph(path: &Path) -> Result<Graph> {
    let read = graph_file(
        &path.display().to_string(),
        read_bytes(&path.to_string_lossy())?,
        &onnx::Options::default(),
    )?;
    print_notes(&read.notes);
    Ok(read.graph)
}

/// The bundled name of a graph file: its stem, when a bundled graph of that name exists
/// and has exactly the file's bytes (so that a link naming it gives everyone the same
/// graph). A user's own `~/work/graphs/x.json` is a file, not the bundled `x`.
pub fn bundled_name(path: &Path) -> Result<Option<String>> {
    let Some(stem) = path.file_stem().map(|s| s.to_string_lossy().to_string()) else {
        return Ok(None);
    };
    let bundled = graph_dirs(None)
        .into_iter()
        .map(|dir| dir.join(format!("{stem}.json")))
        .find(|f| f.is_file());
    let Some(bundled) = bundled else {
        return Ok(None);
    };
    let same = std::fs::read(path).ok() == std::fs::read(&bundled).ok();
    Ok(same.then_some(stem))
}

/// Reads the files a scenario names from disk: paths relative to `base` (a scenario file's
/// folder) when they are not found as given; bundled graphs from `graphs/`.
pub fn disk(base: Option<PathBuf>) -> impl Fn(FileRef) -> Result<Vec<u8>> {
    move |f| {
        let resolve = |p: &str| -> String {
            match &base {
                Some(b)
                    if !Path::new(p).is_file()
                        && !Path::new(p).is_absolute()
                        && b.join(p).is_file() =>
                {
                    b.join(p).to_string_lossy().to_string()
                }
                _ => p.to_string(),
            }
        };
        match f {
            FileRef::BundledGraph(name) => {
                read_bytes(&graph_path(name, base.as_deref())?.to_string_lossy())
            }
            FileRef::GraphFile(p) => read_bytes(&resolve(p)),
            FileRef::ClusterFile(p) => match resolve(p) {
                r if Path::new(&r).is_file() => read_bytes(&r),
                r => read_bytes(&cluster_path(&r)),
            },
        }
    }
}

/// Loads a scenario file; file paths inside it are relative to the file's directory.
pub fn load_scenario(path: &Path) -> Result<Loaded> {
    let text = read(&path.to_string_lossy())?;
    let s: Scenario = placesim::error::parse_json("scenario", &text)
        .map_err(|e| in_file(&path.display().to_string(), e))?;
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    load(s, &disk(Some(base)))
}

/// The scenario files a list names: one path per line; blank lines and `#` comments skipped.
pub fn read_scenario_list(list: &Path) -> Result<Vec<PathBuf>> {
    let text = if list == Path::new("-") {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).map_err(|e| Error::Io {
            path: "stdin".into(),
            message: e.to_string(),
        })?;
        s
    } else {
        read(&list.to_string_lossy())?
    };
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(PathBuf::from)
        .collect())
}
