//! Runs a scenario: every placer x scheduler pair x every seed, aggregated.
//!
//! This is the one entry point that both the CLI and the wasm adapter call. For each seed
//! it realizes the cluster and costs, runs each placer once (timing it, and verifying the
//! placement), then simulates that placement under each scheduler. A placer that cannot
//! meet a constraint yields rows with an `error` instead of aborting the comparison.
//!
//! The scenario is resolved first ([`Scenario::resolve`]): strategies, parameters and the
//! pairs that run. A placer returns a [`Plan`]; replaying policies (`given`) get its order.
//! A pair whose placer fails, or whose replay deadlocks, gets a row `error` for that seed.
//!
//! Randomness: placer `p` at seed `i` draws from `derive(seed, ["place", p], i)`, scheduler
//! `s` after placer `p` from `derive(seed, ["schedule", p, s], i)`, link order `o` from
//! `derive(seed, ["link_order", p, s, o], i)`; adding or removing a strategy never changes
//! another's numbers.

use serde::Serialize;

use crate::analysis;
use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::model::cluster::Cluster;
use crate::model::graph::Graph;
use crate::model::problem::Problem;
use crate::place::plan::BoundScope;
use crate::place::{self, PlaceContext, Placement, Plan, SolveReport};
use crate::rng::Rng;
use crate::scenario::{Resolved, Scenario};
use crate::sim::{self, SimOptions, SimResult};

/// Mean, spread and extremes of one number over the seeds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct Stats {
    pub mean: f64,
    /// Sample standard deviation (n - 1); 0 for one seed.
    pub std: f64,
    pub min: f64,
    pub max: f64,
}

impl Stats {
    pub fn of(values: &[f64]) -> Stats {
        if values.is_empty() {
            return Stats::default();
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let var = if values.len() > 1 {
            values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        Stats {
            mean,
            std: var.sqrt(),
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }
    }
}

/// One device's figures for a pair, over the seeds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeviceResult {
    pub id: String,
    pub kind: String,
    /// The device's speed (work per second, after the what-if), mean over the seeds: a
    /// generated cluster draws it per seed; a given cluster's speed is its file's (exactly,
    /// when every seed has the same speed).
    pub speed: f64,
    /// Mean seconds busy.
    pub busy: f64,
    /// Mean busy / makespan.
    pub utilization: f64,
    /// Mean number of ops run.
    pub ops: f64,
    /// Highest peak over the seeds, bytes.
    pub peak_memory: f64,
    /// Capacity in bytes; `null` when unlimited.
    pub memory: Option<f64>,
    /// Whether any seed exceeded the capacity.
    pub oom: bool,
}

/// Mean of one device's per-seed speeds, summed in seed order; the speed itself when
/// every seed has the same one (so that a given cluster's speed comes back exactly, with no
/// rounding from summing and dividing).
pub fn mean_speed(per_seed: &[f64]) -> f64 {
    match per_seed.first() {
        None => 0.0,
        Some(&s) if per_seed.iter().all(|&x| x == s) => s,
        Some(_) => per_seed.iter().sum::<f64>() / per_seed.len() as f64,
    }
}

/// One placer x scheduler pair.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairResult {
    pub placer: String,
    pub scheduler: String,
    /// Mean makespan over the seeds.
    pub makespan: f64,
    pub makespan_std: f64,
    pub makespan_min: f64,
    pub makespan_max: f64,
    /// One per seed that placed, in seed order (see `failed_seeds` for the others).
    pub makespans: Vec<f64>,
    /// Seed indices at which the placer could not meet a constraint; means, std and device
    /// figures cover only the other seeds.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failed_seeds: Vec<u32>,
    /// Mean of the seeds' lower bounds.
    pub lower_bound: f64,
    /// Mean of makespan / lower bound.
    pub gap: f64,
    /// Mean bytes that crossed devices.
    pub traffic_bytes: f64,
    /// Mean number of transfers.
    pub transfers: f64,
    /// Mean seconds the placer took (wall clock; varies between runs).
    pub placement_seconds: f64,
    /// Whether any seed ran out of memory on any device.
    pub oom: bool,
    pub devices: Vec<DeviceResult>,
    /// The placer's own report of its plan, one per seed that placed, when it plans
    /// (objective, bound and what it bounds, status, work done).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub plan_reports: Vec<SolveReport>,
    /// Why the pair has no numbers (a placer that could not meet a constraint, a replay
    /// that deadlocked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GraphSummary {
    pub name: String,
    pub nodes: usize,
    pub edges: usize,
    pub colocation_groups: usize,
}

