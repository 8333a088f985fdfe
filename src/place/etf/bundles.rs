//! m-ETF's bundles: the candidates of one device whose channel terms are the same, filed as
//! one entry of the index ([`Bundles`]).
//!
//! A candidate's estimate on `d` is `max(fixed, C)` with `C = max over its source devices c
//! of (max(channel[c], channel[d]) + w_c)` ([`Index::classify`](super::index::Index)). Two
//! candidates with the same sources and the same transfer times (`w_c`, bit for bit) have
//! the same `C` at every instant, and so the same largest channel term. A candidate whose
//! `C` leads (is above its fixed part) starts at `C` while it stays ready: its fixed part
//! does not change until one of its tensors arrives on `d` (it is then filed anew), and `C`
//! only grows (channels only grow; transfer times are not negative). Should it not, an
//! entry's value is still one of each member's terms, so a lower bound of its estimate,
//! and the device's answer, checked against the member's estimate, is still exact. So such candidates form a bundle with one entry in the index, in the tree of
//! the bundle's largest term, under the least topological position of its members: the
//! entry's value is every member's estimate (a lower bound once another term overtakes),
//! and the least position is the one the device answers among them. When another sender's
//! channel overtakes the term, the bundle is re-filed once, not each member: on ten copies
//! of a graph side by side, the copies' ops that wait on the same transfers take turns as
//! one (issue 24e). Candidates whose fixed part leads stay alone in the fixed part's tree,
//! and join their bundle if `C` passes their fixed part.

use std::collections::{BTreeSet, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

use super::treaps::NIL;
use crate::model::cluster::DevIx;

/// One bundle: its device, its sources (each source device and the transfer time it adds,
/// its bits, by device), its members' positions and its entry in the trees.
struct Bundle {
    d: DevIx,
    sig: Vec<(DevIx, u64)>,
    /// The least member position (`NIL`: none), and the others: a bundle of one allocates
    /// nothing.
    first: u32,
    rest: BTreeSet<u32>,
    /// Its tree node (`NIL` while none is filed).
    node: u32,
    /// The next bundle whose sources hash alike (`NIL`: none).
    next: u32,
}

/// The bundles of every device, and which bundle each (op, device) candidate is in.
pub(super) struct Bundles {
    /// Per candidate (`v * k + d`), its bundle, or `NIL`.
    pub(super) of: Vec<u32>,
    all: Vec<Bundle>,
    /// Unused bundles, for reuse (with their sources' room).
    spare: Vec<u32>,
    /// The first bundle per hash of (device, sources), the others chained by `next` (looked
    /// up only, never iterated).
    by_hash: HashMap<u64, u32, BuildHasherDefault<Mixed>>,
}

/// The hasher of `by_hash`, whose keys are hashes already ([`hash`]): it passes them on.
#[derive(Default)]
struct Mixed(u64);

impl Hasher for Mixed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(MULTIPLIER);
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
}

/// FxHash's multiplier.
const MULTIPLIER: u64 = 0x517c_c1b7_2722_0a95;

/// A hash of `d` and `sig` (FxHash's step: rotate, xor, multiply).
fn hash(d: DevIx, sig: &[(DevIx, u64)]) -> u64 {
    let step = |h: u64, x: u64| (h.rotate_left(5) ^ x).wrapping_mul(MULTIPLIER);
    sig.iter().fold(step(0, u64::from(d)), |h, &(c, w)| {
        step(step(h, u64::from(c)), w)
    })
}

impl Bundles {
    pub(super) fn new(n: usize, k: usize) -> Bundles {
        Bundles {
            of: vec![NIL; n * k],
            all: Vec::new(),
            spare: Vec::new(),
            by_hash: HashMap::default(),
        }
    }

    /// The bundle of sources `sig` (sorted by device) on `d`, made if none.
    pub(super) fn find(&mut self, d: DevIx, sig: &[(DevIx, u64)]) -> u32 {
        let h = hash(d, sig);
        let head = self.by_hash.get(&h).copied().unwrap_or(NIL);
        let mut b = head;
        while b != NIL {
            let bundle = &self.all[b as usize];
            if bundle.d == d && bundle.sig == sig {
                return b;
            }
            b = bundle.next;
        }
        let b = match self.spare.pop() {
            Some(b) => b,
            None => {
                self.all.push(Bundle {
                    d,
                    sig: Vec::new(),
                    first: NIL,
                    rest: BTreeSet::new(),
                    node: NIL,
                    next: NIL,
                });
                (self.all.len() - 1) as u32
            }
        };
        let bundle = &mut self.all[b as usize];
        bundle.d = d;
        bundle.sig.clear();
        bundle.sig.extend_from_slice(sig);
        bundle.next = head;
        self.by_hash.insert(h, b);
        b
    }

    /// Puts candidate `slot` (`v * k + d`) at position `p` into bundle `b`.
    pub(super) fn join(&mut self, b: u32, slot: usize, p: u32) {
        self.of[slot] = b;
        let bundle = &mut self.all[b as usize];
        if bundle.first == NIL {
            bundle.first = p;
        } else if p < bundle.first {
            bundle.rest.insert(bundle.first);
            bundle.first = p;
        } else {
            bundle.rest.insert(p);
        }
    }

    /// Takes candidate `slot` at position `p` out of its bundle; returns the bundle.
    pub(super) fn leave(&mut self, slot: usize, p: u32) -> u32 {
        let b = self.of[slot];
        self.of[slot] = NIL;
        let bundle = &mut self.all[b as usize];
        if p == bundle.first {
            bundle.first = bundle.rest.pop_first().unwrap_or(NIL);
        } else {
            bundle.rest.remove(&p);
        }
        b
    }

    /// Forgets bundle `b`, which has no member and no node.
    pub(super) fn drop_empty(&mut self, b: u32) {
        let bundle = &self.all[b as usize];
        debug_assert!(bundle.first == NIL && bundle.node == NIL);
        let (h, next) = (hash(bundle.d, &bundle.sig), bundle.next);
        let head = self.by_hash[&h];
        if head == b {
            if next == NIL {
                self.by_hash.remove(&h);
            } else {
                self.by_hash.insert(h, next);
            }
        } else {
            let mut a = head;
            while self.all[a as usize].next != b {
                a = self.all[a as usize].next;
            }
            self.all[a as usize].next = next;
        }
        self.spare.push(b);
    }

    /// Bundle `b`'s least member position (`None`: empty).
    pub(super) fn first(&self, b: u32) -> Option<u32> {
        let first = self.all[b as usize].first;
        (first != NIL).then_some(first)
    }

    pub(super) fn node(&self, b: u32) -> u32 {
        self.all[b as usize].node
    }

    pub(super) fn set_node(&mut self, b: u32, node: u32) {
        self.all[b as usize].node = node;
    }

    /// Bundle `b`'s members' positions, in order.
    pub(super) fn members(&self, b: u32) -> impl Iterator<Item = u32> + '_ {
        let bundle = &self.all[b as usize];
        let first = (bundle.first != NIL).then_some(bundle.first);
        first.into_iter().chain(bundle.rest.iter().copied())
    }
}
