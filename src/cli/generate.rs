//! `placesim generate`: a synthetic layered DAG as graph JSON.
//!
//! Not here: the generator (`model::synthetic`).

use placesim::model::synthetic::{layered_dag, SyntheticSpec};
use placesim::{Error, Result};

pub fn generate(nodes: usize, seed: u64, window: usize) -> Result<()> {
    if nodes == 0 {
        return Err(Error::Scenario("--nodes must be at least 1".into()));
    }
    let mut spec = SyntheticSpec::new(nodes, seed);
    spec.window = window.max(1);
    out!("{}", layered_dag(spec));
    Ok(())
}
