//! `placesim list`: every registered placer, scheduler and link order with its summary and
//! parameters (default, doc, range).
//!
//! Not here: the registries (`place::PLACERS`, `schedule::SCHEDULERS`,
//! `transfer::LINK_ORDERS`) or a parameter's range (`params::ParamSpec`).

use placesim::params::ParamSpec;
use placesim::{place, schedule, transfer, Result};

pub fn list() -> Result<()> {
    out!("placers:");
    for p in place::PLACERS {
        print_strategy(p.name, p.summary, p.params);
    }
    out!("schedulers:");
    for s in schedule::SCHEDULERS {
        print_strategy(s.name, s.summary, s.params);
    }
    out!("link orders (fcfs links):");
    for q in transfer::LINK_ORDERS {
        print_strategy(q.name, q.summary, q.params);
    }
    Ok(())
}

fn print_strategy(name: &str, summary: &str, params: &[ParamSpec]) {
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
