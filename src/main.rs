//! The `placesim` command line: parses arguments into a scenario, calls the library, prints.
//!
//! No simulation logic lives here: everything goes through `placesim::compare`, the same
//! entry point the wasm adapter uses, so the CLI and the page give the same numbers.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use placesim::compare::{self, Comparison};
use placesim::import::onnx;
use placesim::model::cluster::{Cluster, ClusterGen};
use placesim::model::graph::Graph;
use placesim::model::problem::{Footprint, Problem};
use placesim::model::synthetic::{layered_dag, SyntheticSpec};
use placesim::model::LinkModel;
use placesim::report::run::RunReport;
use placesim::report::{table, trace};
use placesim::scenario::load::{graph_file, in_file, load, utf8, FileRef, Loaded};
use placesim::scenario::{ClusterSource, GraphSource, Randomize, Replication, Resolved, Scenario};
use placesim::{place, schedule, transfer, units, Error, Result};

#[derive(Parser)]
#[command(
    name = "placesim",
    version,
    about = "Compare placement and scheduling strategies for DNN dataflow graphs on heterogeneous devices"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check a graph (and optionally a cluster) and print a one-line summary.
    Validate {
        /// Graph JSON file, or the name of a graph in graphs/.
        graph: String,
        #[arg(long)]
        cluster: Option<String>,
    },
    /// Place and simulate one placer x scheduler pair.
    Run(RunArgs),
    /// Run every chosen placer x scheduler pair over seeds and compare.
    Compare(CompareArgs),
    /// What-if sweep: a scenario's comparison at several compute, bandwidth or latency factors, every
    /// pair's makespan against the factor (Pesto21 Fig. 8).
    Sweep(SweepArgs),
    /// Print a synthetic layered DAG as graph JSON.
    Generate {
        #[arg(long)]
        nodes: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// How far back a node may read from (typical parallel width).
        #[arg(long, default_value_t = 16)]
        window: usize,
    },
    /// Coarsen a graph (Pesto21 §3.3): vertices and edges per round, edges removed per round,
    /// and an acyclicity check of the result.
    Coarsen {
        /// Graph JSON file, or the name of a graph in graphs/.
        #[arg(long)]
        graph: String,
        /// Cluster JSON file (device rules decide which ops may merge); one gpu and one cpu
        /// device when absent.
        #[arg(long)]
        cluster: Option<String>,
        /// Stop at this many vertices.
        #[arg(long, default_value_t = 200)]
        target: usize,
        #[arg(long)]
        json: bool,
    },
    /// Import an ONNX model and print it as graph JSON (ops sized by shape inference:
    /// FLOPs as cost, parameter bytes as mem, tensor bytes on edges; see docs/onnx.md).
    Import {
        /// The .onnx file.
        model: String,
        /// Add the backward pass (2x forward FLOPs) and SGD updates colocated with their
        /// weights: one training step.
        #[arg(long)]
        train: bool,
        /// The size of every input's dynamic first dimension.
        #[arg(long)]
        batch: Option<u64>,
        /// A static shape for an input, NAME=1x3x224x224 (repeatable).
        #[arg(long = "input-shape", value_name = "NAME=DIMS")]
        input_shape: Vec<String>,
    },
    /// List the strategies and their parameters.
    List,
    /// TicTac19's priority of every parameter transfer into the first worker (tao or tio),
    /// keyed by the base graph's node id of the parameter read.
    Order {
        #[command(flatten)]
        problem: ProblemArgs,
        /// tao (timing-aware, Algorithm 2) or tio (timing-independent, Algorithm 3).
        #[arg(long, default_value = "tao")]
        algorithm: String,
    },
    /// Write the TicTac19 replica of a graph (--workers, --ps) as graph JSON.
    Replicate {
        #[command(flatten)]
        problem: ProblemArgs,
    },
}

