//! Named numeric parameters of strategies (`--param msr.delta=5`).
//!
//! Each strategy declares its parameters as [`ParamSpec`]s with defaults; a scenario's
//! `params` map holds `strategy.name -> value` overrides. [`Params::resolve`] checks that
//! every override names a known strategy and parameter, and hands each strategy only its
//! own values with defaults filled in.

use std::collections::BTreeMap;

use crate::error::{Error, Result};

/// Looks a strategy up by name in a registry; the error lists the known names.
pub fn lookup<'a, T>(
    what: &str,
    name: &str,
    registry: &'a [T],
    name_of: fn(&T) -> &'static str,
) -> Result<&'a T> {
    registry.iter().find(|s| name_of(s) == name).ok_or_else(|| {
        let names: Vec<&str> = registry.iter().map(name_of).collect();
        Error::Scenario(format!(
            "unknown {what} '{name}' (known: {})",
            names.join(", ")
        ))
    })
}

/// One tunable number of a strategy.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct ParamSpec {
    pub name: &'static str,
    pub default: f64,
    pub doc: &'static str,
}

/// A strategy's resolved parameters: every declared name has a value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Params(BTreeMap<&'static str, f64>);

impl Params {
    /// Fills `specs` with defaults, then applies `overrides` entries `"{strategy}.{name}"`.
    /// Entries for other strategies are skipped; a bad name for this one is an error.
    pub fn resolve(
        strategy: &str,
        specs: &[ParamSpec],
        overrides: &BTreeMap<String, f64>,
    ) -> Result<Params> {
        let mut values: BTreeMap<&'static str, f64> =
            specs.iter().map(|s| (s.name, s.default)).collect();
        let prefix = format!("{strategy}.");
        for (key, &value) in overrides {
            let Some(name) = key.strip_prefix(&prefix) else {
                continue;
            };
            let Some(spec) = specs.iter().find(|s| s.name == name) else {
                let known: Vec<&str> = specs.iter().map(|s| s.name).collect();
                return Err(Error::Scenario(format!(
                    "parameter '{key}': {strategy} has no parameter '{name}' (it has: {})",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                )));
            };
            if !value.is_finite() {
                return Err(Error::Scenario(format!(
                    "parameter '{key}' must be a finite number, got {value}"
                )));
            }
            values.insert(spec.name, value);
        }
        Ok(Params(values))
    }

    /// The value of a declared parameter.
    pub fn get(&self, name: &str) -> f64 {
        self.0.get(name).copied().unwrap_or(f64::NAN)
    }

    /// Params with only the given defaults (for tests and direct use).
    pub fn defaults(specs: &[ParamSpec]) -> Params {
        Params(specs.iter().map(|s| (s.name, s.default)).collect())
    }

    /// Sets one value (for tests and direct use).
    pub fn with(mut self, name: &'static str, value: f64) -> Params {
        self.0.insert(name, value);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[ParamSpec] = &[ParamSpec {
        name: "delta",
        default: 5.0,
        doc: "",
    }];

    #[test]
    fn resolves_defaults_and_overrides() {
        let mut o = BTreeMap::new();
        assert_eq!(Params::resolve("msr", SPECS, &o).unwrap().get("delta"), 5.0);
        o.insert("msr.delta".to_string(), 2.0);
        o.insert("pct.other".to_string(), 2.0);
        assert_eq!(Params::resolve("msr", SPECS, &o).unwrap().get("delta"), 2.0);
        o.insert("msr.zeta".to_string(), 2.0);
        let e = Params::resolve("msr", SPECS, &o).unwrap_err().to_string();
        assert!(e.contains("msr has no parameter 'zeta'"), "{e}");
    }
}
