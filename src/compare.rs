//! Runs a scenario: every placer x scheduler pair x every seed, aggregated.
//!
//! This is the one entry point that both the CLI and the wasm adapter call. For each seed
//! it realizes the cluster and costs, runs each placer once (timing it, and verifying the
//! placement), then simulates that placement under each scheduler. A placer that cannot
//! meet a constraint yields rows with an `error` instead of aborting the comparison.
//!
//! The scenario is resolved once, by the caller ([`Scenario::resolve`]): strategies,
//! parameters and the pairs that run; every entry point takes the [`Resolved`] scenario. A
//! placer returns a [`Plan`]; replaying policies (`given`) get its order.
//! A pair whose placer fails, or whose replay deadlocks, gets a row `error` for that seed.
//!
//! Randomness: placer `p` at seed `i` draws from `derive(seed, ["place", p], i)`; the
//! scheduler and link order of each pair draw from the streams [`Pair::streams`] names
//! (`["schedule", p, s]` and `["link_order", p, s, o]`), the same streams a planning
//! placer's decoder uses for its pair `p x given`; adding or removing a strategy never
//! changes another's numbers. Every pair runs through [`crate::pair`].

use serde::{Deserialize, Serialize};

use crate::analysis;
use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::model::cluster::Cluster;
use crate::model::graph::Graph;
use crate::model::problem::Problem;
use crate::pair::Pair;
use crate::place::{self, PlaceContext};
use crate::plan::{BoundScope, Placement, Plan, SolveReport};
use crate::rng::Rng;
use crate::scenario::{Resolved, Scenario};
use crate::sim::{self, SimResult};
use crate::units::UnitSystem;

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

/// The distribution of one number over runs (seeds x iterations): [`Stats`] and the
/// nearest-rank percentiles `x[ceil(q n) - 1]` of the sorted values; `sorted` keeps them
/// all, for a CDF (TicTac19 Fig. 8), where asked.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Distribution {
    pub mean: f64,
    pub std: f64,
    pub min: f64,
    pub max: f64,
    pub p5: f64,
    pub p50: f64,
    pub p95: f64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sorted: Vec<f64>,
}

impl Distribution {
    pub fn of(values: &[f64], keep_sorted: bool) -> Distribution {
        let stats = Stats::of(values);
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        // Nearest rank in integers (a float q * n can land a hair above an integer).
        let pct = |p: usize| {
            let n = sorted.len();
            let rank = (p * n).div_ceil(100).max(1);
            sorted.get(rank - 1).copied().unwrap_or(0.0)
        };
        Distribution {
            mean: stats.mean,
            std: stats.std,
            min: stats.min,
            max: stats.max,
            p5: pct(5),
            p50: pct(50),
            p95: pct(95),
            sorted: if keep_sorted { sorted } else { Vec::new() },
        }
    }
}

/// One worker of a replica's row: TicTac19's Eq. 1-4 over its runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkerOrdering {
    pub id: String,
    /// Mean time the worker finished (from the iteration's start).
    pub time: f64,
    /// Mean Eq. 1 bound (everything sequential).
    pub upper: f64,
    /// Mean Eq. 2 bound (its busiest resource).
    pub lower: f64,
    /// Mean Eq. 3 ordering efficiency; `null` when its bounds coincide.
    pub efficiency: Option<f64>,
    /// Mean Eq. 4 speedup; `null` when it does nothing.
    pub speedup: Option<f64>,
}

/// TicTac19's ordering metrics of a replica's row (§3.1, §6; readings in
/// [`sim::ordering`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OrderingResult {
    pub workers: Vec<WorkerOrdering>,
    /// Mean over the workers of their efficiency (those that have one).
    pub efficiency: Option<f64>,
    /// Mean over the workers of their speedup.
    pub speedup: Option<f64>,
    /// §6.3: the slowest worker's lead over the fastest, as a share of the iteration.
    pub straggler: Distribution,
    /// Mean longest wait of a worker for the iteration's end, as a share of it.
    pub straggler_tail: f64,
    /// Fig. 9: mean iteration time if every worker reached its Eq. 2 bound.
    pub theoretical_best: f64,
    /// Fig. 9: mean iteration time if every worker took its Eq. 1 bound.
    pub theoretical_worst: f64,
    /// Figs. 7 and 8's normalized step time, theoretical best / iteration time (reading A13 of
    /// docs/tictac.md).
    pub normalized: Distribution,
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

/// One placer x scheduler x link order row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairResult {
    pub placer: String,
    pub scheduler: String,
    pub link_order: String,
    /// Mean makespan over the seeds (each seed's the mean of its iterations).
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
    /// Those reports summed up over the seeds ([`PlanSummary::of`]), when the placer plans.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<PlanSummary>,
    /// Why the pair has no numbers (a placer that could not meet a constraint, a replay
    /// that deadlocked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Every iteration of every seed, with the sorted times for a CDF; present when the
    /// scenario runs several iterations or a replica.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iteration_time: Option<Distribution>,
    /// Iterations per time unit, 1 / mean iteration time (with `iteration_time`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throughput: Option<f64>,
    /// TicTac19's ordering metrics (replica scenarios).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ordering: Option<OrderingResult>,
}

/// A planning placer's reports of one row, over its seeds: what the page's rows and a
/// sweep show (docs/pesto.md, reading 5.6).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanSummary {
    /// Mean over the seeds of the makespan the placer predicts for its plan.
    pub objective: f64,
    /// Mean over the seeds of the placer's own bound, when every seed has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound: Option<f64>,
    /// What the bound bounds: the seeds' common scope (`none` when they differ).
    pub bound_scope: BoundScope,
    /// The weakest seed's claim ([`SolveReport::label`]: never a bare "optimal").
    pub status: String,
    /// That seed's coarse graph size, when it searched a coarsened graph (Pesto21 §3.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coarse_vertices: Option<u32>,
    /// The first seed's convergence history ([`SolveReport::history`]: work, best
    /// objective, best bound at each improvement; a few dozen points at most).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<crate::plan::Improvement>,
}

