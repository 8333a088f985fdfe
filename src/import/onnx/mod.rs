//! ONNX models in: the protobuf of an `.onnx` file (what PyTorch, Keras via tf2onnx and most
//! frameworks export) to a placesim [`Graph`](crate::model::graph::Graph): one node per ONNX node with its FLOPs as
//! `cost`, the bytes of the initializers it reads as `mem`, one edge per tensor use with the
//! tensor's bytes, the op type, and a layer from the node's name scope. `docs/onnx.md` states
//! every convention (FLOPs per op, layers, what a training graph adds).
//!
//! [`import`] decodes (`proto`), orders the nodes, infers shapes and FLOPs (`infer`), adds the
//! backward pass and updates when asked (`train`), and builds through [`GraphBuilder`], so an
//! imported graph is validated like a graph file. Bad input gives one error naming the
//! model's part at fault (input, node, opset), never a panic; an op it cannot size gets cost
//! 0 and a line in the [`Report`].
//!
//! Not here: reading files (the caller passes bytes) and anything about devices.

mod control;
mod forward;
mod infer;
mod layers;
mod lost;
mod options;
mod proto;
mod report;
mod tensors;
mod train;

use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

use bytes::Bytes;
use prost::Message;

use crate::error::{Error, Result};
use crate::model::graph::GraphBuilder;

use forward::Forward;
use infer::{elems, Info};
use lost::check_lost;
use options::{is_float, ALLOW_IT, SIZE_IT};
pub use options::{Dtype, OptionField, Options};
use proto::ValueInfoProto;
pub use report::{Imported, Report, Unsized};
use tensors::{input_info, static_info, tensor_bytes, tensor_info, tensor_values};

/// Largest model file read: protobuf's own 2 GiB message limit. Larger models are stored
/// with external data (the `.onnx` file then holds the graph and the weights' shapes).
pub const MAX_MODEL_BYTES: usize = (1 << 31) - 1;

/// Newest opset of the default domain whose ops the importer knows (ONNX 1.23).
pub const MAX_OPSET: i64 = 28;

/// Newest ONNX IR version the importer reads.
pub const MAX_IR_VERSION: i64 = 14;

/// How many node names a report line lists per op type.
const NAMES_SHOWN: usize = 3;

/// Whether a file is an ONNX model rather than graph JSON: its name ends in `.onnx`, or its
/// first byte is protobuf's tag of `ModelProto.ir_version` (field 1, varint: `0x08`), which
/// no JSON text starts with.
pub fn is_onnx(path: &str, bytes: &[u8]) -> bool {
    path.to_ascii_lowercase().ends_with(".onnx") || bytes.first() == Some(&0x08)
}

fn bad(message: impl Into<String>) -> Error {
    Error::Parse {
        what: "ONNX model".into(),
        message: message.into(),
    }
}

/// An edge of the graph being built: src, dst, bytes, tensor name.
pub(crate) struct EdgeSpec {
    pub src: String,
    pub dst: String,
    pub bytes: f64,
    pub tensor: String,
}

