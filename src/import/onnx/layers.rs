//! The `layer` of a node: its module path or name scope, or, when no node name carries a
//! scope, a layer from the graph's structure (docs/onnx.md, "What a node and an edge are").
//!
//! Not here: numbering the layers (the build, `mod.rs`).

use std::collections::{BTreeMap, BTreeSet};

use super::proto;

/// The layer label of a node: the module path PyTorch's torch.export-based exporter records
/// in the node's `pkg.torch.onnx.name_scopes` (`['', 'layer1', 'layer1.0', 'conv1',
/// 'conv2d']` -> `layer1/layer1.0/conv1`: the op's own last entry and the root's empty one
/// dropped), else the scope of its name ([`scope`]).
pub(super) fn layer_label(n: &proto::NodeProto, id: &str) -> String {
    let modules = n
        .metadata_props
        .iter()
        .find(|p| p.key == "pkg.torch.onnx.name_scopes")
        .map(|p| {
            // A Python list of strings as text; module names are identifiers and indices.
            let inner = p.value.trim().trim_start_matches('[').trim_end_matches(']');
            let mut parts: Vec<&str> = inner
                .split(',')
                .map(|s| s.trim().trim_matches(|c| c == '\'' || c == '"'))
                .collect();
            parts.pop();
            parts.retain(|s| !s.is_empty());
            parts.join("/")
        })
        .filter(|path| !path.is_empty());
    modules.unwrap_or_else(|| scope(id).to_string())
}

/// Where an op goes when layers come from the structure ([`structural_layer`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    /// A layer of its own.
    New,
    /// An existing layer.
    Join(i64),
    /// Its first consumer's layer: an op that reads only constants (an `Identity` of a
    /// weight, a `Constant`), decided once its consumers have theirs.
    Consumer,
}

/// The layer of an op when names carry no scopes (`Conv_12`). `constant`: the tensors known
/// before the model runs (initializers, weight constants, and what ops reading only those
/// write). An op reading only constants takes its consumer's layer; an op with a weight
/// matrix (a Conv, Gemm, MatMul, RNN... reading a constant after its first input) starts a
/// layer; any other op joins the latest layer among the ops that feed it (the Relu after a
/// Conv joins the Conv; a residual Add joins its branch's last Conv, not the skip), or
/// starts one when nothing feeds it.
pub(super) fn structural_layer(
    n: &proto::NodeProto,
    i: usize,
    producer: &BTreeMap<&str, usize>,
    layer_of: &[Option<i64>],
    constant: &BTreeSet<&str>,
) -> Place {
    let matrix = matches!(
        n.op_type.as_str(),
        "Conv"
            | "ConvTranspose"
            | "Gemm"
            | "MatMul"
            | "Einsum"
            | "LSTM"
            | "GRU"
            | "RNN"
            | "ConvInteger"
            | "MatMulInteger"
            | "QLinearConv"
            | "QLinearMatMul"
    );
    let is_const = |x: &String| constant.contains(x.as_str());
    if n.input.iter().filter(|x| !x.is_empty()).all(is_const) {
        return Place::Consumer;
    }
    if matrix && n.input.iter().skip(1).any(is_const) {
        return Place::New;
    }
    n.input
        .iter()
        .filter_map(|x| producer.get(x.as_str()))
        .filter(|&&p| p != i)
        .filter_map(|&p| layer_of[p])
        .max()
        .map_or(Place::New, Place::Join)
}

/// The scope of a node name: everything before its last `/`, leading `/` dropped
/// (`/layer1/layer1.0/conv1/Conv` -> `layer1/layer1.0/conv1`); a name without `/` is its own
/// scope.
pub(super) fn scope(id: &str) -> &str {
    let trimmed = id.trim_start_matches('/');
    match trimmed.rfind('/') {
        Some(i) if i > 0 => &trimmed[..i],
        _ => trimmed,
    }
}
