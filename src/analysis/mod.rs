//! Pure functions over a problem: ranks, critical paths, lower bounds.
//!
//! Nothing here depends on a placement strategy; placers and schedulers call these, and the
//! report uses the bounds to say how far a makespan is from the best possible.

use std::sync::Arc;

use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;

/// Upward rank (Mayer17 eq. 5): the summed work `c` along the longest path from `v` to a
/// sink, `v` included. The paper writes `max_succ(upRank(succ) + c_i)`; `c_i` does not depend
/// on the successor, so this is `c_i + max_succ upRank(succ)`, and a sink's rank is `c_i`.
pub fn up_rank(problem: &Problem) -> Vec<f64> {
    path_work(problem, true)
}

/// Downward rank (Mayer17 eq. 6): summed work along the longest path from a source to `v`,
/// `v` included (a source's rank is its own work).
pub fn down_rank(problem: &Problem) -> Vec<f64> {
    path_work(problem, false)
}

/// Longest-path work ending at (`upward == false`) or starting from (`upward`) each node.
fn path_work(problem: &Problem, upward: bool) -> Vec<f64> {
    let g = problem.graph;
    let mut rank = vec![0.0; g.node_count()];
    let order = g.topo_order();
    for i in 0..order.len() {
        let v = if upward {
            order[order.len() - 1 - i]
        } else {
            order[i]
        };
        let best = if upward {
            g.successors(v)
                .map(|s| rank[s as usize])
                .fold(0.0, f64::max)
        } else {
            g.predecessors(v)
                .map(|p| rank[p as usize])
                .fold(0.0, f64::max)
        };
        rank[v as usize] = problem.work[v as usize] + best;
    }
    rank
}

/// Total rank (Mayer17 §3.2.1): upward + downward rank. A node's own work is counted in
/// both, so every node on a longest path has the same total rank, `critical work + c_v`.
pub fn total_rank(problem: &Problem) -> Vec<f64> {
    up_rank(problem)
        .into_iter()
        .zip(down_rank(problem))
        .map(|(u, d)| u + d)
        .collect()
}

/// HEFT's upward rank (Topcuoglu, Hariri, Wu 2002, §3 and §4.1):
/// `rank_u(v) = w̄(v) + max over out-edges e = (v, w) of (c̄(e) + rank_u(w))`, a sink's rank
/// being `w̄(v)`.
/// - `w̄(v)` is the mean of `exec(v, d)` over the devices `v` may use (HEFT averages over
///   all processors; devices a rule forbids have no cost to average).
/// - `c̄(e) = L̄ + bytes(e) / B̄` is the paper's average communication cost: `L̄` the mean
///   latency and `B̄` the mean bandwidth over all ordered pairs of distinct devices,
///   computed once in `O(k²)`. Zero with one device (no pair exists).
/// - Parallel edges to one successor are taken one by one (the max keeps the costliest).
///
/// Cost `O(V·k + E + k²)`. Shared by the `heft` placer and the `heft` scheduler.
pub fn heft_rank_u(problem: &Problem) -> Vec<f64> {
    let g = problem.graph;
    let comm = MeanLink::of(problem);
    let mut rank = vec![0.0; g.node_count()];
    for &v in g.topo_order().iter().rev() {
        let best = g
            .out_edges(v)
            .iter()
            .map(|&e| comm.time(problem.edge_bytes(e)) + rank[g.edges[e as usize].dst as usize])
            .fold(0.0, f64::max);
        rank[v as usize] = mean_exec(problem, v) + best;
    }
    rank
}

/// [`heft_rank_u`] computed once per problem and shared (placement-independent: every
/// placement's `heft` scheduler reads the same ranks).
pub fn shared_rank_u(problem: &Problem) -> Arc<[f64]> {
    problem
        .memo
        .rank_u
        .get_or_init(|| heft_rank_u(problem).into())
        .clone()
}

/// [`topo_position`] computed once per problem and shared.
pub fn shared_topo_position(problem: &Problem) -> Arc<[u32]> {
    problem
        .memo
        .position
        .get_or_init(|| topo_position(problem).into())
        .clone()
}

/// HEFT's `w̄(v)`: the mean of `exec(v, d)` over the devices `v` may use (0 if none).
pub fn mean_exec(problem: &Problem, v: NodeIx) -> f64 {
    let (sum, count) = problem
        .exec_row(v)
        .iter()
        .filter(|t| t.is_finite())
        .fold((0.0, 0usize), |(s, n), &t| (s + t, n + 1));
    if count == 0 {
        0.0
    } else {
        sum / count as f64
    }
}

