//! The loop over the index: each step asks the devices best first and commits the least
//! answer; m-SCT's steps where a device waits ask the index too, then visit the waiting
//! devices whose pairs are delayed ([`waiting_step`]).

use super::index::{better, Best, Index, WIDE};
use super::options::Options;
use super::state::State;
use crate::analysis::topo_position;
use crate::error::Result;
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::plan::Placement;

/// m-ETF with each device's ready ops in an index, and m-SCT (`favourite`) over the same
/// index: the same placements as `schedule_simple` (tests). With `check`
/// (tests), each device's answer is compared with every candidate filed there, their
/// estimates computed directly, and each m-SCT step where a device waits with the direct
/// step ([`State::direct_step`]).
pub(super) fn schedule_index(
    placer: &str,
    problem: &Problem,
    favourite: &[Option<NodeIx>],
    opts: Options,
    check: bool,
) -> Result<Placement> {
    let sct = favourite.iter().any(Option::is_some);
    let n = problem.node_count();
    let k = problem.device_count();
    let pos = topo_position(problem);
    let mut s = State::new(problem, opts);
    // The tests' checked run keeps every op's parts (the unchecked one, the default's).
    let mut ix = Index::new(&s, &pos, if check { 0 } else { WIDE }, sct);
    let enqueue = |s: &State, ix: &mut Index, v: NodeIx| {
        let p = pos[v as usize];
        ix.ready(s, v);
        for d in 0..k as DevIx {
            if !s.allowed(v, d) {
                continue;
            }
            if s.fits(v, d) {
                ix.file(s, v, d, p);
            } else if !s.opts.static_memory {
                ix.block(s, v, d, p);
            }
        }
    };
    // m-SCT's ready ops (and where each is in the list), for the checked run's direct steps.
    let listed = sct && check;
    let mut ready: Vec<NodeIx> = Vec::new();
    let mut at = vec![0u32; if listed { n } else { 0 }];
    for v in 0..n as NodeIx {
        if s.pending[v as usize] == 0 {
            enqueue(&s, &mut ix, v);
            if listed {
                at[v as usize] = ready.len() as u32;
                ready.push(v);
            }
        }
    }
    let mut available: Vec<f64> = (0..k as DevIx).map(|d| s.available(d)).collect();
    // Per device, a lower bound of its start (`Index::lower`, then raised by its answers).
    let mut lowers: Vec<(f64, DevIx)> = Vec::with_capacity(k);
    // The steps where a device waits: the devices whose pairs are delayed, and scratch.
    let mut delayed: Vec<(f64, DevIx)> = Vec::new();
    let mut scratch = Waiting::new(k);
    for _ in 0..n {
        // Some device waits for a favourite child (m-SCT): see `waiting_step`.
        let waiting = sct && s.waits_for.iter().any(Option::is_some);
        let mut chosen = ask_devices(&s, &mut ix, &pos, waiting, check, &mut lowers, &mut delayed);
        if waiting {
            #[cfg(test)]
            count(Count::Steps);
            chosen = waiting_step(&s, &mut ix, &pos, chosen, &mut delayed, &mut scratch);
            if check {
                let direct = s
                    .direct_step(&ready, &pos)
                    .map(|(t, p, d, i)| (t, p, d, ready[i]));
                assert_eq!(direct, chosen, "waiting step");
                for &v in &ready {
                    let (seen, urgent) = (ix.seen_urgent(&s, v), s.urgent(v));
                    assert!(seen <= urgent, "op {v}: urgent time seen {seen} > {urgent}");
                }
            }
        }
        let Some((t, _, d, v)) = chosen else {
            let ready =
                (0..n as NodeIx).filter(|&v| s.pending[v as usize] == 0 && !s.done[v as usize]);
            return Err(s.stuck(placer, ready, &pos));
        };
        let unit = s.units.of[v as usize];
        let first = s.unit_device[unit as usize].is_none();
        let new = s.commit(v, d, t);
        for e in 0..k as DevIx {
            ix.unfile(v, e);
        }
        if listed {
            let i = at[v as usize] as usize;
            ready.swap_remove(i);
            if let Some(&moved) = ready.get(i) {
                at[moved as usize] = i as u32;
            }
            for &w in &new {
                at[w as usize] = ready.len() as u32;
                ready.push(w);
            }
        }
        if sct {
            s.update_waits(favourite);
        }
        file_after_commit(&s, &mut ix, &pos, (unit, d, first), sct, &mut available);
        for w in new {
            enqueue(&s, &mut ix, w);
        }
    }
    Ok(s.placement)
}

