//! The branch and bound of the exact mode (Pesto21 §3.2.2's problem, in the simulator's
//! own arithmetic): it runs only after a constraint model whose durations had to be
//! rounded (real-valued run times, which the integer model can only bound), on the
//! uncoarsened instance.
//!
//! - Outer level ([`Exact`]): places each colocation unit, in topological order, on an
//!   allowed device with memory left (identical devices in index order), pruned by the
//!   longest path with the communication already forced, a one-machine bound per device and
//!   the work bound.
//! - Inner level: sequences one full placement's activities ([`Network`]: ops and sends)
//!   by a serial schedule-generation scheme without insertion in non-decreasing start order,
//!   which generates every semi-active schedule (every schedule the simulator can make),
//!   pruned by heads plus tails and each device's and link's remaining load.
//! - A node limit (deterministic) stops it; improvements smaller than a relative 1e-9 are
//!   not pursued. A schedule found ([`Solution`]) replays by priority and strictly.
//!
//! What it is not: the anytime search, or the constraint model (`cp`), which proves integral
//! instances far faster.

use crate::analysis::topo_position;
use crate::error::Result;
use crate::model::cluster::{exceeds, DevIx};
use crate::model::graph::NodeIx;
use crate::model::groups::{Groups, UNPLACED};
use crate::model::problem::Problem;
use crate::model::LinkModel;
use crate::plan::{Order, Placement};
use crate::sim::transfers_of;

use super::{by_priority, device_classes, Progress, TOL};

const NONE: u32 = u32::MAX;

/// A schedule the branch and bound found.
pub struct Solution {
    pub placement: Placement,
    /// Start of every activity (ops, then the placement's transfers).
    pub start: Vec<f64>,
}

impl Solution {
    /// The schedule as plans to decode: by priority (start order), then strictly (device and
    /// link sequences by start).
    pub fn orders(&self, problem: &Problem, bb: &Exact) -> Vec<Order> {
        let n = problem.node_count();
        let pos = &bb.pos;
        let mut ops: Vec<NodeIx> = (0..n as NodeIx).collect();
        ops.sort_by(|&a, &b| {
            self.start[a as usize]
                .total_cmp(&self.start[b as usize])
                .then(pos[a as usize].cmp(&pos[b as usize]))
        });
        let mut priority = vec![0.0; n];
        let mut sequences = vec![Vec::new(); problem.device_count()];
        for (i, &v) in ops.iter().enumerate() {
            priority[v as usize] = -(i as f64);
            sequences[self.placement[v as usize] as usize].push(v);
        }
        let xs = transfers_of(problem, &self.placement);
        let mut idx: Vec<usize> = (0..xs.len()).collect();
        idx.sort_by(|&a, &b| {
            self.start[n + a]
                .total_cmp(&self.start[n + b])
                .then(a.cmp(&b))
        });
        let transfers = idx.iter().map(|&x| (xs[x].tensor, xs[x].dst)).collect();
        vec![
            by_priority(priority.clone()),
            Order {
                priority,
                sequences: Some(sequences),
                transfers: Some(transfers),
            },
        ]
    }
}

/// The activity network of one full placement.
pub struct Network {
    dur: Vec<f64>,
    /// Resource of each activity (device, or `k + link`), or `NONE`.
    res: Vec<u32>,
    preds: Vec<Vec<u32>>,
    succs: Vec<Vec<u32>>,
    /// Longest chain of durations after each activity.
    tail: Vec<f64>,
    /// Activities in a topological order.
    topo: Vec<u32>,
    resources: usize,
}