/// Reads an ONNX model (the whole `.onnx` file) into a graph named `name`.
pub fn import(bytes: impl Into<Bytes>, name: &str, opts: &Options) -> Result<Imported> {
    let bytes: Bytes = bytes.into();
    if bytes.len() > MAX_MODEL_BYTES {
        return Err(bad(format!(
            "{} bytes is more than protobuf's 2 GiB limit; export the model with external data \
             (the .onnx file then holds only the graph)",
            bytes.len()
        )));
    }
    if bytes.is_empty() {
        return Err(bad("the file is empty"));
    }
    let model = proto::ModelProto::decode(bytes).map_err(|e| {
        bad(format!(
            "not an ONNX model (protobuf: {e}); truncated or not a .onnx file?"
        ))
    })?;
    if !(1..=MAX_IR_VERSION).contains(&model.ir_version) {
        return Err(bad(format!(
            "not an ONNX model, or one too new: IR version {} (this importer reads 1..={MAX_IR_VERSION})",
            model.ir_version
        )));
    }
    let opset = model
        .opset_import
        .iter()
        .find(|o| o.domain.is_empty() || o.domain == "ai.onnx")
        .map(|o| o.version);
    match opset {
        Some(v) if (1..=MAX_OPSET).contains(&v) => {}
        Some(v) => {
            return Err(bad(format!(
                "opset {v} of the default domain is unknown (this importer knows 1..={MAX_OPSET})"
            )))
        }
        None if model.ir_version < 3 => {} // before opset imports existed
        None => return Err(bad("the model imports no opset of the default ONNX domain")),
    }
    let g = model.graph.ok_or_else(|| bad("the model has no graph"))?;
    if g.node.is_empty() {
        return Err(bad("the model's graph has no nodes"));
    }
    for name in opts.input_shapes.keys() {
        if !g.input.iter().any(|i| &i.name == name) {
            let names: Vec<&str> = g.input.iter().map(|i| i.name.as_str()).collect();
            return Err(bad(format!(
                "input shape '{name}' names no input of the model (inputs: {})",
                names.join(", ")
            )));
        }
    }
    let change = batch_change(&g, opts);
    let mut imported = build(&g, name, opts, change.clone())?;
    if let Some((input, old, new)) = change {
        // The batch of a static-batch export is baked into its shape constants: the
        // Reshapes that start with it take the new batch (infer's BatchChange), and the
        // forward FLOPs must then scale with the batch, or the import is refused.
        let mut exported = opts.clone();
        exported.train = false;
        exported.allow_unsized = true;
        if let Some(s) = exported.input_shapes.get_mut(&input) {
            s[0] = old;
        }
        let base = build(&g, name, &exported, None)?;
        let want = base.report.forward_flops * new as f64 / old as f64;
        let got = imported.report.forward_flops;
        if want > 0.0 && (got / want - 1.0).abs() > BATCH_TOLERANCE {
            return Err(bad(format!(
                "input shape '{input}': the model was exported at batch {old}, and batch {new} \
                 gives {:.2}x its forward FLOPs instead of {:.2}x: the batch is baked into the \
                 model's shape constants. Re-export with a dynamic batch axis \
                 (torch.onnx.export(..., dynamic_axes={{'{input}': {{0: 'batch'}}}}), or a \
                 None batch in the Keras/TensorFlow input signature) and set the batch, or \
                 import at batch {old}",
                got / base.report.forward_flops,
                new as f64 / old as f64
            )));
        }
        imported.report.notes.push(format!(
            "input '{input}' was exported at batch {old}; at batch {new} the forward FLOPs are \
             {:.2}x those at batch {old} (the exported batch in Reshape targets was replaced)",
            got / base.report.forward_flops.max(f64::MIN_POSITIVE)
        ));
    }
    Ok(imported)
}

/// How far (relative) the forward FLOPs at a changed batch may be from the exported batch's
/// times the batch ratio before the import is refused as batch-baked-in.
const BATCH_TOLERANCE: f64 = 0.05;

/// The input whose static leading dimension an input shape changes: (input, exported
/// batch, asked batch). The first such input, by name.
fn batch_change(g: &proto::GraphProto, opts: &Options) -> Option<(String, u64, u64)> {
    opts.input_shapes.iter().find_map(|(name, shape)| {
        let v = g.input.iter().find(|v| &v.name == name)?;
        let dims = &v.r#type.as_ref()?.tensor_type.as_ref()?.shape.as_ref()?.dim;
        let old = u64::try_from(dims.first()?.dim_value?).ok()?;
        let new = *shape.first()?;
        (old > 0 && new != old && dims.len() == shape.len()).then(|| (name.clone(), old, new))
    })
}

/// Whether input `pos` of op `op` is a weight (a parameter the op holds): a Constant feeding
/// only such inputs is a parameter, like an initializer.
fn weight_input(op: &str, pos: usize) -> bool {
    match op {
        "Conv"
        | "ConvTranspose"
        | "Gemm"
        | "MatMul"
        | "BatchNormalization"
        | "LayerNormalization"
        | "InstanceNormalization"
        | "GroupNormalization"
        | "PRelu"
        | "Einsum"
        | "LSTM"
        | "GRU"
        | "RNN" => pos >= 1,
        "Add" | "Sub" | "Mul" | "Div" => true,
        "ConvInteger" | "MatMulInteger" => pos >= 1,
        "QLinearConv" | "QLinearMatMul" => pos >= 3,
        _ => false,
    }
}

