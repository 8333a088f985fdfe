//! `tf-greedy`: the TensorFlow whitepaper's greedy heuristic, the baseline *Heuristic-G* of
//! Carbonari17 (Carbonari, Kodirov, Golub 2017, §1 and §4).
//!
//! Carbonari17 §1: the heuristic "traverses job nodes in their topological order and places
//! nodes on the device where it completes fastest"; §4: "Heuristic-G considers all devices
//! only once to decide placement of each node and selects the one which completes the
//! operation earliest". The whitepaper (Abadi et al. 2015, §3.2.1) computes that completion
//! time by simulating the execution with a cost model, counting the transfers of inputs
//! between devices.
//!
//! For each node `v` in [`Graph::topo_order`] and each device `d` it may use, the
//! estimated finish time is
//!
//! ```text
//! ready(v, d)  = max over edges e = (u -> v) of  finish(u) + transfer_time(e, dev(u), d)
//! finish(v, d) = max(free(d), ready(v, d)) + exec(v, d)
//! ```
//!
//! where `free(d)` is when `d` finishes the ops already placed on it (its queue: ops are
//! appended in visiting order, never inserted into gaps), and the transfer time is zero on
//! one device. `v` goes to the device with the smallest `finish(v, d)`; `free` and
//! `finish(v)` are updated.
//!
//! Choices where the papers are silent:
//! - Ties go to the lowest device index.
//! - Colocation groups go whole: the first member visited decides the group's device,
//!   choosing only among devices that every member may use and that have memory for the
//!   whole group (its [`Groups`] footprint, reserved at once); later members are placed
//!   there and only their times are computed.
//! - Memory: a device whose remaining memory cannot take a node's (or group's) footprint
//!   is skipped; when no device can, the placer fails naming the node or group.
//! - Each edge counts its own transfer (two consumers of one tensor on one device each
//!   wait for the same arrival time, so this only matters for the estimate, not the
//!   choice between devices).
//!
//! Cost: O((V + E) * devices).
//!
//! [`Graph::topo_order`]: crate::model::graph::Graph::topo_order

use super::{assign, best_device, no_device_error, Groups, Loads, Placer, PlacerInfo, UNPLACED};
use crate::error::Result;
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::plan::Placement;
use crate::rng::Rng;

pub const INFO: PlacerInfo = PlacerInfo {
    name: "tf-greedy",
    summary: "topological order, each op on the device where it finishes first (TensorFlow whitepaper; Heuristic-G of Carbonari17)",
    params: &[],
    plans: false,
    make: || Box::new(TfGreedy),
};

pub struct TfGreedy;

impl Placer for TfGreedy {
    fn place(&self, problem: &Problem, _: &Params, _: &mut Rng) -> Result<Placement> {
        Ok(estimate(problem)?.0)
    }
}