/// A whole comparison: what `placesim compare --json` prints and the page shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub scenario: Scenario,
    pub graph: GraphSummary,
    /// Critical-path bound and work bound, means over the seeds.
    pub critical_path_bound: f64,
    pub work_bound: f64,
    /// Why some combinations are absent (for example `given` without a planning placer).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    pub results: Vec<PairResult>,
}

/// One pair at one seed, with its full schedule (for timelines and traces).
pub struct RunDetail<'a> {
    pub problem: Problem<'a>,
    pub placement: Placement,
    pub placement_seconds: f64,
    pub lower_bound: f64,
    /// The placer's own report, when it plans.
    pub plan_report: Option<SolveReport>,
    pub sim: SimResult,
}

/// Progress callback: `(done, total)` work units (one per placement and one per
/// simulation; `done` moves by fractions while a long placer reports); return `false` to
/// stop early.
pub type Progress<'a> = &'a mut dyn FnMut(f64, usize) -> bool;

/// Plans with the resolved placer `pi` and checks the result (placement and order):
/// the plan and the wall-clock seconds it took. `progress` hears the placer's fraction done
/// and cancels it by answering `false`.
pub fn place(
    problem: &Problem,
    scenario: &Scenario,
    resolved: &Resolved,
    pi: usize,
    seed_index: u32,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<(Plan, f64)> {
    let placer = &resolved.placers[pi];
    let name = placer.info.name;
    let rng = Rng::derive(scenario.seed, &["place", name], seed_index as u64);
    let mut ctx = PlaceContext::new(rng, progress);
    ctx.wants_order = resolved.pairs.iter().any(|&(p, si)| {
        p == pi && (resolved.schedulers[si].info.needs_plan || resolved.link_order.info.needs_plan)
    });
    let clock = Clock::start();
    let plan = (placer.info.make)().plan(problem, &placer.params, &mut ctx)?;
    let seconds = clock.seconds();
    place::verify(problem, &plan.placement)
        .and_then(|()| plan.check(problem))
        .map_err(|e| Error::placement(name, e.to_string()))?;
    Ok((plan, seconds))
}

/// Simulates a plan under the resolved scheduler `si` and the scenario's link order. A run
/// that leaves ops unrun (a strict replay that deadlocks) is an error naming how many.
pub fn simulate(
    problem: &Problem,
    scenario: &Scenario,
    resolved: &Resolved,
    plan: &Plan,
    (pi, si): (usize, usize),
    seed_index: u32,
    record: bool,
) -> Result<SimResult> {
    let placer = resolved.placers[pi].info.name;
    let sched = &resolved.schedulers[si];
    let order = &resolved.link_order;
    let streams = |what: &str, last: &str| {
        Rng::derive(
            scenario.seed,
            &[what, placer, sched.info.name, last],
            seed_index as u64,
        )
    };
    let mut scheduler = (sched.info.make)(
        &sched.params,
        Rng::derive(
            scenario.seed,
            &["schedule", placer, sched.info.name],
            seed_index as u64,
        ),
    );
    let mut queue = (order.info.make)(&order.params, streams("link_order", order.info.name));
    if let Some(o) = &plan.order {
        scheduler.hint(o);
        queue.hint(o);
    }
    let r = sim::simulate(
        problem,
        &plan.placement,
        scheduler.as_mut(),
        queue.as_mut(),
        SimOptions {
            links: scenario.links,
            record,
        },
    );
    if r.unfinished > 0 {
        return Err(Error::Problem(format!(
            "the replay of placer {placer}'s plan under scheduler {} and link order {} deadlocked: {} of {} ops never ran (a device or link waited for a planned item that could not become ready)",
            sched.info.name,
            order.info.name,
            r.unfinished,
            problem.node_count()
        )));
    }
    Ok(r)
}

/// The lower bound of one seed: the critical-path and work bounds, and the placer's own
/// bound when it proves one on the instance itself.
fn seed_bound(cp: f64, work: f64, report: Option<&SolveReport>) -> f64 {
    let own = report
        .filter(|r| r.bound_of == BoundScope::Instance)
        .and_then(|r| r.bound)
        .unwrap_or(0.0);
    cp.max(work).max(own)
}

/// Realizes seed `seed_index` of a scenario, checking that the scenario has it.
pub fn realize(
    scenario: &Scenario,
    graph: &Graph,
    fixed: Option<&Cluster>,
    seed_index: u32,
) -> Result<crate::scenario::Realization> {
    if seed_index >= scenario.seeds {
        return Err(Error::Scenario(format!(
            "seed index {seed_index} is out of range (the scenario has {} seeds)",
            scenario.seeds
        )));
    }
    scenario.realize(graph, fixed, seed_index)
}

/// Runs one pair at one seed with the full schedule recorded: the one "run a pair" path of
/// the CLI's `run` and the page's timeline. `cluster` and `overrides` are the seed's
/// ([`realize`]).
pub fn run_one<'a>(
    scenario: &Scenario,
    graph: &'a Graph,
    cluster: &'a Cluster,
    overrides: Option<&crate::model::problem::Overrides>,
    placer: &str,
    scheduler: &str,
    seed_index: u32,
) -> Result<RunDetail<'a>> {
    let resolved = scenario.resolve_pair(placer, scheduler)?;
    let problem = Problem::with_overrides(graph, cluster, overrides)?;
    let (plan, placement_seconds) =
        place(&problem, scenario, &resolved, 0, seed_index, &mut |_| true)?;
    let sim = simulate(
        &problem,
        scenario,
        &resolved,
        &plan,
        (0, 0),
        seed_index,
        true,
    )?;
    Ok(RunDetail {
        lower_bound: seed_bound(
            analysis::critical_path_bound(&problem),
            analysis::work_bound(&problem),
            plan.report.as_ref(),
        ),
        problem,
        placement: plan.placement,
        placement_seconds,
        plan_report: plan.report,
        sim,
    })
}

