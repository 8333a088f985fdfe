//! ONNX models in: the protobuf of an `.onnx` file (what PyTorch, Keras via tf2onnx and most
//! frameworks export) to a placesim [`Graph`]: one node per ONNX node with its FLOPs as
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
mod proto;
mod train;

use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

use bytes::Bytes;
use prost::Message;

use crate::error::{Error, Result};
use crate::model::graph::{Graph, GraphBuilder, NodeSpec};

use infer::{elems, Info};
use proto::{elem_bytes, TensorProto, ValueInfoProto};

/// Largest model file read: protobuf's own 2 GiB message limit. Larger models are stored
/// with external data (the `.onnx` file then holds the graph and the weights' shapes).
pub const MAX_MODEL_BYTES: usize = (1 << 31) - 1;

/// Newest opset of the default domain whose ops the importer knows (ONNX 1.23).
pub const MAX_OPSET: i64 = 28;

/// Newest ONNX IR version the importer reads.
pub const MAX_IR_VERSION: i64 = 14;

/// How many node names a report line lists per op type.
const NAMES_SHOWN: usize = 3;

/// What to import besides the model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    /// Add the backward pass and the optimizer updates (a training step).
    pub train: bool,
    /// The size of every input's dynamic first dimension.
    pub batch: Option<u64>,
    /// Static shapes for inputs by name (override what the model says).
    pub input_shapes: BTreeMap<String, Vec<u64>>,
    /// Go on when ops that carry FLOPs (or feed them) cannot be sized: they cost 0 and the
    /// report says which share of the model is missing. Off, such a model is an error.
    pub allow_unsized: bool,
    /// The precision floating-point tensors (weights, activations, gradients) are counted
    /// at; `None`: each tensor's own type in the model.
    pub dtype: Option<Dtype>,
}

/// A floating-point precision to count a model's tensors at (`--dtype`): the bytes of every
/// floating-point tensor, on edges and in `mem`; integer tensors (shapes, indices, quantized
/// weights) keep their type. FLOPs do not change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dtype {
    Float64,
    Float32,
    Float16,
    Bfloat16,
    /// Either 8-bit float format (E4M3, E5M2).
    Float8,
}

impl Dtype {
    /// The names `parse` reads, first the canonical one.
    const NAMES: &'static [(Dtype, &'static [&'static str])] = &[
        (Dtype::Float64, &["float64", "fp64", "double"]),
        (Dtype::Float32, &["float32", "fp32", "float"]),
        (Dtype::Float16, &["float16", "fp16", "half"]),
        (Dtype::Bfloat16, &["bfloat16", "bf16"]),
        (Dtype::Float8, &["float8", "fp8"]),
    ];

    /// `float16`, `fp16`, `bf16`... (case-insensitive).
    pub fn parse(s: &str) -> crate::error::Result<Dtype> {
        let want = s.trim().to_ascii_lowercase();
        Self::NAMES
            .iter()
            .find(|(_, names)| names.contains(&want.as_str()))
            .map(|&(d, _)| d)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::NAMES.iter().map(|(_, n)| n[0]).collect();
                crate::error::Error::Scenario(format!(
                    "a dtype must be one of {}, got '{s}'",
                    names.join(", ")
                ))
            })
    }

    /// Its canonical name (`float16`).
    pub fn name(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(d, _)| *d == self)
            .map_or("", |(_, n)| n[0])
    }

    /// Bytes per element.
    pub fn bytes(self) -> f64 {
        match self {
            Dtype::Float64 => 8.0,
            Dtype::Float32 => 4.0,
            Dtype::Float16 | Dtype::Bfloat16 => 2.0,
            Dtype::Float8 => 1.0,
        }
    }
}

/// Floating-point ONNX element types (FLOAT, FLOAT16, DOUBLE, BFLOAT16, the FLOAT8 variants,
/// FLOAT4E2M1): what a [`Dtype`] recounts.
pub(super) fn is_float(data_type: i32) -> bool {
    matches!(data_type, 1 | 10 | 11 | 16 | 17..=20 | 23)
}

impl Options {
    /// Adds a static input shape written `NAME=DIMS`, DIMS like `1x3x224x224` (the CLI's
    /// `--input-shape` and the page's import options); every dimension at least 1.
    pub fn add_input_shape(&mut self, spec: &str) -> crate::error::Result<()> {
        let bad = || {
            crate::error::Error::Scenario(format!(
                "an input shape must be NAME=DIMS with DIMS like 1x3x224x224, got '{spec}'"
            ))
        };
        let (input, dims) = spec.rsplit_once('=').ok_or_else(bad)?;
        let dims = dims
            .split('x')
            .map(|d| d.trim().parse::<u64>().ok().filter(|&d| d > 0))
            .collect::<Option<Vec<u64>>>()
            .ok_or_else(bad)?;
        if input.trim().is_empty() {
            return Err(bad());
        }
        self.input_shapes.insert(input.trim().to_string(), dims);
        Ok(())
    }
}