#[derive(Args, Clone)]
struct ProblemArgs {
    /// Graph JSON file, or the name of a graph in graphs/.
    #[arg(long)]
    graph: Option<String>,
    /// Cluster JSON file.
    #[arg(long, conflicts_with = "devices")]
    cluster: Option<String>,
    /// Generate a cluster of this many devices.
    #[arg(long)]
    devices: Option<usize>,
    /// Device speed range for a generated cluster, LO..HI.
    #[arg(long, default_value = "10..100")]
    speed: String,
    /// Memory per generated device, bytes (unlimited when absent).
    #[arg(long)]
    memory: Option<f64>,
    /// Memory per generated device as a fraction of the graph's total footprint (overrides --memory).
    #[arg(long)]
    memory_fraction: Option<f64>,
    /// Bandwidth range per device pair for a generated cluster, LO..HI.
    #[arg(long, default_value = "10..60")]
    bandwidth: String,
    /// Latency range per device pair for a generated cluster, LO..HI.
    #[arg(long, default_value = "0..0")]
    latency: String,
    /// Device kinds of a generated cluster, assigned round-robin (comma separated).
    #[arg(long)]
    kinds: Option<String>,
    /// Redraw every op cost uniformly from LO..HI (Mayer17 §5.1).
    #[arg(long)]
    cost: Option<String>,
    /// Redraw every tensor size uniformly from LO..HI (Mayer17 §5.1).
    #[arg(long)]
    bytes: Option<String>,
    /// Redraw every op's resident memory uniformly from LO..HI (0..0: tensors only, Mayer17 eq. 2).
    #[arg(long)]
    mem: Option<String>,
    /// Link model: parallel (no contention) or fcfs (one transfer at a time per link);
    /// fcfs with --workers, parallel otherwise.
    #[arg(long)]
    links: Option<String>,
    /// Link queue orders under fcfs links, comma separated: each is a row per pair
    /// (fifo, random, tio, tao, given).
    #[arg(long, default_value = "fifo")]
    link_order: String,
    /// What a node's static placement footprint counts: outputs (mem + output tensors),
    /// inputs_outputs (mem + input and output tensors, Pesto21 §3.1) or mem.
    #[arg(long, default_value = "outputs")]
    footprint: String,
    /// TicTac19 replicas: the workers' device ids, comma separated (every op pinned).
    #[arg(long, requires = "ps")]
    workers: Option<String>,
    /// TicTac19 replicas: the parameter servers' device ids, comma separated.
    #[arg(long, requires = "workers")]
    ps: Option<String>,
    /// With --workers: prune the graph to this op and its ancestors (forward-only runs).
    #[arg(long, requires = "workers")]
    forward_target: Option<String>,
    /// With --workers: sum the workers' updates before one update per parameter.
    #[arg(long, requires = "workers")]
    aggregate: bool,
    /// With --workers: every source with outgoing bytes reads a parameter (synthetic graphs).
    #[arg(long, requires = "workers")]
    params_from_sources: bool,
    /// With --workers: op types that read a parameter, comma separated.
    #[arg(long, requires = "workers")]
    param_ops: Option<String>,
    /// With --workers: scale server-worker bandwidth so that transfer / compute time on the
    /// first worker is this ratio (1.0: TicTac19's S > 0.9 setting).
    #[arg(long, requires = "workers")]
    balance: Option<f64>,
    /// Base seed of every random draw.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Strategy parameter STRATEGY.NAME=VALUE (repeatable).
    #[arg(long = "param")]
    params: Vec<String>,
    /// Multiply every device speed (what-if).
    #[arg(long, default_value_t = 1.0)]
    compute_scale: f64,
    /// Multiply every link bandwidth (what-if).
    #[arg(long, default_value_t = 1.0)]
    bandwidth_scale: f64,
    /// Multiply every link latency (what-if; the `b0` of a link's `b0 + b1 * bytes`).
    #[arg(long, default_value_t = 1.0)]
    latency_scale: f64,
    /// Set one device's speed, ID=SPEED (what-if; repeatable). It replaces the device's
    /// speed in every seed (a generated cluster's devices are d0, d1, ...), and
    /// --compute-scale multiplies it like every other device's.
    #[arg(long = "speed-of", value_name = "ID=SPEED")]
    speed_of: Vec<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct RunArgs {
    #[command(flatten)]
    problem: ProblemArgs,
    #[arg(long)]
    placer: String,
    #[arg(long)]
    scheduler: String,
    /// Write the schedule as Chrome trace-event JSON (Perfetto, chrome://tracing).
    #[arg(long)]
    trace: Option<PathBuf>,
}

/// The options that build a scenario from the command line.
const SCENARIO_BUILDERS: [&str; 32] = [
    "graph",
    "cluster",
    "devices",
    "speed",
    "memory",
    "memory_fraction",
    "bandwidth",
    "latency",
    "kinds",
    "cost",
    "bytes",
    "mem",
    "links",
    "link_order",
    "footprint",
    "workers",
    "ps",
    "forward_target",
    "aggregate",
    "params_from_sources",
    "param_ops",
    "balance",
    "iterations",
    "seed",
    "params",
    "compute_scale",
    "bandwidth_scale",
    "latency_scale",
    "speed_of",
    "placers",
    "schedulers",
    "seeds",
];

#[derive(Args)]
struct CompareArgs {
    #[command(flatten)]
    problem: ProblemArgs,
    /// Scenario JSON files (instead of the options above). One scenario prints as usual;
    /// several print one JSON line per scenario (JSON Lines, see docs/batch.md).
    /// A scenario file says everything, so the options that build a scenario conflict with it.
    #[arg(long, num_args = 1.., conflicts_with_all = SCENARIO_BUILDERS)]
    scenario: Vec<PathBuf>,
    /// A file listing scenario files, one path per line ('-' reads stdin; blank lines and
    /// lines starting with '#' are skipped): prints JSON Lines, one line per scenario.
    #[arg(long, value_name = "FILE", conflicts_with_all = SCENARIO_BUILDERS)]
    scenario_list: Option<PathBuf>,
    /// Run only the scenarios of the list whose 0-based index is I modulo N (for an array job
    /// of N tasks; see docs/batch.md). Prints JSON Lines.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// Threads that run pairs and seeds (default: every core). The numbers are the same bits
    /// for any count; only placement seconds (wall clock) vary.
    #[arg(long)]
    jobs: Option<usize>,
    /// Placers, comma separated (default: all).
    #[arg(long)]
    placers: Option<String>,
    /// Schedulers, comma separated (default: all).
    #[arg(long)]
    schedulers: Option<String>,
    /// Number of seeds to average over.
    #[arg(long, default_value_t = 1)]
    seeds: u32,
    /// Simulated iterations per seed and pair, each with fresh runtime randomness.
    #[arg(long, default_value_t = 1)]
    iterations: u32,
    /// Print the playground link fragment (from '#') for this scenario instead of running it.
    #[arg(long)]
    url: bool,
}

#[derive(Args)]
struct SweepArgs {
    /// Scenario JSON files. One scenario prints a table (or --csv, --json); several print
    /// one JSON line per factor and pair of each (JSON Lines, see docs/batch.md).
    #[arg(long, num_args = 1..)]
    scenario: Vec<PathBuf>,
    /// A file listing scenario files, one path per line ('-' reads stdin; blank lines and
    /// lines starting with '#' are skipped): prints JSON Lines.
    #[arg(long, value_name = "FILE")]
    scenario_list: Option<PathBuf>,
    /// Run only the scenarios of the list whose 0-based index is I modulo N (for an array job
    /// of N tasks; see docs/batch.md). Prints JSON Lines.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// Compute factors, comma separated (e.g. 1,2,4,8): each multiplies every device speed
    /// (on top of the scenario's own what-if).
    #[arg(
        long,
        value_name = "LIST",
        required_unless_present_any = ["bandwidth", "latency"],
        allow_hyphen_values = true
    )]
    compute: Option<String>,
    /// Bandwidth factors, comma separated (e.g. 1,0.5,0.2,0.1): each multiplies every link
    /// bandwidth (on top of the scenario's own what-if).
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    bandwidth: Option<String>,
    /// Latency factors, comma separated (e.g. 1,2,4): each multiplies every link latency
    /// (on top of the scenario's own what-if; bandwidths stay).
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    latency: Option<String>,
    /// Print CSV (the unit in every column name) instead of a table; one axis only.
    #[arg(long, conflicts_with = "json")]
    csv: bool,
    /// Print one JSON line per factor and pair (JSON Lines).
    #[arg(long)]
    json: bool,
    /// Threads that run pairs and seeds (default: every core); the numbers are the same bits
    /// for any count.
    #[arg(long)]
    jobs: Option<usize>,
}