impl Network {
    pub fn new(problem: &Problem, placement: &[DevIx], links: LinkModel) -> Network {
        let g = problem.graph;
        let n = g.node_count();
        let k = problem.device_count();
        let xs = transfers_of(problem, placement);
        let nl = xs.iter().map(|x| x.link as usize + 1).max().unwrap_or(0);
        let na = n + xs.len();
        let mut dur = Vec::with_capacity(na);
        let mut res = Vec::with_capacity(na);
        for (v, &d) in placement.iter().enumerate() {
            dur.push(problem.exec(v as NodeIx, d));
            res.push(d);
        }
        let mut preds: Vec<Vec<u32>> = vec![Vec::new(); na];
        for (i, x) in xs.iter().enumerate() {
            dur.push(problem.cluster.transfer_time(x.src, x.dst, x.bytes));
            res.push(if links == LinkModel::Fcfs && x.bytes > 0.0 {
                (k + x.link as usize) as u32
            } else {
                NONE
            });
            preds[n + i].push(g.tensors[x.tensor as usize].src);
        }
        for (e, edge) in g.edges.iter().enumerate() {
            let (u, v) = (edge.src, edge.dst);
            let (du, dv) = (placement[u as usize], placement[v as usize]);
            let p = if du == dv {
                u
            } else {
                let t = g.edges[e].tensor;
                let i = xs
                    .iter()
                    .position(|x| x.tensor == t && x.dst == dv)
                    .expect("the simulator routes every crossing edge");
                (n + i) as u32
            };
            if !preds[v as usize].contains(&p) {
                preds[v as usize].push(p);
            }
        }
        let mut succs: Vec<Vec<u32>> = vec![Vec::new(); na];
        let mut indeg = vec![0usize; na];
        for (a, ps) in preds.iter().enumerate() {
            indeg[a] = ps.len();
            for &p in ps {
                succs[p as usize].push(a as u32);
            }
        }
        let mut topo: Vec<u32> = (0..na as u32).filter(|&a| indeg[a as usize] == 0).collect();
        let mut i = 0;
        while i < topo.len() {
            let a = topo[i] as usize;
            for &s in &succs[a] {
                indeg[s as usize] -= 1;
                if indeg[s as usize] == 0 {
                    topo.push(s);
                }
            }
            i += 1;
        }
        let mut tail = vec![0.0f64; na];
        for &a in topo.iter().rev() {
            tail[a as usize] = succs[a as usize]
                .iter()
                .map(|&s| dur[s as usize] + tail[s as usize])
                .fold(0.0, f64::max);
        }
        Network {
            dur,
            res,
            preds,
            succs,
            tail,
            topo,
            resources: k + nl,
        }
    }
}

/// Branch and bound over placement (outer) and activity order (inner).
pub struct Exact<'p, 'a> {
    problem: &'p Problem<'a>,
    links: LinkModel,
    units: Groups,
    /// Groups in topological order of their first member.
    unit_order: Vec<u32>,
    /// Symmetry class of each device.
    class: Vec<usize>,
    pos: Vec<u32>,
    /// Best makespan known (the anytime result, then better schedules found here).
    pub incumbent: f64,
    pub solution: Option<Solution>,
    /// Search nodes so far (the work the report counts).
    pub nodes: u64,
    limit: u64,
    aborted: bool,
}

/// Inner search state for one placement.
struct Inner {
    start: Vec<f64>,
    end: Vec<f64>,
    done: Vec<bool>,
    left: Vec<usize>,
    free: Vec<f64>,
}

impl<'p, 'a> Exact<'p, 'a> {
    /// A search of `problem` under `links` for a makespan below `incumbent`, stopped after
    /// `limit` nodes.
    pub fn new(problem: &'p Problem<'a>, links: LinkModel, incumbent: f64, limit: u64) -> Self {
        let k = problem.device_count();
        let exec: Vec<Vec<f64>> = (0..problem.node_count() as NodeIx)
            .map(|v| (0..k as DevIx).map(|d| problem.exec(v, d)).collect())
            .collect();
        let class = device_classes(problem, &exec);
        let pos = topo_position(problem);
        let units = Groups::new(problem);
        let mut unit_order: Vec<u32> = (0..units.len() as u32).collect();
        unit_order.sort_by_key(|&u| {
            units.members[u as usize]
                .iter()
                .map(|&v| pos[v as usize])
                .min()
        });
        Exact {
            problem,
            links,
            units,
            unit_order,
            class,
            pos,
            incumbent,
            solution: None,
            nodes: 0,
            limit,
            aborted: false,
        }
    }

    fn cut(&self) -> f64 {
        self.incumbent - TOL * self.incumbent.abs()
    }

    /// Runs the search; whether it was exhausted (the incumbent is then optimal).
    pub fn run(&mut self, progress: &mut Progress) -> Result<bool> {
        let n = self.problem.node_count();
        let k = self.problem.device_count();
        let mut placement = vec![UNPLACED; n];
        let mut load = vec![0.0; k];
        let mut used = vec![0usize; k];
        self.outer(0, &mut placement, &mut load, &mut used, progress)?;
        Ok(!self.aborted)
    }

