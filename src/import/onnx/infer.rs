//! Shape inference and FLOP counts, one rule per ONNX op type (docs/onnx.md lists the
//! conventions). A rule sees its inputs' element types, static shapes and, for small integer
//! tensors (shapes, axes, sizes), their values; it returns its outputs' types, shapes and
//! values, and the op's FLOPs. A rule that cannot size its node returns `None`: the importer
//! then gives the node cost 0 and reports it.
//!
//! Here: what the rules share (the tensor facts [`Info`], [`Sized`], attribute and input
//! readers, axes, broadcasting, the values of a small tensor through a reindexing) and the
//! dispatcher [`infer`] from op type to rule. The rules: `compute.rs` the matrix products,
//! convolutions, pooling and recurrent ops (most of the FLOPs), `layout.rs` data movement
//! (Reshape, Transpose, Slice, Gather, Pad, Resize, ...), `values.rs` element-wise ops,
//! reductions and the ops that make values (Shape, Constant, Range, ...).
//!
//! Not here: decoding, graph building, the training pass (`super`, `super::train`).

mod compute;
mod layout;
mod values;

use super::proto::{AttributeProto, NodeProto};
use compute::{conv, conv_transpose, einsum, gemm, global_pool, matmul, pool, qlinear, recurrent};
use layout::{
    concat, depth_space, expand, flatten, gather, pad, reshape, resize, slice, split, squeeze,
    tile, transpose, unsqueeze,
};
use values::{
    constant, constant_of_shape, elementwise, pass_through, range, reduce, same_shape, shape_op,
    topk, where_op,
};

/// Integer tensors with at most this many elements carry their values (shape arithmetic).
pub const MAX_VALUE_LEN: usize = 64;

/// ONNX `TensorProto.DataType` codes used here.
pub const FLOAT: i32 = 1;
pub const UINT8: i32 = 2;
pub const INT32: i32 = 6;
pub const INT64: i32 = 7;
pub const BOOL: i32 = 9;

/// What the importer knows about one tensor.
#[derive(Debug, Clone, PartialEq)]
pub struct Info {
    pub dtype: i32,
    /// Static shape; `None` when unknown.
    pub shape: Option<Vec<u64>>,
    /// Element values of a small tensor (shapes, axes, scales), row-major.
    pub value: Option<Vec<f64>>,
}

impl Info {
    pub fn new(dtype: i32, shape: Vec<u64>) -> Info {
        Info {
            dtype,
            shape: Some(shape),
            value: None,
        }
    }

    fn with_value(dtype: i32, shape: Vec<u64>, value: Vec<f64>) -> Info {
        let keep = value.len() <= MAX_VALUE_LEN;
        Info {
            dtype,
            shape: Some(shape),
            value: keep.then_some(value),
        }
    }
}

/// Element count of a shape, as `f64` (no overflow on hostile dims).
pub fn elems(shape: &[u64]) -> f64 {
    shape.iter().map(|&d| d as f64).product()
}

/// A sized node: its outputs (in order) and FLOPs.
#[derive(Debug, Clone, PartialEq)]
pub struct Sized {
    pub outputs: Vec<Info>,
    pub flops: f64,
}

/// A node's attributes by name.
pub struct Attrs<'a>(pub &'a [AttributeProto]);

impl Attrs<'_> {
    fn get(&self, name: &str) -> Option<&AttributeProto> {
        self.0.iter().find(|a| a.name == name)
    }
    pub fn int(&self, name: &str) -> Option<i64> {
        self.get(name).map(|a| a.i)
    }
    pub fn ints(&self, name: &str) -> Option<&[i64]> {
        self.get(name).map(|a| a.ints.as_slice())
    }
    pub fn floats(&self, name: &str) -> Option<&[f32]> {
        self.get(name).map(|a| a.floats.as_slice())
    }
    pub fn string(&self, name: &str) -> Option<&[u8]> {
        self.get(name).map(|a| a.s.as_ref())
    }
}

/// The inputs of a node as the importer knows them (`None`: absent optional input or an
/// unknown tensor).
struct Ins<'a>(&'a [Option<Info>]);

