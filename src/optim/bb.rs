//! The branch and bound of the exact mode (Pesto21 §3.2.2's problem, in the simulator's
//! own arithmetic): it runs on the uncoarsened instance when the constraint model's
//! durations would have to be rounded (real-valued run times, which the integer model can
//! only bound).
//!
//! - Outer level ([`Exact`]): places each colocation unit on an allowed device with memory
//!   left (children by their bound, the incumbent's device first among equals, identical
//!   devices in index order): units with successors in topological order, then sinks by
//!   decreasing work, units without edges last. Pruned by the longest path per device
//!   (each op on each device it may take, each edge paying its transfer between the two), a
//!   one-machine bound per device and per directed link ([`one_machine`]), the work bound,
//!   a window work bound (late unplaced ops' work fitted into each device's time after
//!   their least head and before their least tail, [`Exact::windows`]), and an insertion
//!   bound (each unplaced op on its best device, with that device's and its inbound
//!   links' placed activities). A child's longest paths are updated from its parent's
//!   ([`Exact::child_bound`]), bit for bit the fresh ones. Before the units without edges
//!   are placed, the rest is sequenced alone ([`Exact::probe`], under `fifo`): when
//!   nothing is under the incumbent there, no placement of them is. Each placement's network has static heads
//!   and tails that count its resources ([`resource_heads_tails`]).
//! - Inner level, links ordered freely: sequences one full placement's activities
//!   ([`Network`]: ops and sends) by a serial schedule-generation scheme without insertion
//!   in non-decreasing start order, which generates every semi-active schedule, pruned by
//!   heads plus tails and each device's and link's remaining load. Its optimum bounds every
//!   link order's.
//! - Inner level under the `fifo` link order ([`Exact::with_fifo`]): only ops are
//!   sequenced (same scheme, ops that start together in index order); each send follows
//!   the simulator's queue: after its producer ends and the sends ahead of it, ahead being
//!   an earlier-ending producer (on one link all producers share a device, so no two end
//!   together) and, for one producer, its announcement order. A send of an op scheduled
//!   later can never go ahead of a send an op already scheduled waited for (that op would
//!   have started later), so every start is final when it is taken, and the search is
//!   exactly the `fifo` problem (semi-active device sequences, which `given`'s strict
//!   replay reproduces). An op does not start next if a ready op of its device that shares
//!   no link with another unscheduled op could end by its start (gap filling, a dominance
//!   rule). Ops or sends of zero duration fall back to the free order (ties
//!   between an instant's rounds are not modelled; [`Exact::searched_fifo`] says so).
//! - A node limit (deterministic) stops it; improvements smaller than a relative 1e-9 are
//!   not pursued. A schedule found ([`Solution`]) replays by priority and strictly.
//!
//! The fifo sequencing lives in `bb/fifo.rs`.
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

mod fifo;

use fifo::Fifo;

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
    /// A lower bound of the time between each activity's end and the makespan in every
    /// schedule: the longest chain of durations after it, or its descendants on one
    /// resource run one at a time ([`resource_heads_tails`]).
    tail: Vec<f64>,
    /// The same before each activity's start (a lower bound of its start).
    head: Vec<f64>,
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
        let (head, tail) = resource_heads_tails(&dur, &res, &preds, &succs, &topo);
        Network {
            dur,
            res,
            preds,
            succs,
            head,
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
    /// Full placements sequenced (leaves of the outer level).
    pub placements: u64,
    /// Partial placements whose ops with edges were sequenced alone ([`Exact::probe`]),
    /// and how many of them nothing completed under the incumbent.
    pub probes: u64,
    pub probes_pruned: u64,
    /// Whether to probe (tests compare with the search without it).
    probe_isolated: bool,
    /// Position in `unit_order` of the first unit without edges (they come last).
    first_isolated: usize,
    /// Sequencing a probe: a schedule under the cut is recorded as `found`, not kept.
    probing: bool,
    found: bool,
    limit: u64,
    aborted: bool,
    /// Sequence links by the `fifo` link order's rule (`with_fifo`) rather than freely.
    fifo: bool,
    /// A placement met with a non-positive duration, where the fifo rule's ties are not
    /// modelled: that placement was sequenced freely (a relaxation).
    free_fallback: bool,
    /// Device of each op to try first (the incumbent's placement).
    hint: Option<Vec<DevIx>>,
    /// Each op's least work (time times speed) over its devices.
    min_work: Vec<f64>,
    /// Whether each op has no edge.
    no_edges: Vec<bool>,
    /// Each edge's transfer time between every two devices (`e * k * k + src * k + dst`).
    comm: Vec<f64>,
    /// Scratch of the placement bound.
    scratch: Scratch,
    /// The placement bound's heads and tails ([`Exact::heads_tails`]) of the empty
    /// placement, and of each child evaluated at each depth (`depth * k + device`): a
    /// child's are updated from its parent's ([`Exact::child_bound`]).
    root: Vec<f64>,
    levels: Vec<Vec<f64>>,
}

/// `Exact::child_bound`'s base when the parent is the empty placement.
const ROOT: usize = usize::MAX;

/// Most devices the window work bound ([`Exact::window_work`]) handles.
const MAX_WINDOW: usize = 16;

/// One activity left on a resource, for [`one_machine`]: resource, head, duration, tail.
type Item = (u32, f64, f64, f64);