struct Accum {
    makespans: Vec<f64>,
    gaps: Vec<f64>,
    bounds: Vec<f64>,
    traffic: Vec<f64>,
    transfers: Vec<f64>,
    seconds: Vec<f64>,
    busy: Vec<f64>,
    util: Vec<f64>,
    ops: Vec<f64>,
    peak: Vec<f64>,
    oom: Vec<bool>,
    reports: Vec<SolveReport>,
    error: Option<String>,
    failed: Vec<u32>,
}

impl Accum {
    fn new(k: usize) -> Accum {
        Accum {
            makespans: vec![],
            gaps: vec![],
            bounds: vec![],
            traffic: vec![],
            transfers: vec![],
            seconds: vec![],
            busy: vec![0.0; k],
            util: vec![0.0; k],
            ops: vec![0.0; k],
            peak: vec![0.0; k],
            oom: vec![false; k],
            reports: vec![],
            error: None,
            failed: vec![],
        }
    }

    fn fail(&mut self, seed: u32, e: &Error) {
        if self.error.is_none() {
            self.error = Some(format!("seed {seed}: {e}"));
        }
        self.failed.push(seed);
    }

    fn add(&mut self, r: &SimResult, bound: f64, seconds: f64, report: Option<&SolveReport>) {
        self.makespans.push(r.makespan);
        self.gaps
            .push(if bound > 0.0 { r.makespan / bound } else { 1.0 });
        self.bounds.push(bound);
        self.traffic.push(r.traffic_bytes);
        self.transfers
            .push(r.links.iter().map(|l| l.transfers).sum::<usize>() as f64);
        self.seconds.push(seconds);
        self.reports.extend(report.cloned());
        for (d, s) in r.devices.iter().enumerate() {
            self.busy[d] += s.busy;
            self.util[d] += if r.makespan > 0.0 {
                s.busy / r.makespan
            } else {
                0.0
            };
            self.ops[d] += s.ops as f64;
            self.peak[d] = self.peak[d].max(s.peak_memory);
            self.oom[d] |= s.oom;
        }
    }
}

