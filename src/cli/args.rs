//! The command line's definitions: every subcommand and flag as a clap struct, with the
//! docs `--help` prints. One table, so parsing and help never drift.
//!
//! Not here: what a flag means to the engine (`scenario.rs` turns the problem flags into a
//! scenario; each subcommand's file reads its own) or any default the engine owns.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "placesim",
    version,
    about = "Compare placement and scheduling strategies for DNN dataflow graphs on heterogeneous devices"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
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
        /// Also write the coarse graph here, in the graph format, each vertex with
        /// `members` (its original node ids).
        #[arg(long)]
        output: Option<String>,
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
        /// A static shape for an input, NAME=1x3x224x224 (repeatable), of the input's rank.
        #[arg(long = "input-shape", value_name = "NAME=DIMS")]
        input_shape: Vec<String>,
        /// Go on when ops that carry FLOPs cannot be sized (they cost 0): the notes give the
        /// share of ops and of FLOP-carrying ops missing. Without it such a model is an error.
        #[arg(long = "allow-unsized")]
        allow_unsized: bool,
        /// Count floating-point tensors (edges, weights) at this precision: float32, float16,
        /// bfloat16, float64, float8 (default: the model's own). FLOPs do not change; each
        /// hardware preset says which precision its FLOP/s are for.
        #[arg(long)]
        dtype: Option<String>,
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
    /// Split pass-through multi-tensor ops (IdentityN: output i is input i) into one
    /// pass-through per tensor and print the graph JSON (what a replica does before it
    /// replicates a training graph); what was split or left whole on stderr.
    Split {
        /// Graph JSON file, or the name of a graph in graphs/.
        #[arg(long)]
        graph: String,
        /// Op types to split, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "IdentityN")]
        ops: Vec<String>,
    },
    /// Write the TicTac19 replica of a graph (--workers, --ps) as graph JSON.
    Replicate {
        #[command(flatten)]
        problem: ProblemArgs,
    },
}