/// The placement and each node's estimated finish time.
pub fn estimate(problem: &Problem) -> Result<(Placement, Vec<f64>)> {
    let g = problem.graph;
    let k = problem.device_count();
    let units = Groups::new(problem);
    let mut loads = Loads::new(problem);
    let mut placement = vec![UNPLACED; g.node_count()];
    let mut unit_device = vec![UNPLACED; units.len()];
    let mut finish = vec![0.0f64; g.node_count()];
    let mut free = vec![0.0f64; k];

    let finish_on = |v: NodeIx, d: DevIx, placement: &[DevIx], finish: &[f64], free: &[f64]| {
        let mut ready = free[d as usize];
        for &e in g.in_edges(v) {
            let u = g.edges[e as usize].src;
            let arrive =
                finish[u as usize] + problem.edge_transfer_time(e, placement[u as usize], d);
            ready = ready.max(arrive);
        }
        ready + problem.exec(v, d)
    };

    for &v in g.topo_order() {
        let unit = units.of[v as usize];
        let d = match unit_device[unit as usize] {
            UNPLACED => {
                let d = best_device(problem, &units, &loads, unit, |d| {
                    finish_on(v, d, &placement, &finish, &free)
                })
                .ok_or_else(|| no_device_error(INFO.name, problem, &units, unit))?;
                unit_device[unit as usize] = d;
                // Later members get the group's device now; only their times wait.
                assign(problem, &units, &mut loads, &mut placement, unit, d);
                d
            }
            d => d,
        };
        let t = finish_on(v, d, &placement, &finish, &free);
        placement[v as usize] = d;
        finish[v as usize] = t;
        free[d as usize] = t;
    }
    Ok((placement, finish))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::place::verify;
    use crate::testutil::{carbonari_appendix, cluster, graph};

    /// Carbonari17's appendix graph (Figure 1a, Table 5 costs; CPU1, CPU2, GPU; no transfer
    /// cost), by hand, visiting 1..5:
    /// - node1 (4 / 4 / 2): finishes 4, 4, 2 -> GPU, free(GPU) = 2.
    /// - node2 (6 / 6 / 5), input at 2: 8, 8, max(2, 2) + 5 = 7 -> GPU, free(GPU) = 7.
    /// - node3 (1 / 1 / 3), input at 7: 8, 8, 10 -> CPU1 (tie with CPU2, lower index).
    /// - node4 (4 / 4 / 2), input at 7: max(8, 7) + 4 = 12, 11, 9 -> GPU, free(GPU) = 9.
    /// - node5 (5 / 5 / 7), inputs at 8 and 9: max(8, 9) + 5 = 14, 14, 9 + 7 = 16 -> CPU1.
    #[test]
    fn appendix_graph_by_hand() {
        let (g, c) = carbonari_appendix();
        let p = Problem::new(&g, &c).unwrap();
        let (placement, finish) = estimate(&p).unwrap();
        assert_eq!(placement, vec![2, 2, 0, 2, 0]);
        assert_eq!(finish, vec![2.0, 7.0, 8.0, 9.0, 14.0]);
        verify(&p, &placement).unwrap();
    }

    /// Transfers and queues count (bandwidth 1, latency 0).
    /// First graph: a (1) -> b (4, 10 bytes), c (3) independent; two equal devices.
    /// - a: finishes 1 on both -> d0 (tie, lower index).
    /// - b: d0: 1 + 4 = 5; d1: 1 + 10 (transfer) + 4 = 15 -> d0.
    /// - c: d0 is busy until 5 (5 + 3 = 8), d1 is free (3) -> d1.
    ///
    /// Then a fixed on d0 (speed 1) and b of cost 4 or 40 with d1 twice as fast: see below.
    #[test]
    fn transfers_and_queues_count() {
        let c =
            cluster(r#"{"devices":[{"id":"d0","speed":1},{"id":"d1","speed":1}],"bandwidth":1}"#);
        let g = graph(
            r#"{"nodes":[{"id":"a","cost":1},{"id":"b","time":{"gpu":4}},{"id":"c","cost":3}],
                "edges":[{"src":"a","dst":"b","bytes":10}]}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        let (placement, finish) = estimate(&p).unwrap();
        assert_eq!(placement, vec![0, 0, 1]);
        assert_eq!(finish, vec![1.0, 5.0, 3.0]);

        let c2 =
            cluster(r#"{"devices":[{"id":"d0","speed":1},{"id":"d1","speed":2}],"bandwidth":1}"#);
        let g2 = graph(
            r#"{"nodes":[{"id":"a","cost":1,"device":"d0"},{"id":"b","cost":4}],
                "edges":[{"src":"a","dst":"b","bytes":10}]}"#,
        );
        let p2 = Problem::new(&g2, &c2).unwrap();
        // b: d0 1 + 4 = 5; d1 1 + 10 + 2 = 13 -> d0.
        assert_eq!(estimate(&p2).unwrap().0, vec![0, 0]);
        let g3 = graph(
            r#"{"nodes":[{"id":"a","cost":1,"device":"d0"},{"id":"b","cost":40}],
                "edges":[{"src":"a","dst":"b","bytes":10}]}"#,
        );
        let p3 = Problem::new(&g3, &c2).unwrap();
        // b: d0 1 + 40 = 41; d1 1 + 10 + 20 = 31 -> d1.
        let (placement, finish) = estimate(&p3).unwrap();
        assert_eq!(placement, vec![0, 1]);
        assert_eq!(finish, vec![1.0, 31.0]);
    }

    /// Colocation: the first member visited decides among devices the whole group may use
    /// and that hold the whole group; memory is honoured.
    /// - x (group w with z; z may only run on the cpus) is visited first: the gpu g0 would
    ///   finish it first (1 vs 2), but z forbids g0 -> the group goes to c0 (tie with c1,
    ///   lower index), memory 6 + 6 = 12 of c0's 12.
    /// - y (mem 1): c0 is full -> c1 or g0; g0 finishes first.
    /// - z is then forced onto c0.
    #[test]
    fn groups_go_whole_and_memory_counts() {
        let c = cluster(
            r#"{"devices":[{"id":"c0","kind":"cpu","speed":1,"memory":12},{"id":"c1","kind":"cpu","speed":1},
                           {"id":"g0","kind":"gpu","speed":2}],"bandwidth":1}"#,
        );
        let g = graph(
            r#"{"nodes":[{"id":"x","cost":2,"mem":6,"colocate":"w"},{"id":"y","cost":2,"mem":1},
                         {"id":"z","cost":2,"mem":6,"colocate":"w","device":"cpu"}],
                "edges":[{"src":"x","dst":"y"},{"src":"y","dst":"z"}]}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        let (placement, _) = estimate(&p).unwrap();
        assert_eq!(placement, vec![0, 2, 0]);
        verify(&p, &placement).unwrap();

        let tight = cluster(
            r#"{"devices":[{"id":"c0","kind":"cpu","speed":1,"memory":11},{"id":"g0","kind":"gpu","speed":2}],"bandwidth":1}"#,
        );
        let p = Problem::new(&g, &tight).unwrap();
        let e = TfGreedy
            .place(&p, &Params::default(), &mut Rng::new(0))
            .unwrap_err()
            .to_string();
        assert!(e.contains("colocation group 'w'"), "{e}");
    }
}