impl PlanSummary {
    /// The summary of a row's reports (seed order); `None` when the placer reported none.
    pub fn of(reports: &[SolveReport]) -> Option<PlanSummary> {
        let first = reports.first()?;
        let n = reports.len() as f64;
        let bounds: Option<Vec<f64>> = reports.iter().map(|r| r.bound).collect();
        let scope = if reports.iter().all(|r| r.bound_of == first.bound_of) {
            first.bound_of
        } else {
            BoundScope::None
        };
        let weakest = reports
            .iter()
            .min_by_key(|r| r.strength())
            .expect("reports is not empty");
        Some(PlanSummary {
            objective: reports.iter().map(|r| r.objective).sum::<f64>() / n,
            bound: bounds
                .filter(|_| scope != BoundScope::None)
                .map(|b| b.iter().sum::<f64>() / n),
            bound_scope: scope,
            status: weakest.label(),
            coarse_vertices: weakest.coarse_vertices,
            history: first.history.clone(),
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

impl Comparison {
    /// How its numbers read, from its devices' speeds ([`UnitSystem::of_speeds`]).
    pub fn units(&self) -> UnitSystem {
        UnitSystem::of_speeds(
            self.results
                .iter()
                .flat_map(|r| &r.devices)
                .map(|d| d.speed),
        )
    }
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
    ctx.wants_order = resolved.pairs.iter().any(|&(p, si, oi)| {
        p == pi
            && (resolved.schedulers[si].info.needs_plan || resolved.link_orders[oi].info.needs_plan)
    });
    // A placer plans once for every row of its pairs: it decodes with the scenario's first
    // link order (a planning placer's objective is that row's makespan).
    let order = &resolved.link_orders[0];
    ctx.pair = Pair::replay(
        name,
        &scenario.params,
        (order.info, order.params.clone()),
        scenario.links,
        (scenario.seed, seed_index),
    )?;
    let clock = Clock::start();
    let plan = (placer.info.make)().plan(problem, &placer.params, &mut ctx)?;
    let seconds = clock.seconds();
    place::verify(problem, &plan.placement)
        .and_then(|()| plan.check(problem))
        .map_err(|e| Error::placement(name, e.to_string()))?;
    Ok((plan, seconds))
}

/// Simulates a plan under the resolved scheduler `si` and link order `oi`, once (iteration 0).
/// A run that leaves ops unrun (a strict replay that deadlocks) is an error naming how many.
pub fn simulate(
    problem: &Problem,
    scenario: &Scenario,
    resolved: &Resolved,
    plan: &Plan,
    pair: (usize, usize, usize),
    seed_index: u32,
    record: bool,
) -> Result<SimResult> {
    let mut first = None;
    iterate(
        problem,
        scenario,
        resolved,
        plan,
        pair,
        seed_index,
        (1, record),
        &mut |_, r| {
            first = Some(r);
            true
        },
    )?;
    first.ok_or(Error::Cancelled)
}

/// The pair `(pi, si, oi)` of a resolved scenario at seed `seed_index` ([`Pair`]).
pub fn pair(
    scenario: &Scenario,
    resolved: &Resolved,
    (pi, si, oi): (usize, usize, usize),
    seed_index: u32,
) -> Pair {
    let sched = &resolved.schedulers[si];
    let order = &resolved.link_orders[oi];
    Pair::new(
        resolved.placers[pi].info.name,
        (sched.info, sched.params.clone()),
        (order.info, order.params.clone()),
        scenario.links,
        (scenario.seed, seed_index),
    )
}

/// Simulates a plan `iterations` times (`(iterations, record)`) under its pair, handing each
/// run to `each` (answering `false` cancels): [`Pair::iterate`].
#[allow(clippy::too_many_arguments)]
pub fn iterate(
    problem: &Problem,
    scenario: &Scenario,
    resolved: &Resolved,
    plan: &Plan,
    pair_ix: (usize, usize, usize),
    seed_index: u32,
    runs: (u32, bool),
    each: &mut dyn FnMut(u32, SimResult) -> bool,
) -> Result<()> {
    pair(scenario, resolved, pair_ix, seed_index).iterate(
        problem,
        &plan.placement,
        plan.order.as_ref(),
        runs,
        each,
    )
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
    let mut real = scenario.realize(graph, fixed, seed_index)?;
    // A replica's balance sets its server-worker bandwidths here, so that every path that
    // runs a seed (a comparison, the CLI's `run`, the page's timeline) runs the same cluster.
    if let Some(r) = &scenario.replica {
        balance_replica(r, graph, &mut real.cluster)?;
    }
    Ok(real)
}

/// The cost model of one seed: the seed's cluster and costs ([`realize`]) with the
/// scenario's footprint rule. Every path that places a seed builds its problem here.
pub fn problem<'a>(
    scenario: &Scenario,
    graph: &'a Graph,
    cluster: &'a Cluster,
    overrides: Option<&crate::model::problem::Overrides>,
) -> Result<Problem<'a>> {
    let mut problem = Problem::with_overrides(graph, cluster, overrides)?;
    problem.set_footprint(scenario.footprint);
    Ok(problem)
}

/// Runs one pair at one seed with the full schedule recorded: the one "run a pair" path of
/// the CLI's `run` and the page's timeline. `cluster` and `overrides` are the seed's
/// ([`realize`]).
pub fn run_one<'a>(
    scenario: &Scenario,
    graph: &'a Graph,
    cluster: &'a Cluster,
    overrides: Option<&crate::model::problem::Overrides>,
    (placer, scheduler, link_order): (&str, &str, Option<&str>),
    seed_index: u32,
) -> Result<RunDetail<'a>> {
    let resolved = scenario.resolve_pair(placer, scheduler, link_order)?;
    let problem = problem(scenario, graph, cluster, overrides)?;
    let (plan, placement_seconds) =
        place(&problem, scenario, &resolved, 0, seed_index, &mut |_| true)?;
    let sim = simulate(
        &problem,
        scenario,
        &resolved,
        &plan,
        (0, 0, 0),
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

/// One unit of work of a comparison: seed index `seed` with the resolved placers `placers`
/// (indices into [`Resolved::placers`], ascending), each placed once and simulated under its
/// pairs. A comparison is a list of these ([`work_items`]); any split of the list over
/// threads or workers merges ([`merge`]) into the same bits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkItem {
    pub seed: u32,
    pub placers: Vec<usize>,
}

/// The placers that appear in the scenario's pairs, in pair order.
fn used_placers(resolved: &Resolved) -> Vec<usize> {
    let mut used: Vec<usize> = resolved.pairs.iter().map(|p| p.0).collect();
    used.dedup();
    used
}

/// The work items of a scenario for `workers` threads or workers: one per seed (every
/// placer) when there are at least four seeds per worker, otherwise one per seed and
/// placer, so that a comparison of few seeds still spreads. The order is the merge order
/// (seed, then placer), and the split never changes a result.
pub fn work_items(resolved: &Resolved, workers: usize) -> Vec<WorkItem> {
    let scenario = resolved.scenario();
    let used = used_placers(resolved);
    let per_seed = workers <= 1 || scenario.seeds as usize >= 4 * workers || used.len() <= 1;
    let mut items = Vec::new();
    for seed in 0..scenario.seeds {
        if per_seed {
            items.push(WorkItem {
                seed,
                placers: used.clone(),
            });
        } else {
            items.extend(used.iter().map(|&p| WorkItem {
                seed,
                placers: vec![p],
            }));
        }
    }
    items
}

/// A scenario's work for `workers`: its items ([`work_items`]), the progress units of each
/// ([`item_units`]) and their total, for a pool that hands items out and sums progress.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkPlan {
    pub items: Vec<WorkItem>,
    pub units: Vec<usize>,
    pub total: usize,
    /// Each item's placers' names, joined by `,`: what a pool knows an item by from one run
    /// to the next, whose time a what-if or another seed changes little (the page's
    /// longest-first order).
    pub keys: Vec<String>,
}