#[derive(Args, Clone)]
pub struct ProblemArgs {
    /// Graph JSON file, or the name of a graph in graphs/.
    #[arg(long)]
    pub graph: Option<String>,
    /// Cluster JSON file.
    #[arg(long, conflicts_with = "devices")]
    pub cluster: Option<String>,
    /// Generate a cluster of this many devices.
    #[arg(long)]
    pub devices: Option<usize>,
    /// Device speed range for a generated cluster, LO..HI.
    #[arg(long, default_value = "10..100")]
    pub speed: String,
    /// Memory per generated device, bytes (unlimited when absent).
    #[arg(long)]
    pub memory: Option<f64>,
    /// Memory per generated device as a fraction of the graph's total footprint (overrides --memory).
    #[arg(long)]
    pub memory_fraction: Option<f64>,
    /// Bandwidth range per device pair for a generated cluster, LO..HI.
    #[arg(long, default_value = "10..60")]
    pub bandwidth: String,
    /// Latency range per device pair for a generated cluster, LO..HI.
    #[arg(long, default_value = "0..0")]
    pub latency: String,
    /// Device kinds of a generated cluster, assigned round-robin (comma separated).
    #[arg(long)]
    pub kinds: Option<String>,
    /// Redraw every op cost uniformly from LO..HI (Mayer17 §5.1).
    #[arg(long)]
    pub cost: Option<String>,
    /// Redraw every tensor size uniformly from LO..HI (Mayer17 §5.1).
    #[arg(long)]
    pub bytes: Option<String>,
    /// Redraw every op's resident memory uniformly from LO..HI (0..0: tensors only, Mayer17 eq. 2).
    #[arg(long)]
    pub mem: Option<String>,
    /// Link model: parallel (no contention) or fcfs (one transfer at a time per link);
    /// fcfs with --workers, parallel otherwise.
    #[arg(long)]
    pub links: Option<String>,
    /// Link queue orders under fcfs links, comma separated: each is a row per pair
    /// (fifo, random, tio, tao, given).
    #[arg(long, default_value = "fifo")]
    pub link_order: String,
    /// What a node's static placement footprint counts: outputs (mem + output tensors),
    /// inputs_outputs (mem + input and output tensors, Pesto21 §3.1) or mem; or live (placers
    /// charge mem, the simulated peak of live tensors is the judge: over memory is flagged OOM).
    #[arg(long, default_value = "outputs")]
    pub footprint: String,
    /// TicTac19 replicas: the workers' device ids, comma separated (every op pinned).
    #[arg(long, requires = "ps")]
    pub workers: Option<String>,
    /// TicTac19 replicas: the parameter servers' device ids, comma separated.
    #[arg(long, requires = "workers")]
    pub ps: Option<String>,
    /// With --workers: prune the graph to this op and its ancestors (forward-only runs).
    #[arg(long, requires = "workers")]
    pub forward_target: Option<String>,
    /// With --workers: sum the workers' updates before one update per parameter.
    #[arg(long, requires = "workers")]
    pub aggregate: bool,
    /// With --workers: every source with outgoing bytes reads a parameter (synthetic graphs).
    #[arg(long, requires = "workers")]
    pub params_from_sources: bool,
    /// With --workers: op types that read a parameter, comma separated.
    #[arg(long, requires = "workers")]
    pub param_ops: Option<String>,
    /// With --workers: scale server-worker bandwidth so that transfer / compute time on the
    /// first worker is this ratio (1.0: TicTac19's S > 0.9 setting).
    #[arg(long, requires = "workers")]
    pub balance: Option<f64>,
    /// Base seed of every random draw.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Strategy parameter STRATEGY.NAME=VALUE (repeatable).
    #[arg(long = "param")]
    pub params: Vec<String>,
    /// Multiply every device speed (what-if).
    #[arg(long, default_value_t = 1.0)]
    pub compute_scale: f64,
    /// Multiply every link bandwidth (what-if).
    #[arg(long, default_value_t = 1.0)]
    pub bandwidth_scale: f64,
    /// Multiply every link latency (what-if; the `b0` of a link's `b0 + b1 * bytes`).
    #[arg(long, default_value_t = 1.0)]
    pub latency_scale: f64,
    /// Set one device's speed, ID=SPEED (what-if; repeatable). It replaces the device's
    /// speed in every seed (a generated cluster's devices are d0, d1, ...), and
    /// --compute-scale multiplies it like every other device's.
    #[arg(long = "speed-of", value_name = "ID=SPEED")]
    pub speed_of: Vec<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub problem: ProblemArgs,
    #[arg(long)]
    pub placer: String,
    #[arg(long)]
    pub scheduler: String,
    /// Write the schedule as Chrome trace-event JSON (Perfetto, chrome://tracing).
    #[arg(long)]
    pub trace: Option<PathBuf>,
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
pub struct CompareArgs {
    #[command(flatten)]
    pub problem: ProblemArgs,
    /// Scenario JSON files (instead of the options above). One scenario prints as usual;
    /// several print one JSON line per scenario (JSON Lines, see docs/batch.md).
    /// A scenario file says everything, so the options that build a scenario conflict with it.
    #[arg(long, num_args = 1.., conflicts_with_all = SCENARIO_BUILDERS)]
    pub scenario: Vec<PathBuf>,
    /// A file listing scenario files, one path per line ('-' reads stdin; blank lines and
    /// lines starting with '#' are skipped): prints JSON Lines, one line per scenario.
    #[arg(long, value_name = "FILE", conflicts_with_all = SCENARIO_BUILDERS)]
    pub scenario_list: Option<PathBuf>,
    /// Run only the scenarios of the list whose 0-based index is I modulo N (for an array job
    /// of N tasks; see docs/batch.md). Prints JSON Lines.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Threads that run pairs and seeds (default: every core). The numbers are the same bits
    /// for any count; only placement seconds (wall clock) vary.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Placers, comma separated (default: all).
    #[arg(long)]
    pub placers: Option<String>,
    /// Schedulers, comma separated (default: all).
    #[arg(long)]
    pub schedulers: Option<String>,
    /// Number of seeds to average over.
    #[arg(long, default_value_t = 1)]
    pub seeds: u32,
    /// Simulated iterations per seed and pair, each with fresh runtime randomness.
    #[arg(long, default_value_t = 1)]
    pub iterations: u32,
    /// Print the playground link fragment (from '#') for this scenario instead of running it.
    #[arg(long)]
    pub url: bool,
}

#[derive(Args)]
pub struct SweepArgs {
    /// Scenario JSON files. One scenario prints a table (or --csv, --json); several print
    /// one JSON line per factor and pair of each (JSON Lines, see docs/batch.md).
    #[arg(long, num_args = 1..)]
    pub scenario: Vec<PathBuf>,
    /// A file listing scenario files, one path per line ('-' reads stdin; blank lines and
    /// lines starting with '#' are skipped): prints JSON Lines.
    #[arg(long, value_name = "FILE")]
    pub scenario_list: Option<PathBuf>,
    /// Run only the scenarios of the list whose 0-based index is I modulo N (for an array job
    /// of N tasks; see docs/batch.md). Prints JSON Lines.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Compute factors, comma separated (e.g. 1,2,4,8): each multiplies every device speed
    /// (on top of the scenario's own what-if).
    #[arg(
        long,
        value_name = "LIST",
        required_unless_present_any = ["bandwidth", "latency"],
        allow_hyphen_values = true
    )]
    pub compute: Option<String>,
    /// Bandwidth factors, comma separated (e.g. 1,0.5,0.2,0.1): each multiplies every link
    /// bandwidth (on top of the scenario's own what-if).
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub bandwidth: Option<String>,
    /// Latency factors, comma separated (e.g. 1,2,4): each multiplies every link latency
    /// (on top of the scenario's own what-if; bandwidths stay).
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub latency: Option<String>,
    /// Print CSV (the unit in every column name) instead of a table; one axis only.
    #[arg(long, conflicts_with = "json")]
    pub csv: bool,
    /// Print one JSON line per factor and pair (JSON Lines).
    #[arg(long)]
    pub json: bool,
    /// Threads that run pairs and seeds (default: every core); the numbers are the same bits
    /// for any count.
    #[arg(long)]
    pub jobs: Option<usize>,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    /// `SCENARIO_BUILDERS` is a hand list of `compare`'s flags that build a scenario (and so
    /// conflict with `--scenario`): every flag of `compare` must be either one of them or
    /// named here as one that does not build a scenario, so a new flag cannot slip past
    /// the conflict unclassified, and the list names no flag that is gone.
    #[test]
    fn every_compare_flag_builds_the_scenario_or_is_named_as_not() {
        const NOT_BUILDERS: &[&str] =
            &["scenario", "scenario_list", "shard", "jobs", "url", "json"];
        let cli = Cli::command();
        let compare = cli.find_subcommand("compare").unwrap();
        let ids: Vec<&str> = compare
            .get_arguments()
            .map(|a| a.get_id().as_str())
            .collect();
        for id in &ids {
            assert!(
                SCENARIO_BUILDERS.contains(id) || NOT_BUILDERS.contains(id),
                "compare --{id}: add it to SCENARIO_BUILDERS (it builds the scenario) or to \
                 NOT_BUILDERS here"
            );
        }
        for b in SCENARIO_BUILDERS.iter().chain(NOT_BUILDERS) {
            assert!(ids.contains(b), "'{b}' is no flag of compare: {ids:?}");
        }
    }
}
