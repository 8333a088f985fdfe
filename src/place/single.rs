//! `single`: TensorFlow's simple placer (Carbonari17, footnote 1 of Table 2).
//!
//! "simple-placer sorts all devices and if no manual placement constraint given by user,
//! simple-placer assigns all nodes to the first device on the list": with 20 CPU cores and
//! 10 GPUs everything lands on `gpu0`. The sort is the one of the cited simple_placer.cc
//! (`FilterSupportedDevices` over `DeviceSet::PrioritizedDeviceTypeList`): device types by
//! priority (TensorFlow registered GPU at 210 and CPU at 70 in 2017; other accelerator types
//! such as SYCL between them), types of equal priority by name, then devices by name
//! (string order, as `a->name() < b->name()`). Here: kind `gpu` first, then any other kind
//! that is not `cpu` (alphabetically), then `cpu` (kinds compared case-insensitively);
//! within a kind, devices by id in string order, so `gpu0` comes first whatever order the
//! cluster file lists the devices in.
//!
//! Choices where the paper is silent: a node (or colocation group) whose rules forbid the
//! first device goes to the first device on the list it may use, as TensorFlow does; and
//! since TensorFlow's placer ignores memory but ours must honour it, a unit that does not
//! fit moves on to the next device on the list (an error when none has room).

use super::{assign, no_device_error, Groups, Loads, Placer, PlacerInfo};
use crate::error::Result;
use crate::model::cluster::DevIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::plan::Placement;
use crate::rng::Rng;

pub const INFO: PlacerInfo = PlacerInfo {
    name: "single",
    summary:
        "everything on the first device, accelerators first (TensorFlow simple placer, Carbonari17)",
    params: &[],
    plans: false,
    make: || Box::new(Single),
};

pub struct Single;

/// Device indices in simple-placer order: gpu, other kinds (by name), cpu; by id within.
pub fn device_order(problem: &Problem) -> Vec<DevIx> {
    let key = |d: DevIx| {
        let dev = &problem.cluster.devices[d as usize];
        let kind = dev.kind.to_ascii_lowercase();
        let rank = match kind.as_str() {
            "gpu" => 0,
            "cpu" => 2,
            _ => 1,
        };
        (rank, kind, dev.id.as_str())
    };
    let mut order: Vec<DevIx> = (0..problem.device_count() as DevIx).collect();
    order.sort_by(|&a, &b| key(a).cmp(&key(b)));
    order
}

impl Placer for Single {
    fn place(&self, problem: &Problem, _: &Params, _: &mut Rng) -> Result<Placement> {
        let units = Groups::new(problem);
        let mut loads = Loads::new(problem);
        let order = device_order(problem);
        let mut placement = vec![0; problem.node_count()];
        for unit in 0..units.len() as u32 {
            let d = order
                .iter()
                .copied()
                .find(|&d| loads.feasible(problem, &units, unit, d))
                .ok_or_else(|| no_device_error(INFO.name, problem, &units, unit))?;
            assign(problem, &units, &mut loads, &mut placement, unit, d);
        }
        Ok(placement)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{cluster, graph};

    #[test]
    fn everything_on_the_first_gpu_unless_rules_say_otherwise() {
        let c = cluster(
            r#"{"devices":[{"id":"cpu0","kind":"cpu","speed":1},{"id":"gpu0","kind":"gpu","speed":1,"memory":10},
                           {"id":"gpu1","kind":"gpu","speed":1}],"bandwidth":1}"#,
        );
        let g = graph(
            r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1,"device":"cpu"},{"id":"c","cost":1,"mem":20},
                         {"id":"d","cost":1,"mem":4,"colocate":"w"},{"id":"e","cost":1,"mem":4,"colocate":"w"}]}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        let placement = Single
            .place(&p, &Params::default(), &mut Rng::new(0))
            .unwrap();
        // a -> gpu0; b must be on a cpu; c does not fit gpu0's 10 bytes -> gpu1; group w (8 bytes) -> gpu0.
        assert_eq!(placement, vec![1, 0, 2, 1, 1]);
        super::super::verify(&p, &placement).unwrap();
    }

    /// The sort is by kind, then by device name, not by the order of the cluster file:
    /// devices listed as cpu1, tpu0, gpu1, cpu0, gpu0, gpu2 (kind "GPU") -> gpu0, gpu1,
    /// gpu2, tpu0, cpu0, cpu1 (indices 4, 2, 5, 1, 3, 0).
    #[test]
    fn devices_sort_by_kind_then_name() {
        let c = cluster(
            r#"{"devices":[{"id":"cpu1","kind":"cpu","speed":1},{"id":"tpu0","kind":"tpu","speed":1},
                           {"id":"gpu1","kind":"gpu","speed":1},{"id":"cpu0","kind":"cpu","speed":1},
                           {"id":"gpu0","kind":"gpu","speed":1},{"id":"gpu2","kind":"GPU","speed":1}],"bandwidth":1}"#,
        );
        let g = graph(r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1,"device":"cpu"}]}"#);
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(device_order(&p), vec![4, 2, 5, 1, 3, 0]);
        let placement = Single
            .place(&p, &Params::default(), &mut Rng::new(0))
            .unwrap();
        assert_eq!(placement, vec![4, 3]);
    }

    #[test]
    fn reports_a_unit_that_fits_nowhere() {
        let c = cluster(r#"{"devices":[{"id":"g","speed":1,"memory":1}],"bandwidth":1}"#);
        let g = graph(r#"{"nodes":[{"id":"big","cost":1,"mem":5}]}"#);
        let p = Problem::new(&g, &c).unwrap();
        let e = Single
            .place(&p, &Params::default(), &mut Rng::new(0))
            .unwrap_err()
            .to_string();
        assert!(e.contains("node 'big'"), "{e}");
    }
}
