//! `mite`: Memory, Importance, Traffic and Execution time (Mayer17 §3.3.1, eq. 8-10).
//!
//! Vertices are visited one at a time and each goes to the device that minimises
//!
//! ```text
//! mite(v, d) = mem(d) x imp(v, d) x traffic(v, d) x execTime(v, d)          (eq. 8)
//! imp(v, d)  = 1 - totalRank(v) / max_u totalRank(u) x s_d / max_e s_e         (eq. 9)
//! traffic(v, d) = sum over in-edges (u, v) of t / B(p(u), d)                  (eq. 10)
//! execTime(v, d) = exec(v, d) / max over allowed devices of exec(v, .)
//! ```
//!
//! among the devices it may use that have memory left for it. The traffic and execution-time
//! scores, which `dfs` (§3.3.2, eq. 11) shares, are in `scores.rs`.
//!
//! Choices where the paper is ambiguous:
//! - **Visiting order.** Vertices in descending total rank (upward + downward rank, eq. 5
//!   and 6; ties: lower node index), after §3.3's objective (iv) "prefer vertices on
//!   critical paths to be assigned first". Only predecessors placed before `v` count in
//!   its traffic score.
//! - **Memory score.** "The percentage of memory utilization of dev_l" is 0 on an empty
//!   device and would zero the whole product, so the score is `1 + utilisation`, where the
//!   utilisation is the one the device would have *after* taking the vertex:
//!   `(footprint already placed + the vertex's footprint) / capacity`. It stays in
//!   `[1, 2]`, never zeroes the product, still favours less loaded devices and, through the
//!   vertex's own footprint, devices with more memory (§3.3 objective iii). A device with
//!   unlimited memory scores 1 (0 % used, the most capacity there is); so in a cluster
//!   without memory limits the memory score has no effect.
//! - **Traffic score.** `t / B` is the transfer time of the edge's tensor from the
//!   predecessor's device to `d`, `latency + bytes / bandwidth` ([`Problem`]'s cost model,
//!   exactly `t / B` when latency is 0), and 0 when the predecessor is on `d`. A tensor
//!   carried by several in-edges of the vertex (or of its colocation group) counts once,
//!   as the simulator sends it once. A traffic of 0 would zero the product on every device
//!   that holds all placed predecessors (and on every device for a vertex with none
//!   placed), leaving the other three objectives no say among those devices. The score is
//!   therefore `floor + sum of transfer times`, with `floor = traffic_floor x` the mean,
//!   over all nodes, of their slowest allowed run time (a time scale of the problem, so the
//!   choice does not depend on the units of the files). With the default
//!   `traffic_floor = 0.001` a device holding the predecessors still wins unless another is
//!   better on the other factors by about `transfer time / floor` (usually thousands), so
//!   staying with the predecessors dominates, as the zero product intends; set it to 1 to
//!   see traffic weighed against compute.
//! - **Execution time score** (shared with `dfs`): run time over the vertex's slowest run
//!   time on any allowed device, so in `(0, 1]`; 1 on every allowed device for an op whose
//!   run times are all 0.
//! - **Importance.** Eq. 9 exactly, with the device's `speed` as `s_l` (also when a node
//!   has per-kind time tables). The vertex with the highest total rank scores 0 on the
//!   fastest device, so it goes there whenever it fits, whatever the other factors. When
//!   every total rank is 0 the rank ratio is taken as 0 (`imp = 1`).
//! - **Colocation groups** are placed whole when their first member comes up in the
//!   visiting order (the member with the highest total rank, whose rank `imp` uses). For the
//!   group, execution time is the members' summed run time on `d` over its maximum over
//!   allowed devices, traffic counts the in-edges of every member from placed nodes, and
//!   memory uses the members' summed footprint.
//! - **Ties** (equal scores, e.g. two devices of the maximal speed for the top-ranked
//!   vertex) go to the device with the smaller execution time, then the lower index.

use super::scores::{traffic_floor, UnitScores, TRAFFIC_FLOOR};
use super::{assign, best_device, no_device_error, Groups, Loads, Placer, PlacerInfo, UNPLACED};
use crate::analysis::total_rank;
use crate::error::Result;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::plan::Placement;
use crate::rng::Rng;

