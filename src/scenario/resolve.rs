//! A scenario resolved against the registries: every strategy name found, every parameter
//! checked against its declared kind and range, and the pairs that run decided. Done once,
//! before anything runs, so a bad name or value is a scenario error that names it, never a
//! per-seed failure. A [`Resolved`] owns its scenario, so "resolved once" is a type: a
//! comparison takes a `Resolved` and never resolves again.
//!
//! Pairs: a scheduler or link order that replays a plan (`given`) runs only with placers
//! that plan; the other combinations are left out, and [`Resolved::notes`] says once why.
//!
//! Not here: the scenario's shape ([`Scenario::check`]) or running anything.

use crate::error::{Error, Result};
use crate::params::{ParamSpec, Params};
use crate::place::{self, PlacerInfo, PLACERS};
use crate::schedule::{self, SchedulerInfo, SCHEDULERS};
use crate::transfer::{self, LinkOrderInfo, LINK_ORDERS};

use super::Scenario;

/// A registered strategy with its resolved parameters.
pub struct Strategy<I: 'static> {
    pub info: &'static I,
    pub params: Params,
}

/// What a scenario runs, with the scenario it was resolved from ([`Resolved::scenario`]).
/// Only [`Scenario::resolve`] (or `into_resolved`, `resolve_pair`) makes one.
pub struct Resolved {
    scenario: Scenario,
    pub placers: Vec<Strategy<PlacerInfo>>,
    pub schedulers: Vec<Strategy<SchedulerInfo>>,
    pub link_orders: Vec<Strategy<LinkOrderInfo>>,
    /// `(placer, scheduler, link order)` indices of every row that runs, placer-major, then
    /// scheduler, then link order ("pairs": a link order is a third axis only with `fcfs`).
    pub pairs: Vec<(usize, usize, usize)>,
    /// Why some combinations are absent (said once, for the output).
    pub notes: Vec<String>,
}

fn strategy<I>(
    info: &'static I,
    name: &str,
    specs: &[ParamSpec],
    s: &Scenario,
) -> Result<Strategy<I>> {
    Ok(Strategy {
        info,
        params: Params::resolve(name, specs, &s.params)?,
    })
}

impl Resolved {
    /// The scenario this resolves.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// Parses a scenario (JSON) and resolves it.
    pub fn from_json(text: &str) -> Result<Resolved> {
        crate::error::parse_json::<Scenario>("scenario", text)?.into_resolved()
    }
}

/// What a scenario runs, before it is joined to its scenario.
struct Parts {
    placers: Vec<Strategy<PlacerInfo>>,
    schedulers: Vec<Strategy<SchedulerInfo>>,
    link_orders: Vec<Strategy<LinkOrderInfo>>,
    pairs: Vec<(usize, usize, usize)>,
    notes: Vec<String>,
}

impl Parts {
    fn with(self, scenario: Scenario) -> Resolved {
        Resolved {
            scenario,
            placers: self.placers,
            schedulers: self.schedulers,
            link_orders: self.link_orders,
            pairs: self.pairs,
            notes: self.notes,
        }
    }
}

impl Scenario {
    /// Resolves the scenario: its shape ([`Scenario::check`]), its strategies, their
    /// parameters (including parameters of strategies it does not run: a typo never passes
    /// silently) and its pairs. The resolution keeps a copy of the scenario
    /// ([`Scenario::into_resolved`] keeps the scenario itself).
    pub fn resolve(&self) -> Result<Resolved> {
        Ok(self.parts()?.with(self.clone()))
    }

    /// Like [`Scenario::resolve`], keeping the scenario itself.
    pub fn into_resolved(self) -> Result<Resolved> {
        Ok(self.parts()?.with(self))
    }

    /// Checks the scenario whole, as [`Scenario::resolve`] does, keeping nothing.
    pub fn validate(&self) -> Result<()> {
        self.parts().map(drop)
    }