/// Imports graph `g` with the options; `change`: see [`batch_change`].
fn build(
    g: &proto::GraphProto,
    name: &str,
    opts: &Options,
    change: Option<(String, u64, u64)>,
) -> Result<Imported> {
    let mut report = Report::default();
    let mut known = known_tensors(g, opts, &mut report)?;
    let declared: BTreeMap<&str, Info> = g
        .value_info
        .iter()
        .chain(&g.output)
        .filter_map(|v| Some((v.name.as_str(), static_info(v)?)))
        .collect();
    let nodes = weight_constants(g, opts, &mut report, &mut known);
    report.onnx_nodes = nodes.len();
    let (ids, producer) = node_ids(&nodes, &known.infos)?;
    let order = topological(&nodes, &ids, &producer, &known.infos)?;
    let batch = change.as_ref().map(|(_, old, new)| (*old, *new));

    // Forward nodes and edges, in topological order.
    let mut fwd = Forward::new(&nodes, &ids, &producer, &known);
    for &i in &order {
        report.forward_flops += fwd.node(i, &mut known, &declared, batch, opts.dtype);
    }
    if fwd.structural {
        fwd.constant_readers_layers();
    }
    fwd.notes(&mut report);
    let Forward {
        mut specs,
        mut edges,
        params,
        lost,
        ..
    } = fwd;
    let infos = known.infos;
    check_lost(&nodes, &ids, &producer, &lost, &report, opts, &change)
        .map(|note| report.notes.extend(note))?;
    if let Some(d) = opts.dtype {
        report.notes.push(dtype_note(g, d));
    }
    if opts.train {
        let outputs = output_tensors(&nodes, &order, &ids);
        train::add_training(
            &mut specs, &mut edges, &outputs, &params, &infos, opts.dtype,
        );
    }
    let mut b = GraphBuilder::new();
    for s in specs {
        b.node(s);
    }
    for e in &edges {
        b.edge(&e.src, &e.dst, e.bytes, Some(&e.tensor));
    }
    let graph = b.build(name)?;
    Ok(Imported { graph, report })
}

/// What is known of the model's tensors before its nodes are sized (initializers, inputs,
/// Constants that hold weights), then as they are sized.
struct Known<'g> {
    infos: BTreeMap<&'g str, Option<Info>>,
    /// The parameters' bytes: initializers and weight Constants.
    init_bytes: BTreeMap<&'g str, f64>,
    /// Initializers whose values are in the external file, by name: an op that needs one's
    /// values (a Reshape's shape, say) cannot be sized, and the report names the file.
    external_names: BTreeSet<&'g str>,
}

/// What is known of every tensor: initializers (counted in the report's parameter bytes,
/// with a note when they are stored in an external file), then inputs that are not
/// initializers; errors on a negative dimension, an input that cannot be sized, or a batch
/// asked of a model without a dynamic first dimension ([`check_batch`]).
fn known_tensors<'g>(
    g: &'g proto::GraphProto,
    opts: &Options,
    report: &mut Report,
) -> Result<Known<'g>> {
    let mut infos: BTreeMap<&str, Option<Info>> = BTreeMap::new();
    let mut init_bytes: BTreeMap<&str, f64> = BTreeMap::new();
    let mut external = (0usize, 0.0f64);
    let mut external_names: BTreeSet<&str> = BTreeSet::new();
    for t in &g.initializer {
        let info = tensor_info(t)
            .ok_or_else(|| bad(format!("initializer '{}' has a negative dimension", t.name)))?;
        let b = tensor_bytes(&info, opts.dtype);
        if t.data_location == 1 || !t.external_data.is_empty() {
            external.0 += 1;
            external.1 += b;
            external_names.insert(&t.name);
        }
        report.param_bytes += b;
        init_bytes.insert(&t.name, b);
        infos.insert(&t.name, Some(info));
    }
    if external.0 > 0 {
        let file = g
            .initializer
            .iter()
            .flat_map(|t| &t.external_data)
            .find(|e| e.key == "location")
            .map_or(String::new(), |e| format!(" ('{}')", e.value));
        report.notes.push(format!(
            "{} initializers ({:.4e} bytes) are stored in an external file{file}; their sizes come \
             from the model, their values are not needed",
            external.0, external.1
        ));
    }
    for v in &g.input {
        if !infos.contains_key(v.name.as_str()) {
            infos.insert(&v.name, Some(input_info(v, opts)?));
        }
    }
    let known = Known {
        infos,
        init_bytes,
        external_names,
    };
    check_batch(g, opts, &known)?;
    Ok(known)
}

