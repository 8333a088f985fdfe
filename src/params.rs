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

/// What values a parameter takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamKind {
    /// Any number in the range.
    Real,
    /// A whole number in the range.
    Integer,
    /// 0 (off) or 1 (on).
    Switch,
}

/// One tunable number of a strategy: its default, the values it takes (kind and range) and
/// what it does. [`Params::resolve`] rejects a value outside them, naming the parameter.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct ParamSpec {
    pub name: &'static str,
    pub default: f64,
    pub kind: ParamKind,
    /// Lowest value (`-inf`, serialized as `null`, for none); excluded when `min_open`.
    pub min: f64,
    pub min_open: bool,
    /// Highest value, included (`inf`, serialized as `null`, for none).
    pub max: f64,
    pub doc: &'static str,
}

impl ParamSpec {
    /// A non-negative real number with a default.
    pub const fn non_negative(name: &'static str, default: f64, doc: &'static str) -> ParamSpec {
        ParamSpec {
            name,
            default,
            kind: ParamKind::Real,
            min: 0.0,
            min_open: false,
            max: f64::INFINITY,
            doc,
        }
    }

    /// Whether `value` is one this parameter takes; otherwise the rule it breaks.
    pub fn check(&self, value: f64) -> std::result::Result<(), String> {
        let in_range = value.is_finite()
            && (value > self.min || (!self.min_open && value == self.min))
            && value <= self.max;
        let whole = match self.kind {
            ParamKind::Real => true,
            ParamKind::Integer => value.fract() == 0.0,
            ParamKind::Switch => value == 0.0 || value == 1.0,
        };
        if in_range && whole {
            return Ok(());
        }
        Err(match self.kind {
            ParamKind::Switch => "must be 0 or 1".to_string(),
            kind => {
                let lo = if self.min == f64::NEG_INFINITY {
                    String::new()
                } else {
                    format!("{} {}", self.min, if self.min_open { "<" } else { "<=" })
                };
                let hi = if self.max == f64::INFINITY {
                    String::new()
                } else {
                    format!("<= {}", self.max)
                };
                let what = if kind == ParamKind::Integer {
                    "a whole number"
                } else {
                    "a finite number"
                };
                format!("must be {what} with {lo} x {hi}")
                    .replace("  ", " ")
                    .trim_end()
                    .to_string()
            }
        })
    }
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
            if let Err(rule) = spec.check(value) {
                return Err(Error::Scenario(format!(
                    "parameter '{key}' = {value}: {rule}"
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

    const SPECS: &[ParamSpec] = &[
        ParamSpec::non_negative("delta", 5.0, ""),
        ParamSpec {
            name: "g",
            default: 0.5,
            kind: ParamKind::Real,
            min: 0.0,
            min_open: true,
            max: 1.0,
            doc: "",
        },
        ParamSpec {
            name: "rounds",
            default: 3.0,
            kind: ParamKind::Integer,
            min: 1.0,
            min_open: false,
            max: 100.0,
            doc: "",
        },
    ];

    fn resolve_one(key: &str, value: f64) -> std::result::Result<Params, String> {
        let o = BTreeMap::from([(format!("s.{key}"), value)]);
        Params::resolve("s", SPECS, &o).map_err(|e| e.to_string())
    }

    /// Each parameter's declared range and kind, at and just past their ends.
    #[test]
    fn values_outside_the_declared_range_and_kind_name_the_parameter() {
        assert!(resolve_one("delta", 0.0).is_ok());
        let e = resolve_one("delta", -1.0).unwrap_err();
        assert_eq!(
            e,
            "scenario: parameter 's.delta' = -1: must be a finite number with 0 <= x"
        );
        assert!(resolve_one("g", 1.0).is_ok());
        assert!(resolve_one("g", 1e-9).is_ok());
        let e = resolve_one("g", 0.0).unwrap_err();
        assert_eq!(
            e,
            "scenario: parameter 's.g' = 0: must be a finite number with 0 < x <= 1"
        );
        assert!(resolve_one("g", 2.0).is_err());
        assert!(resolve_one("g", f64::NAN).is_err());
        assert!(resolve_one("rounds", 100.0).is_ok());
        let e = resolve_one("rounds", 2.5).unwrap_err();
        assert_eq!(
            e,
            "scenario: parameter 's.rounds' = 2.5: must be a whole number with 1 <= x <= 100"
        );
        assert!(resolve_one("rounds", 0.0).is_err());
        let switch = ParamSpec {
            kind: ParamKind::Switch,
            max: 1.0,
            ..ParamSpec::non_negative("on", 0.0, "")
        };
        assert!(switch.check(1.0).is_ok() && switch.check(0.0).is_ok());
        assert_eq!(switch.check(0.5).unwrap_err(), "must be 0 or 1");
    }

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
