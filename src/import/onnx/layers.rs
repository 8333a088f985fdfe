//! The `layer` of a node: its module path or name scope, or, when no node name carries a
//! scope, a layer from the graph's structure (docs/onnx.md, "What a node and an edge are").
//!
//! Not here: numbering the layers (the build, `mod.rs`).

use std::collections::BTreeMap;

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

/// The scope of a node name: everything before its last `/`, leading `/` dropped
/// (`/layer1/layer1.0/conv1/Conv` -> `layer1/layer1.0/conv1`); a name without `/` is its own
/// scope.
/// The layer of an op when names carry no scopes (`Conv_12`): `None` when the op starts
/// a layer of its own (an op with a weight matrix: a Conv, Gemm, MatMul, RNN... reading an
/// initializer after its first input; or an op no other op feeds), else the latest layer
/// among the ops that feed it (the Relu after a Conv joins the Conv; a residual Add joins
/// its branch's last Conv, not the skip).
pub(super) fn structural_layer(
    n: &proto::NodeProto,
    i: usize,
    producer: &BTreeMap<&str, usize>,
    layer_of: &[Option<i64>],
    init_bytes: &BTreeMap<&str, f64>,
) -> Option<i64> {
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
    if matrix
        && n.input
            .iter()
            .skip(1)
            .any(|x| init_bytes.contains_key(x.as_str()))
    {
        return None;
    }
    n.input
        .iter()
        .filter_map(|x| producer.get(x.as_str()))
        .filter(|&&p| p != i)
        .filter_map(|&p| layer_of[p])
        .max()
}

pub(super) fn scope(id: &str) -> &str {
    let trimmed = id.trim_start_matches('/');
    match trimmed.rfind('/') {
        Some(i) if i > 0 => &trimmed[..i],
        _ => trimmed,
    }
}