/// HEFT's average link: the mean latency and mean bandwidth over all ordered pairs of
/// distinct devices (or of the devices given, [`MeanLink::among`]), for
/// `c̄ = L̄ + bytes / B̄` (see [`heft_rank_u`]).
#[derive(Debug, Clone, Copy)]
pub struct MeanLink {
    lat: f64,
    bw: f64,
    pairs: usize,
}

impl MeanLink {
    /// Sums the cluster's links once, `O(k²)`.
    pub fn of(problem: &Problem) -> MeanLink {
        let all: Vec<DevIx> = (0..problem.device_count() as DevIx).collect();
        MeanLink::among(problem, &all)
    }

    /// The mean over the ordered pairs of distinct devices of `devices`.
    pub fn among(problem: &Problem, devices: &[DevIx]) -> MeanLink {
        let c = problem.cluster;
        let (mut lat, mut bw, mut pairs) = (0.0, 0.0, 0usize);
        for &i in devices {
            for &j in devices {
                if i != j {
                    lat += c.latency(i, j);
                    bw += c.bandwidth(i, j);
                    pairs += 1;
                }
            }
        }
        MeanLink { lat, bw, pairs }
    }

    /// `c̄` of `bytes`: zero with one device (no pair exists).
    pub fn time(&self, bytes: f64) -> f64 {
        if self.pairs == 0 {
            0.0
        } else {
            self.lat / self.pairs as f64 + bytes / (self.bw / self.pairs as f64)
        }
    }
}

/// Position of each node in [`Graph::topo_order`](crate::model::graph::Graph::topo_order):
/// the tie break that keeps any "highest rank first" order topological when ranks tie.
pub fn topo_position(problem: &Problem) -> Vec<u32> {
    let g = problem.graph;
    let mut pos = vec![0u32; g.node_count()];
    for (i, &v) in g.topo_order().iter().enumerate() {
        pos[v as usize] = i as u32;
    }
    pos
}

/// Longest path when every op runs at its fastest allowed device and communication is
/// free: no schedule can finish sooner.
pub fn critical_path_bound(problem: &Problem) -> f64 {
    let g = problem.graph;
    let mut finish = vec![0.0f64; g.node_count()];
    let mut best = 0.0f64;
    for &v in g.topo_order() {
        let start = g
            .predecessors(v)
            .map(|p| finish[p as usize])
            .fold(0.0, f64::max);
        let f = start + problem.min_exec(v);
        finish[v as usize] = f;
        best = best.max(f);
    }
    best
}

/// Total work over total speed, generalised to per-kind run times: device `d` busy for at
/// most `T` does ops whose `exec(v, d) * speed(d)` sum to at most `T * speed(d)`, so
/// `T >= sum_v min_d(exec(v, d) * speed(d)) / sum_d speed(d)`. With `exec = cost / speed`
/// this is exactly `sum cost / sum speed`.
pub fn work_bound(problem: &Problem) -> f64 {
    let devices = &problem.cluster.devices;
    let total_speed: f64 = devices.iter().map(|d| d.speed).sum();
    let work: f64 = (0..problem.node_count() as NodeIx)
        .map(|v| {
            problem
                .exec_row(v)
                .iter()
                .zip(devices)
                .map(|(t, d)| t * d.speed)
                .fold(f64::INFINITY, f64::min)
        })
        .sum();
    work / total_speed
}

/// The larger of the two bounds.
pub fn lower_bound(problem: &Problem) -> f64 {
    critical_path_bound(problem).max(work_bound(problem))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cluster::Cluster;
    use crate::testutil::graph;

    #[test]
    fn ranks_and_bounds_on_a_diamond() {
        // a(1) -> b(2), a -> c(5), b -> d(1), c -> d
        let g = graph(
            r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":2},{"id":"c","cost":5},{"id":"d","cost":1}],
                "edges":[{"src":"a","dst":"b"},{"src":"a","dst":"c"},{"src":"b","dst":"d"},{"src":"c","dst":"d"}]}"#,
        );
        let c = Cluster::uniform(&[1.0, 2.0], 1.0, 0.0);
        let p = Problem::new(&g, &c).unwrap();
        assert_eq!(up_rank(&p), vec![7.0, 3.0, 6.0, 1.0]);
        assert_eq!(down_rank(&p), vec![1.0, 3.0, 6.0, 7.0]);
        assert_eq!(total_rank(&p), vec![8.0, 6.0, 12.0, 8.0]);
        // fastest device has speed 2: path a, c, d = 7 / 2
        assert_eq!(critical_path_bound(&p), 3.5);
        assert_eq!(work_bound(&p), 9.0 / 3.0);
        assert_eq!(lower_bound(&p), 3.5);
    }
}
