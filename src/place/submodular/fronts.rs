//! The lazy greedy's fronts of active groups per device and pf class (issue 24b), for
//! `submodular` and `submodular-gi` (Carbonari17 §2.2, §2.3; the greedy is in `fast.rs`).
//!
//! Once more than `FILE_ABOVE` (8) groups are active, and until none is, they are filed
//! per device by their pf there: within one device, one pf, and among the units stepped
//! to zero or the others, candidates rank by `(x, node)` alone whatever group they come
//! from, so a bucket's answer is the group whose lowest `(x, node)` is lowest. Each
//! bucket is a heap of lower bounds of that (it only grows: units leave, `x` grows; a unit
//! moving to the stepped units re-files that stream if it is lower), checked lazily at
//! its top; a group whose pf changes on a device (a node of one of its classes placed
//! elsewhere) is filed anew there, and one with no candidate left in a stream leaves it.
//! With a few active groups, asking each costs less than filing them.

use std::cmp::{Ordering, Reverse};

use super::fast::{ordered_bits, Fast, Filing};
use super::model::{order, Cand, NONE};
use crate::model::cluster::DevIx;

impl Fast<'_, '_, '_> {
    /// Files active `group` on every device under its pf there, bound `(0, 0)` (and its
    /// stepped units, with `mem_step`).
    pub(super) fn file_all(&mut self, group: usize) {
        let k = self.m.k;
        self.filings[group] = Some(Filing {
            on: vec![false; 2 * k],
            pf: vec![0; 2 * k],
            ver: vec![0; 2 * k],
            low: vec![(0, 0); 2 * k],
        });
        for i in 0..k as DevIx {
            self.file(group, 2 * i as usize);
            if self.step {
                self.file(group, 2 * i as usize + 1);
            }
        }
    }

    /// Files active `group`'s stream `j` (`2 * device + zero`) under its pf now, with its
    /// bound, as a new version (the previous entry, in whichever bucket, goes stale).
    pub(super) fn file(&mut self, group: usize, j: usize) {
        let pf = self.pf(group, (j / 2) as DevIx);
        let f = self.filings[group].as_mut().expect("filed group");
        f.on[j] = true;
        f.pf[j] = pf;
        f.ver[j] = f.ver[j].wrapping_add(1);
        let (x, node) = f.low[j];
        self.buckets[j]
            .entry(pf)
            .or_default()
            .push(Reverse((x, node, group as u32, f.ver[j])));
    }

    /// Moves the active groups a placement touched to their new pf buckets, on each device
    /// where their pf changed and they still have candidates.
    pub(super) fn refile(&mut self, placed: usize) {
        let m = self.m;
        self.touched.clear();
        for &v in &m.units.members[placed] {
            let cl = self.class_of[v as usize];
            if cl == NONE {
                continue;
            }
            for &gi in &self.class_groups[cl as usize] {
                if self.stamp[gi as usize] != placed as u32 {
                    self.stamp[gi as usize] = placed as u32;
                    self.touched.push(gi);
                }
            }
        }
        for t in 0..self.touched.len() {
            let gi = self.touched[t] as usize;
            if self.filings[gi].is_none() {
                continue;
            }
            for j in 0..2 * m.k {
                let f = self.filings[gi].as_ref().expect("filed group");
                if f.on[j] && f.pf[j] != self.pf(gi, (j / 2) as DevIx) {
                    self.file(gi, j);
                }
            }
        }
    }

    /// The best candidate of the active groups on device `i`, among their units whose g
    /// stepped to zero there (`zero`) or the others: within one device, one pf and one of
    /// the two, candidates rank by `(x, node)` alone (the module doc), so each pf bucket's
    /// answer is the group with the lowest `(x, node)` there. Entries are lower bounds (a
    /// group's lowest `(x, node)` in a stream only grows: units leave, `x` only grows; a
    /// unit moving to the stepped units re-files that stream with its key if lower), so
    /// the top is asked for its best and goes back re-keyed until its bound is exact; a
    /// group with no candidate left in a stream leaves it (stepped units may come back).
    /// Asked for `zero == false` first, as the rounds without filing do: a stepped unit
    /// that no top reached yet is beaten by its bucket's answer (value, then `b`, then
    /// `x`).
    pub(super) fn best_filed(&mut self, i: DevIx, zero: bool, phi: f64, gb: f64) -> Option<Cand> {
        let j = 2 * i as usize + zero as usize;
        let mut pfs = std::mem::take(&mut self.pfs);
        pfs.clear();
        pfs.extend(self.buckets[j].keys().copied());
        let mut best: Option<Cand> = None;
        for &pf in &pfs {
            loop {
                let heap = self.buckets[j].get_mut(&pf).expect("bucket");
                let Some(&Reverse((x, node, gi, ver))) = heap.peek() else {
                    self.buckets[j].remove(&pf);
                    break;
                };
                let g = gi as usize;
                let live = self.slots[g + 1].is_some()
                    && self.filings[g]
                        .as_ref()
                        .is_some_and(|f| f.on[j] && f.ver[j] == ver);
                if !live {
                    heap.pop();
                    continue;
                }
                self.moved = None;
                let found = self.best_in(g + 1, i, zero, phi, gb);
                if let Some(key) = self.moved.take() {
                    // Units moved to this group's stepped units on `i`: a lower bound there.
                    let z = j + 1;
                    let f = self.filings[g].as_mut().expect("filed group");
                    if !f.on[z] || key < f.low[z] {
                        f.low[z] = if f.on[z] { key.min(f.low[z]) } else { key };
                        self.file(g, z);
                    }
                }
                match found {
                    None => {
                        let f = self.filings[g].as_mut().expect("filed group");
                        f.on[j] = false;
                        self.buckets[j].get_mut(&pf).expect("bucket").pop();
                    }
                    Some(c) => {
                        let now = (ordered_bits(c.x), c.node);
                        if now == (x, node) {
                            if best.is_none_or(|b| order(&c, &b) == Ordering::Greater) {
                                best = Some(c);
                            }
                            break;
                        }
                        debug_assert!(now > (x, node), "bounds only grow");
                        let f = self.filings[g].as_mut().expect("filed group");
                        f.low[j] = now;
                        let heap = self.buckets[j].get_mut(&pf).expect("bucket");
                        heap.pop();
                        heap.push(Reverse((now.0, now.1, gi, ver)));
                    }
                }
            }
        }
        self.pfs = pfs;
        best
    }
}
