//! Layer-cut warm starts (not in Pesto21, whose ILP needs none; what a person splitting a
//! model by hand does, Expert's "layers in order across the GPUs", but with the cut points
//! searched instead of fixed at equal halves): the graph's ops in a topological order are
//! cut into `k` consecutive segments, one per accelerator, and the cut points are chosen by
//! simulation among those whose placement fits memory.
//!
//! - Accelerators: the devices whose summed run time over the ops they may run is within
//!   twice the fastest device's (on Pesto21's machine the two GPUs, not the CPU), in index
//!   order; a segment goes to its accelerator, an op that may not run there to its fastest
//!   allowed device. Colocation groups move as one (at the position of their first member).
//! - Orders cut along: the earliest start of each op (its downward rank minus its own
//!   work: ops of one layer of a network start together) and the graph's own topological
//!   order; ties by topological position, so both are topological.
//! - Isolated ops (no edges: constants, unused reads) do not take part in a cut; they go,
//!   largest footprint first, to the allowed accelerator with the most free memory.
//! - Cut points are fractions of the summed work. Two accelerators: every cut on a grid of
//!   `GRID` steps whose placement fits memory is simulated, then a finer grid around the
//!   best. More: coordinate descent from equal-work and equal-footprint cuts, one cut
//!   moved by a step at a time, the step halved when nothing improves.
//!
//! Every candidate is decoded by the pair (`Decoder`) with the priority given (the placer
//! passes HEFT's upward rank), so the makespans are the replay's own. Memory is checked on
//! the static footprint before any simulation: a placement that does not fit is never
//! decoded. Deterministic: no random draws.
//!
//! What it is not: a placer (it is the optimiser's; the placer decides to use it) nor a
//! partitioner that balances anything but by simulation.

use crate::analysis::down_rank;
use crate::analysis::topo_position;
use crate::model::cluster::{exceeds, DevIx};
use crate::model::graph::NodeIx;
use crate::model::groups::Groups;
use crate::model::problem::Problem;

use super::{by_priority, capacity, Best, Decoder};

/// Grid steps of a two-accelerator cut.
const GRID: usize = 48;
/// Finer steps around the best grid cut (each side).
const FINE: usize = 8;
/// Most candidates decoded by a descent over several cuts, per order.
const DESCENT_EVALS: u64 = 120;

/// The accelerators: devices whose summed run time (over the ops they may run, the
/// others counted at their fastest allowed time) is within twice the fastest device's.
fn accelerators(problem: &Problem) -> Vec<DevIx> {
    let k = problem.device_count();
    let n = problem.node_count();
    let total: Vec<f64> = (0..k as DevIx)
        .map(|d| {
            (0..n as NodeIx)
                .map(|v| {
                    let t = problem.exec(v, d);
                    if t.is_finite() {
                        t
                    } else {
                        problem.min_exec(v)
                    }
                })
                .sum()
        })
        .collect();
    let fastest = total.iter().copied().fold(f64::INFINITY, f64::min);
    (0..k as DevIx)
        .filter(|&d| total[d as usize] <= 2.0 * fastest)
        .collect()
}

/// The cut-able units in one order with their work and footprint, and the isolated units.
struct Line {
    /// Units (colocation groups) in cut order.
    units: Vec<u32>,
    /// Cumulative work share before each unit (0 at the first), ending with 1.
    before: Vec<f64>,
    /// Cumulative footprint share before each unit, ending with 1.
    mem_before: Vec<f64>,
}

/// The problem's colocation units and where each one goes when it is not on its segment's
/// accelerator.
struct Ctx<'p, 'a> {
    problem: &'p Problem<'a>,
    groups: Groups,
    accel: Vec<DevIx>,
    cap: Vec<f64>,
    /// Fastest allowed device of each unit (summed over its members).
    fallback: Vec<DevIx>,
    /// Isolated units, largest footprint first.
    isolated: Vec<u32>,
}

