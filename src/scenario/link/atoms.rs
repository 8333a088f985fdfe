//! The atoms of a link's values: numbers, ranges, lists, flags, percent-encoding, base64url,
//! deflate, and the graph hash. Every key of the table ([`mod@super::keys`]) writes and reads its
//! value with these, so two keys never spell a number or a list two ways.
//!
//! Not here: which key holds what (the key table) or a value's meaning.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::error::Result;

use super::bad;

/// Largest text a compressed payload may inflate to.
const INFLATE_LIMIT: usize = 256 * 1024 * 1024;

/// A number as the page writes it: the shorter of the plain and the exponent form (the
/// plain one on a tie), both exact (shortest round-trip digits).
pub fn number(x: f64) -> String {
    let plain = if x == x.trunc() && x.abs() < 1e21 {
        format!("{}", x as i128)
    } else {
        format!("{x}")
    };
    let exp = format!("{x:e}");
    if exp.len() < plain.len() {
        exp
    } else {
        plain
    }
}

/// A number in any decimal or exponent notation, finite.
pub(super) fn parse_number(key: &str, s: &str) -> Result<f64> {
    let ok = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    match s.parse::<f64>() {
        Ok(x) if ok && x.is_finite() => Ok(x),
        _ => Err(bad(format!("{key}: '{s}' is not a number"))),
    }
}

/// A whole number: plain digits.
pub(super) fn parse_int(key: &str, s: &str) -> Result<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad(format!("{key}: '{s}' is not a whole number")));
    }
    s.parse::<u64>()
        .map_err(|_| bad(format!("{key}: '{s}' is too large")))
}

/// A range `lo..hi`.
pub(super) fn range(r: [f64; 2]) -> String {
    format!("{}..{}", number(r[0]), number(r[1]))
}

/// A range `lo..hi`, or one number `x` as `x..x`.
pub(super) fn parse_range(key: &str, s: &str) -> Result<[f64; 2]> {
    match s.split_once("..") {
        Some((lo, hi)) => Ok([parse_number(key, lo)?, parse_number(key, hi)?]),
        None => {
            let x = parse_number(key, s)?;
            Ok([x, x])
        }
    }
}

/// Percent-encodes like JavaScript's `encodeURIComponent`.
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decodes `%XX` escapes (UTF-8); a malformed escape is an error.
pub fn decode(key: &str, s: &str) -> Result<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            let Some(byte) = hex else {
                return Err(bad(format!("{key}: malformed percent escape")));
            };
            out.push(byte);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| bad(format!("{key}: not UTF-8 after decoding")))
}

/// base64url without padding.
pub fn base64url(data: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(data)
}

/// Decodes base64url (padding and the `+/` alphabet are accepted too).
pub fn unbase64url(key: &str, s: &str) -> Result<Vec<u8>> {
    let normalized: String = s
        .chars()
        .filter(|&c| c != '=')
        .map(|c| match c {
            '+' => '-',
            '/' => '_',
            c => c,
        })
        .collect();
    URL_SAFE_NO_PAD
        .decode(normalized.as_bytes())
        .map_err(|_| bad(format!("{key}: not base64url")))
}

/// deflate-raw (what the browser's `CompressionStream('deflate-raw')` reads and writes).
pub fn deflate(text: &str) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 9)
}

/// [`deflate`] of `text` when that is at most `limit` bytes, else `None`. Stops compressing
/// as soon as the output passes the limit, so a huge graph costs about as much as the part
/// of it that fills a link; the output equals [`deflate`]'s when it fits.
pub fn deflate_within(text: &str, limit: usize) -> Option<Vec<u8>> {
    use miniz_oxide::deflate::core::{
        compress, create_comp_flags_from_zip_params, CompressorOxide, TDEFLFlush, TDEFLStatus,
    };
    // Level 9, raw deflate (window bits 0), default strategy: as `deflate`.
    let mut c = CompressorOxide::new(create_comp_flags_from_zip_params(9, 0, 0));
    // Room past the limit: the compressor asks for more once fewer than 30 bytes are left.
    let mut out = vec![0; limit + 64];
    let mut input = text.as_bytes();
    let mut pos = 0;
    loop {
        let (status, used, written) = compress(&mut c, input, &mut out[pos..], TDEFLFlush::Finish);
        pos += written;
        match status {
            TDEFLStatus::Done => {
                out.truncate(pos);
                return (pos <= limit).then_some(out);
            }
            TDEFLStatus::Okay if used <= input.len() && pos <= limit && out.len() - pos >= 30 => {
                input = &input[used..];
            }
            _ => return None,
        }
    }
}

/// The text of a deflate-raw payload (at most `INFLATE_LIMIT` bytes).
pub(super) fn inflate(key: &str, data: &[u8]) -> Result<String> {
    // Plain words, never the inflater's Debug text (the page shows this message).
    let bytes =
        miniz_oxide::inflate::decompress_to_vec_with_limit(data, INFLATE_LIMIT).map_err(|e| {
            bad(match e.status {
                miniz_oxide::inflate::TINFLStatus::HasMoreOutput => format!(
                    "{key}: the compressed data unpacks to more than {} MiB",
                    INFLATE_LIMIT >> 20
                ),
                _ => format!(
                    "{key}: the compressed data is cut short or damaged (was the whole link copied?)"
                ),
            })
        })?;
    String::from_utf8(bytes).map_err(|_| bad(format!("{key}: the data is not UTF-8 text")))
}

/// SHA-256 of a graph's exact text, lowercase hex: how a too-large graph is named.
pub fn graph_sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether `s` is a bundled graph's name (letters, digits, `_`, `-`).
pub(super) fn valid_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 200
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A list: each item percent-encoded, joined by `,`.
pub(super) fn list(items: &[String]) -> String {
    items
        .iter()
        .map(|s| encode(s))
        .collect::<Vec<_>>()
        .join(",")
}

/// A flag: `0` or `1`.
pub(super) fn parse_flag(key: &str, v: &str) -> Result<bool> {
    match v {
        "0" => Ok(false),
        "1" => Ok(true),
        _ => Err(bad(format!("{key}: '{v}' is neither 0 nor 1"))),
    }
}

/// A list (empty text: no item).
pub(super) fn parse_list(key: &str, s: &str) -> Result<Vec<String>> {
    if s.is_empty() {
        return Ok(vec![]);
    }
    s.split(',').map(|x| decode(key, x)).collect()
}

/// A graph JSON's own `name`, else `fallback`.
pub(super) fn graph_name(v: &Value, fallback: &str) -> String {
    v.get("name")
        .and_then(|n| n.as_str())
        .filter(|n| !n.is_empty())
        .unwrap_or(fallback)
        .to_string()
}

/// Whether `s` is a sort as [`super::PageView::sort`] says.
pub(super) fn valid_sort(s: &str) -> bool {
    let col = s.strip_prefix('-').unwrap_or(s);
    !col.is_empty() && col.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}