/// The [`WorkPlan`] of a scenario for `workers`.
pub fn work_plan(resolved: &Resolved, workers: usize) -> WorkPlan {
    let items = work_items(resolved, workers);
    let units: Vec<usize> = items.iter().map(|it| item_units(resolved, it)).collect();
    let keys = items
        .iter()
        .map(|it| {
            let names: Vec<&str> = it
                .placers
                .iter()
                .map(|&p| resolved.placers[p].info.name)
                .collect();
            names.join(",")
        })
        .collect();
    WorkPlan {
        total: units.iter().sum(),
        items,
        units,
        keys,
    }
}

/// Progress units of an item: one per placement and one per simulation.
pub fn item_units(resolved: &Resolved, item: &WorkItem) -> usize {
    item.placers
        .iter()
        .map(|&pi| 1 + resolved.pairs.iter().filter(|p| p.0 == pi).count())
        .sum()
}

/// One device of one seed, as realized (what-if applied).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeedDevice {
    pub id: String,
    pub kind: String,
    pub speed: f64,
    /// `None` when unlimited.
    pub memory: Option<f64>,
}

/// One device's figures in one simulation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceSample {
    pub busy: f64,
    pub utilization: f64,
    pub ops: f64,
    pub peak_memory: f64,
    pub oom: bool,
}

/// One pair at one seed, reduced to what a comparison aggregates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairSample {
    pub makespan: f64,
    pub lower_bound: f64,
    pub traffic_bytes: f64,
    pub transfers: f64,
    pub placement_seconds: f64,
    pub report: Option<SolveReport>,
    /// Iteration 0's devices.
    pub devices: Vec<DeviceSample>,
    /// Every iteration's time, in order (`makespan` is their mean).
    pub iterations: Vec<f64>,
    /// Every iteration's worker times, in order (replica scenarios).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ordering: Vec<sim::ordering::IterationTimes>,
}

/// One placer at one seed: per pair of that placer (in pair order), its sample or the
/// row error (a placer that could not meet a constraint, a replay that deadlocked).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlacerSample {
    pub placer: usize,
    pub pairs: Vec<std::result::Result<PairSample, Error>>,
}

/// What one seed of an item produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeedSample {
    pub devices: Vec<SeedDevice>,
    pub critical_path_bound: f64,
    pub work_bound: f64,
    pub placers: Vec<PlacerSample>,
}

/// The result of one work item: its seed's sample, or the error that stopped the seed
/// (a scenario that cannot realize it). Kept as a value so that the merge reports the
/// error of the first seed, whichever item finished first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemResult {
    pub item: WorkItem,
    pub outcome: std::result::Result<SeedSample, Error>,
}

/// Part of a comparison: the results of some work items, and the graph they ran on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Partial {
    pub graph: GraphSummary,
    pub items: Vec<ItemResult>,
}

fn graph_summary(graph: &Graph) -> GraphSummary {
    GraphSummary {
        name: graph.name.clone(),
        nodes: graph.node_count(),
        edges: graph.edge_count(),
        colocation_groups: graph.groups.len(),
    }
}

/// One seed's realized cluster and cost model, kept between work items of that seed: a pool
/// worker handed one placer of a seed at a time (`work_items` with few seeds) would otherwise
/// build the same `Problem` for every placer, and on a 20k-op graph with 50 devices that
/// build is most of a cheap placer's item. Reusing it changes no bit: the data is what the
/// build computes. Whoever holds a cache clears it when the scenario or graph changes
/// (`wasm::Session::load` makes a new one).
#[derive(Default)]
pub struct SeedCache {
    kept: Option<KeptSeed>,
}

struct KeptSeed {
    seed: u32,
    real: crate::scenario::Realization,
    data: crate::model::problem::ProblemData,
    critical_path: f64,
    work: f64,
}

/// Runs one work item. `progress(done, total)` counts the item's own units
/// ([`item_units`]); answering `false` stops it with `Error::Cancelled`, the only error
/// returned: anything else is in the result.
pub fn run_item(
    resolved: &Resolved,
    graph: &Graph,
    fixed: Option<&Cluster>,
    item: &WorkItem,
    cache: &mut SeedCache,
    progress: Progress,
) -> Result<ItemResult> {
    let outcome = match seed_sample(resolved, graph, fixed, item, cache, progress) {
        Err(Error::Cancelled) => return Err(Error::Cancelled),
        other => other,
    };
    Ok(ItemResult {
        item: item.clone(),
        outcome,
    })
}

fn seed_sample(
    resolved: &Resolved,
    graph: &Graph,
    fixed: Option<&Cluster>,
    item: &WorkItem,
    cache: &mut SeedCache,
    progress: Progress,
) -> Result<SeedSample> {
    let scenario = resolved.scenario();
    let i = item.seed;
    let (real, kept) = match cache.kept.take().filter(|k| k.seed == i) {
        Some(k) => (k.real, Some((k.data, k.critical_path, k.work))),
        None => (realize(scenario, graph, fixed, i)?, None),
    };
    let kept = kept
        .and_then(|(data, cp, wb)| Some((Problem::from_data(graph, &real.cluster, data)?, cp, wb)));
    let (problem, cp, wb) = match kept {
        Some(k) => k,
        None => {
            let p = problem(scenario, graph, &real.cluster, real.overrides.as_ref())?;
            let (cp, wb) = (analysis::critical_path_bound(&p), analysis::work_bound(&p));
            (p, cp, wb)
        }
    };
    if let Some(&p) = item.placers.iter().find(|&&p| p >= resolved.placers.len()) {
        return Err(Error::Scenario(format!(
            "placer index {p} is out of range (the scenario has {} placers)",
            resolved.placers.len()
        )));
    }
    let total = item_units(resolved, item);
    // The cluster is balanced already (realize).
    let workers = match &scenario.replica {
        Some(r) => replica_devices(r, &real.cluster)?.0,
        None => Vec::new(),
    };
    let iterations = scenario.iterations;
    let mut done = 0usize;
    let mut placers = Vec::with_capacity(item.placers.len());
    for &pi in &item.placers {
        let base = done as f64;
        let placed = place(&problem, scenario, resolved, pi, i, &mut |f| {
            progress(base + f, total)
        });
        if let Err(Error::Cancelled) = placed {
            return Err(Error::Cancelled);
        }
        done += 1;
        if !progress(done as f64, total) {
            return Err(Error::Cancelled);
        }
        let mut pairs = Vec::new();
        for &pair in resolved.pairs.iter().filter(|p| p.0 == pi) {
            let outcome = match &placed {
                Err(e) => Err(e.clone()),
                Ok((plan, seconds)) => {
                    let mut first = None;
                    let mut times = Vec::with_capacity(iterations as usize);
                    let mut ordering = Vec::new();
                    let base = done as f64;
                    let ran = iterate(
                        &problem,
                        scenario,
                        resolved,
                        plan,
                        pair,
                        i,
                        (iterations, false),
                        &mut |j, r| {
                            times.push(r.makespan);
                            if !workers.is_empty() {
                                ordering.push(sim::ordering::IterationTimes::of(&r, &workers));
                            }
                            first.get_or_insert(r);
                            // Often enough to move a bar, rarely enough not to flood one.
                            j % 16 != 15
                                || progress(base + (j + 1) as f64 / iterations as f64, total)
                        },
                    );
                    match (ran, first) {
                        (Err(Error::Cancelled), _) => return Err(Error::Cancelled),
                        (Err(e), _) => Err(e),
                        (Ok(()), None) => Err(Error::Cancelled),
                        (Ok(()), Some(r)) => Ok(PairSample {
                            ordering,
                            ..sample(
                                &r,
                                &times,
                                seed_bound(cp, wb, plan.report.as_ref()),
                                *seconds,
                                plan.report.as_ref(),
                            )
                        }),
                    }
                }
            };
            pairs.push(outcome);
            done += 1;
            if !progress(done as f64, total) {
                return Err(Error::Cancelled);
            }
        }
        placers.push(PlacerSample { placer: pi, pairs });
    }
    let devices = real
        .cluster
        .devices
        .iter()
        .map(|d| SeedDevice {
            id: d.id.clone(),
            kind: d.kind.clone(),
            speed: d.speed,
            memory: d.memory.is_finite().then_some(d.memory),
        })
        .collect();
    cache.kept = Some(KeptSeed {
        seed: i,
        data: problem.into_data(),
        real,
        critical_path: cp,
        work: wb,
    });
    Ok(SeedSample {
        devices,
        critical_path_bound: cp,
        work_bound: wb,
        placers,
    })
}