impl Ctx<'_, '_> {
    /// The placement of cut fractions `cuts` (ascending, `accel.len() - 1` of them) along
    /// `line`, or `None` when it does not fit memory.
    fn place(&self, line: &Line, cuts: &[f64]) -> Option<Vec<DevIx>> {
        let p = self.problem;
        let k = p.device_count();
        let mut place = vec![0 as DevIx; p.node_count()];
        let mut load = vec![0.0; k];
        let mut seg = 0usize;
        let put = |u: u32, d: DevIx, place: &mut Vec<DevIx>, load: &mut Vec<f64>| {
            for &v in &self.groups.members[u as usize] {
                place[v as usize] = d;
            }
            load[d as usize] += self.groups.footprint[u as usize];
        };
        for (i, &u) in line.units.iter().enumerate() {
            // The unit's midpoint decides its segment.
            let mid = 0.5 * (line.before[i] + line.before[i + 1]);
            while seg < cuts.len() && mid >= cuts[seg] {
                seg += 1;
            }
            let d = self.accel[seg];
            let d = if self.groups.allowed(p, u, d) {
                d
            } else {
                self.fallback[u as usize]
            };
            put(u, d, &mut place, &mut load);
        }
        for &u in &self.isolated {
            let d = self
                .accel
                .iter()
                .copied()
                .filter(|&d| self.groups.allowed(p, u, d))
                .max_by(|&a, &b| {
                    (self.cap[a as usize] - load[a as usize])
                        .total_cmp(&(self.cap[b as usize] - load[b as usize]))
                        .then(b.cmp(&a))
                })
                .unwrap_or(self.fallback[u as usize]);
            put(u, d, &mut place, &mut load);
        }
        (0..k)
            .all(|d| !exceeds(load[d], self.cap[d]))
            .then_some(place)
    }
}

/// The best memory-feasible layer cut of the decoder's problem, each decoded with `rank`
/// (the placer's HEFT upward rank) and with the topological order as priorities; `None`
/// with fewer than two accelerators or when no cut fits memory.
pub fn layer_cut(dec: &mut Decoder, rank: &[f64]) -> Option<Best> {
    let problem = dec.problem();
    let g = problem.graph;
    let n = problem.node_count();
    let accel = accelerators(problem);
    if accel.len() < 2 || n == 0 {
        return None;
    }
    let groups = Groups::new(problem);
    let k = problem.device_count();
    let fallback = (0..groups.len())
        .map(|u| {
            (0..k as DevIx)
                .filter(|&d| groups.allowed(problem, u as u32, d))
                .min_by(|&a, &b| {
                    let t = |d| {
                        groups.members[u]
                            .iter()
                            .map(|&v| problem.exec(v, d))
                            .sum::<f64>()
                    };
                    t(a).total_cmp(&t(b)).then(a.cmp(&b))
                })
                .unwrap_or(0)
        })
        .collect();
    let edged = |v: NodeIx| !g.out_edges(v).is_empty() || !g.in_edges(v).is_empty();
    let mut isolated: Vec<u32> = (0..groups.len() as u32)
        .filter(|&u| !groups.members[u as usize].iter().any(|&v| edged(v)))
        .collect();
    isolated.sort_by(|&a, &b| {
        groups.footprint[b as usize]
            .total_cmp(&groups.footprint[a as usize])
            .then(a.cmp(&b))
    });
    let ctx = Ctx {
        problem,
        groups,
        accel,
        cap: capacity(problem),
        fallback,
        isolated,
    };
    let pos = topo_position(problem);
    let down = down_rank(problem);
    let start: Vec<f64> = (0..n).map(|v| down[v] - problem.work[v]).collect();
    let by_start = |v: NodeIx| (start[v as usize], pos[v as usize] as f64);
    let by_topo = |v: NodeIx| (pos[v as usize] as f64, 0.0);
    // The graph's layers, an unlabelled op taking its latest predecessor's (or 0).
    let mut layer = vec![0i64; n];
    for &v in g.topo_order() {
        layer[v as usize] = g.nodes[v as usize].layer.unwrap_or_else(|| {
            g.predecessors(v)
                .map(|p| layer[p as usize])
                .max()
                .unwrap_or(0)
        });
    }
    let by_layer = |v: NodeIx| (layer[v as usize] as f64, pos[v as usize] as f64);
    let mut keys: Vec<&dyn Fn(NodeIx) -> (f64, f64)> = vec![&by_start, &by_topo];
    if g.nodes.iter().any(|x| x.layer.is_some()) {
        keys.push(&by_layer);
    }
    let priorities = [
        rank.to_vec(),
        (0..n).map(|v| -(pos[v] as f64)).collect::<Vec<f64>>(),
    ];
    let mut best: Option<Best> = None;
    for key in keys {
        let line = line_of(&ctx, key);
        if line.units.is_empty() {
            continue;
        }
        let found = if ctx.accel.len() == 2 {
            two_way(&ctx, &line, dec, &priorities)
        } else {
            descent(&ctx, &line, dec, &priorities)
        };
        if let Some(b) = found {
            if best.as_ref().is_none_or(|x| b.makespan < x.makespan) {
                best = Some(b);
            }
        }
    }
    best
}

