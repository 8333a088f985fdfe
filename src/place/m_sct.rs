//! `m-sct`: Baechi's memory-constrained Shortest Communication Time placer (m-SCT; Jeon et
//! al., SoCC'20, after Hanen and Munier's SCT), the Baechi heuristic Pesto21 §5.2 compares
//! against ("mSCT modifies the classical SCT \[23\] job scheduling algorithm to take into
//! account large communication times, finite number of GPUs, as well as limited memory").
//!
//! m-SCT is m-ETF (the shared earliest-start loop, `etf::schedule`) plus favourite children:
//! 1. A relaxed LP (docs/pesto.md, reading 3.2; Baechi's `FavoriteChildLPSolver`) over
//!    `x_ij ∈ [0, 1]` per edge (0: `j` is `i`'s favourite child, so the transfer is free),
//!    start times `s_v >= 0` and the makespan `w`: minimise `w` subject to
//!    - `s_i + p_i + c_ij x_ij <= s_j` for every edge,
//!    - `Σ_{j ∈ succ(i)} x_ij >= |succ(i)| - 1` (at most one favourite child),
//!    - `Σ_{i ∈ prec(j)} x_ij >= |prec(j)| - 1` (at most one favourite parent),
//!    - `s_i + p_i <= w`.
//! 2. Rounding with Baechi's threshold 0.5: `j` is a favourite when `x_ij <= 0.5` (Baechi's
//!    `round(x - 0.5 + 0.5)` is Python's round half to even, so 0.5 rounds to 0). Edges are
//!    taken in order (by source, then the source's out-edges in file order); a later
//!    favourite of `i` replaces an earlier one, and a child that already had a favourite
//!    parent `p` takes the new parent while `p` loses its favourite (Baechi's
//!    `_assign_favorite_child`, kept as it is, so one child has at most one parent).
//! 3. The list schedule: a device whose last op's favourite child is ready, unplaced, and
//!    starts on this device no later than anywhere else waits for it; other ops start there
//!    no sooner than their urgent time (the latest of their starts over the devices they may
//!    use). See `etf/`.
//!
//! Choices (the paper and Baechi assume identical devices; placesim's may differ):
//! - Baechi's devices are the GPUs (every device when there is none; see `etf/`), and the
//!   LP's estimates are theirs: `p_i` is the mean of `exec(i, d)` over the GPUs `i` may use
//!   (over every device it may use when it may use no GPU), and `c_ij` is HEFT's average link
//!   time among the GPUs of the bytes `i` sends `j` (`analysis::MeanLink::among`; the bytes
//!   of the distinct tensors on the edges from `i` to `j`, which are one LP edge); 0 with one
//!   GPU. On Pesto21's machine these are V100 times and NVLink transfers, as Baechi profiles
//!   them; the CPU's 40-times-longer times would make every transfer look cheap.
//! - On devices of different speeds, SCT's waiting rule compares each op's fastest devices
//!   only (`etf/`); on identical devices it is Baechi's.
//! - The LP is solved by Clarabel's interior point method (the `clarabel` crate, pure Rust,
//!   its default settings and no time limit, so the same iterations natively and in wasm),
//!   on Baechi's rows ([`solve_lp`]). Its optimum is far from unique: an edge off every
//!   critical path may take any `x` in a range. Baechi's interior point (cvxopt's; MOSEK in
//!   its paper runs) answers inside that optimal face, not at a vertex, and so does
//!   Clarabel's; a simplex (placesim's `microlp` before) answered at a vertex, which put
//!   such edges at 0 or 1 and agreed with Baechi's favourites far less. Where two edges
//!   tie exactly (a child with two identical parents: `x_a + x_b >= 1`), an interior point
//!   stops with both slightly above 0.5 (cvxopt: `0.5 + 3.7e-7` on RNNLM), so neither is a
//!   favourite, in both solvers. Measured on the three shipped Pesto21 instances against
//!   Baechi's LP solved by cvxopt (docs/pesto.md, m-SCT against Baechi's own code): the
//!   favourite sets differ by one edge on RNNLM (placesim has 1347 of Baechi's 1348; the
//!   one left out has `x` 0.500003, cvxopt 0.499997), three on the Transformer (all 1658
//!   of Baechi's and three more, at 0.49994 where cvxopt has 0.50002) and none on NASNet
//!   (2288).
//! - Fallback: above `m-sct.lp_edges` LP edges (a size cap bounds the solve and keeps the
//!   result deterministic where a time limit would not), or if the solver returns
//!   an error, each op's favourite child is the successor over its largest edge (by `c_ij`,
//!   ties to the lower edge; docs/pesto.md, reading 3.2), then the same assignment as step 2.
//! - Transfers and memory as m-ETF's (`etf/`): Baechi's one channel per device
//!   (`m-sct.channel`, on by default) and its memory over time (`m-sct.static_memory`, off
//!   by default). The final makespan comes from placesim's simulator (Pesto21 ran Baechi's
//!   placements in TensorFlow).
//! - Cost: the steps where no device waits are m-ETF's (its index, `etf/`); a step where
//!   some device waits asks the same index, then visits the waiting devices whose best pair
//!   is delayed, each in the order of its candidates' own starts and only while one beats
//!   the step's best so far, computing urgent times only for those on one of their SCT
//!   devices (`etf/mod.rs` says what this bounds and what it does not). Where every device
//!   of an SCT class waits, the class's least urgent time is kept as the channels move
//!   (`etf/urgents.rs`). On NASNet copies it takes about what m-ETF takes, over 8
//!   generated devices and over 8 identical ones (40 copies, 196k ops, identical devices:
//!   1.5 s of CPU against m-ETF's 1.2 s; `docs/bench.md`, issue 24j), and on copies of a
//!   training graph, whose colocation groups are placed early, over identical devices
//!   (transformer2 x32, 198k ops: 1.5 s against m-ETF's 1.3 s; session 15).