/// Writes to stdout; a closed pipe (`placesim ... | head`) ends the program quietly instead
/// of panicking, as it would with `println!`.
fn write_stdout(args: std::fmt::Arguments, newline: bool) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let result = stdout.write_fmt(args).and_then(|()| {
        if newline {
            stdout.write_all(b"\n")
        } else {
            Ok(())
        }
    });
    if result.is_err() {
        std::process::exit(0);
    }
}

macro_rules! out {
    () => { write_stdout(format_args!(""), true) };
    ($($arg:tt)*) => { write_stdout(format_args!($($arg)*), true) };
}

macro_rules! out_raw {
    ($($arg:tt)*) => { write_stdout(format_args!($($arg)*), false) };
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Validate { graph, cluster } => validate(&graph, cluster.as_deref()),
        Command::Coarsen {
            graph,
            cluster,
            target,
            json,
        } => coarsen_cmd(&graph, cluster.as_deref(), target, json),
        Command::Run(args) => run_pair(args),
        Command::Import {
            model,
            train,
            batch,
            input_shape,
        } => import_cmd(&model, train, batch, &input_shape),
        Command::Compare(args) => compare_cmd(args),
        Command::Sweep(args) => sweep_cmd(args),
        Command::Generate {
            nodes,
            seed,
            window,
        } => {
            if nodes == 0 {
                return Err(Error::Scenario("--nodes must be at least 1".into()));
            }
            let mut spec = SyntheticSpec::new(nodes, seed);
            spec.window = window.max(1);
            out!("{}", layered_dag(spec));
            Ok(())
        }
        Command::Order { problem, algorithm } => order_cmd(&problem, &algorithm),
        Command::Replicate { problem } => {
            let r = replication_of(&problem)
                .ok_or_else(|| Error::Scenario("replicate needs --workers and --ps".into()))?;
            let graph_arg = problem
                .graph
                .as_deref()
                .ok_or_else(|| Error::Scenario("--graph is required".into()))?;
            let g = load_graph(&graph_path(graph_arg, None)?)?;
            let replica = placesim::transform::replicate::replicate(&g, &r.spec())?;
            out!("{}", replica.transformed.graph.to_json());
            Ok(())
        }
        Command::List => {
            out!("placers:");
            for p in place::PLACERS {
                print_strategy(p.name, p.summary, p.params);
            }
            out!("schedulers:");
            for s in schedule::SCHEDULERS {
                print_strategy(s.name, s.summary, s.params);
            }
            out!("link orders (fcfs links):");
            for q in transfer::LINK_QUEUES {
                print_strategy(q.name, q.summary, q.params);
            }
            Ok(())
        }
    }
}