/// Scratch of the placement bound: heads and tails, rows changed, one-machine items,
/// per-device tails.
#[derive(Default)]
struct Scratch {
    heads: Vec<f64>,
    changed: Vec<bool>,
    items: Vec<Item>,
    to: Vec<f64>,
    /// The window work bound's ops by least head or tail, and placed ops.
    keyed: Vec<(f64, u32)>,
    placed: Vec<(u32, f64, f64, f64)>,
    /// One device's items with an unplaced op inserted.
    ins: Vec<Item>,
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
        let min_work: Vec<f64> = exec
            .iter()
            .map(|row| {
                row.iter()
                    .zip(&problem.cluster.devices)
                    .map(|(t, d)| t * d.speed)
                    .fold(f64::INFINITY, f64::min)
            })
            .collect();
        let mut unit_order: Vec<u32> = (0..units.len() as u32).collect();
        // Units without edges last: they only load a device, which the one-machine and
        // work bounds see once the rest is placed.
        let g = problem.graph;
        let key = |u: u32| {
            let ms = &units.members[u as usize];
            let sink = ms.iter().all(|&v| g.out_edges(v).is_empty());
            let isolated = sink && ms.iter().all(|&v| g.in_edges(v).is_empty());
            let work: f64 = ms.iter().map(|&v| min_work[v as usize]).sum();
            let first = ms.iter().map(|&v| pos[v as usize]).min().unwrap_or(0);
            (
                sink as u8 + isolated as u8,
                if sink { -work } else { first as f64 },
                first,
            )
        };
        unit_order.sort_by(|&a, &b| {
            let (x, y) = (key(a), key(b));
            x.0.cmp(&y.0).then(x.1.total_cmp(&y.1)).then(x.2.cmp(&y.2))
        });
        let first_isolated = unit_order
            .iter()
            .position(|&u| key(u).0 == 2)
            .unwrap_or(unit_order.len());
        let levels = unit_order.len() * k;
        let no_edges = (0..g.node_count() as NodeIx)
            .map(|v| g.in_edges(v).is_empty() && g.out_edges(v).is_empty())
            .collect();
        Exact {
            no_edges,
            min_work,
            problem,
            links,
            units,
            unit_order,
            class,
            pos,
            incumbent,
            solution: None,
            nodes: 0,
            placements: 0,
            probes: 0,
            probes_pruned: 0,
            probe_isolated: true,
            first_isolated,
            probing: false,
            found: false,
            limit,
            aborted: false,
            fifo: false,
            free_fallback: false,
            hint: None,
            comm: (0..problem.graph.edges.len() as u32)
                .flat_map(|e| {
                    (0..k * k).map(move |i| {
                        problem.edge_transfer_time(e, (i / k) as DevIx, (i % k) as DevIx)
                    })
                })
                .collect(),
            scratch: Default::default(),
            root: Vec::new(),
            levels: vec![Vec::new(); levels],
        }
    }

    /// Sequences every link by the `fifo` link order's rule (fcfs links only): a send whose
    /// producer ended first goes first, ties as the simulator announces them (the producer
    /// that started first, then the lower device index), one producer's sends in its
    /// announcement order (its output tensors in order, each to its devices in index
    /// order), each send as soon as its producer ended and the link is free. The search is
    /// then over placements and device sequences only, and its optimum is the `fifo`
    /// problem's ([`Exact::searched_fifo`]). Without it links are ordered freely: the
    /// optimum is then a lower bound of every link order's.
    pub fn with_fifo(mut self, fifo: bool) -> Self {
        self.fifo = fifo && self.links == LinkModel::Fcfs;
        self
    }

    /// Tries each unit on `placement`'s device first (the incumbent's), so that the first
    /// placements sequenced are the incumbent's neighbours.
    pub fn with_hint(mut self, placement: &[DevIx]) -> Self {
        self.hint = Some(placement.to_vec());
        self
    }

    /// Whether every placement was sequenced under the fifo rule, so that an exhausted
    /// search's incumbent is the `fifo` problem's optimum (not only a bound of it).
    pub fn searched_fifo(&self) -> bool {
        self.fifo && !self.free_fallback
    }

    fn cut(&self) -> f64 {
        self.incumbent - TOL * self.incumbent.abs()
    }

    /// A complete schedule of `placement`: the new incumbent if it is under the cut (its
    /// starts, `start`, built only then).
    fn offer(&mut self, makespan: f64, placement: &[DevIx], start: impl FnOnce() -> Vec<f64>) {
        if makespan < self.cut() {
            self.incumbent = makespan;
            self.solution = Some(Solution {
                placement: placement.to_vec(),
                start: start(),
            });
        }
    }

    /// Runs the search; whether it was exhausted (the incumbent is then optimal).
    pub fn run(&mut self, progress: &mut Progress) -> Result<bool> {
        let n = self.problem.node_count();
        let k = self.problem.device_count();
        let mut placement = vec![UNPLACED; n];
        let mut load = vec![0.0; k];
        let mut used = vec![0usize; k];
        let mut root = std::mem::take(&mut self.root);
        self.heads_tails(&placement, &mut root);
        self.root = root;
        self.outer(0, ROOT, &mut placement, &mut load, &mut used, progress)?;
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

    /// Whether `v` may be on `d` under `placement` (placed ops on theirs only).
    fn can(&self, placement: &[DevIx], v: NodeIx, d: usize) -> bool {
        match placement[v as usize] {
            UNPLACED => self.problem.allowed(v, d as DevIx),
            dv => dv as usize == d,
        }
    }

    /// Row `v` of the placement bound's heads (`head[v * k + d]`: `v`'s earliest start were
    /// it on `d`, infinite where it cannot be), from its producers' rows.
    fn head_row(&self, placement: &[DevIx], head: &mut [f64], v: NodeIx) {
        let p = self.problem;
        let g = p.graph;
        let k = p.device_count();
        for d in 0..k {
            let mut h = f64::INFINITY;
            if self.can(placement, v, d) {
                h = 0.0;
                for &e in g.in_edges(v) {
                    let u = g.edges[e as usize].src;
                    let mut ready = f64::INFINITY;
                    for du in 0..k {
                        let hu = head[u as usize * k + du];
                        if hu.is_finite() {
                            let at = hu
                                + p.exec(u, du as DevIx)
                                + self.comm[(e as usize * k + du) * k + d];
                            ready = ready.min(at);
                        }
                    }
                    h = h.max(ready);
                }
            }
            head[v as usize * k + d] = h;
        }
    }

    /// Row `v` of the placement bound's tails (`tail[v * k + d]`: the least time from `v`'s
    /// end to the makespan were it on `d`), from its consumers' rows.
    fn tail_row(&self, placement: &[DevIx], tail: &mut [f64], v: NodeIx) {
        let p = self.problem;
        let g = p.graph;
        let k = p.device_count();
        for d in 0..k {
            let mut t = f64::INFINITY;
            if self.can(placement, v, d) {
                t = 0.0;
                for &e in g.out_edges(v) {
                    let w = g.edges[e as usize].dst;
                    let mut after = f64::INFINITY;
                    for dw in 0..k {
                        let tw = tail[w as usize * k + dw];
                        if tw.is_finite() {
                            let at = self.comm[(e as usize * k + d) * k + dw]
                                + p.exec(w, dw as DevIx)
                                + tw;
                            after = after.min(at);
                        }
                    }
                    t = t.max(after);
                }
            }
            tail[v as usize * k + d] = t;
        }
    }

    /// The placement bound's heads and tails of `placement`, computed afresh (`heads`:
    /// `n * k` heads then `n * k` tails).
    fn heads_tails(&self, placement: &[DevIx], heads: &mut Vec<f64>) {
        let g = self.problem.graph;
        let nk = g.node_count() * self.problem.device_count();
        heads.clear();
        heads.resize(2 * nk, f64::INFINITY);
        let (head, tail) = heads.split_at_mut(nk);
        for &v in g.topo_order() {
            self.head_row(placement, head, v);
        }
        for &v in g.topo_order().iter().rev() {
            self.tail_row(placement, tail, v);
        }
    }

    /// Updates `heads` (as [`Exact::heads_tails`] writes them) from the placement without
    /// `unit` to `placement`, which places it: only the rows of its members, of their
    /// descendants (heads) and ancestors (tails) whose inputs changed are recomputed, each
    /// by the same arithmetic, so the result is bit for bit the fresh one. `changed` is
    /// scratch.
    fn update_heads_tails(
        &self,
        placement: &[DevIx],
        unit: u32,
        heads: &mut [f64],
        changed: &mut Vec<bool>,
    ) {
        let g = self.problem.graph;
        let n = g.node_count();
        let k = self.problem.device_count();
        let (head, tail) = heads.split_at_mut(n * k);
        let members = &self.units.members[unit as usize];
        let first = members.iter().map(|&v| self.pos[v as usize]).min();
        let last = members.iter().map(|&v| self.pos[v as usize]).max();
        let (Some(first), Some(last)) = (first, last) else {
            return;
        };
        let topo = g.topo_order();
        let mut row = [0.0f64; 8];
        // Heads: members and the ops downstream of a changed row, in topological order.
        changed.clear();
        changed.resize(n, false);
        for &v in &topo[first as usize..] {
            let vi = v as usize;
            let stale = members.contains(&v)
                || g.in_edges(v)
                    .iter()
                    .any(|&e| changed[g.edges[e as usize].src as usize]);
            if stale {
                changed[vi] = self.recompute(placement, head, v, &mut row, Self::head_row);
            }
        }
        // Tails: the same upstream, in reverse topological order.
        changed.fill(false);
        for &v in topo[..=last as usize].iter().rev() {
            let vi = v as usize;
            let stale = members.contains(&v)
                || g.out_edges(v)
                    .iter()
                    .any(|&e| changed[g.edges[e as usize].dst as usize]);
            if stale {
                changed[vi] = self.recompute(placement, tail, v, &mut row, Self::tail_row);
            }
        }
    }

    /// Recomputes row `v` of `rows` with `f`; whether it changed (`row` is scratch).
    fn recompute(
        &self,
        placement: &[DevIx],
        rows: &mut [f64],
        v: NodeIx,
        row: &mut [f64; 8],
        f: fn(&Self, &[DevIx], &mut [f64], NodeIx),
    ) -> bool {
        let k = self.problem.device_count();
        let at = v as usize * k;
        if k > row.len() {
            f(self, placement, rows, v);
            return true;
        }
        row[..k].copy_from_slice(&rows[at..at + k]);
        f(self, placement, rows, v);
        rows[at..at + k] != row[..k]
    }

    /// A lower bound for a partial placement: longest path per device (each op's earliest
    /// start and least time to the end were it on each device it may take: placed ops on
    /// theirs, the others on any allowed one, each edge paying its transfer between the
    /// two devices), a one-machine bound per device (its placed ops) and per directed
    /// link (the sends between placed ops), the work bound, and the insertion bound: each
    /// unplaced op runs on one of its devices, with that device's placed ops and, on the
    /// links into it, the sends it needs from placed producers elsewhere (the least over
    /// its devices of those one-machine bounds). Computed afresh; the search updates the
    /// longest paths from its parent's ([`Exact::child_bound`]).
    #[cfg(test)]
    fn partial_bound(&mut self, placement: &[DevIx]) -> f64 {
        let mut heads = std::mem::take(&mut self.scratch.heads);
        self.heads_tails(placement, &mut heads);
        let lb = self.bound_from(placement, &heads);
        self.scratch.heads = heads;
        lb
    }

    /// [`Exact::partial_bound`] of `placement`, which places `unit` on top of the
    /// placement whose heads and tails are `self.levels[base]` (`ROOT`: `self.root`),
    /// updated into `self.levels[slot]`.
    fn child_bound(&mut self, placement: &[DevIx], unit: u32, base: usize, slot: usize) -> f64 {
        let mut buf = std::mem::take(&mut self.levels[slot]);
        buf.clear();
        buf.extend_from_slice(if base == ROOT {
            &self.root
        } else {
            &self.levels[base]
        });
        let mut changed = std::mem::take(&mut self.scratch.changed);
        self.update_heads_tails(placement, unit, &mut buf, &mut changed);
        self.scratch.changed = changed;
        let lb = self.bound_from(placement, &buf);
        self.levels[slot] = buf;
        lb
    }

    /// The placement bound of `placement` given its heads and tails (`heads`, as
    /// [`Exact::heads_tails`] writes them).
    fn bound_from(&mut self, placement: &[DevIx], heads: &[f64]) -> f64 {
        let p = self.problem;
        let g = p.graph;
        let k = p.device_count();
        let n = g.node_count();
        let unplaced = UNPLACED;
        let (head, tail) = heads.split_at(n * k);
        let Scratch {
            heads: keep,
            changed,
            mut items,
            mut to,
            mut keyed,
            mut placed,
            mut ins,
        } = std::mem::take(&mut self.scratch);
        items.clear();
        to.resize(k, f64::INFINITY);
        let speed = |d: DevIx| p.cluster.devices[d as usize].speed;
        let mut work = 0.0;
        let mut best = 0.0f64;
        for &v in g.topo_order() {
            let v = v as usize;
            let dv = placement[v];
            work += if dv == unplaced {
                self.min_work[v]
            } else {
                p.exec(v as NodeIx, dv) * speed(dv)
            };
            let mut through = f64::INFINITY;
            for d in 0..k {
                if head[v * k + d].is_finite() {
                    through = through
                        .min(head[v * k + d] + p.exec(v as NodeIx, d as DevIx) + tail[v * k + d]);
                }
            }
            best = best.max(through);
        }
        let total_speed: f64 = p.cluster.devices.iter().map(|d| d.speed).sum();
        // The cheaper parts first: a child that the longest path prunes needs no more.
        let mut lb = best.max(work / total_speed);
        let cut = self.cut();
        if lb < cut {
            lb = lb.max(self.windows(placement, head, tail, cut, &mut keyed, &mut placed));
        }
        if lb < cut {
            // Placed ops' own heads and tails.
            let at = |x: &[f64], v: usize| x[v * k + placement[v] as usize];
            let run = |v: NodeIx| p.exec(v, placement[v as usize]);
            // One machine per device (its placed ops) and per directed link (fcfs: the sends
            // between placed ops, after their producer, before their consumer's tail).
            for (v, &d) in placement.iter().enumerate() {
                if d != unplaced {
                    items.push((d, at(head, v), run(v as NodeIx), at(tail, v)));
                }
            }
            if self.links == LinkModel::Fcfs {
                for (t, tensor) in g.tensors.iter().enumerate() {
                    let u = tensor.src as usize;
                    let s = placement[u];
                    let bytes = p.tensor_bytes[t];
                    if s == unplaced || bytes <= 0.0 {
                        continue;
                    }
                    to.fill(f64::INFINITY);
                    for &e in &tensor.edges {
                        let w = g.edges[e as usize].dst;
                        let dw = placement[w as usize];
                        if dw != unplaced && dw != s {
                            let after = run(w) + at(tail, w as usize);
                            to[dw as usize] = to[dw as usize].min(after);
                        }
                    }
                    for (d, &after) in to.iter().enumerate() {
                        if after.is_finite() {
                            items.push((
                                (k + s as usize * k + d) as u32,
                                at(head, u) + run(u as NodeIx),
                                p.cluster.transfer_time(s, d as DevIx, bytes),
                                after,
                            ));
                        }
                    }
                }
            }
            sort_items(&mut items, &mut ins, k + k * k);
            lb = lb.max(one_machine_sorted(&items));
        }
        // Each unplaced op runs on some device it may take, with that device's placed
        // ops: the least over its devices of their one-machine bound with it added
        // (`items` are sorted by resource, then head, decreasing).
        if lb < cut {
            for v in 0..n {
                if lb >= cut {
                    break;
                }
                if placement[v] != unplaced {
                    continue;
                }
                let mut least = f64::INFINITY;
                for d in 0..k {
                    let h = head[v * k + d];
                    if !h.is_finite() || !p.allowed(v as NodeIx, d as DevIx) {
                        continue;
                    }
                    let run_v = p.exec(v as NodeIx, d as DevIx);
                    let after = run_v + tail[v * k + d];
                    // Its own head, run time and tail (a part of `val`) cannot lower
                    // `least`.
                    if h + after >= least {
                        continue;
                    }
                    let mut val = with_item(&items, (d as u32, h, run_v, tail[v * k + d]));
                    // The sends it needs from placed producers on other devices, on their
                    // links (fcfs), unless that tensor already goes to `d`.
                    if self.links == LinkModel::Fcfs && val < cut {
                        for &e in g.in_edges(v as NodeIx) {
                            let edge = &g.edges[e as usize];
                            let u = edge.src as usize;
                            let s = placement[u];
                            let bytes = p.tensor_bytes[edge.tensor as usize];
                            if s == unplaced || s as usize == d || bytes <= 0.0 {
                                continue;
                            }
                            let sent = g.tensors[edge.tensor as usize].edges.iter().any(|&f| {
                                placement[g.edges[f as usize].dst as usize] as usize == d
                            });
                            if sent {
                                continue;
                            }
                            let x = (
                                (k + s as usize * k + d) as u32,
                                head[u * k + s as usize] + p.exec(u as NodeIx, s),
                                p.cluster.transfer_time(s, d as DevIx, bytes),
                                after,
                            );
                            val = val.max(with_item(&items, x));
                        }
                    }
                    least = least.min(val);
                    if least <= lb {
                        break;
                    }
                }
                lb = lb.max(least);
            }
        }
        self.scratch = Scratch {
            heads: keep,
            changed,
            items,
            to,
            keyed,
            placed,
            ins,
        };
        lb
    }

    /// The window work bound of a set of unplaced ops, given for each device `d` the least
    /// of their heads there (`h[d]`, infinite where none may run) and of their tails
    /// (`q[d]`), and `w`, the sum of their least works (run time times speed, least over
    /// their devices): the set's ops on `d` start no earlier than `h[d]` and end at least
    /// `q[d]` before the makespan `M`; so do the placed ops of `d` whose own head and tail
    /// are at least those (`placed`: device, head, tail, run time). So `d` runs `P_d`
    /// (those placed ops' run times) plus its share of the set within `M - h[d] - q[d]`,
    /// and an op `v` on `d` runs at least `w_v / s_d` (`s_d` the speed): `w <= sum_d s_d
    /// max(0, M - h[d] - q[d] - P_d)`, whose least `M` (water filling) bounds every
    /// completion.
    fn window_work(&self, h: &[f64], q: &[f64], w: f64, placed: &[(u32, f64, f64, f64)]) -> f64 {
        let k = h.len();
        let mut base = [f64::INFINITY; MAX_WINDOW];
        for d in 0..k {
            if h[d].is_finite() && q[d].is_finite() {
                base[d] = h[d] + q[d];
            }
        }
        for &(d, hv, tv, run) in placed {
            let d = d as usize;
            if hv >= h[d] && tv >= q[d] {
                base[d] += run;
            }
        }
        let mut order = [0usize; MAX_WINDOW];
        for (d, o) in order.iter_mut().enumerate().take(k) {
            *o = d;
        }
        order[..k].sort_unstable_by(|&a, &b| base[a].total_cmp(&base[b]).then(a.cmp(&b)));
        let (mut speeds, mut weighted) = (0.0, 0.0);
        for j in 0..k {
            let d = order[j];
            if !base[d].is_finite() {
                break;
            }
            let s = self.problem.cluster.devices[d].speed;
            speeds += s;
            weighted += s * base[d];
            let level = (w + weighted) / speeds;
            let next = if j + 1 < k {
                base[order[j + 1]]
            } else {
                f64::INFINITY
            };
            if level <= next {
                return level;
            }
        }
        f64::INFINITY
    }

    /// [`Exact::window_work`] over the unplaced ops with edges whose least head over
    /// their devices is at least each of theirs (a late set has a late window), then the
    /// same by tails: the largest, stopping at `cut`. Unlike the work bound, which starts
    /// every device at 0, it sees that the last ops to place (sinks) cannot start before
    /// their producers end. `keyed` and `placed` are scratch.
    #[allow(clippy::too_many_arguments)]
    fn windows(
        &self,
        placement: &[DevIx],
        head: &[f64],
        tail: &[f64],
        cut: f64,
        keyed: &mut Vec<(f64, u32)>,
        placed: &mut Vec<(u32, f64, f64, f64)>,
    ) -> f64 {
        let p = self.problem;
        let k = p.device_count();
        if k > MAX_WINDOW {
            return 0.0;
        }
        placed.clear();
        for (v, &d) in placement.iter().enumerate() {
            if d != UNPLACED {
                let at = v * k + d as usize;
                placed.push((d, head[at], tail[at], p.exec(v as NodeIx, d)));
            }
        }
        let mut lb = 0.0f64;
        for x in [head, tail] {
            keyed.clear();
            for (v, &d) in placement.iter().enumerate() {
                if d == UNPLACED && !self.no_edges[v] {
                    let least = x[v * k..(v + 1) * k]
                        .iter()
                        .copied()
                        .fold(f64::INFINITY, f64::min);
                    keyed.push((least, v as u32));
                }
            }
            // Latest first: each prefix is a set.
            keyed.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let mut h = [f64::INFINITY; MAX_WINDOW];
            let mut q = [f64::INFINITY; MAX_WINDOW];
            let mut w = 0.0;
            for (i, &(key, v)) in keyed.iter().enumerate() {
                let v = v as usize;
                w += self.min_work[v];
                for d in 0..k {
                    let hv = head[v * k + d];
                    if hv.is_finite() {
                        h[d] = h[d].min(hv);
                        q[d] = q[d].min(tail[v * k + d]);
                    }
                }
                if i + 1 < keyed.len() && keyed[i + 1].0 == key || w <= 0.0 {
                    continue;
                }
                lb = lb.max(self.window_work(&h[..k], &q[..k], w, placed));
                if lb >= cut {
                    return lb;
                }
            }
        }
        lb
    }

    /// One node of the placement search: `placement` places the first `depth` units of
    /// `unit_order`, its heads and tails are `self.levels[base]` (`ROOT`: `self.root`).
    fn outer(
        &mut self,
        depth: usize,
        base: usize,
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
        if self.probe_isolated
            && depth == self.first_isolated
            && !self.probe(placement, progress)?
        {
            return Ok(());
        }
        let k = self.problem.device_count();
        let unit = self.unit_order[depth];
        let foot = self.units.footprint[unit as usize];
        let first = self
            .hint
            .as_ref()
            .map(|h| h[self.units.members[unit as usize][0] as usize] as usize)
            .filter(|&d| d < k);
        let devices = first
            .into_iter()
            .chain((0..k).filter(|&d| Some(d) != first));
        // Children by their bound, lowest first (the hint's first among equals), so that
        // the first placements sequenced are the most promising.
        let mut children: Vec<(f64, usize)> = Vec::with_capacity(k);
        for d in devices {
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
            let lb = self.child_bound(placement, unit, base, depth * k + d);
            for &v in &self.units.members[unit as usize] {
                placement[v as usize] = UNPLACED;
            }
            if lb < self.cut() {
                children.push((lb, d));
            }
        }
        children.sort_by(|x, y| x.0.total_cmp(&y.0));
        for (lb, d) in children {
            if lb >= self.cut() {
                continue;
            }
            let dd = d as DevIx;
            for &v in &self.units.members[unit as usize] {
                placement[v as usize] = dd;
            }
            load[d] += foot;
            used[d] += 1;
            self.outer(depth + 1, depth * k + d, placement, load, used, progress)?;
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

    /// Whether the ops with edges of `placement` (every unit placed but those without
    /// edges) have a `fifo` schedule under the cut, the others left out. Leaving out an op
    /// without edges makes no schedule longer: with the same device sequences the links'
    /// fifo orders stay (each link's sends come from one device, in its sequence's order)
    /// and every start is a longest path over fewer arcs. So if none is under the cut, no
    /// placement of the units without edges completes one. `true` when it cannot tell
    /// (not under `fifo`, zero durations, the node limit).
    fn probe(&mut self, placement: &[DevIx], progress: &mut Progress) -> Result<bool> {
        if !self.fifo {
            return Ok(true);
        }
        let n = placement.len();
        let mut full = placement.to_vec();
        let mut skip = vec![false; n];
        for v in 0..n {
            if full[v] == UNPLACED {
                skip[v] = true;
                full[v] = (0..self.problem.device_count() as DevIx)
                    .find(|&d| self.problem.allowed(v as NodeIx, d))
                    .unwrap_or(0);
            }
        }
        let net = Network::new(self.problem, &full, self.links);
        let Some(fifo) = Fifo::new(self.problem, &full, &net) else {
            return Ok(true);
        };
        self.probes += 1;
        self.probing = true;
        self.found = false;
        self.sequence_fifo(&net, &fifo, &full, &skip, progress)?;
        self.probing = false;
        let found = std::mem::take(&mut self.found);
        if !found && !self.aborted {
            self.probes_pruned += 1;
            return Ok(false);
        }
        Ok(true)
    }

    /// The inner search for one full placement.
    fn sequence(&mut self, placement: &[DevIx], progress: &mut Progress) -> Result<()> {
        self.placements += 1;
        let net = Network::new(self.problem, placement, self.links);
        if self.fifo {
            match Fifo::new(self.problem, placement, &net) {
                Some(fifo) => return self.sequence_fifo(&net, &fifo, placement, &[], progress),
                None => self.free_fallback = true,
            }
        }
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
            let h = h.max(net.head[a]);
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
            self.offer(makespan, placement, || st.start.clone());
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

/// Static heads and tails of an activity network, each the larger of the longest chain of
/// durations and a one-machine bound per resource over the activity's ancestors
/// (descendants): a descendant `x` of `a` starts at least the longest chain of durations
/// strictly between them after `a` ends, the descendants that share a resource run one at
/// a time, and each is followed by its own tail ([`one_machine`] with those releases and
/// tails); symmetrically for heads. Both hold in every schedule of the network, whatever
/// the link order (the `fifo` rule only adds constraints), so heads plus durations plus
/// tails never exceed a schedule's makespan.
fn resource_heads_tails(
    dur: &[f64],
    res: &[u32],
    preds: &[Vec<u32>],
    succs: &[Vec<u32>],
    topo: &[u32],
) -> (Vec<f64>, Vec<f64>) {
    let tail = chain_bounds(dur, res, succs, topo, true);
    // Heads are tails of the reversed network.
    let reversed: Vec<u32> = topo.iter().rev().copied().collect();
    let head = chain_bounds(dur, res, preds, &reversed, false);
    (head, tail)
}

/// Tails along `next` (successors, with `order` topological), or heads along predecessors
/// with `order` reversed: each activity's bound is the larger of its longest chain through
/// `next` and [`one_machine`] over the activities beyond it, those released by the chain
/// of durations between them (`tails`: the chain is each one's head and its own bound its
/// tail; heads: the other way round).
fn chain_bounds(
    dur: &[f64],
    res: &[u32],
    next: &[Vec<u32>],
    order: &[u32],
    tails: bool,
) -> Vec<f64> {
    let na = dur.len();
    let mut bound = vec![0.0f64; na];
    let mut dist = vec![f64::NEG_INFINITY; na];
    let mut items: Vec<Item> = Vec::new();
    for (i, &a) in order.iter().enumerate().rev() {
        let a = a as usize;
        let chain = next[a]
            .iter()
            .map(|&s| dur[s as usize] + bound[s as usize])
            .fold(0.0, f64::max);
        dist.fill(f64::NEG_INFINITY);
        for &s in &next[a] {
            dist[s as usize] = 0.0;
        }
        items.clear();
        for &x in &order[i + 1..] {
            let x = x as usize;
            if dist[x] == f64::NEG_INFINITY {
                continue;
            }
            for &s in &next[x] {
                let s = s as usize;
                dist[s] = dist[s].max(dist[x] + dur[x]);
            }
            if res[x] != NONE {
                items.push(if tails {
                    (res[x], dist[x], dur[x], bound[x])
                } else {
                    (res[x], bound[x], dur[x], dist[x])
                });
            }
        }
        bound[a] = chain.max(one_machine(&mut items));
    }
    bound
}

/// One machine per resource (`items`: resource, head, duration, tail of the activities
/// left on it): for every pair of a head and a tail threshold, the activities with a head
/// and a tail at least those run one at a time after the head threshold and before the
/// tail threshold (the preemptive one-machine bound: the largest smallest-head plus
/// durations plus smallest-tail over every subset, reached by such a pair).
fn one_machine(items: &mut [Item]) -> f64 {
    items.sort_unstable_by(|x, y| x.0.cmp(&y.0).then(y.1.total_cmp(&x.1)));
    one_machine_sorted(items)
}

/// [`one_machine`] of `x`'s resource: its items in `items` (sorted by resource, then
/// head, decreasing) with `x` added after those with a head at least its own.
fn with_item(items: &[Item], x: Item) -> f64 {
    let lo = items.partition_point(|y| y.0 < x.0);
    let hi = items.partition_point(|y| y.0 <= x.0);
    let group = &items[lo..hi];
    let (_, xh, xd, xt) = x;
    let mut lb = 0.0f64;
    for q in group.iter().map(|y| y.3).chain(std::iter::once(xt)) {
        let mut sum = 0.0;
        let mut placed = false;
        for &(_, h, d, t) in group {
            if !placed && h < xh {
                placed = true;
                if xt >= q {
                    sum += xd;
                    lb = lb.max(xh + sum + q);
                }
            }
            if t >= q {
                sum += d;
                lb = lb.max(h + sum + q);
            }
        }
        if !placed && xt >= q {
            sum += xd;
            lb = lb.max(xh + sum + q);
        }
    }
    lb
}

/// Sorts `items` as [`one_machine_sorted`] wants them (by resource, then head,
/// decreasing; resources below `resources`): counted into buckets by resource, each
/// sorted by insertion (`tmp` is scratch; many resources: a plain sort).
fn sort_items(items: &mut Vec<Item>, tmp: &mut Vec<Item>, resources: usize) {
    const MAX: usize = 64;
    if resources >= MAX {
        items.sort_unstable_by(|x, y| x.0.cmp(&y.0).then(y.1.total_cmp(&x.1)));
        return;
    }
    let mut start = [0usize; MAX + 1];
    for x in items.iter() {
        start[x.0 as usize + 1] += 1;
    }
    for r in 0..resources {
        start[r + 1] += start[r];
    }
    tmp.clear();
    tmp.resize(items.len(), (0, 0.0, 0.0, 0.0));
    let mut next = start;
    for &x in items.iter() {
        let r = x.0 as usize;
        let mut at = next[r];
        next[r] += 1;
        // Insertion into its bucket, by head, decreasing.
        while at > start[r] && tmp[at - 1].1 < x.1 {
            tmp[at] = tmp[at - 1];
            at -= 1;
        }
        tmp[at] = x;
    }
    std::mem::swap(items, tmp);
}

/// [`one_machine`] of items already sorted by resource, then head, decreasing.
fn one_machine_sorted(items: &[Item]) -> f64 {
    let mut lb = 0.0f64;
    let mut i = 0;
    while i < items.len() {
        let r = items[i].0;
        let mut j = i;
        while j < items.len() && items[j].0 == r {
            j += 1;
        }
        let group = &items[i..j];
        for &(_, _, _, q) in group {
            let mut sum = 0.0;
            for &(_, h, d, t) in group {
                if t >= q {
                    sum += d;
                    lb = lb.max(h + sum + q);
                }
            }
        }
        i = j;
    }
    lb
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cluster::Cluster;
    use crate::model::graph::Graph;
    use crate::pair::Pair;
    use crate::rng::Rng;

    /// An exhausted search of `p` (no incumbent), fifo or free.
    fn optimum<'p, 'a>(p: &'p Problem<'a>, fifo: bool) -> Exact<'p, 'a> {
        let mut bb = Exact::new(p, LinkModel::Fcfs, 1e9, u64::MAX).with_fifo(fifo);
        assert!(bb.run(&mut |_| Ok(())).unwrap(), "exhausted");
        assert_eq!(bb.searched_fifo(), fifo);
        bb
    }

    /// The makespans of the solution's plans (by priority, strictly) under `fcfs` links
    /// with the `fifo` link order, replayed by `given` (strict): what pesto's decoder gets.
    fn replayed(p: &Problem, bb: &Exact) -> Vec<f64> {
        let pair = Pair::default().with_links(LinkModel::Fcfs);
        assert_eq!(pair.link_order_name(), "fifo");
        let sol = bb.solution.as_ref().expect("a schedule");
        sol.orders(p, bb)
            .iter()
            .map(|o| {
                let r = pair.simulate(p, &sol.placement, Some(o), false);
                assert_eq!(r.unfinished, 0);
                r.makespan
            })
            .collect()
    }

    /// The CP model's fifo case (`cp::tests`) for the branch and bound: A(1) -> B(1) on g0,
    /// A -> C(1) 5 bytes and B -> D(10) 1 byte, C and D on g1, bandwidth 1. Under `fifo`
    /// A's send goes first ([1, 6]), B's [6, 7], D [7, 17]: 17, which the strict replay
    /// reproduces; ordered freely, B's send goes first: D [3, 13], C [13, 14]: 14.
    #[test]
    fn the_fifo_rule_sends_the_earlier_producer_first() {
        let (g, c) = crate::testutil::fifo_case();
        let p = Problem::new(&g, &c).unwrap();
        let bb = optimum(&p, true);
        assert_eq!(bb.incumbent, 17.0);
        assert_eq!(replayed(&p, &bb), [17.0, 17.0]);
        let free = optimum(&p, false);
        assert_eq!(free.incumbent, 14.0);
        // Parallel links have no queue: the rule does not apply.
        let par = Exact::new(&p, LinkModel::Parallel, 1e9, 10).with_fifo(true);
        assert!(!par.searched_fifo());
    }

    /// A random instance with real-valued run and transfer times: `n` ops, each fed by up
    /// to two earlier ones (two output tensors per op, so one producer may send two
    /// tensors down one link), `k` devices of different speeds.
    fn real_valued(n: usize, k: usize, seed: u64) -> (Graph, Cluster) {
        with_isolated(n, k, seed, 0)
    }

    /// [`real_valued`] with `isolated` more ops without edges (`i0`, ...).
    fn with_isolated(n: usize, k: usize, seed: u64, isolated: usize) -> (Graph, Cluster) {
        let mut rng = Rng::new(seed);
        let mut nodes: Vec<String> = (0..n)
            .map(|i| format!(r#"{{"id":"o{i}","cost":{}}}"#, rng.uniform(1.0, 9.0)))
            .collect();
        for i in 0..isolated {
            nodes.push(format!(
                r#"{{"id":"i{i}","cost":{}}}"#,
                rng.uniform(1.0, 9.0)
            ));
        }
        let mut edges = Vec::new();
        for i in 1..n {
            for _ in 0..2 {
                let j = rng.below(i as u64);
                let t = rng.below(2);
                let bytes = rng.uniform(0.5, 5.0);
                edges.push(format!(
                    r#"{{"src":"o{j}","dst":"o{i}","bytes":{bytes},"tensor":"o{j}:{t}"}}"#
                ));
            }
        }
        let g = crate::testutil::joined(&nodes, &edges);
        let devices: Vec<String> = (0..k)
            .map(|d| format!(r#"{{"id":"g{d}","speed":{}}}"#, rng.uniform(0.7, 1.5)))
            .collect();
        let c = crate::testutil::cluster(&format!(
            r#"{{"devices":[{}],"bandwidth":{}}}"#,
            devices.join(","),
            rng.uniform(0.8, 2.0)
        ));
        (g, c)
    }

    /// On random real-valued instances: the fifo optimum is what the simulator gives when
    /// replaying its schedule strictly (and never less by priority), never below the free
    /// order's optimum, and no random plan the simulator replays goes below it.
    #[test]
    fn the_fifo_optimum_is_what_the_simulator_replays_and_is_never_beaten() {
        let pair = Pair::default().with_links(LinkModel::Fcfs);
        for seed in 0..8u64 {
            let (n, k) = (5 + (seed % 3) as usize, 2 + (seed % 2) as usize);
            let (g, c) = real_valued(n, k, seed);
            let p = Problem::new(&g, &c).unwrap();
            let bb = optimum(&p, true);
            let opt = bb.incumbent;
            let got = replayed(&p, &bb);
            assert_eq!(got[1], opt, "seed {seed}: strict replay");
            assert!(got[0] >= opt, "seed {seed}: by priority {} < {opt}", got[0]);
            let free = optimum(&p, false);
            assert!(free.incumbent <= opt, "seed {seed}");
            let mut rng = Rng::new(100 + seed);
            for _ in 0..300 {
                let placement: Vec<DevIx> = (0..n).map(|_| rng.below(k as u64) as DevIx).collect();
                let priority: Vec<f64> = (0..n).map(|_| rng.unit()).collect();
                let r = pair.simulate(&p, &placement, Some(&by_priority(priority)), false);
                assert!(
                    r.makespan >= opt,
                    "seed {seed}: {placement:?} makes {} < {opt}",
                    r.makespan
                );
            }
        }
    }

    /// The bounds never exceed a schedule's makespan: on random real-valued instances and
    /// random plans replayed by the simulator under `fifo` (strict), the placement bound
    /// of the plan's placement and of each of its prefixes (in the search's unit order),
    /// and the plan's network bound (static heads plus durations plus tails, and one
    /// machine per resource over them), are at most the replayed makespan, and the
    /// placement bound of the exhausted optimum's prefixes at most that optimum.
    #[test]
    fn the_bounds_never_exceed_a_replayed_makespan_or_the_optimum() {
        let pair = Pair::default().with_links(LinkModel::Fcfs);
        let slack = |m: f64| m + 1e-9 * m.abs();
        for seed in 0..8u64 {
            let (n, k) = (5 + (seed % 3) as usize, 2 + (seed % 2) as usize);
            let (g, c) = real_valued(n, k, 200 + seed);
            let p = Problem::new(&g, &c).unwrap();
            let mut bb = optimum(&p, true);
            let opt = bb.incumbent;
            let best = bb.solution.as_ref().unwrap().placement.clone();
            let prefixes = |bb: &Exact, full: &[DevIx]| -> Vec<Vec<DevIx>> {
                let mut part = vec![UNPLACED; n];
                let mut out = Vec::new();
                for &u in &bb.unit_order {
                    for &v in &bb.units.members[u as usize] {
                        part[v as usize] = full[v as usize];
                    }
                    out.push(part.clone());
                }
                out
            };
            for part in prefixes(&bb, &best) {
                let lb = bb.partial_bound(&part);
                assert!(
                    lb <= slack(opt),
                    "seed {seed}: {part:?} bound {lb} > optimum {opt}"
                );
            }
            let mut rng = Rng::new(300 + seed);
            for _ in 0..100 {
                let placement: Vec<DevIx> = (0..n).map(|_| rng.below(k as u64) as DevIx).collect();
                let priority: Vec<f64> = (0..n).map(|_| rng.unit()).collect();
                let m = pair
                    .simulate(&p, &placement, Some(&by_priority(priority)), false)
                    .makespan;
                assert!(m >= opt, "seed {seed}");
                for part in prefixes(&bb, &placement) {
                    let lb = bb.partial_bound(&part);
                    assert!(lb <= slack(m), "seed {seed}: {part:?} bound {lb} > {m}");
                }
                let net = Network::new(&p, &placement, LinkModel::Fcfs);
                let mut items = Vec::new();
                for a in 0..net.dur.len() {
                    let through = net.head[a] + net.dur[a] + net.tail[a];
                    assert!(
                        through <= slack(m),
                        "seed {seed}: activity {a}: {through} > {m}"
                    );
                    if net.res[a] != NONE {
                        items.push((net.res[a], net.head[a], net.dur[a], net.tail[a]));
                    }
                }
                let lb = one_machine(&mut items);
                assert!(lb <= slack(m), "seed {seed}: one machine {lb} > {m}");
            }
        }
    }

    /// The search's placement bound updated from its parent's (only the rows whose inputs
    /// changed) is bit for bit the bound computed afresh: on random real-valued instances,
    /// some with ops without edges and colocated pairs, along random placements in the
    /// search's unit order, the updated heads and tails equal the fresh ones at every step,
    /// and so do the bounds.
    #[test]
    fn the_updated_placement_bound_is_the_fresh_one() {
        for seed in 0..12u64 {
            let (n, k) = (6 + (seed % 5) as usize, 2 + (seed % 3) as usize);
            let (mut g, c) = with_isolated(n, k, 500 + seed, (seed % 2) as usize);
            if seed % 3 == 0 {
                // Colocate o1 with o3 (units of two members).
                let mut v: serde_json::Value = serde_json::from_str(&g.to_json()).unwrap();
                for node in v["nodes"].as_array_mut().unwrap() {
                    if node["id"] == "o1" || node["id"] == "o3" {
                        node["colocate"] = "pair".into();
                    }
                }
                g = Graph::from_json(&v.to_string(), "colocated").unwrap();
            }
            let p = Problem::new(&g, &c).unwrap();
            let total = g.node_count();
            let mut bb = Exact::new(&p, LinkModel::Fcfs, 1e9, u64::MAX).with_fifo(true);
            let mut rng = Rng::new(600 + seed);
            for _ in 0..20 {
                let mut placement = vec![UNPLACED; total];
                let mut heads = Vec::new();
                bb.heads_tails(&placement, &mut heads);
                for depth in 0..bb.unit_order.len() {
                    let unit = bb.unit_order[depth];
                    let d = rng.below(k as u64) as DevIx;
                    for &v in &bb.units.members[unit as usize] {
                        placement[v as usize] = d;
                    }
                    let mut changed = Vec::new();
                    bb.update_heads_tails(&placement, unit, &mut heads, &mut changed);
                    let mut fresh = Vec::new();
                    bb.heads_tails(&placement, &mut fresh);
                    let same = heads
                        .iter()
                        .zip(&fresh)
                        .all(|(a, b)| a.to_bits() == b.to_bits());
                    assert!(same, "seed {seed}, depth {depth}: {heads:?} != {fresh:?}");
                    let updated = bb.bound_from(&placement, &heads);
                    assert_eq!(
                        updated.to_bits(),
                        bb.partial_bound(&placement).to_bits(),
                        "seed {seed}, depth {depth}"
                    );
                }
            }
        }
    }

    /// The probe (the placement sequenced without its units without edges, which prunes
    /// every placement of them when nothing is under the incumbent) loses no optimum: on
    /// random real-valued instances with one or two ops without edges, the exhausted
    /// search finds the same optimum with and without it, which the simulator replays
    /// strictly, and it pruned somewhere.
    #[test]
    fn the_probe_before_the_ops_without_edges_keeps_the_optimum() {
        let mut pruned = 0;
        for seed in 0..24u64 {
            let (n, k) = (9 + (seed % 3) as usize, 2 + (seed % 2) as usize);
            let (g, c) = with_isolated(n, k, 400 + seed, 1 + (seed % 2) as usize);
            let p = Problem::new(&g, &c).unwrap();
            let bb = optimum(&p, true);
            assert!(bb.probes > 0, "seed {seed}: no probe");
            pruned += bb.probes_pruned;
            let mut plain = Exact::new(&p, LinkModel::Fcfs, 1e9, u64::MAX).with_fifo(true);
            plain.probe_isolated = false;
            assert!(plain.run(&mut |_| Ok(())).unwrap());
            assert_eq!(plain.probes, 0);
            let (a, b) = (bb.incumbent, plain.incumbent);
            assert!(
                (a - b).abs() <= 1e-9 * b.abs(),
                "seed {seed}: {a} with the probe, {b} without"
            );
            assert_eq!(replayed(&p, &bb)[1], a, "seed {seed}: strict replay");
        }
        assert!(pruned > 0, "no probe pruned");
    }
}
