//! `placesim sweep`: a scenario's comparison at several compute, bandwidth or latency
//! factors (Pesto21 Fig. 8), as a table, `--csv`, or JSON Lines (one line per factor and
//! pair; also for a batch of scenarios, through `cli/compare.rs`'s batch machinery).
//!
//! Not here: the sweep (`sweep::run`) or its table and CSV (`report::sweep`).

use placesim::scenario::load::Loaded;
use placesim::scenario::sweep::{Axis, SweepSpec};
use placesim::sweep::{Sweep, SweepPoint};
use placesim::{Error, Result};

use super::args::SweepArgs;
use super::compare::{compare_with_bar, run_batch, scenario_files};
use super::files::load_scenario;
use super::output::ProgressBar;

/// The sweeps `sweep`'s flags ask for: `--compute`, then `--bandwidth`, then `--latency`.
fn sweep_specs(args: &SweepArgs) -> Result<Vec<SweepSpec>> {
    [
        (Axis::Compute, &args.compute),
        (Axis::Bandwidth, &args.bandwidth),
        (Axis::Latency, &args.latency),
    ]
    .into_iter()
    .filter_map(|(axis, list)| {
        list.as_deref().map(|l| {
            // The engine names the scenario's field; the CLI adds its flag.
            SweepSpec::parse(axis, l).map_err(|e| match e {
                Error::Scenario(m) => Error::Scenario(format!("--{}: {m}", axis.name())),
                other => other,
            })
        })
    })
    .collect()
}

/// One JSON Lines record of a sweep: a scenario file, a factor and a pair.
#[derive(serde::Serialize)]
struct SweepLine<'a> {
    file: &'a str,
    /// The scenario's 0-based index in the whole list (before sharding).
    index: usize,
    axis: Axis,
    #[serde(flatten)]
    point: &'a SweepPoint,
}

/// Runs a scenario's sweeps (every factor on every thread), with a progress bar per factor.
fn run_sweeps(l: &Loaded, specs: &[SweepSpec], threads: usize, label: &str) -> Result<Vec<Sweep>> {
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
fn sweep_lines(sweeps: &[Sweep], file: &str, index: usize) -> Vec<String> {
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

pub fn sweep(args: SweepArgs) -> Result<()> {
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