pub const INFO: PlacerInfo = PlacerInfo {
    name: "mite",
    summary:
        "min memory x importance x traffic x exec time, critical vertices first (Mayer17 §3.3.1)",
    params: &[TRAFFIC_FLOOR],
    plans: false,
    make: || Box::new(Mite),
};

pub struct Mite;

impl Placer for Mite {
    fn place(&self, problem: &Problem, params: &Params, _: &mut Rng) -> Result<Placement> {
        let floor = traffic_floor(INFO.name, problem, params)?;
        let units = Groups::new(problem);
        let mut loads = Loads::new(problem);
        let rank = total_rank(problem);
        let max_rank = rank.iter().copied().fold(0.0, f64::max);
        let devices = &problem.cluster.devices;
        let max_speed = devices.iter().map(|d| d.speed).fold(0.0, f64::max);
        let mut order: Vec<NodeIx> = (0..problem.node_count() as NodeIx).collect();
        order.sort_by(|&a, &b| {
            rank[b as usize]
                .total_cmp(&rank[a as usize])
                .then(a.cmp(&b))
        });

        let mut placement = vec![UNPLACED; problem.node_count()];
        let mut scores = UnitScores::new(problem);
        for v in order {
            if placement[v as usize] != UNPLACED {
                continue;
            }
            let unit = units.of[v as usize];
            let members = &units.members[unit as usize];
            let footprint = units.footprint[unit as usize];
            scores.fill_exec(problem, members);
            scores.fill_traffic(problem, members, &placement, floor);
            // `v` is the unit's first member in descending rank, so it has the unit's
            // highest total rank.
            let r = if max_rank > 0.0 {
                rank[v as usize] / max_rank
            } else {
                0.0
            };
            // Ties go to the smaller execution time score, then the lower index.
            let d = best_device(problem, &units, &loads, unit, |d| {
                let d = d as usize;
                let cap = devices[d].memory;
                let used = loads.memory[d] + footprint;
                let util = if cap.is_finite() && cap > 0.0 {
                    used / cap
                } else {
                    0.0
                };
                let mem = 1.0 + util;
                let imp = 1.0 - r * devices[d].speed / max_speed;
                (
                    mem * imp * scores.traffic[d] * scores.exec[d],
                    scores.exec[d],
                )
            })
            .ok_or_else(|| no_device_error(INFO.name, problem, &units, unit))?;
            assign(problem, &units, &mut loads, &mut placement, unit, d);
        }
        Ok(placement)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cluster::Cluster;
    use crate::place::verify;
    use crate::testutil::{cluster, constrained, graph, parse};

    fn run(p: &Problem, params: Params) -> Result<Placement> {
        Mite.place(p, &params, &mut Rng::new(0))
    }

    fn defaults() -> Params {
        Params::defaults(INFO.params)
    }

    #[test]
    fn hand_computed_three_nodes() {
        // a(cost 2) -> b(cost 2, 6 bytes), a -> c(cost 1, 6 bytes); a has mem 2 and writes
        // one 6-byte tensor, so footprint(a) = 8, b and c have footprint 0.
        // Ranks: up a = 4, b = 2, c = 1; down a = 2, b = 4, c = 3; total a = 6, b = 6, c = 4.
        // Order: a (6, index 0), b (6), c (4). max rank 6.
        // Devices: d0 speed 4, memory 10; d1 speed 2, memory 40. Bandwidth 3, latency 0.
        // Mean slowest run time = (2/2 + 2/2 + 1/2) / 3 = 5/6, floor = 0.001 * 5/6.
        // a: r = 1. d0: mem 1 + 8/10 = 1.8, imp 1 - 1 * 4/4 = 0 -> score 0.
        //    d1: mem 1.2, imp 1 - 2/4 = 0.5, traffic floor, exec 1 -> > 0. a -> d0.
        // b: r = 1. d0: imp 0 -> 0. b -> d0.
        // c: r = 4/6. d0: mem 1.8, imp 1 - 2/3 = 1/3, traffic = floor, exec (1/4)/(1/2) = 0.5
        //      -> 1.8 * 1/3 * 0.5 * floor = 0.3 floor.
        //    d1: mem 1, imp 1 - 2/3 * 1/2 = 2/3, traffic floor + 6/3 = 2 + floor, exec 1
        //      -> 2/3 * (2 + floor), far larger. c -> d0.
        let (g, c) = parse(
            r#"{"nodes":[{"id":"a","cost":2,"mem":2},{"id":"b","cost":2},{"id":"c","cost":1}],
                "edges":[{"src":"a","dst":"b","bytes":6,"tensor":"o"},{"src":"a","dst":"c","bytes":6,"tensor":"o"}]}"#,
            r#"{"devices":[{"id":"d0","speed":4,"memory":10},{"id":"d1","speed":2,"memory":40}],"bandwidth":3}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(run(&p, defaults()).unwrap(), vec![0, 0, 0]);
        // Scores as computed above.
        let floor = traffic_floor("mite", &p, &defaults()).unwrap();
        assert!((floor - 0.001 * 5.0 / 6.0).abs() < 1e-15);
        let mut s = UnitScores::new(&p);
        s.fill_exec(&p, &[2]);
        assert_eq!(s.exec, vec![0.5, 1.0]);
        s.fill_traffic(&p, &[2], &[0, 0, UNPLACED], floor);
        assert_eq!(s.traffic, vec![floor, floor + 2.0]);
    }

    #[test]
    fn memory_score_is_one_plus_utilisation_after_adding() {
        // Two identical devices (speed 1, memory 10); x (footprint 4) first, y (footprint
        // 1, rank lower) second, no edges. x: d0 and d1 both mem 1.4 -> tie on everything,
        // lower index d0. y: d0 mem 1 + 5/10 = 1.5, d1 mem 1 + 1/10 = 1.1; the other factors
        // are equal, so y -> d1 (the raw percentage before adding would be 0.4 vs 0: the
        // same choice, but a zero product on d1).
        let (g, c) = parse(
            r#"{"nodes":[{"id":"x","cost":2,"mem":4},{"id":"y","cost":1,"mem":1}]}"#,
            r#"{"devices":[{"id":"d0","speed":1,"memory":10},{"id":"d1","speed":1,"memory":10}],"bandwidth":1}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(run(&p, defaults()).unwrap(), vec![0, 1]);
        // With unlimited memory the memory score is 1 everywhere: y joins x on d0 (tie).
        let c = Cluster::uniform(&[1.0, 1.0], 1.0, 0.0);
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(run(&p, defaults()).unwrap(), vec![0, 0]);
    }

    #[test]
    fn traffic_floor_lets_the_other_factors_rank_zero_traffic_devices() {
        // x (cost 3, mem 9) is pinned to d0; y (cost 1, mem 0) is independent, so its
        // traffic is the floor f on every device. Devices: d0 speed 3, memory 10; d1 speed
        // 2, unlimited. Total ranks x = 6, y = 2: x first, then y with r = 1/3.
        //   d0: mem 1 + 9/10 = 1.9, imp 1 - 1/3 = 2/3, exec (1/3)/(1/2) = 2/3 -> 0.844 f
        //   d1: mem 1,              imp 1 - 1/3 * 2/3 = 7/9, exec 1          -> 0.778 f
        // With the floor, y -> d1. With a literal zero (traffic_floor = 0) both score 0
        // and the tie goes to the smaller run time, d0.
        let (g, c) = parse(
            r#"{"nodes":[{"id":"x","cost":3,"mem":9,"device":"d0"},{"id":"y","cost":1}]}"#,
            r#"{"devices":[{"id":"d0","speed":3,"memory":10},{"id":"d1","speed":2}],"bandwidth":1}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(run(&p, defaults()).unwrap(), vec![0, 1]);
        assert_eq!(
            run(&p, defaults().with("traffic_floor", 0.0)).unwrap(),
            vec![0, 0]
        );
        // A negative floor never reaches the placer: resolving the parameter refuses it.
        let o = std::collections::BTreeMap::from([("mite.traffic_floor".to_string(), -1.0)]);
        let e = Params::resolve("mite", INFO.params, &o)
            .unwrap_err()
            .to_string();
        assert!(e.contains("'mite.traffic_floor' = -1"), "{e}");
    }

    #[test]
    fn staying_with_predecessors_dominates_unless_the_floor_is_large() {
        // p (cost 4, pinned to d0) -> q (cost 1, 4 bytes); d0 speed 1, d1 speed 4,
        // bandwidth 1. Ranks: total p = 5 + 4 = 9, q = 1 + 5 = 6. p first (r = 1) -> d0 (its rule).
        // q: r = 6/9 = 2/3. Floor f = traffic_floor * mean slowest run = x * (4 + 1) / 2.
        //   d0: mem 1, imp 1 - 2/3 * 1/4 = 5/6, traffic f, exec 1 -> 5/6 f.
        //   d1: mem 1, imp 1 - 2/3 = 1/3, traffic f + 4/1 = f + 4, exec 1/4 -> (f + 4)/12.
        //   d0 wins iff 10 f < f + 4, i.e. f < 4/9, i.e. x < 8/45 (~0.178).
        let g = graph(
            r#"{"nodes":[{"id":"p","cost":4,"device":"d0"},{"id":"q","cost":1}],
                "edges":[{"src":"p","dst":"q","bytes":4}]}"#,
        );
        let c = Cluster::uniform(&[1.0, 4.0], 1.0, 0.0);
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(run(&p, defaults()).unwrap(), vec![0, 0]);
        assert_eq!(
            run(&p, defaults().with("traffic_floor", 0.17)).unwrap(),
            vec![0, 0]
        );
        assert_eq!(
            run(&p, defaults().with("traffic_floor", 0.18)).unwrap(),
            vec![0, 1]
        );
    }

    #[test]
    fn groups_go_whole_and_count_members_in_edges_once_per_tensor() {
        // a (cost 1, on d1 by rule) sends one 10-byte tensor to both g-members m1, m2.
        let g = graph(
            r#"{"nodes":[{"id":"a","cost":1,"device":"d1"},{"id":"m1","cost":1,"colocate":"g"},
                         {"id":"m2","cost":1,"colocate":"g"}],
                "edges":[{"src":"a","dst":"m1","bytes":10,"tensor":"o"},{"src":"a","dst":"m2","bytes":10,"tensor":"o"}]}"#,
        );
        let c = Cluster::uniform(&[4.0, 1.0], 2.0, 0.0);
        let p = Problem::new(&g, &c).unwrap();
        let units = Groups::new(&p);
        let mut s = UnitScores::new(&p);
        let group = units.of[1];
        s.fill_traffic(
            &p,
            &units.members[group as usize],
            &[1, UNPLACED, UNPLACED],
            0.0,
        );
        assert_eq!(
            s.traffic,
            vec![5.0, 0.0],
            "one tensor of 10 bytes at 2 bytes/s"
        );
        s.fill_exec(&p, &units.members[group as usize]);
        assert_eq!(s.exec, vec![0.25, 1.0], "(1/4 + 1/4) / (1 + 1)");
        let placement = run(&p, defaults()).unwrap();
        assert_eq!(placement[1], placement[2]);
        verify(&p, &placement).unwrap();
    }