/// Runs every pair of `scenario` over its seeds. `fixed` is the loaded cluster when the
/// scenario does not generate one.
pub fn run(
    scenario: &Scenario,
    graph: &Graph,
    fixed: Option<&Cluster>,
    progress: Progress,
) -> Result<Comparison> {
    let resolved = scenario.resolve()?;
    let pairs = &resolved.pairs;
    let mut used: Vec<usize> = pairs.iter().map(|p| p.0).collect();
    used.dedup();
    let total = scenario.seeds as usize * (used.len() + pairs.len());
    let mut done = 0usize;
    let mut acc: Vec<Accum> = Vec::with_capacity(pairs.len());
    let mut device_info: Vec<(String, String, Option<f64>)> = Vec::new();
    // speeds[d][i]: device d's speed at seed i (what-if applied).
    let mut speeds: Vec<Vec<f64>> = Vec::new();
    let mut cp_bounds = Vec::new();
    let mut work_bounds = Vec::new();

    for i in 0..scenario.seeds {
        let real = scenario.realize(graph, fixed, i)?;
        let problem = Problem::with_overrides(graph, &real.cluster, real.overrides.as_ref())?;
        let k = problem.device_count();
        if i == 0 {
            device_info = real
                .cluster
                .devices
                .iter()
                .map(|d| {
                    (
                        d.id.clone(),
                        d.kind.clone(),
                        d.memory.is_finite().then_some(d.memory),
                    )
                })
                .collect();
            speeds = vec![Vec::with_capacity(scenario.seeds as usize); k];
            acc = pairs.iter().map(|_| Accum::new(k)).collect();
        }
        if real.cluster.devices.len() != speeds.len() {
            return Err(Error::Scenario(format!(
                "seed {i} realized {} devices, seed 0 realized {}",
                real.cluster.devices.len(),
                speeds.len()
            )));
        }
        for (d, dev) in real.cluster.devices.iter().enumerate() {
            speeds[d].push(dev.speed);
        }
        let cp = analysis::critical_path_bound(&problem);
        let wb = analysis::work_bound(&problem);
        cp_bounds.push(cp);
        work_bounds.push(wb);
        for &pi in &used {
            let base = done as f64;
            let placed = place(&problem, scenario, &resolved, pi, i, &mut |f| {
                progress(base + f, total)
            });
            if let Err(Error::Cancelled) = placed {
                return Err(Error::Cancelled);
            }
            done += 1;
            if !progress(done as f64, total) {
                return Err(Error::Cancelled);
            }
            for (a, &pair) in acc.iter_mut().zip(pairs).filter(|(_, p)| p.0 == pi) {
                match &placed {
                    Err(e) => a.fail(i, e),
                    Ok((plan, seconds)) => {
                        match simulate(&problem, scenario, &resolved, plan, pair, i, false) {
                            Ok(r) => a.add(
                                &r,
                                seed_bound(cp, wb, plan.report.as_ref()),
                                *seconds,
                                plan.report.as_ref(),
                            ),
                            Err(e) => a.fail(i, &e),
                        }
                    }
                }
                done += 1;
                if !progress(done as f64, total) {
                    return Err(Error::Cancelled);
                }
            }
        }
    }

    let mean = |v: &[f64]| Stats::of(v).mean;
    let mut results = Vec::with_capacity(pairs.len());
    for (a, &(pi, si)) in acc.iter().zip(pairs) {
        let runs = a.makespans.len().max(1) as f64;
        let m = Stats::of(&a.makespans);
        let error = if a.makespans.len() < scenario.seeds as usize {
            a.error.clone()
        } else {
            None
        };
        results.push(PairResult {
            placer: resolved.placers[pi].info.name.to_string(),
            scheduler: resolved.schedulers[si].info.name.to_string(),
            makespan: m.mean,
            makespan_std: m.std,
            makespan_min: m.min,
            makespan_max: m.max,
            makespans: a.makespans.clone(),
            lower_bound: mean(&a.bounds),
            gap: mean(&a.gaps),
            traffic_bytes: mean(&a.traffic),
            transfers: mean(&a.transfers),
            placement_seconds: mean(&a.seconds),
            oom: a.oom.iter().any(|&o| o),
            devices: device_info
                .iter()
                .enumerate()
                .map(|(d, (id, kind, memory))| DeviceResult {
                    id: id.clone(),
                    kind: kind.clone(),
                    speed: mean_speed(&speeds[d]),
                    busy: a.busy[d] / runs,
                    utilization: a.util[d] / runs,
                    ops: a.ops[d] / runs,
                    peak_memory: a.peak[d],
                    memory: *memory,
                    oom: a.oom[d],
                })
                .collect(),
            plan_reports: a.reports.clone(),
            error,
            failed_seeds: a.failed.clone(),
        });
    }
    Ok(Comparison {
        scenario: scenario.clone(),
        graph: GraphSummary {
            name: graph.name.clone(),
            nodes: graph.node_count(),
            edges: graph.edge_count(),
            colocation_groups: graph.groups.len(),
        },
        critical_path_bound: mean(&cp_bounds),
        work_bound: mean(&work_bounds),
        notes: resolved.notes,
        results,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cluster::ClusterGen;
    use crate::scenario::{ClusterSource, GraphSource, WhatIf};
    use crate::testutil;
    use std::collections::BTreeMap;

    const GRAPH: &str = r#"{"nodes":[{"id":"a","cost":2},{"id":"b","cost":4},{"id":"c","cost":3}],
        "edges":[{"src":"a","dst":"b","bytes":3},{"src":"a","dst":"c","bytes":2}]}"#;

    fn scenario(cluster: ClusterSource, seeds: u32) -> Scenario {
        let mut s = Scenario::new(GraphSource::Bundled("g".into()), cluster);
        s.placers = vec!["single".into(), "hash".into()];
        s.schedulers = vec!["fifo".into()];
        s.seeds = seeds;
        s.seed = 7;
        s
    }

    fn speeds_of(c: &Comparison) -> Vec<Vec<f64>> {
        c.results
            .iter()
            .map(|r| r.devices.iter().map(|d| d.speed).collect())
            .collect()
    }

    #[test]
    fn a_given_clusters_device_speed_is_the_files_exactly() {
        let g = testutil::graph(GRAPH);
        // 0.1 summed three times and divided by 3 is 0.10000000000000002: the mean of equal
        // speeds must be the speed itself.
        let text = r#"{"devices":[{"id":"x","speed":0.1},{"id":"y","kind":"cpu","speed":4}],"bandwidth":2}"#;
        let c = testutil::cluster(text);
        let s = scenario(
            ClusterSource::Inline(serde_json::from_str(text).unwrap()),
            3,
        );
        let r = run(&s, &g, Some(&c), &mut |_, _| true).unwrap();
        for row in speeds_of(&r) {
            assert_eq!(row, vec![0.1, 4.0]);
        }
        // After the what-if: the scale multiplies, a set speed replaces (applied after it).
        let mut s = s;
        s.what_if = WhatIf {
            compute: 2.0,
            bandwidth: 1.0,
            speeds: BTreeMap::from([("y".to_string(), 7.5)]),
        };
        let r = run(&s, &g, Some(&c), &mut |_, _| true).unwrap();
        for row in speeds_of(&r) {
            assert_eq!(row, vec![0.2, 7.5]);
        }
        // The JSON row names it, after id and kind.
        let json = serde_json::to_string(&r.results[0].devices[0]).unwrap();
        assert!(
            json.starts_with(r#"{"id":"x","kind":"gpu","speed":0.2,"busy":"#),
            "{json}"
        );
    }

    #[test]
    fn a_generated_clusters_device_speed_is_the_mean_of_its_seeds_draws() {
        let g = testutil::graph(GRAPH);
        let spec = ClusterGen {
            devices: 4,
            speed: [10.0, 100.0],
            memory: None,
            memory_fraction: None,
            bandwidth: [10.0, 60.0],
            latency: [0.0, 0.0],
            kinds: vec![],
        };
        let mut s = scenario(ClusterSource::Generate(spec), 5);
        let check = |s: &Scenario| -> Vec<f64> {
            let r = run(s, &g, None, &mut |_, _| true).unwrap();
            // Independently: realize every seed and average each device's speed.
            let drawn: Vec<Vec<f64>> = (0..s.seeds)
                .map(|i| {
                    let real = s.realize(&g, None, i).unwrap();
                    real.cluster.devices.iter().map(|d| d.speed).collect()
                })
                .collect();
            let want: Vec<f64> = (0..4)
                .map(|d| drawn.iter().map(|seed| seed[d]).sum::<f64>() / s.seeds as f64)
                .collect();
            for row in speeds_of(&r) {
                assert_eq!(row, want);
            }
            let ids: Vec<&str> = r.results[0].devices.iter().map(|d| d.id.as_str()).collect();
            assert_eq!(ids, ["d0", "d1", "d2", "d3"]);
            // The seeds draw different speeds, so the mean is not any one seed's.
            assert!(drawn.iter().any(|seed| seed[0] != drawn[0][0]));
            want
        };
        let base = check(&s);
        for &v in &base {
            assert!((10.0..=100.0).contains(&v), "{v}");
        }
        // A set speed replaces the device's draw in every seed; the others keep theirs.
        s.what_if.speeds.insert("d2".into(), 33.25);
        let set = check(&s);
        assert_eq!(set[2], 33.25);
        assert_eq!([set[0], set[1], set[3]], [base[0], base[1], base[3]]);
    }

    /// A plan whose strict replay deadlocks (b planned before a on d0, but a feeds b and c) is a
    /// row error naming the deadlock, never a hang; the work-conserving replay runs it.
    #[test]
    fn a_deadlocking_replay_is_an_error_that_says_so() {
        let g = testutil::graph(GRAPH);
        let c = Cluster::uniform(&[1.0, 1.0], 1.0, 0.0);
        let p = Problem::new(&g, &c).unwrap();
        let mut s = scenario(ClusterSource::File("c".into()), 1);
        s.placers = vec!["heft".into()];
        s.schedulers = vec!["given".into()];
        let plan = Plan {
            placement: vec![0, 0, 1],
            order: Some(place::Order {
                priority: vec![0.0; 3],
                sequences: Some(vec![vec![1, 0], vec![2]]),
                transfers: None,
            }),
            report: None,
        };
        plan.check(&p).unwrap();
        let e = simulate(&p, &s, &s.resolve().unwrap(), &plan, (0, 0), 0, false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("deadlocked: 3 of 3 ops never ran"), "{e}");
        s.params.insert("given.work_conserving".into(), 1.0);
        let r = simulate(&p, &s, &s.resolve().unwrap(), &plan, (0, 0), 0, false).unwrap();
        assert_eq!(r.unfinished, 0);
    }

    /// Cancelling stops a comparison with `Error::Cancelled` (not a row error), also while a
    /// placer runs; `heft x given` reports HEFT's plan and its makespan is the plan's.
    #[test]
    fn cancel_stops_the_run_and_plans_are_reported() {
        let g = testutil::graph(GRAPH);
        let text = r#"{"devices":[{"id":"x","speed":1},{"id":"y","speed":2}],"bandwidth":2}"#;
        let c = testutil::cluster(text);
        let mut s = scenario(ClusterSource::File("c".into()), 2);
        s.placers = vec!["hash".into(), "heft".into()];
        s.schedulers = vec!["fifo".into(), "given".into()];
        let mut calls = 0;
        let e = run(&s, &g, Some(&c), &mut |_, _| {
            calls += 1;
            calls < 3
        })
        .unwrap_err();
        assert_eq!(e, Error::Cancelled);
        let mut seen = Vec::new();
        let r = run(&s, &g, Some(&c), &mut |done, total| {
            seen.push((done, total));
            true
        })
        .unwrap();
        // 2 seeds x (2 placements + 3 pairs) steps, counted up to the total.
        assert_eq!(seen.last(), Some(&(10.0, 10)));
        let pairs: Vec<(&str, &str)> = r
            .results
            .iter()
            .map(|x| (x.placer.as_str(), x.scheduler.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [("hash", "fifo"), ("heft", "fifo"), ("heft", "given")]
        );
        assert_eq!(r.notes.len(), 1);
        let given = &r.results[2];
        assert_eq!(given.plan_reports.len(), 2);
        for (m, rep) in given.makespans.iter().zip(&given.plan_reports) {
            assert_eq!(*m, rep.objective);
        }
        assert!(r.results[0].plan_reports.is_empty());
    }

    #[test]
    fn mean_speed_of_equal_and_unequal_draws() {
        assert_eq!(mean_speed(&[0.1, 0.1, 0.1]), 0.1);
        assert_eq!(mean_speed(&[1.0, 2.0, 6.0]), 3.0);
        assert_eq!(mean_speed(&[]), 0.0);
    }

    #[test]
    fn a_placer_failing_on_some_seeds_reports_which() {
        // a's output (1..100 bytes, redrawn per seed) must fit a 50-byte device: it does at
        // some seeds and not at others.
        let g = Graph::from_json(
            r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1}],"edges":[{"src":"a","dst":"b","bytes":1}]}"#,
            "g",
        )
        .unwrap();
        let c = Cluster::from_json(
            r#"{"devices":[{"id":"d","speed":1,"memory":50}],"bandwidth":1}"#,
            "c",
        )
        .unwrap();
        let mut s = Scenario::from_json(
            r#"{"graph":{"bundled":"g"},"cluster":{"file":"c"},"randomize":{"bytes":[1,100]},
                "placers":["single"],"schedulers":["fifo"],"seeds":10,"seed":3}"#,
        )
        .unwrap();
        s.graph = crate::scenario::GraphSource::Bundled("g".into());
        s.cluster = crate::scenario::ClusterSource::File("c".into());
        let r = &run(&s, &g, Some(&c), &mut |_, _| true).unwrap().results[0];
        assert!(
            !r.failed_seeds.is_empty() && !r.makespans.is_empty(),
            "{r:?}"
        );
        assert_eq!(r.makespans.len() + r.failed_seeds.len(), 10);
        assert!(r
            .error
            .as_deref()
            .unwrap()
            .contains(&format!("seed {}", r.failed_seeds[0])));
        // Which seeds fail follows from the redrawn sizes alone.
        for i in 0..10 {
            let real = s.realize(&g, Some(&c), i).unwrap();
            let too_big = real.overrides.unwrap().tensor_bytes[0] > 50.0;
            assert_eq!(r.failed_seeds.contains(&i), too_big, "seed {i}");
        }
    }
}
