//! One pair at one seed, as `placesim run` prints it: [`RunReport`], the JSON of `run --json`
//! (the same row shape as a comparison's results, `makespan`, `lower_bound`, `gap`,
//! `devices`, ..., plus the placement, node id -> device id, and the links that carried
//! data; serialized from these structs, so the README's description holds by construction),
//! and [`text`], the text report (makespan against the bound, then a line per device).
//!
//! Not here: running the pair (`compare::run_one`) or its Chrome trace (`report::trace`).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::compare::RunDetail;
use crate::model::cluster::Cluster;
use crate::plan::SolveReport;
use crate::scenario::Scenario;
use crate::units::UnitSystem;

/// What `run --json` prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunReport {
    pub scenario: Scenario,
    /// One row (the shape of a comparison's `results`).
    pub results: Vec<RunRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunRow {
    pub placer: String,
    pub scheduler: String,
    /// Seconds (or the graph's time unit).
    pub makespan: f64,
    /// Always 0: one seed.
    pub makespan_std: f64,
    pub traffic_bytes: f64,
    pub transfers: usize,
    pub placement_seconds: f64,
    pub lower_bound: f64,
    /// makespan / lower bound (1 when the bound is 0).
    pub gap: f64,
    /// The placer's own report, when it plans.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan_report: Option<SolveReport>,
    /// Node id -> device id.
    pub placement: BTreeMap<String, String>,
    pub devices: Vec<RunDevice>,
    pub links: Vec<RunLink>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunDevice {
    pub id: String,
    pub kind: String,
    pub speed: f64,
    /// Seconds running ops.
    pub busy: f64,
    pub ops: usize,
    /// busy / makespan.
    pub utilization: f64,
    /// Bytes.
    pub peak_memory: f64,
    /// Capacity in bytes; `null` when unlimited.
    pub memory: Option<f64>,
    pub oom: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunLink {
    pub src: String,
    pub dst: String,
    pub bytes: f64,
    pub transfers: usize,
    /// Seconds sending (latency included).
    pub busy: f64,
}

impl RunReport {
    pub fn of(scenario: &Scenario, placer: &str, scheduler: &str, detail: &RunDetail) -> RunReport {
        let sim = &detail.sim;
        let devices = &detail.problem.cluster.devices;
        let nodes = &detail.problem.graph.nodes;
        let ratio = |x: f64, of: f64| if of > 0.0 { x / of } else { 1.0 };
        RunReport {
            scenario: scenario.clone(),
            results: vec![RunRow {
                placer: placer.to_string(),
                scheduler: scheduler.to_string(),
                makespan: sim.makespan,
                makespan_std: 0.0,
                traffic_bytes: sim.traffic_bytes,
                transfers: sim.links.iter().map(|l| l.transfers).sum(),
                placement_seconds: detail.placement_seconds,
                lower_bound: detail.lower_bound,
                gap: ratio(sim.makespan, detail.lower_bound),
                plan_report: detail.plan_report.clone(),
                placement: nodes
                    .iter()
                    .zip(&detail.placement)
                    .map(|(n, &d)| (n.id.clone(), devices[d as usize].id.clone()))
                    .collect(),
                devices: devices
                    .iter()
                    .zip(&sim.devices)
                    .map(|(d, st)| RunDevice {
                        id: d.id.clone(),
                        kind: d.kind.clone(),
                        speed: d.speed,
                        busy: st.busy,
                        ops: st.ops,
                        utilization: if sim.makespan > 0.0 {
                            st.busy / sim.makespan
                        } else {
                            0.0
                        },
                        peak_memory: st.peak_memory,
                        memory: d.memory.is_finite().then_some(d.memory),
                        oom: st.oom,
                    })
                    .collect(),
                links: sim
                    .links
                    .iter()
                    .map(|l| RunLink {
                        src: devices[l.src as usize].id.clone(),
                        dst: devices[l.dst as usize].id.clone(),
                        bytes: l.bytes,
                        transfers: l.transfers,
                        busy: l.busy,
                    })
                    .collect(),
            }],
        }
    }
}

/// The text report of one pair on `cluster` (the realized cluster of the run): a title line
/// (graph, cluster, pair, the unit system's note), makespan against the lower bound, traffic
/// and placement time, then a row per device that ran an op or held memory, and how many
/// devices ran none. Every line ends with a newline.
pub fn text(
    graph_name: &str,
    cluster: &Cluster,
    placer: &str,
    scheduler: &str,
    detail: &RunDetail,
) -> String {
    use std::fmt::Write;
    let devices = &cluster.devices;
    let sim = &detail.sim;
    let units = UnitSystem::of_speeds(devices.iter().map(|d| d.speed));
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} on {} ({} devices): {} / {}{}",
        graph_name,
        cluster.name,
        devices.len(),
        placer,
        scheduler,
        units.note()
    );
    let _ = writeln!(
        out,
        "makespan {}  lower bound {}  (x{:.2})  traffic {} in {} transfers  placed in {:.4} s",
        units.time(sim.makespan),
        units.time(detail.lower_bound),
        if detail.lower_bound > 0.0 {
            sim.makespan / detail.lower_bound
        } else {
            1.0
        },
        units.bytes(sim.traffic_bytes),
        sim.links.iter().map(|l| l.transfers).sum::<usize>(),
        detail.placement_seconds
    );
    let _ = writeln!(
        out,
        "{:<12} {:>6} {:>12} {:>6} {:>12} {:>12}",
        "device", "ops", "busy", "util", "peak mem", "memory"
    );
    for (d, st) in devices.iter().zip(&sim.devices) {
        if st.ops == 0 && st.peak_memory == 0.0 {
            continue;
        }
        let _ = writeln!(
            out,
            "{:<12} {:>6} {:>12} {:>5.1}% {:>12} {:>12}{}",
            d.id,
            st.ops,
            units.time(st.busy),
            if sim.makespan > 0.0 {
                100.0 * st.busy / sim.makespan
            } else {
                0.0
            },
            units.bytes(st.peak_memory),
            if d.memory.is_finite() {
                units.bytes(d.memory)
            } else {
                "unlimited".into()
            },
            if st.oom { "  OOM" } else { "" }
        );
    }
    let idle = devices.len() - sim.devices.iter().filter(|s| s.ops > 0).count();
    if idle > 0 {
        let _ = writeln!(out, "({idle} devices ran no op)");
    }
    out
}