use super::{etf, gpus, Placer, PlacerInfo};
use crate::analysis::{mean_exec, MeanLink};
use crate::error::Result;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::params::{ParamKind, ParamSpec, Params};
use crate::plan::Placement;
use crate::rng::Rng;

const LP_EDGES: ParamSpec = ParamSpec {
    name: "lp_edges",
    default: 20000.0,
    kind: ParamKind::Integer,
    min: 0.0,
    min_open: false,
    max: f64::INFINITY,
    doc: "solve the favourite-child LP when the graph has at most this many (source, destination) edges; above it each op's favourite is the successor over its largest edge",
};

pub const INFO: PlacerInfo = PlacerInfo {
    name: "m-sct",
    summary: "m-ETF whose devices wait for favourite children chosen by an LP relaxation of SCT, memory-aware (Baechi m-SCT; Pesto21 §5.2)",
    params: &[LP_EDGES, etf::CHANNEL, etf::STATIC_MEMORY],
    plans: false,
    make: || Box::new(MSct),
};

pub struct MSct;

/// One LP edge: every graph edge from `src` to `dst` together.
#[derive(Debug, Clone, PartialEq)]
struct LpEdge {
    src: NodeIx,
    dst: NodeIx,
    /// The average transfer time of the distinct tensors `src` sends `dst`.
    comm: f64,
}

/// The LP edges in order: by source, then the source's out-edges in file order.
fn lp_edges(problem: &Problem) -> Vec<LpEdge> {
    let g = problem.graph;
    let link = MeanLink::among(problem, &gpus(problem));
    let mut edges = Vec::new();
    // Where a destination sits in `dsts` while its source's out-edges are read (`NONE`: not
    // there yet), so a source with many children is read in linear time.
    const NONE: u32 = u32::MAX;
    let mut slot = vec![NONE; g.node_count()];
    for v in 0..g.node_count() as NodeIx {
        let mut dsts: Vec<(NodeIx, Vec<u32>)> = Vec::new();
        for &e in g.out_edges(v) {
            let edge = &g.edges[e as usize];
            let at = &mut slot[edge.dst as usize];
            if *at == NONE {
                *at = dsts.len() as u32;
                dsts.push((edge.dst, vec![edge.tensor]));
            } else {
                dsts[*at as usize].1.push(edge.tensor);
            }
        }
        for &(dst, _) in &dsts {
            slot[dst as usize] = NONE;
        }
        for (dst, mut tensors) in dsts {
            tensors.sort_unstable();
            tensors.dedup();
            let bytes = tensors
                .iter()
                .map(|&t| problem.tensor_bytes[t as usize])
                .sum();
            edges.push(LpEdge {
                src: v,
                dst,
                comm: link.time(bytes),
            });
        }
    }
    edges
}

/// The LP's op times `p_i`: the mean of `exec(i, d)` over the GPUs `i` may use (over every
/// device it may use when it may use no GPU).
fn op_times(problem: &Problem) -> Vec<f64> {
    let gpus = gpus(problem);
    (0..problem.node_count() as NodeIx)
        .map(|v| {
            let (sum, count) = gpus
                .iter()
                .map(|&d| problem.exec(v, d))
                .filter(|t| t.is_finite())
                .fold((0.0, 0usize), |(s, c), t| (s + t, c + 1));
            if count == 0 {
                mean_exec(problem, v)
            } else {
                sum / count as f64
            }
        })
        .collect()
}