    fn parts(&self) -> Result<Parts> {
        self.check()?;
        for key in self.params.keys() {
            let strategy = key.split('.').next().unwrap_or("");
            let known = PLACERS.iter().any(|p| p.name == strategy)
                || SCHEDULERS.iter().any(|s| s.name == strategy)
                || LINK_ORDERS.iter().any(|q| q.name == strategy);
            if !known || !key.contains('.') {
                return Err(Error::Scenario(format!(
                    "parameter '{key}' does not name a strategy (write strategy.name=value)"
                )));
            }
        }
        for p in PLACERS {
            Params::resolve(p.name, p.params, &self.params)?;
        }
        for s in SCHEDULERS {
            Params::resolve(s.name, s.params, &self.params)?;
        }
        for q in LINK_ORDERS {
            Params::resolve(q.name, q.params, &self.params)?;
        }
        // A replica pins every op: by default it runs the one placer that follows pins.
        let pinned = [place::pinned::INFO.name.to_string()];
        let names = match &self.replica {
            Some(_) if self.placers == place::default_placers() => &pinned[..],
            _ => &self.placers[..],
        };
        let placers = names
            .iter()
            .map(|name| {
                let info = place::placer(name)?;
                strategy(info, info.name, info.params, self)
            })
            .collect::<Result<Vec<_>>>()?;
        let schedulers = self
            .schedulers
            .iter()
            .map(|name| {
                let info = schedule::scheduler(name)?;
                strategy(info, info.name, info.params, self)
            })
            .collect::<Result<Vec<_>>>()?;
        let link_orders = self
            .link_order
            .iter()
            .map(|name| {
                let info = transfer::link_order(name)?;
                strategy(info, info.name, info.params, self)
            })
            .collect::<Result<Vec<_>>>()?;
        for (i, o) in link_orders.iter().enumerate() {
            if link_orders[..i].iter().any(|x| x.info.name == o.info.name) {
                return Err(Error::Scenario(format!(
                    "link order '{}' is listed twice",
                    o.info.name
                )));
            }
        }

        let mut pairs = Vec::new();
        let mut left_out: Vec<(&str, &str, &str)> = Vec::new();
        for (pi, p) in placers.iter().enumerate() {
            for (si, s) in schedulers.iter().enumerate() {
                for (oi, o) in link_orders.iter().enumerate() {
                    if p.info.plans || !(s.info.needs_plan || o.info.needs_plan) {
                        pairs.push((pi, si, oi));
                    } else {
                        left_out.push((p.info.name, s.info.name, o.info.name));
                    }
                }
            }
        }
        let mut notes = Vec::new();
        if !left_out.is_empty() {
            let planners: Vec<&str> = PLACERS.iter().filter(|p| p.plans).map(|p| p.name).collect();
            let mut without: Vec<&str> = left_out.iter().map(|x| x.0).collect();
            without.dedup();
            let named = |kind: &str, names: Vec<&str>| -> Option<String> {
                let mut names = names;
                names.sort_unstable();
                names.dedup();
                (!names.is_empty()).then(|| format!("{kind} '{}'", names.join("', '")))
            };
            let replayers = [
                named(
                    "scheduler",
                    schedulers
                        .iter()
                        .filter(|s| s.info.needs_plan)
                        .map(|s| s.info.name)
                        .collect(),
                ),
                named(
                    "link order",
                    link_orders
                        .iter()
                        .filter(|o| o.info.needs_plan)
                        .map(|o| o.info.name)
                        .collect(),
                ),
            ];
            let replays = replayers
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" and ");
            notes.push(format!(
                "{replays} replays a placer's plan, so it runs only with placers that plan ({}); not run with {}",
                planners.join(", "),
                without.join(", ")
            ));
        }
        if pairs.is_empty() {
            return Err(Error::Scenario(format!(
                "no pair to run: {}",
                notes.first().map_or("", String::as_str)
            )));
        }
        Ok(Parts {
            placers,
            schedulers,
            link_orders,
            pairs,
            notes,
        })
    }

    /// The scenario narrowed to one row (for a single run): a placer, a scheduler and a link
    /// order (the scenario's first when `None`); an error when that row would not run in a
    /// comparison (a `given` policy with a placer that plans nothing).
    pub fn resolve_pair(
        &self,
        placer: &str,
        scheduler: &str,
        link_order: Option<&str>,
    ) -> Result<Resolved> {
        let mut one = self.clone();
        one.placers = vec![placer.to_string()];
        one.schedulers = vec![scheduler.to_string()];
        one.link_order = vec![link_order
            .or(self.link_order.first().map(String::as_str))
            .unwrap_or("fifo")
            .to_string()];
        one.into_resolved()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{ClusterSource, GraphSource};

    fn scenario(json: &str) -> Result<Resolved> {
        let base = r#"{"graph":{"bundled":"x"},"cluster":{"file":"c"}"#;
        Scenario::from_json(&format!("{base}{json}}}")).and_then(|s| s.resolve())
    }

    #[test]
    fn bad_parameters_are_scenario_errors_that_name_them() {
        let e = scenario(r#","params":{"submodular.g":2}"#)
            .err()
            .unwrap()
            .to_string();
        assert_eq!(
            e,
            "scenario: parameter 'submodular.g' = 2: must be a finite number with 0 < x <= 1"
        );
        // Also for a strategy the scenario does not run.
        let e = scenario(r#","placers":["hash"],"params":{"msr.delta":-1}"#)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("'msr.delta' = -1"), "{e}");
        let e = scenario(r#","params":{"given.work_conserving":0.5}"#)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("must be 0 or 1"), "{e}");
        let e = scenario(r#","params":{"heft.x":1}"#)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("heft has no parameter 'x'"), "{e}");
    }

    #[test]
    fn given_pairs_only_with_placers_that_plan_and_a_note_says_why() {
        let r = scenario(r#","placers":["hash","heft","single"],"schedulers":["fifo","given"]"#)
            .unwrap();
        let names: Vec<(&str, &str)> = r
            .pairs
            .iter()
            .map(|&(p, s, _)| (r.placers[p].info.name, r.schedulers[s].info.name))
            .collect();
        assert_eq!(
            names,
            [
                ("hash", "fifo"),
                ("heft", "fifo"),
                ("heft", "given"),
                ("single", "fifo")
            ]
        );
        assert_eq!(
            r.notes,
            ["scheduler 'given' replays a placer's plan, so it runs only with placers that plan (heft, pesto); not run with hash, single"]
        );
        // A given link order keeps only the placers that plan, with every scheduler.
        let r = scenario(
            r#","placers":["hash","heft"],"schedulers":["fifo","pct"],"links":"fcfs","link_order":"given""#,
        )
        .unwrap();
        assert_eq!(r.pairs, [(1, 0, 0), (1, 1, 0)]);
        assert!(
            r.notes[0].starts_with("link order 'given' replays"),
            "{:?}",
            r.notes
        );
        // Nothing left to run is an error that says why.
        let e = scenario(r#","placers":["hash"],"schedulers":["given"]"#)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.starts_with("scenario: no pair to run: scheduler 'given'"),
            "{e}"
        );
        let s = Scenario::new(
            GraphSource::Bundled("x".into()),
            ClusterSource::File("c".into()),
        );
        assert!(s.resolve_pair("hash", "given", None).is_err());
        assert_eq!(
            s.resolve_pair("heft", "given", None).unwrap().pairs,
            [(0, 0, 0)]
        );
    }
}
