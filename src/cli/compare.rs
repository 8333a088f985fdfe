//! `placesim compare`: every chosen pair over seeds, from the problem flags or scenario
//! files, as a table, `--json`, a playground link (`--url`), or JSON Lines for a batch
//! (`--scenario-list`, `--shard`, several files; docs/batch.md). The batch machinery
//! (scenario lists, shards, one line per scenario, `--jobs`) is here and `sweep` shares it.
//!
//! Not here: running a scenario (`compare::run_parallel`), the table (`report::table`) or
//! the link codec (`share`).

use std::path::{Path, PathBuf};

use placesim::compare::{self, Comparison};
use placesim::report::table;
use placesim::scenario::load::Loaded;
use placesim::scenario::{GraphSource, Resolved};
use placesim::{Error, Result};

use super::args::CompareArgs;
use super::files::{load_scenario, read_scenario_list};
use super::output::ProgressBar;
use super::scenario::{scenario_from_args, split_list};

pub fn compare(args: CompareArgs) -> Result<()> {
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
pub fn scenario_files(
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
pub fn compare_with_bar(
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
pub fn run_batch(
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