/// Checks that every worker and server of a replica is one of `cluster`'s devices; with
/// `balance`, gives the server-worker links the bandwidth that balances the first worker
/// ([`sim::ordering::balanced_bandwidth`]).
fn balance_replica(
    r: &crate::scenario::Replication,
    graph: &Graph,
    cluster: &mut Cluster,
) -> Result<()> {
    let (workers, servers) = replica_devices(r, cluster)?;
    if let Some(ratio) = r.balance {
        let problem = Problem::new(graph, cluster)?;
        let placement =
            (place::pinned::INFO.make)().place(&problem, &Default::default(), &mut Rng::new(0))?;
        let transfers = sim::transfers_of(&problem, &placement);
        let b =
            sim::ordering::balanced_bandwidth(&problem, &placement, &transfers, workers[0], ratio)?;
        for &w in &workers {
            for &p in &servers {
                cluster.set_bandwidth(p, w, b);
                cluster.set_bandwidth(w, p, b);
            }
        }
    }
    Ok(())
}

/// A replica's worker and server devices in `cluster`; an id that is not one is an error.
#[allow(clippy::type_complexity)]
fn replica_devices(
    r: &crate::scenario::Replication,
    cluster: &Cluster,
) -> Result<(
    Vec<crate::model::cluster::DevIx>,
    Vec<crate::model::cluster::DevIx>,
)> {
    let find = |field: &str, ids: &[String]| {
        ids.iter()
            .map(|id| {
                cluster.device_index(id).ok_or_else(|| {
                    Error::Scenario(format!(
                        "{field}: device '{id}' is not in the cluster (it has {})",
                        cluster
                            .devices
                            .iter()
                            .map(|d| d.id.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()
    };
    let workers = find("replica.workers", &r.workers)?;
    let servers = find("replica.ps", &r.ps)?;
    Ok((workers, servers))
}

/// A pair's sample at one seed: iteration 0's run `r` and every iteration's time.
fn sample(
    r: &SimResult,
    times: &[f64],
    bound: f64,
    seconds: f64,
    report: Option<&SolveReport>,
) -> PairSample {
    PairSample {
        // One iteration's mean is its time exactly (0 + x, divided by 1).
        makespan: Stats::of(times).mean,
        iterations: times.to_vec(),
        ordering: Vec::new(),
        lower_bound: bound,
        traffic_bytes: r.traffic_bytes,
        transfers: r.links.iter().map(|l| l.transfers).sum::<usize>() as f64,
        placement_seconds: seconds,
        report: report.cloned(),
        devices: r
            .devices
            .iter()
            .map(|s| DeviceSample {
                busy: s.busy,
                utilization: if r.makespan > 0.0 {
                    s.busy / r.makespan
                } else {
                    0.0
                },
                ops: s.ops as f64,
                peak_memory: s.peak_memory,
                oom: s.oom,
            })
            .collect(),
    }
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
    iterations: Vec<f64>,
    ordering: Vec<sim::ordering::IterationTimes>,
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
            iterations: vec![],
            ordering: vec![],
        }
    }

    fn fail(&mut self, seed: u32, e: &Error) {
        if self.error.is_none() {
            self.error = Some(format!("seed {seed}: {e}"));
        }
        self.failed.push(seed);
    }

    fn add(&mut self, s: &PairSample) -> Result<()> {
        if s.devices.len() != self.busy.len() {
            return Err(Error::Scenario(format!(
                "a partial comparison has {} devices for a pair, seed 0 has {}",
                s.devices.len(),
                self.busy.len()
            )));
        }
        self.makespans.push(s.makespan);
        self.gaps.push(if s.lower_bound > 0.0 {
            s.makespan / s.lower_bound
        } else {
            1.0
        });
        self.bounds.push(s.lower_bound);
        self.traffic.push(s.traffic_bytes);
        self.transfers.push(s.transfers);
        self.seconds.push(s.placement_seconds);
        self.reports.extend(s.report.clone());
        self.iterations.extend(&s.iterations);
        self.ordering.extend(s.ordering.iter().cloned());
        for (d, x) in s.devices.iter().enumerate() {
            self.busy[d] += x.busy;
            self.util[d] += x.utilization;
            self.ops[d] += x.ops;
            self.peak[d] = self.peak[d].max(x.peak_memory);
            self.oom[d] |= x.oom;
        }
        Ok(())
    }
}

/// TicTac19's metrics over a row's iterations (every seed's, in order); `None` without any.
fn ordering_result(
    runs: &[sim::ordering::IterationTimes],
    ids: &[String],
) -> Option<OrderingResult> {
    if runs.is_empty() {
        return None;
    }
    let mean = |f: &dyn Fn(&sim::ordering::IterationTimes) -> f64| {
        Stats::of(&runs.iter().map(f).collect::<Vec<_>>()).mean
    };
    let mean_of = |v: Vec<f64>| (!v.is_empty()).then(|| Stats::of(&v).mean);
    let workers: Vec<WorkerOrdering> = ids
        .iter()
        .enumerate()
        .map(|(w, id)| {
            let each = runs.iter().filter_map(|r| r.workers.get(w));
            WorkerOrdering {
                id: id.clone(),
                time: mean(&|r| r.workers[w].t),
                upper: mean(&|r| r.workers[w].upper),
                lower: mean(&|r| r.workers[w].lower),
                efficiency: mean_of(each.clone().filter_map(|x| x.efficiency()).collect()),
                speedup: mean_of(each.filter_map(|x| x.speedup()).collect()),
            }
        })
        .collect();
    let normalized: Vec<f64> = runs
        .iter()
        .map(|r| {
            if r.makespan > 0.0 {
                r.best() / r.makespan
            } else {
                1.0
            }
        })
        .collect();
    Some(OrderingResult {
        efficiency: mean_of(workers.iter().filter_map(|w| w.efficiency).collect()),
        speedup: mean_of(workers.iter().filter_map(|w| w.speedup).collect()),
        workers,
        straggler: Distribution::of(
            &runs.iter().map(|r| r.straggler()).collect::<Vec<_>>(),
            false,
        ),
        straggler_tail: mean(&|r| r.straggler_tail()),
        theoretical_best: mean(&|r| r.best()),
        theoretical_worst: mean(&|r| r.worst()),
        normalized: Distribution::of(&normalized, false),
    })
}

/// Merges partial comparisons of a scenario (any split of its [`work_items`], in any order)
/// into the comparison: seeds are folded in seed order and placers in pair order, so the
/// result has the bits of a sequential run. The error of the first seed that could not run
/// is the merge's error; a missing or repeated seed and placer is an error that names it.
pub fn merge(resolved: &Resolved, parts: &[Partial]) -> Result<Comparison> {
    let scenario = resolved.scenario();
    let pairs = &resolved.pairs;
    let used = used_placers(resolved);
    let graph = match parts.first() {
        Some(p) => p.graph.clone(),
        None => return Err(Error::Scenario("no partial comparison to merge".into())),
    };
    if let Some(p) = parts.iter().find(|p| p.graph != graph) {
        return Err(Error::Scenario(format!(
            "partial comparisons of different graphs ('{}' and '{}')",
            graph.name, p.graph.name
        )));
    }
    // slots[i][u]: seed i, the u-th used placer: its seed sample and placer sample.
    let seeds = scenario.seeds as usize;
    let mut slots: Vec<Vec<Option<(&SeedSample, &PlacerSample)>>> =
        vec![vec![None; used.len()]; seeds];
    let mut seed_error: Vec<Option<&Error>> = vec![None; seeds];
    for r in parts.iter().flat_map(|p| &p.items) {
        let i = r.item.seed as usize;
        if i >= seeds {
            return Err(Error::Scenario(format!(
                "a partial comparison has seed index {i}; the scenario has {seeds} seeds"
            )));
        }
        match &r.outcome {
            Err(e) => seed_error[i] = Some(e),
            Ok(s) => {
                for ps in &s.placers {
                    let u = used.iter().position(|&p| p == ps.placer).ok_or_else(|| {
                        Error::Scenario(format!(
                            "a partial comparison has placer index {} that runs no pair",
                            ps.placer
                        ))
                    })?;
                    if ps.pairs.len() != pairs.iter().filter(|p| p.0 == ps.placer).count() {
                        return Err(Error::Scenario(format!(
                            "a partial comparison has {} pairs for placer index {}",
                            ps.pairs.len(),
                            ps.placer
                        )));
                    }
                    if slots[i][u].replace((s, ps)).is_some() {
                        return Err(Error::Scenario(format!(
                            "partial comparisons repeat seed {i} of placer {}",
                            resolved.placers[ps.placer].info.name
                        )));
                    }
                }
            }
        }
    }

    let mut acc: Vec<Accum> = Vec::new();
    let mut device_info: Vec<&SeedDevice> = Vec::new();
    // speeds[d][i]: device d's speed at seed i (what-if applied).
    let mut speeds: Vec<Vec<f64>> = Vec::new();
    let mut cp_bounds = Vec::with_capacity(seeds);
    let mut work_bounds = Vec::with_capacity(seeds);
    for (i, row) in slots.iter().enumerate() {
        if let Some(e) = seed_error[i] {
            return Err(e.clone());
        }
        for (u, slot) in row.iter().enumerate() {
            if slot.is_none() {
                return Err(Error::Scenario(format!(
                    "the partial comparisons miss seed {i} of placer {}",
                    resolved.placers[used[u]].info.name
                )));
            }
        }
        let Some((first, _)) = row.first().copied().flatten() else {
            // A scenario whose pairs use no placer: nothing ran at this seed.
            continue;
        };
        let k = first.devices.len();
        if i == 0 {
            device_info = first.devices.iter().collect();
            speeds = vec![Vec::with_capacity(seeds); k];
            acc = pairs.iter().map(|_| Accum::new(k)).collect();
        }
        if k != speeds.len() {
            return Err(Error::Scenario(format!(
                "seed {i} realized {k} devices, seed 0 realized {}",
                speeds.len()
            )));
        }
        for (d, dev) in first.devices.iter().enumerate() {
            speeds[d].push(dev.speed);
        }
        cp_bounds.push(first.critical_path_bound);
        work_bounds.push(first.work_bound);
        for (_, ps) in row.iter().flatten() {
            let mut samples = ps.pairs.iter();
            for (a, _) in acc.iter_mut().zip(pairs).filter(|(_, p)| p.0 == ps.placer) {
                match samples.next() {
                    Some(Ok(s)) => a.add(s)?,
                    Some(Err(e)) => a.fail(i as u32, e),
                    None => unreachable!("pair counts were checked above"),
                }
            }
        }
    }

    let mean = |v: &[f64]| Stats::of(v).mean;
    let mut results = Vec::with_capacity(pairs.len());
    let with_iterations = scenario.iterations > 1 || scenario.replica.is_some();
    let worker_ids: Vec<String> = scenario
        .replica
        .as_ref()
        .map_or_else(Vec::new, |r| r.workers.clone());
    for (a, &(pi, si, oi)) in acc.iter().zip(pairs) {
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
            link_order: resolved.link_orders[oi].info.name.to_string(),
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
                .map(|(d, dev)| DeviceResult {
                    id: dev.id.clone(),
                    kind: dev.kind.clone(),
                    speed: mean_speed(&speeds[d]),
                    busy: a.busy[d] / runs,
                    utilization: a.util[d] / runs,
                    ops: a.ops[d] / runs,
                    peak_memory: a.peak[d],
                    memory: dev.memory,
                    oom: a.oom[d],
                })
                .collect(),
            plan_reports: a.reports.clone(),
            plan: PlanSummary::of(&a.reports),
            error,
            failed_seeds: a.failed.clone(),
            iteration_time: (with_iterations && !a.iterations.is_empty())
                .then(|| Distribution::of(&a.iterations, true)),
            throughput: (with_iterations && !a.iterations.is_empty())
                .then(|| 1.0 / Stats::of(&a.iterations).mean),
            ordering: ordering_result(&a.ordering, &worker_ids),
        });
    }
    Ok(Comparison {
        scenario: scenario.clone(),
        graph,
        critical_path_bound: mean(&cp_bounds),
        work_bound: mean(&work_bounds),
        notes: resolved.notes.clone(),
        results,
    })
}

/// Runs `items` (some of a scenario's [`work_items`]) one after the other: the partial
/// comparison a worker of the page returns. `progress(done, total)` counts these items'
/// units; answering `false` stops with `Error::Cancelled`.
pub fn run_part(
    resolved: &Resolved,
    graph: &Graph,
    fixed: Option<&Cluster>,
    items: &[WorkItem],
    cache: &mut SeedCache,
    progress: Progress,
) -> Result<Partial> {
    let total: usize = items.iter().map(|it| item_units(resolved, it)).sum();
    let mut base = 0usize;
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let b = base as f64;
        let r = run_item(resolved, graph, fixed, item, cache, &mut |d, _| {
            progress(b + d, total)
        })?;
        base += item_units(resolved, item);
        // A seed that cannot run stops a sequential run: the merge reports it.
        let stop = r.outcome.is_err();
        out.push(r);
        if stop {
            break;
        }
    }
    Ok(Partial {
        graph: graph_summary(graph),
        items: out,
    })
}

/// Runs every pair of a resolved scenario over its seeds, one after the other. `fixed` is
/// the loaded cluster when the scenario does not generate one.
pub fn run(
    resolved: &Resolved,
    graph: &Graph,
    fixed: Option<&Cluster>,
    progress: Progress,
) -> Result<Comparison> {
    let items = work_items(resolved, 1);
    let part = run_part(
        resolved,
        graph,
        fixed,
        &items,
        &mut SeedCache::default(),
        progress,
    )?;
    merge(resolved, &[part])
}

/// The case the page runs once, at idle, to warm the engine: the default scenario's
/// strategies (`scenario::defaults`) on a generated graph of `ops` ops
/// (`synthetic::layered_dag`, seed 1, file `warm-up.json`) and a generated cluster of
/// `devices` devices. Returns the scenario and the graph's text.
///
/// Why: V8 runs a wasm function as baseline code until the function has run a while, then
/// compiles it to optimized code on a background thread. A page's first large comparison
/// thus ran its hot functions as baseline code and compiled them on the cores its workers
/// needed (a Chromium trace of the 20,000-op comparison on 2 workers: 390 ms of
/// `wasm.TopTierCompilation`). The workers share one compiled module, so one worker's
/// warm-up gives every worker the optimized code; its items' times, once optimized, also
/// rank the placers for the first run's longest-first order (www/worker.js, `warm`).
pub fn warm_up_case(ops: usize, devices: usize) -> (Scenario, String) {
    let text =
        crate::model::synthetic::layered_dag(crate::model::synthetic::SyntheticSpec::new(ops, 1));
    let mut scenario = crate::scenario::defaults::defaults();
    scenario.graph = crate::scenario::GraphSource::File("warm-up.json".into());
    if let crate::scenario::ClusterSource::Generate(spec) = &mut scenario.cluster {
        spec.devices = devices;
    }
    (scenario, text)
}

/// Runs every pair of a resolved scenario over its seeds on `threads` threads (rayon; native
/// only): the work items spread over the threads and merged in their fixed order, so the
/// result has the bits of [`run`] (placement seconds, being wall clock, aside).
/// `progress(done, total)` sums over the threads and may be called from any of them.
#[cfg(not(target_arch = "wasm32"))]
pub fn run_parallel(
    resolved: &Resolved,
    graph: &Graph,
    fixed: Option<&Cluster>,
    threads: usize,
    progress: &(dyn Fn(f64, usize) -> bool + Sync),
) -> Result<Comparison> {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::Mutex;

    let threads = threads.max(1);
    let items = work_items(resolved, threads);
    let total: usize = items.iter().map(|it| item_units(resolved, it)).sum();
    // Per item, its whole units done (placers report fractions often: those stay in the
    // item, so that threads meet on the lock only once per placement and simulation).
    let done: Vec<AtomicU64> = items.iter().map(|_| AtomicU64::new(0)).collect();
    let cancelled = AtomicBool::new(false);
    let outer = Mutex::new(());
    let report = |k: usize, d: f64| -> bool {
        if cancelled.load(Ordering::Relaxed) {
            return false;
        }
        let whole = d.floor() as u64;
        if done[k].swap(whole, Ordering::Relaxed) == whole {
            return true;
        }
        let _one_at_a_time = outer.lock().unwrap_or_else(|e| e.into_inner());
        let sum: u64 = done.iter().map(|x| x.load(Ordering::Relaxed)).sum();
        if !progress(sum as f64, total) {
            cancelled.store(true, Ordering::Relaxed);
            return false;
        }
        true
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::Scenario(format!("could not start {threads} threads: {e}")))?;
    let caches: Vec<Mutex<SeedCache>> = (0..threads).map(|_| Mutex::default()).collect();
    let results: Vec<Result<ItemResult>> = pool.install(|| {
        items
            .par_iter()
            .with_max_len(1)
            .enumerate()
            .map(|(k, item)| {
                // Each thread keeps its last seed's cost model (items of one seed, one
                // placer each, often run on one thread in a row).
                let t = rayon::current_thread_index().unwrap_or(0) % threads;
                let mut cache = caches[t].lock().unwrap_or_else(|e| e.into_inner());
                run_item(resolved, graph, fixed, item, &mut cache, &mut |d, _| {
                    report(k, d)
                })
            })
            .collect()
    });
    let items = results.into_iter().collect::<Result<Vec<_>>>()?;
    merge(
        resolved,
        &[Partial {
            graph: graph_summary(graph),
            items,
        }],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cluster::ClusterGen;
    use crate::model::problem::Footprint;
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

    /// a(mem 1) -> b(mem 1) over a 4-byte tensor on one device of 6 bytes: `outputs` counts
    /// 1 + 4 and 1, 6 <= 6, fits; `inputs_outputs` counts 5 and 1 + 4, 10 > 6, and the placer
    /// says so; `mem` counts 1 and 1. The scenario's rule reaches the placers.
    #[test]
    fn the_footprint_rule_decides_feasibility() {
        let g = testutil::graph(
            r#"{"nodes":[{"id":"a","cost":1,"mem":1},{"id":"b","cost":1,"mem":1}],
                "edges":[{"src":"a","dst":"b","bytes":4}]}"#,
        );
        let text = r#"{"devices":[{"id":"x","speed":1,"memory":6}],"bandwidth":1}"#;
        let c = testutil::cluster(text);
        let mut s = scenario(
            ClusterSource::Inline(serde_json::from_str(text).unwrap()),
            1,
        );
        s.placers = vec!["m-etf".into(), "m-topo".into()];
        for (rule, fits) in [
            (Footprint::Outputs, true),
            (Footprint::InputsOutputs, false),
            (Footprint::Mem, true),
        ] {
            s.footprint = rule;
            let r = run(&s.resolve().unwrap(), &g, Some(&c), &mut |_, _| true).unwrap();
            for row in &r.results {
                assert_eq!(row.error.is_none(), fits, "{rule:?} {row:?}");
                if fits {
                    assert_eq!(row.makespans, vec![2.0]);
                } else {
                    let e = row.error.as_deref().unwrap();
                    assert!(e.contains("'a'") || e.contains("'b'"), "{e}");
                }
            }
        }
    }

    #[test]
    fn a_plan_summary_says_the_weakest_seeds_claim_and_averages_the_rest() {
        use crate::plan::SolveStatus;
        let report = |objective, bound, status| SolveReport {
            objective,
            bound: Some(bound),
            bound_of: BoundScope::Instance,
            status,
            work: 7,
            work_unit: "schedules simulated".into(),
            coarse_vertices: None,
            history: Vec::new(),
        };
        assert_eq!(PlanSummary::of(&[]), None);
        let proven = PlanSummary::of(&[report(4.0, 4.0, SolveStatus::Optimal)]).unwrap();
        assert_eq!(proven.status, "optimal (proven)");
        let two = PlanSummary::of(&[
            report(4.0, 4.0, SolveStatus::Optimal),
            report(6.0, 5.0, SolveStatus::Feasible),
        ])
        .unwrap();
        assert_eq!(two.objective, 5.0);
        assert_eq!(two.bound, Some(4.5));
        assert_eq!(two.bound_scope, BoundScope::Instance);
        assert_eq!(two.status, "best found after 7 schedules simulated");
        // Scopes that differ bound nothing together.
        let mut coarse = report(6.0, 5.0, SolveStatus::CoarseOptimal);
        coarse.bound_of = BoundScope::Coarse;
        let mixed = PlanSummary::of(&[report(4.0, 4.0, SolveStatus::Optimal), coarse]).unwrap();
        assert_eq!((mixed.bound, mixed.bound_scope), (None, BoundScope::None));
        assert_eq!(mixed.status, "optimal for the coarse graph");
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
        let r = run(&s.resolve().unwrap(), &g, Some(&c), &mut |_, _| true).unwrap();
        for row in speeds_of(&r) {
            assert_eq!(row, vec![0.1, 4.0]);
        }
        // After the what-if: a set speed replaces the device's, and the scale multiplies
        // every speed, a set one too.
        let mut s = s;
        s.what_if = WhatIf {
            compute: 2.0,
            bandwidth: 1.0,
            latency: 1.0,
            speeds: BTreeMap::from([("y".to_string(), 7.5)]),
        };
        let r = run(&s.resolve().unwrap(), &g, Some(&c), &mut |_, _| true).unwrap();
        for row in speeds_of(&r) {
            assert_eq!(row, vec![0.2, 15.0]);
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
            let r = run(&s.resolve().unwrap(), &g, None, &mut |_, _| true).unwrap();
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
            order: Some(crate::plan::Order {
                priority: vec![0.0; 3],
                sequences: Some(vec![vec![1, 0], vec![2]]),
                transfers: None,
            }),
            report: None,
        };
        plan.check(&p).unwrap();
        let e = simulate(&p, &s, &s.resolve().unwrap(), &plan, (0, 0, 0), 0, false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("deadlocked: 3 of 3 ops never ran"), "{e}");
        s.params.insert("given.work_conserving".into(), 1.0);
        let r = simulate(&p, &s, &s.resolve().unwrap(), &plan, (0, 0, 0), 0, false).unwrap();
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
        let e = run(&s.resolve().unwrap(), &g, Some(&c), &mut |_, _| {
            calls += 1;
            calls < 3
        })
        .unwrap_err();
        assert_eq!(e, Error::Cancelled);
        let mut seen = Vec::new();
        let r = run(&s.resolve().unwrap(), &g, Some(&c), &mut |done, total| {
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
        let r = &run(&s.resolve().unwrap(), &g, Some(&c), &mut |_, _| true)
            .unwrap()
            .results[0];
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

    /// A comparison as JSON with its wall-clock figures (placement seconds) zeroed: every
    /// other number must be the same bits however the work was split.
    fn bits(c: &Comparison) -> String {
        let mut c = c.clone();
        for r in &mut c.results {
            r.placement_seconds = 0.0;
        }
        serde_json::to_string(&c).unwrap()
    }

    fn every_strategy(seeds: u32) -> (Scenario, Graph) {
        let text = crate::model::synthetic::layered_dag(
            crate::model::synthetic::SyntheticSpec::new(120, 3),
        );
        let g = Graph::from_json(&text, "synthetic").unwrap();
        let mut s = Scenario::from_json(
            r#"{"graph":{"bundled":"g"},"cluster":{"generate":{"devices":5,"speed":[10,100],"bandwidth":[10,60],
                "memory_fraction":0.3}},"randomize":{"cost":[1,100],"bytes":[1,100],"mem":[0,0]},
                "links":"fcfs","link_order":"random","placers":["single"],"schedulers":["fifo"],"seeds":1,"seed":11}"#,
        )
        .unwrap();
        s.placers = place::PLACERS.iter().map(|p| p.name.to_string()).collect();
        s.schedulers = crate::schedule::SCHEDULERS
            .iter()
            .map(|p| p.name.to_string())
            .collect();
        s.seeds = seeds;
        (s, g)
    }

    /// Threads, and any split of the work items merged in any order, give the bits of the
    /// sequential run; progress sums to the total from every thread.
    #[test]
    fn parallel_and_split_runs_have_the_bits_of_a_sequential_run() {
        for seeds in [1, 3, 9] {
            let (s, g) = every_strategy(seeds);
            let seq = run(&s.resolve().unwrap(), &g, None, &mut |_, _| true).unwrap();
            let want = bits(&seq);
            // The scenario exercises row errors (memory) and plans, or the test says little.
            assert!(seq.results.iter().any(|r| !r.makespans.is_empty()));
            assert!(seq.results.iter().any(|r| !r.plan_reports.is_empty()));
            for threads in [1, 2, 3, 8] {
                let last = std::sync::Mutex::new((0.0, 0));
                let par = run_parallel(&s.resolve().unwrap(), &g, None, threads, &|d, t| {
                    let mut l = last.lock().unwrap();
                    l.0 = f64::max(l.0, d);
                    l.1 = t;
                    true
                })
                .unwrap();
                assert_eq!(bits(&par), want, "{seeds} seeds on {threads} threads");
                let (d, t) = *last.lock().unwrap();
                assert_eq!(d, t as f64, "progress reaches the total");
            }
            // Items run one by one, each in its own partial, merged backwards: with a fresh
            // seed cache each, and with one cache kept across them as a page worker keeps
            // it (then every item after the first of its seed reuses the cost model).
            let resolved = s.resolve().unwrap();
            let items = work_items(&s.resolve().unwrap(), 4);
            let mut kept = SeedCache::default();
            for shared in [false, true] {
                let mut parts: Vec<Partial> = items
                    .iter()
                    .map(|it| {
                        let mut fresh = SeedCache::default();
                        let cache = if shared { &mut kept } else { &mut fresh };
                        run_part(
                            &s.resolve().unwrap(),
                            &g,
                            None,
                            std::slice::from_ref(it),
                            cache,
                            &mut |_, _| true,
                        )
                        .unwrap()
                    })
                    .collect();
                parts.reverse();
                assert_eq!(
                    bits(&merge(&s.resolve().unwrap(), &parts).unwrap()),
                    want,
                    "shared {shared}"
                );
            }
            assert_eq!(kept.kept.as_ref().map(|k| k.seed), Some(seeds - 1));
            let mut parts: Vec<Partial> = items
                .iter()
                .map(|it| {
                    let mut cache = SeedCache::default();
                    run_part(
                        &s.resolve().unwrap(),
                        &g,
                        None,
                        std::slice::from_ref(it),
                        &mut cache,
                        &mut |_, _| true,
                    )
                    .unwrap()
                })
                .collect();
            parts.reverse();
            // Through JSON (as the page's workers pass them): the same.
            let json = serde_json::to_string(&parts).unwrap();
            let back: Vec<Partial> = serde_json::from_str(&json).unwrap();
            assert_eq!(bits(&merge(&s.resolve().unwrap(), &back).unwrap()), want);
            assert!(items.iter().all(|it| item_units(&resolved, it) > 0));
        }
    }

    #[test]
    fn work_items_split_by_placer_when_seeds_are_few() {
        let (s, _) = every_strategy(2);
        let n = place::PLACERS.len();
        let one = work_items(&s.resolve().unwrap(), 1);
        assert_eq!(one.len(), 2);
        assert_eq!(one[1].placers.len(), n);
        let two = work_items(&s.resolve().unwrap(), 2);
        assert_eq!(two.len(), 2 * n);
        assert_eq!(
            two[n],
            WorkItem {
                seed: 1,
                placers: vec![0]
            }
        );
        let (s, _) = every_strategy(8);
        assert_eq!(work_items(&s.resolve().unwrap(), 2).len(), 8);
    }

    #[test]
    fn merge_refuses_missing_repeated_and_foreign_parts() {
        let (s, g) = every_strategy(2);
        let items = work_items(&s.resolve().unwrap(), 2);
        let part = |its: &[WorkItem]| {
            run_part(
                &s.resolve().unwrap(),
                &g,
                None,
                its,
                &mut SeedCache::default(),
                &mut |_, _| true,
            )
            .unwrap()
        };
        let e = merge(&s.resolve().unwrap(), &[part(&items[1..])])
            .unwrap_err()
            .to_string();
        assert!(e.contains("miss seed 0 of placer single"), "{e}");
        let e = merge(&s.resolve().unwrap(), &[part(&items), part(&items[..1])])
            .unwrap_err()
            .to_string();
        assert!(e.contains("repeat seed 0 of placer single"), "{e}");
        let e = merge(&s.resolve().unwrap(), &[]).unwrap_err().to_string();
        assert!(e.contains("no partial comparison"), "{e}");
        let mut other = part(&items);
        other.items[0].item.seed = 5;
        let e = merge(&s.resolve().unwrap(), &[other])
            .unwrap_err()
            .to_string();
        assert!(e.contains("seed index 5"), "{e}");
        let e = run_part(
            &s.resolve().unwrap(),
            &g,
            None,
            &[WorkItem {
                seed: 0,
                placers: vec![99],
            }],
            &mut SeedCache::default(),
            &mut |_, _| true,
        )
        .map(|p| merge(&s.resolve().unwrap(), &[p]))
        .unwrap()
        .unwrap_err()
        .to_string();
        assert!(e.contains("placer index 99 is out of range"), "{e}");
    }

    /// A seed the scenario cannot realize is the comparison's error, the same whether the
    /// run is sequential or parallel (the first such seed, not the first to finish).
    #[test]
    fn a_seed_that_cannot_run_is_the_error_of_every_split() {
        let g = testutil::graph(GRAPH);
        let text = r#"{"devices":[{"id":"x","speed":1},{"id":"y","speed":2}],"bandwidth":2}"#;
        let c = testutil::cluster(text);
        let mut s = scenario(ClusterSource::File("c".into()), 3);
        // A set speed for a device the cluster lacks fails when a seed is realized.
        s.what_if.speeds.insert("nope".into(), 1.0);
        let seq = run(&s.resolve().unwrap(), &g, Some(&c), &mut |_, _| true);
        let par = run_parallel(&s.resolve().unwrap(), &g, Some(&c), 3, &|_, _| true);
        assert!(seq.is_err(), "{seq:?}");
        assert_eq!(seq, par);
    }

    #[test]
    fn cancel_stops_a_parallel_run() {
        let (s, g) = every_strategy(4);
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let e = run_parallel(&s.resolve().unwrap(), &g, None, 2, &|_, _| {
            calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) < 3
        })
        .unwrap_err();
        assert_eq!(e, Error::Cancelled);
    }

    /// The warm-up runs every default pair on its generated graph and cluster, and every
    /// one but Expert's (which needs layers) runs: a failed pair would leave cold the code
    /// it should warm.
    #[test]
    fn warm_up_runs_every_default_pair() {
        let (scenario, text) = warm_up_case(300, 5);
        let l = crate::scenario::load::load(scenario, &|_| Ok(text.clone().into_bytes())).unwrap();
        let c = run(
            &l.scenario.resolve().unwrap(),
            &l.graph,
            l.cluster.as_ref(),
            &mut |_, _| true,
        )
        .unwrap();
        assert_eq!(c.graph.nodes, 300);
        let placers = crate::place::default_placers();
        for p in &placers {
            assert!(c.results.iter().any(|r| &r.placer == p), "{p} did not run");
        }
        for r in &c.results {
            if r.placer == "expert" {
                // Expert splits by layer, and a generated graph has none: its row says so.
                assert!(
                    r.error
                        .as_deref()
                        .is_some_and(|e| e.contains("nodes[].layer")),
                    "{r:?}"
                );
                continue;
            }
            assert!(
                r.error.is_none(),
                "{}/{}: {:?}",
                r.placer,
                r.scheduler,
                r.error
            );
            assert!(r.makespan.is_finite() && r.makespan > 0.0);
        }
        assert!(c.results.iter().all(|r| r.devices.len() == 5));
    }

    /// A plan's item keys name its items' placers: one per placer when split, all of them
    /// joined on one worker (the page orders items by these across runs).
    #[test]
    fn work_plan_keys_name_the_items_placers() {
        let (s, _) = every_strategy(1);
        let split = work_plan(&s.resolve().unwrap(), 2);
        assert_eq!(split.keys, s.placers);
        let one = work_plan(&s.resolve().unwrap(), 1);
        assert_eq!(one.keys, vec![s.placers.join(",")]);
    }
}
