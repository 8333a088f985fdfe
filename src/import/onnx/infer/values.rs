//! The rules of the element-wise ops, the reductions and the ops that make values (docs/onnx.md
//! "FLOPs per op", second table): the same-shape ops (activations, normalizations), the
//! pass-throughs (Identity, Cast, Dropout), broadcast element-wise ops with the values of small
//! operands (shape arithmetic), Where, the reductions and ArgMax / ArgMin, TopK, Shape,
//! Constant, ConstantOfShape and Range. The dispatcher and the shared types are in `infer.rs`.

use super::{
    axis, broadcast, elems, values_mapped, Attrs, Info, Ins, Sized, BOOL, FLOAT, INT64,
    MAX_VALUE_LEN,
};
use crate::import::onnx::{proto::TensorProto, tensor_values};

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

/// Same shape as input 0, `per` FLOPs per element; extra outputs take input `extra_from`'s
/// shape (BatchNormalization's running statistics).
pub(super) fn same_shape(ins: &Ins, per: f64, outputs: usize, extra_from: usize) -> Option<Sized> {
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
pub(super) fn pass_through(ins: &Ins, dtype: i32, outputs: usize) -> Option<Sized> {
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
pub(super) fn elementwise(
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

/// Where: the broadcast of the condition, x and y, with x's element type (input 1); its
/// values when the three operands' values are known.
pub(super) fn where_op(ins: &Ins) -> Option<Sized> {
    elementwise(ins, 3, Some(ins.dtype(1)), None).map(|mut s| {
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
    })
}

pub(super) fn reduce(a: &Attrs, ins: &Ins, dtype: Option<i32>, single_axis: bool) -> Option<Sized> {
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

pub(super) fn shape_op(a: &Attrs, ins: &Ins) -> Option<Sized> {
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

pub(super) fn topk(a: &Attrs, ins: &Ins) -> Option<Sized> {
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
pub(super) fn constant(a: &Attrs, tensor: &dyn Fn(&TensorProto) -> Option<Info>) -> Option<Sized> {
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

pub(super) fn constant_of_shape(ins: &Ins, a: &Attrs) -> Option<Sized> {
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
        Some(t) => tensor_values(t, 1).and_then(|v| v.first().copied()),
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
pub(super) fn range(ins: &Ins) -> Option<Sized> {
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
