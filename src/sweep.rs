//! What-if sweeps, run: a comparison at each factor of a [`SweepSpec`], every pair's
//! makespan against the factor (issue 10).
//!
//! Pesto21 §5.4 (Fig. 8) plots the gain of its plan over the expert placement against the
//! compute speed (Fig. 8a, speeds relative to a V100) and one pair's step time against the
//! interconnect speed (Fig. 8b, 1x = NVLink, 0.1x ~ PCIe). A sweep gives both for any
//! scenario: the `compute` axis multiplies every device speed, the `bandwidth` axis every link
//! bandwidth, the `latency` axis every link latency (`what_if.compute`, `what_if.bandwidth`
//! and `what_if.latency`, [`crate::model::cluster::Cluster::scaled`]).
//!
//! Choices:
//! - What a sweep asks (its axis and checked factors, the scenario at each factor) is the
//!   scenario's: [`crate::scenario::sweep`]. The bandwidth axis leaves latencies as they are
//!   and the latency axis leaves bandwidths (Pesto21 Fig. 8b scales all communication time;
//!   its `b0` and `b1` of §3.1 are the two axes here, so sweep both to see which one matters).
//! - Every factor's comparison is an ordinary one (`compare::run`, or the page's pool and
//!   `compare::merge`), each factor's scenario resolved once: same scenario, seed and draws,
//!   only the cluster scaled; so the points are deterministic, and a factor of 1 gives the
//!   bits of `placesim compare`.
//! - Units (seconds and bytes, or abstract units) are decided once for the whole sweep, from
//!   the first factor's device speeds divided by its compute factor (the unscaled cluster),
//!   the rule of [`crate::units::UnitSystem`]; so a compute sweep never switches units
//!   between its points.
//!
//! Not here: the tables and CSV of a sweep (`report/sweep.rs`).

use serde::{Deserialize, Serialize};

use crate::compare::{self, Comparison, Partial, PlanSummary};
use crate::error::{Error, Result};
use crate::scenario::sweep::{Axis, SweepSpec};
use crate::scenario::{Resolved, Scenario};

/// One pair at one factor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    pub factor: f64,
    pub placer: String,
    pub scheduler: String,
    pub link_order: String,
    /// Makespan over the seeds: mean, sample standard deviation, least and largest.
    pub makespan: f64,
    pub makespan_std: f64,
    pub makespan_min: f64,
    pub makespan_max: f64,
    /// Mean of the seeds' lower bounds at this factor.
    pub lower_bound: f64,
    /// The plan's objective, bound and status, when the placer plans.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<PlanSummary>,
    /// Why the pair has no numbers at this factor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A whole sweep: every pair at every factor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sweep {
    pub axis: Axis,
    pub factors: Vec<f64>,
    /// The graph's name.
    pub graph: String,
    /// Seconds and bytes (true) or abstract units (false), for the whole sweep.
    pub physical: bool,
    /// Factor by factor (in the factors' order), each factor's pairs in the comparison's
    /// row order.
    pub points: Vec<SweepPoint>,
}

impl Sweep {
    /// The sweep of `spec` from its factors' comparisons (one per factor, in order).
    pub fn of(spec: &SweepSpec, comparisons: &[Comparison]) -> Result<Sweep> {
        if comparisons.len() != spec.factors.len() {
            return Err(Error::Scenario(format!(
                "a sweep of {} factors got {} comparisons",
                spec.factors.len(),
                comparisons.len()
            )));
        }
        let first = &comparisons[0];
        let scale = match spec.axis {
            Axis::Compute => spec.factors[0],
            Axis::Bandwidth | Axis::Latency => 1.0,
        };
        let fastest = first
            .results
            .iter()
            .flat_map(|r| &r.devices)
            .map(|d| d.speed / scale)
            .fold(0.0, f64::max);
        let points = spec
            .factors
            .iter()
            .zip(comparisons)
            .flat_map(|(&factor, c)| {
                c.results.iter().map(move |r| SweepPoint {
                    factor,
                    placer: r.placer.clone(),
                    scheduler: r.scheduler.clone(),
                    link_order: r.link_order.clone(),
                    makespan: r.makespan,
                    makespan_std: r.makespan_std,
                    makespan_min: r.makespan_min,
                    makespan_max: r.makespan_max,
                    lower_bound: r.lower_bound,
                    plan: r.plan.clone(),
                    error: r.error.clone(),
                })
            })
            .collect();
        Ok(Sweep {
            axis: spec.axis,
            factors: spec.factors.clone(),
            graph: first.graph.name.clone(),
            physical: crate::units::UnitSystem::of_speeds([fastest]).physical,
            points,
        })
    }
}

