//! What the benchmarks share (a module, not a bench target: Cargo looks for targets only in
//! `benches/*.rs` and `benches/*/main.rs`).

use placesim::model::cluster::{Cluster, ClusterGen};
use placesim::rng::Rng;

/// `devices` generated devices with Mayer17 §5.1's ranges (speeds 10-100, bandwidths 10-60,
/// no latency), always from seed 1, so every run benchmarks the same cluster.
pub fn cluster(devices: usize) -> Cluster {
    let spec = ClusterGen {
        devices,
        speed: [10.0, 100.0],
        memory: None,
        memory_fraction: None,
        bandwidth: [10.0, 60.0],
        latency: [0.0, 0.0],
        kinds: vec![],
    };
    Cluster::generate(&spec, &mut Rng::new(1)).unwrap()
}
