//! m-SCT: per SCT class, the least urgent time over its ready members, kept as the channels
//! move ([`Urgents`]), so a waiting step where every device of a class is delayed reads the
//! class's best pair in `O(log V)` instead of walking a delayed device's candidates.
//!
//! In such a step every pair of a member `v` on a device of its class starts at `v`'s urgent
//! time, the latest of its starts over those devices ([`State::urgent`]); on any other
//! device no sooner (`waiting_step`). With Baechi's channel model the urgent time is
//! `max(F, D)`: `F` the latest `max(free, now)` over the class's devices (one number per
//! class), and `D` the latest data-ready time over them. A producer `u` on device `s` sends
//! to a device `e != s` at `max(u's finish, channel[s], channel[e]) + w` (`State::data_ready`,
//! `w` its tensors' summed transfer time) and to `s` at `u`'s finish, which is no later. So
//! when
//! - every producer's device is one of the class's (at least two),
//! - `w` is the same, bit for bit, to each of them but the producer's own (links alike), and
//! - none of the op's tensors is on another of them already (a tensor sent for another
//!   consumer arrives on its own schedule),
//!
//! then `D = max over producers of (max(finish, C) + w)`, `C` the latest channel of the
//! class's devices, which is `max(P, C + W)` with `P` the latest `finish + w` and `W` the
//! largest `w`: exact, as rounding is monotone (`max(a, b) + w` is `max(a + w, b + w)`). `P`
//! and `W` do not change while the op is ready; `C` only grows. Such a member is *regular*;
//! any other makes its class answer nothing (the step walks, as before), until it leaves.
//!
//! The regular members sit in one of two trees per class ([`Treaps`], by key then
//! position, each subtree knowing its least position): by `P` while `C + W <= P` was last
//! seen, by `W` once `C + W > P` (for good: `C` does not fall). A member in the first tree
//! whose `C + W` has passed its `P` is moved when a query meets it, so each member moves at
//! most once. The class's least urgent time is `t = max(F, min(least P, C + least W))`, and its
//! op the least position among the members whose `max(P, C + W)` is at most `t` (they all
//! start at `t`): the least position with `W` at most what reaches `t` (rounding ties
//! included), and with `P` at most `t`, checking that one's `C + W`.

use super::classes::Classes;
use super::state::State;
use super::treaps::{Treaps, NIL};
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;

/// Where a ready op is: not a member, irregular, or in one of its class's trees.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Side {
    Out,
    Irregular,
    ByP,
    ByW,
}

pub(super) struct Urgents {
    side: Vec<Side>,
    /// Per member: its class, `P`, `W` (`-inf`: it receives nothing) and tree node.
    class: Vec<u32>,
    parts: Vec<(f64, f64)>,
    node: Vec<u32>,
    /// Two trees per class: `2c` keyed by `P`, `2c + 1` by `W`.
    trees: Treaps,
    /// Per class: its ready members that are not regular.
    irregular: Vec<u32>,
    /// Per class: the step its answer was last read in, and the answer.
    memo: Vec<(u64, Answer)>,
}

/// A class's answer in a waiting step.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Answer {
    /// Its least urgent time and the least position of a member starting then.
    Least(f64, u32),
    /// Not known here: an irregular member, a device of the class short of memory for
    /// some member, or no member (the caller has candidates of the class filed: they were
    /// not made known, so they are walked).
    Unknown,
}

impl Urgents {
    pub(super) fn new(n: usize, classes: usize) -> Urgents {
        Urgents {
            side: vec![Side::Out; n],
            class: vec![0; n],
            parts: vec![(0.0, 0.0); n],
            node: vec![NIL; n],
            trees: Treaps::new(classes, 2),
            irregular: vec![0; classes],
            memo: vec![(u64::MAX, Answer::Unknown); classes],
        }
    }

