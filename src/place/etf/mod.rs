//! Earliest-start list scheduling over (ready op, device) pairs: the loop Baechi's m-ETF and
//! m-SCT share (Jeon et al., SoCC'20, as Pesto21 §5.2 compares against them; `m_etf.rs` and
//! `m_sct.rs` hold each strategy's reading and choices). Baechi's code is the specification
//! (github.com/beomyeol/baechi, `placer/`): `m_etf.py` (`ETF`, `ETFDevice`), `m_sct.py`
//! (`SCTDevice`), `device.py` (`DeviceWrapper`) and `placer_utils.py` (`ReadyOpManager`).
//!
//! At each step, among every (ready op, device) pair, the op that can start earliest goes to
//! the device where it starts earliest. Ties go to the op earlier in topological order
//! (Baechi's `TimestampOpTuple` compares `(ts, topo_order)`), then to the lower device index
//! (`ETF._get_next_op_metadata` keeps the first device on equal tuples). An op's start on `d`
//! is `max(now, d free, data ready on d)`: `now` is the start chosen last (Baechi's
//! `current_ts`, to which `ETFDevice.advance` moves every idle device's clock). A colocation
//! group is placed whole, with its first member, and its other members may only use that
//! device (Baechi with `colocation`: `place_op` on every op of the group).
//!
//! **Transfers** ([`Options::channel`]). With Baechi's channel model (the default), each
//! device has one channel, shared by everything it sends and receives
//! (`DeviceWrapper.channel_available_ts`). Data ready on `d` is the latest over the op's
//! producers `u` (its in-edges from one producer are one transfer, as Baechi's graph merges
//! them into one edge) of: `u`'s finish when `u` is on `d`; else, for the tensors already on
//! `d` (sent there for another consumer: `DeviceWrapper.get_cached_tensor`), when they
//! arrived, and for the others, sent together (`_estimate_tensor_transfer_end_ts`, dry run):
//! `max(max(u's finish, u's device's channel), d's channel) + w`, `w` the sum of their
//! transfer times (`latency + bytes / bandwidth` of the pair). Estimates do not occupy the
//! channels; placing the op sends its tensors one by one, in its in-edges' order, each
//! occupying the sender's channel from `max(u's finish, its channel)` and then the
//! receiver's from `max(that, its channel)` (`send_tensor`, `recv_tensor`), so the op starts
//! at `max(d free, last arrival)`, which may be later than its estimate. Without the
//! channel model, data ready is the latest producer finish plus its edge's transfer time,
//! every edge alone and without contention (placesim's reading before; the same placements).
//!
//! **Memory** ([`Options::static_memory`]). Baechi's rule (the default): a device has room
//! for an op when the op's memory, its `mem` (Baechi's persistent memory) plus its output
//! tensors (Baechi's `output_memory`), fits in what is free now (`ETFDevice.is_placeable`);
//! running it allocates that (`run_op`), and once every consumer of a producer has run, the
//! producer's outputs are freed, its `mem` stays (`deallocate_predecessor_memory`). A
//! colocation group not yet placed also needs the sum of its members' `mem` free
//! (`_is_placeable_group` without reserved memory). The static rule (the parameter): a unit
//! fits while the static footprints of everything placed on the device plus its own stay
//! within capacity (`Loads`, the rule every other placer follows). A placement Baechi's
//! rule accepts is still checked by the scenario against its static `footprint` rule
//! (`plan::verify`), and reported out of memory when that rule rejects it.
//!
//! The devices are Baechi's: the accelerators (`Accelerators`: the GPUs, or every device when
//! there is none); an op no GPU may run uses the devices it may run on. Pesto21 §5.2 says
//! m-SCT takes into account "finite number of GPUs", and Baechi's driver (`train.py`) gives
//! its placers the GPUs only; so on Pesto21's machine (a CPU and two V100s) the slow CPU,
//! where an op often starts earliest and runs 40 times longer, takes only the CPU's ops.
//!
//! m-SCT's favourite children ([`schedule`]'s `favourite`) add one rule, Baechi's AWAKE
//! state: a device whose last op `u` has a favourite child `f` that is not placed, whose
//! producers are all placed, and that starts on this device no later than on any other of
//! `f`'s SCT devices, waits for `f` from the time `f`'s producers have all finished: another
//! op `w` that could start there at or after that time starts there no sooner than its
//! urgent time, the latest of its starts over its SCT devices (Baechi's `urgent_ts` in
//! `placer_utils.py`, used by `SCTDevice` in `m_sct.py`, by
//! which every such device could have started it). Baechi ranks a waiting device's offer of
//! an urgent op by the device's own (earlier) schedule time, so among equal starts the device
//! whose own start is earlier wins, then the lower index. Without favourites the ranking is
//! plain m-ETF's.
//!
//! An op's SCT devices are those of its devices on which it runs fastest. Baechi (and SCT,
//! Hanen and Munier's rule for identical processors) compares every device, all alike; on
//! identical devices the two are the same. Where devices differ in speed, the latest start
//! over all of them waits for the slowest and busiest device, where the op would not run
//! anyway: on 20 random graphs with one device 50 times slower than three others, that
//! reading made m-SCT 1.50 times m-ETF's makespan (geometric mean), and this one 0.98. The
//! cost: on Mayer17's random speeds, where no two devices are alike, each op has one SCT
//! device and m-SCT waits less (0.963 of m-ETF before, 0.995 after; `docs/pesto.md`).
//!
//! Cost. Without favourites (m-ETF), each (ready op, device) pair is filed in an index
//! ([`Index`](index::Index)). With the channel model, an estimate is the largest of a fixed part and, per
//! device `s` the op receives from, `max(channel[s], channel[d]) + w_s` (exact: rounding is
//! monotone, so `max(a, b) + w` is `max(a + w, b + w)`); each pair sits in the tree of its
//! largest term, keyed by the part that does not move (`w_s`, or the fixed part), so a
//! channel that moves re-keys nothing: the tree reads its channel when asked. A tree's value
//! is a lower bound of its pairs' estimates, exact while their term stays the largest; a
//! device's best is the least position among pairs whose bound is at most the device's free
//! time (they all start then), else the least bound and the least position reaching it
//! (ties after rounding included), checked, and re-filed under its new largest term when
//! another has overtaken it (one receiving from several devices whose channels leapfrog).
//! Pairs of a device led by a channel term, with the same two or more source devices and
//! the same transfer times (`bundles.rs`), share one entry, under their least position: their channel part is
//! the same at every instant, so when another sender's channel overtakes, the entry is
//! re-filed once, not each pair (side-by-side copies of a graph: the copies' ops that wait
//! on the same transfers).
//! A tensor that arrives on `d` lowers its other consumers' estimates there: they are filed
//! anew. Each step asks the devices best first (by a lower bound of their start: free time,
//! `now`, their trees' least value), each only until its candidates left start later than
//! the next device's bound or the best answer so far, so a stale pair is re-checked only
//! when its bound is no later than the step's answer. An op with many producers keeps its
//! estimate's parts per device (fixed part, largest transfer per source device) until one
//! of its tensors arrives there, so re-checking it costs `k`, not its in-degree. So
//! `O((V + E) * k * log V)` plus one re-file per overtaking of an entry (a device's pairs
//! that memory shuts out wait, by size, until memory is freed there): on NASNet copies
//! those grow with the ops (issue 24e), but an input whose pairs all have distinct
//! transfer times from several devices whose channels take turns could still need one per
//! pair and turn. With favourites (m-SCT),
//! a step where no device waits is m-ETF's (`best` is then the least own start, ties to the
//! lower device). In a step where some device waits, a pair's start is its own start or, on
//! a device waiting for another op's favourite child and no sooner than that child is
//! ready, the later of its own start and its urgent time: never earlier than its own start.
//! So the devices are asked best first as in m-ETF's step; a device whose best own start is
//! not delayed answers as in m-ETF (its other pairs start no sooner), and a waiting device
//! whose best is delayed (every pair there is, but the favourite child's, computed
//! directly) is set aside. Those are then visited nearest first, each answering its
//! candidates in the order of their own start, then position (its index answer, each
//! candidate taken out while the step lasts and filed back after it), only while one beats
//! the best `(start, position)` so far on its own start (a pair's start is never earlier).
//! A pair `(v, d)` there is no better than `(v, e)`, `e` the SCT device `v`'s urgent time
//! comes from (it starts at the urgent time, delayed or not, where `e`'s answer or visit
//! finds it), so only candidates on one of their SCT devices (or with none free to take
//! them) have their urgent time computed, and only when its floor (the latest of free time
//! and `now` over the SCT devices, `O(k)`), nor the urgent time computed in an earlier step
//! (`Index::seen_urgent`, `O(1)`: a lower bound while the SCT device it came from may take
//! the op, since a ready op's start there never falls), is later than the best. An urgent
//! time is read from that SCT device first and stops at the first start later than the
//! best (still a start there, so still a lower bound to remember). A delayed device whose
//! every candidate has a floor later than the best is passed over whole (`classes.rs`: ops
//! whose unit is not placed share a floor with every op of the same SCT devices, once one of
//! them is busy past the best with room for the most any of them needs), and so is one
//! whose every candidate has an SCT device that is not delayed (the step asked it, and its
//! answer is no later than the candidate's own start there, itself no later than its
//! urgent time). Where every device of a class is delayed, each member starts at its
//! urgent time on any of them, and the class's least urgent time is read from
//! `urgents.rs` (`max(floor, P, C + W)` per member with links alike, `C` the class's
//! latest channel, kept in two trees as `C` grows; issue 24j). A visit thus either
//! becomes the best or is delayed past it (or passed over); once one is passed over by its
//! floor, or more than 8 are taken out, the device is walked instead (every candidate
//! whose tree value is at most the best, floor first; those it classifies are filed anew
//! under the term that leads now: cheaper where most are delayed). The op found has its best
//! device computed directly (`O(k * in-degree)`). So a waiting step costs m-ETF's step
//! plus, per delayed device visited, `O(log V)` and a re-check per candidate that beats the
//! best on its own start, plus `O(k * in-degree)` per urgent time computed: not a proven
//! `O((V + E) * k * log V)` (many ready ops on a delayed device, each with an own start
//! before the answer but a later urgent time, are each visited, in every such step). On
//! NASNet copies over generated devices (fifo, 8 devices) the visits are one per 35 ops and
//! m-SCT takes what m-ETF takes: 2.0 s of CPU on 40 copies (196k ops) against m-ETF's 1.9
//! s, where visiting every candidate that may start by the answer took 6.3 s. On identical
//! devices that worst case is met: ten copies took 4.6 s (m-ETF 0.2 s), 8.5 million urgent
//! times computed (`docs/bench.md`, issue 24y); 2.6 s with the urgent times seen before,
//! 1.4 s with the devices passed over whole (issue 24c; 50 identical devices: 96 s -> 1.6 s,
//! m-ETF 1.1 s; twenty copies on 8: 6.5 s, m-ETF 0.8 s, still super-linear); since issue
//! 24j 0.30 / 0.71 / 1.53 s at ten / twenty / forty copies on 8 identical devices (m-ETF
//! 0.26 / 0.59 / 1.20): every walk that was left is in a step where every device is
//! delayed, and those read the classes' urgent times instead. Ops of placed colocation
//! groups (pinned: their one device is the group's, so they start at their own start) are
//! filed in a second half of their device's trees and answered apart (session 15; they
//! were walked before): transformer2 training copies x8 / x16 / x32 on 8 identical devices
//! 0.25-0.29 / 0.60-0.67 / 1.52 s (was 0.48-0.50 / 2.09-2.66 s at x8 / x16; m-ETF 0.21 /
//! 0.51 / 1.28). The
//! direct step (`State::direct_step`: every ready op's best, `O(ready * k * in-degree)`)
//! remains the tests' reference: the checked run compares every waiting step with it. The
//! tests check the index against that direct loop on random graphs,
//! placement for placement, and every device's answer against its filed pairs' estimates.
//!
//! Files: `options.rs` (what the loop is asked), `state.rs` (the loop's state, an op's
//! start on a device, the commit, the direct step), `treaps.rs` (the index's trees),
//! `index.rs` (the index: filing, classifying, a device's answer), `bundles.rs` (pairs of
//! the same sources and transfer times, one entry of the index), `classes.rs` (m-SCT's
//! candidates counted by SCT class), `urgents.rs` (m-SCT: each class's least urgent time),
//! `indexed.rs` (the loop over the index); `legacy.rs` and `tests.rs` are the tests'.

