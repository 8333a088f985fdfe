//! Critical-path local search on the full graph (not in Pesto21, whose ILP needs no search
//! moves): from the best warm start's own placement and per-op priorities (not their
//! projection onto units, which loses the warm start's order), moves guided by the decoded
//! schedule's critical path, each candidate decoded by the pair itself (`decoder`).
//!
//! The critical path is read off the decoded trace: from the op that ends last, each op's
//! binding reason is whichever ended latest of its data predecessors and the op that ran
//! before it on its device.
//! - Boost (35%): an op on the path that waited for its device: it and its ancestors (to a
//!   random depth) gain a random share of the priority span: a multi-op reorder that keeps
//!   the placement.
//! - Delay (15%): the op it waited for, and its descendants, lose such a share.
//! - Cut (30%): an op on the path fed across devices: its unit moves to its producer's
//!   device, or the producer's unit to its device (a group move along the cut); the unit is
//!   the op's coarse unit (`SearchUnits`) or its colocation group, at random.
//! - Relocate (20%): a random op's coarse unit to another allowed device.
//! - Branch (second phase only): of two ops that ran one after the other on a device on the
//!   path, one's branch (`branch`: grown from it upwards to a fork and downwards to a join,
//!   with the parameter reads hanging off it, up to a random 0.2-5.2% of the graph's work;
//!   whole colocation groups) moves to another device where it runs fastest, so that the
//!   two run side by side: a NASNet cell's parallel branches, which unit moves cannot
//!   separate. Kept only when it makes nothing worse.
//!
//! Two phases: the first half of the evaluations with the first four moves (shares as
//! above), the second from the best so far with half of the moves branch moves and the
//! others in the same proportions. Measured (issue 21, the six rows of `cargo bench --bench
//! pesto -- real` at two seeds, docs/pesto.md): branch moves mixed in from the start at
//! 10-20% took NASNet lower but RNNLM 3-12% higher (its reorders lose their trajectory);
//! as a second phase they improve all six rows at both seeds but one (within 0.2%).
//!
//! Moves that break memory or affinity are never decoded. Acceptance: Metropolis as in
//! `anneal`; after `RESTART` decodes without a new best the search restarts from its best.
//!
//! What it is not: where the search starts (the placer's warm starts) or what it proves.

use crate::clock::Clock;
use crate::error::Result;
use crate::model::cluster::{exceeds, DevIx};
use crate::model::graph::NodeIx;
use crate::model::groups::Groups;
use crate::rng::Rng;
use crate::sim::Trace;

use super::{by_priority, capacity, metropolis, Best, Decoder, Progress, SearchUnits};

/// Decodes without a new best before the search restarts from its best.
const RESTART: u64 = 150;
/// Share of the evaluations in the second phase, the one with branch moves.
const BRANCH_PHASE: f64 = 0.5;
/// Share of the branch move in the second phase; the others share the rest as before.
const BRANCH: f64 = 0.5;

/// How long and how hot a local search runs.
pub struct Limits<'c> {
    /// Schedules this run may simulate.
    pub evals: u64,
    /// Wall-clock cap in seconds on `clock`, 0 = none.
    pub seconds: f64,
    pub clock: &'c Clock,
    /// Initial temperature, a fraction of the start's makespan.
    pub t0: f64,
}

/// Why an op on the critical path started when it did.
#[derive(Clone, Copy)]
pub(crate) enum Reason {
    /// It waited for this op on its device.
    Device(NodeIx),
    /// It waited for this data predecessor.
    Data(NodeIx),
}

