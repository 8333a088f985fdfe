//! The simulator's pending events, earliest first: a 4-ary min-heap whose entries carry
//! their order as one integer ([`Events`]).
//!
//! An event's order is `(time, seq)`: time by `f64::total_cmp`, then its event number. Event
//! numbers are unique, so the order is strict and any correct queue pops the same sequence;
//! this one packs `(time, seq)` into a `u128` whose integer order is that order (one
//! comparison, no float rules on the way), and keeps four children per node (half the levels
//! of a binary heap, each pop's children read from one or two cache lines). On wide graphs
//! thousands of transfers are in flight, and `std`'s `BinaryHeap` of `(f64, u64)` pairs was
//! about a tenth of a simulation.

/// `f64::total_cmp`'s order as an unsigned integer order.
#[inline]
fn time_bits(t: f64) -> u64 {
    let b = t.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

/// The inverse of [`time_bits`].
#[inline]
fn time_of(bits: u64) -> f64 {
    f64::from_bits(if bits >> 63 == 1 {
        bits & !(1 << 63)
    } else {
        !bits
    })
}

/// One event as the simulator reads it back.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Event {
    pub time: f64,
    /// Op region, or in-flight slot with the transfer bit set (the simulator's encoding).
    pub what: u32,
}

/// Pending events, least `(time, seq)` first.
#[derive(Debug, Default)]
pub(super) struct Events {
    /// `(time_bits << 64 | seq, what)`, a 4-ary heap: the children of `i` are `4i + 1 ..= 4i + 4`.
    heap: Vec<(u128, u32)>,
}

impl Events {
    pub fn with_capacity(n: usize) -> Events {
        Events {
            heap: Vec::with_capacity(n),
        }
    }

    pub fn push(&mut self, time: f64, seq: u64, what: u32) {
        let key = (time_bits(time) as u128) << 64 | seq as u128;
        let heap = &mut self.heap;
        let mut i = heap.len();
        heap.push((key, what));
        while i > 0 {
            let parent = (i - 1) / 4;
            if heap[parent].0 <= key {
                break;
            }
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = (key, what);
    }

    /// The time of the least event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<f64> {
        self.heap
            .first()
            .map(|&(key, _)| time_of((key >> 64) as u64))
    }

    pub fn pop(&mut self) -> Option<Event> {
        let heap = &mut self.heap;
        let last = heap.pop()?;
        let top = if heap.is_empty() {
            last
        } else {
            let top = heap[0];
            // Sift `last` down from the root.
            let n = heap.len();
            let mut i = 0;
            loop {
                let first = 4 * i + 1;
                if first >= n {
                    break;
                }
                let mut c = first;
                let end = (first + 4).min(n);
                for j in first + 1..end {
                    if heap[j].0 < heap[c].0 {
                        c = j;
                    }
                }
                if heap[c].0 >= last.0 {
                    break;
                }
                heap[i] = heap[c];
                i = c;
            }
            heap[i] = last;
            top
        };
        Some(Event {
            time: time_of((top.0 >> 64) as u64),
            what: top.1,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    #[test]
    fn time_bits_follow_total_cmp_and_come_back() {
        let xs = [
            f64::NEG_INFINITY,
            -3.5,
            -1e-300,
            -0.0,
            0.0,
            1e-300,
            2.0,
            f64::INFINITY,
        ];
        for a in xs {
            assert_eq!(time_of(time_bits(a)).to_bits(), a.to_bits());
            for b in xs {
                assert_eq!(time_bits(a).cmp(&time_bits(b)), a.total_cmp(&b), "{a} {b}");
            }
        }
    }

    /// Random pushes and pops (repeated times, -0.0 and 0.0, bursts) come out as from a
    /// `BinaryHeap` ordered by `(time, seq)` with `total_cmp`, as the simulator's was.
    #[test]
    fn same_order_as_a_binary_heap() {
        let mut rng = Rng::new(11);
        for _ in 0..30 {
            let mut a = Events::with_capacity(4);
            let mut b: BinaryHeap<Reverse<(u64, u64, u32)>> = BinaryHeap::new();
            let mut seq = 0u64;
            for _ in 0..4000 {
                let burst = if rng.below(40) == 0 { 200 } else { 1 };
                if rng.below(3) > 0 {
                    for _ in 0..burst {
                        let base = [-0.0, 0.0, 1.0, 2.5, 3.0, 1e9][rng.below(6) as usize];
                        let time = match rng.below(3) {
                            0 => base,
                            r => base + r as f64,
                        };
                        let what = rng.below(1 << 31) as u32;
                        a.push(time, seq, what);
                        b.push(Reverse((time_bits(time), seq, what)));
                        seq += 1;
                    }
                }
                for _ in 0..rng.below(4) {
                    let want = b.pop().map(|Reverse((t, _, w))| (time_of(t).to_bits(), w));
                    let got = a.pop().map(|e| (e.time.to_bits(), e.what));
                    assert_eq!(got, want);
                    assert_eq!(
                        a.peek_time().map(f64::to_bits),
                        b.peek().map(|Reverse((t, ..))| time_of(*t).to_bits())
                    );
                }
            }
            while let Some(Reverse((t, _, w))) = b.pop() {
                assert_eq!(
                    a.pop(),
                    Some(Event {
                        time: time_of(t),
                        what: w
                    })
                );
            }
            assert_eq!(a.pop(), None);
        }
    }
}