impl Ins<'_> {
    fn info(&self, i: usize) -> Option<&Info> {
        self.0.get(i).and_then(Option::as_ref)
    }
    fn shape(&self, i: usize) -> Option<&[u64]> {
        self.info(i).and_then(|x| x.shape.as_deref())
    }
    fn dtype(&self, i: usize) -> i32 {
        self.info(i).map_or(FLOAT, |x| x.dtype)
    }
    fn value(&self, i: usize) -> Option<&[f64]> {
        self.info(i).and_then(|x| x.value.as_deref())
    }
    /// Integer values of input `i` (axes, sizes); `None` unless known and integral. Values
    /// beyond i64 saturate: PyTorch writes open-ended slices (`x[1:]`, `x[::-1]`) with bounds
    /// `INT64_MAX` / `INT64_MIN + 1`, which an f64 holds only approximately, and ONNX clamps
    /// such bounds to the dimension anyway.
    fn ints(&self, i: usize) -> Option<Vec<i64>> {
        let v = self.value(i)?;
        v.iter()
            .all(|x| x.is_finite() && x.fract() == 0.0)
            .then(|| v.iter().map(|&x| x as i64).collect())
    }
    fn present(&self, i: usize) -> bool {
        self.0.get(i).is_some_and(Option::is_some)
    }
}

/// Normalizes axis `a` (negative counts from the end) for a rank; `None` when out of range.
fn axis(a: i64, rank: usize) -> Option<usize> {
    let r = rank as i64;
    let a = if a < 0 { a + r } else { a };
    (0..r).contains(&a).then_some(a as usize)
}

/// Numpy broadcasting of two shapes; `None` when they do not broadcast.
fn broadcast(a: &[u64], b: &[u64]) -> Option<Vec<u64>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for (i, o) in out.iter_mut().enumerate() {
        let x = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let y = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        *o = match (x, y) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return None,
        };
    }
    Some(out)
}

/// The values of a small tensor of shape `out` whose element at multi-index `idx` is the
/// element of `src` (shape `src_shape`) at `map(idx)`: Slice and Transpose on shape
/// arithmetic (PyTorch's pad reordering: `Reshape -> Slice(::-1) -> Transpose -> Reshape`).
fn values_mapped(
    src: &[f64],
    src_shape: &[u64],
    out: &[u64],
    map: &dyn Fn(&[u64]) -> Option<Vec<u64>>,
) -> Option<Vec<f64>> {
    let total = elems(out);
    if total > MAX_VALUE_LEN as f64 {
        return None;
    }
    let mut result = Vec::with_capacity(total as usize);
    for flat in 0..total as u64 {
        let mut idx = vec![0u64; out.len()];
        let mut rem = flat;
        for k in (0..out.len()).rev() {
            idx[k] = rem % out[k].max(1);
            rem /= out[k].max(1);
        }
        let from = map(&idx)?;
        let mut pos = 0u64;
        for (k, &i) in from.iter().enumerate() {
            if i >= *src_shape.get(k)? {
                return None;
            }
            pos = pos * src_shape[k] + i;
        }
        result.push(*src.get(pos as usize)?);
    }
    Some(result)
}

/// A change of the batch the model was exported with: `(exported, asked)`, when an input
/// shape replaces a static leading dimension. A Reshape whose constant target starts with the
/// exported batch, on a tensor whose leading dimension is the asked batch, takes the asked
/// batch instead (the batch baked into the export's shape constants).
pub type BatchChange = Option<(u64, u64)>;

const UNARY: &[&str] = &[
    "Relu",
    "LeakyRelu",
    "Sigmoid",
    "HardSigmoid",
    "HardSwish",
    "Tanh",
    "Elu",
    "Selu",
    "Celu",
    "Gelu",
    "Softplus",
    "Softsign",
    "Mish",
    "Exp",
    "Log",
    "Sqrt",
    "Reciprocal",
    "Neg",
    "Abs",
    "Ceil",
    "Floor",
    "Round",
    "Sign",
    "Erf",
    "Sin",
    "Cos",
    "Tan",
    "Asin",
    "Acos",
    "Atan",
    "Sinh",
    "Cosh",
    "Asinh",
    "Acosh",
    "Atanh",
    "Not",
    "Clip",
    "ThresholdedRelu",
    "Shrink",
    "Swish",
    "BitwiseNot",
];

const COMPARE: &[&str] = &[
    "Equal",
    "Less",
    "Greater",
    "LessOrEqual",
    "GreaterOrEqual",
    "And",
    "Or",
    "Xor",
];

/// Why a node could not be sized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fail {
    /// No rule for this op type.
    NoRule,
    /// A rule, but the inputs' shapes, values or the attributes do not give a shape.
    NotSized,
}