/// The critical path of a decoded schedule, last op first: each op with its binding reason.
pub(crate) fn critical_path(
    problem: &crate::model::problem::Problem,
    placement: &[DevIx],
    trace: &Trace,
) -> Vec<(NodeIx, Reason)> {
    let n = problem.node_count();
    let k = problem.device_count();
    let ops = &trace.ops;
    let mut on: Vec<Vec<NodeIx>> = vec![Vec::new(); k];
    for v in 0..n {
        on[placement[v] as usize].push(v as NodeIx);
    }
    let mut prev = vec![u32::MAX; n];
    for list in &mut on {
        list.sort_by(|&a, &b| {
            ops[a as usize]
                .0
                .total_cmp(&ops[b as usize].0)
                .then(a.cmp(&b))
        });
        for w in list.windows(2) {
            prev[w[1] as usize] = w[0];
        }
    }
    let Some(mut v) = (0..n as NodeIx).max_by(|&a, &b| {
        ops[a as usize]
            .1
            .total_cmp(&ops[b as usize].1)
            .then(b.cmp(&a))
    }) else {
        return Vec::new();
    };
    let mut path = Vec::new();
    for _ in 0..n {
        let mut best: Option<(f64, Reason)> = None;
        for p in problem.graph.predecessors(v) {
            let e = ops[p as usize].1;
            if best.is_none_or(|(b, _)| e > b) {
                best = Some((e, Reason::Data(p)));
            }
        }
        let w = prev[v as usize];
        if w != u32::MAX {
            let e = ops[w as usize].1;
            if best.is_none_or(|(b, _)| e > b) {
                best = Some((e, Reason::Device(w)));
            }
        }
        let Some((_, reason)) = best else { break };
        path.push((v, reason));
        v = match reason {
            Reason::Device(w) | Reason::Data(w) => w,
        };
    }
    path
}

/// Ops that hang off one consumer: one successor (counted once however many edges) and
/// every predecessor hanging too (parameter reads, constants and what they feed alone).
fn hangers(g: &crate::model::graph::Graph) -> Vec<bool> {
    let mut hang = vec![false; g.nodes.len()];
    for &v in g.topo_order() {
        let mut succ = g.successors(v);
        let one = match succ.next() {
            Some(s) => succ.all(|t| t == s),
            None => false,
        };
        hang[v as usize] = one && g.predecessors(v).all(|p| hang[p as usize]);
    }
    hang
}

/// The branch around `seed`: grown from it by the ops that feed only the branch (upwards,
/// up to a fork) and the ops fed only by the branch or by hanging ops (downwards, up to a
/// join), with the hanging ops of each, until its work reaches `cap`; only ops on `seed`'s
/// device. Running one of a cell's parallel branches beside the other is moving this set.
fn branch(
    problem: &crate::model::problem::Problem,
    hang: &[bool],
    place: &[DevIx],
    seed: NodeIx,
    cap: f64,
    mark: &mut [u32],
    epoch: u32,
) -> Vec<NodeIx> {
    let g = problem.graph;
    let mut set: Vec<NodeIx> = Vec::new();
    let mut work = 0.0;
    let add = |x: NodeIx, set: &mut Vec<NodeIx>, mark: &mut [u32], work: &mut f64| {
        let mut stack = vec![x];
        while let Some(y) = stack.pop() {
            if mark[y as usize] == epoch {
                continue;
            }
            mark[y as usize] = epoch;
            set.push(y);
            *work += problem.work[y as usize];
            stack.extend(g.predecessors(y).filter(|&p| hang[p as usize]));
        }
    };
    add(seed, &mut set, mark, &mut work);
    let mut i = 0;
    while i < set.len() && work < cap && set.len() < 400 {
        let x = set[i];
        i += 1;
        for p in g.predecessors(x) {
            if mark[p as usize] != epoch && g.successors(p).all(|s| mark[s as usize] == epoch) {
                add(p, &mut set, mark, &mut work);
            }
        }
        for s in g.successors(x) {
            if mark[s as usize] != epoch
                && g.predecessors(s)
                    .all(|q| mark[q as usize] == epoch || hang[q as usize])
            {
                add(s, &mut set, mark, &mut work);
            }
        }
    }
    let d = place[seed as usize];
    set.retain(|&v| place[v as usize] == d);
    set
}

