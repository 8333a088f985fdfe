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
//! The fifo sequencing lives in `bb/fifo.rs`, the lower bounds in `bb/bounds.rs`.
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

mod bounds;
use bounds::{one_machine, resource_heads_tails};
mod fifo;

use fifo::Fifo;

const NONE: u32 = u32::MAX;

/// `max` and `min` of two floats that are never NaN here, as a comparison: wasm32 has no
/// instruction with `f64::max`'s NaN rule, so there `f64::max` and `f64::min` are calls
/// (`fmax`, `fmin`; about a tenth of this search's time in the page's build, issue 21m).
/// Same values as `f64::max` and `f64::min` for every non-NaN pair (a signed zero aside,
/// which compares equal).
trait Cmp {
    fn hi(self, other: f64) -> f64;
    fn lo(self, other: f64) -> f64;
}

impl Cmp for f64 {
    #[inline(always)]
    fn hi(self, other: f64) -> f64 {
        if other > self {
            other
        } else {
            self
        }
    }

    #[inline(always)]
    fn lo(self, other: f64) -> f64 {
        if other < self {
            other
        } else {
            self
        }
    }
}

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
                    .fold(f64::INFINITY, f64::lo)
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
                h = h.hi(st.free[net.res[a] as usize]);
            }
            for &p in &net.preds[a] {
                let p = p as usize;
                h = h.hi(if st.done[p] {
                    st.end[p]
                } else {
                    head[p] + net.dur[p]
                });
            }
            let h = h.hi(net.head[a]);
            head[a] = h;
            lb = lb.hi(h + net.dur[a] + net.tail[a]);
            if net.res[a] != NONE {
                let r = net.res[a] as usize;
                rest[r] += net.dur[a];
                min_tail[r] = min_tail[r].lo(net.tail[a]);
            }
        }
        for r in 0..net.resources {
            if rest[r] > 0.0 {
                lb = lb.hi(st.free[r].hi(last) + rest[r] + min_tail[r]);
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
                .fold(0.0, f64::hi);
            if net.res[a] != NONE {
                t = t.hi(st.free[net.res[a] as usize]);
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
            let m = makespan.hi(st.end[a]);
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

#[cfg(test)]
mod tests;
