//! m-ETF's index of ready ops ([`Index`]): per device, a tree per term of the estimate, a
//! candidate filed under its largest term (alone, or with those of the same sources in a
//! bundle, [`Bundles`]), and what a device answers when asked ([`Index::device_best`]).

use std::collections::BinaryHeap;

use super::bundles::Bundles;
use super::classes::Classes;
use super::state::State;
use super::treaps::{Treaps, NIL};
use super::urgents::{Answer, Urgents};
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::util::MaxEntry;

/// Ops with more producers than this keep their estimate's parts per device ([`Index`]).
pub(super) const WIDE: usize = 16;

/// A device's answer ([`Index::device_best`]).
#[derive(Debug, PartialEq)]
pub(super) enum Best {
    /// Its best candidate and start.
    Found(f64, NodeIx),
    /// No candidate filed.
    Empty,
    /// Every candidate starts at this time or later, after the bound asked.
    After(f64),
}

/// An estimate in parts ([`summarise`]): the fixed part, and each source device with the
/// largest transfer time it sends, in the order of the op's producers.
type Parts = (f64, Vec<(DevIx, f64)>);

/// m-ETF's index of ready ops: per device, a tree per term of the estimate (see
/// [`Index::classify`]), each candidate in the tree of the term that was the largest when
/// it was filed, keyed by the part of that term that does not move. A channel that moves
/// re-keys nothing: the tree of channel `c` reads `channel[c] + key` when asked. Candidates
/// with two or more source devices, led by a channel term, share their bundle's entry
/// ([`Bundles`]), filed under the least position of its members: one re-file when another
/// channel overtakes.
pub(super) struct Index {
    k: usize,
    trees: Treaps,
    /// The node of each (op, device) candidate filed alone (`v * k + d`), `NIL` when not
    /// filed or in a bundle ([`Index::is_filed`]).
    node: Vec<u32>,
    /// Ops memory shuts out now per device (Baechi's rule), by the memory they need, then
    /// position (lazy: an entry is checked when memory is freed).
    pub(super) blocked: Vec<BinaryHeap<MaxEntry<f64, u32, NodeIx>>>,
    /// Each tensor's consumers (CSR over `consumer_start`): whose estimate falls when it
    /// arrives on a device.
    pub(super) consumer_start: Vec<u32>,
    pub(super) consumers: Vec<NodeIx>,
    /// Per source device, the largest transfer time from it (scratch of `summarise`).
    from_w: Vec<f64>,
    /// Scratch: a candidate's source devices and their largest transfer times.
    from_seen: Vec<(DevIx, f64)>,
    /// Each op with more than [`WIDE`] producers (in the tests' checked run, every op): its
    /// row in `sums` (else `NIL`).
    wide_of: Vec<u32>,
    /// Per row and device, such an op's estimate in parts (`summarise`), kept until one of
    /// its tensors arrives there: a candidate re-checked often costs `k`, not its in-degree.
    sums: Vec<Option<Parts>>,
    /// The op at each topological position.
    order: Vec<NodeIx>,
    /// Scratch: a device's non-empty trees.
    live: Vec<usize>,
    /// m-SCT: per op, the urgent time last computed and the SCT device it came from
    /// ([`Index::urgent`]; `NO_DEVICE`: none), a lower bound of its urgent time while that
    /// device may take it ([`Index::seen_urgent`]).
    urgent_seen: Vec<(f64, DevIx)>,
    /// m-SCT: the candidates filed on each device by SCT class.
    classes: Option<Classes>,
    /// m-SCT: each class's least urgent time.
    urgents: Option<Urgents>,
    /// Each op's topological position.
    pos: Vec<u32>,
    /// Candidates led by the same channel terms, one tree entry each ([`Bundles`]).
    bundles: Bundles,
    /// Scratch: a candidate's sources, by device ([`Index::refile`]).
    sig: Vec<(DevIx, u64)>,
    /// The candidate [`Index::classify`] left its sources for (with the channel model).
    classified: (NodeIx, DevIx),
    /// Trees per device: `k + 1` (a tree per term), twice that for m-SCT, whose ops of a
    /// placed unit (`pinned`) are filed in the second half ([`Index::pinned_best`]).
    group: usize,
    /// m-SCT: the ops whose unit is placed ([`Index::placed`]): on a delayed device such an
    /// op starts at its own start, so a waiting step asks them apart from the others.
    pinned: Vec<bool>,
}

