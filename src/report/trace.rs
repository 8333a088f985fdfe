//! A run's full schedule as Chrome trace-event JSON and as compact timeline data.
//!
//! Chrome trace (opened by Perfetto and chrome://tracing): one process per device, thread 0
//! for its ops, one thread per incoming link for transfers into it, and a `memory` counter
//! per device. Times are written in microseconds of simulated time (`ts = seconds * 1e6`).
//!
//! Timeline data is what the page's Gantt chart draws: arrays instead of objects, so that
//! 20,000 ops stay small.

use serde::Serialize;
use serde_json::{json, Value};

use crate::compare::RunDetail;
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::sim::critical::{self, CriticalPath};

fn us(seconds: f64) -> f64 {
    seconds * 1e6
}

/// Chrome trace-event JSON of a recorded run.
pub fn chrome_trace(detail: &RunDetail) -> Value {
    let p = &detail.problem;
    let g = p.graph;
    let devices = &p.cluster.devices;
    let mut events = Vec::new();
    for (d, dev) in devices.iter().enumerate() {
        events.push(
            json!({"ph": "M", "name": "process_name", "pid": d, "tid": 0,
            "args": {"name": format!("{} ({})", dev.id, dev.kind)}}),
        );
        events.push(
            json!({"ph": "M", "name": "process_sort_index", "pid": d, "tid": 0,
            "args": {"sort_index": d}}),
        );
        events.push(json!({"ph": "M", "name": "thread_name", "pid": d, "tid": 0,
            "args": {"name": "ops"}}));
    }
    let Some(trace) = &detail.sim.trace else {
        return json!({ "traceEvents": events });
    };
    for (v, &(start, end)) in trace.ops.iter().enumerate() {
        let node = &g.nodes[v];
        events.push(json!({
            "ph": "X", "name": node.id, "cat": if node.op.is_empty() { "op" } else { node.op.as_str() },
            "pid": detail.placement[v], "tid": 0, "ts": us(start), "dur": us(end - start),
            "args": {"op": node.op, "cost": p.work[v]}
        }));
    }
    let mut named = std::collections::BTreeSet::new();
    for (x, tr) in trace.transfers.iter().enumerate() {
        let t = trace.transfer_times[x];
        let tid = 1 + tr.src as usize;
        if named.insert((tr.dst, tid)) {
            events.push(
                json!({"ph": "M", "name": "thread_name", "pid": tr.dst, "tid": tid,
                "args": {"name": format!("from {}", devices[tr.src as usize].id)}}),
            );
        }
        let producer = &g.nodes[g.tensors[tr.tensor as usize].src as usize].id;
        events.push(json!({
            "ph": "X", "name": format!("{producer} -> {}", devices[tr.dst as usize].id), "cat": "transfer",
            "pid": tr.dst, "tid": tid, "ts": us(t.start), "dur": us(t.end - t.start),
            "args": {"bytes": tr.bytes, "queued_us": us(t.start - t.ready), "from": devices[tr.src as usize].id}
        }));
    }
    for (d, curve) in trace.memory.iter().enumerate() {
        for &(time, bytes) in curve {
            events.push(
                json!({"ph": "C", "name": "memory", "pid": d, "ts": us(time),
                "args": {"bytes": bytes}}),
            );
        }
    }
    json!({ "traceEvents": events, "displayTimeUnit": "ms" })
}

/// Compact data for the page's timeline (`www/charts/timeline/`; its JSDoc type is
/// `Timeline` in `www/types.js`). Times in seconds of simulated time, sizes in bytes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timeline<'a> {
    pub makespan: f64,
    pub lower_bound: f64,
    pub placement_seconds: f64,
    pub devices: Vec<TimelineDevice<'a>>,
    /// Node ids, by node index.
    pub nodes: Vec<&'a str>,
    /// Op type names; `op_type[v]` indexes this.
    pub op_types: &'a [String],
    pub op_type: Vec<u32>,
    /// Per node: `[device, start, end]`.
    pub ops: Vec<(DevIx, f64, f64)>,
    /// Per transfer: `[src device, dst device, ready, start, end, bytes, producer node]`.
    pub transfers: Vec<(DevIx, DevIx, f64, f64, f64, f64, NodeIx)>,
    /// Per device: the memory curve flattened, `[t0, bytes0, t1, bytes1, ...]`.
    pub memory: Vec<Vec<f64>>,
    /// Per node: when its last input was on its device (`sim::critical::ready_times`);
    /// its waiting time is its start minus this.
    pub ready: Vec<f64>,
    /// The graph's edges flattened, `[src, dst, bytes, src, dst, bytes, ...]` (bytes after
    /// the what-if), for the inputs and outputs of a chosen op.
    pub edges: Vec<f64>,
    /// The chain of ops and transfers that determines the makespan
    /// (`sim::critical::critical_path`).
    pub critical_path: CriticalPath,
}

