//! The devices and the network between them.
//!
//! A [`Cluster`] is loaded from cluster JSON (see `docs/format.md`) or generated from
//! ranges with a seeded RNG (Mayer17 §5.1's random devices). Every ordered pair of
//! distinct devices gets a linear transfer-time model, `latency + bytes / bandwidth`
//! (Pesto21 §3.1's `T = b0 + b1 * bytes` with `b0 = latency`, `b1 = 1 / bandwidth`),
//! stored in dense `k x k` matrices.
//!
//! Extensions of the shared format, documented in `docs/format.md`:
//! - `kinds.<kind>.op_speed`: per-op-type speed factors for a device kind (Carbonari17's
//!   per-device cost tables): an op of type `t` on a device of that kind runs at
//!   `speed * op_speed[t]`.
//! - `link_types` + `links[].type`: named link classes (NVLink, PCIe, network) whose
//!   latency and bandwidth a link takes unless it gives its own.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{parse_json, Error, Result};
use crate::model::{show, MAX_AMOUNT, MIN_POSITIVE};
use crate::rng::Rng;

pub type DevIx = u32;

/// Most devices a cluster may have: the `k x k` link matrices stay at 16 MB, which the
/// browser's wasm memory holds comfortably.
pub const MAX_DEVICES: usize = 1024;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Device {
    pub id: String,
    pub kind: String,
    /// Work per second.
    pub speed: f64,
    /// Bytes; `f64::INFINITY` when unlimited.
    pub memory: f64,
    /// Fixed seconds (time units) added to every op this device runs from a `cost`:
    /// kernel launch and framework dispatch. 0 unless the device or its kind sets it.
    pub op_overhead: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Cluster {
    pub name: String,
    pub devices: Vec<Device>,
    /// Row-major `k x k`: bandwidth from device `i` to device `j`.
    bandwidth: Vec<f64>,
    /// Row-major `k x k`: latency from device `i` to device `j`.
    latency: Vec<f64>,
    /// Per device kind, per op type: speed factor.
    pub op_speed: BTreeMap<String, BTreeMap<String, f64>>,
    /// Per device: factor on the graph's `time` table entries, 1 unless a what-if changed
    /// the device's speed (a device twice as fast runs a tabled op in half the time).
    time_scale: Vec<f64>,
}

#[derive(Deserialize, Serialize, Default)]
pub(crate) struct RawCluster {
    #[serde(default)]
    name: Option<String>,
    devices: Vec<RawDevice>,
    bandwidth: f64,
    #[serde(default)]
    latency: Option<f64>,
    #[serde(default)]
    links: Vec<RawLink>,
    #[serde(default)]
    link_types: BTreeMap<String, RawLinkType>,
    #[serde(default)]
    kinds: BTreeMap<String, RawKind>,
}

#[derive(Deserialize, Serialize)]
pub(crate) struct RawDevice {
    id: String,
    #[serde(default)]
    kind: Option<String>,
    speed: f64,
    #[serde(default)]
    memory: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    op_overhead: Option<f64>,
}

#[derive(Deserialize, Serialize)]
pub(crate) struct RawLink {
    src: String,
    dst: String,
    #[serde(default, rename = "type")]
    link_type: Option<String>,
    #[serde(default)]
    bandwidth: Option<f64>,
    #[serde(default)]
    latency: Option<f64>,
}

#[derive(Deserialize, Serialize)]
pub(crate) struct RawLinkType {
    bandwidth: f64,
    #[serde(default)]
    latency: f64,
}

#[derive(Deserialize, Serialize, Default)]
pub(crate) struct RawKind {
    #[serde(default)]
    op_speed: BTreeMap<String, f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    op_overhead: Option<f64>,
}

/// Ranges for a generated cluster (Mayer17 §5.1: 50 devices, speed 10..100, bandwidth
/// 10..60 per device pair). Values are drawn uniformly; bandwidth and latency are drawn
/// once per unordered pair, so links are symmetric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterGen {
    pub devices: usize,
    pub speed: [f64; 2],
    /// Bytes per device; absent means unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<f64>,
    /// Memory per device as a fraction of the graph's total placement footprint (ops' `mem`
    /// plus every tensor once), set per seed after costs are realized. Mayer17 §5.1 gives no
    /// memory sizes, yet its Batch Split, MITE and DFS only spread a graph over devices when
    /// memory is limited; this states the limit relative to the graph. Overrides `memory`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_fraction: Option<f64>,
    pub bandwidth: [f64; 2],
    #[serde(default)]
    pub latency: [f64; 2],
    /// Device kinds, assigned round-robin; empty means every device is a `gpu`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kinds: Vec<String>,
}