/// With `--batch`: an error unless an input (not an initializer, not given a shape) has a
/// dynamic first dimension. `batch` sizes dynamic first dimensions only; silently keeping a
/// static batch would give another model than the one asked for.
fn check_batch(g: &proto::GraphProto, opts: &Options, known: &Known) -> Result<()> {
    let Known {
        infos, init_bytes, ..
    } = known;
    if let Some(b) = opts.batch {
        let dynamic_first = |v: &&ValueInfoProto| {
            let dims = v
                .r#type
                .as_ref()
                .and_then(|t| t.tensor_type.as_ref())
                .and_then(|t| t.shape.as_ref());
            dims.and_then(|d| d.dim.first())
                .is_some_and(|d| d.dim_value.is_none_or(|x| x <= 0))
        };
        let inputs: Vec<&ValueInfoProto> = g
            .input
            .iter()
            .filter(|v| {
                !init_bytes.contains_key(v.name.as_str())
                    && !opts.input_shapes.contains_key(&v.name)
            })
            .collect();
        if !inputs.iter().any(dynamic_first) {
            let shown: Vec<String> = inputs
                .iter()
                .filter_map(|v| {
                    Some((
                        v.name.as_str(),
                        infos.get(v.name.as_str())?.as_ref()?.shape.as_ref()?,
                    ))
                })
                .map(|(n, s)| {
                    format!(
                        "'{n}' is {}",
                        s.iter().map(u64::to_string).collect::<Vec<_>>().join("x")
                    )
                })
                .collect();
            return Err(bad(format!(
                "batch {b}: no input has a dynamic first dimension ({}); set a static input shape \
                 NAME=DIMS instead (the model's reshapes may assume the exported batch)",
                if shown.is_empty() {
                    "the model has no input to size".to_string()
                } else {
                    shown.join(", ")
                }
            )));
        }
    }
    Ok(())
}

/// The nodes the graph keeps: all but the Constants that hold weights (some exporters,
/// Paddle's, store every weight so). A floating-point Constant read only at weight inputs
/// ([`weight_input`]) is a parameter, as an initializer: it goes into `known` and the
/// report's parameter bytes, with a note counting them.
fn weight_constants<'g>(
    g: &'g proto::GraphProto,
    opts: &Options,
    report: &mut Report,
    known: &mut Known<'g>,
) -> Vec<&'g proto::NodeProto> {
    let mut readers: BTreeMap<&str, Vec<(&str, usize)>> = BTreeMap::new();
    for n in &g.node {
        for (pos, x) in n.input.iter().enumerate().filter(|(_, x)| !x.is_empty()) {
            readers.entry(x).or_default().push((&n.op_type, pos));
        }
    }
    let graph_outputs: BTreeSet<&str> = g.output.iter().map(|o| o.name.as_str()).collect();
    let mut weight_consts = (0usize, 0.0f64);
    let mut kept: Vec<&proto::NodeProto> = Vec::with_capacity(g.node.len());
    for n in &g.node {
        let is_const = n.op_type == "Constant"
            && (n.domain.is_empty() || n.domain == "ai.onnx")
            && n.output.len() == 1
            && !graph_outputs.contains(n.output[0].as_str());
        let value = is_const
            .then(|| infer::infer(n, &[], &tensor_info, None).ok())
            .flatten()
            .map(|s| s.outputs[0].clone())
            // Scalars (a scale, an epsilon) are constants, not weights.
            .filter(|i| {
                matches!(i.dtype, 1 | 10 | 11 | 16)
                    && i.shape.as_ref().is_some_and(|s| elems(s) > 1.0)
            });
        let weight = value.filter(|_| {
            readers
                .get(n.output[0].as_str())
                .is_some_and(|r| r.iter().all(|&(op, pos)| weight_input(op, pos)))
        });
        match weight {
            Some(info) if !known.infos.contains_key(n.output[0].as_str()) => {
                let b = tensor_bytes(&info, opts.dtype);
                weight_consts.0 += 1;
                weight_consts.1 += b;
                report.param_bytes += b;
                known.init_bytes.insert(&n.output[0], b);
                known.infos.insert(&n.output[0], Some(info));
            }
            _ => kept.push(n),
        }
    }
    if weight_consts.0 > 0 {
        report.notes.push(format!(
            "{} Constant nodes hold weights ({:.4e} bytes): parameters of the ops that read them, \
             like initializers (no graph nodes of their own)",
            weight_consts.0, weight_consts.1
        ));
    }
    kept
}