/// An import option as the engine's messages name it (by its field, never by a front end's
/// control: the CLI's `--batch`, the page's "Batch size"), so a front end can add its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionField {
    /// [`Options::batch`], "batch" in messages.
    Batch,
    /// [`Options::input_shapes`], "input shape" in messages.
    InputShape,
    /// [`Options::allow_unsized`], "unsized ops allowed" in messages.
    AllowUnsized,
}

/// The advice of an input whose shape is not static.
const SIZE_IT: &str = "give it a static shape";

/// The words of an error that [`Options::allow_unsized`] would turn into a note.
const ALLOW_IT: &str = "unsized ops allowed";

impl OptionField {
    /// The options an import error is about, in the order its message names them: an input
    /// shape naming no input, a batch no input takes, an input the options must size.
    pub fn at_fault(e: &Error) -> Vec<OptionField> {
        let Error::Parse { message, .. } = e else {
            return Vec::new();
        };
        let batch = message
            .strip_prefix("batch ")
            .and_then(|rest| rest.split_once(':'))
            .is_some_and(|(b, _)| b.parse::<u64>().is_ok());
        if message.starts_with("input shape '") {
            vec![OptionField::InputShape]
        } else if batch {
            vec![OptionField::Batch, OptionField::InputShape]
        } else if message.starts_with("input '") && message.contains(SIZE_IT) {
            vec![OptionField::InputShape, OptionField::Batch]
        } else if message.contains(ALLOW_IT) {
            vec![OptionField::InputShape, OptionField::AllowUnsized]
        } else {
            Vec::new()
        }
    }
}

/// Ops of one type that could not be sized (cost 0).
#[derive(Debug, Clone, PartialEq)]
pub struct Unsized {
    /// Op type, with its domain when not the default one (`com.microsoft.FusedConv`).
    pub op: String,
    pub count: usize,
    /// The first few node ids.
    pub nodes: Vec<String>,
}

/// What an import did, for the user to read.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    /// ONNX nodes imported (the forward graph).
    pub onnx_nodes: usize,
    /// Forward FLOPs (sum of the ONNX nodes' costs).
    pub forward_flops: f64,
    /// Bytes of the initializers (parameters and constants stored as initializers).
    pub param_bytes: f64,
    /// Ops that got cost 0 because their shapes or FLOPs are unknown, by op type.
    pub unsized_ops: Vec<Unsized>,
    /// Other facts worth a line (external data, shapes taken from the model's value_info).
    pub notes: Vec<String>,
}

impl Report {
    /// The report as lines of text (the CLI prints them on stderr, the page as notes).
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![format!(
            "ONNX import: {} ops, {:.4e} forward FLOPs, {:.4e} parameter bytes",
            self.onnx_nodes, self.forward_flops, self.param_bytes
        )];
        for u in &self.unsized_ops {
            let more = if u.count > u.nodes.len() { ", ..." } else { "" };
            out.push(format!(
                "ONNX import: {} x {} not sized (cost 0): {}{more}",
                u.count,
                u.op,
                u.nodes.join(", ")
            ));
        }
        out.extend(self.notes.iter().map(|n| format!("ONNX import: {n}")));
        out
    }
}

/// An imported graph and what the import did.
#[derive(Debug, Clone)]
pub struct Imported {
    pub graph: Graph,
    pub report: Report,
}

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

/// Shape, type and (small integer) values of a tensor stored in the model.
fn tensor_info(t: &TensorProto) -> Option<Info> {
    let shape: Vec<u64> = t
        .dims
        .iter()
        .map(|&d| u64::try_from(d).ok())
        .collect::<Option<_>>()?;
    let n = elems(&shape);
    let external = t.data_location == 1 || !t.external_data.is_empty();
    let value = if n <= infer::MAX_VALUE_LEN as f64 && !external {
        tensor_values(t, n as usize)
    } else {
        None
    };
    Some(Info {
        dtype: t.data_type,
        shape: Some(shape),
        value,
    })
}