/// Whether a pair starting at `t`, its op at position `p`, beats `best` (the least `(t,
/// position)` so far, and its op).
pub(super) fn better(best: Option<(f64, u32, NodeIx)>, t: f64, p: u32) -> bool {
    best.is_none_or(|(bt, bp, _)| t < bt || (t == bt && p < bp))
}

/// No device (`Index::urgent_seen`).
const NO_DEVICE: DevIx = DevIx::MAX;

impl Index {
    /// `wide`: ops with more producers than this keep their estimate's parts; `sct`: count
    /// the candidates by SCT class ([`Index::by_class`]).
    pub(super) fn new(s: &State, pos: &[u32], wide: usize, sct: bool) -> Index {
        let k = s.problem.device_count();
        let n = s.problem.node_count();
        let tensors = s.problem.graph.tensors.len();
        let mut order = vec![0; n];
        for (v, &p) in pos.iter().enumerate() {
            order[p as usize] = v as NodeIx;
        }
        let mut consumer_start = vec![0u32; tensors + 1];
        for fs in &s.feeds {
            for f in fs {
                for &t in &f.tensors {
                    consumer_start[t as usize + 1] += 1;
                }
            }
        }
        for t in 0..tensors {
            consumer_start[t + 1] += consumer_start[t];
        }
        let mut fill = consumer_start.clone();
        let mut consumers = vec![0; consumer_start[tensors] as usize];
        for (v, fs) in s.feeds.iter().enumerate() {
            for f in fs {
                for &t in &f.tensors {
                    consumers[fill[t as usize] as usize] = v as NodeIx;
                    fill[t as usize] += 1;
                }
            }
        }
        let (wide_from, mut rows) = (wide, 0);
        let wide_of: Vec<u32> = s
            .feeds
            .iter()
            .map(|fs| {
                if fs.len() > wide_from {
                    rows += 1;
                    rows - 1
                } else {
                    NIL
                }
            })
            .collect();
        let classes = sct.then(|| Classes::new(s));
        let group = if sct { 2 * (k + 1) } else { k + 1 };
        let urgents = classes.as_ref().map(|c| Urgents::new(n, c.len()));
        Index {
            k,
            wide_of,
            sums: vec![None; rows as usize * k],
            trees: Treaps::new(k, group),
            live: Vec::new(),
            node: vec![NIL; n * k],
            blocked: (0..k).map(|_| BinaryHeap::new()).collect(),
            consumer_start,
            consumers,
            from_w: vec![-1.0; k],
            from_seen: Vec::new(),
            order,
            urgent_seen: vec![(f64::NEG_INFINITY, NO_DEVICE); n],
            urgents,
            classes,
            pos: pos.to_vec(),
            bundles: Bundles::new(n, k),
            sig: Vec::new(),
            classified: (NodeIx::MAX, NO_DEVICE),
            group,
            pinned: vec![false; if sct { n } else { 0 }],
        }
    }