    fn tick(&mut self, progress: &mut Progress) -> Result<bool> {
        self.nodes += 1;
        if self.nodes >= self.limit {
            self.aborted = true;
        }
        if self.nodes.is_multiple_of(4096) {
            progress(0.95 + 0.05 * self.nodes as f64 / self.limit as f64)?;
        }
        Ok(!self.aborted)
    }

    /// A lower bound for a partial placement: longest path (placed ops at their device's
    /// time, the others at their fastest, communication only between placed ops on
    /// different devices), the busiest device, and the work bound.
    fn partial_bound(&self, placement: &[DevIx]) -> f64 {
        let p = self.problem;
        let g = p.graph;
        let k = p.device_count();
        let n = g.node_count();
        let unplaced = UNPLACED;
        let comm = |e: u32, du: DevIx, dv: DevIx| {
            if du != unplaced && dv != unplaced {
                p.edge_transfer_time(e, du, dv)
            } else {
                0.0
            }
        };
        let run = |v: NodeIx| match placement[v as usize] {
            d if d == unplaced => p.min_exec(v),
            d => p.exec(v, d),
        };
        let mut head = vec![0.0f64; n];
        let mut tail = vec![0.0f64; n];
        let mut best = 0.0f64;
        let mut work = 0.0;
        let speed: Vec<f64> = p.cluster.devices.iter().map(|d| d.speed).collect();
        for &v in g.topo_order() {
            let dv = placement[v as usize];
            for &e in g.in_edges(v) {
                let u = g.edges[e as usize].src;
                let ready = head[u as usize] + run(u) + comm(e, placement[u as usize], dv);
                head[v as usize] = head[v as usize].max(ready);
            }
            best = best.max(head[v as usize] + run(v));
            work += if dv == unplaced {
                (0..k)
                    .map(|d| p.exec(v, d as DevIx) * speed[d])
                    .fold(f64::INFINITY, f64::min)
            } else {
                p.exec(v, dv) * speed[dv as usize]
            };
        }
        for &v in g.topo_order().iter().rev() {
            let dv = placement[v as usize];
            for &e in g.out_edges(v) {
                let w = g.edges[e as usize].dst;
                let after = comm(e, dv, placement[w as usize]) + run(w) + tail[w as usize];
                tail[v as usize] = tail[v as usize].max(after);
            }
        }
        // One machine per device: its placed ops run one at a time, after the earliest
        // head and before the shortest tail among them.
        let mut busy = vec![0.0f64; k];
        let mut first = vec![f64::INFINITY; k];
        let mut last = vec![f64::INFINITY; k];
        for v in 0..n {
            let d = placement[v];
            if d != unplaced {
                busy[d as usize] += p.exec(v as NodeIx, d);
                first[d as usize] = first[d as usize].min(head[v]);
                last[d as usize] = last[d as usize].min(tail[v]);
            }
        }
        let total_speed: f64 = speed.iter().sum();
        let mut lb = best.max(work / total_speed);
        for d in 0..k {
            if busy[d] > 0.0 {
                lb = lb.max(first[d] + busy[d] + last[d]);
            }
        }
        lb
    }

    fn outer(
        &mut self,
        depth: usize,
        placement: &mut [DevIx],
        load: &mut [f64],
        used: &mut [usize],
        progress: &mut Progress,
    ) -> Result<()> {
        if !self.tick(progress)? {
            return Ok(());
        }
        if depth == self.unit_order.len() {
            return self.sequence(placement, progress);
        }
        let k = self.problem.device_count();
        let unit = self.unit_order[depth];
        let foot = self.units.footprint[unit as usize];
        for d in 0..k {
            let dd = d as DevIx;
            if !self.units.allowed(self.problem, unit, dd)
                || exceeds(load[d] + foot, self.problem.cluster.devices[d].memory)
            {
                continue;
            }
            // Identical devices open in index order.
            if used[d] == 0 && (0..d).any(|e| self.class[e] == self.class[d] && used[e] == 0) {
                continue;
            }
            for &v in &self.units.members[unit as usize] {
                placement[v as usize] = dd;
            }
            load[d] += foot;
            used[d] += 1;
            if self.partial_bound(placement) < self.cut() {
                self.outer(depth + 1, placement, load, used, progress)?;
            }
            load[d] -= foot;
            used[d] -= 1;
            for &v in &self.units.members[unit as usize] {
                placement[v as usize] = UNPLACED;
            }
            if self.aborted {
                return Ok(());
            }
        }
        Ok(())
    }