/// Sizes one node of the default ONNX domain. `tensor` turns a Constant's tensor attribute
/// into an [`Info`]; `batch`: see [`BatchChange`].
pub fn infer(
    node: &NodeProto,
    inputs: &[Option<Info>],
    tensor: &dyn Fn(&super::proto::TensorProto) -> Option<Info>,
    batch: BatchChange,
) -> Result<Sized, Fail> {
    let a = Attrs(&node.attribute);
    let ins = Ins(inputs);
    let n_in = inputs.len();
    let n_out = node.output.len();
    let op = node.op_type.as_str();
    let sized = match op {
        "Conv" => conv(&a, &ins),
        "ConvTranspose" => conv_transpose(&a, &ins),
        "Gemm" => gemm(&a, &ins),
        "MatMul" => matmul(&ins),
        "LSTM" => recurrent(&a, &ins, 4, n_out),
        "GRU" => recurrent(&a, &ins, 3, n_out),
        "RNN" => recurrent(&a, &ins, 1, n_out),
        "MaxPool" | "AveragePool" | "LpPool" => pool(&a, &ins, n_out),
        "GlobalAveragePool" | "GlobalMaxPool" | "GlobalLpPool" => global_pool(&ins),
        "BatchNormalization" => same_shape(&ins, 2.0, n_out, 1),
        "InstanceNormalization" | "LayerNormalization" | "GroupNormalization" => {
            same_shape(&ins, 5.0, 1, 0).map(|mut s| {
                // LayerNormalization's optional Mean / InvStdDev outputs.
                let x = ins.shape(0).unwrap_or(&[]).to_vec();
                for _ in 1..n_out {
                    s.outputs.push(Info::new(FLOAT, x.clone()));
                }
                s
            })
        }
        "LRN" => {
            let size = a.int("size").unwrap_or(1).max(1) as f64;
            same_shape(&ins, size + 2.0, 1, 0)
        }
        "Softmax" | "LogSoftmax" => same_shape(&ins, 3.0, 1, 0),
        "Hardmax" | "CumSum" => same_shape(&ins, 1.0, 1, 0),
        // Integer Mod (fmod 0) takes the divisor's sign, as Python's % (Swin's window padding).
        "Mod" if a.int("fmod").unwrap_or(0) == 0 => {
            elementwise(&ins, 2, None, Some(|x, y| x - y * (x / y).floor()))
        }
        "PRelu" | "Pow" | "Mod" | "BitShift" | "BitwiseAnd" | "BitwiseOr" | "BitwiseXor" => {
            elementwise(&ins, 2, None, None)
        }
        "Add" => elementwise(&ins, 2, None, Some(|x, y| x + y)),
        "Sub" => elementwise(&ins, 2, None, Some(|x, y| x - y)),
        "Mul" => elementwise(&ins, 2, None, Some(|x, y| x * y)),
        // Integer division truncates (shape arithmetic); a zero divisor gives no value.
        "Div" if matches!(ins.dtype(0), 2..=7 | 12 | 13) => {
            elementwise(&ins, 2, None, Some(|x, y| (x / y).trunc()))
        }
        "Div" => elementwise(&ins, 2, None, Some(|x, y| x / y)),
        "Max" => elementwise(&ins, n_in, None, Some(f64::max)),
        "Min" => elementwise(&ins, n_in, None, Some(f64::min)),
        "Sum" | "Mean" => elementwise(&ins, n_in, None, None),
        "Where" => where_op(&ins),
        "Equal" => elementwise(
            &ins,
            2,
            Some(BOOL),
            Some(|x, y| f64::from(u8::from(x == y))),
        ),
        "Less" => elementwise(&ins, 2, Some(BOOL), Some(|x, y| f64::from(u8::from(x < y)))),
        "Greater" => elementwise(&ins, 2, Some(BOOL), Some(|x, y| f64::from(u8::from(x > y)))),
        op if COMPARE.contains(&op) => elementwise(&ins, 2, Some(BOOL), None),
        op if UNARY.contains(&op) => same_shape(&ins, 1.0, 1, 0),
        "IsNaN" | "IsInf" => same_shape(&ins, 1.0, 1, 0).map(|mut s| {
            s.outputs[0].dtype = BOOL;
            s
        }),
        "Identity" => pass_through(&ins, ins.dtype(0), 1),
        "Dropout" => pass_through(&ins, ins.dtype(0), n_out),
        "Cast" => pass_through(&ins, a.int("to").map_or(FLOAT, |t| t as i32), 1),
        "CastLike" => pass_through(&ins, ins.dtype(1), 1),
        "Reshape" => reshape(&a, &ins, batch),
        "Flatten" => flatten(&a, &ins),
        "Transpose" => transpose(&a, &ins),
        "Concat" => concat(&a, &ins, n_in),
        "Split" => split(&a, &ins, n_out),
        "Slice" => slice(&a, &ins),
        "Gather" => gather(&a, &ins),
        "GatherElements" => ins.shape(1).map(|s| Sized {
            outputs: vec![Info::new(ins.dtype(0), s.to_vec())],
            flops: 0.0,
        }),
        "ScatterND" | "ScatterElements" | "Trilu" => same_shape(&ins, 0.0, 1, 0),
        "Squeeze" => squeeze(&a, &ins),
        "Unsqueeze" => unsqueeze(&a, &ins),
        "Shape" => shape_op(&a, &ins),
        "Size" => ins.shape(0).map(|s| Sized {
            outputs: vec![Info::with_value(INT64, vec![], vec![elems(s)])],
            flops: 0.0,
        }),
        "Constant" => constant(&a, tensor),
        "ConstantOfShape" => constant_of_shape(&ins, &a),
        "Expand" => expand(&ins),
        "Tile" => tile(&ins),
        "Pad" => pad(&a, &ins),
        "Resize" | "Upsample" => resize(&a, &ins, op),
        "ReduceMean" | "ReduceSum" | "ReduceMax" | "ReduceMin" | "ReduceProd" | "ReduceL1"
        | "ReduceL2" | "ReduceLogSum" | "ReduceLogSumExp" | "ReduceSumSquare" => {
            reduce(&a, &ins, None, false)
        }
        "ArgMax" | "ArgMin" => reduce(&a, &ins, Some(INT64), true),
        "TopK" => topk(&a, &ins),
        "Range" => range(&ins),
        "Einsum" => einsum(&a, &ins, n_in),
        "DepthToSpace" => depth_space(&a, &ins, true),
        "SpaceToDepth" => depth_space(&a, &ins, false),
        "QuantizeLinear" => {
            let to = a
                .int("output_dtype")
                .filter(|&t| t > 0)
                .map_or_else(|| ins.info(2).map_or(UINT8, |z| z.dtype), |t| t as i32);
            same_shape(&ins, 2.0, 1, 0).map(|s| typed(s, &[to]))
        }
        "DequantizeLinear" => {
            let to = ins.info(1).map_or(FLOAT, |s| s.dtype);
            same_shape(&ins, 2.0, 1, 0).map(|s| typed(s, &[to]))
        }
        "DynamicQuantizeLinear" => same_shape(&ins, 3.0, 1, 0).map(|mut s| {
            // y (uint8, x's shape), y_scale (float scalar), y_zero_point (uint8 scalar).
            s.outputs[0].dtype = UINT8;
            s.outputs.push(Info::new(FLOAT, vec![]));
            s.outputs.push(Info::new(UINT8, vec![]));
            s
        }),
        // Integer MACs count as ops like float ones; the accumulator is int32.
        "ConvInteger" => conv(&a, &ins).map(|s| typed(s, &[INT32])),
        "MatMulInteger" => matmul(&ins).map(|s| typed(s, &[INT32])),
        "QLinearConv" | "QLinearMatMul" => qlinear(&a, inputs, op),
        _ => return Err(Fail::NoRule),
    }
    .ok_or(Fail::NotSized)?;
    (sized.outputs.len() >= n_out && sized.flops.is_finite())
        .then_some(sized)
        .ok_or(Fail::NotSized)
}

/// `s` with its first outputs' element types set to `types`.
fn typed(mut s: Sized, types: &[i32]) -> Sized {
    for (o, &t) in s.outputs.iter_mut().zip(types) {
        o.dtype = t;
        o.value = None;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_is_numpys() {
        assert_eq!(broadcast(&[2, 1, 4], &[3, 1]), Some(vec![2, 3, 4]));
        assert_eq!(broadcast(&[], &[5]), Some(vec![5]));
        assert_eq!(broadcast(&[2, 3], &[4, 3]), None);
    }
}