    /// Ready op `v` (at position `p`) joins its class, if it has one.
    pub(super) fn ready(&mut self, s: &State, classes: &Classes, v: NodeIx, p: u32) {
        let Some(c) = classes.class_of(v) else {
            return;
        };
        let i = v as usize;
        self.class[i] = c;
        match parts(s, classes.devices(c), v) {
            Some(pw) => {
                self.parts[i] = pw;
                self.node[i] = self.trees.insert(2 * c, pw.0, p);
                self.side[i] = Side::ByP;
            }
            None => {
                self.side[i] = Side::Irregular;
                self.irregular[c as usize] += 1;
            }
        }
    }

    /// `v` leaves its class (placed, or its group placed).
    pub(super) fn leave(&mut self, v: NodeIx) {
        let i = v as usize;
        match self.side[i] {
            Side::Out => return,
            Side::Irregular => self.irregular[self.class[i] as usize] -= 1,
            Side::ByP | Side::ByW => self.trees.remove(self.node[i]),
        }
        self.side[i] = Side::Out;
    }

    /// A tensor of `v`'s arrived on `d`: if `d` is a device of its class, `v` is not
    /// regular any more.
    pub(super) fn arrived(&mut self, classes: &Classes, v: NodeIx, d: DevIx) {
        let i = v as usize;
        if matches!(self.side[i], Side::ByP | Side::ByW)
            && classes.devices(self.class[i]).contains(&d)
        {
            self.trees.remove(self.node[i]);
            self.side[i] = Side::Irregular;
            self.irregular[self.class[i] as usize] += 1;
        }
    }

    /// Class `c`'s least urgent time and position in waiting step `step` (read once per
    /// step: nothing it depends on changes within one). `order`: the op at each position.
    pub(super) fn answer(
        &mut self,
        s: &State,
        classes: &Classes,
        c: u32,
        step: u64,
        order: &[NodeIx],
    ) -> Answer {
        let (at, memo) = self.memo[c as usize];
        if at == step {
            return memo;
        }
        let answer = self.read(s, classes, c, order);
        self.memo[c as usize] = (step, answer);
        answer
    }

    fn read(&mut self, s: &State, classes: &Classes, c: u32, order: &[NodeIx]) -> Answer {
        let (devices, need) = (classes.devices(c), classes.need(c));
        if self.irregular[c as usize] > 0 || !devices.iter().all(|&e| s.fits_bytes(e, need)) {
            return Answer::Unknown;
        }
        let latest = |of: &dyn Fn(DevIx) -> f64| {
            devices
                .iter()
                .map(|&e| of(e))
                .fold(f64::NEG_INFINITY, f64::max)
        };
        let channel = latest(&|e| s.channel[e as usize]);
        let floor = latest(&|e| s.free[e as usize].max(s.now));
        let (by_p, by_w) = (2 * c as usize, 2 * c as usize + 1);
        // The least P of a member still bound by it (others move on).
        let least_p = loop {
            if self.trees.is_empty(by_p) {
                break f64::INFINITY;
            }
            let first = self.trees.first[by_p];
            let p = self.trees.least_within(by_p, NIL, |key| key <= first);
            let v = order[p as usize];
            if !self.bound_by_w(v, channel, p) {
                break first;
            }
        };
        let least_w = if self.trees.is_empty(by_w) {
            f64::INFINITY
        } else {
            channel + self.trees.first[by_w]
        };
        let least = least_p.min(least_w);
        if least == f64::INFINITY {
            return Answer::Unknown;
        }
        let t = floor.max(least);
        loop {
            let pw = self.trees.least_within(by_w, NIL, |w| channel + w <= t);
            let pp = self.trees.least_within(by_p, pw, |p| p <= t);
            if pp == pw {
                return Answer::Least(t, pw);
            }
            if !self.bound_by_w(order[pp as usize], channel, pp) {
                return Answer::Least(t, pp);
            }
        }
    }

    /// Whether member `v` (at position `p`, in the `P` tree) is bound by `C + W` now; if so
    /// it moves to the `W` tree.
    fn bound_by_w(&mut self, v: NodeIx, channel: f64, p: u32) -> bool {
        let i = v as usize;
        let (pv, wv) = self.parts[i];
        if channel + wv <= pv {
            return false;
        }
        self.trees.remove(self.node[i]);
        self.node[i] = self.trees.insert(2 * self.class[i] + 1, wv, p);
        self.side[i] = Side::ByW;
        true
    }
}

