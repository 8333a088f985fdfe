//! One seed of a comparison: realize its cluster and costs, place with each placer (timed,
//! verified), and run every pair through [`crate::pair`] into samples. Also the single-pair
//! path (`run_one`) the CLI's `run` and the page's timeline use. Not the aggregation over
//! seeds (`merge.rs`).

use super::*;

/// Plans with the resolved placer `pi` and checks the result (placement and order):
/// the plan and the wall-clock seconds it took. `progress` hears the placer's fraction done
/// and cancels it by answering `false`.
pub fn place(
    problem: &Problem,
    resolved: &Resolved,
    pi: usize,
    seed_index: u32,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<(Plan, f64)> {
    let scenario = resolved.scenario();
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
    resolved: &Resolved,
    plan: &Plan,
    pair: (usize, usize, usize),
    seed_index: u32,
    record: bool,
) -> Result<SimResult> {
    let mut first = None;
    iterate(
        problem,
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
pub fn pair(resolved: &Resolved, (pi, si, oi): (usize, usize, usize), seed_index: u32) -> Pair {
    let scenario = resolved.scenario();
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
    resolved: &Resolved,
    plan: &Plan,
    pair_ix: (usize, usize, usize),
    seed_index: u32,
    runs: (u32, bool),
    each: &mut dyn FnMut(u32, SimResult) -> bool,
) -> Result<()> {
    pair(resolved, pair_ix, seed_index).iterate(
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
    let (plan, placement_seconds) = place(&problem, &resolved, 0, seed_index, &mut |_| true)?;
    let sim = simulate(&problem, &resolved, &plan, (0, 0, 0), seed_index, true)?;
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

pub(super) fn graph_summary(graph: &Graph) -> GraphSummary {
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
    pub(super) kept: Option<KeptSeed>,
    /// Plans of that seed for [`simulate_pairs`], by (seed, placer): placed or received here.
    pub(super) placed: std::collections::BTreeMap<(u32, usize), (Plan, f64)>,
    /// The simulation tables of the last placement simulated here, by (seed, placer).
    pub(super) prepared: Option<((u32, usize), sim::Prepared)>,
}

pub(super) struct KeptSeed {
    pub(super) seed: u32,
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
    with_seed(resolved, graph, fixed, item, cache, &mut |seed| {
        let total = item_units(resolved, item);
        let mut done = 0usize;
        let mut placers = Vec::with_capacity(item.placers.len());
        for &pi in &item.placers {
            let base = done as f64;
            let placed = place(seed.problem, resolved, pi, item.seed, &mut |f| {
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
            // The tables every run of this placement reads, built once for its pairs.
            let mut prepared: Option<sim::Prepared> = None;
            for &pair_ix in resolved.pairs.iter().filter(|p| p.0 == pi) {
                let outcome = match &placed {
                    Err(e) => Err(e.clone()),
                    Ok((plan, seconds)) => {
                        let base = done as f64;
                        let prepared = prepared
                            .get_or_insert_with(|| sim::prepare(seed.problem, &plan.placement));
                        run_pair(
                            seed.problem,
                            resolved,
                            (plan, *seconds),
                            prepared,
                            (pair_ix, item.seed),
                            seed.bounds,
                            seed.workers,
                            &mut |f| progress(base + f, total),
                        )?
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
        Ok(seed.sample(placers))
    })
}

/// What a task of one seed reads: its cost model, bounds, a replica's workers and devices.
struct SeedView<'s, 'p> {
    problem: &'s Problem<'p>,
    bounds: (f64, f64),
    workers: &'s [crate::model::cluster::DevIx],
    cluster: &'s Cluster,
}

impl SeedView<'_, '_> {
    fn sample(&self, placers: Vec<PlacerSample>) -> SeedSample {
        SeedSample {
            devices: seed_devices(self.cluster),
            critical_path_bound: self.bounds.0,
            work_bound: self.bounds.1,
            placers,
        }
    }
}

/// Runs `f` on item's seed: its cost model from `cache` when it holds that seed, else built
/// (realized, costed, bounded), and kept in `cache` afterwards. The item's checks come first,
/// in this order: the seed, the placer indices, a replica's devices.
fn with_seed<T>(
    resolved: &Resolved,
    graph: &Graph,
    fixed: Option<&Cluster>,
    item: &WorkItem,
    cache: &mut SeedCache,
    f: &mut dyn FnMut(&SeedView) -> Result<T>,
) -> Result<T> {
    let scenario = resolved.scenario();
    let i = item.seed;
    // Only this seed's plans and tables are kept: a task of another seed drops them (the
    // page's pool knows this rule: `Runner.heldSeed`).
    cache.placed.retain(|k, _| k.0 == i);
    if cache.prepared.as_ref().is_some_and(|(k, _)| k.0 != i) {
        cache.prepared = None;
    }
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
    // The cluster is balanced already (realize).
    let workers = match &scenario.replica {
        Some(r) => replica_devices(r, &real.cluster)?.0,
        None => Vec::new(),
    };
    let out = f(&SeedView {
        problem: &problem,
        bounds: (cp, wb),
        workers: &workers,
        cluster: &real.cluster,
    });
    cache.kept = Some(KeptSeed {
        seed: i,
        data: problem.into_data(),
        real,
        critical_path: cp,
        work: wb,
    });
    out
}

/// The one placer of `item` (a task of the page's pool, whose pairs' simulations may run in
/// other workers): a part with the item's result, with that placer's pairs not run yet (empty) when it
/// placed, their row errors when it could not, or the error that stops the item (as
/// [`run_item`]'s); and when it placed, its plan encoded ([`encode_plan`]) for
/// [`simulate_pairs`] in another worker. `cache` keeps the plan for this worker's own
/// [`simulate_pairs`]. `progress(done, 1)` hears the placer's fraction done; answering
/// `false` stops with `Error::Cancelled`, the only error returned.
pub fn place_item(
    resolved: &Resolved,
    graph: &Graph,
    fixed: Option<&Cluster>,
    item: &WorkItem,
    cache: &mut SeedCache,
    progress: Progress,
) -> Result<(Partial, Option<Vec<u8>>)> {
    let &[pi] = item.placers.as_slice() else {
        return Err(Error::Scenario(format!(
            "a placement task places one placer, not {}",
            item.placers.len()
        )));
    };
    let mut plan_out = None;
    let outcome = with_seed(
        resolved,
        graph,
        fixed,
        item,
        cache,
        &mut |seed| match place(seed.problem, resolved, pi, item.seed, &mut |f| {
            progress(f, 1)
        }) {
            Err(Error::Cancelled) => Err(Error::Cancelled),
            placed => Ok((seed.sample(Vec::new()), placed)),
        },
    );
    let outcome = match outcome {
        Err(Error::Cancelled) => return Err(Error::Cancelled),
        Err(e) => Err(e),
        Ok((mut sample, Err(e))) => {
            // A row error for each of its pairs.
            let n = resolved.pairs.iter().filter(|p| p.0 == pi).count();
            sample.placers.push(PlacerSample {
                placer: pi,
                pairs: vec![Err(e); n],
            });
            Ok(sample)
        }
        Ok((mut sample, Ok((plan, seconds)))) => {
            plan_out = Some(encode_plan(&plan, seconds)?);
            cache.placed.insert((item.seed, pi), (plan, seconds));
            sample.placers.push(PlacerSample {
                placer: pi,
                pairs: Vec::new(),
            });
            Ok(sample)
        }
    };
    if !progress(1.0, 1) {
        return Err(Error::Cancelled);
    }
    Ok((
        Partial {
            graph: graph_summary(graph),
            items: vec![ItemResult {
                item: item.clone(),
                outcome,
            }],
        },
        plan_out,
    ))
}

/// Runs the pairs at positions `pairs` (among the pairs of `item`'s one placer, in pair
/// order) on its placement: `plan`, encoded by [`place_item`] in some worker, or `None` for
/// the one `cache` holds (placed or decoded here before). Their outcomes, in `pairs`' order,
/// with the bits [`run_item`] computes: the same placement, streams and seed. A placement's
/// simulation tables are kept in `cache` for its next pairs. `progress(done, pairs.len())`;
/// answering `false` stops with `Error::Cancelled`. An error (a seed that cannot run, a plan
/// that does not decode or fit) is returned, not a row's: `place_item` reported it first.
#[allow(clippy::too_many_arguments)]
pub fn simulate_pairs(
    resolved: &Resolved,
    graph: &Graph,
    fixed: Option<&Cluster>,
    item: &WorkItem,
    plan: Option<&[u8]>,
    pairs: &[usize],
    cache: &mut SeedCache,
    progress: Progress,
) -> Result<Vec<std::result::Result<PairSample, Error>>> {
    let &[pi] = item.placers.as_slice() else {
        return Err(Error::Scenario(format!(
            "a simulation task runs one placer's pairs, not {} placers'",
            item.placers.len()
        )));
    };
    let of_placer: Vec<(usize, usize, usize)> = resolved
        .pairs
        .iter()
        .copied()
        .filter(|p| p.0 == pi)
        .collect();
    if let Some(&j) = pairs.iter().find(|&&j| j >= of_placer.len()) {
        return Err(Error::Scenario(format!(
            "pair position {j} is out of range (placer '{}' has {} pairs)",
            resolved.placers.get(pi).map_or("?", |p| p.info.name),
            of_placer.len()
        )));
    }
    let key = (item.seed, pi);
    let mut held = cache.placed.remove(&key);
    let mut prepared = cache.prepared.take().filter(|(k, _)| *k == key);
    let out = with_seed(resolved, graph, fixed, item, cache, &mut |seed| {
        if let Some(bytes) = plan {
            let (plan, seconds) = decode_plan(bytes)?;
            place::verify(seed.problem, &plan.placement)
                .and_then(|()| plan.check(seed.problem))
                .map_err(|e| {
                    Error::Scenario(format!("a placement task's plan does not fit: {e}"))
                })?;
            held = Some((plan, seconds));
            prepared = None;
        }
        let Some((plan, seconds)) = &held else {
            return Err(Error::Scenario(format!(
                "no placement of placer {pi} at seed {} is held here: send its plan",
                item.seed
            )));
        };
        let prepared = &prepared
            .get_or_insert_with(|| (key, sim::prepare(seed.problem, &plan.placement)))
            .1;
        let mut out = Vec::with_capacity(pairs.len());
        for (n, &j) in pairs.iter().enumerate() {
            let base = n as f64;
            out.push(run_pair(
                seed.problem,
                resolved,
                (plan, *seconds),
                prepared,
                (of_placer[j], item.seed),
                seed.bounds,
                seed.workers,
                &mut |f| progress(base + f, pairs.len()),
            )?);
            if !progress((n + 1) as f64, pairs.len()) {
                return Err(Error::Cancelled);
            }
        }
        Ok(out)
    });
    if let Some(p) = held {
        cache.placed.insert(key, p);
    }
    cache.prepared = prepared;
    out
}

/// A seed's devices as realized, for its sample.
pub(super) fn seed_devices(cluster: &Cluster) -> Vec<SeedDevice> {
    cluster
        .devices
        .iter()
        .map(|d| SeedDevice {
            id: d.id.clone(),
            kind: d.kind.clone(),
            speed: d.speed,
            memory: d.memory.is_finite().then_some(d.memory),
        })
        .collect()
}

/// Runs pair `pair_ix` at seed `i` on a placement `prepared` for it (the plan and its
/// placement seconds): its sample, or its row error (a replay that deadlocked) inside.
/// `bounds` are the seed's critical-path and work bounds, `workers` a replica's workers
/// (empty without one). `progress(f)` hears the fraction of the pair's iterations done,
/// every 16 of them; answering `false` stops with the outer `Error::Cancelled`. The one path
/// from a placed plan to a row's sample, sequential or spread over threads.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_pair(
    problem: &Problem,
    resolved: &Resolved,
    (plan, seconds): (&Plan, f64),
    prepared: &sim::Prepared,
    (pair_ix, i): ((usize, usize, usize), u32),
    (cp, wb): (f64, f64),
    workers: &[crate::model::cluster::DevIx],
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<std::result::Result<PairSample, Error>> {
    let iterations = resolved.scenario().iterations;
    let mut first = None;
    let mut times = Vec::with_capacity(iterations as usize);
    let mut ordering = Vec::new();
    let ran = pair(resolved, pair_ix, i).iterate_prepared(
        problem,
        prepared,
        plan.order.as_ref(),
        (iterations, false),
        &mut |j, r| {
            times.push(r.makespan);
            if !workers.is_empty() {
                ordering.push(sim::ordering::IterationTimes::of(&r, workers));
            }
            first.get_or_insert(r);
            // Often enough to move a bar, rarely enough not to flood one.
            j % 16 != 15 || progress((j + 1) as f64 / iterations as f64)
        },
    );
    Ok(match (ran, first) {
        (Err(Error::Cancelled), _) => return Err(Error::Cancelled),
        (Err(e), _) => Err(e),
        (Ok(()), None) => Err(Error::Cancelled),
        (Ok(()), Some(r)) => Ok(PairSample {
            ordering,
            ..sample(
                &r,
                &times,
                seed_bound(cp, wb, plan.report.as_ref()),
                seconds,
                plan.report.as_ref(),
            )
        }),
    })
}

/// What every placer and pair of one seed reads: its cost model (borrowing the seed's
/// realized cluster), its bounds, a replica's workers and the devices of its sample.
#[cfg(not(target_arch = "wasm32"))]
pub(super) struct SeedBase<'a> {
    pub(super) problem: Problem<'a>,
    pub(super) critical_path: f64,
    pub(super) work: f64,
    /// A replica's workers, or the error naming a device it lacks (an item reports it
    /// after checking its placer indices, as [`run_item`] does).
    pub(super) workers: Result<Vec<crate::model::cluster::DevIx>>,
    pub(super) devices: Vec<SeedDevice>,
}

/// Builds a seed's [`SeedBase`] from its realization ([`realize`]), as [`run_item`] does.
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn seed_base<'a>(
    scenario: &Scenario,
    graph: &'a Graph,
    real: &'a crate::scenario::Realization,
) -> Result<SeedBase<'a>> {
    let problem = problem(scenario, graph, &real.cluster, real.overrides.as_ref())?;
    let (critical_path, work) = (
        analysis::critical_path_bound(&problem),
        analysis::work_bound(&problem),
    );
    let workers = match &scenario.replica {
        Some(r) => replica_devices(r, &real.cluster).map(|w| w.0),
        None => Ok(Vec::new()),
    };
    Ok(SeedBase {
        problem,
        critical_path,
        work,
        workers,
        devices: seed_devices(&real.cluster),
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
