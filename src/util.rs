//! Small building blocks shared by placers and schedulers.

use std::cmp::Ordering;

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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BinaryHeap;

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
}
