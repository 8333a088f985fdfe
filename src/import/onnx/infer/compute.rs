//! The rules that count most of a model's FLOPs, the matrix products (docs/onnx.md, "FLOPs per
//! op", first table): Conv and ConvTranspose (with ONNX's window formulas, shared by pooling),
//! MaxPool / AveragePool / LpPool and the global pools, Gemm, MatMul, LSTM / GRU / RNN, Einsum,
//! and the QLinear forms of Conv and MatMul. The dispatcher and the shared types are in
//! `infer.rs`.

use super::{broadcast, elems, typed, Attrs, Info, Ins, Sized, INT64};

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

pub(super) fn conv(a: &Attrs, ins: &Ins) -> Option<Sized> {
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

pub(super) fn conv_transpose(a: &Attrs, ins: &Ins) -> Option<Sized> {
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

pub(super) fn pool(a: &Attrs, ins: &Ins, outputs: usize) -> Option<Sized> {
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

pub(super) fn global_pool(ins: &Ins) -> Option<Sized> {
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

pub(super) fn gemm(a: &Attrs, ins: &Ins) -> Option<Sized> {
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

pub(super) fn matmul(ins: &Ins) -> Option<Sized> {
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
pub(super) fn recurrent(a: &Attrs, ins: &Ins, gates: u64, outputs: usize) -> Option<Sized> {
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

/// Einsum without ellipses: the output's labels from `->` (or the labels used once, sorted);
/// 2 FLOPs per multiply-accumulate over every label's range (1 per element for one operand).
pub(super) fn einsum(a: &Attrs, ins: &Ins, n: usize) -> Option<Sized> {
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

/// QLinear ops: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale,
/// y_zero_point[, bias]; the output has y_zero_point's type.
pub(super) fn qlinear(a: &Attrs, inputs: &[Option<Info>], op: &str) -> Option<Sized> {
    let ins = Ins(inputs);
    let picked = [
        inputs.first().cloned().flatten(),
        inputs.get(3).cloned().flatten(),
    ];
    let ins2 = Ins(&picked);
    let to = ins.info(7).map_or(ins.dtype(0), |z| z.dtype);
    if op == "QLinearConv" {
        conv(a, &ins2)
    } else {
        matmul(&ins2)
    }
    .map(|s| typed(s, &[to]))
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
}
