//! Small building blocks shared by placers and schedulers.

use std::cmp::Ordering;
use std::cmp::Reverse;

/// How a heap key orders: the greater key pops first from a [`std::collections::BinaryHeap`].
pub trait HeapKey {
    fn heap_cmp(&self, other: &Self) -> Ordering;
}

/// `f64` keys compare with [`f64::total_cmp`]: the larger pops first.
impl HeapKey for f64 {
    #[inline]
    fn heap_cmp(&self, other: &Self) -> Ordering {
        self.total_cmp(other)
    }
}

/// An entry of a [`std::collections::BinaryHeap`] (a max-heap): the greatest `key` (by
/// [`HeapKey`]) pops first; among equal keys, the smallest `tie`. `data` rides along and
/// plays no part in the order: entries that differ only in `data` compare equal.
#[derive(Debug, Clone, Copy)]
pub struct MaxEntry<K, T, D = ()> {
    pub key: K,
    pub tie: T,
    pub data: D,
}

impl<K: HeapKey, T: Ord, D> PartialEq for MaxEntry<K, T, D> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl<K: HeapKey, T: Ord, D> Eq for MaxEntry<K, T, D> {}
impl<K: HeapKey, T: Ord, D> PartialOrd for MaxEntry<K, T, D> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<K: HeapKey, T: Ord, D> Ord for MaxEntry<K, T, D> {
    /// Greater key first; among equal keys the smaller tie.
    fn cmp(&self, other: &Self) -> Ordering {
        self.key
            .heap_cmp(&other.key)
            .then_with(|| other.tie.cmp(&self.tie))
    }
}

