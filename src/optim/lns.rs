//! Large-neighbourhood search with the constraint model (issue 21; not in Pesto21, whose
//! ILP solves the whole coarse graph at once): from the best plan, a window of the decoded
//! schedule is freed and re-solved exactly, everything else fixed, and the result decoded
//! on the full graph by the pair itself (`decoder`).
//!
//! - Window: the `tasks` ops that started nearest in time to an op of the critical path
//!   (read off the decoded trace as `local` reads it), a contiguous stretch of the schedule.
//! - Sub-problem (`cp::CpInstance` with `WindowTimes`): the window's ops are the tasks;
//!   a colocation group wholly inside the window is one unit free among the devices where
//!   it runs within 1.5x its fastest, any other op stays on its device; the ops outside keep
//!   their devices and their memory (a unit pinned to each device, of no task). Each task's
//!   release per device is when its inputs from outside the window arrive there (their
//!   producers' ends in the trace plus the link's transfer time) and when the ops that
//!   started before the window free that device; its tail per device is the longest of
//!   (transfer to an outside consumer + the time from that consumer's start to the
//!   makespan). The model minimises the largest end plus tail, from the incumbent's
//!   makespan down, within `steps` solver steps (deterministic).
//! - Back to a plan: the window's ops take the sub-schedule's devices and, in the order of
//!   its starts, the window's own priorities (the set of values kept, so the ops outside
//!   keep their order relative to the window). Decoded on the full graph; kept when no
//!   worse than the current plan (the sub-problem is a relaxation: links carry only the
//!   window's sends, durations are rounded to the model's scale), offered to `best`
//!   when better.
//!
//! What it is not: a proof (the window's optimum bounds nothing) or where the search
//! starts (the placer's warm starts and local search).

use crate::clock::Clock;
use crate::error::Result;
use crate::model::cluster::{exceeds, DevIx};
use crate::model::graph::NodeIx;
use crate::model::groups::Groups;
use crate::rng::Rng;
use crate::sim::Trace;

use super::cp::{self, CpInstance, WindowTimes};
use super::local::critical_path;
use super::{by_priority, capacity, Best, Decoder, Progress};
use crate::analysis::topo_position;
use crate::plan::Order;

/// A unit may move to devices where it runs within this factor of its fastest.
const FAST: f64 = 1.5;

/// How much a large-neighbourhood search does.
pub struct Limits<'c> {
    /// Windows re-solved (one schedule simulated each).
    pub windows: u64,
    /// Ops per window.
    pub tasks: usize,
    /// Solver steps per window.
    pub steps: u64,
    /// Wall-clock cap in seconds on `clock`, 0 = none.
    pub seconds: f64,
    pub clock: &'c Clock,
}

/// The window around time `at`: the `size` ops whose start is nearest to it (ties by
/// index), ascending.
pub fn window(trace: &Trace, at: f64, size: usize) -> Vec<NodeIx> {
    let ops = &trace.ops;
    let mut idx: Vec<NodeIx> = (0..ops.len() as NodeIx).collect();
    let key = |v: NodeIx| (ops[v as usize].0 - at).abs();
    if size < idx.len() {
        idx.select_nth_unstable_by(size, |&a, &b| key(a).total_cmp(&key(b)).then(a.cmp(&b)));
        idx.truncate(size);
    }
    idx.sort_unstable();
    idx
}