/// The units with an edge, sorted by `key` of their first member in that order.
fn line_of(ctx: &Ctx, key: &dyn Fn(NodeIx) -> (f64, f64)) -> Line {
    let p = ctx.problem;
    let isolated: std::collections::BTreeSet<u32> = ctx.isolated.iter().copied().collect();
    let mut units: Vec<(f64, f64, u32)> = (0..ctx.groups.len() as u32)
        .filter(|u| !isolated.contains(u))
        .map(|u| {
            let (a, b) = ctx.groups.members[u as usize].iter().map(|&v| key(v)).fold(
                (f64::INFINITY, f64::INFINITY),
                |x, y| {
                    if y.0 < x.0 || (y.0 == x.0 && y.1 < x.1) {
                        y
                    } else {
                        x
                    }
                },
            );
            (a, b, u)
        })
        .collect();
    units.sort_by(|x, y| {
        x.0.total_cmp(&y.0)
            .then(x.1.total_cmp(&y.1))
            .then(x.2.cmp(&y.2))
    });
    let units: Vec<u32> = units.into_iter().map(|x| x.2).collect();
    let work = |u: u32| -> f64 {
        ctx.groups.members[u as usize]
            .iter()
            .map(|&v| p.min_exec(v))
            .filter(|t| t.is_finite())
            .sum()
    };
    let shares = |f: &dyn Fn(u32) -> f64| -> Vec<f64> {
        let total: f64 = units.iter().map(|&u| f(u)).sum();
        let mut acc = 0.0;
        let mut out = vec![0.0];
        for &u in &units {
            acc += f(u);
            out.push(if total > 0.0 { acc / total } else { 0.0 });
        }
        out
    };
    let before = shares(&work);
    let mem_before = shares(&|u| ctx.groups.footprint[u as usize]);
    Line {
        units,
        before,
        mem_before,
    }
}

/// Decodes the cut `cuts` when it fits memory and keeps it when it beats `best`.
fn try_cut(
    ctx: &Ctx,
    line: &Line,
    cuts: &[f64],
    dec: &mut Decoder,
    priorities: &[Vec<f64>],
    best: &mut Option<(Vec<f64>, Best)>,
) -> bool {
    let Some(place) = ctx.place(line, cuts) else {
        return false;
    };
    let mut better = false;
    for priority in priorities {
        let order = by_priority(priority.clone());
        let m = dec.decode(&place, &order);
        if best.as_ref().is_none_or(|(_, b)| m < b.makespan) {
            *best = Some((
                cuts.to_vec(),
                Best {
                    placement: place.clone(),
                    order,
                    makespan: m,
                },
            ));
            better = true;
        }
    }
    better
}

/// Two accelerators: every grid cut that fits, then finer around the best.
fn two_way(ctx: &Ctx, line: &Line, dec: &mut Decoder, priorities: &[Vec<f64>]) -> Option<Best> {
    let mut best = None;
    for i in 1..GRID {
        try_cut(
            ctx,
            line,
            &[i as f64 / GRID as f64],
            dec,
            priorities,
            &mut best,
        );
    }
    let centre = best.as_ref().map(|(c, _): &(Vec<f64>, Best)| c[0])?;
    let step = 1.0 / (GRID * FINE) as f64;
    for j in 1..FINE {
        for s in [-1.0, 1.0] {
            let c = centre + s * j as f64 * step;
            if c > 0.0 && c < 1.0 {
                try_cut(ctx, line, &[c], dec, priorities, &mut best);
            }
        }
    }
    best.map(|(_, b)| b)
}