    /// The term that bounds `v`'s estimate on `d` now, the part of it that does not move,
    /// and the estimate (`State::data_ready`'s value). The estimate is the largest of: the
    /// fixed part (producers on `d`, tensors already there, and `u`'s finish plus `w` for
    /// each producer `u` that sends, `w` its transfers' time); per source device `c`,
    /// `channel[c]` plus the largest `w` it sends; `channel[d]` plus the largest `w` of
    /// all. Rounding is monotone, so `max(a, b) + w` is `max(a + w, b + w)` exactly and the
    /// split loses nothing. Terms: `0..k` a channel, `k` the fixed part.
    pub(super) fn classify(&mut self, s: &State, v: NodeIx, d: DevIx) -> (usize, f64, f64) {
        let k = self.k;
        if !s.opts.channel {
            let ready = s.data_ready(v, d);
            return (k, ready, ready);
        }
        let wide = self.wide_of[v as usize];
        let (fixed, from) = if wide == NIL {
            let fixed = summarise(s, v, d, &mut self.from_w, &mut self.from_seen);
            (fixed, &self.from_seen)
        } else {
            let slot = wide as usize * k + d as usize;
            if self.sums[slot].is_none() {
                let mut from = Vec::new();
                let fixed = summarise(s, v, d, &mut self.from_w, &mut from);
                self.sums[slot] = Some((fixed, from));
            }
            let (fixed, from) = self.sums[slot].as_ref().expect("just computed");
            (*fixed, from)
        };
        let mut best = (k, fixed, fixed);
        let own = s.channel[d as usize];
        for &(c, w) in from {
            let at = s.channel[c as usize].max(own) + w;
            // Ties: the fixed part, then the lower device, so a bundle's members (the
            // same sources, in any producer order) name the same term.
            if at > best.2 || (at == best.2 && best.0 != k && (c as usize) < best.0) {
                best = (c as usize, w, at);
            }
        }
        self.classified = (v, d);
        best
    }

    /// Forgets the summaries of `tensor`'s consumers on `d` (it has arrived there).
    pub(super) fn arrived(&mut self, tensor: u32, d: DevIx) {
        let t = tensor as usize;
        for i in self.consumer_start[t]..self.consumer_start[t + 1] {
            let v = self.consumers[i as usize];
            let wide = self.wide_of[v as usize];
            if wide != NIL {
                self.sums[wide as usize * self.k + d as usize] = None;
            }
            if let (Some(classes), Some(urgents)) = (&self.classes, &mut self.urgents) {
                urgents.arrived(classes, v, d);
            }
        }
    }

    /// Ready op `v`'s urgent time ([`State::urgent`]), or a lower bound of it later than
    /// `bound` ([`State::urgent_past`], from the SCT device seen last), remembered with the
    /// SCT device it came from. Either is a start on that device, so either stays a lower
    /// bound ([`Index::seen_urgent`]); the one seen last was later than the best then, and
    /// is often still.
    pub(super) fn urgent(&mut self, s: &State, v: NodeIx, bound: f64) -> f64 {
        let e = self.urgent_seen[v as usize].1;
        let (t, at) = s.urgent_past(v, (e != NO_DEVICE).then_some(e), bound);
        self.urgent_seen[v as usize] = (t, at.unwrap_or(NO_DEVICE));
        t
    }

    /// A lower bound of `v`'s urgent time in `O(1)` (`-inf` when none is known): the one
    /// last computed, while the SCT device `e` it came from may still take `v`. Then `e`
    /// is among the devices the urgent time is the latest start over, and `v`'s start on
    /// `e` has not fallen since: a start is the latest of `e`'s free time, the clock and the
    /// data-ready time, the first two only grow, and so does the data-ready time while `v`
    /// is ready (its producers are placed; with channels, a tensor of `v`'s arriving on `e`
    /// arrives when the estimate said, and what is left of the feed goes out after it on
    /// channels that only grow; without, the estimate reads no arrival). The checked run
    /// asserts the bound at every waiting step.
    pub(super) fn seen_urgent(&self, s: &State, v: NodeIx) -> f64 {
        let (t, e) = self.urgent_seen[v as usize];
        if e != NO_DEVICE && s.allowed(v, e) && s.fits(v, e) {
            t
        } else {
            f64::NEG_INFINITY
        }
    }

    /// What [`Index::device_best`] answers, from every usable candidate filed on `d` and
    /// its estimate (tests).
    pub(super) fn direct_best(&self, s: &State, d: DevIx, pos: &[u32]) -> Option<(f64, NodeIx)> {
        let base = s.free[d as usize].max(s.now);
        (0..s.problem.node_count() as NodeIx)
            .filter(|&v| self.is_filed(v, d))
            .filter(|&v| !s.done[v as usize] && s.allowed(v, d) && s.fits(v, d))
            .map(|v| (s.data_ready(v, d).max(base), pos[v as usize], v))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
            .map(|(t, _, v)| (t, v))
    }

