//! A device's idle time for HEFT's insertion policy ([`FreeTime`]): its gaps in a treap
//! keyed by start, each subtree knowing its longest gap, so the earliest gap that fits an
//! op is found in `O(log G)` (`G` gaps, at most `2V + 1` on a device).

const NIL: u32 = u32::MAX;

/// A gap found by [`FreeTime::find`]: its node and the start time chosen.
#[derive(Debug, Clone, Copy)]
pub(super) struct Slot {
    node: u32,
    pub(super) time: f64,
}

#[derive(Debug, Clone)]
struct Gap {
    start: f64,
    end: f64,
    /// The longest gap (`end - start`) in this node's subtree.
    longest: f64,
    prio: u32,
    left: u32,
    right: u32,
}

/// The idle time of one device as disjoint gaps `(start, end)` of positive length, the
/// last one `(end of the last op, ∞)`. An op occupies part of one gap, which leaves at
/// most two gaps behind, so starts stay distinct and the tree's order is the time order.
#[derive(Debug, Clone)]
pub(super) struct FreeTime {
    gaps: Vec<Gap>,
    root: u32,
    /// Nodes of removed gaps, reused.
    spare: Vec<u32>,
    /// Scratch: a path from the root.
    path: Vec<u32>,
    /// Priorities: a xorshift stream (the tree's shape only; no answer depends on it).
    seed: u32,
}

impl FreeTime {
    pub(super) fn new() -> FreeTime {
        let mut f = FreeTime {
            gaps: Vec::new(),
            root: NIL,
            spare: Vec::new(),
            path: Vec::new(),
            seed: 0x9E37_79B9,
        };
        f.root = f.node(0.0, f64::INFINITY);
        f
    }

    /// The earliest start `t >= ready` with `[t, t + run]` idle (insertion policy).
    /// A zero-length op still waits for an idle instant. The first gap that ends after
    /// `ready` is the only one `ready` may cut short; every later gap starts after `ready`
    /// and fits when it is as long as the op, so the subtrees' longest gaps lead to it.
    pub(super) fn find(&self, ready: f64, run: f64) -> Slot {
        // The first gap ending after `ready` (ends ascend with starts).
        let (mut x, mut first) = (self.root, NIL);
        while x != NIL {
            let g = &self.gaps[x as usize];
            if g.end > ready {
                first = x;
                x = g.left;
            } else {
                x = g.right;
            }
        }
        // The last gap is unbounded, so `first` exists and some gap fits.
        let g = &self.gaps[first as usize];
        let time = g.start.max(ready);
        if g.end - time >= run {
            return Slot { node: first, time };
        }
        let node = self.first_fit(self.root, g.start, run);
        Slot {
            node,
            time: self.gaps[node as usize].start,
        }
    }

    /// In `x`'s subtree, the first gap starting after `after` that is at least `run` long
    /// (`NIL` when none): down the path to `after`, each right subtree long enough is the
    /// answer's side, and within it the leftmost long-enough branch.
    fn first_fit(&self, x: u32, after: f64, run: f64) -> u32 {
        if x == NIL || self.gaps[x as usize].longest < run {
            return NIL;
        }
        let g = &self.gaps[x as usize];
        if g.start <= after {
            return self.first_fit(g.right, after, run);
        }
        let left = self.first_fit(g.left, after, run);
        if left != NIL {
            return left;
        }
        if g.end - g.start >= run {
            return x;
        }
        self.leftmost_fit(g.right, run)
    }

    /// The first gap of `x`'s subtree at least `run` long.
    fn leftmost_fit(&self, mut x: u32, run: f64) -> u32 {
        while x != NIL && self.gaps[x as usize].longest >= run {
            let g = &self.gaps[x as usize];
            if g.left != NIL && self.gaps[g.left as usize].longest >= run {
                x = g.left;
            } else if g.end - g.start >= run {
                return x;
            } else {
                x = g.right;
            }
        }
        NIL
    }

    /// Marks `[slot.time, slot.time + run]` busy inside the gap `find` returned. A
    /// zero-length op splits its gap at its instant: a device runs one op at a time, so no
    /// later op may span that instant (otherwise the plan would run the zero-length op in
    /// the middle of another, which no non-preemptive device, and no replay, can do).
    pub(super) fn occupy(&mut self, slot: Slot, run: f64) {
        let x = slot.node;
        let Gap { start, end, .. } = self.gaps[x as usize];
        let stop = slot.time + run;
        match (slot.time > start, stop < end) {
            // The parts keep the gap's place in the order: it shrinks where it is (then
            // the longest gaps on its path are recomputed), and a part after it is added.
            (true, after) => {
                self.gaps[x as usize].end = slot.time;
                self.repull(start);
                if after {
                    let n = self.node(stop, end);
                    self.root = self.insert(self.root, n);
                }
            }
            (false, true) => {
                self.gaps[x as usize].start = stop;
                self.repull(stop);
            }
            (false, false) => {
                self.root = self.remove(self.root, start);
                self.spare.push(x);
            }
        }
    }