/// Several accelerators: coordinate descent over the cuts from equal-work and
/// equal-footprint starts.
fn descent(ctx: &Ctx, line: &Line, dec: &mut Decoder, priorities: &[Vec<f64>]) -> Option<Best> {
    let m = ctx.accel.len();
    let mut best = None;
    let start_evals = dec.evals;
    let equal: Vec<f64> = (1..m).map(|i| i as f64 / m as f64).collect();
    try_cut(ctx, line, &equal, dec, priorities, &mut best);
    // Equal footprint: the work share where the footprint share reaches i / m.
    let by_mem: Vec<f64> = (1..m)
        .map(|i| {
            let want = i as f64 / m as f64;
            let j = line.mem_before.partition_point(|&x| x < want);
            line.before[j.min(line.before.len() - 1)]
        })
        .collect();
    try_cut(ctx, line, &by_mem, dec, priorities, &mut best);
    let mut step = 1.0 / (2 * m) as f64;
    while step > 1.0 / (GRID * FINE) as f64 && dec.evals - start_evals < DESCENT_EVALS {
        let mut improved = false;
        for i in 0..m - 1 {
            for s in [-1.0, 1.0] {
                let Some((cuts, _)) = &best else { break };
                let mut c = cuts.clone();
                c[i] += s * step;
                let lo = if i == 0 { 0.0 } else { c[i - 1] };
                let hi = if i + 1 < c.len() { c[i + 1] } else { 1.0 };
                if c[i] <= lo || c[i] >= hi {
                    continue;
                }
                improved |= try_cut(ctx, line, &c, dec, priorities, &mut best);
            }
        }
        if !improved {
            step *= 0.5;
        }
    }
    best.map(|(_, b)| b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::heft_rank_u;
    use crate::model::problem::Problem;
    use crate::model::LinkModel;
    use crate::pair::Pair;
    use crate::testutil::{cluster, graph};

    /// Four layers of two parallel branches and a join (`a_l` cost 3, `b_l` cost 2, `j_l`
    /// cost 1, 2 bytes per edge), memory front-loaded (layer 0's ops 4 each, layer 1's 2,
    /// later ones 1); a CPU ten times slower and two GPUs of 12 bytes.
    fn layered() -> (crate::model::graph::Graph, crate::model::cluster::Cluster) {
        let mut nodes = Vec::new();
        let mut edges = Vec::new();
        for l in 0..4 {
            let mem = [4, 2, 1, 1][l];
            for (op, cost) in [("a", 3), ("b", 2), ("j", 1)] {
                nodes.push(format!(
                    r#"{{"id":"{op}{l}","cost":{cost},"mem":{mem},"layer":{l}}}"#
                ));
            }
            edges.push(format!(r#"{{"src":"a{l}","dst":"j{l}","bytes":2}}"#));
            edges.push(format!(r#"{{"src":"b{l}","dst":"j{l}","bytes":2}}"#));
            if l > 0 {
                let p = l - 1;
                edges.push(format!(r#"{{"src":"j{p}","dst":"a{l}","bytes":2}}"#));
                edges.push(format!(r#"{{"src":"j{p}","dst":"b{l}","bytes":2}}"#));
            }
        }
        let g = graph(&format!(
            r#"{{"nodes":[{}],"edges":[{}]}}"#,
            nodes.join(","),
            edges.join(",")
        ));
        let c = cluster(
            r#"{"devices":[{"id":"cpu","kind":"cpu","speed":0.1},{"id":"g0","kind":"gpu","speed":1,"memory":12},{"id":"g1","kind":"gpu","speed":1,"memory":12}],"bandwidth":1}"#,
        );
        (g, c)
    }

    /// The best cut is at least as good as every memory-feasible prefix cut of the
    /// topological order (brute force, both priorities), fits memory, uses only the GPUs,
    /// and is found although the equal half split (layers 0-1 on one GPU: 18 bytes) does
    /// not fit.
    #[test]
    fn finds_the_best_memory_feasible_cut() {
        let (g, c) = layered();
        let mut p = Problem::new(&g, &c).unwrap();
        p.footprint = p.mem.clone();
        let pair = Pair::default().with_links(LinkModel::Fcfs);
        let mut dec = Decoder::new(&p, pair, 1);
        let rank = heft_rank_u(&p);
        assert_eq!(accelerators(&p), vec![1, 2]);
        let best = layer_cut(&mut dec, &rank).expect("a cut fits");
        let mut load = [0.0; 3];
        for v in 0..p.node_count() {
            load[best.placement[v] as usize] += p.footprint[v];
        }
        assert_eq!(load[0], 0.0, "{:?}", best.placement);
        assert!(load[1] <= 12.0 && load[2] <= 12.0, "{load:?}");
        assert_eq!(dec.decode(&best.placement, &best.order), best.makespan);
        // Brute force over the prefix cuts of the topological order.
        let pos = topo_position(&p);
        let topo: Vec<f64> = pos.iter().map(|&x| -(x as f64)).collect();
        let order = g.topo_order().to_vec();
        let mut brute = f64::INFINITY;
        let mut half_fits = true;
        for cut in 1..order.len() {
            let mut place = vec![2 as DevIx; order.len()];
            for &v in &order[..cut] {
                place[v as usize] = 1;
            }
            let on0: f64 = order[..cut].iter().map(|&v| p.footprint[v as usize]).sum();
            let fits = on0 <= 12.0 && p.footprint.iter().sum::<f64>() - on0 <= 12.0;
            if cut == order.len() / 2 {
                half_fits = fits;
            }
            if fits {
                for prio in [&rank, &topo] {
                    brute = brute.min(dec.decode(&place, &by_priority(prio.clone())));
                }
            }
        }
        assert!(!half_fits);
        assert!(brute.is_finite());
        assert!(best.makespan <= brute, "{} > {brute}", best.makespan);
    }

    /// One accelerator (or none): no cut.
    #[test]
    fn no_cut_without_two_accelerators() {
        let (g, _) = layered();
        let c = cluster(
            r#"{"devices":[{"id":"cpu","kind":"cpu","speed":0.1},{"id":"g0","kind":"gpu","speed":1}],"bandwidth":1}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        let mut dec = Decoder::new(&p, Pair::default(), 1);
        assert!(layer_cut(&mut dec, &heft_rank_u(&p)).is_none());
        assert_eq!(dec.evals, 0);
    }
}
