//! Folds partial comparisons, in seed and pair order, into a [`Comparison`]: per-pair
//! statistics, bounds, plan summaries and TicTac19's metrics. Any split of the work merges to
//! the bits of one sequential run, because the fold never depends on the order items finished.

use super::*;

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