/// A number from [`MIN_POSITIVE`] to [`MAX_AMOUNT`]; names the field on failure.
fn positive(value: f64, what: impl FnOnce() -> String) -> Result<f64> {
    if (MIN_POSITIVE..=MAX_AMOUNT).contains(&value) {
        Ok(value)
    } else {
        Err(Error::Cluster(format!(
            "{} must be a finite number > 0 (from {MIN_POSITIVE:e} to {MAX_AMOUNT:e}), got {}",
            what(),
            show(value)
        )))
    }
}

/// A number from 0 to [`MAX_AMOUNT`]; names the field on failure.
fn non_negative(value: f64, what: impl FnOnce() -> String) -> Result<f64> {
    if (0.0..=MAX_AMOUNT).contains(&value) {
        Ok(value)
    } else {
        Err(Error::Cluster(format!(
            "{} must be a finite number >= 0 (at most {MAX_AMOUNT:e}), got {}",
            what(),
            show(value)
        )))
    }
}

fn range(r: [f64; 2], what: &str, min_positive: bool) -> Result<[f64; 2]> {
    let check = |v: f64| {
        if min_positive {
            positive(v, || what.to_string())
        } else {
            non_negative(v, || what.to_string())
        }
    };
    check(r[0])?;
    check(r[1])?;
    if r[0] > r[1] {
        return Err(Error::Cluster(format!(
            "{what} range {}..{} is empty",
            r[0], r[1]
        )));
    }
    Ok(r)
}

/// Whether `used` bytes exceed a device's `capacity`, beyond float rounding: sums of the
/// same footprints in different orders differ in the last bits, and a placement that fits
/// by its placer's count must not fail a check that adds in another order.
pub fn exceeds(used: f64, capacity: f64) -> bool {
    used > capacity * (1.0 + 1e-12)
}

/// A device talks to itself for free: infinite bandwidth, zero latency.
fn clear_diagonal(k: usize, bandwidth: &mut [f64], latency: &mut [f64]) {
    for i in 0..k {
        bandwidth[i * k + i] = f64::INFINITY;
        latency[i * k + i] = 0.0;
    }
}

impl Cluster {
    pub fn from_json(text: &str, fallback_name: &str) -> Result<Cluster> {
        let raw: RawCluster = parse_json("cluster", text)?;
        Cluster::from_raw(raw, fallback_name)
    }