/// After `(unit, d, first)`'s op is committed on `d` (`first`: its unit was placed by it),
/// what changed in the index: its tensors' other consumers re-filed on `d` (an arrival
/// lowers their estimates there), the unit's other ready members filed on `d` alone (and
/// for m-SCT, `sct`, pinned there: [`Index::placed`]), and the ops memory shut out filed
/// again on the devices where memory was freed (`available`: each device's free memory
/// after the last step).
fn file_after_commit(
    s: &State,
    ix: &mut Index,
    pos: &[u32],
    (unit, d, first): (u32, DevIx, bool),
    sct: bool,
    available: &mut [f64],
) {
    let k = s.problem.device_count();
    // Tensors now on `d`: their other ready consumers' estimates there fall (the
    // transfer leaves the channel terms for the arrival time): file them anew.
    for &tensor in &s.sent {
        ix.arrived(tensor, d);
        let t = tensor as usize;
        for i in ix.consumer_start[t]..ix.consumer_start[t + 1] {
            let w = ix.consumers[i as usize];
            if ix.is_filed(w, d) {
                ix.file(s, w, d, pos[w as usize]);
            }
        }
    }
    if first {
        for &m in &s.units.members[unit as usize] {
            if s.pending[m as usize] == 0 && !s.done[m as usize] {
                // The unit's other ready members may only use `d` now.
                for e in (0..k as DevIx).filter(|&e| e != d) {
                    ix.unfile(m, e);
                }
                if !s.opts.static_memory {
                    // They need less memory on `d` now.
                    let p = pos[m as usize];
                    if s.fits(m, d) {
                        ix.file(s, m, d, p);
                    } else {
                        ix.block(s, m, d, p);
                    }
                }
            }
        }
        if sct {
            // Their devices are `d` alone now: they leave their SCT classes.
            for &m in &s.units.members[unit as usize] {
                ix.placed(s, m, d);
            }
        }
    }
    if !s.opts.static_memory {
        // Memory freed: ops it shut out may fit again.
        for e in 0..k as DevIx {
            let now = s.available(e);
            let freed = now > available[e as usize];
            available[e as usize] = now;
            if !freed {
                continue;
            }
            while let Some(top) = ix.blocked[e as usize].peek() {
                let (bytes, p, m) = (-top.key, top.tie, top.data);
                if bytes > now {
                    break;
                }
                ix.blocked[e as usize].pop();
                if !s.done[m as usize] && s.allowed(m, e) {
                    ix.file(s, m, e, p);
                }
            }
        }
    }
}

/// One step's answers from the devices, m-ETF's step: each device's best (start,
/// position), then the least over the devices: an answer is `(start, position, device)`,
/// least first. Best first: the device whose lower bound is least is asked, bounded by the
/// next device's bound and the best answer so far; one that only finds candidates later
/// than that reports its new bound and waits. Once the least bound is later than the best
/// answer, no device can beat it. So a device re-checks only candidates filed no later
/// than the answer (the tests, `check`, ask every device, unbounded). With `waiting`
/// (m-SCT), a device waiting for another op's favourite child whose best starts no sooner
/// than that child is ready goes to `delayed` instead ([`waiting_step`]). `lowers` and
/// `delayed` are scratch.
fn ask_devices(
    s: &State,
    ix: &mut Index,
    pos: &[u32],
    waiting: bool,
    check: bool,
    lowers: &mut Vec<(f64, DevIx)>,
    delayed: &mut Vec<(f64, DevIx)>,
) -> Option<(f64, u32, DevIx, NodeIx)> {
    let k = s.problem.device_count();
    lowers.clear();
    delayed.clear();
    let mut chosen: Option<(f64, u32, DevIx, NodeIx)> = None;
    lowers.extend((0..k as DevIx).map(|d| (ix.lower(s, d), d)));
    while !lowers.is_empty() {
        let mut i = 0;
        for j in 1..lowers.len() {
            let (a, b) = (lowers[j], lowers[i]);
            if a.0 < b.0 || (a.0 == b.0 && a.1 < b.1) {
                i = j;
            }
        }
        let (lower, d) = lowers[i];
        if !check && chosen.is_some_and(|(bt, ..)| lower > bt) {
            break;
        }
        let next = lowers
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, l)| l.0)
            .fold(f64::INFINITY, f64::min);
        let bound = match chosen {
            _ if check => f64::INFINITY,
            Some((bt, ..)) => bt.min(next),
            None => next,
        };
        let (t, v) = match ix.device_best(s, d, bound) {
            Best::Found(t, v) => (t, v),
            Best::Empty => {
                if check {
                    assert_eq!(None, ix.direct_best(s, d, pos), "device {d}");
                }
                lowers.swap_remove(i);
                continue;
            }
            Best::After(low) => {
                lowers[i].0 = low;
                continue;
            }
        };
        lowers.swap_remove(i);
        if check {
            assert_eq!(Some((t, v)), ix.direct_best(s, d, pos), "device {d}");
        }
        if waiting {
            if let Some((f, ready)) = s.waits_for[d as usize] {
                if f != v && ready <= t {
                    // Every pair here but the favourite's is delayed.
                    delayed.push((t, d));
                    continue;
                }
            }
        }
        let p = pos[v as usize];
        if chosen.is_none_or(|(bt, bp, bd, _)| (t, p, d) < (bt, bp, bd)) {
            chosen = Some((t, p, d, v));
        }
    }
    chosen
}