/// Element values of a small numeric tensor, from its typed field or its raw bytes
/// (little-endian, as ONNX stores them).
pub(super) fn tensor_values(t: &TensorProto, n: usize) -> Option<Vec<f64>> {
    let raw = &t.raw_data;
    let from_raw = |width: usize, f: fn(&[u8]) -> f64| -> Option<Vec<f64>> {
        (raw.len() == n * width).then(|| raw.chunks_exact(width).map(f).collect())
    };
    let v: Vec<f64> = match t.data_type {
        infer::INT64 if !t.int64_data.is_empty() => {
            t.int64_data.iter().map(|&x| x as f64).collect()
        }
        infer::INT64 => from_raw(8, |b| {
            i64::from_le_bytes(b.try_into().unwrap_or([0; 8])) as f64
        })?,
        6 if !t.int32_data.is_empty() => t.int32_data.iter().map(|&x| x as f64).collect(),
        6 => from_raw(4, |b| {
            i32::from_le_bytes(b.try_into().unwrap_or([0; 4])) as f64
        })?,
        infer::FLOAT if !t.float_data.is_empty() => {
            t.float_data.iter().map(|&x| x as f64).collect()
        }
        infer::FLOAT => from_raw(4, |b| {
            f32::from_le_bytes(b.try_into().unwrap_or([0; 4])) as f64
        })?,
        11 if !t.double_data.is_empty() => t.double_data.clone(),
        11 => from_raw(8, |b| f64::from_le_bytes(b.try_into().unwrap_or([0; 8])))?,
        _ => return None,
    };
    (v.len() == n).then_some(v)
}

/// A tensor's bytes: its elements times its type's size, or the asked precision's for a
/// floating-point tensor.
fn tensor_bytes(info: &Info, dtype: Option<Dtype>) -> f64 {
    let size = match dtype {
        Some(d) if is_float(info.dtype) => Some(d.bytes()),
        _ => elem_bytes(info.dtype),
    };
    match (&info.shape, size) {
        (Some(s), Some(b)) => elems(s) * b,
        _ => 0.0,
    }
}

/// A value_info's static shape, if it has one.
fn static_info(v: &ValueInfoProto) -> Option<Info> {
    let t = v.r#type.as_ref()?.tensor_type.as_ref()?;
    let shape = t
        .shape
        .as_ref()?
        .dim
        .iter()
        .map(|d| d.dim_value.and_then(|x| u64::try_from(x).ok()))
        .collect::<Option<Vec<u64>>>()?;
    Some(Info::new(t.elem_type, shape))
}

/// A shape of the declared dims' rank to suggest for an input: its static dims as they are,
/// a dynamic first dim 1, other dynamic dims 224 for an image (rank 4) and 128 otherwise.
fn example_shape(dims: &[proto::Dimension]) -> String {
    if dims.is_empty() {
        return "1".into();
    }
    dims.iter()
        .enumerate()
        .map(|(i, d)| match d.dim_value {
            Some(x) if x > 0 => x.to_string(),
            _ if i == 0 => "1".into(),
            _ if dims.len() == 4 => "224".into(),
            _ => "128".into(),
        })
        .collect::<Vec<_>>()
        .join("x")
}

/// Declared dims as text, dynamic ones by name (`batch x 3 x 224 x 224`).
fn dims_text(dims: &[proto::Dimension]) -> String {
    dims.iter()
        .map(|d| match (&d.dim_value, &d.dim_param) {
            (Some(x), _) if *x > 0 => x.to_string(),
            (_, Some(p)) if !p.is_empty() => p.clone(),
            _ => "?".into(),
        })
        .collect::<Vec<_>>()
        .join(" x ")
}

