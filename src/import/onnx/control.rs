//! Control flow: `If`, `Loop` and `Scan` sized from their subgraphs, as one op each (their
//! subgraphs' nodes are not graph nodes of their own; docs/onnx.md):
//!
//! - `If`: the FLOPs of the **larger branch** (the worst case; which branch runs is decided at
//!   run time), its outputs' shapes from that branch.
//! - `Loop`: the body's FLOPs times the **trip count**, which must be a constant (`M`) known at
//!   import; the loop-carried outputs keep the body's shapes, scan outputs stack one per trip.
//! - `Scan`: the body's FLOPs times the scan inputs' length (their first dimension, or
//!   `scan_input_axes`' ), scan outputs stacked along their first axis.
//!
//! A subgraph reads outer tensors by name; the import sees them in `scope`.
//!
//! Not here: ops without subgraphs (`infer`).

use std::collections::BTreeMap;

use super::infer::{self, BatchChange, Info, Sized};
use super::proto::{GraphProto, NodeProto};

/// A subgraph's FLOPs and output infos, its inputs bound to `inputs` (in order), outer
/// tensors from `scope`; `None` when a node in it cannot be sized.
fn size_graph(
    g: &GraphProto,
    inputs: &[Info],
    scope: &BTreeMap<String, Info>,
    batch: BatchChange,
    depth: usize,
) -> Option<(f64, Vec<Info>)> {
    let mut infos = scope.clone();
    for (v, info) in g.input.iter().zip(inputs) {
        infos.insert(v.name.clone(), info.clone());
    }
    for t in &g.initializer {
        infos.insert(t.name.clone(), super::tensor_info(t)?);
    }
    let mut flops = 0.0;
    for n in &g.node {
        let ins: Vec<Option<Info>> = n
            .input
            .iter()
            .map(|x| (!x.is_empty()).then(|| infos.get(x).cloned()).flatten())
            .collect();
        let s = size_node(n, &ins, &infos, batch, depth + 1)?;
        flops += s.flops;
        for (o, info) in n.output.iter().zip(s.outputs) {
            if !o.is_empty() {
                infos.insert(o.clone(), info);
            }
        }
    }
    let outs = g
        .output
        .iter()
        .map(|o| infos.get(&o.name).cloned())
        .collect::<Option<Vec<Info>>>()?;
    Some((flops, outs))
}

/// Deepest nesting of subgraphs sized (a hostile model cannot recurse without end).
const MAX_DEPTH: usize = 16;

/// Sizes a node of the default domain, control flow included.
pub(super) fn size_node(
    n: &NodeProto,
    inputs: &[Option<Info>],
    scope: &BTreeMap<String, Info>,
    batch: BatchChange,
    depth: usize,
) -> Option<Sized> {
    if depth > MAX_DEPTH {
        return None;
    }
    let sub = |name: &str| {
        n.attribute
            .iter()
            .find(|a| a.name == name)
            .and_then(|a| a.g.as_ref())
    };
    let sized = match n.op_type.as_str() {
        "If" => {
            let (ft, ot) = size_graph(sub("then_branch")?, &[], scope, batch, depth)?;
            let (fe, oe) = size_graph(sub("else_branch")?, &[], scope, batch, depth)?;
            let (flops, outputs) = if fe > ft { (fe, oe) } else { (ft, ot) };
            Sized { outputs, flops }
        }
        "Loop" => loop_op(inputs, sub("body")?, scope, batch, depth)?,
        "Scan" => scan(n, inputs, sub("body")?, scope, batch, depth)?,
        _ => infer::infer(n, inputs, &super::tensor_info, batch).ok()?,
    };
    (sized.outputs.len() >= n.output.len() && sized.outputs.iter().all(|o| o.shape.is_some()))
        .then_some(sized)
}

/// `dims` with `k` prepended.
fn stacked(k: u64, info: &Info) -> Option<Info> {
    let mut shape = vec![k];
    shape.extend(info.shape.as_ref()?);
    Some(Info::new(info.dtype, shape))
}

/// Loop(M, cond, v_initial...): body(iteration, cond, v...) -> (cond, v..., scan outputs...).
fn loop_op(
    inputs: &[Option<Info>],
    body: &GraphProto,
    scope: &BTreeMap<String, Info>,
    batch: BatchChange,
    depth: usize,
) -> Option<Sized> {
    let trips = inputs.first()?.as_ref()?.value.as_ref()?.first().copied()?;
    if !(0.0..=1e12).contains(&trips) {
        return None;
    }
    let carried: Vec<Info> = inputs.iter().skip(2).cloned().collect::<Option<_>>()?;
    let mut body_in = vec![
        Info::new(infer::INT64, vec![]),
        Info::new(infer::BOOL, vec![]),
    ];
    body_in.extend(carried.iter().cloned());
    let (flops, outs) = size_graph(body, &body_in, scope, batch, depth)?;
    let k = carried.len();
    // Body outputs: cond, k carried, then scan outputs.
    let mut outputs: Vec<Info> = outs.get(1..1 + k)?.to_vec();
    for s in outs.get(1 + k..)? {
        outputs.push(stacked(trips as u64, s)?);
    }
    Some(Sized {
        outputs,
        flops: flops * trips,
    })
}

/// Scan(states..., scan inputs...): body(states..., slices...) -> (states..., outputs...).
fn scan(
    n: &NodeProto,
    inputs: &[Option<Info>],
    body: &GraphProto,
    scope: &BTreeMap<String, Info>,
    batch: BatchChange,
    depth: usize,
) -> Option<Sized> {
    let a = infer::Attrs(&n.attribute);
    let m = usize::try_from(a.int("num_scan_inputs")?).ok()?;
    let all: Vec<Info> = inputs.iter().cloned().collect::<Option<_>>()?;
    let states = all.len().checked_sub(m)?;
    let axes = a.ints("scan_input_axes").map(<[i64]>::to_vec);
    let mut body_in: Vec<Info> = all[..states].to_vec();
    let mut length = None;
    for (j, x) in all[states..].iter().enumerate() {
        let shape = x.shape.as_ref()?;
        let ax = axes.as_ref().map_or(0, |v| v.get(j).copied().unwrap_or(0));
        let ax = usize::try_from(if ax < 0 { ax + shape.len() as i64 } else { ax }).ok()?;
        let len = *shape.get(ax)?;
        if length.is_some_and(|l| l != len) {
            return None;
        }
        length = Some(len);
        let mut slice = shape.clone();
        slice.remove(ax);
        body_in.push(Info::new(x.dtype, slice));
    }
    let length = length?;
    let (flops, outs) = size_graph(body, &body_in, scope, batch, depth)?;
    let mut outputs: Vec<Info> = outs.get(..states)?.to_vec();
    for s in outs.get(states..)? {
        outputs.push(stacked(length, s)?);
    }
    Some(Sized {
        outputs,
        flops: flops * length as f64,
    })
}
