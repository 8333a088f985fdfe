//! The lazy greedy of `submodular` and `submodular-gi` (Carbonari17 §2.2, §2.3).
//!
//! The paper's greedy evaluates every (node, device) pair every round, O(V² k)
//! evaluations (its Tables 1-3: 10,000x to 1,000,000x the run time of Heuristic-G). Here the
//! result is exactly that greedy's (a plain reference greedy in the tests is compared with
//! it round by round on random graphs), found without re-evaluating every pair:
//! - Within one device, all candidates with the same `pf` rank by the charged time
//!   `x = c + w*T` alone: `b`, and with it `Δ` or GI's value, is a monotone function of `x`
//!   (`placed_i`, `B_i` and `f(S)` are common to them). So a round only looks, per device
//!   and per pf class, at the candidate with the smallest `(x, node)`.
//! - That candidate comes from a static order by `(c, node)`, one per distinct cost column
//!   (all devices of one kind and speed share it) read by a cursor per device, merged with
//!   a small per-device heap of entries whose `x` was refreshed. `x` can only grow (more
//!   placed neighbours; a version per unit says when), memory and placed time only fill:
//!   stored keys are lower bounds, refreshed lazily when they reach the front, and a unit
//!   a device can no longer take is passed for good.
//! - `pf` can only grow, and is the part of `f` that is not submodular: placing a node
//!   raises the gain of its parallel siblings on the other devices. Groups are grouped by the
//!   multiset of their members' parallel classes ("signature"), which fixes their `pf` on
//!   every device; a group stays in the shared pf = 1 class while none of its classes has
//!   a placed node, and gets a class of its own, built eagerly, in the round one of them is
//!   placed, so a rise is never missed.
//! - With `mem_step`, a unit that steps to zero on a device moves to that device's heap of
//!   stepped units of its class (benefit 0 for all there; memory only fills, so it never
//!   steps back).
//! - Once more than `FILE_ABOVE` (8) groups are active, they are filed per device by their
//!   pf there (`fronts.rs`).
//!
//! A round costs O(devices × (1 + min(active groups, pf buckets))) plus O(log V) per
//! re-filing; the whole run O(V log V × columns + rounds × devices × (1 + pf buckets) +
//! (E × devices) log V) with the transfer term, plus O(devices × groups of the placed
//! node's classes) per round to re-file (one group per class without colocation). The pf
//! buckets of a device are the distinct pf of its active groups: without colocation (a
//! group is one class) `p` buckets need `p (p - 1) / 2` placed parallel nodes, so there are
//! at most `sqrt(2V)`, and in practice a few (a placed node raises its siblings' gains
//! elsewhere, so they follow at once). Until issue 24b every active group was asked on
//! every device each round, O(devices × (1 + active groups)): quadratic on many sibling
//! sets partly placed at once (docs/cost.md, "Fixed").
//!
//! Exactness rests on every step from `x` to the value being monotone in floating point
//! too: sums, quotients and products are, and `g` is `sqrt` (correctly rounded) for
//! p = 0.5, the identity for p = 1 and `libm::pow` otherwise (faithfully rounded; the
//! random comparison also runs p = 0.3 and 0.75).

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BinaryHeap};

use super::model::{cmp_f, order, parallel_classes, Cand, Model, State, NONE};
use crate::error::Result;
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::plan::Placement;
use crate::util::{HeapKey, MaxEntry};

/// `x`'s place in [`cmp_f`]'s order of finite values, as an integer (`-0.0` and `0.0` alike):
/// `total_cmp`'s order bits, with `-0.0` read as `0.0`.
pub(super) fn ordered_bits(x: f64) -> u64 {
    crate::util::total_order_bits(if x == 0.0 { 0.0 } else { x })
}

/// A charged time `x` as a heap key: the smaller pops first, compared as [`cmp_f`] does.
#[derive(Debug, Clone, Copy)]
struct Smaller(f64);

impl HeapKey for Smaller {
    fn heap_cmp(&self, other: &Self) -> Ordering {
        cmp_f(other.0, self.0)
    }
}

/// What a queue entry refers to: unit `unit`, and the transfer version its `x` was
/// computed at.
#[derive(Debug, Clone, Copy)]
struct Tag {
    pub(super) unit: u32,
    tver: u32,
}