/// m-SCT's step where some device waits: the direct step's answer ([`State::direct_step`])
/// from the index. `chosen` is the least answer of the devices asked (best first, as in
/// m-ETF's step) other than `delayed`: the waiting devices whose best candidate (own start
/// `least`) is not the favourite child and starts no sooner than it is ready.
///
/// A pair's start `t` is its own start, or on a device waiting for another op's favourite
/// child ready at `r`, when the own start is `r` or later, the later of that and the op's
/// urgent time: never earlier than the own start. The step's start is the least `t` over
/// all pairs and its op the least position among the pairs reaching it (an op's best is its
/// least `t`); so a device whose best own start is not delayed answers what the index
/// answers (its pairs there start no later than the others), and a device whose least bound
/// is later than the answer cannot beat it. On a delayed device every pair but the
/// favourite child's (its own start, computed directly) is delayed, and `(v, d)` is no
/// better than `(v, e)` where `e` is the SCT device `v`'s urgent time comes from: `(v, e)`
/// starts at the urgent time, delayed or not.
///
/// So the delayed devices are visited nearest first, each answering its candidates in the
/// order of their own start, then position (the index's answer, [`Index::device_best`], each
/// candidate taken out while the step lasts and filed anew after it), only while that pair
/// `(own start, position)` beats the best `(t, position)` so far: a pair's `t` is never
/// earlier than its own start, so the ones after cannot beat it. Only candidates on one of
/// their SCT devices, or with no SCT device that may take them (urgent time `-inf`), have
/// their urgent time computed, unless its floor ([`State::urgent_floor`]) is already later
/// than the best, or one of their SCT devices that may take them is not delayed
/// ([`State::sct_open`]): the step asked that device `e` (or passed it over as starting
/// nothing by the best), and its answer is no later than `(own start on e, position)`,
/// which is no later than `(urgent time, position)`, the pair's on `d`. A candidate
/// visited thus either becomes the best or is delayed to a later time (or passed over):
/// the visits are the candidates that beat the step's answer on their own start, and not
/// every one that may start by it. A visit that meets a candidate
/// passed over by its floor, or takes out more than [`VISITS`], walks the device instead
/// ([`walk_within`]: every candidate that may start by the best, at `O(k)` each before its
/// own start is computed), which is cheaper where many candidates are delayed (devices
/// alike, one of them busy). Before either, a delayed device is passed over whole when
/// every candidate there is in an SCT class that cannot beat the best, by either rule, or
/// whose least urgent pair is read instead ([`Index::by_class`], `O(classes x k)` plus
/// `O(log V)` per class read, once per step): a class none of whose devices is open has
/// every device delayed, so each member starts at its urgent time on any of them, and
/// [`Urgents`] keeps the least (issue 24j); the ops whose colocation group is placed (their
/// one device is the group's, where they start at their own start) are filed apart and
/// answer as m-ETF's device does ([`Index::by_class`], session 15). On devices alike that
/// covers every candidate but the ops whose transfers are not alike.
///
/// [`Urgents`]: super::urgents::Urgents
///
/// The op found is then asked for its best directly, for its device (ranked by `(t, own
/// start, device)`, not by position).
pub(super) fn waiting_step(
    s: &State,
    ix: &mut Index,
    pos: &[u32],
    chosen: Option<(f64, u32, DevIx, NodeIx)>,
    delayed: &mut [(f64, DevIx)],
    w: &mut Waiting,
) -> Option<(f64, u32, DevIx, NodeIx)> {
    let Waiting {
        taken,
        open,
        walk: scratch,
        steps,
    } = w;
    for &(_, d) in delayed.iter() {
        open[d as usize] = false;
    }
    *steps += 1;
    let step = *steps;
    // The least (t, position) so far, and its op.
    let mut best = chosen.map(|(t, p, _, v)| (t, p, v));
    for &(_, d) in delayed.iter() {
        if let Some((f, _)) = s.waits_for[d as usize] {
            if let Some(own) = s.start(f, d) {
                let p = pos[f as usize];
                if better(best, own, p) {
                    best = Some((own, p, f));
                }
            }
        }
    }
    delayed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    for &(least, d) in delayed.iter() {
        if best.is_some_and(|(bt, ..)| least > bt) {
            break;
        }
        let Some((f, _)) = s.waits_for[d as usize] else {
            continue;
        };
        let (all, read) = ix.by_class(s, d, f, open, step, &mut best);
        #[cfg(test)]
        if read {
            count(Count::Urgents);
        } else if all {
            count(Count::AllWait);
        }
        #[cfg(not(test))]
        let _ = read;
        if all {
            // None beats the best (each is passed over by its floor or an open device,
            // visited or walked), or its class's least urgent pair is read.
            continue;
        }
        #[cfg(test)]
        count(Count::Devices);
        taken.clear();
        let mut walk = false;
        loop {
            let bound = best.map_or(f64::INFINITY, |(bt, ..)| bt);
            // The next candidate by (own start, position); those after it start no sooner.
            let Best::Found(own, v) = ix.device_best(s, d, bound) else {
                break;
            };
            let p = pos[v as usize];
            if !better(best, own, p) {
                break;
            }
            if taken.len() > VISITS {
                walk = true;
                break;
            }
            ix.unfile(v, d);
            taken.push(v);
            if v == f {
                // Its own start, counted above.
                continue;
            }
            if open_elsewhere(s, v, open) {
                continue;
            }
            let floor = urgent_floor(s, ix, v, bound);
            if floor > bound {
                walk = true;
                break;
            }
            if floor > f64::NEG_INFINITY && !s.sct_device(v, d) {
                // No better than on the SCT device its urgent time comes from.
                #[cfg(test)]
                count(Count::Elsewhere);
                continue;
            }
            #[cfg(test)]
            count(Count::Urgent);
            let t = own.max(ix.urgent(s, v, bound));
            if better(best, t, p) {
                best = Some((t, p, v));
            }
        }
        #[cfg(test)]
        for _ in 0..taken.len() {
            count(Count::Visits);
        }
        for &v in taken.iter() {
            ix.file(s, v, d, pos[v as usize]);
        }
        if walk {
            #[cfg(test)]
            count(Count::Walks);
            walk_within(s, ix, d, f, open, &mut best, scratch);
        }
    }
    let rule = open_rule();
    for &(_, d) in delayed.iter() {
        open[d as usize] = rule;
    }
    let (_, p, v) = best?;
    let (t, d) = s.best(v)?;
    Some((t, p, d, v))
}

