//! m-ETF's bundles: the candidates of one device whose channel terms are the same, filed as
//! one entry of the index ([`Bundles`]).
//!
//! A candidate's estimate on `d` is `max(fixed, C)` with `C = max over its source devices c
//! of (max(channel[c], channel[d]) + w_c)` ([`Index::classify`](super::index::Index)). Two
//! candidates with the same sources and the same transfer times (`w_c`, bit for bit) have
//! the same `C` at every instant, and so the same largest channel term. A candidate whose
//! `C` leads (is above its fixed part) starts at `C` while it stays ready: its fixed part
//! does not change until one of its tensors arrives on `d` (it is then filed anew), and `C`
//! only grows. So such candidates form a bundle with one entry in the index, in the tree of
//! the bundle's largest term, under the least topological position of its members: the
//! entry's value is every member's estimate (a lower bound once another term overtakes),
//! and the least position is the one the device answers among them. When another sender's
//! channel overtakes the term, the bundle is re-filed once, not each member: on ten copies
//! of a graph side by side, the copies' ops that wait on the same transfers take turns as
//! one (issue 24e). Candidates whose fixed part leads stay alone in the fixed part's tree,
//! and join their bundle if `C` passes their fixed part.

use std::collections::{BTreeSet, HashMap};

use super::treaps::NIL;
use crate::model::cluster::DevIx;

/// A bundle's sources: each source device and the transfer time it adds (its bits), by
/// device.
pub(super) type Sig = Box<[(DevIx, u64)]>;

/// One bundle: its device, its sources, its members' positions and its entry in the trees.
struct Bundle {
    d: DevIx,
    sig: Sig,
    members: BTreeSet<u32>,
    /// Its tree node (`NIL` while none is filed).
    node: u32,
}

/// The bundles of every device, and which bundle each (op, device) candidate is in.
pub(super) struct Bundles {
    /// Per candidate (`v * k + d`), its bundle, or `NIL`.
    pub(super) of: Vec<u32>,
    all: Vec<Bundle>,
    /// Unused bundles, for reuse.
    spare: Vec<u32>,
    /// Per device, its bundles by sources (looked up only, never iterated).
    by_sig: Vec<HashMap<Sig, u32>>,
}

impl Bundles {
    pub(super) fn new(n: usize, k: usize) -> Bundles {
        Bundles {
            of: vec![NIL; n * k],
            all: Vec::new(),
            spare: Vec::new(),
            by_sig: (0..k).map(|_| HashMap::new()).collect(),
        }
    }

    /// The bundle of sources `sig` (sorted by device) on `d`, made if none.
    pub(super) fn find(&mut self, d: DevIx, sig: &[(DevIx, u64)]) -> u32 {
        if let Some(&b) = self.by_sig[d as usize].get(sig) {
            return b;
        }
        let sig: Sig = sig.into();
        let bundle = Bundle {
            d,
            sig: sig.clone(),
            members: BTreeSet::new(),
            node: NIL,
        };
        let b = match self.spare.pop() {
            Some(b) => {
                self.all[b as usize] = bundle;
                b
            }
            None => {
                self.all.push(bundle);
                (self.all.len() - 1) as u32
            }
        };
        self.by_sig[d as usize].insert(sig, b);
        b
    }

    /// Puts candidate `slot` (`v * k + d`) at position `p` into bundle `b`.
    pub(super) fn join(&mut self, b: u32, slot: usize, p: u32) {
        self.of[slot] = b;
        self.all[b as usize].members.insert(p);
    }

    /// Takes candidate `slot` at position `p` out of its bundle; returns the bundle.
    pub(super) fn leave(&mut self, slot: usize, p: u32) -> u32 {
        let b = self.of[slot];
        self.of[slot] = NIL;
        self.all[b as usize].members.remove(&p);
        b
    }

    /// Forgets bundle `b`, which has no member and no node.
    pub(super) fn drop_empty(&mut self, b: u32) {
        let bundle = &mut self.all[b as usize];
        debug_assert!(bundle.members.is_empty() && bundle.node == NIL);
        let sig = std::mem::take(&mut bundle.sig);
        self.by_sig[bundle.d as usize].remove(&sig);
        self.spare.push(b);
    }

    /// Bundle `b`'s least member position (`None`: empty).
    pub(super) fn first(&self, b: u32) -> Option<u32> {
        self.all[b as usize].members.first().copied()
    }

    pub(super) fn node(&self, b: u32) -> u32 {
        self.all[b as usize].node
    }

    pub(super) fn set_node(&mut self, b: u32, node: u32) {
        self.all[b as usize].node = node;
    }

    /// Bundle `b`'s members' positions, in order.
    pub(super) fn members(&self, b: u32) -> impl Iterator<Item = u32> + '_ {
        self.all[b as usize].members.iter().copied()
    }
}
