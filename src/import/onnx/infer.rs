//! Shape inference and FLOP counts, one rule per ONNX op type (docs/onnx.md lists the
//! conventions). A rule sees its inputs' element types, static shapes and, for small integer
//! tensors (shapes, axes, sizes), their values; it returns its outputs' types, shapes and
//! values, and the op's FLOPs. A rule that cannot size its node returns `None`: the importer
//! then gives the node cost 0 and reports it.
//!
//! Not here: decoding, graph building, the training pass (`super`, `super::train`).

use super::proto::{AttributeProto, NodeProto};

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

/// Element-wise on the values of broadcast operands, when every operand has values and the
/// result is small (shape arithmetic: `Shape -> Gather -> Mul -> Concat -> Reshape`).
fn values_elementwise(
    ins: &Ins,
    n: usize,
    out: &[u64],
    f: fn(f64, f64) -> f64,
) -> Option<Vec<f64>> {
    let total = elems(out);
    if n == 0 || total > MAX_VALUE_LEN as f64 {
        return None;
    }
    let vals: Vec<&[f64]> = (0..n).map(|i| ins.value(i)).collect::<Option<_>>()?;
    let shapes: Vec<&[u64]> = (0..n).map(|i| ins.shape(i)).collect::<Option<_>>()?;
    let total = total as usize;
    let mut result = Vec::with_capacity(total);
    for flat in 0..total {
        let mut acc: Option<f64> = None;
        for (v, s) in vals.iter().zip(&shapes) {
            // The element of operand `s` that output element `flat` reads.
            let (mut rem, mut idx, mut stride) = (flat as u64, 0u64, 1u64);
            for (k, &od) in out.iter().enumerate().rev() {
                let coord = rem % od.max(1);
                rem /= od.max(1);
                let off = out.len() - 1 - k;
                if off < s.len() {
                    let sd = s[s.len() - 1 - off];
                    idx = idx.checked_add(if sd == 1 { 0 } else { coord }.checked_mul(stride)?)?;
                    stride = stride.checked_mul(sd.max(1))?;
                }
            }
            let x = *v.get(idx as usize)?;
            acc = Some(match acc {
                None => x,
                Some(a) => f(a, x),
            });
        }
        result.push(acc?);
    }
    Some(result)
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

/// Output spatial size of a convolution or pooling window.
#[allow(clippy::too_many_arguments)]
fn window_out(
    d: u64,
    k: u64,
    stride: u64,
    dil: u64,
    pb: u64,
    pe: u64,
    ceil: bool,
    auto: &[u8],
) -> Option<u64> {
    let stride = stride.max(1);
    match auto {
        b"SAME_UPPER" | b"SAME_LOWER" => return Some(d.div_ceil(stride)),
        b"VALID" => return window_out(d, k, stride, dil, 0, 0, ceil, b"NOTSET"),
        _ => {}
    }
    let span = dil.checked_mul(k.checked_sub(1)?)?.checked_add(1)?;
    let padded = d.checked_add(pb)?.checked_add(pe)?;
    let room = padded.checked_sub(span)?;
    Some(
        if ceil {
            room.div_ceil(stride)
        } else {
            room / stride
        } + 1,
    )
}

/// Spatial attributes of Conv, ConvTranspose and pooling, for `k` spatial dims.
struct Window {
    kernel: Vec<u64>,
    strides: Vec<u64>,
    dilations: Vec<u64>,
    pads: Vec<u64>,
}

fn window(a: &Attrs, kernel: Vec<u64>) -> Option<Window> {
    let k = kernel.len();
    let list = |name: &str, default: u64, len: usize| -> Option<Vec<u64>> {
        match a.ints(name) {
            None => Some(vec![default; len]),
            Some(v) if v.len() == len && v.iter().all(|&x| x >= 0) => {
                Some(v.iter().map(|&x| x as u64).collect())
            }
            Some(_) => None,
        }
    };
    Some(Window {
        strides: list("strides", 1, k)?,
        dilations: list("dilations", 1, k)?,
        pads: list("pads", 0, 2 * k)?,
        kernel,
    })
}

fn kernel_attr(a: &Attrs) -> Option<Vec<u64>> {
    let k = a.ints("kernel_shape")?;
    k.iter()
        .all(|&x| x > 0)
        .then(|| k.iter().map(|&x| x as u64).collect())
}

fn spatial_out(a: &Attrs, x: &[u64], w: &Window, ceil: bool) -> Option<Vec<u64>> {
    let auto = a.string("auto_pad").unwrap_or(b"NOTSET");
    let k = w.kernel.len();
    (0..k)
        .map(|i| {
            window_out(
                x[2 + i],
                w.kernel[i],
                w.strides[i],
                w.dilations[i],
                w.pads[i],
                w.pads[i + k],
                ceil,
                auto,
            )
        })
        .collect()
}

fn conv(a: &Attrs, ins: &Ins) -> Option<Sized> {
    let (x, wt) = (ins.shape(0)?, ins.shape(1)?);
    if x.len() < 3 || wt.len() != x.len() {
        return None;
    }
    let group = a.int("group").unwrap_or(1);
    let group = u64::try_from(group).ok().filter(|&g| g > 0)?;
    let kernel = kernel_attr(a).unwrap_or_else(|| wt[2..].to_vec());
    if kernel.len() != x.len() - 2 || Some(x[1]) != wt[1].checked_mul(group) {
        return None;
    }
    let w = window(a, kernel)?;
    let out_sp = spatial_out(a, x, &w, false)?;
    let mut out = vec![x[0], wt[0]];
    out.extend(&out_sp);
    let macs = elems(&out) * wt[1] as f64 * elems(&w.kernel);
    Some(Sized {
        outputs: vec![Info::new(ins.dtype(0), out)],
        flops: 2.0 * macs,
    })
}

fn conv_transpose(a: &Attrs, ins: &Ins) -> Option<Sized> {
    let (x, wt) = (ins.shape(0)?, ins.shape(1)?);
    if x.len() < 3 || wt.len() != x.len() || x[1] != wt[0] {
        return None;
    }
    let group = u64::try_from(a.int("group").unwrap_or(1))
        .ok()
        .filter(|&g| g > 0)?;
    let k = x.len() - 2;
    let kernel = kernel_attr(a).unwrap_or_else(|| wt[2..].to_vec());
    if kernel.len() != k {
        return None;
    }
    let w = window(a, kernel)?;
    let out_pad = match a.ints("output_padding") {
        Some(v) if v.len() == k && v.iter().all(|&p| p >= 0) => {
            v.iter().map(|&p| p as u64).collect()
        }
        Some(_) => return None,
        None => vec![0; k],
    };
    let auto = a.string("auto_pad").unwrap_or(b"NOTSET");
    let out_sp: Vec<u64> = match a.ints("output_shape") {
        Some(s) if s.len() == k && s.iter().all(|&d| d > 0) => {
            s.iter().map(|&d| d as u64).collect()
        }
        Some(_) => return None,
        None => (0..k)
            .map(|i| {
                let d = x[2 + i];
                if matches!(auto, b"SAME_UPPER" | b"SAME_LOWER") {
                    return d.checked_mul(w.strides[i]);
                }
                let full = w.strides[i]
                    .checked_mul(d.checked_sub(1)?)?
                    .checked_add(out_pad[i])?
                    .checked_add(
                        w.dilations[i]
                            .checked_mul(w.kernel[i] - 1)?
                            .checked_add(1)?,
                    )?;
                let pads = if auto == b"VALID" {
                    0
                } else {
                    w.pads[i].checked_add(w.pads[i + k])?
                };
                full.checked_sub(pads).filter(|&o| o > 0)
            })
            .collect::<Option<_>>()?,
    };
    let mut out = vec![x[0], wt[1].checked_mul(group)?];
    out.extend(&out_sp);
    let macs = elems(x) * wt[1] as f64 * elems(&w.kernel);
    Some(Sized {
        outputs: vec![Info::new(ins.dtype(0), out)],
        flops: 2.0 * macs,
    })
}

fn pool(a: &Attrs, ins: &Ins, outputs: usize) -> Option<Sized> {
    let x = ins.shape(0)?;
    let kernel = kernel_attr(a)?;
    if x.len() != kernel.len() + 2 {
        return None;
    }
    let w = window(a, kernel)?;
    let ceil = a.int("ceil_mode").unwrap_or(0) != 0;
    let mut out = x[..2].to_vec();
    out.extend(spatial_out(a, x, &w, ceil)?);
    let flops = elems(&out) * elems(&w.kernel);
    let mut outs = vec![Info::new(ins.dtype(0), out.clone())];
    if outputs > 1 {
        outs.push(Info::new(INT64, out)); // MaxPool's Indices
    }
    Some(Sized {
        outputs: outs,
        flops,
    })
}

fn global_pool(ins: &Ins) -> Option<Sized> {
    let x = ins.shape(0)?;
    if x.len() < 2 {
        return None;
    }
    let mut out = x[..2].to_vec();
    out.resize(x.len(), 1);
    Some(Sized {
        outputs: vec![Info::new(ins.dtype(0), out)],
        flops: elems(x),
    })
}

fn gemm(a: &Attrs, ins: &Ins) -> Option<Sized> {
    let (sa, sb) = (ins.shape(0)?, ins.shape(1)?);
    if sa.len() != 2 || sb.len() != 2 {
        return None;
    }
    let (m, k) = if a.int("transA").unwrap_or(0) != 0 {
        (sa[1], sa[0])
    } else {
        (sa[0], sa[1])
    };
    let (k2, n) = if a.int("transB").unwrap_or(0) != 0 {
        (sb[1], sb[0])
    } else {
        (sb[0], sb[1])
    };
    if k != k2 {
        return None;
    }
    Some(Sized {
        outputs: vec![Info::new(ins.dtype(0), vec![m, n])],
        flops: 2.0 * m as f64 * n as f64 * k as f64,
    })
}

fn matmul(ins: &Ins) -> Option<Sized> {
    let (sa, sb) = (ins.shape(0)?, ins.shape(1)?);
    if sa.is_empty() || sb.is_empty() {
        return None;
    }
    // Numpy: a 1-D operand gains a dim (prepended for A, appended for B), removed after.
    let a2: Vec<u64> = if sa.len() == 1 {
        vec![1, sa[0]]
    } else {
        sa.to_vec()
    };
    let b2: Vec<u64> = if sb.len() == 1 {
        vec![sb[0], 1]
    } else {
        sb.to_vec()
    };
    let (m, k) = (a2[a2.len() - 2], a2[a2.len() - 1]);
    let (k2, n) = (b2[b2.len() - 2], b2[b2.len() - 1]);
    if k != k2 {
        return None;
    }
    let batch = broadcast(&a2[..a2.len() - 2], &b2[..b2.len() - 2])?;
    let flops = 2.0 * elems(&batch) * m as f64 * n as f64 * k as f64;
    let mut out = batch;
    if sa.len() > 1 {
        out.push(m);
    }
    if sb.len() > 1 {
        out.push(n);
    }
    Some(Sized {
        outputs: vec![Info::new(ins.dtype(0), out)],
        flops,
    })
}

/// LSTM (4 gates), GRU (3) and RNN (1): `2 x seq x batch x dirs x gates*H x (I + H)`.
fn recurrent(a: &Attrs, ins: &Ins, gates: u64, outputs: usize) -> Option<Sized> {
    let (x, w) = (ins.shape(0)?, ins.shape(1)?);
    if x.len() != 3 || w.len() != 3 {
        return None;
    }
    let h = u64::try_from(a.int("hidden_size")?)
        .ok()
        .filter(|&h| h > 0)?;
    let dirs = w[0];
    let batch_major = a.int("layout").unwrap_or(0) != 0;
    let (seq, batch, input) = if batch_major {
        (x[1], x[0], x[2])
    } else {
        (x[0], x[1], x[2])
    };
    if Some(w[1]) != gates.checked_mul(h) || w[2] != input {
        return None;
    }
    let dt = ins.dtype(0);
    let y = if batch_major {
        vec![batch, seq, dirs, h]
    } else {
        vec![seq, dirs, batch, h]
    };
    let state = if batch_major {
        vec![batch, dirs, h]
    } else {
        vec![dirs, batch, h]
    };
    let mut outs = vec![Info::new(dt, y)];
    outs.extend((1..outputs).map(|_| Info::new(dt, state.clone())));
    let macs = seq as f64 * batch as f64 * dirs as f64 * w[1] as f64 * (input as f64 + h as f64);
    Some(Sized {
        outputs: outs,
        flops: 2.0 * macs,
    })
}

/// Same shape as input 0, `per` FLOPs per element; extra outputs take input `extra_from`'s
/// shape (BatchNormalization's running statistics).
fn same_shape(ins: &Ins, per: f64, outputs: usize, extra_from: usize) -> Option<Sized> {
    let x = ins.shape(0)?.to_vec();
    let mut outs = vec![Info {
        dtype: ins.dtype(0),
        shape: Some(x.clone()),
        value: None,
    }];
    for _ in 1..outputs {
        outs.push(Info::new(
            ins.dtype(extra_from),
            ins.shape(extra_from).unwrap_or(&x).to_vec(),
        ));
    }
    Some(Sized {
        flops: per * elems(&x),
        outputs: outs,
    })
}

/// A data-movement op that keeps input 0's values (`Identity`, `Cast`, `Dropout`...).
fn pass_through(ins: &Ins, dtype: i32, outputs: usize) -> Option<Sized> {
    let x = ins.info(0)?;
    let shape = x.shape.clone()?;
    let mut outs = vec![Info {
        dtype,
        shape: Some(shape.clone()),
        value: x.value.clone(),
    }];
    for _ in 1..outputs {
        outs.push(Info::new(BOOL, shape.clone())); // Dropout's mask
    }
    Some(Sized {
        outputs: outs,
        flops: 0.0,
    })
}

/// Element-wise ops over broadcast inputs: one FLOP per output element per operand pair.
fn elementwise(
    ins: &Ins,
    n: usize,
    dtype: Option<i32>,
    f: Option<fn(f64, f64) -> f64>,
) -> Option<Sized> {
    if n == 0 {
        return None;
    }
    let mut out = ins.shape(0)?.to_vec();
    for i in 1..n {
        out = broadcast(&out, ins.shape(i)?)?;
    }
    let value = f.and_then(|f| values_elementwise(ins, n, &out, f));
    let flops = elems(&out) * (n.max(2) - 1) as f64;
    Some(Sized {
        outputs: vec![Info {
            dtype: dtype.unwrap_or(ins.dtype(0)),
            shape: Some(out),
            value,
        }],
        flops,
    })
}

/// A change of the batch the model was exported with: `(exported, asked)`, when an input
/// shape replaces a static leading dimension. A Reshape whose constant target starts with the
/// exported batch, on a tensor whose leading dimension is the asked batch, takes the asked
/// batch instead (the batch baked into the export's shape constants).
pub type BatchChange = Option<(u64, u64)>;

fn reshape(a: &Attrs, ins: &Ins, batch: BatchChange) -> Option<Sized> {
    let x = ins.info(0)?;
    let xs = x.shape.as_deref()?;
    let mut target = ins.ints(1)?;
    if let (Some((old, new)), Some(first)) = (batch, target.first_mut()) {
        if *first == old as i64 && xs.first() == Some(&new) && x.value.is_none() {
            *first = new as i64;
        }
    }
    let allow_zero = a.int("allowzero").unwrap_or(0) != 0;
    let mut out = Vec::with_capacity(target.len());
    let mut infer = None;
    for (i, &d) in target.iter().enumerate() {
        out.push(match d {
            -1 if infer.is_none() => {
                infer = Some(i);
                1
            }
            0 if !allow_zero => *xs.get(i)?,
            d if d >= 0 => d as u64,
            _ => return None,
        });
    }
    let total: u64 = xs.iter().try_fold(1u64, |a, &d| a.checked_mul(d))?;
    let known: u64 = out.iter().try_fold(1u64, |a, &d| a.checked_mul(d))?;
    if let Some(i) = infer {
        if known == 0 || !total.is_multiple_of(known) {
            return None;
        }
        out[i] = total / known;
    } else if known != total {
        return None;
    }
    Some(same_values(x, out))
}

/// A free reshape of `x` (Reshape, Squeeze, Unsqueeze): the new shape, the same element type
/// and values (a small integer tensor stays known through it), no FLOPs.
fn same_values(x: &Info, shape: Vec<u64>) -> Sized {
    Sized {
        outputs: vec![Info {
            dtype: x.dtype,
            shape: Some(shape),
            value: x.value.clone(),
        }],
        flops: 0.0,
    }
}

fn flatten(a: &Attrs, ins: &Ins) -> Option<Sized> {
    let x = ins.shape(0)?;
    let r = x.len() as i64;
    let ax = a.int("axis").unwrap_or(1);
    let ax = if ax < 0 { ax + r } else { ax };
    if !(0..=r).contains(&ax) {
        return None;
    }
    let (l, rt) = x.split_at(ax as usize);
    let p = |s: &[u64]| s.iter().try_fold(1u64, |a, &d| a.checked_mul(d));
    Some(Sized {
        outputs: vec![Info::new(ins.dtype(0), vec![p(l)?, p(rt)?])],
        flops: 0.0,
    })
}

fn transpose(a: &Attrs, ins: &Ins) -> Option<Sized> {
    let x = ins.shape(0)?;
    let perm: Vec<usize> = match a.ints("perm") {
        Some(p) => p.iter().map(|&i| axis(i, x.len())).collect::<Option<_>>()?,
        None => (0..x.len()).rev().collect(),
    };
    if perm.len() != x.len() {
        return None;
    }
    let mut seen = vec![false; x.len()];
    for &p in &perm {
        if std::mem::replace(&mut seen[p], true) {
            return None;
        }
    }
    let out: Vec<u64> = perm.iter().map(|&p| x[p]).collect();
    let value = ins.value(0).and_then(|v| {
        values_mapped(v, x, &out, &|idx| {
            let mut from = vec![0; idx.len()];
            for (i, &p) in perm.iter().enumerate() {
                from[p] = idx[i];
            }
            Some(from)
        })
    });
    Some(Sized {
        outputs: vec![Info {
            dtype: ins.dtype(0),
            shape: Some(out),
            value,
        }],
        flops: 0.0,
    })
}

fn concat(a: &Attrs, ins: &Ins, n: usize) -> Option<Sized> {
    if n == 0 {
        return None;
    }
    let first = ins.shape(0)?;
    let ax = axis(a.int("axis")?, first.len())?;
    let mut out = first.to_vec();
    for i in 1..n {
        let s = ins.shape(i)?;
        if s.len() != out.len() || (0..s.len()).any(|d| d != ax && s[d] != out[d]) {
            return None;
        }
        out[ax] = out[ax].checked_add(s[ax])?;
    }
    let value = if out.len() == 1 {
        (0..n)
            .map(|i| ins.value(i).map(<[f64]>::to_vec))
            .collect::<Option<Vec<_>>>()
            .map(|v| v.concat())
    } else {
        None
    };
    Some(Sized {
        outputs: vec![Info {
            dtype: ins.dtype(0),
            shape: Some(out),
            value,
        }],
        flops: 0.0,
    })
}

fn split(a: &Attrs, ins: &Ins, outputs: usize) -> Option<Sized> {
    let x = ins.shape(0)?;
    let ax = axis(a.int("axis").unwrap_or(0), x.len())?;
    let sizes: Vec<u64> = match a.ints("split").map(<[i64]>::to_vec).or_else(|| ins.ints(1)) {
        Some(s) => s
            .iter()
            .map(|&d| u64::try_from(d).ok())
            .collect::<Option<_>>()?,
        None => {
            let n = outputs.max(1) as u64;
            let each = x[ax].div_ceil(n);
            (0..n)
                .map(|i| each.min(x[ax].saturating_sub(i.saturating_mul(each))))
                .collect()
        }
    };
    if sizes.len() != outputs
        || sizes.iter().try_fold(0u64, |a, &b| a.checked_add(b)) != Some(x[ax])
    {
        return None;
    }
    let outs = sizes
        .iter()
        .map(|&s| {
            let mut o = x.to_vec();
            o[ax] = s;
            Info::new(ins.dtype(0), o)
        })
        .collect();
    Some(Sized {
        outputs: outs,
        flops: 0.0,
    })
}

fn slice(a: &Attrs, ins: &Ins) -> Option<Sized> {
    let x = ins.info(0)?;
    let xs = x.shape.as_deref()?;
    let (starts, ends, axes, steps) = match a.ints("starts") {
        Some(s) => (
            s.to_vec(),
            a.ints("ends")?.to_vec(),
            a.ints("axes").map(<[i64]>::to_vec),
            None,
        ),
        None => (
            ins.ints(1)?,
            ins.ints(2)?,
            if ins.present(3) {
                Some(ins.ints(3)?)
            } else {
                None
            },
            if ins.present(4) {
                Some(ins.ints(4)?)
            } else {
                None
            },
        ),
    };
    let axes: Vec<usize> = match axes {
        Some(a) => a
            .iter()
            .map(|&i| axis(i, xs.len()))
            .collect::<Option<_>>()?,
        None => (0..starts.len()).collect(),
    };
    let steps = steps.unwrap_or_else(|| vec![1; starts.len()]);
    if ends.len() != starts.len() || axes.len() != starts.len() || steps.len() != starts.len() {
        return None;
    }
    let mut out = xs.to_vec();
    // i128: no overflow whatever the model's numbers.
    let mut ranges: Vec<(i128, i128)> = xs.iter().map(|_| (0, 1)).collect();
    for i in 0..starts.len() {
        let d = xs[axes[i]] as i128;
        let step = steps[i] as i128;
        if step == 0 {
            return None;
        }
        let norm = |v: i64| if v < 0 { v as i128 + d } else { v as i128 };
        let (s, e) = (norm(starts[i]), norm(ends[i]));
        let (s, e) = if step > 0 {
            (s.clamp(0, d), e.clamp(0, d))
        } else {
            (s.clamp(-1, d - 1), e.clamp(-1, d - 1))
        };
        let len = if step > 0 {
            ((e - s).max(0) + step - 1) / step
        } else {
            ((s - e).max(0) - step - 1) / -step
        };
        out[axes[i]] = u64::try_from(len).ok()?;
        ranges[axes[i]] = (s, step);
    }
    let value = x.value.as_ref().and_then(|v| {
        values_mapped(v, xs, &out, &|idx| {
            idx.iter()
                .zip(&ranges)
                .map(|(&k, &(s, step))| u64::try_from(s + k as i128 * step).ok())
                .collect()
        })
    });
    Some(Sized {
        outputs: vec![Info {
            dtype: x.dtype,
            shape: Some(out),
            value,
        }],
        flops: 0.0,
    })
}

fn gather(a: &Attrs, ins: &Ins) -> Option<Sized> {
    let data = ins.info(0)?;
    let ds = data.shape.as_deref()?;
    let is = ins.shape(1)?;
    let ax = axis(a.int("axis").unwrap_or(0), ds.len())?;
    let mut out = ds[..ax].to_vec();
    out.extend(is);
    out.extend(&ds[ax + 1..]);
    let value = match (&data.value, ins.ints(1)) {
        (Some(v), Some(idx)) if ds.len() == 1 => idx
            .iter()
            .map(|&i| {
                let i = if i < 0 { i + v.len() as i64 } else { i };
                usize::try_from(i).ok().and_then(|i| v.get(i).copied())
            })
            .collect(),
        _ => None,
    };
    Some(Sized {
        outputs: vec![Info {
            dtype: data.dtype,
            shape: Some(out),
            value,
        }],
        flops: 0.0,
    })
}

fn squeeze(a: &Attrs, ins: &Ins) -> Option<Sized> {
    let x = ins.info(0)?;
    let xs = x.shape.as_deref()?;
    let axes = a.ints("axes").map(<[i64]>::to_vec).or_else(|| {
        if ins.present(1) {
            ins.ints(1)
        } else {
            Some(Vec::new())
        }
    })?;
    let axes: Vec<usize> = axes
        .iter()
        .map(|&i| axis(i, xs.len()))
        .collect::<Option<_>>()?;
    let out: Vec<u64> = if axes.is_empty() {
        xs.iter().copied().filter(|&d| d != 1).collect()
    } else {
        if axes.iter().any(|&i| xs[i] != 1) {
            return None;
        }
        (0..xs.len())
            .filter(|i| !axes.contains(i))
            .map(|i| xs[i])
            .collect()
    };
    Some(same_values(x, out))
}

fn unsqueeze(a: &Attrs, ins: &Ins) -> Option<Sized> {
    let x = ins.info(0)?;
    let xs = x.shape.as_deref()?;
    let axes = a
        .ints("axes")
        .map(<[i64]>::to_vec)
        .or_else(|| ins.ints(1))?;
    let rank = xs.len() + axes.len();
    let mut axes: Vec<usize> = axes.iter().map(|&i| axis(i, rank)).collect::<Option<_>>()?;
    axes.sort_unstable();
    axes.dedup();
    if axes.len() + xs.len() != rank {
        return None;
    }
    let mut rest = xs.iter();
    let out = (0..rank)
        .map(|i| {
            if axes.contains(&i) {
                Some(1)
            } else {
                rest.next().copied()
            }
        })
        .collect::<Option<Vec<u64>>>()?;
    Some(same_values(x, out))
}

fn reduce(a: &Attrs, ins: &Ins, dtype: Option<i32>, single_axis: bool) -> Option<Sized> {
    let x = ins.shape(0)?;
    let keep = a.int("keepdims").unwrap_or(1) != 0;
    let axes: Vec<i64> = if single_axis {
        vec![a.int("axis").unwrap_or(0)]
    } else {
        match a.ints("axes").map(<[i64]>::to_vec) {
            Some(v) => v,
            None if ins.present(1) => ins.ints(1)?,
            None if a.int("noop_with_empty_axes").unwrap_or(0) != 0 => {
                return Some(Sized {
                    outputs: vec![Info::new(ins.dtype(0), x.to_vec())],
                    flops: 0.0,
                })
            }
            None => (0..x.len() as i64).collect(),
        }
    };
    let axes: Vec<usize> = axes
        .iter()
        .map(|&i| axis(i, x.len()))
        .collect::<Option<_>>()?;
    let mut out = Vec::new();
    for (i, &d) in x.iter().enumerate() {
        if !axes.contains(&i) {
            out.push(d);
        } else if keep {
            out.push(1);
        }
    }
    Some(Sized {
        outputs: vec![Info::new(dtype.unwrap_or(ins.dtype(0)), out)],
        flops: elems(x),
    })
}

fn shape_op(a: &Attrs, ins: &Ins) -> Option<Sized> {
    let x = ins.shape(0)?;
    let r = x.len() as i64;
    let clamp = |v: i64| (if v < 0 { v + r } else { v }).clamp(0, r) as usize;
    let start = clamp(a.int("start").unwrap_or(0));
    let end = clamp(a.int("end").unwrap_or(r));
    let dims: Vec<f64> = x[start..end.max(start)].iter().map(|&d| d as f64).collect();
    Some(Sized {
        outputs: vec![Info::with_value(INT64, vec![dims.len() as u64], dims)],
        flops: 0.0,
    })
}

fn expand(ins: &Ins) -> Option<Sized> {
    let x = ins.shape(0)?;
    let target: Vec<u64> = ins
        .ints(1)?
        .iter()
        .map(|&d| u64::try_from(d).ok())
        .collect::<Option<_>>()?;
    Some(Sized {
        outputs: vec![Info::new(ins.dtype(0), broadcast(x, &target)?)],
        flops: 0.0,
    })
}

fn tile(ins: &Ins) -> Option<Sized> {
    let x = ins.shape(0)?;
    let reps = ins.ints(1)?;
    if reps.len() != x.len() {
        return None;
    }
    let out = x
        .iter()
        .zip(&reps)
        .map(|(&d, &r)| u64::try_from(r).ok().and_then(|r| d.checked_mul(r)))
        .collect::<Option<_>>()?;
    Some(Sized {
        outputs: vec![Info::new(ins.dtype(0), out)],
        flops: 0.0,
    })
}

fn pad(a: &Attrs, ins: &Ins) -> Option<Sized> {
    let x = ins.shape(0)?;
    let pads = a
        .ints("pads")
        .map(<[i64]>::to_vec)
        .or_else(|| ins.ints(1))?;
    let axes: Vec<usize> = match ins.present(3) {
        true => ins
            .ints(3)?
            .iter()
            .map(|&i| axis(i, x.len()))
            .collect::<Option<_>>()?,
        false => (0..x.len()).collect(),
    };
    if pads.len() != 2 * axes.len() {
        return None;
    }
    let mut out: Vec<i64> = x.iter().map(|&d| d as i64).collect();
    for (i, &ax) in axes.iter().enumerate() {
        out[ax] = out[ax]
            .checked_add(pads[i])?
            .checked_add(pads[i + axes.len()])?;
    }
    let out = out
        .iter()
        .map(|&d| u64::try_from(d).ok())
        .collect::<Option<_>>()?;
    Some(Sized {
        outputs: vec![Info::new(ins.dtype(0), out)],
        flops: 0.0,
    })
}

/// Resize / Upsample: from `sizes` or `scales`; one FLOP per output element.
fn resize(a: &Attrs, ins: &Ins, op: &str) -> Option<Sized> {
    let x = ins.shape(0)?;
    let out: Vec<u64> = if op == "Resize" && ins.present(3) {
        ins.ints(3)?
            .iter()
            .map(|&d| u64::try_from(d).ok())
            .collect::<Option<_>>()?
    } else {
        let scales: Vec<f64> = match a.floats("scales") {
            Some(s) => s.iter().map(|&f| f as f64).collect(),
            None => ins.value(if op == "Resize" { 2 } else { 1 })?.to_vec(),
        };
        if scales.len() != x.len() || scales.iter().any(|s| !(s.is_finite() && *s > 0.0)) {
            return None;
        }
        x.iter()
            .zip(&scales)
            .map(|(&d, &s)| (d as f64 * s).floor() as u64)
            .collect()
    };
    if out.len() != x.len() {
        return None;
    }
    Some(Sized {
        flops: elems(&out),
        outputs: vec![Info::new(ins.dtype(0), out)],
    })
}

fn topk(a: &Attrs, ins: &Ins) -> Option<Sized> {
    let x = ins.shape(0)?;
    let ax = axis(a.int("axis").unwrap_or(-1), x.len())?;
    let k = u64::try_from(*ins.ints(1)?.first()?).ok()?;
    let mut out = x.to_vec();
    out[ax] = k;
    Some(Sized {
        outputs: vec![Info::new(ins.dtype(0), out.clone()), Info::new(INT64, out)],
        flops: elems(x),
    })
}

/// A Constant node's value from its attribute (`value`, `value_float(s)`, `value_int(s)`).
fn constant(
    a: &Attrs,
    tensor: &dyn Fn(&super::proto::TensorProto) -> Option<Info>,
) -> Option<Sized> {
    let info = if let Some(t) =
        a.0.iter()
            .find(|x| x.name == "value")
            .and_then(|x| x.t.as_ref())
    {
        tensor(t)?
    } else if let Some(i) = a.int("value_int") {
        Info::with_value(INT64, vec![], vec![i as f64])
    } else if let Some(v) = a.ints("value_ints") {
        Info::with_value(
            INT64,
            vec![v.len() as u64],
            v.iter().map(|&i| i as f64).collect(),
        )
    } else if let Some(f) = a.0.iter().find(|x| x.name == "value_float") {
        Info::with_value(FLOAT, vec![], vec![f.f as f64])
    } else if let Some(v) = a.floats("value_floats") {
        Info::with_value(
            FLOAT,
            vec![v.len() as u64],
            v.iter().map(|&f| f as f64).collect(),
        )
    } else {
        return None;
    };
    Some(Sized {
        outputs: vec![info],
        flops: 0.0,
    })
}

fn constant_of_shape(ins: &Ins, a: &Attrs) -> Option<Sized> {
    let shape: Vec<u64> = ins
        .ints(0)?
        .iter()
        .map(|&d| u64::try_from(d).ok())
        .collect::<Option<_>>()?;
    let t =
        a.0.iter()
            .find(|x| x.name == "value")
            .and_then(|x| x.t.as_ref());
    let dtype = t.map_or(FLOAT, |t| t.data_type);
    let fill = match t {
        None => Some(0.0),
        Some(t) => super::tensor_values(t, 1).and_then(|v| v.first().copied()),
    };
    let n = elems(&shape);
    let value = fill
        .filter(|_| n <= MAX_VALUE_LEN as f64)
        .map(|f| vec![f; n as usize]);
    Some(Sized {
        outputs: vec![Info {
            dtype,
            shape: Some(shape),
            value,
        }],
        flops: 0.0,
    })
}

/// Range: `max(ceil((limit - start) / delta), 0)` elements, from the three scalars' values.
fn range(ins: &Ins) -> Option<Sized> {
    let (start, limit, delta) = (
        *ins.value(0)?.first()?,
        *ins.value(1)?.first()?,
        *ins.value(2)?.first()?,
    );
    let n = ((limit - start) / delta).ceil().max(0.0);
    if !n.is_finite() || n > 9e15 {
        return None;
    }
    let value = (n <= MAX_VALUE_LEN as f64)
        .then(|| (0..n as usize).map(|i| start + i as f64 * delta).collect());
    Some(Sized {
        outputs: vec![Info {
            dtype: ins.dtype(0),
            shape: Some(vec![n as u64]),
            value,
        }],
        flops: 0.0,
    })
}

/// Einsum without ellipses: the output's labels from `->` (or the labels used once, sorted);
/// 2 FLOPs per multiply-accumulate over every label's range (1 per element for one operand).
fn einsum(a: &Attrs, ins: &Ins, n: usize) -> Option<Sized> {
    let eq: String = std::str::from_utf8(a.string("equation")?)
        .ok()?
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    if eq.contains('.') {
        return None;
    }
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (eq.as_str(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != n || n == 0 {
        return None;
    }
    let mut size: std::collections::BTreeMap<char, u64> = std::collections::BTreeMap::new();
    let mut count: std::collections::BTreeMap<char, usize> = std::collections::BTreeMap::new();
    for (i, t) in terms.iter().enumerate() {
        let shape = ins.shape(i)?;
        if t.chars().count() != shape.len() {
            return None;
        }
        for (c, &d) in t.chars().zip(shape) {
            *count.entry(c).or_default() += 1;
            match size.insert(c, d) {
                Some(prev) if prev != d && prev != 1 && d != 1 => return None,
                Some(prev) if d == 1 => {
                    size.insert(c, prev);
                }
                _ => {}
            }
        }
    }
    let out_labels: Vec<char> = match rhs {
        Some(r) => r.chars().collect(),
        None => count
            .iter()
            .filter(|(_, &k)| k == 1)
            .map(|(&c, _)| c)
            .collect(),
    };
    let out = out_labels
        .iter()
        .map(|c| size.get(c).copied())
        .collect::<Option<Vec<u64>>>()?;
    let all: Vec<u64> = size.values().copied().collect();
    let per = if n > 1 { 2.0 * (n - 1) as f64 } else { 1.0 };
    Some(Sized {
        outputs: vec![Info::new(ins.dtype(0), out)],
        flops: per * elems(&all),
    })
}

/// DepthToSpace / SpaceToDepth: channels to and from blocks of space.
fn depth_space(a: &Attrs, ins: &Ins, to_space: bool) -> Option<Sized> {
    let x = ins.shape(0)?;
    let b = u64::try_from(a.int("blocksize")?).ok().filter(|&b| b > 0)?;
    if x.len() != 4 {
        return None;
    }
    let bb = b.checked_mul(b)?;
    let out = if to_space {
        if x[1] % bb != 0 {
            return None;
        }
        vec![x[0], x[1] / bb, x[2].checked_mul(b)?, x[3].checked_mul(b)?]
    } else {
        if x[2] % b != 0 || x[3] % b != 0 {
            return None;
        }
        vec![x[0], x[1].checked_mul(bb)?, x[2] / b, x[3] / b]
    };
    Some(Sized {
        outputs: vec![Info::new(ins.dtype(0), out)],
        flops: 0.0,
    })
}

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
        "Where" => elementwise(&ins, 3, Some(ins.dtype(1)), None).map(|mut s| {
            // Shape arithmetic (PyTorch's expand(-1) as Where(shape == -1, 1, shape)).
            let out = s.outputs[0].shape.clone().unwrap_or_default();
            let pick = |i: usize| {
                let (v, sh) = (ins.value(i)?, ins.shape(i)?);
                values_mapped(v, sh, &out, &|idx| {
                    // Numpy broadcasting: trailing dims align, size-1 dims repeat.
                    let skip = idx.len() - sh.len();
                    Some(
                        idx[skip..]
                            .iter()
                            .zip(sh)
                            .map(|(&k, &d)| if d == 1 { 0 } else { k })
                            .collect(),
                    )
                })
            };
            if let (Some(c), Some(x), Some(y)) = (pick(0), pick(1), pick(2)) {
                s.outputs[0].value = Some(
                    c.iter()
                        .zip(x.iter().zip(&y))
                        .map(|(&c, (&x, &y))| if c != 0.0 { x } else { y })
                        .collect(),
                );
            }
            s
        }),
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
        // QLinear ops: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale,
        // y_zero_point[, bias]; the output has y_zero_point's type.
        "QLinearConv" | "QLinearMatMul" => {
            let picked = [
                inputs.first().cloned().flatten(),
                inputs.get(3).cloned().flatten(),
            ];
            let ins2 = Ins(&picked);
            let to = ins.info(7).map_or(ins.dtype(0), |z| z.dtype);
            if op == "QLinearConv" {
                conv(&a, &ins2)
            } else {
                matmul(&ins2)
            }
            .map(|s| typed(s, &[to]))
        }
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
    fn windows_follow_the_onnx_formulas() {
        // 224, k 7, stride 2, pads 3+3: floor((224 + 6 - 7) / 2) + 1 = 112.
        assert_eq!(window_out(224, 7, 2, 1, 3, 3, false, b"NOTSET"), Some(112));
        // Pool 112, k 3, stride 2, pads 1+1: floor(111 / 2) + 1 = 56; ceil mode: 57.
        assert_eq!(window_out(112, 3, 2, 1, 1, 1, false, b"NOTSET"), Some(56));
        assert_eq!(window_out(112, 3, 2, 1, 1, 1, true, b"NOTSET"), Some(57));
        // Dilation 2 makes a 3-wide kernel span 5.
        assert_eq!(window_out(10, 3, 1, 2, 0, 0, false, b"NOTSET"), Some(6));
        assert_eq!(window_out(10, 3, 3, 1, 0, 0, false, b"SAME_UPPER"), Some(4));
        // A kernel wider than the padded input has no output.
        assert_eq!(window_out(2, 5, 1, 1, 0, 0, false, b"NOTSET"), None);
    }

    #[test]
    fn broadcasting_is_numpys() {
        assert_eq!(broadcast(&[2, 1, 4], &[3, 1]), Some(vec![2, 3, 4]));
        assert_eq!(broadcast(&[], &[5]), Some(vec![5]));
        assert_eq!(broadcast(&[2, 3], &[4, 3]), None);
    }
}
