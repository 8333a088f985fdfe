//! What a what-if sweep asks (issue 10): one axis (compute, bandwidth or latency) and the
//! factors it takes, checked, and the scenario at each factor ([`SweepSpec::scenario_at`]).
//!
//! Pesto21 §5.4 (Fig. 8) plots the gain of its plan over the expert placement against the
//! compute speed (Fig. 8a) and one pair's step time against the interconnect speed (Fig. 8b).
//! A factor multiplies the scenario's own what-if scale on its axis (`what_if.compute`,
//! `what_if.bandwidth`, `what_if.latency`), so factor 1 is the scenario as given, its what-if
//! included. One axis per sweep; the factors keep the order given, and one given twice is an
//! error.
//!
//! Not here: running a sweep and reducing its comparisons (`src/sweep.rs`), or the flags
//! that give the factors on the command line: errors name the axis's factors, and the CLI
//! adds its flag.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

use super::Scenario;

/// Most factors in one sweep (each is a whole comparison).
pub const MAX_FACTORS: usize = 64;

/// The what-if factor a sweep varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Axis {
    /// Multiplies every device speed (Pesto21 Fig. 8a).
    Compute,
    /// Multiplies every link bandwidth (Pesto21 Fig. 8b).
    Bandwidth,
    /// Multiplies every link latency (Pesto21 §3.1's `b0`).
    Latency,
}

impl Axis {
    /// `compute`, `bandwidth` or `latency`.
    pub fn parse(s: &str) -> Result<Axis> {
        match s {
            "compute" => Ok(Axis::Compute),
            "bandwidth" => Ok(Axis::Bandwidth),
            "latency" => Ok(Axis::Latency),
            _ => Err(Error::Scenario(format!(
                "sweep axis must be compute, bandwidth or latency, got '{s}'"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Axis::Compute => "compute",
            Axis::Bandwidth => "bandwidth",
            Axis::Latency => "latency",
        }
    }
}

/// A checked sweep: an axis and its factors (each finite and > 0, none twice, 1 to
/// [`MAX_FACTORS`] of them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepSpec {
    pub axis: Axis,
    pub factors: Vec<f64>,
}

impl SweepSpec {
    /// Checks `factors`; an error names the axis's factors (`compute factors: ...`).
    pub fn new(axis: Axis, factors: Vec<f64>) -> Result<SweepSpec> {
        let what = format!("{} factors", axis.name());
        if factors.is_empty() {
            return Err(Error::Scenario(format!(
                "{what}: give at least one factor, e.g. 1,2,4,8"
            )));
        }
        if factors.len() > MAX_FACTORS {
            return Err(Error::Scenario(format!(
                "{what}: at most {MAX_FACTORS} factors, got {}",
                factors.len()
            )));
        }
        for (i, &f) in factors.iter().enumerate() {
            if !(f.is_finite() && f > 0.0) {
                return Err(Error::Scenario(format!(
                    "{what}: factor {} is {f}; every factor must be a finite number > 0",
                    i + 1
                )));
            }
            if factors[..i].contains(&f) {
                return Err(Error::Scenario(format!(
                    "{what}: factor {f} is given twice"
                )));
            }
        }
        Ok(SweepSpec { axis, factors })
    }

    /// Factors written `1,2,4,8` (spaces allowed).
    pub fn parse(axis: Axis, text: &str) -> Result<SweepSpec> {
        let factors = text
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(|t| {
                t.parse::<f64>().map_err(|_| {
                    Error::Scenario(format!(
                        "{} factors: '{t}' is not a number (factors are comma separated, e.g. 1,2,4,8)",
                        axis.name()
                    ))
                })
            })
            .collect::<Result<Vec<f64>>>()?;
        SweepSpec::new(axis, factors)
    }

    /// The scenario at factor `f`: `base` with its what-if scale on the axis multiplied by `f`.
    pub fn scenario_at(&self, base: &Scenario, f: f64) -> Scenario {
        let mut s = base.clone();
        match self.axis {
            Axis::Compute => s.what_if.compute *= f,
            Axis::Bandwidth => s.what_if.bandwidth *= f,
            Axis::Latency => s.what_if.latency *= f,
        }
        s
    }

    /// Every factor's scenario, in the factors' order.
    pub fn scenarios(&self, base: &Scenario) -> Vec<Scenario> {
        self.factors
            .iter()
            .map(|&f| self.scenario_at(base, f))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{ClusterSource, GraphSource};

    fn base() -> Scenario {
        Scenario::new(
            GraphSource::Bundled("g".into()),
            ClusterSource::File("c".into()),
        )
    }

    #[test]
    fn a_factor_multiplies_the_scenarios_own_what_if() {
        let mut halved = base();
        halved.what_if.bandwidth = 0.5;
        let spec = SweepSpec::new(Axis::Bandwidth, vec![1.0, 4.0]).unwrap();
        let at: Vec<f64> = spec
            .scenarios(&halved)
            .iter()
            .map(|s| s.what_if.bandwidth)
            .collect();
        assert_eq!(at, vec![0.5, 2.0]);
        assert_eq!(spec.scenario_at(&base(), 4.0).what_if.compute, 1.0);
        let at = SweepSpec::parse(Axis::Latency, "2")
            .unwrap()
            .scenarios(&base());
        assert_eq!(at[0].what_if.latency, 2.0);
        assert_eq!((at[0].what_if.bandwidth, at[0].what_if.compute), (1.0, 1.0));
    }

    #[test]
    fn bad_factors_name_the_axis() {
        let err = |axis, text: &str| SweepSpec::parse(axis, text).unwrap_err().to_string();
        assert!(err(Axis::Compute, "").contains("compute factors: give at least one factor"));
        assert!(err(Axis::Compute, " , ").contains("compute factors: give at least one factor"));
        assert!(err(Axis::Bandwidth, "1,0").contains("bandwidth factors: factor 2 is 0"));
        assert!(err(Axis::Bandwidth, "-1").contains("bandwidth factors: factor 1 is -1"));
        assert!(err(Axis::Compute, "1,NaN").contains("compute factors: factor 2 is NaN"));
        assert!(err(Axis::Compute, "inf").contains("finite number > 0"));
        assert!(err(Axis::Compute, "1,x").contains("compute factors: 'x' is not a number"));
        assert!(err(Axis::Compute, "2,1,2").contains("compute factors: factor 2 is given twice"));
        let many = vec!["1"; MAX_FACTORS + 1].join(",");
        assert!(err(Axis::Compute, &many).contains("at most 64 factors"));
        assert!(Axis::parse("memory")
            .unwrap_err()
            .to_string()
            .contains("compute, bandwidth or latency"));
        assert!(err(Axis::Latency, "1,0").contains("latency factors: factor 2 is 0"));
        assert!(!err(Axis::Latency, "1,0").contains("--"), "no flag");
    }
}