    /// The inner search for one full placement.
    fn sequence(&mut self, placement: &[DevIx], progress: &mut Progress) -> Result<()> {
        let net = Network::new(self.problem, placement, self.links);
        let na = net.dur.len();
        let mut st = Inner {
            start: vec![0.0; na],
            end: vec![0.0; na],
            done: vec![false; na],
            left: net.preds.iter().map(|p| p.len()).collect(),
            free: vec![0.0; net.resources],
        };
        if self.bound(&net, &st, 0.0, 0.0) >= self.cut() {
            return Ok(());
        }
        self.inner(&net, &mut st, 0, 0.0, 0.0, placement, progress)
    }

    /// Heads (no remaining activity starts before `last`) plus tails, and each resource's
    /// remaining load after its free time.
    fn bound(&self, net: &Network, st: &Inner, last: f64, makespan: f64) -> f64 {
        let na = net.dur.len();
        let mut head = vec![0.0f64; na];
        let mut lb = makespan;
        let mut rest = vec![0.0f64; net.resources];
        let mut min_tail = vec![f64::INFINITY; net.resources];
        for &a in &net.topo {
            let a = a as usize;
            if st.done[a] {
                continue;
            }
            let mut h = last;
            if net.res[a] != NONE {
                h = h.max(st.free[net.res[a] as usize]);
            }
            for &p in &net.preds[a] {
                let p = p as usize;
                h = h.max(if st.done[p] {
                    st.end[p]
                } else {
                    head[p] + net.dur[p]
                });
            }
            head[a] = h;
            lb = lb.max(h + net.dur[a] + net.tail[a]);
            if net.res[a] != NONE {
                let r = net.res[a] as usize;
                rest[r] += net.dur[a];
                min_tail[r] = min_tail[r].min(net.tail[a]);
            }
        }
        for r in 0..net.resources {
            if rest[r] > 0.0 {
                lb = lb.max(st.free[r].max(last) + rest[r] + min_tail[r]);
            }
        }
        lb
    }

    #[allow(clippy::too_many_arguments)]
    fn inner(
        &mut self,
        net: &Network,
        st: &mut Inner,
        count: usize,
        last: f64,
        makespan: f64,
        placement: &[DevIx],
        progress: &mut Progress,
    ) -> Result<()> {
        if !self.tick(progress)? {
            return Ok(());
        }
        let na = net.dur.len();
        if count == na {
            if makespan < self.cut() {
                self.incumbent = makespan;
                self.solution = Some(Solution {
                    placement: placement.to_vec(),
                    start: st.start.clone(),
                });
            }
            return Ok(());
        }
        // Eligible activities with their earliest start, earliest first.
        let mut next: Vec<(f64, u32)> = Vec::new();
        for a in 0..na {
            if st.done[a] || st.left[a] > 0 {
                continue;
            }
            let mut t = net.preds[a]
                .iter()
                .map(|&p| st.end[p as usize])
                .fold(0.0, f64::max);
            if net.res[a] != NONE {
                t = t.max(st.free[net.res[a] as usize]);
            }
            if t < last {
                continue; // generated in another order
            }
            if t + net.dur[a] + net.tail[a] >= self.cut() {
                continue;
            }
            next.push((t, a as u32));
        }
        next.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
        for (t, a) in next {
            let a = a as usize;
            let r = net.res[a];
            let old_free = if r != NONE { st.free[r as usize] } else { 0.0 };
            st.done[a] = true;
            st.start[a] = t;
            st.end[a] = t + net.dur[a];
            if r != NONE {
                st.free[r as usize] = st.end[a];
            }
            for &s in &net.succs[a] {
                st.left[s as usize] -= 1;
            }
            let m = makespan.max(st.end[a]);
            if self.bound(net, st, t, m) < self.cut() {
                self.inner(net, st, count + 1, t, m, placement, progress)?;
            }
            for &s in &net.succs[a] {
                st.left[s as usize] += 1;
            }
            if r != NONE {
                st.free[r as usize] = old_free;
            }
            st.done[a] = false;
            if self.aborted {
                return Ok(());
            }
        }
        Ok(())
    }
}