/// Node ids (names, made unique: `name_1`, ...; `Op_i` for a node without a name) and the
/// node producing each tensor; an error when a tensor is written twice.
fn node_ids<'g>(
    nodes: &[&'g proto::NodeProto],
    infos: &BTreeMap<&str, Option<Info>>,
) -> Result<(Vec<String>, BTreeMap<&'g str, usize>)> {
    let mut used = BTreeSet::new();
    let mut ids = Vec::with_capacity(nodes.len());
    let mut producer: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, n) in nodes.iter().enumerate() {
        let base = if n.name.is_empty() {
            format!("{}_{i}", n.op_type)
        } else {
            n.name.clone()
        };
        let mut id = base.clone();
        let mut k = 1;
        while !used.insert(id.clone()) {
            id = format!("{base}_{k}");
            k += 1;
        }
        for o in n.output.iter().filter(|o| !o.is_empty()) {
            if infos.contains_key(o.as_str()) || producer.insert(o, i).is_some() {
                return Err(bad(format!("node '{id}' ({}) writes '{o}', which another node, input or initializer already provides", n.op_type)));
            }
        }
        ids.push(id);
    }
    Ok((ids, producer))
}

/// What `--dtype` changed: the precision asked and the model's own floating-point types
/// (of its initializers and inputs).
fn dtype_note(g: &proto::GraphProto, d: Dtype) -> String {
    let own: BTreeSet<&str> = g
        .initializer
        .iter()
        .map(|t| t.data_type)
        .chain(g.input.iter().filter_map(|v| {
            v.r#type
                .as_ref()
                .and_then(|t| t.tensor_type.as_ref())
                .map(|t| t.elem_type)
        }))
        .filter(|&t| is_float(t))
        .map(proto::type_name)
        .collect();
    let own: Vec<&str> = own.into_iter().collect();
    format!(
        "floating-point tensors counted at {} ({} bytes per element; the model's own: {})",
        d.name(),
        d.bytes(),
        if own.is_empty() {
            "none".to_string()
        } else {
            own.join(", ")
        }
    )
}

/// Each node's first named output, by node id (the tensor its backward pass reads).
fn output_tensors(
    nodes: &[&proto::NodeProto],
    order: &[usize],
    ids: &[String],
) -> BTreeMap<String, String> {
    order
        .iter()
        .filter_map(|&i| {
            Some((
                ids[i].clone(),
                nodes[i].output.iter().find(|o| !o.is_empty())?.clone(),
            ))
        })
        .collect()
}

/// Nodes in a topological order: the file's order where it is one (ONNX requires it), the
/// smallest index first among the ready ones otherwise. Errors name a node that reads a
/// tensor nothing provides, or one on a cycle.
fn topological(
    nodes: &[&proto::NodeProto],
    ids: &[String],
    producer: &BTreeMap<&str, usize>,
    infos: &BTreeMap<&str, Option<Info>>,
) -> Result<Vec<usize>> {
    let mut indegree = vec![0usize; nodes.len()];
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        let mut seen = BTreeSet::new();
        for x in n.input.iter().filter(|x| !x.is_empty()) {
            if let Some(&p) = producer.get(x.as_str()) {
                if seen.insert(p) {
                    indegree[i] += 1;
                    users[p].push(i);
                }
            } else if !infos.contains_key(x.as_str()) {
                return Err(bad(format!(
                    "node '{}' ({}) reads '{x}', which no node, input or initializer provides",
                    ids[i], n.op_type
                )));
            }
        }
    }
    let mut ready: BinaryHeap<std::cmp::Reverse<usize>> = (0..nodes.len())
        .filter(|&i| indegree[i] == 0)
        .map(std::cmp::Reverse)
        .collect();
    let mut order = Vec::with_capacity(nodes.len());
    while let Some(std::cmp::Reverse(i)) = ready.pop() {
        order.push(i);
        for &u in &users[i] {
            indegree[u] -= 1;
            if indegree[u] == 0 {
                ready.push(std::cmp::Reverse(u));
            }
        }
    }
    if order.len() < nodes.len() {
        let stuck = (0..nodes.len()).find(|&i| indegree[i] > 0).unwrap_or(0);
        return Err(bad(format!("node '{}' is on a cycle", ids[stuck])));
    }
    Ok(order)
}

#[cfg(test)]
mod tests;