/// Whether `v` has an SCT device that is not delayed and may take it ([`State::sct_open`]):
/// then it is no better on a delayed device than the step's answer.
fn open_elsewhere(s: &State, v: NodeIx, open: &[bool]) -> bool {
    let elsewhere = s.sct_open(v, open);
    #[cfg(test)]
    if elsewhere {
        count(Count::Open);
    }
    elsewhere
}

/// A lower bound of ready op `v`'s urgent time: the later of [`State::urgent_floor`]
/// (`-inf` exactly when no SCT device may take `v`) and the one last computed, while it
/// still holds ([`Index::seen_urgent`]): on devices alike, most candidates a waiting step
/// meets had their urgent time computed in an earlier step, and it has not fallen.
/// When the one seen is later than `bound` (the best start so far), it is returned alone.
fn urgent_floor(s: &State, ix: &Index, v: NodeIx, bound: f64) -> f64 {
    let seen = ix.seen_urgent(s, v);
    if seen > bound {
        // Later than the best: the `O(k)` floor is not needed.
        #[cfg(test)]
        if s.urgent_floor(v) <= bound {
            count(Count::Seen);
        }
        return seen;
    }
    s.urgent_floor(v).max(seen)
}

/// A walk's scratch ([`walk_within`]): the trees' stack and the candidates found.
type Scratch = (Vec<u32>, Vec<u32>);

/// [`waiting_step`]'s scratch.
pub(super) struct Waiting {
    /// The candidates a visit took out of a delayed device's trees.
    taken: Vec<NodeIx>,
    /// Per device, whether it is not delayed (true between steps).
    open: Vec<bool>,
    walk: Scratch,
    /// Waiting steps so far (a step reads each class's [`Urgents`] once).
    ///
    /// [`Urgents`]: super::urgents::Urgents
    steps: u64,
}

