//! The data-movement rules (0 FLOPs, docs/onnx.md "FLOPs per op"; Resize 1 per output element):
//! Reshape (with the batch change of "Dynamic shapes"), Flatten, Transpose, Concat, Split,
//! Slice, Gather, Squeeze, Unsqueeze, Expand, Tile, Pad, Resize / Upsample, DepthToSpace /
//! SpaceToDepth. Where a small integer tensor goes through them (shape arithmetic), its values
//! follow. The dispatcher and the shared types are in `infer.rs`.

use super::{axis, broadcast, elems, values_mapped, Attrs, BatchChange, Info, Ins, Sized};

pub(super) fn reshape(a: &Attrs, ins: &Ins, batch: BatchChange) -> Option<Sized> {
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
    no_flops(x.dtype, shape, x.value.clone())
}

/// One output of `dtype`, `shape` and `value`, and no FLOPs (a layout op moves data only).
fn no_flops(dtype: i32, shape: Vec<u64>, value: Option<Vec<f64>>) -> Sized {
    Sized {
        outputs: vec![Info {
            dtype,
            shape: Some(shape),
            value,
        }],
        flops: 0.0,
    }
}

pub(super) fn flatten(a: &Attrs, ins: &Ins) -> Option<Sized> {
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

pub(super) fn transpose(a: &Attrs, ins: &Ins) -> Option<Sized> {
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
    Some(no_flops(ins.dtype(0), out, value))
}

pub(super) fn concat(a: &Attrs, ins: &Ins, n: usize) -> Option<Sized> {
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
    Some(no_flops(ins.dtype(0), out, value))
}

pub(super) fn split(a: &Attrs, ins: &Ins, outputs: usize) -> Option<Sized> {
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

pub(super) fn slice(a: &Attrs, ins: &Ins) -> Option<Sized> {
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
    Some(no_flops(x.dtype, out, value))
}

pub(super) fn gather(a: &Attrs, ins: &Ins) -> Option<Sized> {
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
    Some(no_flops(data.dtype, out, value))
}

pub(super) fn squeeze(a: &Attrs, ins: &Ins) -> Option<Sized> {
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

pub(super) fn unsqueeze(a: &Attrs, ins: &Ins) -> Option<Sized> {
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

pub(super) fn expand(ins: &Ins) -> Option<Sized> {
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

pub(super) fn tile(ins: &Ins) -> Option<Sized> {
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

pub(super) fn pad(a: &Attrs, ins: &Ins) -> Option<Sized> {
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
pub(super) fn resize(a: &Attrs, ins: &Ins, op: &str) -> Option<Sized> {
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

/// DepthToSpace / SpaceToDepth: channels to and from blocks of space.
pub(super) fn depth_space(a: &Attrs, ins: &Ins, to_space: bool) -> Option<Sized> {
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
