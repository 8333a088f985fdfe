//! `pinned`: the placement a graph fixes itself: every op on the one device its `device`
//! rule names (a device id, or a kind that only one device has).
//!
//! This is the placement of TicTac19's model replicas (§2.3, Fig. 3), where the replica
//! transform pins every op to its worker or parameter server, and of any graph exported with
//! explicit device assignments (TensorFlow's manual placement). An op its rules leave on
//! several devices is an error naming it: this placer never chooses.

use super::{Placer, PlacerInfo};
use crate::error::{Error, Result};
use crate::model::cluster::DevIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::plan::Placement;
use crate::rng::Rng;

pub const INFO: PlacerInfo = PlacerInfo {
    name: "pinned",
    summary:
        "every op on the one device its `device` rule names (TicTac19's replicas, manual placement)",
    params: &[],
    plans: false,
    make: || Box::new(Pinned),
};

pub struct Pinned;

impl Placer for Pinned {
    fn place(&self, problem: &Problem, _: &Params, _: &mut Rng) -> Result<Placement> {
        let k = problem.device_count() as DevIx;
        (0..problem.node_count() as u32)
            .map(|v| {
                let mut allowed = (0..k).filter(|&d| problem.allowed(v, d));
                match (allowed.next(), allowed.next()) {
                    (Some(d), None) => Ok(d),
                    (first, _) => {
                        let node = &problem.graph.nodes[v as usize];
                        Err(Error::placement(
                            "pinned",
                            format!(
                                "op '{}' is {} (placer pinned needs every op's `device` to name one device)",
                                node.id,
                                if first.is_none() {
                                    "allowed on no device".to_string()
                                } else {
                                    format!(
                                        "allowed on {} devices",
                                        (0..k).filter(|&d| problem.allowed(v, d)).count()
                                    )
                                }
                            ),
                        ))
                    }
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cluster::Cluster;
    use crate::model::graph::Graph;

    #[test]
    fn follows_pins_and_names_an_unpinned_op() {
        let c = Cluster::from_json(
            r#"{"devices":[{"id":"a","kind":"cpu","speed":1},{"id":"b","speed":1},{"id":"c","speed":1}],"bandwidth":1}"#,
            "c",
        )
        .unwrap();
        let g = Graph::from_json(
            r#"{"nodes":[{"id":"x","cost":1,"device":"c"},{"id":"y","cost":1,"device":"cpu"}]}"#,
            "g",
        )
        .unwrap();
        let p = Problem::new(&g, &c).unwrap();
        let placed = Pinned
            .place(&p, &Params::default(), &mut Rng::new(0))
            .unwrap();
        assert_eq!(placed, vec![2, 0]);
        let g = Graph::from_json(
            r#"{"nodes":[{"id":"x","cost":1,"device":"c"},{"id":"free","cost":1}]}"#,
            "g",
        )
        .unwrap();
        let p = Problem::new(&g, &c).unwrap();
        let e = Pinned
            .place(&p, &Params::default(), &mut Rng::new(0))
            .unwrap_err()
            .to_string();
        assert!(e.contains("op 'free' is allowed on 3 devices"), "{e}");
    }
}
