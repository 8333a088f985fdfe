//! `batch-split`: highest total rank first, each to the fastest feasible device (Mayer17
//! §3.2.1).
//!
//! "We calculate the total rank for each vertex v that is the sum of the upward rank and the
//! downward rank [eq. 5, 6]. Then, we sort vertices by total rank in descending order and
//! assign them independently to the fastest feasible device." The batches are what memory
//! makes of this: the fastest device takes the highest-ranked vertices until it is full,
//! then the next fastest takes the next ones, and so on. O(V log V + E + V x devices): the
//! ranks are two longest-path passes, the sort `V log V`, each unit's devices `members x k`.
//!
//! Choices where the paper is ambiguous:
//! - **Fastest** means the least run time `exec(v, d)` of that vertex, not the largest
//!   device `speed`: the two agree under `cost / speed`, and the run time also covers
//!   per-kind time tables and per-op speed factors. Ties go to the lower device index.
//! - **Feasible** means the vertex may run there (device rules) and its footprint fits in
//!   the device's remaining memory. A vertex that does not fit the fastest device goes to
//!   the next fastest that has room; a later, smaller one may still fit the fastest.
//! - **Colocation groups** are placed whole when their first member (highest total rank)
//!   comes up: the group goes to the device with the least summed run time of all its
//!   members among the devices every member may use that hold the whole group's footprint.
//! - **Ties in total rank** keep node index order (a stable sort).
//! - Without memory limits there is a single batch: every vertex goes to its fastest
//!   allowed device, which under `cost / speed` is the same device for all.

use super::fill::place_in_order;
use super::{Groups, Loads, Placer, PlacerInfo, UNPLACED};
use crate::analysis::total_rank;
use crate::error::Result;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::plan::Placement;
use crate::rng::Rng;

pub const INFO: PlacerInfo = PlacerInfo {
    name: "batch-split",
    summary: "highest total rank first, each to the fastest device with room (Mayer17 §3.2.1)",
    params: &[],
    plans: false,
    make: || Box::new(BatchSplit),
};

pub struct BatchSplit;

impl Placer for BatchSplit {
    fn place(&self, problem: &Problem, _: &Params, _: &mut Rng) -> Result<Placement> {
        let n = problem.node_count();
        let units = Groups::new(problem);
        let mut loads = Loads::new(problem);
        let rank = total_rank(problem);
        let mut order: Vec<NodeIx> = (0..n as NodeIx).collect();
        order.sort_by(|&a, &b| rank[b as usize].total_cmp(&rank[a as usize]));

        let mut placement = vec![UNPLACED; n];
        place_in_order(
            INFO.name,
            problem,
            &units,
            &mut loads,
            &mut placement,
            order,
            |_, _| 0.0,
        )?;
        Ok(placement)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cluster::Cluster;
    use crate::place::verify;
    use crate::testutil::{constrained, graph, parse};

    fn run(p: &Problem) -> Result<Placement> {
        BatchSplit.place(p, &Params::default(), &mut Rng::new(0))
    }

    #[test]
    fn hand_computed_batches() {
        // a(2) -> b(4) -> d(1); a -> c(1) -> d. Every node has mem 1, edges carry 0 bytes.
        // up:   d 1, b 5, c 2, a 2 + 5 = 7.   down: a 2, b 6, c 3, d 7.
        // total: a 9, b 11, c 5, d 8 -> order b, a, d, c.
        // Devices: d0 speed 1 unlimited, d1 speed 4 memory 2, d2 speed 2 memory 1.
        // b -> d1 (1/2); a -> d1 (2/2); d: d1 full -> d2 (1/1); c: d1, d2 full -> d0.
        let (g, c) = parse(
            r#"{"nodes":[{"id":"a","cost":2,"mem":1},{"id":"b","cost":4,"mem":1},{"id":"c","cost":1,"mem":1},{"id":"d","cost":1,"mem":1}],
                "edges":[{"src":"a","dst":"b"},{"src":"b","dst":"d"},{"src":"a","dst":"c"},{"src":"c","dst":"d"}]}"#,
            r#"{"devices":[{"id":"d0","speed":1},{"id":"d1","speed":4,"memory":2},{"id":"d2","speed":2,"memory":1}],"bandwidth":1}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(run(&p).unwrap(), vec![1, 1, 0, 2]);
    }

    #[test]
    fn fastest_is_least_run_time_not_largest_speed() {
        // The cpu (speed 1) runs x in 1 s by its time table; the gpu (speed 10) needs 5 s.
        // y has only a cost: 10 s on the cpu, 1 s on the gpu.
        let (g, c) = parse(
            r#"{"nodes":[{"id":"x","cost":50,"time":{"cpu":1}},{"id":"y","cost":10}]}"#,
            r#"{"devices":[{"id":"g","kind":"gpu","speed":10},{"id":"c","kind":"cpu","speed":1}],"bandwidth":1}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(run(&p).unwrap(), vec![1, 0]);
    }

    #[test]
    fn ties_go_to_the_lower_device_index() {
        let g = graph(r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1}]}"#);
        let c = Cluster::uniform(&[1.0, 3.0, 3.0], 1.0, 0.0);
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(run(&p).unwrap(), vec![1, 1]);
    }

    #[test]
    fn a_group_goes_whole_with_its_first_member() {
        // h (cost 9, top rank) shares group w with l (cost 1, lowest rank, cpu only), and
        // m (cost 5) comes between them in rank. The group is placed when h comes up: only
        // the cpu allows every member, so h goes to the cpu although the gpu is faster for
        // it. m then takes the gpu. Group time on the cpu: 9 + 1 = 10.
        let (g, c) = parse(
            r#"{"nodes":[{"id":"h","cost":9,"colocate":"w"},{"id":"m","cost":5},{"id":"l","cost":1,"colocate":"w","device":"cpu"}]}"#,
            r#"{"devices":[{"id":"g","kind":"gpu","speed":10},{"id":"c","kind":"cpu","speed":1}],"bandwidth":1}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(run(&p).unwrap(), vec![1, 0, 1]);
        // The group's device is the one with the least summed member time. p (work 2)
        // feeds z (cost 20), so p outranks its group mate q: totals z 42, p 24, q 12.
        // z: equal speeds -> d0. Group {p, q} when p comes up: p alone is fastest on d0
        // (1 < 3), but the sums are d0 1 + 9 = 10, d1 3 + 1 = 4 -> d1.
        let (g, c) = parse(
            r#"{"nodes":[{"id":"p","time":{"a":1,"b":3},"colocate":"v"},{"id":"q","time":{"a":9,"b":1},"colocate":"v"},
                         {"id":"z","cost":20}],
                "edges":[{"src":"p","dst":"q"},{"src":"p","dst":"z"}]}"#,
            r#"{"devices":[{"id":"d0","kind":"a","speed":1},{"id":"d1","kind":"b","speed":1}],"bandwidth":1}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(run(&p).unwrap(), vec![1, 1, 0]);
    }

    #[test]
    fn honours_rules_groups_and_tight_memory() {
        let (g, c) = constrained();
        let p = Problem::new(&g, &c).unwrap();
        let placement = run(&p).unwrap();
        verify(&p, &placement).unwrap();
        // The fastest gpu g0 is filled first.
        let used: f64 = (0..p.node_count())
            .filter(|&v| placement[v] == 1)
            .map(|v| p.footprint[v])
            .sum();
        assert!(used > 140.0 && used <= 150.0, "g0 holds {used} of 150");
    }
}