    fn from_raw(raw: RawCluster, fallback_name: &str) -> Result<Cluster> {
        if raw.devices.is_empty() {
            return Err(Error::Cluster("the device list is empty".into()));
        }
        if raw.devices.len() > MAX_DEVICES {
            return Err(Error::Cluster(format!(
                "the cluster has {} devices; placesim handles at most {MAX_DEVICES}",
                raw.devices.len()
            )));
        }
        let mut index = BTreeMap::new();
        let mut devices = Vec::with_capacity(raw.devices.len());
        for (i, d) in raw.devices.into_iter().enumerate() {
            if d.id.is_empty() {
                return Err(Error::Cluster(format!("devices[{i}].id is empty")));
            }
            if index.insert(d.id.clone(), i).is_some() {
                return Err(Error::Cluster(format!("duplicate device id '{}'", d.id)));
            }
            let speed = positive(d.speed, || format!("device '{}': speed", d.id))?;
            let memory = match d.memory {
                Some(m) => non_negative(m, || format!("device '{}': memory", d.id))?,
                None => f64::INFINITY,
            };
            let kind = d
                .kind
                .filter(|k| !k.is_empty())
                .unwrap_or_else(|| "gpu".into());
            let op_overhead = match (d.op_overhead, raw.kinds.get(&kind)) {
                (Some(o), _) => non_negative(o, || format!("device '{}': op_overhead", d.id))?,
                (
                    None,
                    Some(RawKind {
                        op_overhead: Some(o),
                        ..
                    }),
                ) => non_negative(*o, || {
                    format!("kinds.{kind}.op_overhead (device '{}')", d.id)
                })?,
                _ => 0.0,
            };
            devices.push(Device {
                kind,
                id: d.id,
                speed,
                memory,
                op_overhead,
            });
        }
        let k = devices.len();
        let bw = positive(raw.bandwidth, || "bandwidth".into())?;
        let lat = non_negative(raw.latency.unwrap_or(0.0), || "latency".into())?;
        let mut bandwidth = vec![bw; k * k];
        let mut latency = vec![lat; k * k];
        for (name, t) in &raw.link_types {
            positive(t.bandwidth, || format!("link_types.{name}.bandwidth"))?;
            non_negative(t.latency, || format!("link_types.{name}.latency"))?;
        }
        for (i, l) in raw.links.iter().enumerate() {
            let end = |which: &str, id: &str| {
                index.get(id).copied().ok_or_else(|| {
                    Error::Cluster(format!("links[{i}].{which} names unknown device '{id}'"))
                })
            };
            let s = end("src", &l.src)?;
            let d = end("dst", &l.dst)?;
            if s == d {
                return Err(Error::Cluster(format!(
                    "links[{i}] joins device '{}' to itself",
                    l.src
                )));
            }
            let base = match &l.link_type {
                Some(t) => {
                    let lt = raw.link_types.get(t).ok_or_else(|| {
                        Error::Cluster(format!("links[{i}].type names unknown link type '{t}'"))
                    })?;
                    (lt.bandwidth, lt.latency)
                }
                None => (bw, lat),
            };
            bandwidth[s * k + d] = positive(l.bandwidth.unwrap_or(base.0), || {
                format!("links[{i}].bandwidth")
            })?;
            latency[s * k + d] = non_negative(l.latency.unwrap_or(base.1), || {
                format!("links[{i}].latency")
            })?;
        }
        clear_diagonal(k, &mut bandwidth, &mut latency);
        let mut op_speed = BTreeMap::new();
        for (kind, spec) in raw.kinds {
            for (op, f) in &spec.op_speed {
                positive(*f, || format!("kinds.{kind}.op_speed.{op}"))?;
            }
            op_speed.insert(kind, spec.op_speed);
        }
        Ok(Cluster {
            name: raw.name.unwrap_or_else(|| fallback_name.to_string()),
            time_scale: vec![1.0; devices.len()],
            devices,
            bandwidth,
            latency,
            op_speed,
        })
    }

    /// Draws a cluster from ranges with `rng`.
    pub fn generate(spec: &ClusterGen, rng: &mut Rng) -> Result<Cluster> {
        if spec.devices == 0 {
            return Err(Error::Cluster(
                "a generated cluster needs at least one device".into(),
            ));
        }
        if spec.devices > MAX_DEVICES {
            return Err(Error::Cluster(format!(
                "a generated cluster has at most {MAX_DEVICES} devices, asked for {}",
                spec.devices
            )));
        }
        let speed = range(spec.speed, "speed", true)?;
        let bw = range(spec.bandwidth, "bandwidth", true)?;
        let lat = range(spec.latency, "latency", false)?;
        if let Some(m) = spec.memory {
            non_negative(m, || "memory".into())?;
        }
        if let Some(f) = spec.memory_fraction {
            positive(f, || "memory_fraction".into())?;
        }
        let k = spec.devices;
        // One stream per quantity, so that changing one range never shifts another's draws.
        let mut speed_rng = Rng::new(rng.next_u64());
        let mut bw_rng = Rng::new(rng.next_u64());
        let mut lat_rng = Rng::new(rng.next_u64());
        let devices = (0..k)
            .map(|i| Device {
                id: format!("d{i}"),
                kind: if spec.kinds.is_empty() {
                    "gpu".into()
                } else {
                    spec.kinds[i % spec.kinds.len()].clone()
                },
                speed: speed_rng.uniform(speed[0], speed[1]),
                memory: spec.memory.unwrap_or(f64::INFINITY),
                op_overhead: 0.0,
            })
            .collect();
        let mut bandwidth = vec![0.0; k * k];
        let mut latency = vec![0.0; k * k];
        for i in 0..k {
            for j in i + 1..k {
                let b = bw_rng.uniform(bw[0], bw[1]);
                let l = lat_rng.uniform(lat[0], lat[1]);
                bandwidth[i * k + j] = b;
                bandwidth[j * k + i] = b;
                latency[i * k + j] = l;
                latency[j * k + i] = l;
            }
        }
        clear_diagonal(k, &mut bandwidth, &mut latency);
        Ok(Cluster {
            name: format!("{k} generated devices"),
            devices,
            bandwidth,
            latency,
            op_speed: BTreeMap::new(),
            time_scale: vec![1.0; k],
        })
    }