/// Critical-path local search from `best` on the decoder's problem; improves `best` in
/// place. Draws from `rng`, reports through `progress` (from 5% to 95%).
pub fn local(
    units: &SearchUnits,
    best: &mut Best,
    dec: &mut Decoder,
    rng: &mut Rng,
    progress: &mut Progress,
    limits: &Limits,
) -> Result<()> {
    let problem = dec.problem();
    let g = problem.graph;
    let n = problem.node_count();
    let k = problem.device_count();
    if n == 0 || limits.evals == 0 {
        return Ok(());
    }
    let cap = capacity(problem);
    let groups = Groups::new(problem);
    let mut place = best.placement.clone();
    let mut prio = best.order.priority.clone();
    if prio.len() != n {
        return Ok(());
    }
    let load_of = |place: &[DevIx]| {
        let mut load = vec![0.0; k];
        for v in 0..n {
            load[place[v] as usize] += problem.footprint[v];
        }
        load
    };
    let (mut cur_val, mut trace) = dec.decode_traced(&place, &by_priority(prio.clone()));
    let Some(t) = trace.take() else {
        return Ok(());
    };
    let mut path = critical_path(problem, &place, &t);
    best.offer(&place, by_priority(prio.clone()), cur_val, dec);
    let m0 = cur_val.min(best.makespan);
    let (mut best_place, mut best_prio, mut best_val) = (place.clone(), prio.clone(), cur_val);
    let mut stale = 0u64;
    let start = dec.evals;
    let mut stamp = vec![0u32; n];
    let mut epoch = 0u32;
    let mut misses = 0u32;
    let hang = hangers(g);
    let mut switched = false;
    let total_work: f64 = problem.work.iter().sum();
    while dec.evals - start < limits.evals {
        let used = (dec.evals - start) as f64 / limits.evals as f64;
        // Second phase: from the best, half the moves branch moves.
        let phase2 = used >= 1.0 - BRANCH_PHASE;
        let bshare = if phase2 { BRANCH } else { 0.0 };
        if phase2 && !switched {
            switched = true;
            stale = 0;
            place = best_place.clone();
            prio = best_prio.clone();
            let (v, t) = dec.decode_traced(&place, &by_priority(prio.clone()));
            cur_val = v;
            if let Some(t) = t {
                path = critical_path(problem, &place, &t);
            }
        }
        if (dec.evals - start).is_multiple_of(16) {
            progress(0.05 + 0.9 * used)?;
            if limits.seconds > 0.0 && limits.clock.seconds() > limits.seconds {
                break;
            }
        }
        let (lo, hi) = prio
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &p| {
                (a.min(p), b.max(p))
            });
        let span = (hi - lo).max(1.0);
        let mut next_place = place.clone();
        let mut next_prio = prio.clone();
        let r = rng.unit();
        let pick = |rng: &mut Rng, want_device: bool| -> Option<(NodeIx, NodeIx)> {
            let c: Vec<(NodeIx, NodeIx)> = path
                .iter()
                .filter_map(|&(v, reason)| match reason {
                    Reason::Device(w) if want_device => Some((v, w)),
                    Reason::Data(p) if !want_device && place[p as usize] != place[v as usize] => {
                        Some((v, p))
                    }
                    _ => None,
                })
                .collect();
            (!c.is_empty()).then(|| c[rng.below(c.len() as u64) as usize])
        };
        // Moves `ms` to `d` when they may run there and it has the memory.
        let relocate = |next_place: &mut Vec<DevIx>, ms: &[NodeIx], d: DevIx| -> bool {
            if ms.iter().all(|&v| next_place[v as usize] == d)
                || !ms.iter().all(|&v| problem.allowed(v, d))
            {
                return false;
            }
            let mut load = load_of(next_place);
            for &v in ms {
                load[next_place[v as usize] as usize] -= problem.footprint[v as usize];
                load[d as usize] += problem.footprint[v as usize];
            }
            if (0..k).any(|e| exceeds(load[e], cap[e])) {
                return false;
            }
            for &v in ms {
                next_place[v as usize] = d;
            }
            true
        };
        let unit_of = |rng: &mut Rng, v: NodeIx| -> Vec<NodeIx> {
            if rng.below(2) == 0 {
                units.members[units.of[v as usize] as usize].clone()
            } else {
                groups.members[groups.of[v as usize] as usize].to_vec()
            }
        };
        // A branch to the device where it runs fastest (ties at random), but not its own.
        let other = |rng: &mut Rng, ms: &[NodeIx], from: DevIx| -> Option<DevIx> {
            let t: Vec<f64> = (0..k as DevIx)
                .map(|d| {
                    if d == from {
                        f64::INFINITY
                    } else {
                        ms.iter().map(|&v| problem.exec(v, d)).sum()
                    }
                })
                .collect();
            let lo = t.iter().copied().fold(f64::INFINITY, f64::min);
            let ds: Vec<DevIx> = (0..k as DevIx)
                .filter(|&d| t[d as usize].is_finite() && t[d as usize] <= 1.5 * lo)
                .collect();
            (!ds.is_empty()).then(|| ds[rng.below(ds.len() as u64) as usize])
        };
        let moved = if r < bshare {
            // Branch: one of two ops that ran one after the other on a device on the path,
            // its branch to another device, so that they run side by side.
            match pick(rng, true) {
                Some((v, w)) => {
                    let x = if rng.below(2) == 0 { v } else { w };
                    let cap = total_work * (0.002 + 0.05 * rng.unit());
                    epoch += 1;
                    let ms = branch(problem, &hang, &place, x, cap, &mut stamp, epoch);
                    match other(rng, &ms, place[x as usize]) {
                        Some(d) => {
                            // Whole colocation groups, those that may run on `d`.
                            let mut gs: Vec<u32> =
                                ms.iter().map(|&v| groups.of[v as usize]).collect();
                            gs.sort_unstable();
                            gs.dedup();
                            let ms: Vec<NodeIx> = gs
                                .into_iter()
                                .map(|u| &groups.members[u as usize])
                                .filter(|gm| gm.iter().all(|&v| problem.allowed(v, d)))
                                .flatten()
                                .copied()
                                .collect();
                            relocate(&mut next_place, &ms, d)
                        }
                        None => false,
                    }
                }
                None => false,
            }
        } else if r < bshare + 0.5 * (1.0 - bshare) {
            match pick(rng, true) {
                Some((v, w)) => {
                    let boost = r < bshare + 0.35 * (1.0 - bshare);
                    let delta = span * (0.001 + 0.2 * rng.unit());
                    let depth = 1 + rng.below(12) as usize;
                    epoch += 1;
                    let mut frontier = vec![if boost { v } else { w }];
                    for f in &frontier {
                        stamp[*f as usize] = epoch;
                    }
                    for _ in 0..=depth {
                        let mut next = Vec::new();
                        for &x in &frontier {
                            next_prio[x as usize] += if boost { delta } else { -delta };
                            let around: Vec<NodeIx> = if boost {
                                g.predecessors(x).collect()
                            } else {
                                g.successors(x).collect()
                            };
                            for y in around {
                                if stamp[y as usize] != epoch {
                                    stamp[y as usize] = epoch;
                                    next.push(y);
                                }
                            }
                        }
                        frontier = next;
                        if frontier.is_empty() {
                            break;
                        }
                    }
                    true
                }
                None => false,
            }
        } else if r < bshare + 0.8 * (1.0 - bshare) {
            match pick(rng, false) {
                Some((v, p)) => {
                    let (x, d) = if rng.below(2) == 0 {
                        (v, place[p as usize])
                    } else {
                        (p, place[v as usize])
                    };
                    let ms = unit_of(rng, x);
                    relocate(&mut next_place, &ms, d)
                }
                None => false,
            }
        } else {
            let v = rng.below(n as u64) as NodeIx;
            let ms = unit_of(rng, v);
            let d = rng.below(k as u64) as DevIx;
            relocate(&mut next_place, &ms, d)
        };
        if !moved {
            misses += 1;
            if misses > 10_000 {
                break;
            }
            continue;
        }
        misses = 0;
        let order = by_priority(next_prio.clone());
        let (val, t) = dec.decode_traced(&next_place, &order);
        let temperature = limits.t0 * m0 * (1.0 - used);
        // A branch move is kept only when it makes nothing worse.
        let accept = if r < bshare {
            val <= cur_val
        } else {
            metropolis(val, cur_val, temperature, rng)
        };
        best.offer(&next_place, order, val, dec);
        if val < best_val {
            best_val = val;
            best_place = next_place.clone();
            best_prio = next_prio.clone();
            stale = 0;
        } else {
            stale += 1;
        }
        if accept && val.is_finite() {
            if let Some(t) = t {
                path = critical_path(problem, &next_place, &t);
            }
            place = next_place;
            prio = next_prio;
            cur_val = val;
        }
        if stale >= RESTART {
            stale = 0;
            place = best_place.clone();
            prio = best_prio.clone();
            let (v, t) = dec.decode_traced(&place, &by_priority(prio.clone()));
            cur_val = v;
            if let Some(t) = t {
                path = critical_path(problem, &place, &t);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::problem::Problem;
    use crate::testutil::{cluster, graph};

    /// A fork `f` into two branches `a1 -> a2` and `b1 -> b2` joined by `j`, a parameter
    /// read `p` feeding `a2` alone.
    #[test]
    fn a_branch_stops_at_its_fork_and_join() {
        let g = graph(
            r#"{"nodes":[{"id":"f","cost":1},{"id":"a1","cost":1},{"id":"a2","cost":1},{"id":"b1","cost":1},{"id":"b2","cost":1},{"id":"j","cost":1},{"id":"p","cost":1}],
            "edges":[{"src":"f","dst":"a1","bytes":1},{"src":"a1","dst":"a2","bytes":1},{"src":"a2","dst":"j","bytes":1},{"src":"f","dst":"b1","bytes":1},{"src":"b1","dst":"b2","bytes":1},{"src":"b2","dst":"j","bytes":1},{"src":"p","dst":"a2","bytes":1}]}"#,
        );
        let c = cluster(
            r#"{"devices":[{"id":"g0","kind":"gpu","speed":1},{"id":"g1","kind":"gpu","speed":1}],"bandwidth":1}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        let id = |s: &str| g.nodes.iter().position(|x| x.id == s).unwrap() as NodeIx;
        let hang = hangers(&g);
        let hanging: Vec<&str> = ["f", "a1", "a2", "b1", "b2", "j", "p"]
            .into_iter()
            .filter(|s| hang[id(s) as usize])
            .collect();
        assert_eq!(hanging, ["p"]);
        let mut mark = vec![0u32; 7];
        let names = |set: Vec<NodeIx>| {
            let mut v: Vec<&str> = set
                .iter()
                .map(|&x| g.nodes[x as usize].id.as_str())
                .collect();
            v.sort();
            v
        };
        let all0 = vec![0 as DevIx; 7];
        let set = branch(&p, &hang, &all0, id("a1"), 100.0, &mut mark, 1);
        assert_eq!(names(set), ["a1", "a2", "p"]);
        // From a branch's last op: up to the fork (which feeds the other branch too), not
        // down through the join (fed by the other branch).
        let set = branch(&p, &hang, &all0, id("b2"), 100.0, &mut mark, 2);
        assert_eq!(names(set), ["b1", "b2"]);
        // The work cap stops it, and only ops on the seed's device are kept.
        let set = branch(&p, &hang, &all0, id("a1"), 0.5, &mut mark, 3);
        assert_eq!(names(set), ["a1"]);
        let mut split = all0.clone();
        split[id("a2") as usize] = 1;
        let set = branch(&p, &hang, &split, id("a1"), 100.0, &mut mark, 4);
        assert_eq!(names(set), ["a1", "p"]);
    }
}