/// The static shape of graph input `v` after the options, or an error naming the input.
/// An input shape must have the declared rank.
fn input_info(v: &ValueInfoProto, opts: &Options) -> Result<Info> {
    let tt = v.r#type.as_ref().and_then(|t| t.tensor_type.as_ref());
    let dtype = tt.map_or(infer::FLOAT, |t| t.elem_type);
    let declared = tt.and_then(|t| t.shape.as_ref()).map(|s| s.dim.as_slice());
    if let Some(shape) = opts.input_shapes.get(&v.name) {
        if let Some(dims) = declared.filter(|d| d.len() != shape.len()) {
            return Err(bad(format!(
                "input shape '{}' has {} dimensions, but the model's input '{}' has rank {} \
                 ({}): give {} dimensions, like {}={}",
                v.name,
                shape.len(),
                v.name,
                dims.len(),
                dims_text(dims),
                dims.len(),
                v.name,
                example_shape(dims)
            )));
        }
        return Ok(Info::new(dtype, shape.clone()));
    }
    let hint = |what: String| {
        let example = declared.map_or_else(|| "1x3x224x224".to_string(), example_shape);
        bad(format!(
            "input '{}' has {what}: {SIZE_IT} (input shape {}={example}, or a batch for a \
             dynamic first dimension)",
            v.name, v.name
        ))
    };
    let Some(dims) = tt.and_then(|t| t.shape.as_ref()) else {
        return Err(hint("no shape".into()));
    };
    let mut shape = Vec::with_capacity(dims.dim.len());
    for (i, d) in dims.dim.iter().enumerate() {
        match (d.dim_value, &opts.batch) {
            (Some(x), _) if x > 0 => shape.push(x as u64),
            (_, Some(b)) if i == 0 => shape.push(*b),
            _ => {
                let what = match &d.dim_param {
                    Some(p) if !p.is_empty() => format!("a dynamic dimension '{p}' (dim {i})"),
                    _ => format!("an unknown dimension (dim {i})"),
                };
                return Err(hint(what));
            }
        }
    }
    Ok(Info::new(dtype, shape))
}