    /// Files `v` on `d` anew (its term and key now); one filed under them already stays.
    pub(super) fn file(&mut self, s: &State, v: NodeIx, d: DevIx, p: u32) {
        let (term, key, _) = self.classify(s, v, d);
        self.refile(v, d, p, term, key);
    }

    /// Whether `v` is filed on `d` (alone or in a bundle).
    pub(super) fn is_filed(&self, v: NodeIx, d: DevIx) -> bool {
        let slot = v as usize * self.k + d as usize;
        self.node[slot] != NIL || self.bundles.of[slot] != NIL
    }

    /// The term and key `v`'s entry on `d` is filed under (its bundle's, in one).
    pub(super) fn filed_as(&self, v: NodeIx, d: DevIx) -> Option<(usize, f64)> {
        let slot = v as usize * self.k + d as usize;
        let id = match self.bundles.of[slot] {
            NIL => self.node[slot],
            b => self.bundles.node(b),
        };
        (id != NIL).then(|| {
            let (tree, key) = self.trees.filed(id);
            (
                term_of(self.k, tree as usize - d as usize * self.group),
                key,
            )
        })
    }

    /// Files `v` (at position `p`) on `d` under `term` and `key`, what [`Index::classify`]
    /// of `(v, d)` returned last (its sources are read from what it left): alone in the
    /// fixed part's tree, or in the bundle of its sources ([`Bundles`]), the bundle's entry
    /// re-filed under the term. One filed there already stays.
    pub(super) fn refile(&mut self, v: NodeIx, d: DevIx, p: u32, term: usize, key: f64) {
        let k = self.k;
        let slot = v as usize * k + d as usize;
        let half = self.half(v);
        let tree = (d as usize * self.group + half + term) as u32;
        if term == k || self.sources(v, d).len() == 1 {
            // Alone: led by its fixed part, or by its one source (whose term no other
            // overtakes; the fixed part it passed stays behind).
            let id = self.node[slot];
            if id != NIL && self.trees.filed(id) == (tree, key) {
                return;
            }
            self.unfile(v, d);
            self.node[slot] = self.trees.insert(tree, key, p);
            self.count(v, d, true);
            return;
        }
        let mut sig = std::mem::take(&mut self.sig);
        sig.clear();
        sig.extend(self.sources(v, d).iter().map(|&(c, w)| (c, w.to_bits())));
        sig.sort_unstable();
        // Pinned ops and the others never share a bundle: their entries are in different
        // trees.
        let b = self
            .bundles
            .find(d + u32::from(half > 0) * k as DevIx, &sig);
        self.sig = sig;
        if self.bundles.of[slot] != b {
            self.unfile(v, d);
            #[cfg(test)]
            if self.bundles.first(b).is_some() {
                super::indexed::count(super::indexed::Count::Joined);
            }
            self.bundles.join(b, slot, p);
            self.count(v, d, true);
        }
        self.place_bundle(b, tree, key);
    }

    /// `v`'s sources on `d` and their transfer times, as [`Index::classify`] of `(v, d)` left
    /// them (with the channel model).
    fn sources(&self, v: NodeIx, d: DevIx) -> &[(DevIx, f64)] {
        debug_assert_eq!(
            self.classified,
            (v, d),
            "sources read after classifying another"
        );
        match self.wide_of[v as usize] {
            NIL => &self.from_seen,
            wide => {
                let parts = &self.sums[wide as usize * self.k + d as usize];
                &parts.as_ref().expect("classified").1
            }
        }
    }

    /// Files bundle `b`'s entry in `tree` under `key` and its least member's position,
    /// unless it is there.
    fn place_bundle(&mut self, b: u32, tree: u32, key: f64) {
        let first = self.bundles.first(b).expect("a member");
        let id = self.bundles.node(b);
        if id != NIL {
            if self.trees.filed(id) == (tree, key) && self.trees.pos(id) == first {
                return;
            }
            self.trees.remove(id);
        }
        let id = self.trees.insert(tree, key, first);
        self.bundles.set_node(b, id);
    }

