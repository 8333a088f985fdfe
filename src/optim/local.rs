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
enum Reason {
    /// It waited for this op on its device.
    Device(NodeIx),
    /// It waited for this data predecessor.
    Data(NodeIx),
}

/// The critical path of a decoded schedule, last op first: each op with its binding reason.
fn critical_path(
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
    while dec.evals - start < limits.evals {
        let used = (dec.evals - start) as f64 / limits.evals as f64;
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
                groups.members[groups.of[v as usize] as usize].clone()
            }
        };
        let moved = if r < 0.5 {
            match pick(rng, true) {
                Some((v, w)) => {
                    let boost = r < 0.35;
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
        } else if r < 0.8 {
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
        let accept = metropolis(val, cur_val, temperature, rng);
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