    /// Recomputes the longest gaps on the path from the root to the gap starting at `at`.
    fn repull(&mut self, at: f64) {
        let mut path = std::mem::take(&mut self.path);
        let mut x = self.root;
        while x != NIL {
            path.push(x);
            let g = &self.gaps[x as usize];
            x = if at < g.start {
                g.left
            } else if at > g.start {
                g.right
            } else {
                NIL
            };
        }
        while let Some(x) = path.pop() {
            self.pull(x);
        }
        self.path = path;
    }

    /// Adds node `n` to `x`'s subtree (no gap there starts where it starts).
    fn insert(&mut self, x: u32, n: u32) -> u32 {
        if x == NIL {
            return n;
        }
        let at = self.gaps[n as usize].start;
        if self.gaps[n as usize].prio > self.gaps[x as usize].prio {
            let (l, r) = self.split(x, at);
            self.gaps[n as usize].left = l;
            self.gaps[n as usize].right = r;
            self.pull(n);
            return n;
        }
        if at < self.gaps[x as usize].start {
            let l = self.insert(self.gaps[x as usize].left, n);
            self.gaps[x as usize].left = l;
        } else {
            let r = self.insert(self.gaps[x as usize].right, n);
            self.gaps[x as usize].right = r;
        }
        self.pull(x);
        x
    }

    /// Takes the gap starting at `at` out of `x`'s subtree.
    fn remove(&mut self, x: u32, at: f64) -> u32 {
        if x == NIL {
            return NIL;
        }
        let g = &self.gaps[x as usize];
        let (left, right) = (g.left, g.right);
        if at == g.start {
            return self.merge(left, right);
        }
        if at < g.start {
            let l = self.remove(left, at);
            self.gaps[x as usize].left = l;
        } else {
            let r = self.remove(right, at);
            self.gaps[x as usize].right = r;
        }
        self.pull(x);
        x
    }

    /// Number of gaps (tests).
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.gaps.len() - self.spare.len()
    }

    fn node(&mut self, start: f64, end: f64) -> u32 {
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 17;
        self.seed ^= self.seed << 5;
        let gap = Gap {
            start,
            end,
            longest: end - start,
            prio: self.seed,
            left: NIL,
            right: NIL,
        };
        match self.spare.pop() {
            Some(i) => {
                self.gaps[i as usize] = gap;
                i
            }
            None => {
                self.gaps.push(gap);
                (self.gaps.len() - 1) as u32
            }
        }
    }

    fn pull(&mut self, x: u32) {
        let g = &self.gaps[x as usize];
        let mut longest = g.end - g.start;
        for c in [g.left, g.right] {
            if c != NIL {
                longest = longest.max(self.gaps[c as usize].longest);
            }
        }
        self.gaps[x as usize].longest = longest;
    }

    /// Splits `x` into the gaps starting before `at` and the rest.
    fn split(&mut self, x: u32, at: f64) -> (u32, u32) {
        if x == NIL {
            return (NIL, NIL);
        }
        if self.gaps[x as usize].start < at {
            let (l, r) = self.split(self.gaps[x as usize].right, at);
            self.gaps[x as usize].right = l;
            self.pull(x);
            (x, r)
        } else {
            let (l, r) = self.split(self.gaps[x as usize].left, at);
            self.gaps[x as usize].left = r;
            self.pull(x);
            (l, x)
        }
    }

    /// Joins two trees, every gap of `a` before every gap of `b`.
    fn merge(&mut self, a: u32, b: u32) -> u32 {
        if a == NIL {
            return b;
        }
        if b == NIL {
            return a;
        }
        if self.gaps[a as usize].prio > self.gaps[b as usize].prio {
            let r = self.merge(self.gaps[a as usize].right, b);
            self.gaps[a as usize].right = r;
            self.pull(a);
            a
        } else {
            let l = self.merge(a, self.gaps[b as usize].left);
            self.gaps[b as usize].left = l;
            self.pull(b);
            b
        }
    }
}