    pub(super) fn unfile(&mut self, v: NodeIx, d: DevIx) {
        let slot = v as usize * self.k + d as usize;
        let id = self.node[slot];
        if id != NIL {
            self.trees.remove(id);
            self.node[slot] = NIL;
        } else if self.bundles.of[slot] != NIL {
            let b = self.bundles.leave(slot, self.pos[v as usize]);
            let id = self.bundles.node(b);
            if self.bundles.first(b).is_none() {
                self.trees.remove(id);
                self.bundles.set_node(b, NIL);
                self.bundles.drop_empty(b);
            } else {
                // Under its least member now.
                let (tree, key) = self.trees.filed(id);
                self.place_bundle(b, tree, key);
            }
        } else {
            return;
        }
        self.count(v, d, false);
    }

    /// m-SCT: counts `v` in its class on `d` as filed there or leaving it (pinned ops are
    /// in no class).
    fn count(&mut self, v: NodeIx, d: DevIx, filed: bool) {
        if let Some(c) = &mut self.classes {
            if !self.pinned[v as usize] {
                c.count(v, d, filed);
            }
        }
    }

    /// The first tree of `v`'s half of a device's trees: `k + 1` for a pinned op, else 0.
    fn half(&self, v: NodeIx) -> usize {
        if self.pinned.get(v as usize) == Some(&true) {
            self.k + 1
        } else {
            0
        }
    }

    /// m-SCT, in waiting step `step`: whether no candidate filed on delayed device `d` but
    /// `f` beats `best` there, by its class: the class passes ([`Classes::passes`], with
    /// `best` as the bound), or its least urgent pair ([`Urgents::answer`]; every device of
    /// a class that does not pass is delayed, so each member starts at its urgent time on
    /// any of them) is folded into `best`. Ops in no class are never passed this way; the
    /// pinned ops (in no class either, counted apart) are then asked as one
    /// ([`Index::pinned_best`]), once every class passed or was read. Returns whether some
    /// class's answer was read (`by_class.1`).
    pub(super) fn by_class(
        &mut self,
        s: &State,
        d: DevIx,
        f: NodeIx,
        open: &[bool],
        step: u64,
        best: &mut Option<(f64, u32, NodeIx)>,
    ) -> (bool, bool) {
        let filed = self.is_filed(f, d) && self.pinned.get(f as usize) != Some(&true);
        let (Some(classes), Some(urgents)) = (&self.classes, &mut self.urgents) else {
            return (false, false);
        };
        let order = &self.order;
        let mut read = false;
        let all = classes.all_on(d, f, filed, |c| {
            let Some(c) = c else {
                return false;
            };
            let bound = best.map_or(f64::INFINITY, |(bt, ..)| bt);
            if classes.passes(s, c, bound, open) {
                return true;
            }
            match urgents.answer(s, classes, c, step, order) {
                Answer::Unknown => false,
                Answer::Least(t, p) => {
                    read = true;
                    if better(*best, t, p) {
                        *best = Some((t, p, order[p as usize]));
                    }
                    true
                }
            }
        });
        if all {
            self.pinned_best(s, d, best);
        }
        (all, read)
    }

    /// m-SCT, in a waiting step, delayed device `d`: folds into `best` the least `(own start,
    /// position)` among the pinned ops filed there. A pinned op may only use its unit's
    /// device, so its urgent time is its start there (or `-inf` when `d` is not an SCT
    /// device of it): on a delayed device it starts at its own start, and the device's
    /// answer over the pinned half of its trees is theirs. Before session 15 such ops kept a
    /// delayed device from being passed over, and it was visited or walked whole (training
    /// graphs, whose colocation groups are placed early, on devices alike).
    fn pinned_best(&mut self, s: &State, d: DevIx, best: &mut Option<(f64, u32, NodeIx)>) {
        let bound = best.map_or(f64::INFINITY, |(bt, ..)| bt);
        if let Best::Found(t, v) = self.best_from(s, d, bound, self.k + 1) {
            #[cfg(test)]
            super::indexed::count(super::indexed::Count::Pinned);
            let p = self.pos[v as usize];
            if better(*best, t, p) {
                *best = Some((t, p, v));
            }
        }
    }