    /// A cluster of `speeds.len()` devices with one bandwidth and latency for every pair.
    pub fn uniform(speeds: &[f64], bandwidth: f64, latency: f64) -> Cluster {
        let k = speeds.len();
        let mut bw = vec![bandwidth; k * k];
        let mut lat = vec![latency; k * k];
        clear_diagonal(k, &mut bw, &mut lat);
        Cluster {
            name: format!("{k} devices"),
            devices: speeds
                .iter()
                .enumerate()
                .map(|(i, &s)| Device {
                    id: format!("d{i}"),
                    kind: "gpu".into(),
                    speed: s,
                    memory: f64::INFINITY,
                    op_overhead: 0.0,
                })
                .collect(),
            bandwidth: bw,
            latency: lat,
            op_speed: BTreeMap::new(),
            time_scale: vec![1.0; k],
        }
    }

    pub fn len(&self) -> usize {
        self.devices.len()
    }

    pub fn is_empty(&self) -> bool {
        self.devices.is_empty()
    }

    pub fn device_index(&self, id: &str) -> Option<DevIx> {
        self.devices
            .iter()
            .position(|d| d.id == id)
            .map(|i| i as DevIx)
    }

    pub fn bandwidth(&self, src: DevIx, dst: DevIx) -> f64 {
        self.bandwidth[src as usize * self.len() + dst as usize]
    }

    pub fn latency(&self, src: DevIx, dst: DevIx) -> f64 {
        self.latency[src as usize * self.len() + dst as usize]
    }

    /// Seconds to move `bytes` from `src` to `dst`; zero on one device.
    #[inline]
    pub fn transfer_time(&self, src: DevIx, dst: DevIx, bytes: f64) -> f64 {
        if src == dst {
            return 0.0;
        }
        let i = src as usize * self.len() + dst as usize;
        self.latency[i] + bytes / self.bandwidth[i]
    }

    /// Applies what-if changes: per-device speed overrides by id first, then every speed
    /// (a set one too) times `compute`, every bandwidth times `bandwidth` and every latency
    /// times `latency` (a link's `b0`, Pesto21 §3.1). A set speed is the device's speed before the compute scale, like every other
    /// device's: `compute = 0.5` with a device set to a quarter of its speed runs it at an
    /// eighth. Ops that take their run time from a `time` table follow the device's speed
    /// change too.
    pub fn scaled(
        &self,
        compute: f64,
        bandwidth: f64,
        latency: f64,
        speeds: &BTreeMap<String, f64>,
    ) -> Result<Cluster> {
        let compute = positive(compute, || "compute scale".into())?;
        let bandwidth = positive(bandwidth, || "bandwidth scale".into())?;
        let latency = positive(latency, || "latency scale".into())?;
        let mut c = self.clone();
        for (id, &s) in speeds {
            let i = c.device_index(id).ok_or_else(|| {
                Error::Cluster(format!("speed override names unknown device '{id}'"))
            })? as usize;
            let s = positive(s, || format!("speed of device '{id}'"))?;
            c.time_scale[i] *= c.devices[i].speed / s;
            c.devices[i].speed = s;
        }
        for (d, t) in c.devices.iter_mut().zip(&mut c.time_scale) {
            d.speed *= compute;
            *t /= compute;
        }
        for b in &mut c.bandwidth {
            *b *= bandwidth;
        }
        for l in &mut c.latency {
            *l *= latency;
        }
        Ok(c)
    }

