//! A run's full schedule as Chrome trace-event JSON and as compact timeline data.
//!
//! Chrome trace (opened by Perfetto and chrome://tracing): one process per device, thread 0
//! for its ops, one thread per incoming link for transfers into it, and a `memory` counter
//! per device. Times are written in microseconds of simulated time (`ts = seconds * 1e6`).
//!
//! Timeline data is what the page's Gantt chart draws: arrays instead of objects, so that
//! 20,000 ops stay small.

use serde_json::{json, Value};

use crate::compare::RunDetail;

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

/// Compact data for the page's timeline.
pub fn timeline(detail: &RunDetail) -> Value {
    let p = &detail.problem;
    let g = p.graph;
    let empty = crate::sim::Trace {
        ops: vec![],
        transfers: vec![],
        transfer_times: vec![],
        memory: vec![],
    };
    let trace = detail.sim.trace.as_ref().unwrap_or(&empty);
    let ops: Vec<Value> = trace
        .ops
        .iter()
        .enumerate()
        .map(|(v, &(s, e))| json!([detail.placement[v], s, e]))
        .collect();
    let transfers: Vec<Value> = trace
        .transfers
        .iter()
        .zip(&trace.transfer_times)
        .map(|(tr, t)| {
            json!([
                tr.src,
                tr.dst,
                t.ready,
                t.start,
                t.end,
                tr.bytes,
                g.tensors[tr.tensor as usize].src
            ])
        })
        .collect();
    let memory: Vec<Vec<f64>> = trace
        .memory
        .iter()
        .map(|c| c.iter().flat_map(|&(t, b)| [t, b]).collect())
        .collect();
    json!({
        "makespan": detail.sim.makespan,
        "lower_bound": detail.lower_bound,
        "placement_seconds": detail.placement_seconds,
        "devices": p.cluster.devices.iter().zip(&detail.sim.devices).map(|(d, s)| json!({
            "id": d.id, "kind": d.kind, "speed": d.speed,
            "memory": d.memory.is_finite().then_some(d.memory),
            "busy": s.busy, "peak_memory": s.peak_memory, "oom": s.oom, "ops": s.ops
        })).collect::<Vec<_>>(),
        "nodes": g.nodes.iter().map(|n| n.id.as_str()).collect::<Vec<_>>(),
        "op_types": g.op_types,
        "op_type": (0..g.node_count() as u32).map(|v| g.op_type(v)).collect::<Vec<_>>(),
        "ops": ops,
        "transfers": transfers,
        "memory": memory,
    })
}
