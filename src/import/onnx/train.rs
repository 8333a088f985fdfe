//! The training step of an imported forward graph, in the shape of the bundled TensorFlow
//! training graphs: a backward op per differentiable forward op, and an optimizer update
//! per op that holds parameters, colocated with it.
//!
//! - `gradient/<id>` (op `<op>Grad`): 2x the forward op's FLOPs (the gradients with respect
//!   to its inputs and to its weights, each about one forward pass), in the forward op's
//!   layer. It reads the forward op's output (`<id> -> gradient/<id>`, the output's bytes;
//!   for an op no one consumes, the loss's gradient starts here), the activations the forward
//!   op read (`u -> gradient/<id>` for each forward edge `u -> <id>`, the same tensor) and the
//!   gradient of its output from each consumer (`gradient/<v> -> gradient/<id>`, the
//!   tensor's bytes).
//! - `update/<id>` (op `ApplyGradientDescent`): plain SGD, 2 FLOPs per parameter element
//!   (`w -= lr * g`), reading the weight gradient (`gradient/<id> -> update/<id>`, the
//!   parameters' bytes) and colocated with `<id>` (group `params/<id>`), which holds the
//!   weights, as TensorFlow colocates a variable's update with the variable.
//!
//! An op whose first output is not floating point (Shape, integer arithmetic, comparisons)
//! has no gradient op.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::graph::NodeSpec;

use super::infer::Info;
use super::{is_float, tensor_bytes, Dtype, EdgeSpec};

/// Floating-point outputs have gradients.
fn differentiable(info: Option<&Info>) -> bool {
    info.is_none_or(|i| is_float(i.dtype))
}

/// Appends the backward ops and updates to a forward graph (`specs` in topological order).
/// `outputs`: each node's first output tensor; `params`: parameter elements per node;
/// `dtype`: the precision floating-point tensors are counted at.
pub(super) fn add_training(
    specs: &mut Vec<NodeSpec>,
    edges: &mut Vec<EdgeSpec>,
    outputs: &BTreeMap<String, String>,
    params: &BTreeMap<String, f64>,
    infos: &BTreeMap<&str, Option<Info>>,
    dtype: Option<Dtype>,
) {
    let info = |id: &str| {
        outputs
            .get(id)
            .and_then(|t| infos.get(t.as_str()).cloned().flatten())
    };
    let forward: Vec<NodeSpec> = specs.clone();
    let has_grad: BTreeSet<&str> = forward
        .iter()
        .filter(|s| differentiable(info(&s.id).as_ref()))
        .map(|s| s.id.as_str())
        .collect();
    let grad = |id: &str| format!("gradient/{id}");
    let forward_edges = edges.len();
    // Backward ops in reverse topological order.
    for s in forward
        .iter()
        .rev()
        .filter(|s| has_grad.contains(s.id.as_str()))
    {
        specs.push(NodeSpec {
            id: grad(&s.id),
            op: format!("{}Grad", s.op),
            cost: Some(2.0 * s.cost.unwrap_or(0.0)),
            layer: s.layer,
            ..NodeSpec::default()
        });
        if let Some(t) = outputs.get(&s.id) {
            edges.push(EdgeSpec {
                src: s.id.clone(),
                dst: grad(&s.id),
                bytes: info(&s.id).map_or(0.0, |i| tensor_bytes(&i, dtype)),
                tensor: t.clone(),
            });
        }
    }
    for k in 0..forward_edges {
        let (src, dst, bytes, tensor) = {
            let e = &edges[k];
            (e.src.clone(), e.dst.clone(), e.bytes, e.tensor.clone())
        };
        if !has_grad.contains(dst.as_str()) {
            continue;
        }
        edges.push(EdgeSpec {
            src: src.clone(),
            dst: grad(&dst),
            bytes,
            tensor: tensor.clone(),
        });
        if has_grad.contains(src.as_str()) {
            edges.push(EdgeSpec {
                src: grad(&dst),
                dst: grad(&src),
                bytes,
                tensor: format!("gradient/{tensor}"),
            });
        }
    }
    for s in &forward {
        let Some(&n) = params.get(&s.id).filter(|&&n| n > 0.0) else {
            continue;
        };
        if !has_grad.contains(s.id.as_str()) {
            continue;
        }
        let group = format!("params/{}", s.id);
        specs.push(NodeSpec {
            id: format!("update/{}", s.id),
            op: "ApplyGradientDescent".into(),
            cost: Some(2.0 * n),
            colocate: Some(group.clone()),
            layer: s.layer,
            ..NodeSpec::default()
        });
        edges.push(EdgeSpec {
            src: grad(&s.id),
            dst: format!("update/{}", s.id),
            bytes: s.mem,
            tensor: "weight_gradient".into(),
        });
        if let Some(f) = specs.iter_mut().find(|f| f.id == s.id) {
            f.colocate = Some(group);
        }
    }
}