/// One device of a [`Timeline`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimelineDevice<'a> {
    pub id: &'a str,
    pub kind: &'a str,
    pub speed: f64,
    /// Capacity in bytes; `None` (JSON `null`) when unlimited.
    pub memory: Option<f64>,
    pub busy: f64,
    pub peak_memory: f64,
    pub oom: bool,
    pub ops: usize,
}

/// The page's timeline data of a recorded run (empty lanes when the run kept no trace).
pub fn timeline<'a>(detail: &'a RunDetail) -> Timeline<'a> {
    let p = &detail.problem;
    let g = p.graph;
    let (ops, transfers, memory, ready, critical_path) = match &detail.sim.trace {
        None => (
            vec![],
            vec![],
            vec![],
            vec![],
            CriticalPath {
                steps: vec![],
                idle: 0.0,
            },
        ),
        Some(trace) => (
            trace
                .ops
                .iter()
                .enumerate()
                .map(|(v, &(s, e))| (detail.placement[v], s, e))
                .collect(),
            trace
                .transfers
                .iter()
                .zip(&trace.transfer_times)
                .map(|(tr, t)| {
                    let producer = g.tensors[tr.tensor as usize].src;
                    (tr.src, tr.dst, t.ready, t.start, t.end, tr.bytes, producer)
                })
                .collect(),
            trace
                .memory
                .iter()
                .map(|c| c.iter().flat_map(|&(t, b)| [t, b]).collect())
                .collect(),
            critical::ready_times(p, &detail.placement, trace),
            critical::critical_path(p, &detail.placement, trace),
        ),
    };
    Timeline {
        makespan: detail.sim.makespan,
        lower_bound: detail.lower_bound,
        placement_seconds: detail.placement_seconds,
        devices: p
            .cluster
            .devices
            .iter()
            .zip(&detail.sim.devices)
            .map(|(d, s)| TimelineDevice {
                id: &d.id,
                kind: &d.kind,
                speed: d.speed,
                memory: d.memory.is_finite().then_some(d.memory),
                busy: s.busy,
                peak_memory: s.peak_memory,
                oom: s.oom,
                ops: s.ops,
            })
            .collect(),
        nodes: g.nodes.iter().map(|n| n.id.as_str()).collect(),
        op_types: &g.op_types,
        op_type: (0..g.node_count() as u32).map(|v| g.op_type(v)).collect(),
        ops,
        transfers,
        memory,
        ready,
        edges: g
            .edges
            .iter()
            .enumerate()
            .flat_map(|(e, edge)| [edge.src as f64, edge.dst as f64, p.edge_bytes(e as u32)])
            .collect(),
        critical_path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cluster::Cluster;
    use crate::model::graph::Graph;
    use crate::scenario::{ClusterSource, GraphSource, Scenario};

    #[test]
    fn timeline_json_is_what_the_page_draws() {
        let g = Graph::from_json(
            r#"{"name":"t","nodes":[{"id":"a","op":"MatMul","cost":2},{"id":"b","cost":1}],
                "edges":[{"src":"a","dst":"b","bytes":100}]}"#,
            "t",
        )
        .unwrap();
        let c = Cluster::uniform(&[1.0, 1.0], 100.0, 0.0);
        let s = Scenario::new(
            GraphSource::Bundled("t".into()),
            ClusterSource::Inline(Value::Null),
        );
        // `single` puts both ops on one device: no transfers, a run of 2 + 1 seconds.
        let detail =
            crate::compare::run_one(&s, &g, &c, None, ("single", "fifo", None), 0).unwrap();
        let v = serde_json::to_value(timeline(&detail)).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        let mut want = vec![
            "makespan",
            "lower_bound",
            "placement_seconds",
            "devices",
            "nodes",
            "op_types",
            "op_type",
            "ops",
            "transfers",
            "memory",
            "ready",
            "edges",
            "critical_path",
        ];
        want.sort();
        assert_eq!(keys, want);
        assert_eq!(v["makespan"], 3.0);
        assert_eq!(v["nodes"], json!(["a", "b"]));
        assert_eq!(v["op_type"].as_array().unwrap().len(), 2);
        let d = detail.placement[0];
        assert_eq!(v["ops"][0], json!([d, 0.0, 2.0]));
        assert_eq!(v["ops"][1], json!([d, 2.0, 3.0]));
        assert_eq!(v["transfers"], json!([]));
        assert_eq!(v["devices"][0]["memory"], Value::Null);
        assert_eq!(v["devices"][d as usize]["ops"], 2, "{}", v["devices"]);
        assert_eq!(v["memory"].as_array().unwrap().len(), 2);
        assert_eq!(v["ready"], json!([0.0, 2.0]));
        assert_eq!(v["edges"], json!([0.0, 1.0, 100.0]));
        assert_eq!(
            v["critical_path"],
            json!({"steps": [{"op": 0}, {"op": 1}], "idle": 0.0})
        );
    }
}