/// A queue entry: unit `data.unit` (lowest node `tie`) on one device with charged time
/// `key.0` = `x`, exact when `data.tver` is the unit's current transfer version, else a
/// lower bound (`c` alone, or `x` before more neighbours were placed). `BinaryHeap` pops
/// the smallest `(x, node)` first.
type Entry = MaxEntry<Smaller, NodeIx, Tag>;

/// `tver` of an entry whose `x` is only the lower bound `c`.
const BOUND: u32 = u32::MAX;

/// The candidates of one pf class (the shared class, or one signature group) on every
/// device: a static order by `(c, node)` per distinct cost column, consumed by a cursor per
/// device, merged with a per-device heap of entries whose `x` was refreshed, and a
/// per-device heap of entries whose g stepped to zero.
pub(super) struct Slot {
    /// Per distinct cost column, ascending `(c, node)`.
    orders: Vec<Vec<Entry>>,
    /// Per device: position in its column's order.
    cursor: Vec<usize>,
    /// Per device: `[refreshed, stepped]`.
    heaps: Vec<[BinaryHeap<Entry>; 2]>,
}

/// A group's stream on one device in its pf bucket: lowest `(x, node)` it may still offer
/// there (a lower bound), the group, the filing's version. The smallest pops first.
pub(super) type Filed = Reverse<(u64, NodeIx, u32, u32)>;

/// Where an active group is filed, per stream (device `i`, units whose g stepped to zero
/// there or the others: `2 i + zero`): whether it is filed (not when it has no candidate
/// left there), its pf, the version of its live entry (older ones are stale), the lower
/// bound of its best `(x, node)` there.
pub(super) struct Filing {
    pub(super) on: Vec<bool>,
    pub(super) pf: Vec<u32>,
    pub(super) ver: Vec<u32>,
    pub(super) low: Vec<(u64, NodeIx)>,
}

/// Active groups above which the rounds file them by pf (measured: NASNet x10 at 50
/// devices keeps at most one active; filing every activation on every device cost 12%).
pub(super) const FILE_ABOVE: usize = 8;

/// The lazy greedy.
pub(super) struct Fast<'m, 'p, 'a> {
    pub(super) m: &'m Model<'p, 'a>,
    pub(super) st: State,
    /// Parallel class of each node.
    pub(super) class_of: Vec<u32>,
    /// Placed nodes per class, and per class and device (`class * k + dev`).
    pub(super) n_class: Vec<u32>,
    pub(super) n_class_dev: Vec<u32>,
    /// Signature group of each unit: 0 = none (pf is always 1), else `1 + group`.
    pub(super) group_of: Vec<u32>,
    /// Classes of each group's members, with multiplicity.
    group_sig: Vec<Vec<u32>>,
    group_units: Vec<Vec<u32>>,
    group_unplaced: Vec<u32>,
    group_active: Vec<bool>,
    /// Groups of each class.
    pub(super) class_groups: Vec<Vec<u32>>,
    /// Active groups (some class placed, some unit unplaced).
    pub(super) active: Vec<u32>,
    /// Position of each active group in `active` (the rounds' answer does not depend on
    /// the order: candidates are totally ordered, each asked on its own).
    active_at: Vec<u32>,
    /// Index 0: the shared class (pf = 1: units without parallel nodes, and units of
    /// groups not yet active); `1 + group`: an active group.
    pub(super) slots: Vec<Option<Slot>>,
    /// Distinct cost column of each device (devices of one kind and speed share one), and
    /// a representative device of each column.
    column: Vec<u32>,
    column_dev: Vec<DevIx>,
    /// Transfer version of each unit: bumped when a neighbour is placed.
    tver: Vec<u32>,
    pub(super) step: bool,
    /// Whether the active groups are filed by pf ([`Fast::best_filed`]): from a round that
    /// starts with more than `file_above` of them until none is left (asking each of a few
    /// active groups costs less than filing them).
    pub(super) filed: bool,
    pub(super) file_above: usize,
    /// While `filed`: per stream (`2 * device + zero`), the active groups by their pf
    /// there, each bucket a heap of [`Filed`] entries; per group, its [`Filing`].
    pub(super) buckets: Vec<BTreeMap<u32, BinaryHeap<Filed>>>,
    /// The least `(x, node)` of the units [`Fast::best_in`] moved to a stepped heap since
    /// this was last taken.
    pub(super) moved: Option<(u64, NodeIx)>,
    pub(super) filings: Vec<Option<Filing>>,
    /// Scratch: the pf buckets of a device, the groups a placement touched (with a stamp
    /// per group).
    pub(super) pfs: Vec<u32>,
    pub(super) touched: Vec<u32>,
    pub(super) stamp: Vec<u32>,
}

