//! The default scenario: what an empty link means, and what the page starts from.
//!
//! A link writes only the keys whose value differs from these ([`super::link`]), so they
//! are part of the link format (`docs/url-format.md`): changing one changes what every
//! link already shared means. The defaults of the scenario's own fields (all placers, one
//! seed, `fifo` link order, ...) are [`Scenario::new`]'s; this module adds the graph and
//! the cluster a scenario without them gets.
//!
//! Not here: the page's State object (`www/state.js` maps it to and from a scenario) or the
//! defaults of strategy parameters (each strategy's registry entry declares its own).

use crate::model::cluster::ClusterGen;

use super::{ClusterSource, GraphSource, Scenario};

/// The bundled graph a link without `graph` means.
pub const DEFAULT_GRAPH: &str = "resnet50_layers";

/// The generated cluster a link without cluster keys means.
pub fn default_cluster_gen() -> ClusterGen {
    ClusterGen {
        devices: 4,
        speed: [5e12, 1.5e13],
        memory: None,
        memory_fraction: None,
        bandwidth: [1e9, 1e10],
        latency: [1e-5, 1e-5],
        kinds: vec![],
    }
}

/// One row of an explicit cluster's device table.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceRow {
    pub id: String,
    pub kind: Option<String>,
    pub speed: f64,
    pub memory: Option<f64>,
}

/// The explicit device table `cluster=explicit` means when the link has no `dev`:
/// one CPU and two GPUs (the example of the graph format).
pub fn default_devices() -> Vec<DeviceRow> {
    let row = |id: &str, kind: &str, speed: f64, memory: f64| DeviceRow {
        id: id.into(),
        kind: Some(kind.into()),
        speed,
        memory: Some(memory),
    };
    vec![
        row("cpu0", "cpu", 2e11, 6.4e10),
        row("gpu0", "gpu", 1.5e13, 1.6e10),
        row("gpu1", "gpu", 1.5e13, 1.6e10),
    ]
}

/// Default bandwidth of an explicit cluster.
pub const DEFAULT_BW: f64 = 1.2e10;
/// Default latency of an explicit cluster.
pub const DEFAULT_LAT: f64 = 1e-5;

/// The scenario of an empty link.
pub fn defaults() -> Scenario {
    Scenario::new(
        GraphSource::Bundled(DEFAULT_GRAPH.into()),
        ClusterSource::Generate(default_cluster_gen()),
    )
}
