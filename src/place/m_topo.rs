//! `m-topo`: Baechi's memory-constrained topological placement (m-TOPO; Jeon et al., SoCC'20,
//! as Pesto21 §5.2 compares against it).
//!
//! Ops are taken in topological order (Kahn's, FIFO among ready ops: the graph's own order);
//! Baechi's devices, the accelerators (the GPUs, or every device when there is none: Baechi's
//! driver gives its placers the GPUs only; see `Accelerators`), are filled in index order.
//! The current device takes an op while its memory in use plus the op's stays within
//! `floor(total / k) + largest`, where `total` is the summed footprint of all ops, `k` the
//! number of accelerators and `largest` the largest op footprint (Baechi's "uniform" budget);
//! past it, the fill moves on to the next accelerator. A colocation group is placed whole
//! when its first member comes up (Baechi merges colocated ops).
//!
//! Choices (Baechi has no device rules and its own memory model):
//! - Footprints are placesim's static ones (`mem` plus output tensors, as every placer).
//! - A unit the current device may not run, or that exceeds the device's real capacity,
//!   goes to the lowest-index device that may run it and has room (an accelerator, or for a
//!   unit no accelerator may run, any device), without moving the fill on; when no device
//!   has room, the placement fails naming the unit.
//! - The last device takes whatever is left within its capacity (the budget only decides
//!   when to move on, never leaves an op unplaced).

use super::{
    assign, gpus, no_device_error, Accelerators, Groups, Loads, Placer, PlacerInfo, UNPLACED,
};
use crate::error::Result;
use crate::model::cluster::DevIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::plan::Placement;
use crate::rng::Rng;

pub const INFO: PlacerInfo = PlacerInfo {
    name: "m-topo",
    summary: "topological order, devices filled in turn up to an even memory share (Baechi m-TOPO; Pesto21 §5.2)",
    params: &[],
    plans: false,
    make: || Box::new(MTopo),
};

pub struct MTopo;