impl<'m, 'p, 'a> Fast<'m, 'p, 'a> {
    pub(super) fn new(m: &'m Model<'p, 'a>) -> Fast<'m, 'p, 'a> {
        let (class_of, classes) = parallel_classes(m.problem);
        let nu = m.units.len();
        let k = m.k;
        let mut sig_index: BTreeMap<Vec<u32>, u32> = BTreeMap::new();
        let mut group_of = vec![0u32; nu];
        let mut group_sig: Vec<Vec<u32>> = Vec::new();
        let mut group_units: Vec<Vec<u32>> = Vec::new();
        for (u, members) in m.units.members.iter().enumerate() {
            let mut sig: Vec<u32> = members
                .iter()
                .map(|&v| class_of[v as usize])
                .filter(|&c| c != NONE)
                .collect();
            if sig.is_empty() {
                continue;
            }
            sig.sort_unstable();
            let gid = *sig_index.entry(sig.clone()).or_insert_with(|| {
                group_sig.push(sig);
                group_units.push(Vec::new());
                (group_sig.len() - 1) as u32
            });
            group_of[u] = gid + 1;
            group_units[gid as usize].push(u as u32);
        }
        let mut class_groups = vec![Vec::new(); classes];
        for (gid, sig) in group_sig.iter().enumerate() {
            for &c in sig {
                let list: &mut Vec<u32> = &mut class_groups[c as usize];
                if list.last() != Some(&(gid as u32)) {
                    list.push(gid as u32);
                }
            }
        }
        let mut columns: BTreeMap<Vec<u64>, u32> = BTreeMap::new();
        let mut column = Vec::with_capacity(k);
        let mut column_dev = Vec::new();
        for d in 0..k as DevIx {
            let key: Vec<u64> = (0..nu as u32).map(|u| m.cost(u, d).to_bits()).collect();
            let next = column_dev.len() as u32;
            let id = *columns.entry(key).or_insert(next);
            if id == next {
                column_dev.push(d);
            }
            column.push(id);
        }
        let ngroups = group_sig.len();
        let mut fast = Fast {
            m,
            st: m.state(),
            class_of,
            n_class: vec![0; classes],
            n_class_dev: vec![0; classes * k],
            group_of,
            group_unplaced: group_units.iter().map(|us| us.len() as u32).collect(),
            group_sig,
            group_units,
            group_active: vec![false; ngroups],
            class_groups,
            active: Vec::new(),
            active_at: vec![NONE; ngroups],
            slots: (0..=ngroups).map(|_| None).collect(),
            column,
            column_dev,
            tver: vec![0; nu],
            step: m.cfg.mem_step > 0.0,
            filed: false,
            file_above: FILE_ABOVE,
            buckets: (0..2 * k).map(|_| BTreeMap::new()).collect(),
            moved: None,
            filings: (0..ngroups).map(|_| None).collect(),
            pfs: Vec::new(),
            touched: Vec::new(),
            stamp: vec![u32::MAX; ngroups],
        };
        fast.slots[0] = Some(fast.slot(0..nu as u32));
        fast
    }

    /// A slot holding `units` (those still unplaced), keyed by `c`: exact while the transfer
    /// term is off or nothing is placed, else a lower bound of `x`.
    fn slot(&self, units: impl Iterator<Item = u32>) -> Slot {
        let m = self.m;
        let exact = m.cfg.transfer == 0.0 || self.st.unit_placed.iter().all(|&p| !p);
        // The unplaced units with their nodes, re-sorted for each column from the previous
        // column's order (stable sort: columns of devices that differ in speed alone keep
        // most of it, so each sort after the first is nearly linear). Keys are distinct
        // (each unit's node is its own), so any sort gives the one ascending (x, node)
        // order, the one `b.cmp(a)` gives entries (Entry's order is reversed); costs that
        // are not finite are left out after sorting.
        let mut seq: Vec<(u32, NodeIx)> = units
            .filter(|&u| !self.st.unit_placed[u as usize])
            .map(|u| (u, m.units.members[u as usize][0]))
            .collect();
        let orders = self
            .column_dev
            .iter()
            .map(|&d| {
                seq.sort_by_key(|&(u, tie)| (ordered_bits(m.cost(u, d)), tie));
                seq.iter()
                    .filter(|&&(u, _)| m.cost(u, d).is_finite())
                    .map(|&(u, tie)| Entry {
                        key: Smaller(m.cost(u, d)),
                        tie,
                        data: Tag {
                            unit: u,
                            tver: if exact { self.tver[u as usize] } else { BOUND },
                        },
                    })
                    .collect()
            })
            .collect();
        Slot {
            orders,
            cursor: vec![0; m.k],
            heaps: (0..m.k).map(|_| Default::default()).collect(),
        }
    }

    /// `pf` of the units of `group` on device `i`.
    pub(super) fn pf(&self, group: usize, i: DevIx) -> u32 {
        let k = self.m.k;
        1 + self.group_sig[group]
            .iter()
            .map(|&c| self.n_class[c as usize] - self.n_class_dev[c as usize * k + i as usize])
            .sum::<u32>()
    }

    /// The best candidate of pf class `s` on device `i`, among the units whose g stepped to
    /// zero there or the others. Cleans what it passes: placed units and units device `i`
    /// can no longer take leave for good, stale `x` are refreshed, stepped units move.
    pub(super) fn best_in(
        &mut self,
        s: usize,
        i: DevIx,
        zero: bool,
        phi: f64,
        gb: f64,
    ) -> Option<Cand> {
        let m = self.m;
        let iu = i as usize;
        let col = self.column[iu] as usize;
        loop {
            let slot = self.slots[s].as_mut().expect("active slot");
            let heap = &mut slot.heaps[iu][zero as usize];
            let from_heap = heap.peek().copied();
            let from_order = if zero {
                None
            } else {
                slot.orders[col].get(slot.cursor[iu]).copied()
            };
            // The smaller (x, node) of the two (Entry's order is reversed).
            let (top, in_order) = match (from_heap, from_order) {
                (None, None) => return None,
                (Some(a), None) => (a, false),
                (None, Some(b)) => (b, true),
                (Some(a), Some(b)) if b > a => (b, true),
                (Some(a), Some(_)) => (a, false),
            };
            let u = top.data.unit;
            let ui = u as usize;
            let grp = self.group_of[ui] as usize;
            let gone = self.st.unit_placed[ui]
                || (s == 0 && grp != 0 && self.group_active[grp - 1])
                || !m.feasible(&self.st, u, i);
            let stale = !gone && top.data.tver != self.tver[ui];
            let steps = !gone && !stale && !zero && self.step && m.stepped(&self.st, u, i);
            if gone || stale || steps {
                if in_order {
                    slot.cursor[iu] += 1;
                } else {
                    heap.pop();
                }
            }
            if gone {
                continue;
            }
            if stale {
                let x = m.charged(&self.st, u, i);
                let fresh = Entry {
                    key: Smaller(x),
                    data: Tag {
                        tver: self.tver[ui],
                        ..top.data
                    },
                    ..top
                };
                slot.heaps[iu][zero as usize].push(fresh);
                continue;
            }
            if steps {
                slot.heaps[iu][1].push(top);
                let key = (ordered_bits(top.key.0), top.tie);
                self.moved = Some(self.moved.map_or(key, |m| m.min(key)));
                continue;
            }
            let pf = if s == 0 { 1 } else { self.pf(s - 1, i) };
            return Some(m.score(&self.st, u, i, top.key.0, pf, zero, phi, gb));
        }
    }

    /// Gives `group` a slot of its own from now on (its units leave the shared class) and,
    /// while the active groups are filed, files it.
    fn activate(&mut self, group: usize) {
        self.group_active[group] = true;
        self.active_at[group] = self.active.len() as u32;
        self.active.push(group as u32);
        let units = std::mem::take(&mut self.group_units[group]);
        self.slots[group + 1] = Some(self.slot(units.iter().copied()));
        self.group_units[group] = units;
        if self.filed {
            self.file_all(group);
        }
    }

    /// Runs the greedy; with `trace`, records each round's choice and `f(S)` before it.
    pub(super) fn run(mut self, mut trace: Option<&mut Vec<(Cand, f64)>>) -> Result<Placement> {
        let m = self.m;
        let g = m.problem.graph;
        let k = m.k;
        for _ in 0..m.units.len() {
            if !self.filed && self.active.len() > self.file_above {
                self.filed = true;
                for a in 0..self.active.len() {
                    self.file_all(self.active[a] as usize);
                }
            } else if self.filed && self.active.is_empty() {
                // Completed groups dropped their filings; their entries go with the buckets.
                self.filed = false;
                self.buckets.iter_mut().for_each(BTreeMap::clear);
            }
            let (gb, phi) = m.values(&self.st);
            let mut best: Option<Cand> = None;
            for i in 0..k as DevIx {
                if self.filed {
                    // The shared class, then the active groups by pf bucket, each first
                    // among the units not stepped to zero.
                    for zero in [false, true] {
                        if zero && !self.step {
                            continue;
                        }
                        let shared = self.best_in(0, i, zero, phi, gb[i as usize]);
                        let filed = self.best_filed(i, zero, phi, gb[i as usize]);
                        for c in [shared, filed].into_iter().flatten() {
                            if best.is_none_or(|b| order(&c, &b) == Ordering::Greater) {
                                best = Some(c);
                            }
                        }
                    }
                    continue;
                }
                for a in 0..=self.active.len() {
                    let s = if a == 0 {
                        0
                    } else {
                        self.active[a - 1] as usize + 1
                    };
                    for zero in [false, true] {
                        if zero && !self.step {
                            continue;
                        }
                        if let Some(c) = self.best_in(s, i, zero, phi, gb[i as usize]) {
                            if best.is_none_or(|b| order(&c, &b) == Ordering::Greater) {
                                best = Some(c);
                            }
                        }
                    }
                }
            }
            let Some(c) = best else {
                let u = (0..m.units.len() as u32)
                    .find(|&u| !self.st.unit_placed[u as usize])
                    .expect("a round runs only while units are unplaced");
                return Err(m.stuck(&self.st, u));
            };
            if let Some(t) = trace.as_deref_mut() {
                t.push((c, phi));
            }
            m.add(&mut self.st, &c);
            let u = c.unit as usize;
            let grp = self.group_of[u];
            if grp != 0 {
                let gi = grp as usize - 1;
                self.group_unplaced[gi] -= 1;
                if self.group_unplaced[gi] == 0 && self.group_active[gi] {
                    // Out of `active` in O(1) (a scan of it was quadratic with many active).
                    let at = self.active_at[gi] as usize;
                    self.active.swap_remove(at);
                    if let Some(&moved) = self.active.get(at) {
                        self.active_at[moved as usize] = at as u32;
                    }
                    self.slots[grp as usize] = None;
                    self.filings[gi] = None;
                }
            }
            for &v in &m.units.members[u] {
                let cl = self.class_of[v as usize];
                if cl == NONE {
                    continue;
                }
                self.n_class[cl as usize] += 1;
                self.n_class_dev[cl as usize * k + c.dev as usize] += 1;
                if self.n_class[cl as usize] == 1 {
                    for gi in self.class_groups[cl as usize].clone() {
                        let gi = gi as usize;
                        if !self.group_active[gi] && self.group_unplaced[gi] > 0 {
                            self.activate(gi);
                        }
                    }
                }
            }
            if self.filed {
                self.refile(u);
            }
            if m.cfg.transfer != 0.0 {
                for &v in &m.units.members[u] {
                    let ends = g
                        .in_edges(v)
                        .iter()
                        .map(|&e| g.edges[e as usize].src)
                        .chain(g.out_edges(v).iter().map(|&e| g.edges[e as usize].dst));
                    for w in ends {
                        let wu = m.units.of[w as usize] as usize;
                        if wu != u && !self.st.unit_placed[wu] {
                            self.tver[wu] = self.tver[wu].wrapping_add(1);
                        }
                    }
                }
            }
        }
        Ok(self.st.dev)
    }
}
