//! Tensors of the model: the shapes, types and small values of initializers and inputs,
//! and their bytes (at the asked precision); the inputs' shapes from the options, with the
//! errors of a dynamic or mis-ranked input.
//!
//! Not here: shapes of op outputs (`infer`).

use super::infer::{self, elems, Info};
use super::proto::{self, elem_bytes, TensorProto, ValueInfoProto};
use super::{bad, is_float, Dtype, Options, SIZE_IT};
use crate::error::Result;

/// Shape, type and (small integer) values of a tensor stored in the model.
pub(super) fn tensor_info(t: &TensorProto) -> Option<Info> {
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
pub(super) fn tensor_bytes(info: &Info, dtype: Option<Dtype>) -> f64 {
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
pub(super) fn static_info(v: &ValueInfoProto) -> Option<Info> {
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
pub(super) fn example_shape(dims: &[proto::Dimension]) -> String {
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
pub(super) fn dims_text(dims: &[proto::Dimension]) -> String {
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
pub(super) fn input_info(v: &ValueInfoProto, opts: &Options) -> Result<Info> {
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