/// The sub-problem of `win` in the schedule `trace` of `place` (makespan `makespan`): the
/// constraint model's instance, and each of its units' ops.
fn sub_instance(
    dec: &Decoder,
    groups: &Groups,
    place: &[DevIx],
    trace: &Trace,
    makespan: f64,
    win: &[NodeIx],
) -> (CpInstance, Vec<Vec<NodeIx>>) {
    let problem = dec.problem();
    let g = problem.graph;
    let c = problem.cluster;
    let n = problem.node_count();
    let k = problem.device_count();
    let ops = &trace.ops;
    let mut task = vec![u32::MAX; n];
    for (i, &v) in win.iter().enumerate() {
        task[v as usize] = i as u32;
    }
    // Units: a colocation group wholly in the window is free, any other op pinned.
    let mut unit = vec![0u32; win.len()];
    let mut members: Vec<Vec<NodeIx>> = Vec::new();
    let mut allowed: Vec<Vec<DevIx>> = Vec::new();
    let mut group_unit = vec![u32::MAX; groups.len()];
    for (i, &v) in win.iter().enumerate() {
        let gr = groups.of[v as usize] as usize;
        let ms = &groups.members[gr];
        let whole = ms.iter().all(|&w| task[w as usize] != u32::MAX);
        if whole && group_unit[gr] != u32::MAX {
            unit[i] = group_unit[gr];
            continue;
        }
        let here = place[v as usize];
        let ds: Vec<DevIx> = if whole {
            let time = |d: DevIx| -> f64 { ms.iter().map(|&w| problem.exec(w, d)).sum() };
            let lo = (0..k as DevIx)
                .filter(|&d| ms.iter().all(|&w| problem.allowed(w, d)))
                .map(time)
                .fold(f64::INFINITY, f64::min);
            (0..k as DevIx)
                .filter(|&d| {
                    d == here || (ms.iter().all(|&w| problem.allowed(w, d)) && time(d) <= FAST * lo)
                })
                .collect()
        } else {
            vec![here]
        };
        let u = members.len() as u32;
        if whole {
            group_unit[gr] = u;
            members.push(ms.to_vec());
        } else {
            members.push(vec![v]);
        }
        allowed.push(ds);
        unit[i] = u;
    }
    let mut footprint: Vec<f64> = members
        .iter()
        .map(|ms| ms.iter().map(|&w| problem.footprint[w as usize]).sum())
        .collect();
    // The memory of the ops that stay: one unit of no task pinned to each device.
    let mut fixed = vec![0.0; k];
    let mut moving = vec![false; n];
    for (u, ms) in members.iter().enumerate() {
        if allowed[u].len() > 1 {
            for &w in ms {
                moving[w as usize] = true;
            }
        }
    }
    for v in 0..n {
        if !moving[v] {
            fixed[place[v] as usize] += problem.footprint[v];
        }
    }
    for (u, ms) in members.iter().enumerate() {
        if allowed[u].len() == 1 {
            // Counted in `fixed` already.
            footprint[u] = 0.0;
            let _ = ms;
        }
    }
    for (d, &f) in fixed.iter().enumerate() {
        allowed.push(vec![d as DevIx]);
        footprint.push(f);
    }
    // Devices freed by the ops before the window: those outside it that started first.
    let first = win
        .iter()
        .map(|&v| ops[v as usize].0)
        .fold(f64::INFINITY, f64::min);
    let mut free = vec![0.0f64; k];
    for v in 0..n {
        if task[v] == u32::MAX && ops[v].0 <= first {
            let d = place[v] as usize;
            free[d] = free[d].max(ops[v].1);
        }
    }
    let exec: Vec<Vec<f64>> = win
        .iter()
        .map(|&v| (0..k as DevIx).map(|d| problem.exec(v, d)).collect())
        .collect();
    let mut release: Vec<Vec<f64>> = Vec::with_capacity(win.len());
    let mut tail: Vec<Vec<f64>> = Vec::with_capacity(win.len());
    for &v in win {
        let mut r = free.clone();
        for &e in g.in_edges(v) {
            let edge = &g.edges[e as usize];
            let p = edge.src;
            if task[p as usize] != u32::MAX {
                continue;
            }
            let bytes = problem.tensor_bytes[edge.tensor as usize];
            for (d, rd) in r.iter_mut().enumerate() {
                let at = ops[p as usize].1 + c.transfer_time(place[p as usize], d as DevIx, bytes);
                *rd = rd.max(at);
            }
        }
        let mut t = vec![0.0f64; k];
        for &e in g.out_edges(v) {
            let edge = &g.edges[e as usize];
            let w = edge.dst;
            if task[w as usize] != u32::MAX {
                continue;
            }
            let bytes = problem.tensor_bytes[edge.tensor as usize];
            let rest = makespan - ops[w as usize].0;
            for (d, td) in t.iter_mut().enumerate() {
                let at = c.transfer_time(d as DevIx, place[w as usize], bytes) + rest;
                *td = td.max(at);
            }
        }
        release.push(r);
        tail.push(t);
    }
    // Messages inside the window: a tensor of a window op read by window ops.
    let mut messages = Vec::new();
    for &v in win {
        for &t in g.out_tensors(v) {
            let mut cs: Vec<u32> = g.tensors[t as usize]
                .edges
                .iter()
                .map(|&e| task[g.edges[e as usize].dst as usize])
                .filter(|&i| i != u32::MAX)
                .collect();
            cs.sort_unstable();
            cs.dedup();
            if !cs.is_empty() {
                messages.push((task[v as usize], cs, problem.tensor_bytes[t as usize]));
            }
        }
    }
    let inst = CpInstance {
        exec,
        unit,
        footprint,
        allowed,
        messages,
        fcfs: dec.pair.links() == crate::model::LinkModel::Fcfs,
        // The `fifo` link order's rule among the window's sends, as the decoder sends.
        fifo: dec.pair.links() == crate::model::LinkModel::Fcfs
            && dec.pair.link_order_name() == "fifo",
        // The ops outside tell identical devices apart.
        class: (0..k).collect(),
        window: Some(WindowTimes { release, tail }),
    };
    (inst, members)
}