/// `(P, W)` of ready op `v` whose class's devices are `devices`, or `None` when it is not
/// regular (module doc).
fn parts(s: &State, devices: &[DevIx], v: NodeIx) -> Option<(f64, f64)> {
    if !s.opts.channel || devices.len() < 2 {
        return None;
    }
    let (mut fixed, mut most) = (0.0f64, f64::NEG_INFINITY);
    for feed in s.feeds[v as usize].iter().filter(|f| !f.tensors.is_empty()) {
        let u = feed.src as usize;
        let from = s.placement[u];
        if !devices.contains(&from) {
            return None;
        }
        let mut w: Option<f64> = None;
        for &e in devices.iter().filter(|&&e| e != from) {
            if feed.tensors.iter().any(|&t| s.arrival(t, e).is_some()) {
                return None;
            }
            // Nothing of it on `e` yet: the estimate's summed transfer time (`State::feed_on`).
            let (_, Some(sum)) = s.feed_on(feed, e) else {
                return None;
            };
            match w {
                None => w = Some(sum),
                Some(x) if x.to_bits() != sum.to_bits() => return None,
                Some(_) => {}
            }
        }
        let w = w?;
        fixed = fixed.max(s.finish[u] + w);
        most = most.max(w);
    }
    Some((fixed, most))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::problem::Problem;
    use crate::place::etf::options::Options;
    use crate::testutil::parse;

    const DEFAULT: Options = Options {
        channel: true,
        static_memory: false,
    };

    /// `u` feeds `v` and `x` one 4-byte tensor, on three devices alike in speed; the link
    /// from d0 to d1 is faster than the others (bandwidth 8 against 1). `v`'s parts are its
    /// urgent time's, exactly, while it is regular:
    /// - `u` on d2: 4 to d0 and to d1, regular: `P = 1 + 4`, `W = 4`, and `max(F, P, C + W)`
    ///   is `State::urgent`; after `x` is placed on d0 (the tensor is then there) it is not;
    /// - `u` on d0: 0.5 to d1 but 4 to d2, not regular.
    #[test]
    fn parts_are_the_urgent_times_or_none() {
        let (g, c) = parse(
            r#"{"nodes":[{"id":"u","cost":1},{"id":"v","cost":1},{"id":"x","cost":1}],
                "edges":[{"src":"u","dst":"v","bytes":4,"tensor":"t"},{"src":"u","dst":"x","bytes":4,"tensor":"t"}]}"#,
            r#"{"devices":[{"id":"d0","speed":1},{"id":"d1","speed":1},{"id":"d2","speed":1}],
                "bandwidth":1,"links":[{"src":"d0","dst":"d1","bandwidth":8}]}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        let all = [0, 1, 2];
        let (u, v, x) = (0, 1, 2);
        let mut s = State::new(&p, DEFAULT);
        s.commit(u, 2, 0.0);
        let (pv, wv) = parts(&s, &all, v).expect("regular");
        assert_eq!((pv, wv), (5.0, 4.0));
        let channel = s.channel.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let floor = s
            .free
            .iter()
            .map(|&f| f.max(s.now))
            .fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(floor.max(pv).max(channel + wv), s.urgent(v));
        let start = s.start(x, 0).unwrap();
        s.commit(x, 0, start);
        assert!(s.arrival(0, 0).is_some());
        assert_eq!(parts(&s, &all, v), None, "its tensor is on d0");
        let mut s = State::new(&p, DEFAULT);
        s.commit(u, 0, 0.0);
        assert_eq!(parts(&s, &all, v), None, "links unlike");
        // Without the channel model nothing is read.
        let mut s = State::new(
            &p,
            Options {
                channel: false,
                ..DEFAULT
            },
        );
        s.commit(u, 2, 0.0);
        assert_eq!(parts(&s, &all, v), None);
    }
}