    /// Sets the bandwidth of the directed link `src -> dst` (bytes per time unit).
    pub fn set_bandwidth(&mut self, src: DevIx, dst: DevIx, bytes_per_unit: f64) {
        let k = self.len();
        self.bandwidth[src as usize * k + dst as usize] = bytes_per_unit;
    }

    /// Factor on `time` table entries for device `d` (see [`Cluster::scaled`]).
    pub fn time_scale(&self, d: DevIx) -> f64 {
        self.time_scale[d as usize]
    }

    /// Sets every device's memory to `bytes`.
    pub fn set_memory(&mut self, bytes: f64) {
        for d in &mut self.devices {
            d.memory = bytes;
        }
    }

    /// Serializes back to cluster JSON (links listed only where they differ from the
    /// most common bandwidth and latency).
    pub fn to_json(&self) -> String {
        let k = self.len();
        let common = |m: &[f64]| -> f64 {
            let mut counts: BTreeMap<u64, usize> = BTreeMap::new();
            for i in 0..k {
                for j in 0..k {
                    if i != j {
                        *counts.entry(m[i * k + j].to_bits()).or_default() += 1;
                    }
                }
            }
            counts
                .into_iter()
                .max_by_key(|&(_, c)| c)
                .map(|(b, _)| f64::from_bits(b))
                .unwrap_or(1.0)
        };
        let bw = common(&self.bandwidth);
        let lat = common(&self.latency);
        let mut links = Vec::new();
        for i in 0..k {
            for j in 0..k {
                let (b, l) = (self.bandwidth[i * k + j], self.latency[i * k + j]);
                if i != j && (b != bw || l != lat) {
                    links.push(RawLink {
                        src: self.devices[i].id.clone(),
                        dst: self.devices[j].id.clone(),
                        link_type: None,
                        bandwidth: Some(b),
                        latency: Some(l),
                    });
                }
            }
        }
        let raw = RawCluster {
            name: Some(self.name.clone()),
            devices: self
                .devices
                .iter()
                .map(|d| RawDevice {
                    id: d.id.clone(),
                    kind: Some(d.kind.clone()),
                    speed: d.speed,
                    memory: d.memory.is_finite().then_some(d.memory),
                    op_overhead: (d.op_overhead != 0.0).then_some(d.op_overhead),
                })
                .collect(),
            bandwidth: bw,
            latency: Some(lat),
            links,
            link_types: BTreeMap::new(),
            kinds: self
                .op_speed
                .iter()
                .map(|(k, m)| {
                    (
                        k.clone(),
                        RawKind {
                            op_speed: m.clone(),
                            op_overhead: None,
                        },
                    )
                })
                .collect(),
        };
        serde_json::to_string(&raw).expect("cluster serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_links_and_types() {
        let c = Cluster::from_json(
            r#"{"devices":[{"id":"a","speed":1},{"id":"b","speed":2,"kind":"cpu","memory":10}],
                "bandwidth":10,"latency":1,
                "link_types":{"nv":{"bandwidth":100,"latency":0.5}},
                "links":[{"src":"a","dst":"b","type":"nv"},{"src":"b","dst":"a","bandwidth":5}]}"#,
            "c",
        )
        .unwrap();
        assert_eq!(c.devices[0].kind, "gpu");
        assert_eq!(c.devices[0].memory, f64::INFINITY);
        assert_eq!(c.transfer_time(0, 1, 100.0), 0.5 + 1.0);
        assert_eq!(c.transfer_time(1, 0, 100.0), 1.0 + 20.0);
        assert_eq!(c.transfer_time(1, 1, 100.0), 0.0);
        let again = Cluster::from_json(&c.to_json(), "c").unwrap();
        assert_eq!(c, again);
    }

    fn err(text: &str) -> String {
        Cluster::from_json(text, "c").unwrap_err().to_string()
    }