/// Every factor's scenario, resolved (all before any runs, so a bad scenario is an error
/// before anything runs).
fn resolved(base: &Scenario, spec: &SweepSpec) -> Result<Vec<Resolved>> {
    spec.scenarios(base)
        .into_iter()
        .map(Scenario::into_resolved)
        .collect()
}

/// Runs a sweep: `one(i, resolved)` runs factor `i`'s comparison (the CLI spreads it over
/// threads with `compare::run_parallel`; `compare::run` runs it on one).
pub fn run(
    base: &Scenario,
    spec: &SweepSpec,
    mut one: impl FnMut(usize, &Resolved) -> Result<Comparison>,
) -> Result<Sweep> {
    let comparisons = resolved(base, spec)?
        .iter()
        .enumerate()
        .map(|(i, r)| one(i, r))
        .collect::<Result<Vec<_>>>()?;
    Sweep::of(spec, &comparisons)
}

/// The sweep from each factor's partial comparisons (the page's pool of workers runs every
/// factor's work items; `parts[i]` are factor `i`'s), merged as `compare::merge` merges one
/// comparison: the bits of [`run`].
pub fn merge(base: &Scenario, spec: &SweepSpec, parts: &[Vec<Partial>]) -> Result<Sweep> {
    if parts.len() != spec.factors.len() {
        return Err(Error::Scenario(format!(
            "a sweep of {} factors got parts of {}",
            spec.factors.len(),
            parts.len()
        )));
    }
    let comparisons = resolved(base, spec)?
        .iter()
        .zip(parts)
        .map(|(r, p)| compare::merge(r, p))
        .collect::<Result<Vec<_>>>()?;
    Sweep::of(spec, &comparisons)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{ClusterSource, GraphSource};
    use crate::testutil;

    fn sweep_of(graph: &str, cluster: &str, placer: &str, spec: &SweepSpec) -> Sweep {
        let g = testutil::graph(graph);
        let c = testutil::cluster(cluster);
        let mut s = Scenario::new(
            GraphSource::Bundled("g".into()),
            ClusterSource::Inline(serde_json::from_str(cluster).unwrap()),
        );
        s.placers = vec![placer.into()];
        s.schedulers = vec!["fifo".into()];
        run(&s, spec, |_, r| {
            compare::run(r, &g, Some(&c), &mut |_, _| true)
        })
        .unwrap()
    }

    fn makespans(s: &Sweep) -> Vec<f64> {
        s.points.iter().map(|p| p.makespan).collect()
    }

    #[test]
    fn twice_the_compute_halves_a_chain_on_one_device() {
        // a -> b -> c, work 2 + 4 + 3 = 9 on one device of speed 1: 9 / f exactly for
        // powers of two.
        let spec = SweepSpec::parse(Axis::Compute, "1, 2,4,8").unwrap();
        let s = sweep_of(
            r#"{"nodes":[{"id":"a","cost":2},{"id":"b","cost":4},{"id":"c","cost":3}],
                "edges":[{"src":"a","dst":"b","bytes":5},{"src":"b","dst":"c","bytes":5}]}"#,
            r#"{"devices":[{"id":"x","speed":1}],"bandwidth":1}"#,
            "single",
            &spec,
        );
        assert_eq!(makespans(&s), vec![9.0, 4.5, 2.25, 1.125]);
        assert_eq!(s.factors, vec![1.0, 2.0, 4.0, 8.0]);
        assert!(s
            .points
            .iter()
            .all(|p| p.placer == "single" && p.plan.is_none()));
        assert!(!s.physical, "speed 1 is abstract units");
    }

    /// a (2) on x, 8 bytes over a link of bandwidth 2 and latency `l`, b (4) on y: the
    /// makespan is 2 + (l + 8 / bandwidth) + 4. The bandwidth axis moves only the second
    /// term (latency 0: 2 + 8 / (2 f) + 4); the latency axis only the first (latency 3:
    /// 10 + 3 f, each step of the factor adds exactly the latency it adds: 3 -> 6 -> 12).
    #[test]
    fn link_axes_scale_only_their_own_term() {
        for (axis, latency, factors, want) in [
            (Axis::Bandwidth, 0.0, "1,0.5,2", vec![10.0, 14.0, 8.0]),
            (
                Axis::Latency,
                3.0,
                "1,2,4,0.5",
                vec![13.0, 16.0, 22.0, 11.5],
            ),
        ] {
            let spec = SweepSpec::parse(axis, factors).unwrap();
            let s = sweep_of(
                r#"{"nodes":[{"id":"a","cost":2,"device":"x"},{"id":"b","cost":4,"device":"y"}],
                    "edges":[{"src":"a","dst":"b","bytes":8}]}"#,
                &format!(
                    r#"{{"devices":[{{"id":"x","speed":1}},{{"id":"y","speed":1}}],"bandwidth":2,"latency":{latency}}}"#
                ),
                "pinned",
                &spec,
            );
            assert_eq!(makespans(&s), want, "{axis:?}");
        }
    }

    #[test]
    fn merged_parts_give_the_bits_of_a_run() {
        let g = testutil::graph(
            r#"{"nodes":[{"id":"a","cost":2},{"id":"b","cost":4},{"id":"c","cost":3}],
                "edges":[{"src":"a","dst":"b","bytes":3},{"src":"a","dst":"c","bytes":2}]}"#,
        );
        let mut s = Scenario::new(
            GraphSource::Bundled("g".into()),
            ClusterSource::Generate(crate::model::cluster::ClusterGen {
                devices: 3,
                speed: [1.0, 3.0],
                memory: None,
                memory_fraction: None,
                bandwidth: [1.0, 2.0],
                latency: [0.0, 0.0],
                kinds: vec![],
            }),
        );
        s.placers = vec!["heft".into(), "hash".into()];
        s.schedulers = vec!["fifo".into(), "given".into()];
        s.seeds = 3;
        let spec = SweepSpec::parse(Axis::Bandwidth, "1,0.3,0.1").unwrap();
        let whole = run(&s, &spec, |_, r| {
            compare::run(r, &g, None, &mut |_, _| true)
        })
        .unwrap();
        let parts: Vec<Vec<Partial>> = spec
            .scenarios(&s)
            .into_iter()
            .map(|sc| {
                let r = sc.into_resolved().unwrap();
                compare::work_items(&r, 4)
                    .iter()
                    .rev()
                    .map(|it| {
                        compare::run_part(
                            &r,
                            &g,
                            None,
                            std::slice::from_ref(it),
                            &mut compare::SeedCache::default(),
                            &mut |_, _| true,
                        )
                        .unwrap()
                    })
                    .collect()
            })
            .collect();
        assert_eq!(merge(&s, &spec, &parts).unwrap(), whole);
        // heft plans: its rows carry the plan's status; the slower links cost time.
        let heft: Vec<&SweepPoint> = whole.points.iter().filter(|p| p.placer == "heft").collect();
        assert!(heft
            .iter()
            .all(|p| p.plan.as_ref().unwrap().status == "heuristic (no bound)"));
        let hash_fifo: Vec<f64> = whole
            .points
            .iter()
            .filter(|p| p.placer == "hash" && p.scheduler == "fifo")
            .map(|p| p.makespan)
            .collect();
        assert!(hash_fifo[0] <= hash_fifo[1] && hash_fifo[1] <= hash_fifo[2]);
        assert_eq!(whole.points.len(), 3 * 3);
    }
}
