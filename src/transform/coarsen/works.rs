//! Members and work of the live vertices during [`super::coarsen`]'s in-place rounds
//! (issue 24d): a merge appends the smaller member list to the larger and adds the two
//! works, `O(small)`; the work cap is decided exactly all the same.
//!
//! The cap rule compares `work[u] + work[v]` with the cap, each work being the left fold of
//! the vertex's members' works in topological order (`Iterator::sum`, as the rebuild in
//! `reference.rs` sums them). Before 24d every merge kept that fold: members inserted in
//! order and the running sums re-folded from the first insertion, `O(tail)` per merge,
//! which on NASNet copies (a hub per copy absorbing a pair each round, its members
//! anywhere in topological order) was two thirds of the in-place rounds' time.
//!
//! Why the decision is the same: every work is a sum of non-negative terms, and both the
//! fold in topological order (`F`) and the running sum kept here (`T`, added in merge
//! order: a tree of additions) are recursive sums of the same `n` terms, each within
//! `gamma(n - 1) * S` of their exact sum `S` (Higham, Accuracy and Stability of Numerical
//! Algorithms, §4.2; `gamma(m) = m u / (1 - m u)`, `u = 2^-53`; additions underflow
//! exactly, so the bound holds down to subnormals). The two computed sums `fl(F_u + F_v)`
//! and `fl(T_u + T_v)` then differ by at most `2.1 n u` of `t = fl(T_u + T_v)` for
//! `n = |members(u)| + |members(v)|` (far below `n u = 0.01`); [`Works::over_cap`] takes
//! `t`'s answer when `t` is farther than `8 (n + 2) u t` (`4 (n + 2)` EPSILONs, over three
//! times the bound, which also covers the rounding of `t - cap`) from the cap, and
//! otherwise folds the two member lists in topological order, as before, and keeps those
//! exact works. Whether a work is positive (which vertices count toward the target) is
//! the same for every order of non-negative terms. The member lists are sorted into
//! topological order once, after the rounds.

use crate::model::graph::NodeIx;

/// Members and works of the vertices, by key.
pub(super) struct Works {
    /// Each vertex's members; in topological order where `exact`, else in merge order.
    members: Vec<Vec<NodeIx>>,
    /// Each vertex's work: the fold in topological order where `exact`, else the running
    /// sum (within the module doc's bound of that fold).
    work: Vec<f64>,
    exact: Vec<bool>,
    /// Topological position of each op.
    pos: Vec<u32>,
    /// Work of each op.
    op_work: Vec<f64>,
}

impl Works {
    /// Vertices of the given members (in topological order) and works (their folds).
    pub(super) fn new(
        members: Vec<Vec<NodeIx>>,
        work: Vec<f64>,
        pos: &[u32],
        op_work: &[f64],
    ) -> Works {
        let n = members.len();
        Works {
            members,
            work,
            exact: vec![true; n],
            pos: pos.to_vec(),
            op_work: op_work.to_vec(),
        }
    }

    /// Whether vertex `x` has work (the same for every order of its members).
    pub(super) fn positive(&self, x: u32) -> bool {
        self.work[x as usize] > 0.0
    }

    /// The members, for rebuilding the live graph (any order).
    pub(super) fn members(&self) -> &[Vec<NodeIx>] {
        &self.members
    }

    /// Whether merging `u` and `v` would exceed `cap`: `F_u + F_v > cap` for their works
    /// folded in topological order (module doc).
    pub(super) fn over_cap(&mut self, u: u32, v: u32, cap: f64) -> bool {
        let (u, v) = (u as usize, v as usize);
        if !(self.exact[u] && self.exact[v]) {
            let t = self.work[u] + self.work[v];
            let n = (self.members[u].len() + self.members[v].len()) as f64;
            let margin = 4.0 * (n + 2.0) * f64::EPSILON * t;
            if t.is_finite() && margin.is_finite() && (t - cap).abs() > margin {
                return t > cap;
            }
            for x in [u, v] {
                self.fold(x);
            }
        }
        self.work[u] + self.work[v] > cap
    }

    /// Sorts `x`'s members into topological order and folds its work over them.
    fn fold(&mut self, x: usize) {
        if self.exact[x] {
            return;
        }
        let pos = &self.pos;
        self.members[x].sort_unstable_by_key(|&v| pos[v as usize]);
        self.work[x] = self.members[x]
            .iter()
            .map(|&v| self.op_work[v as usize])
            .sum();
        self.exact[x] = true;
    }

    /// Merges vertex `o` into `m`: the smaller member list appended to the larger, the
    /// works added (exact again only through [`Works::over_cap`] or [`Works::into_members`]).
    pub(super) fn join(&mut self, m: u32, o: u32) {
        let (m, o) = (m as usize, o as usize);
        let mut gone = std::mem::take(&mut self.members[o]);
        if gone.len() > self.members[m].len() {
            std::mem::swap(&mut self.members[m], &mut gone);
        }
        self.members[m].extend_from_slice(&gone);
        self.work[m] += self.work[o];
        self.work[o] = 0.0;
        self.exact[m] = false;
        self.exact[o] = true;
    }

    /// The members, each list in topological order.
    pub(super) fn into_members(mut self) -> Vec<Vec<NodeIx>> {
        for x in 0..self.members.len() {
            self.fold(x);
        }
        self.members
    }

    /// Each vertex's work as the fold in topological order would give it, for the tests.
    #[cfg(test)]
    pub(super) fn folded(&mut self, x: u32) -> f64 {
        self.fold(x as usize);
        self.work[x as usize]
    }
}