impl Placer for MTopo {
    fn place(&self, problem: &Problem, _: &Params, _: &mut Rng) -> Result<Placement> {
        let g = problem.graph;
        let fill = gpus(problem);
        let k = fill.len();
        let units = Groups::new(problem);
        let accelerators = Accelerators::new(problem, &units);
        let mut loads = Loads::new(problem);
        let total: f64 = problem.footprint.iter().sum();
        let largest = problem.footprint.iter().copied().fold(0.0, f64::max);
        let budget = (total / k as f64).floor() + largest;
        let mut placement = vec![UNPLACED; g.node_count()];
        let mut current = 0usize;
        for &v in g.topo_order() {
            if placement[v as usize] != UNPLACED {
                continue;
            }
            let unit = units.of[v as usize];
            let need = units.footprint[unit as usize];
            while current + 1 < k
                && loads.memory[fill[current] as usize] > 0.0
                && loads.memory[fill[current] as usize] + need > budget
            {
                current += 1;
            }
            let d = if loads.feasible(problem, &units, unit, fill[current]) {
                fill[current]
            } else {
                (0..problem.device_count() as DevIx)
                    .find(|&d| {
                        accelerators.usable(unit, d) && loads.feasible(problem, &units, unit, d)
                    })
                    .ok_or_else(|| no_device_error(INFO.name, problem, &units, unit))?
            };
            assign(problem, &units, &mut loads, &mut placement, unit, d);
        }
        Ok(placement)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::parse;

    fn place(graph: &str, cluster: &str) -> Result<Placement> {
        let (g, c) = parse(graph, cluster);
        let p = Problem::new(&g, &c).unwrap();
        MTopo.place(&p, &Params::default(), &mut Rng::new(0))
    }

    /// docs/pesto.md, vector B1 (Baechi's "uniform" quirk): memories [4, 4, 4, 4] on 2 devices
    /// give a budget of floor(16 / 2) + 4 = 12, so the split is {0, 1, 2} | {3}: by count,
    /// not balanced.
    #[test]
    fn b1_uniform_budget_splits_three_to_one() {
        let four = r#"{"nodes":[{"id":"a","cost":1,"mem":4},{"id":"b","cost":1,"mem":4},{"id":"c","cost":1,"mem":4},
                                {"id":"d","cost":1,"mem":4}],
            "edges":[{"src":"a","dst":"b"},{"src":"b","dst":"c"},{"src":"c","dst":"d"}]}"#;
        let two = r#"{"devices":[{"id":"d0","speed":1},{"id":"d1","speed":1}],"bandwidth":1}"#;
        assert_eq!(place(four, two).unwrap(), vec![0, 0, 0, 1]);
    }

    /// A chain a -> b -> c -> d -> e of ops with mem 4 each (no output bytes), 2 devices:
    /// total 20, budget floor(20 / 2) + 4 = 14: d0 takes a, b, c (12; a fourth would make
    /// 16 > 14), d1 takes d and e.
    #[test]
    fn fills_devices_in_turn_up_to_the_budget() {
        let chain = r#"{"nodes":[{"id":"a","cost":1,"mem":4},{"id":"b","cost":1,"mem":4},{"id":"c","cost":1,"mem":4},
                                 {"id":"d","cost":1,"mem":4},{"id":"e","cost":1,"mem":4}],
            "edges":[{"src":"a","dst":"b"},{"src":"b","dst":"c"},{"src":"c","dst":"d"},{"src":"d","dst":"e"}]}"#;
        let two = r#"{"devices":[{"id":"d0","speed":1},{"id":"d1","speed":1}],"bandwidth":1}"#;
        assert_eq!(place(chain, two).unwrap(), vec![0, 0, 0, 1, 1]);
        // A device that must hold b (a group with e) takes e when b comes up.
        let grouped = chain
            .replace(
                r#""id":"b","cost":1,"mem":4"#,
                r#""id":"b","cost":1,"mem":4,"colocate":"w""#,
            )
            .replace(
                r#""id":"e","cost":1,"mem":4"#,
                r#""id":"e","cost":1,"mem":4,"colocate":"w""#,
            );
        // a (4) on d0; b+e (8) make 12 <= 14 on d0; c makes 16 > 14: d1 takes c and d.
        assert_eq!(place(&grouped, two).unwrap(), vec![0, 0, 1, 1, 0]);
        // Real capacity 9 on d0, 12 on d1: a and b (8) fill d0; c, d and e go to the first
        // device with room, d1, while the fill stays on d0 (its budget is not spent).
        let small = r#"{"devices":[{"id":"d0","speed":1,"memory":9},{"id":"d1","speed":1,"memory":12}],"bandwidth":1}"#;
        assert_eq!(place(chain, small).unwrap(), vec![0, 0, 1, 1, 1]);
        // Capacity 5 each: a on d0, b on d1, then no room for c: an error naming it.
        let tiny = r#"{"devices":[{"id":"d0","speed":1,"memory":5},{"id":"d1","speed":1,"memory":5}],"bandwidth":1}"#;
        assert!(place(chain, tiny)
            .unwrap_err()
            .to_string()
            .contains("node 'c'"));
    }

    /// Baechi fills the GPUs only: on a CPU (device 0) and two GPUs, B1's four ops of mem 4
    /// plus x (mem 4, CPU only): total 20 over k = 2 GPUs, budget floor(20 / 2) + 4 = 14;
    /// g0 takes a, b, c (12), d would make 16: g1. x may run on no GPU: the CPU.
    #[test]
    fn fills_the_gpus_only() {
        let five = r#"{"nodes":[{"id":"a","cost":1,"mem":4},{"id":"b","cost":1,"mem":4},{"id":"c","cost":1,"mem":4},
                                {"id":"d","cost":1,"mem":4},{"id":"x","cost":1,"mem":4,"device":"cpu"}],
            "edges":[{"src":"a","dst":"b"},{"src":"b","dst":"c"},{"src":"c","dst":"d"},{"src":"d","dst":"x"}]}"#;
        let cpu_gpus = r#"{"devices":[{"id":"c","kind":"cpu","speed":1},{"id":"g0","kind":"gpu","speed":1},
            {"id":"g1","kind":"gpu","speed":1}],"bandwidth":1}"#;
        assert_eq!(place(five, cpu_gpus).unwrap(), vec![1, 1, 1, 2, 0]);
    }
}
