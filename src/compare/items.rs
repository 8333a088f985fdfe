//! How a comparison is cut into work: [`WorkItem`]s (a seed, or a seed and some placers), the
//! [`WorkPlan`] the page's pool schedules, and what an item returns ([`ItemResult`], a
//! [`Partial`]). Not the running of an item (`seed.rs`) nor the merge (`merge.rs`).

use super::*;

/// One unit of work of a comparison: seed index `seed` with the resolved placers `placers`
/// (indices into [`Resolved::placers`], ascending), each placed once and simulated under its
/// pairs. A comparison is a list of these ([`work_items`]); any split of the list over
/// threads or workers merges ([`merge()`]) into the same bits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkItem {
    pub seed: u32,
    pub placers: Vec<usize>,
}

/// The placers that appear in the scenario's pairs, in pair order.
pub(super) fn used_placers(resolved: &Resolved) -> Vec<usize> {
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

/// A plan and its placement seconds as bytes (JSON; floats round-trip exactly): what a
/// placement task of the page's pool hands to the workers that run its pairs
/// ([`place_item`], [`simulate_pairs`]). The page never reads it.
#[derive(Serialize, Deserialize)]
struct PlanWire {
    placement: Placement,
    order: Option<OrderWire>,
    report: Option<SolveReport>,
    seconds: f64,
}

#[derive(Serialize, Deserialize)]
struct OrderWire {
    priority: Vec<f64>,
    sequences: Option<Vec<Vec<crate::model::graph::NodeIx>>>,
    transfers: Option<Vec<(crate::model::graph::TensorIx, crate::model::cluster::DevIx)>>,
}

/// Encodes a plan and its placement seconds for another worker ([`decode_plan`]).
pub fn encode_plan(plan: &Plan, seconds: f64) -> Result<Vec<u8>> {
    let wire = PlanWire {
        placement: plan.placement.clone(),
        order: plan.order.as_ref().map(|o| OrderWire {
            priority: o.priority.clone(),
            sequences: o.sequences.clone(),
            transfers: o.transfers.clone(),
        }),
        report: plan.report.clone(),
        seconds,
    };
    serde_json::to_vec(&wire).map_err(|e| Error::Scenario(format!("encoding a plan: {e}")))
}

/// A plan and its placement seconds from [`encode_plan`]'s bytes, or an error saying why
/// not (the caller checks that it fits its problem).
pub fn decode_plan(bytes: &[u8]) -> Result<(Plan, f64)> {
    let w: PlanWire = serde_json::from_slice(bytes)
        .map_err(|e| Error::Scenario(format!("a placement task's plan does not decode: {e}")))?;
    Ok((
        Plan {
            placement: w.placement,
            order: w.order.map(|o| crate::plan::Order {
                priority: o.priority,
                sequences: o.sequences,
                transfers: o.transfers,
            }),
            report: w.report,
        },
        w.seconds,
    ))
}

/// A placement task's part ([`place_item`]: one item, its one placer's pairs not run yet)
/// with those pairs' outcomes ([`simulate_pairs`]), in pair order: the part [`run_part`]
/// returns for that item. A part whose placer did not place (row errors) or whose seed
/// failed takes no outcomes.
pub fn join_pairs(
    mut part: Partial,
    outcomes: Vec<std::result::Result<PairSample, Error>>,
) -> Result<Partial> {
    let bad = |why: &str| {
        Err(Error::Scenario(format!(
            "joining a placement's pairs: {why}"
        )))
    };
    let [item] = part.items.as_mut_slice() else {
        return bad("the part has not exactly one item");
    };
    match &mut item.outcome {
        Err(_) if outcomes.is_empty() => {}
        Err(_) => return bad("its seed failed, yet pairs ran"),
        Ok(sample) => match sample.placers.as_mut_slice() {
            [p] if p.pairs.is_empty() => p.pairs = outcomes,
            [_] if outcomes.is_empty() => {}
            [_] => return bad("its placer did not place, yet pairs ran"),
            _ => return bad("the item has not exactly one placer"),
        },
    }
    Ok(part)
}
