//! `placesim run`: one placer x scheduler pair at seed index 0, printed as text or
//! `--json`, with an optional Chrome trace file.
//!
//! Not here: running the pair (`compare::run_one`, the one "run a pair" path) or the text,
//! JSON and trace themselves (`report::run`, `report::trace`).

use placesim::compare;
use placesim::report::run::RunReport;
use placesim::report::trace;
use placesim::scenario::load::Loaded;
use placesim::{Error, Result};

use super::args::RunArgs;
use super::scenario::scenario_from_args;

pub fn run(args: RunArgs) -> Result<()> {
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
    if args.problem.json {
        let report = RunReport::of(&s, &args.placer, &args.scheduler, &detail);
        out!(
            "{}",
            serde_json::to_string(&report).expect("plain data serializes")
        );
        return Ok(());
    }
    out_raw!(
        "{}",
        placesim::report::run::text(
            &graph.name,
            &real.cluster,
            &args.placer,
            &args.scheduler,
            &detail
        )
    );
    Ok(())
}