/// The relaxed SCT LP's `x` per edge (step 1), or the solver's error.
///
/// The rows are Baechi's, in its order, each `a·z <= b` over `z = (x, s, w)`: `x_e <= 1`
/// and `-x_e <= 0` per edge, `-s_v <= 0` per op, the precedence row per edge, one
/// "at most one favourite" row per op with out-edges and one per op with in-edges (also for
/// one edge, where the row repeats `-x_e <= 0`), and `s_v - w <= -p_v` per op. An
/// interior point's answer depends on the rows, redundant ones included (each adds a
/// barrier term), so none is dropped or merged.
fn solve_lp(problem: &Problem, edges: &[LpEdge]) -> std::result::Result<Vec<f64>, String> {
    use clarabel::algebra::CscMatrix;
    use clarabel::solver::{
        DefaultSettingsBuilder, DefaultSolver, IPSolver, NonnegativeConeT, SolverStatus,
    };
    let n = problem.node_count();
    let m = edges.len();
    let p = op_times(problem);
    let (s, w) = (m, m + n);
    let mut rows = Rows::default();
    for i in 0..m {
        rows.push(&[(i, 1.0)], 1.0);
        rows.push(&[(i, -1.0)], 0.0);
    }
    for v in 0..n {
        rows.push(&[(s + v, -1.0)], 0.0);
    }
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut inc: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, e) in edges.iter().enumerate() {
        // s_src - s_dst + c x <= -p_src
        let (a, b) = (e.src as usize, e.dst as usize);
        rows.push(&[(s + a, 1.0), (s + b, -1.0), (i, e.comm)], -p[a]);
        out[a].push(i);
        inc[b].push(i);
    }
    for group in out.iter().chain(inc.iter()).filter(|g| !g.is_empty()) {
        // -Σ x <= 1 - |group|
        let terms: Vec<_> = group.iter().map(|&i| (i, -1.0)).collect();
        rows.push(&terms, 1.0 - group.len() as f64);
    }
    for (v, &pv) in p.iter().enumerate() {
        rows.push(&[(s + v, 1.0), (w, -1.0)], -pv);
    }
    let cols = m + n + 1;
    let count = rows.rhs.len();
    let a = CscMatrix::new_from_triplets(count, cols, rows.row, rows.col, rows.val);
    let quadratic = CscMatrix::<f64>::zeros((cols, cols));
    let mut objective = vec![0.0; cols];
    objective[w] = 1.0;
    // Clarabel's defaults, no time limit (so the same iterations natively and in wasm).
    let settings = DefaultSettingsBuilder::default()
        .verbose(false)
        .build()
        .map_err(|e| e.to_string())?;
    let mut solver = DefaultSolver::new(
        &quadratic,
        &objective,
        &a,
        &rows.rhs,
        &[NonnegativeConeT(count)],
        settings,
    )
    .map_err(|e| e.to_string())?;
    solver.solve();
    match solver.solution.status {
        SolverStatus::Solved | SolverStatus::AlmostSolved => Ok(solver.solution.x[..m].to_vec()),
        status => Err(format!("the LP stopped: {status:?}")),
    }
}

/// An LP's rows `a·z <= b` as triplets.
#[derive(Default)]
struct Rows {
    row: Vec<usize>,
    col: Vec<usize>,
    val: Vec<f64>,
    rhs: Vec<f64>,
}

impl Rows {
    fn push(&mut self, terms: &[(usize, f64)], rhs: f64) {
        let r = self.rhs.len();
        for &(c, v) in terms {
            self.row.push(r);
            self.col.push(c);
            self.val.push(v);
        }
        self.rhs.push(rhs);
    }
}

/// Favourite child per op from the edges chosen as favourite, in order (step 2).
fn assign(n: usize, edges: &[LpEdge], chosen: impl Fn(usize) -> bool) -> Vec<Option<NodeIx>> {
    let mut favourite: Vec<Option<NodeIx>> = vec![None; n];
    let mut parent: Vec<Option<NodeIx>> = vec![None; n];
    for (_, e) in edges.iter().enumerate().filter(|&(i, _)| chosen(i)) {
        favourite[e.src as usize] = Some(e.dst);
        if let Some(p) = parent[e.dst as usize] {
            favourite[p as usize] = None;
        }
        parent[e.dst as usize] = Some(e.src);
    }
    favourite
}

/// The fallback's choice: each source's largest edge (ties to the first).
fn largest_edges(edges: &[LpEdge]) -> Vec<bool> {
    let mut chosen = vec![false; edges.len()];
    let mut i = 0;
    while i < edges.len() {
        let mut j = i;
        let mut best = i;
        while j < edges.len() && edges[j].src == edges[i].src {
            if edges[j].comm > edges[best].comm {
                best = j;
            }
            j += 1;
        }
        chosen[best] = true;
        i = j;
    }
    chosen
}

/// Each op's favourite child (steps 1 and 2, or the fallback).
fn favourites(problem: &Problem, max_edges: usize) -> Vec<Option<NodeIx>> {
    let edges = lp_edges(problem);
    let n = problem.node_count();
    let lp = if edges.len() <= max_edges {
        solve_lp(problem, &edges).ok()
    } else {
        None
    };
    match lp {
        Some(x) => assign(n, &edges, |i| x[i] <= 0.5),
        None => {
            let chosen = largest_edges(&edges);
            assign(n, &edges, |i| chosen[i])
        }
    }
}

impl Placer for MSct {
    fn place(&self, problem: &Problem, params: &Params, _: &mut Rng) -> Result<Placement> {
        let favourite = favourites(problem, params.get(LP_EDGES.name) as usize);
        etf::schedule(
            INFO.name,
            problem,
            &favourite,
            etf::Options::from_params(params),
        )
    }
}

#[cfg(test)]
mod tests;