/// `f64::total_cmp`'s order as an unsigned integer order: `a.total_cmp(&b)` is
/// `total_order_bits(a).cmp(&total_order_bits(b))`, so a key made of it compares as integers.
#[inline]
pub fn total_order_bits(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

/// The inverse of [`total_order_bits`].
#[inline]
pub fn from_total_order_bits(b: u64) -> f64 {
    f64::from_bits(if b >> 63 == 1 { b & !(1 << 63) } else { !b })
}

/// Two sequences, each already in order, merged into one: at each step `a`'s next item is
/// taken when `first(a's next, b's next)` holds, else `b`'s (so `first` decides ties).
pub fn merge_sorted<T: Copy>(a: &[T], b: &[T], first: impl Fn(&T, &T) -> bool) -> Vec<T> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if first(&a[i], &b[j]) {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// A min-heap of plain `Ord` values: the least pops first. `dary_heap`'s 4-ary heap (half
/// the levels of [`std::collections::BinaryHeap`], a level's four children in a cache line
/// or two) over `Reverse`d values, for small `Copy` keys (packed integers). Among equal
/// values the pop order is unspecified, so callers give it values of one strict order (a
/// unique event number or node in the key) and then every pop is determined by the set
/// alone.
#[derive(Debug, Clone)]
pub struct MinHeap4<T: Ord>(dary_heap::QuaternaryHeap<Reverse<T>>);

impl<T: Ord> Default for MinHeap4<T> {
    fn default() -> Self {
        MinHeap4(dary_heap::QuaternaryHeap::new())
    }
}

impl<T: Ord + Copy> MinHeap4<T> {
    pub fn with_capacity(n: usize) -> Self {
        MinHeap4(dary_heap::QuaternaryHeap::with_capacity(n))
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The least value.
    #[inline]
    pub fn peek(&self) -> Option<&T> {
        self.0.peek().map(|r| &r.0)
    }

    #[inline]
    pub fn push(&mut self, x: T) {
        self.0.push(Reverse(x));
    }

    /// Removes and returns the least value.
    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        self.0.pop().map(|r| r.0)
    }

    /// Keeps only the values `keep` accepts.
    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        self.0.retain(|r| keep(&r.0));
    }

    /// Empties the heap and returns its values in no particular order.
    pub fn take_vec(&mut self) -> Vec<T> {
        std::mem::take(&mut self.0)
            .into_vec()
            .into_iter()
            .map(|r| r.0)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BinaryHeap;

    #[test]
    fn merge_sorted_keeps_order_and_lets_first_decide_ties() {
        // Pairs ordered by key; the tag says which side an item came from.
        let a = [(1, 'a'), (3, 'a'), (3, 'a'), (7, 'a')];
        let b = [(0, 'b'), (3, 'b'), (8, 'b'), (9, 'b')];
        let a_first = merge_sorted(&a, &b, |x, y| x.0 <= y.0);
        assert_eq!(
            a_first,
            [
                (0, 'b'),
                (1, 'a'),
                (3, 'a'),
                (3, 'a'),
                (3, 'b'),
                (7, 'a'),
                (8, 'b'),
                (9, 'b')
            ]
        );
        let b_first = merge_sorted(&a, &b, |x, y| x.0 < y.0);
        assert_eq!(
            b_first,
            [
                (0, 'b'),
                (1, 'a'),
                (3, 'b'),
                (3, 'a'),
                (3, 'a'),
                (7, 'a'),
                (8, 'b'),
                (9, 'b')
            ]
        );
        assert_eq!(merge_sorted(&[], &b, |x, y| x.0 <= y.0), b);
        assert_eq!(merge_sorted(&a, &[], |x, y| x.0 <= y.0), a);
    }

    #[test]
    fn largest_key_then_smallest_tie_and_data_ignored() {
        let e = |key: f64, tie: (u64, u32), data: u8| MaxEntry { key, tie, data };
        let mut h = BinaryHeap::new();
        for x in [
            e(1.0, (0, 5), 0),
            e(2.0, (3, 1), 0),
            e(2.0, (1, 9), 0),
            e(2.0, (1, 2), 0),
            e(-0.0, (0, 0), 0),
            e(0.0, (0, 1), 0),
        ] {
            h.push(x);
        }
        let order: Vec<(f64, (u64, u32))> =
            std::iter::from_fn(|| h.pop().map(|x| (x.key, x.tie))).collect();
        // total_cmp: 0.0 is above -0.0.
        assert_eq!(
            order,
            vec![
                (2.0, (1, 2)),
                (2.0, (1, 9)),
                (2.0, (3, 1)),
                (1.0, (0, 5)),
                (0.0, (0, 1)),
                (-0.0, (0, 0))
            ]
        );
        assert_eq!(order[4].0.to_bits(), 0.0f64.to_bits());
        assert_eq!(e(1.0, (0, 0), 1), e(1.0, (0, 0), 2));
    }

    /// Random pushes and pops (bursts, repeated values) pop in the order of a
    /// `BinaryHeap<Reverse<_>>`; the bit orders follow `total_cmp` and invert.
    #[test]
    fn min_heap4_pops_like_a_binary_heap_and_bits_follow_total_cmp() {
        use std::cmp::Reverse;
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        for round in 0..30 {
            let mut a: MinHeap4<(u64, u32)> = MinHeap4::default();
            let mut b: BinaryHeap<Reverse<(u64, u32)>> = BinaryHeap::new();
            for _ in 0..2000 {
                let burst = if next(40) == 0 { 200 } else { 1 };
                if next(3) > 0 || round % 2 == 0 {
                    for _ in 0..burst {
                        let x = (next(8), next(5) as u32);
                        a.push(x);
                        b.push(Reverse(x));
                    }
                }
                if next(50) == 0 {
                    let m = next(8);
                    a.retain(|x| x.0 != m);
                    b.retain(|r| r.0 .0 != m);
                }
                for _ in 0..next(3) {
                    assert_eq!(a.pop(), b.pop().map(|r| r.0));
                    assert_eq!(a.len(), b.len());
                    assert_eq!(a.peek().copied(), b.peek().map(|r| r.0));
                }
            }
            while let Some(Reverse(x)) = b.pop() {
                assert_eq!(a.pop(), Some(x));
            }
            assert!(a.is_empty() && a.pop().is_none());
        }
        let xs = [
            f64::NEG_INFINITY,
            -3.5,
            -1e-300,
            -0.0,
            0.0,
            1e-300,
            2.0,
            f64::INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        for a in xs {
            assert_eq!(
                from_total_order_bits(total_order_bits(a)).to_bits(),
                a.to_bits()
            );
            for b in xs {
                assert_eq!(
                    total_order_bits(a).cmp(&total_order_bits(b)),
                    a.total_cmp(&b),
                    "{a} vs {b}"
                );
            }
        }
    }
}
