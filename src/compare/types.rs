//! What a comparison returns: per-pair statistics over seeds, per-device figures, TicTac19's
//! ordering metrics, a planning placer's summary, and the [`Comparison`] itself (the JSON the
//! CLI prints and the page's `www/types.js` types). Plain data: nothing here runs anything.

use super::*;

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