mod bundles;
mod classes;
mod index;
mod indexed;
#[cfg(test)]
mod legacy;
mod options;
mod state;
#[cfg(test)]
mod tests;
mod treaps;
mod urgents;

use indexed::schedule_index;
pub(crate) use options::{Options, CHANNEL, STATIC_MEMORY};
#[cfg(test)]
use state::State;

#[cfg(test)]
use crate::analysis::topo_position;
use crate::error::Result;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::plan::Placement;

/// Places every op by earliest start first; `favourite[u]` is `u`'s favourite child
/// (m-SCT), all `None` for plain m-ETF. `placer` names the strategy in errors.
pub(crate) fn schedule(
    placer: &str,
    problem: &Problem,
    favourite: &[Option<NodeIx>],
    opts: Options,
) -> Result<Placement> {
    schedule_index(placer, problem, favourite, opts, false)
}

/// The direct loop: every step computes the best start of every ready op (the tests'
/// reference for m-ETF and m-SCT; [`schedule_index`] takes this step only where a device
/// waits).
#[cfg(test)]
pub(crate) fn schedule_simple(
    placer: &str,
    problem: &Problem,
    favourite: &[Option<NodeIx>],
    opts: Options,
) -> Result<Placement> {
    let n = problem.node_count();
    let pos = topo_position(problem);
    let mut s = State::new(problem, opts);
    let sct = favourite.iter().any(Option::is_some);
    let mut ready: Vec<NodeIx> = (0..n as NodeIx)
        .filter(|&v| s.pending[v as usize] == 0)
        .collect();
    while !ready.is_empty() {
        // Earliest start, then topological position, then device.
        let Some((t, _, d, i)) = s.direct_step(&ready, &pos) else {
            return Err(s.stuck(placer, ready.iter().copied(), &pos));
        };
        let v = ready.swap_remove(i);
        ready.extend(s.commit(v, d, t));
        if sct {
            s.update_waits(favourite);
        }
    }
    Ok(s.placement)
}