    /// m-SCT: ready op `v` joins its class's [`Urgents`].
    pub(super) fn ready(&mut self, s: &State, v: NodeIx) {
        if let (Some(classes), Some(urgents)) = (&self.classes, &mut self.urgents) {
            urgents.ready(s, classes, v, self.pos[v as usize]);
        }
    }

    /// m-SCT: `v`'s unit is placed on `d`: `v` leaves its class ([`Classes::placed`]) and
    /// is pinned, filed anew in the pinned half of `d`'s trees if it is filed there; call
    /// once its other devices are unfiled.
    pub(super) fn placed(&mut self, s: &State, v: NodeIx, d: DevIx) {
        let filed = self.is_filed(v, d);
        if filed {
            self.unfile(v, d);
        }
        self.pinned[v as usize] = true;
        if let Some(c) = &mut self.classes {
            c.placed(v);
        }
        if let Some(u) = &mut self.urgents {
            u.leave(v);
        }
        if filed {
            self.file(s, v, d, self.pos[v as usize]);
        }
    }

    pub(super) fn block(&mut self, s: &State, v: NodeIx, d: DevIx, p: u32) {
        self.unfile(v, d);
        self.blocked[d as usize].push(MaxEntry {
            key: -s.required(v).unwrap_or(0.0),
            tie: p,
            data: v,
        });
    }

    /// No candidate filed on `d` starts before this (infinite when none is filed): the
    /// latest of `max(free, now)` and its trees' least value.
    pub(super) fn lower(&self, s: &State, d: DevIx) -> f64 {
        let k = self.k;
        let own = s.channel[d as usize];
        let low = self.trees.least_first(d as usize, |tree, key| {
            tree_value(s, k, own, term_of(k, tree), key)
        });
        low.max(s.free[d as usize]).max(s.now)
    }

    /// Appends to `out` the positions of the candidates filed on `d` whose tree value (a
    /// lower bound of their estimate) is at most `bound`, a superset of those whose
    /// estimate is (candidates that ran or may not use `d` now included); `stack` is
    /// scratch. Nothing is re-filed.
    pub(super) fn within(
        &mut self,
        s: &State,
        d: DevIx,
        bound: f64,
        stack: &mut Vec<u32>,
        out: &mut Vec<u32>,
    ) {
        let k = self.k;
        let own = s.channel[d as usize];
        let mut live = std::mem::take(&mut self.live);
        self.trees.live_trees(d as usize, &mut live);
        for &at in &live {
            let (tree, term) = (d as usize * self.group + at, term_of(k, at));
            let fits = |key: f64| tree_value(s, k, own, term, key) <= bound;
            let from = out.len();
            self.trees.each_within(tree, fits, stack, out);
            if term == k {
                continue;
            }
            // A bundle's entry stands for every member.
            for i in from..out.len() {
                let v = self.order[out[i] as usize];
                let b = self.bundles.of[v as usize * k + d as usize];
                if b != NIL {
                    let first = out[i];
                    out.extend(self.bundles.members(b).filter(|&p| p != first));
                }
            }
        }
        self.live = live;
    }

    /// The op at topological position `p`.
    pub(super) fn op_at(&self, p: u32) -> NodeIx {
        self.order[p as usize]
    }

    /// Device `d`'s best candidate and its start: the first in topological order among
    /// those whose data is ready by the time `d` is free, else the earliest data-ready time
    /// (ties to the earlier position). Each tree's value `channel + key` (or `key`) is a
    /// lower bound of its candidates' estimates, exact for those whose term is still the
    /// largest; a candidate found is checked, and re-filed under its largest term when
    /// another has overtaken it. Candidates that ran, went elsewhere with their unit, or
    /// that memory shuts out leave on the way. When none is ready by the time `d` is free
    /// and the least value is later than `bound`, it stops there ([`Best::After`]): the
    /// candidates left start no sooner (so an unbounded ask is exact).
    pub(super) fn device_best(&mut self, s: &State, d: DevIx, bound: f64) -> Best {
        self.best_from(s, d, bound, 0)
    }