    #[test]
    fn bad_clusters_name_the_culprit() {
        assert!(err(r#"{"devices":[],"bandwidth":1}"#).contains("device list is empty"));
        assert!(err(r#"{"devices":[{"id":"a","speed":0}],"bandwidth":1}"#)
            .contains("device 'a': speed"));
        assert!(
            err(r#"{"devices":[{"id":"a","speed":1},{"id":"a","speed":1}],"bandwidth":1}"#)
                .contains("duplicate device id 'a'")
        );
        assert!(err(r#"{"devices":[{"id":"a","speed":1}],"bandwidth":-1}"#).contains("bandwidth"));
        assert!(err(r#"{"devices":[{"id":"a","speed":1}]}"#).contains("bandwidth"));
        assert!(err(
            r#"{"devices":[{"id":"a","speed":1}],"bandwidth":1,"links":[{"src":"a","dst":"q"}]}"#
        )
        .contains("links[0].dst names unknown device 'q'"));
        assert!(
            err(r#"{"devices":[{"id":"a","speed":1,"memory":-4}],"bandwidth":1}"#)
                .contains("device 'a': memory")
        );
    }

    /// Amounts past [`MAX_AMOUNT`] or below [`MIN_POSITIVE`] used to load and overflow
    /// later: a speed of 5e-324 made every run time infinite ("no device can run node"),
    /// a speed times an op speed factor could round to 0 (a NaN run time).
    #[test]
    fn amounts_outside_the_range_are_refused_by_name() {
        assert_eq!(
            err(r#"{"devices":[{"id":"a","speed":5e-324}],"bandwidth":1}"#),
            "cluster: device 'a': speed must be a finite number > 0 (from 1e-30 to 1e30), got 5e-324"
        );
        assert!(
            err(r#"{"devices":[{"id":"a","speed":1e31}],"bandwidth":1}"#)
                .contains("device 'a': speed")
        );
        assert!(
            err(r#"{"devices":[{"id":"a","speed":1}],"bandwidth":1e-31}"#)
                .contains("bandwidth must be")
        );
        assert!(
            err(r#"{"devices":[{"id":"a","speed":1}],"bandwidth":1,"latency":1e300}"#)
                .contains("latency must be")
        );
        assert!(err(
            r#"{"devices":[{"id":"a","speed":1},{"id":"b","speed":1}],"bandwidth":1,"links":[{"src":"a","dst":"b","latency":1e31}]}"#
        )
        .contains("links[0].latency"));
        assert!(err(
            r#"{"devices":[{"id":"a","speed":1}],"bandwidth":1,"kinds":{"gpu":{"op_speed":{"X":1e-300}}}}"#
        )
        .contains("kinds.gpu.op_speed.X"));
        let c = Cluster::from_json(
            r#"{"devices":[{"id":"a","speed":1e-30},{"id":"b","speed":1e30}],"bandwidth":1e-30,"latency":1e30}"#,
            "c",
        )
        .unwrap();
        assert!(c.scaled(1e31, 1.0, 1.0, &BTreeMap::new()).is_err());
        assert!(c.scaled(1e-30, 1e-30, 1e-30, &BTreeMap::new()).is_ok());
        let e = c.scaled(1.0, 1.0, 0.0, &BTreeMap::new()).unwrap_err();
        assert!(e.to_string().contains("latency scale"), "{e}");
    }

    #[test]
    fn generated_clusters_are_symmetric_and_seeded() {
        let spec = ClusterGen {
            devices: 5,
            speed: [10.0, 100.0],
            memory: None,
            memory_fraction: None,
            bandwidth: [10.0, 60.0],
            latency: [0.0, 0.0],
            kinds: vec![],
        };
        let a = Cluster::generate(&spec, &mut Rng::new(7)).unwrap();
        let b = Cluster::generate(&spec, &mut Rng::new(7)).unwrap();
        assert_eq!(a, b);
        for i in 0..5 {
            assert!((10.0..=100.0).contains(&a.devices[i].speed));
            for j in 0..5 {
                if i != j {
                    assert_eq!(
                        a.bandwidth(i as u32, j as u32),
                        a.bandwidth(j as u32, i as u32)
                    );
                    assert!((10.0..=60.0).contains(&a.bandwidth(i as u32, j as u32)));
                }
            }
        }
    }
}
