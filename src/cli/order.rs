//! `placesim order`: TicTac19's priority of every parameter transfer into a replica's
//! first worker (tao or tio), as a table or `--json`.
//!
//! Not here: the ranking and the rows (`report::order::first_worker`, through the link
//! order registry's `transfer::ranking`).

use placesim::scenario::load::Loaded;
use placesim::{transfer, Error, Result};

use super::args::ProblemArgs;
use super::scenario::scenario_from_args;

pub fn order(args: &ProblemArgs, algorithm: &str) -> Result<()> {
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
    let table =
        placesim::report::order::first_worker(&scenario, &graph, cluster.as_ref(), ranking)?;
    if args.json {
        out!(
            "{}",
            serde_json::to_string(&table.rows).expect("plain data serializes")
        );
    } else {
        out_raw!("{}", table.text());
    }
    Ok(())
}