    /// [`Index::device_best`] over `d`'s trees from the `from`-th on (the pinned half's
    /// first, or 0: all).
    fn best_from(&mut self, s: &State, d: DevIx, bound: f64, from: usize) -> Best {
        let k = self.k;
        let base = s.free[d as usize].max(s.now);
        let own = s.channel[d as usize];
        let first = d as usize * self.group;
        let mut live = std::mem::take(&mut self.live);
        let value = |tree: usize, key: f64| tree_value(s, k, own, term_of(k, tree), key);
        loop {
            // Those that may be ready by `base`: the least position wins. Else the least
            // lower bound, and the least position among those that reach it.
            let mut found = NIL;
            let mut low = f64::INFINITY;
            self.trees.live_trees(d as usize, &mut live);
            if from > 0 {
                live.retain(|&at| at >= from);
            }
            for &at in &live {
                let tree = first + at;
                let least = value(at, self.trees.first[tree]);
                if least <= base {
                    found = self
                        .trees
                        .least_within(tree, found, |key| value(at, key) <= base);
                }
                low = low.min(least);
            }
            if live.is_empty() {
                self.live = live;
                return Best::Empty;
            }
            let due = found != NIL;
            if !due && low > bound {
                // Every candidate here starts at `low` or later.
                self.live = live;
                return Best::After(low);
            }
            if !due {
                for &at in &live {
                    let tree = first + at;
                    if value(at, self.trees.first[tree]) <= low {
                        found = self
                            .trees
                            .least_within(tree, found, |key| value(at, key) <= low);
                    }
                }
            }
            let v = self.order[found as usize];
            if s.done[v as usize] || !s.allowed(v, d) {
                self.unfile(v, d);
                continue;
            }
            if !s.fits(v, d) {
                if s.opts.static_memory {
                    self.unfile(v, d);
                } else {
                    self.block(s, v, d, found);
                }
                continue;
            }
            let (term, key, ready) = self.classify(s, v, d);
            if due && ready <= base {
                self.live = live;
                return Best::Found(base, v);
            }
            if !due && ready == low {
                self.live = live;
                return Best::Found(ready.max(base), v);
            }
            // Another term overtook the one it was filed under.
            #[cfg(test)]
            {
                let b = self.bundles.of[v as usize * k + d as usize];
                if b != NIL && term != k && self.bundles.members(b).nth(1).is_some() {
                    super::indexed::count(super::indexed::Count::Turned);
                }
            }
            self.refile(v, d, found, term, key);
        }
    }
}

/// `v`'s estimate on `d` in parts (see [`Index::classify`]): returns the fixed part and
/// fills `from` with each source device and the largest transfer time it sends, in the order
/// of `v`'s producers (`from_w`: scratch, all `-1` on entry and on return). The parts change
/// only when one of `v`'s tensors arrives on `d`.
fn summarise(
    s: &State,
    v: NodeIx,
    d: DevIx,
    from_w: &mut [f64],
    from: &mut Vec<(DevIx, f64)>,
) -> f64 {
    from.clear();
    let mut fixed: f64 = 0.0;
    for feed in &s.feeds[v as usize] {
        let (there, send) = s.feed_on(feed, d);
        fixed = fixed.max(there);
        if let Some(w) = send {
            let u = feed.src as usize;
            let src = s.placement[u];
            fixed = fixed.max(s.finish[u] + w);
            let f = &mut from_w[src as usize];
            if *f < 0.0 {
                from.push((src, 0.0));
            }
            *f = f.max(w);
        }
    }
    for entry in from.iter_mut() {
        entry.1 = from_w[entry.0 as usize];
        from_w[entry.0 as usize] = -1.0;
    }
    fixed
}

/// The term of a device's `tree`-th tree (m-SCT's pinned half repeats the terms).
#[inline]
fn term_of(k: usize, tree: usize) -> usize {
    if tree > k {
        tree - (k + 1)
    } else {
        tree
    }
}

/// The value now of key `key` in the tree of term `term` of a device whose channel is free at
/// `own`: the channel (the sender's `term` or the device's, whichever is later) plus the key,
/// or the key itself for the fixed part (`term == k`, `k` devices).
#[inline]
fn tree_value(s: &State, k: usize, own: f64, term: usize, key: f64) -> f64 {
    if term == k {
        key
    } else {
        s.channel[term].max(own) + key
    }
}
