//! `hash`: random placement proportional to device capacity (Mayer17 §3.1).
//!
//! "Randomly assign vertices to devices proportionally to the capacity of the devices ...
//! Collocation constraints are considered by iteratively merging collocated vertices into a
//! collocation group and assigning this collocation group randomly. Device constraints are
//! fulfilled by restricting the potential set of devices ... Memory requirements are
//! fulfilled in a similar manner by excluding devices with insufficient spare capacity."
//!
//! Choices where the paper is ambiguous:
//! - "Capacity" is compute capacity: a unit goes to device `d` with probability
//!   `speed(d) / sum of speeds` over the devices it may use and that have room for it.
//!   (Memory capacity is a constraint, not a weight, in the same paragraph.)
//! - The "hash function" is a draw from the scenario's seeded RNG, so that runs with
//!   different seeds are the paper's independent repetitions.
//! - Groups (colocation groups, then ungrouped nodes) are drawn in index order.

use super::{assign, no_device_error, Groups, Loads, Placer, PlacerInfo};
use crate::error::Result;
use crate::model::cluster::DevIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::plan::Placement;
use crate::rng::Rng;

pub const INFO: PlacerInfo = PlacerInfo {
    name: "hash",
    summary: "random, proportional to device speed, groups whole (Mayer17 §3.1)",
    params: &[],
    plans: false,
    make: || Box::new(Hash),
};

pub struct Hash;

impl Placer for Hash {
    fn place(&self, problem: &Problem, _: &Params, rng: &mut Rng) -> Result<Placement> {
        let units = Groups::new(problem);
        let mut loads = Loads::new(problem);
        let speeds: Vec<f64> = problem.cluster.devices.iter().map(|d| d.speed).collect();
        let total: f64 = speeds.iter().sum();
        let k = problem.device_count() as DevIx;
        let mut placement = vec![0; problem.node_count()];
        for unit in 0..units.len() as u32 {
            let d = weighted_pick(
                rng,
                &speeds,
                total,
                |d| loads.feasible(problem, &units, unit, d),
                k,
            )
            .ok_or_else(|| no_device_error(INFO.name, problem, &units, unit))?;
            assign(problem, &units, &mut loads, &mut placement, unit, d);
        }
        Ok(placement)
    }
}

/// Draws a device with probability proportional to `weights` among those `ok` accepts.
/// Fast path: draw among all devices and keep the draw when it is acceptable; otherwise
/// fall back to an exact draw over the acceptable ones. Both give the same distribution.
fn weighted_pick(
    rng: &mut Rng,
    weights: &[f64],
    total: f64,
    ok: impl Fn(DevIx) -> bool,
    k: DevIx,
) -> Option<DevIx> {
    let draw = |rng: &mut Rng, total: f64, ok: &dyn Fn(DevIx) -> bool| -> Option<DevIx> {
        let mut x = rng.unit() * total;
        let mut last = None;
        for d in 0..k {
            if !ok(d) {
                continue;
            }
            last = Some(d);
            x -= weights[d as usize];
            if x < 0.0 {
                return Some(d);
            }
        }
        last
    };
    let first = draw(rng, total, &|_| true)?;
    if ok(first) {
        return Some(first);
    }
    let allowed_total: f64 = (0..k).filter(|&d| ok(d)).map(|d| weights[d as usize]).sum();
    if allowed_total <= 0.0 {
        return None;
    }
    draw(rng, allowed_total, &ok)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::place::verify;
    use crate::testutil::{cluster, joined};

    #[test]
    fn proportional_to_speed_and_respects_rules() {
        let c = cluster(
            r#"{"devices":[{"id":"a","speed":1},{"id":"b","speed":3},{"id":"c","kind":"cpu","speed":4}],"bandwidth":1}"#,
        );
        let mut nodes = Vec::new();
        for i in 0..4000 {
            nodes.push(format!(r#"{{"id":"n{i}","cost":1}}"#));
        }
        nodes.push(r#"{"id":"x","cost":1,"device":"gpu","colocate":"g"}"#.into());
        nodes.push(r#"{"id":"y","cost":1,"colocate":"g"}"#.into());
        let g = joined(&nodes, &[]);
        let p = Problem::new(&g, &c).unwrap();
        let placement = Hash
            .place(&p, &Params::default(), &mut Rng::new(3))
            .unwrap();
        verify(&p, &placement).unwrap();
        let mut count = [0usize; 3];
        for &d in &placement[..4000] {
            count[d as usize] += 1;
        }
        // Expected 500 / 1500 / 2000; allow 5 standard deviations.
        assert!(
            (count[0] as f64 - 500.0).abs() < 5.0 * 500f64.sqrt(),
            "{count:?}"
        );
        assert!(
            (count[1] as f64 - 1500.0).abs() < 5.0 * 1500f64.sqrt(),
            "{count:?}"
        );
        assert!(
            (count[2] as f64 - 2000.0).abs() < 5.0 * 2000f64.sqrt(),
            "{count:?}"
        );
        assert_ne!(placement[4000], 2, "group g must avoid the cpu");
        assert_eq!(placement[4000], placement[4001]);
        assert_eq!(
            placement,
            Hash.place(&p, &Params::default(), &mut Rng::new(3))
                .unwrap()
        );
    }
}
