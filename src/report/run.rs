//! One pair at one seed as the JSON `placesim run --json` prints: the same row shape as a
//! comparison's results (`makespan`, `lower_bound`, `gap`, `devices`, ...) plus the
//! placement (node id -> device id) and the links that carried data. Serialized from these
//! structs, so the README's description holds by construction.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::compare::RunDetail;
use crate::plan::SolveReport;
use crate::scenario::Scenario;

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