fn print_strategy(name: &str, summary: &str, params: &[placesim::params::ParamSpec]) {
    out!("  {name:<16} {summary}");
    for p in params {
        let range = p.check(f64::NAN).unwrap_err();
        out!(
            "      --param {name}.{}={}  {} ({})",
            p.name,
            p.default,
            p.doc,
            range.trim_start_matches("must be ")
        );
    }
}

fn read(path: &str) -> Result<String> {
    utf8(path, read_bytes(path)?)
}

fn read_bytes(path: &str) -> Result<Vec<u8>> {
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

fn read_cluster(arg: &str) -> Result<Cluster> {
    let path = cluster_path(arg);
    Cluster::from_json(&read(&path)?, arg).map_err(|e| in_file(arg, e))
}

/// An import's notes go to stderr, so stdout stays the result.
fn print_notes(notes: &[String]) {
    for n in notes {
        eprintln!("note: {n}");
    }
}

fn import_cmd(model: &str, train: bool, batch: Option<u64>, shapes: &[String]) -> Result<()> {
    let mut options = onnx::Options {
        train,
        batch,
        ..onnx::Options::default()
    };
    if batch == Some(0) {
        return Err(Error::Scenario("--batch must be at least 1".into()));
    }
    for s in shapes {
        options.add_input_shape(s)?;
    }
    let read = graph_file(model, read_bytes(model)?, &options)?;
    print_notes(&read.notes);
    out!("{}", read.text);
    Ok(())
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
fn graph_path(arg: &str, base: Option<&Path>) -> Result<PathBuf> {
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
fn load_graph(path: &Path) -> Result<Graph> {
    let read = graph_file(
        &path.display().to_string(),
        read_bytes(&path.to_string_lossy())?,
        &onnx::Options::default(),
    )?;
    print_notes(&read.notes);
    Ok(read.graph)
}

fn validate(graph: &str, cluster: Option<&str>) -> Result<()> {
    let path = graph_path(graph, None)?;
    let g = load_graph(&path)?;
    let cost: f64 = g.nodes.iter().filter_map(|n| n.cost).sum();
    let bytes: f64 = g.tensors.iter().map(|t| t.bytes).sum();
    let mut line = format!(
        "{}: ok, {} nodes, {} edges, {} tensors, {} colocation groups, total cost {}, total tensor bytes {}",
        g.name,
        g.node_count(),
        g.edge_count(),
        g.tensors.len(),
        g.groups.len(),
        units::num(cost),
        units::num(bytes)
    );
    if let Some(c) = cluster {
        let cl = read_cluster(c)?;
        Problem::new(&g, &cl)?;
        line.push_str(&format!(
            "; fits cluster '{}' ({} devices)",
            cl.name,
            cl.len()
        ));
    }
    out!("{line}");
    Ok(())
}

/// `placesim order`: a replica's link-order ranks for the transfers into its first worker.
fn order_cmd(args: &ProblemArgs, algorithm: &str) -> Result<()> {
    let ranking = transfer::ranking(algorithm)?;
    if args.workers.is_none() {
        return Err(Error::Scenario("order needs --workers and --ps".into()));
    }
    let Loaded {
        scenario,
        graph,
        cluster,
        ..
    } = scenario_from_args(args)?;
    let real = compare::realize(&scenario, &graph, cluster.as_ref(), 0)?;
    let problem = compare::problem(&scenario, &graph, &real.cluster, real.overrides.as_ref())?;
    let placement = (place::pinned::INFO.make)().place(
        &problem,
        &Default::default(),
        &mut placesim::rng::Rng::new(0),
    )?;
    let worker = scenario
        .replica
        .as_ref()
        .and_then(|r| r.workers.first())
        .and_then(|w| real.cluster.device_index(w))
        .ok_or_else(|| {
            Error::Scenario("--workers: the first worker is not in the cluster".into())
        })?;
    let transfers = placesim::sim::transfers_of(&problem, &placement);
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
    if args.json {
        let list: Vec<serde_json::Value> = rows
            .iter()
            .map(|(r, id)| serde_json::json!({ "id": id, "priority": r }))
            .collect();
        out!("{}", serde_json::Value::Array(list));
    } else {
        out!(
            "priority  parameter read (into {})",
            real.cluster.devices[worker as usize].id
        );
        for (r, id) in &rows {
            out!("{r:>8}  {id}");
        }
    }
    Ok(())
}

fn coarsen_cmd(graph: &str, cluster: Option<&str>, target: usize, json: bool) -> Result<()> {
    if target == 0 {
        return Err(Error::Scenario("--target must be at least 1".into()));
    }
    let g = load_graph(&graph_path(graph, None)?)?;
    let cl = match cluster {
        Some(c) => read_cluster(c)?,
        None => Cluster::from_json(
            r#"{"devices":[{"id":"gpu0","kind":"gpu","speed":1},{"id":"cpu0","kind":"cpu","speed":1}],"bandwidth":1}"#,
            "one gpu and one cpu",
        )?,
    };
    let p = Problem::new(&g, &cl)?;
    let summary = placesim::transform::coarsen::coarsen(&p, target).summary(&p, target);
    if json {
        out!(
            "{}",
            serde_json::to_string(&summary).expect("plain data serializes")
        );
        return Ok(());
    }
    out!(
        "{}: {} ops, {} edges -> {} vertices, {} edges (target {}); acyclic: {}",
        summary.graph,
        summary.nodes,
        summary.edges,
        summary.vertices,
        summary.coarse_edges,
        target,
        if summary.acyclic { "yes" } else { "NO" }
    );
    out!("round  vertices     edges  merged  edges removed");
    for (i, r) in summary.rounds.iter().enumerate().skip(1) {
        out!(
            "{i:>5}  {:>8}  {:>8}  {:>6}  {:>12.1}%{}",
            r.vertices,
            r.edges,
            r.merged,
            r.edges_removed_pct,
            if r.fallback {
                "  (batch undone: cycle)"
            } else {
                ""
            }
        );
    }
    Ok(())
}

fn parse_range(what: &str, s: &str) -> Result<[f64; 2]> {
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
fn parse_assignments(flag: &str, form: &str, list: &[String]) -> Result<BTreeMap<String, f64>> {
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

fn split_list(s: &str) -> Vec<String> {
    s.split(',')
        .map(|x| x.trim().to_string())
        .filter(|x| !x.is_empty())
        .collect()
}

/// The replica the options ask for (`--workers` and `--ps`).
fn replication_of(a: &ProblemArgs) -> Option<Replication> {
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
fn scenario_from_args(a: &ProblemArgs) -> Result<Loaded> {
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

/// The bundled name of a graph file: its stem, when a bundled graph of that name exists
/// and has exactly the file's bytes (so that a link naming it gives everyone the same
/// graph). A user's own `~/work/graphs/x.json` is a file, not the bundled `x`.
fn bundled_name(path: &Path) -> Result<Option<String>> {
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
fn disk(base: Option<PathBuf>) -> impl Fn(FileRef) -> Result<Vec<u8>> {
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

fn run_pair(args: RunArgs) -> Result<()> {
    let Loaded {
        scenario: mut s,
        graph,
        cluster,
        ..
    } = scenario_from_args(&args.problem)?;
    s.placers = vec![args.placer.clone()];
    s.schedulers = vec![args.scheduler.clone()];
    let real = compare::realize(&s, &graph, cluster.as_ref(), 0)?;
    let detail = compare::run_one(
        &s,
        &graph,
        &real.cluster,
        real.overrides.as_ref(),
        (&args.placer, &args.scheduler, None),
        0,
    )?;
    if let Some(path) = &args.trace {
        let text = trace::chrome_trace(&detail).to_string();
        std::fs::write(path, text).map_err(|e| Error::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
    }
    let devices = &real.cluster.devices;
    let sim = &detail.sim;
    if args.problem.json {
        let report = RunReport::of(&s, &args.placer, &args.scheduler, &detail);
        out!(
            "{}",
            serde_json::to_string(&report).expect("plain data serializes")
        );
        return Ok(());
    }
    let units = units::UnitSystem::of_speeds(devices.iter().map(|d| d.speed));
    out!(
        "{} on {} ({} devices): {} / {}{}",
        graph.name,
        real.cluster.name,
        devices.len(),
        args.placer,
        args.scheduler,
        units.note()
    );
    out!(
        "makespan {}  lower bound {}  (x{:.2})  traffic {} in {} transfers  placed in {:.4} s",
        units.time(sim.makespan),
        units.time(detail.lower_bound),
        if detail.lower_bound > 0.0 {
            sim.makespan / detail.lower_bound
        } else {
            1.0
        },
        units.bytes(sim.traffic_bytes),
        sim.links.iter().map(|l| l.transfers).sum::<usize>(),
        detail.placement_seconds
    );
    out!(
        "{:<12} {:>6} {:>12} {:>6} {:>12} {:>12}",
        "device",
        "ops",
        "busy",
        "util",
        "peak mem",
        "memory"
    );
    for (d, st) in devices.iter().zip(&sim.devices) {
        if st.ops == 0 && st.peak_memory == 0.0 {
            continue;
        }
        out!(
            "{:<12} {:>6} {:>12} {:>5.1}% {:>12} {:>12}{}",
            d.id,
            st.ops,
            units.time(st.busy),
            if sim.makespan > 0.0 {
                100.0 * st.busy / sim.makespan
            } else {
                0.0
            },
            units.bytes(st.peak_memory),
            if d.memory.is_finite() {
                units.bytes(d.memory)
            } else {
                "unlimited".into()
            },
            if st.oom { "  OOM" } else { "" }
        );
    }
    let idle = devices.len() - sim.devices.iter().filter(|s| s.ops > 0).count();
    if idle > 0 {
        out!("({idle} devices ran no op)");
    }
    Ok(())
}

/// The threads `--jobs` asks for (every core by default).
fn threads_of(jobs: Option<usize>) -> Result<usize> {
    match jobs {
        Some(0) => Err(Error::Scenario("--jobs must be at least 1".into())),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// The threads of `--jobs`, the scenario files of `--scenario` and `--scenario-list`, and
/// whether they make a batch (a list, a shard or several files: JSON Lines).
fn scenario_files(
    jobs: Option<usize>,
    scenario: &[PathBuf],
    list: Option<&Path>,
    shard: Option<&str>,
) -> Result<(usize, Vec<PathBuf>, bool)> {
    let threads = threads_of(jobs)?;
    let mut files = scenario.to_vec();
    if let Some(list) = list {
        files.extend(read_scenario_list(list)?);
    }
    let batch = list.is_some() || shard.is_some() || files.len() > 1;
    if batch && files.is_empty() {
        return Err(Error::Scenario(
            "--shard selects from a list of scenarios: give --scenario-list or --scenario".into(),
        ));
    }
    Ok((threads, files, batch))
}

/// A comparison on `threads` threads, drawing its progress on `bar`.
fn compare_with_bar(
    resolved: &Resolved,
    l: &Loaded,
    threads: usize,
    bar: &ProgressBar,
) -> Result<Comparison> {
    let c = compare::run_parallel(resolved, &l.graph, l.cluster.as_ref(), threads, &|d, t| {
        bar.show(d, t);
        true
    });
    bar.clear();
    c
}

fn compare_cmd(args: CompareArgs) -> Result<()> {
    let (threads, files, batch) = scenario_files(
        args.jobs,
        &args.scenario,
        args.scenario_list.as_deref(),
        args.shard.as_deref(),
    )?;
    if batch {
        if args.url {
            return Err(Error::Scenario(
                "--url writes the link of one scenario, not of a list".into(),
            ));
        }
        return run_batch(&files, args.shard.as_deref(), |l, file, index, bar| {
            let c = compare_with_bar(&l.scenario.resolve()?, l, threads, bar)?;
            let line = BatchLine {
                file,
                index,
                comparison: Some(&c),
                error: None,
            };
            Ok(vec![
                serde_json::to_string(&line).expect("a comparison serializes")
            ])
        });
    }
    let loaded = match files.first() {
        Some(path) => load_scenario(path)?,
        None => {
            let mut l = scenario_from_args(&args.problem)?;
            if let Some(p) = &args.placers {
                l.scenario.placers = split_list(p);
            }
            if let Some(p) = &args.schedulers {
                l.scenario.schedulers = split_list(p);
            }
            l.scenario.seeds = args.seeds;
            l.scenario.iterations = args.iterations;
            l
        }
    };
    let Loaded {
        scenario,
        graph,
        graph_text,
        cluster,
        cluster_text,
        ..
    } = loaded;
    let resolved = scenario.resolve()?;
    if args.url {
        // A file graph or cluster travels in the link (compressed, or by content hash).
        let graph_text =
            matches!(scenario.graph, GraphSource::File(_)).then_some(graph_text.as_str());
        out!(
            "{}",
            placesim::scenario::link::fragment_with_files(
                &scenario,
                graph_text,
                cluster_text.as_deref()
            )?
        );
        return Ok(());
    }
    let bar = ProgressBar::new("");
    let comparison =
        compare::run_parallel(&resolved, &graph, cluster.as_ref(), threads, &|d, t| {
            bar.show(d, t);
            true
        });
    bar.clear();
    print_comparison(&comparison?, args.problem.json);
    Ok(())
}

/// The scenario files a list names: one path per line; blank lines and `#` comments skipped.
fn read_scenario_list(list: &Path) -> Result<Vec<PathBuf>> {
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

/// `I/N` with `0 <= I < N`.
fn parse_shard(s: &str) -> Result<(usize, usize)> {
    let bad = || Error::Scenario(format!("--shard expects I/N with 0 <= I < N, got '{s}'"));
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let i: usize = i.trim().parse().map_err(|_| bad())?;
    let n: usize = n.trim().parse().map_err(|_| bad())?;
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// One JSON Lines record: a scenario file and its comparison, or why it has none.
#[derive(serde::Serialize)]
struct BatchLine<'a> {
    file: &'a str,
    /// The scenario's 0-based index in the whole list (before sharding).
    index: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    comparison: Option<&'a Comparison>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// Runs the scenarios of shard `--shard` (all without it) one after the other, each
/// through `one(loaded, file, index, bar)` (which runs it on every thread and returns its
/// JSON lines), printing the lines as each scenario finishes. A scenario that fails gets an
/// `error` line and the others still run; the exit status says whether any failed.
fn run_batch(
    files: &[PathBuf],
    shard: Option<&str>,
    mut one: impl FnMut(&Loaded, &str, usize, &ProgressBar) -> Result<Vec<String>>,
) -> Result<()> {
    let (shard, shards) = match shard {
        Some(s) => parse_shard(s)?,
        None => (0, 1),
    };
    let mine: Vec<(usize, &PathBuf)> = files
        .iter()
        .enumerate()
        .filter(|(i, _)| i % shards == shard)
        .collect();
    let mut failed = 0;
    for (n, &(index, path)) in mine.iter().enumerate() {
        let file = path.to_string_lossy();
        let bar = ProgressBar::new(&format!("{}/{} {file} ", n + 1, mine.len()));
        let result = load_scenario(path).and_then(|l| one(&l, &file, index, &bar));
        bar.clear();
        match result {
            Ok(lines) => {
                for line in lines {
                    out!("{line}");
                }
            }
            Err(e) => {
                failed += 1;
                let line = BatchLine {
                    file: &file,
                    index,
                    comparison: None,
                    error: Some(e.to_string()),
                };
                out!(
                    "{}",
                    serde_json::to_string(&line).expect("an error line serializes")
                );
            }
        }
    }
    if failed > 0 {
        return Err(Error::Scenario(format!(
            "{failed} of {} scenarios failed (their lines have an 'error')",
            mine.len()
        )));
    }
    Ok(())
}

/// The sweeps `sweep`'s flags ask for: `--compute`, then `--bandwidth`, then `--latency`.
fn sweep_specs(args: &SweepArgs) -> Result<Vec<placesim::scenario::sweep::SweepSpec>> {
    use placesim::scenario::sweep::{Axis, SweepSpec};
    [
        (Axis::Compute, &args.compute),
        (Axis::Bandwidth, &args.bandwidth),
        (Axis::Latency, &args.latency),
    ]
    .into_iter()
    .filter_map(|(axis, list)| list.as_deref().map(|l| SweepSpec::parse(axis, l)))
    .collect()
}

/// One JSON Lines record of a sweep: a scenario file, a factor and a pair.
#[derive(serde::Serialize)]
struct SweepLine<'a> {
    file: &'a str,
    /// The scenario's 0-based index in the whole list (before sharding).
    index: usize,
    axis: placesim::scenario::sweep::Axis,
    #[serde(flatten)]
    point: &'a placesim::sweep::SweepPoint,
}

/// Runs a scenario's sweeps (every factor on every thread), with a progress bar per factor.
fn run_sweeps(
    l: &Loaded,
    specs: &[placesim::scenario::sweep::SweepSpec],
    threads: usize,
    label: &str,
) -> Result<Vec<placesim::sweep::Sweep>> {
    specs
        .iter()
        .map(|spec| {
            placesim::sweep::run(&l.scenario, spec, |i, s| {
                let bar = ProgressBar::new(&format!(
                    "{label}{} x{} ",
                    spec.axis.name(),
                    spec.factors[i]
                ));
                compare_with_bar(s, l, threads, &bar)
            })
        })
        .collect()
}

/// The JSON lines of sweeps: one per factor and pair.
fn sweep_lines(sweeps: &[placesim::sweep::Sweep], file: &str, index: usize) -> Vec<String> {
    sweeps
        .iter()
        .flat_map(|s| {
            s.points.iter().map(move |point| {
                serde_json::to_string(&SweepLine {
                    file,
                    index,
                    axis: s.axis,
                    point,
                })
                .expect("a sweep point serializes")
            })
        })
        .collect()
}

fn sweep_cmd(args: SweepArgs) -> Result<()> {
    let specs = sweep_specs(&args)?;
    let (threads, files, batch) = scenario_files(
        args.jobs,
        &args.scenario,
        args.scenario_list.as_deref(),
        args.shard.as_deref(),
    )?;
    if batch {
        if args.csv {
            return Err(Error::Scenario(
                "--csv writes one scenario's sweep; a list prints JSON Lines".into(),
            ));
        }
        return run_batch(&files, args.shard.as_deref(), |l, file, index, bar| {
            Ok(sweep_lines(
                &run_sweeps(l, &specs, threads, &bar.label)?,
                file,
                index,
            ))
        });
    }
    let Some(path) = files.first() else {
        return Err(Error::Scenario(
            "give a scenario: --scenario FILE (or several, or --scenario-list)".into(),
        ));
    };
    if args.csv && specs.len() > 1 {
        return Err(Error::Scenario(
            "--csv writes one axis: give one of --compute, --bandwidth and --latency".into(),
        ));
    }
    let loaded = load_scenario(path)?;
    let sweeps = run_sweeps(&loaded, &specs, threads, "")?;
    if args.json {
        for line in sweep_lines(&sweeps, &path.to_string_lossy(), 0) {
            out!("{line}");
        }
    } else {
        for (i, s) in sweeps.iter().enumerate() {
            if i > 0 {
                out!();
            }
            let text = if args.csv {
                placesim::report::sweep::csv(s)
            } else {
                placesim::report::sweep::table(s)
            };
            out_raw!("{text}");
        }
    }
    Ok(())
}

/// A one-line progress bar on stderr, drawn only when stderr is a terminal (never into a
/// pipe or a log file) and at most ten times a second; safe to call from any thread.
struct ProgressBar {
    label: String,
    on: bool,
    last: std::sync::Mutex<Option<std::time::Instant>>,
}

impl ProgressBar {
    fn new(label: &str) -> ProgressBar {
        use std::io::IsTerminal;
        ProgressBar {
            label: label.to_string(),
            on: std::io::stderr().is_terminal(),
            last: std::sync::Mutex::new(None),
        }
    }

    fn show(&self, done: f64, total: usize) {
        if !self.on {
            return;
        }
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        let now = std::time::Instant::now();
        if last.is_some_and(|t| now.duration_since(t).as_millis() < 100) {
            return;
        }
        *last = Some(now);
        let f = if total > 0 {
            (done / total as f64).clamp(0.0, 1.0)
        } else {
            1.0
        };
        const WIDTH: usize = 30;
        let filled = (f * WIDTH as f64) as usize;
        eprint!(
            "\r\x1b[K{}[{}{}] {:>3.0}% of {total} steps",
            self.label,
            "#".repeat(filled),
            ".".repeat(WIDTH - filled),
            f * 100.0
        );
    }

    fn clear(&self) {
        let drawn = self
            .last
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some();
        if self.on && drawn {
            eprint!("\r\x1b[K");
        }
    }
}

fn print_comparison(c: &Comparison, as_json: bool) {
    if as_json {
        out!(
            "{}",
            serde_json::to_string(c).expect("comparison serializes")
        );
    } else {
        out_raw!("{}", table::comparison(c));
    }
}

/// Loads a scenario file; file paths inside it are relative to the file's directory.
fn load_scenario(path: &Path) -> Result<Loaded> {
    let text = read(&path.to_string_lossy())?;
    let s: Scenario = placesim::error::parse_json("scenario", &text)
        .map_err(|e| in_file(&path.display().to_string(), e))?;
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    load(s, &disk(Some(base)))
}