    #[test]
    fn ties_go_to_the_faster_then_the_lower_index() {
        // One node, three devices; d1 and d2 both have the top speed 4: imp is 0 on both,
        // so the scores tie at 0 and so do the exec scores: the lower index, d1, wins.
        let g = graph(r#"{"nodes":[{"id":"a","cost":1}]}"#);
        let c = Cluster::uniform(&[1.0, 4.0, 4.0], 1.0, 0.0);
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(run(&p, defaults()).unwrap(), vec![1]);
    }

    #[test]
    fn honours_rules_groups_and_tight_memory() {
        let (g, c) = constrained();
        let p = Problem::new(&g, &c).unwrap();
        let placement = run(&p, defaults()).unwrap();
        verify(&p, &placement).unwrap();
        assert_eq!(placement, run(&p, defaults()).unwrap(), "deterministic");
        // Too little memory in total: an error naming what did not fit.
        let small = cluster(
            r#"{"devices":[{"id":"cpu","kind":"cpu","speed":1,"memory":30},{"id":"g0","speed":8,"memory":30}],"bandwidth":2}"#,
        );
        let p = Problem::new(&g, &small).unwrap();
        let e = run(&p, defaults()).unwrap_err().to_string();
        assert!(
            e.contains("placer mite") && e.contains("memory left"),
            "{e}"
        );
    }
}