impl Waiting {
    pub(super) fn new(k: usize) -> Waiting {
        Waiting {
            taken: Vec::new(),
            open: vec![open_rule(); k],
            walk: (Vec::new(), Vec::new()),
            steps: 0,
        }
    }
}

/// Whether a waiting step passes candidates over by a device that is not delayed
/// ([`State::sct_open`]): always, but for tests that run the steps without it, so the
/// visits and walks it spares are still checked.
fn open_rule() -> bool {
    #[cfg(test)]
    return OPEN_RULE.with(std::cell::Cell::get);
    #[cfg(not(test))]
    true
}

#[cfg(test)]
thread_local! {
    /// Per test thread: see [`open_rule`].
    pub(super) static OPEN_RULE: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// How many candidates a delayed device's visit takes out before it walks the device
/// instead ([`walk_within`]), as it does at the first candidate passed over by its urgent
/// floor.
const VISITS: usize = 8;

/// The best `(t, position, op)` over delayed device `d`'s candidates (waiting for `f`) and
/// `best`, by a walk over every candidate whose tree value is at most the best start
/// ([`Index::within`]), each passed over first by its urgent floor (`O(k)`), then by its
/// SCT devices, then by its own start. Where most candidates that beat the best on their
/// own start have an urgent floor later than it (devices alike, one of them busy past the
/// answer), this costs `O(k)` per candidate against a visit's re-filing; it is exact either
/// way. Those whose own start it computes are filed anew under the term that leads now (the
/// candidates were found before, so the walk sees the same ones), so a later walk does not
/// meet them below their start again.
fn walk_within(
    s: &State,
    ix: &mut Index,
    d: DevIx,
    f: NodeIx,
    open: &[bool],
    best: &mut Option<(f64, u32, NodeIx)>,
    (stack, found): &mut Scratch,
) {
    let base = s.free[d as usize].max(s.now);
    found.clear();
    ix.within(
        s,
        d,
        best.map_or(f64::INFINITY, |(bt, ..)| bt),
        stack,
        found,
    );
    for &p in found.iter() {
        let v = ix.op_at(p);
        if v == f || s.done[v as usize] || !s.allowed(v, d) || !s.fits(v, d) {
            continue;
        }
        if open_elsewhere(s, v, open) {
            continue;
        }
        let bound = best.map_or(f64::INFINITY, |(bt, ..)| bt);
        let floor = urgent_floor(s, ix, v, bound);
        if floor > bound {
            continue;
        }
        if floor > f64::NEG_INFINITY && !s.sct_device(v, d) {
            #[cfg(test)]
            count(Count::Elsewhere);
            continue;
        }
        let (term, key, ready) = ix.classify(s, v, d);
        if ix.filed_as(v, d) != Some((term, key)) {
            ix.refile(v, d, p, term, key);
        }
        let own = ready.max(base);
        if !better(*best, own, p) {
            continue;
        }
        #[cfg(test)]
        count(Count::Urgent);
        let t = own.max(ix.urgent(s, v, bound));
        if better(*best, t, p) {
            *best = Some((t, p, v));
        }
    }
}

/// What the waiting steps did (tests): steps, delayed devices visited, urgent times computed
/// there, candidates passed over as no better than on an SCT device, candidates taken out
/// of a delayed device's trees, walks, seen urgent times that passed a candidate over,
/// devices passed over whole, candidates passed over by an SCT device that is not delayed;
/// and what the bundles did (any step): candidates that joined a bundle with members, and
/// bundles of two or more re-filed under another term; then delayed devices passed over
/// whole whose pinned ops answered ([`Index::by_class`](super::index::Index::by_class)).
#[cfg(test)]
#[derive(Clone, Copy)]
pub(super) enum Count {
    Steps,
    Devices,
    Urgent,
    Elsewhere,
    Visits,
    Walks,
    Seen,
    AllWait,
    Open,
    Urgents,
    Joined,
    Turned,
    Pinned,
}

/// How many kinds of [`Count`].
#[cfg(test)]
pub(super) const COUNT_KINDS: usize = 13;

#[cfg(test)]
thread_local! {
    /// Per test thread, indexed by [`Count`].
    pub(super) static COUNTS: std::cell::Cell<[usize; COUNT_KINDS]> = const { std::cell::Cell::new([0; COUNT_KINDS]) };
}

#[cfg(test)]
pub(super) fn count(what: Count) {
    COUNTS.with(|c| {
        let mut a = c.get();
        a[what as usize] += 1;
        c.set(a);
    });
}