/// The layer label of a node: the module path PyTorch's torch.export-based exporter records
/// in the node's `pkg.torch.onnx.name_scopes` (`['', 'layer1', 'layer1.0', 'conv1',
/// 'conv2d']` -> `layer1/layer1.0/conv1`: the op's own last entry and the root's empty one
/// dropped), else the scope of its name ([`scope`]).
fn layer_label(n: &proto::NodeProto, id: &str) -> String {
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
fn structural_layer(
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

fn scope(id: &str) -> &str {
    let trimmed = id.trim_start_matches('/');
    match trimmed.rfind('/') {
        Some(i) if i > 0 => &trimmed[..i],
        _ => trimmed,
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

/// Ops that move or describe data and carry no FLOPs of their own: one of these that
/// cannot be sized loses nothing unless an op it feeds is lost too.
const NO_FLOPS: &[&str] = &[
    "Shape",
    "Size",
    "Reshape",
    "Flatten",
    "Transpose",
    "Concat",
    "Split",
    "Slice",
    "Gather",
    "GatherElements",
    "GatherND",
    "Squeeze",
    "Unsqueeze",
    "Identity",
    "Dropout",
    "Cast",
    "CastLike",
    "Constant",
    "ConstantOfShape",
    "Expand",
    "Tile",
    "Pad",
    "Range",
    "NonZero",
    "DepthToSpace",
    "SpaceToDepth",
    "ScatterND",
    "ScatterElements",
    "Trilu",
    "OneHot",
    "EyeLike",
    "SequenceConstruct",
    "SequenceAt",
    "SplitToSequence",
    "ConcatFromSequence",
];

/// Ops whose output size depends on the values of their input.
const DATA_DEPENDENT: &[&str] = &["NonZero", "Unique", "NonMaxSuppression", "Compress"];

/// What is known of a node's inputs, for an error: `x: 1x3x224x224`, `shape: int64[4],
/// values unknown`.
fn inputs_text(n: &proto::NodeProto, infos: &BTreeMap<&str, Option<Info>>) -> String {
    n.input
        .iter()
        .filter(|x| !x.is_empty())
        .map(|x| {
            let what = match infos.get(x.as_str()).cloned().flatten() {
                None => "shape unknown".to_string(),
                Some(Info { shape: None, .. }) => "shape unknown".to_string(),
                Some(Info {
                    shape: Some(s),
                    value,
                    dtype,
                }) => {
                    let dims = if s.is_empty() {
                        "scalar".to_string()
                    } else {
                        s.iter().map(u64::to_string).collect::<Vec<_>>().join("x")
                    };
                    let small_int = matches!(dtype, 6 | infer::INT64) && elems(&s) <= 64.0;
                    match value {
                        None if small_int => format!("{dims}, values unknown"),
                        _ => dims,
                    }
                }
            };
            format!("'{x}' {what}")
        })
        .collect::<Vec<_>>()
        .join(", ")
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
            structural_layer(n, i, &producer, &layer_of, &init_bytes)
                .unwrap_or_else(|| *layers.entry(id.clone()).or_insert(next))
        } else {
            *layers.entry(layer_label(n, id)).or_insert(next)
        };
        layer_of[i] = Some(layer);
        specs.push(NodeSpec {
            id: id.clone(),
            op: n.op_type.clone(),
            cost: Some(cost),
            mem,
            layer: Some(layer),
            ..NodeSpec::default()
        });
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

/// Whether an op type carries FLOPs of its own (unknown and custom ops are taken to).
fn carries_flops(n: &proto::NodeProto) -> bool {
    let default_domain = n.domain.is_empty() || n.domain == "ai.onnx";
    !(default_domain && NO_FLOPS.contains(&n.op_type.as_str()))
}

/// The nodes not sized that lose FLOPs: those that carry FLOPs, and those that feed (through
/// nodes not sized) one that does. None: the import is an error naming the first of them, unless
/// unsized ops are allowed; then a note with the share of the model that is missing.
fn check_lost(
    nodes: &[&proto::NodeProto],
    ids: &[String],
    producer: &BTreeMap<&str, usize>,
    lost: &[(usize, Option<infer::Fail>, String)],
    report: &Report,
    opts: &Options,
    change: &Option<(String, u64, u64)>,
) -> Result<Option<String>> {
    let lost_set: BTreeSet<usize> = lost.iter().map(|l| l.0).collect();
    // Reverse topological order over the lost nodes: a lost node blocks when it carries
    // FLOPs or a lost node reading its outputs blocks.
    let mut blocks: BTreeSet<usize> = BTreeSet::new();
    for &(i, _, _) in lost.iter().rev() {
        if carries_flops(nodes[i]) {
            blocks.insert(i);
        }
        if blocks.contains(&i) {
            for x in nodes[i].input.iter().filter(|x| !x.is_empty()) {
                if let Some(&p) = producer.get(x.as_str()) {
                    if lost_set.contains(&p) {
                        blocks.insert(p);
                    }
                }
            }
        }
    }
    let Some((first, fail, ins)) = lost.iter().find(|l| blocks.contains(&l.0)) else {
        return Ok(None);
    };
    let n = nodes[*first];
    let flop_ops = nodes.iter().filter(|n| carries_flops(n)).count();
    let lost_flop_ops = lost.iter().filter(|l| carries_flops(nodes[l.0])).count();
    let share = format!(
        "{} of {} ops ({:.0}%) not sized, {} of the {} ops that carry FLOPs ({:.0}%)",
        lost.len(),
        nodes.len(),
        100.0 * lost.len() as f64 / nodes.len() as f64,
        lost_flop_ops,
        flop_ops,
        100.0 * lost_flop_ops as f64 / flop_ops.max(1) as f64
    );
    if opts.allow_unsized {
        return Ok(Some(format!(
            "{share} (first: node '{}' ({})); their FLOPs are missing from the {:.4e} forward \
             FLOPs counted, and the edges they write have 0 bytes",
            ids[*first], n.op_type, report.forward_flops
        )));
    }
    let why = match fail {
        None => format!(
            "ops of domain '{}' have no shape rule here (a runtime's fused op: export without \
             runtime-specific optimizations)",
            n.domain
        ),
        Some(infer::Fail::NoRule) if DATA_DEPENDENT.contains(&n.op_type.as_str()) => format!(
            "the size of a {}'s output depends on the data, which an import does not see",
            n.op_type
        ),
        Some(infer::Fail::NoRule) => format!(
            "the importer has no shape rule for op type {} (docs/onnx.md lists the ops it sizes)",
            n.op_type
        ),
        Some(infer::Fail::NotSized) => format!(
            "its inputs do not give it a shape (inputs: {ins}); a shape or value computed at run \
             time, or attributes this importer does not read"
        ),
    };
    // The first lost op that carries FLOPs, when the first lost node only feeds it.
    let feeds = lost
        .iter()
        .find(|l| blocks.contains(&l.0) && carries_flops(nodes[l.0]))
        .filter(|l| l.0 != *first)
        .map_or(String::new(), |(i, _, ins)| {
            format!(
                "; it feeds node '{}' ({}), whose inputs are {ins}",
                ids[*i], nodes[*i].op_type
            )
        });
    let baked = match change {
        Some((input, old, new)) => format!(
            "; input '{input}' was exported at batch {old}, and batch {new} may not fit the shapes \
             baked into the model: re-export with a dynamic batch axis"
        ),
        None => String::new(),
    };
    Err(bad(format!(
        "node '{}' ({}) could not be sized: {why}{feeds}{baked}. {share}. Give the inputs static shapes \
         (input shape NAME=DIMS, with each input's rank), re-export with static shapes (or run \
         onnx.shape_inference / onnxsim on the model), or import with {ALLOW_IT} (they cost 0 \
         and the report gives the share missing)",
        ids[*first], n.op_type
    )))
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
