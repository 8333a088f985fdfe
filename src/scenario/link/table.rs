//! Explicit clusters in a link: a cluster of only devices (id, kind, speed, memory),
//! bandwidth and latency travels as a device table (`dev=id:kind:speed:memory,...` with
//! `bw`, `lat`); any other cluster is compressed whole (`clusterz`).
//!
//! Not here: validating a cluster (the model does, when the scenario loads it).

use serde_json::{Map, Value};

use crate::error::Result;

use super::atoms::{decode, encode, number, parse_number};
use super::bad;
use crate::scenario::defaults::DeviceRow;

/// A device table when `value` is a cluster of only devices (id, kind, speed, memory),
/// bandwidth and latency (a `name` is dropped); `None` when it has more (links, link
/// types, kinds), which a link then carries compressed.
pub(super) fn simple_cluster(value: &Value) -> Option<(Vec<DeviceRow>, f64, f64)> {
    let obj = value.as_object()?;
    if obj
        .keys()
        .any(|k| !matches!(k.as_str(), "name" | "devices" | "bandwidth" | "latency"))
    {
        return None;
    }
    let mut rows = Vec::new();
    for d in obj.get("devices")?.as_array()? {
        let d = d.as_object()?;
        if d.keys()
            .any(|k| !matches!(k.as_str(), "id" | "kind" | "speed" | "memory"))
        {
            return None;
        }
        let opt = |k: &str| d.get(k).filter(|v| !v.is_null());
        rows.push(DeviceRow {
            id: d.get("id")?.as_str()?.to_string(),
            kind: match opt("kind") {
                Some(k) => Some(k.as_str()?.to_string()),
                None => None,
            },
            speed: d.get("speed")?.as_f64()?,
            memory: match opt("memory") {
                Some(m) => Some(m.as_f64()?),
                None => None,
            },
        });
    }
    let bw = obj.get("bandwidth")?.as_f64()?;
    let lat = match obj.get("latency").filter(|v| !v.is_null()) {
        Some(l) => l.as_f64()?,
        None => 0.0,
    };
    Some((rows, bw, lat))
}

/// The cluster JSON of a device table.
pub fn cluster_value(rows: &[DeviceRow], bandwidth: f64, latency: f64) -> Value {
    let devices = rows
        .iter()
        .map(|r| {
            let mut d = Map::new();
            d.insert("id".into(), r.id.clone().into());
            if let Some(k) = &r.kind {
                d.insert("kind".into(), k.clone().into());
            }
            d.insert("speed".into(), r.speed.into());
            if let Some(m) = r.memory {
                d.insert("memory".into(), m.into());
            }
            Value::Object(d)
        })
        .collect();
    serde_json::json!({ "devices": Value::Array(devices), "bandwidth": bandwidth, "latency": latency })
}

/// A device table as `dev` writes it: `id:kind:speed:memory`, comma separated (an empty
/// kind or memory for none).
pub(super) fn device_table(rows: &[DeviceRow]) -> String {
    rows.iter()
        .map(|r| {
            format!(
                "{}:{}:{}:{}",
                encode(&r.id),
                encode(r.kind.as_deref().unwrap_or("")),
                number(r.speed),
                r.memory.map(number).unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// The rows of a `dev` value.
pub(super) fn parse_device_table(s: &str) -> Result<Vec<DeviceRow>> {
    s.split(',')
        .enumerate()
        .map(|(i, item)| {
            let parts: Vec<&str> = item.split(':').collect();
            if parts.len() != 4 {
                return Err(bad(format!(
                    "dev: device {i} must be id:kind:speed:memory, got '{item}'"
                )));
            }
            let key = format!("dev[{i}]");
            let kind = decode(&key, parts[1])?;
            Ok(DeviceRow {
                id: decode(&key, parts[0])?,
                kind: (!kind.is_empty()).then_some(kind),
                speed: parse_number(&key, parts[2])?,
                memory: if parts[3].is_empty() {
                    None
                } else {
                    Some(parse_number(&key, parts[3])?)
                },
            })
        })
        .collect()
}
