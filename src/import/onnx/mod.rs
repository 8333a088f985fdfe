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
use crate::model::graph::{GraphBuilder, NodeSpec};

use infer::{elems, Info};
use layers::{layer_label, structural_layer, Place};
use lost::{check_lost, inputs_text};
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
    // What is known of every tensor: initializers, then inputs that are not initializers.
    let mut infos: BTreeMap<&str, Option<Info>> = BTreeMap::new();
    let mut init_bytes: BTreeMap<&str, f64> = BTreeMap::new();
    let mut external = (0usize, 0.0f64);
    // Initializers whose values are in the external file, by name: an op that needs one's
    // values (a Reshape's shape, say) cannot be sized, and the report names the file.
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
    if let Some(b) = opts.batch {
        // `batch` sizes dynamic first dimensions only; silently keeping a static batch would
        // give another model than the one asked for.
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
    let declared: BTreeMap<&str, Info> = g
        .value_info
        .iter()
        .chain(&g.output)
        .filter_map(|v| Some((v.name.as_str(), static_info(v)?)))
        .collect();

    // Constants that hold weights (some exporters, Paddle's, store every weight so): a
    // floating-point Constant read only at weight inputs is a parameter, as an initializer.
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
            Some(info) if !infos.contains_key(n.output[0].as_str()) => {
                let b = tensor_bytes(&info, opts.dtype);
                weight_consts.0 += 1;
                weight_consts.1 += b;
                report.param_bytes += b;
                init_bytes.insert(&n.output[0], b);
                infos.insert(&n.output[0], Some(info));
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
    let nodes = kept;
    report.onnx_nodes = nodes.len();

    // Node ids (names, made unique) and producers.
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
    let order = topological(&nodes, &ids, &producer, &infos)?;
    let batch = change.as_ref().map(|(_, old, new)| (*old, *new));

    // Forward nodes and edges, in topological order.
    let mut specs: Vec<NodeSpec> = Vec::with_capacity(nodes.len());
    let mut edges: Vec<EdgeSpec> = Vec::new();
    let mut layers: BTreeMap<String, i64> = BTreeMap::new();
    // Names that carry no scope at all (`Conv_12`): layers from the structure instead.
    let structural = nodes
        .iter()
        .zip(&ids)
        .all(|(n, id)| layer_label(n, id) == id.trim_start_matches('/'));
    let mut layer_of: Vec<Option<i64>> = vec![None; nodes.len()];
    let mut constant: BTreeSet<&str> = init_bytes.keys().copied().collect();
    let mut claimed: BTreeSet<&str> = BTreeSet::new();
    let mut params: BTreeMap<String, f64> = BTreeMap::new();
    let mut unsized_ops: BTreeMap<String, Unsized> = BTreeMap::new();
    // Nodes not sized, with why and what their inputs were, in topological order.
    let mut lost: Vec<(usize, Option<infer::Fail>, String)> = Vec::new();
    let mut from_value_info = 0usize;
    // (node id, external initializer) of ops not sized that read an external initializer.
    let mut blocked_by_external: Vec<(String, String)> = Vec::new();
    for &i in &order {
        let n = nodes[i];
        let id = &ids[i];
        let inputs: Vec<Option<Info>> = n
            .input
            .iter()
            .map(|x| {
                if x.is_empty() {
                    None
                } else {
                    infos.get(x.as_str()).cloned().flatten()
                }
            })
            .collect();
        let default_domain = n.domain.is_empty() || n.domain == "ai.onnx";
        let control_flow = matches!(n.op_type.as_str(), "If" | "Loop" | "Scan");
        let sized = if default_domain && control_flow {
            let scope: BTreeMap<String, Info> = infos
                .iter()
                .filter_map(|(k, v)| Some((k.to_string(), v.clone()?)))
                .collect();
            control::size_node(n, &inputs, &scope, batch, 0).ok_or(infer::Fail::NotSized)
        } else if default_domain {
            infer::infer(n, &inputs, &tensor_info, batch).and_then(|s| {
                if s.outputs.iter().all(|o| o.shape.is_some()) {
                    Ok(s)
                } else {
                    Err(infer::Fail::NotSized)
                }
            })
        } else {
            Err(infer::Fail::NoRule)
        };
        let cost = match &sized {
            Ok(s) => {
                for (o, info) in n.output.iter().zip(&s.outputs) {
                    if !o.is_empty() {
                        infos.insert(o, Some(info.clone()));
                    }
                }
                s.flops
            }
            Err(fail) => {
                lost.push((i, default_domain.then_some(*fail), inputs_text(n, &infos)));
                let op = if default_domain {
                    n.op_type.clone()
                } else {
                    format!("{}.{}", n.domain, n.op_type)
                };
                let u = unsized_ops.entry(op.clone()).or_insert(Unsized {
                    op,
                    count: 0,
                    nodes: Vec::new(),
                });
                u.count += 1;
                if u.nodes.len() < NAMES_SHOWN {
                    u.nodes.push(id.clone());
                }
                if let Some(x) = n.input.iter().find(|x| external_names.contains(x.as_str())) {
                    blocked_by_external.push((id.clone(), x.clone()));
                }
                for o in n.output.iter().filter(|o| !o.is_empty()) {
                    let known = declared.get(o.as_str()).cloned();
                    from_value_info += usize::from(known.is_some());
                    infos.insert(o, known);
                }
                0.0
            }
        };
        report.forward_flops += cost;
        let mut mem = 0.0;
        let mut seen = BTreeSet::new();
        for x in n.input.iter().filter(|x| !x.is_empty()) {
            if !seen.insert(x.as_str()) {
                continue;
            }
            if let Some(&b) = init_bytes.get(x.as_str()) {
                if claimed.insert(x) {
                    mem += b;
                    let shape = infos
                        .get(x.as_str())
                        .cloned()
                        .flatten()
                        .and_then(|t| t.shape);
                    *params.entry(id.clone()).or_default() += shape.map_or(0.0, |s| elems(&s));
                }
            } else if let Some(&p) = producer.get(x.as_str()) {
                let bytes = infos
                    .get(x.as_str())
                    .cloned()
                    .flatten()
                    .map_or(0.0, |t| tensor_bytes(&t, opts.dtype));
                edges.push(EdgeSpec {
                    src: ids[p].clone(),
                    dst: id.clone(),
                    bytes,
                    tensor: x.clone(),
                });
            }
        }
        let next = layers.len() as i64;
        let layer = if structural {
            match structural_layer(n, i, &producer, &layer_of, &constant) {
                Place::Join(l) => Some(l),
                Place::New => Some(*layers.entry(id.clone()).or_insert(next)),
                Place::Consumer => {
                    constant.extend(n.output.iter().map(String::as_str));
                    None
                }
            }
        } else {
            Some(*layers.entry(layer_label(n, id)).or_insert(next))
        };
        layer_of[i] = layer;
        specs.push(NodeSpec {
            id: id.clone(),
            op: n.op_type.clone(),
            cost: Some(cost),
            mem,
            layer,
            ..NodeSpec::default()
        });
    }
    if structural {
        // Ops reading only constants take their first consumer's layer (later ones first,
        // so a chain of them resolves), or one of their own when nothing reads them.
        let at: BTreeMap<&str, usize> = specs
            .iter()
            .enumerate()
            .map(|(k, s)| (s.id.as_str(), k))
            .collect();
        let mut consumers: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for e in &edges {
            consumers
                .entry(at[e.src.as_str()])
                .or_default()
                .push(at[e.dst.as_str()]);
        }
        for k in (0..specs.len()).rev() {
            if specs[k].layer.is_none() {
                let first = consumers
                    .get(&k)
                    .and_then(|c| c.iter().filter_map(|&d| specs[d].layer).min());
                let next = layers.len() as i64;
                specs[k].layer = Some(
                    first.unwrap_or_else(|| *layers.entry(specs[k].id.clone()).or_insert(next)),
                );
            }
        }
    }
    report.unsized_ops = unsized_ops.into_values().collect();
    if structural && nodes.len() > 1 {
        report.notes.push(format!(
            "node names carry no scopes ('/') and no module metadata: {} layers derived from \
             the structure (an op with a weight matrix starts one; the ops after it join it)",
            layers.len()
        ));
    }
    if let Some((node, tensor)) = blocked_by_external.first() {
        // The external file is not read (only sizes are needed), so an op whose shape depends
        // on an external initializer's values stays unsized: say which, and how to avoid it.
        report.notes.push(format!(
            "{} ops not sized read values stored in the external data file (first: node '{node}' \
             reads initializer '{tensor}'); save the model with small tensors inline \
             (onnx.save_model(..., size_threshold=1024), the default)",
            blocked_by_external.len()
        ));
    }
    if from_value_info > 0 {
        report.notes.push(format!(
            "{from_value_info} outputs of ops not sized took their shapes from the model's value_info"
        ));
    }
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