/// Large-neighbourhood search from `best` on the decoder's problem; improves `best` in
/// place. Draws from `rng`; reports through `progress` only to honour a cancel.
pub fn lns(
    best: &mut Best,
    dec: &mut Decoder,
    rng: &mut Rng,
    progress: &mut Progress,
    limits: &Limits,
) -> Result<()> {
    let problem = dec.problem();
    let n = problem.node_count();
    let k = problem.device_count();
    if n == 0 || limits.windows == 0 || limits.tasks == 0 {
        return Ok(());
    }
    let groups = Groups::new(problem);
    let cap = capacity(problem);
    let mut place = best.placement.clone();
    let mut prio = best.order.priority.clone();
    if prio.len() != n {
        return Ok(());
    }
    let (mut cur_val, trace) = dec.decode_traced(&place, &by_priority(prio.clone()));
    let Some(mut trace) = trace else {
        return Ok(());
    };
    best.offer(&place, by_priority(prio.clone()), cur_val, dec);
    let mut path = critical_path(problem, &place, &trace);
    let pos = topo_position(problem);
    for _ in 0..limits.windows {
        progress(0.5)?;
        if limits.seconds > 0.0 && limits.clock.seconds() > limits.seconds {
            break;
        }
        if path.is_empty() {
            break;
        }
        let (c, _) = path[rng.below(path.len() as u64) as usize];
        let win = window(&trace, trace.ops[c as usize].0, limits.tasks);
        let (inst, members) = sub_instance(dec, &groups, &place, &trace, cur_val, &win);
        let hint: Vec<DevIx> = win.iter().map(|&v| place[v as usize]).collect();
        let budget = cp::Budget {
            limit: limits.steps,
            seconds: limits.seconds,
            clock: limits.clock,
        };
        let out = cp::solve(problem, &inst, cur_val, &hint, &budget, &mut |_| {
            progress(0.5)
        })?;
        dec.steps += out.steps;
        let Some(s) = out.best else { continue };
        let mut next_place = place.clone();
        for (u, ms) in members.iter().enumerate() {
            for &w in ms {
                next_place[w as usize] = s.device[u];
            }
        }
        let mut load = vec![0.0; k];
        for v in 0..n {
            load[next_place[v] as usize] += problem.footprint[v];
        }
        if (0..k).any(|d| exceeds(load[d], cap[d])) {
            continue;
        }
        // The window's priorities, highest first, to its ops in the order they start.
        let mut values: Vec<f64> = win.iter().map(|&v| prio[v as usize]).collect();
        values.sort_by(|a, b| b.total_cmp(a));
        let mut by_start: Vec<usize> = (0..win.len()).collect();
        by_start.sort_by(|&a, &b| {
            s.start[a]
                .total_cmp(&s.start[b])
                .then(prio[win[b] as usize].total_cmp(&prio[win[a] as usize]))
                .then(a.cmp(&b))
        });
        let mut next_prio = prio.clone();
        for (i, &a) in by_start.iter().enumerate() {
            next_prio[win[a] as usize] = values[i];
        }
        if next_place == place && next_prio == prio {
            continue;
        }
        // Two replays of the result: the window's priorities reassigned (work-conserving),
        // and strictly, every device's ops in the order of the merged schedule (the trace's
        // starts outside the window, the sub-schedule's inside).
        let mut start: Vec<f64> = trace.ops.iter().map(|o| o.0).collect();
        for (i, &v) in win.iter().enumerate() {
            start[v as usize] = s.start[i];
        }
        let finish: Vec<f64> = (0..n)
            .map(|v| start[v] + problem.exec(v as NodeIx, next_place[v]))
            .collect();
        let strict = Order::of_schedule(problem, &next_place, &start, &finish, &pos);
        let mut found: Option<(f64, Order, Trace)> = None;
        for order in [by_priority(next_prio.clone()), strict] {
            let (val, t) = dec.decode_traced(&next_place, &order);
            best.offer(&next_place, order.clone(), val, dec);
            if let Some(t) = t {
                if val <= cur_val && found.as_ref().is_none_or(|f| val < f.0) {
                    found = Some((val, order, t));
                }
            }
        }
        if let Some((val, order, t)) = found {
            path = critical_path(problem, &next_place, &t);
            trace = t;
            place = next_place;
            prio = order.priority;
            cur_val = val;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::problem::Problem;
    use crate::model::LinkModel;
    use crate::pair::Pair;
    use crate::plan::verify;

    /// Runs the search from `start` (by priority) with `windows` windows of `tasks` ops.
    fn run(p: &Problem, start: &[DevIx], windows: u64, tasks: usize, seed: u64) -> (Best, f64) {
        let clock = Clock::start();
        let mut dec = Decoder::new(p, Pair::default().with_links(LinkModel::Fcfs), 1);
        let prio: Vec<f64> = topo_position(p).iter().map(|&x| -(x as f64)).collect();
        let order = by_priority(prio);
        let m0 = dec.decode(start, &order);
        let mut best = Best {
            placement: start.to_vec(),
            order,
            makespan: m0,
        };
        let limits = Limits {
            windows,
            tasks,
            steps: 2000,
            seconds: 0.0,
            clock: &clock,
        };
        let mut rng = Rng::new(seed);
        lns(&mut best, &mut dec, &mut rng, &mut |_| Ok(()), &limits).unwrap();
        assert_eq!(dec.decode(&best.placement, &best.order), best.makespan);
        (best, m0)
    }

    /// The window is the ops that started nearest to the time asked, whatever their device.
    #[test]
    fn a_window_is_the_ops_that_started_nearest() {
        let (g, c) = crate::model::synthetic::gpu_instance(30, 2, 3).unwrap();
        let p = Problem::new(&g, &c).unwrap();
        let mut dec = Decoder::new(&p, Pair::default(), 1);
        let place: Vec<DevIx> = (0..30).map(|v| (v % 2) as DevIx).collect();
        let prio: Vec<f64> = topo_position(&p).iter().map(|&x| -(x as f64)).collect();
        let (_, t) = dec.decode_traced(&place, &by_priority(prio));
        let t = t.unwrap();
        let at = t.ops[17].0;
        let win = window(&t, at, 8);
        assert_eq!(win.len(), 8);
        assert!(win.contains(&17));
        let far = win
            .iter()
            .map(|&v| (t.ops[v as usize].0 - at).abs())
            .fold(0.0, f64::max);
        let outside = (0..30).filter(|v| !win.contains(v));
        for v in outside {
            assert!((t.ops[v as usize].0 - at).abs() >= far, "op {v}");
        }
        assert_eq!(window(&t, at, 100).len(), 30);
    }

    /// From every op on one of three GPUs, windows re-solved spread the work: strictly
    /// better than the start, and the same plan for the same seed. With each GPU holding
    /// 45% of the footprint, from a round-robin start that fits: never worse, still fits.
    #[test]
    fn windows_improve_a_serial_start_within_memory_and_deterministically() {
        for seed in 0..3u64 {
            let (g, c) = crate::model::synthetic::gpu_instance(40, 3, seed).unwrap();
            let p = Problem::new(&g, &c).unwrap();
            let start = vec![0 as DevIx; 40];
            let (best, m0) = run(&p, &start, 12, 12, seed);
            assert!(best.makespan < m0, "seed {seed}: {} vs {m0}", best.makespan);
            verify(&p, &best.placement).unwrap();
            let (again, _) = run(&p, &start, 12, 12, seed);
            assert_eq!(again.placement, best.placement);
            assert_eq!(again.order.priority, best.order.priority);
            assert_eq!(again.makespan.to_bits(), best.makespan.to_bits());
            // Memory: a capacity the plan must keep.
            let mut c2 = c.clone();
            let total: f64 = p.footprint.iter().sum();
            for d in &mut c2.devices {
                d.memory = 0.45 * total;
            }
            let p2 = Problem::new(&g, &c2).unwrap();
            let fits: Vec<DevIx> = (0..40).map(|v| (v % 3) as DevIx).collect();
            verify(&p2, &fits).unwrap();
            let (b2, m2) = run(&p2, &fits, 12, 12, seed);
            assert!(b2.makespan <= m2);
            verify(&p2, &b2.placement).unwrap();
        }
    }
}
