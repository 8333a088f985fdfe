//! m-ETF's trees: treaps of (ready op, device) candidates ordered by `(key, position)`, each
//! subtree knowing its least topological position, all in one arena ([`Treaps`]).

/// A treap node: one (ready op, device) candidate of m-ETF's index, or a bundle of them
/// (`bundles.rs`, under its least member's position), in the tree of the term that bounded
/// its estimate when it was filed.
#[derive(Clone, Copy)]
struct Node {
    /// The term's part that does not move: the fixed part itself, or the transfer time
    /// added to a channel.
    key: f64,
    /// The op's topological position (a bundle's: its least member's).
    pos: u32,
    prio: u32,
    left: u32,
    right: u32,
    /// The least position in this subtree.
    best: u32,
    /// The tree it is in (`device * (k + 1) + term`).
    tree: u32,
}

/// No node (and no position: the greatest `u32`, so `min` ignores it).
pub(super) const NIL: u32 = u32::MAX;

/// Treaps ordered by `(key, pos)`, each subtree knowing its least topological position;
/// one arena for all trees.
pub(super) struct Treaps {
    nodes: Vec<Node>,
    free: Vec<u32>,
    roots: Vec<u32>,
    /// Each non-empty tree's least key.
    pub(super) first: Vec<f64>,
    /// Trees per group (a device's trees), and per group a bit set of its non-empty ones.
    group: usize,
    live: Vec<u64>,
    /// Priorities: a xorshift stream (the shape only; no answer depends on it).
    rand: u32,
}

impl Treaps {
    pub(super) fn new(groups: usize, group: usize) -> Treaps {
        Treaps {
            nodes: Vec::new(),
            free: Vec::new(),
            roots: vec![NIL; groups * group],
            first: vec![0.0; groups * group],
            group,
            live: vec![0; groups * group.div_ceil(64)],
            rand: 0x9e37_79b9,
        }
    }

    /// Where tree `tree`'s bit is in `live`.
    fn bit(&self, tree: usize) -> (usize, u64) {
        let (g, t) = (tree / self.group, tree % self.group);
        (g * self.group.div_ceil(64) + t / 64, 1 << (t % 64))
    }

    /// The non-empty trees of group `g`, as indices within the group, into `out`.
    pub(super) fn live_trees(&self, g: usize, out: &mut Vec<usize>) {
        out.clear();
        let words = self.group.div_ceil(64);
        for w in 0..words {
            let mut bits = self.live[g * words + w];
            while bits != 0 {
                out.push(w * 64 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
    }

    /// The least of `value(tree, least key)` over group `g`'s non-empty trees (`tree`
    /// within the group; infinite when all are empty).
    pub(super) fn least_first(&self, g: usize, value: impl Fn(usize, f64) -> f64) -> f64 {
        let words = self.group.div_ceil(64);
        let mut low = f64::INFINITY;
        for w in 0..words {
            let mut bits = self.live[g * words + w];
            while bits != 0 {
                let t = w * 64 + bits.trailing_zeros() as usize;
                low = low.min(value(t, self.first[g * self.group + t]));
                bits &= bits - 1;
            }
        }
        low
    }

    /// Whether node `a` comes before `(key, pos)`.
    fn before(&self, a: u32, key: f64, pos: u32) -> bool {
        let n = &self.nodes[a as usize];
        n.key < key || (n.key == key && n.pos < pos)
    }

    fn pull(&mut self, t: u32) {
        let n = self.nodes[t as usize];
        let mut b = n.pos;
        if n.left != NIL {
            b = b.min(self.nodes[n.left as usize].best);
        }
        if n.right != NIL {
            b = b.min(self.nodes[n.right as usize].best);
        }
        self.nodes[t as usize].best = b;
    }

    /// Splits `t` into the nodes before `(key, pos)` and the others.
    fn split(&mut self, t: u32, key: f64, pos: u32) -> (u32, u32) {
        if t == NIL {
            return (NIL, NIL);
        }
        if self.before(t, key, pos) {
            let (l, r) = self.split(self.nodes[t as usize].right, key, pos);
            self.nodes[t as usize].right = l;
            self.pull(t);
            (t, r)
        } else {
            let (l, r) = self.split(self.nodes[t as usize].left, key, pos);
            self.nodes[t as usize].left = r;
            self.pull(t);
            (l, t)
        }
    }

    /// Joins `a` and `b`, every node of `a` before every node of `b`.
    fn merge(&mut self, a: u32, b: u32) -> u32 {
        if a == NIL {
            return b;
        }
        if b == NIL {
            return a;
        }
        if self.nodes[a as usize].prio > self.nodes[b as usize].prio {
            let r = self.merge(self.nodes[a as usize].right, b);
            self.nodes[a as usize].right = r;
            self.pull(a);
            a
        } else {
            let l = self.merge(a, self.nodes[b as usize].left);
            self.nodes[b as usize].left = l;
            self.pull(b);
            b
        }
    }

    /// Puts node `id` into the tree rooted at `root`; returns its root. Down the path while
    /// the nodes' priorities are not below `id`'s, each subtree's least position takes
    /// `id`'s; where the path meets a lower priority (or ends), that subtree is split
    /// around `id`, which takes its place (the shape the recursive insertion gives).
    fn put(&mut self, root: u32, id: u32) -> u32 {
        let Node { key, pos, prio, .. } = self.nodes[id as usize];
        let (mut parent, mut left) = (NIL, false);
        let mut t = root;
        while t != NIL && self.nodes[t as usize].prio >= prio {
            let before = self.before(t, key, pos);
            let n = &mut self.nodes[t as usize];
            n.best = n.best.min(pos);
            parent = t;
            left = !before;
            t = if before { n.right } else { n.left };
        }
        let (l, r) = self.split(t, key, pos);
        self.nodes[id as usize].left = l;
        self.nodes[id as usize].right = r;
        self.pull(id);
        if parent == NIL {
            return id;
        }
        if left {
            self.nodes[parent as usize].left = id;
        } else {
            self.nodes[parent as usize].right = id;
        }
        root
    }

    /// Takes the node `(key, pos)` out of subtree `t`; returns the subtree's root.
    fn take(&mut self, t: u32, key: f64, pos: u32) -> u32 {
        let n = self.nodes[t as usize];
        if n.pos == pos {
            return self.merge(n.left, n.right);
        }
        if self.before(t, key, pos) {
            let r = self.take(n.right, key, pos);
            self.nodes[t as usize].right = r;
        } else {
            let l = self.take(n.left, key, pos);
            self.nodes[t as usize].left = l;
        }
        self.pull(t);
        t
    }

    pub(super) fn insert(&mut self, tree: u32, key: f64, pos: u32) -> u32 {
        self.rand ^= self.rand << 13;
        self.rand ^= self.rand >> 17;
        self.rand ^= self.rand << 5;
        let node = Node {
            key,
            pos,
            prio: self.rand,
            left: NIL,
            right: NIL,
            best: pos,
            tree,
        };
        let id = match self.free.pop() {
            Some(id) => {
                self.nodes[id as usize] = node;
                id
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        };
        let tree = tree as usize;
        let root = self.roots[tree];
        if root == NIL || key < self.first[tree] {
            self.first[tree] = key;
        }
        if root == NIL {
            let (w, b) = self.bit(tree);
            self.live[w] |= b;
        }
        self.roots[tree] = self.put(root, id);
        id
    }

    /// Whether `tree` holds nothing.
    pub(super) fn is_empty(&self, tree: usize) -> bool {
        self.roots[tree] == NIL
    }

    /// Node `id`'s position.
    pub(super) fn pos(&self, id: u32) -> u32 {
        self.nodes[id as usize].pos
    }

    /// The tree and key node `id` is filed under.
    pub(super) fn filed(&self, id: u32) -> (u32, f64) {
        let n = &self.nodes[id as usize];
        (n.tree, n.key)
    }

    pub(super) fn remove(&mut self, id: u32) {
        let Node { key, pos, tree, .. } = self.nodes[id as usize];
        let tree = tree as usize;
        // A tree holds an op once: `pos` finds the node.
        let root = self.take(self.roots[tree], key, pos);
        self.roots[tree] = root;
        if root == NIL {
            let (w, b) = self.bit(tree);
            self.live[w] &= !b;
        } else if key == self.first[tree] {
            let mut t = root;
            while self.nodes[t as usize].left != NIL {
                t = self.nodes[t as usize].left;
            }
            self.first[tree] = self.nodes[t as usize].key;
        }
        self.free.push(id);
    }

    /// Appends to `out` the positions of the nodes of `tree` whose key passes `fits`, which
    /// holds for every key up to some bound and none beyond, in key order; `stack` is
    /// scratch. Costs the number found plus the tree's depth.
    pub(super) fn each_within(
        &self,
        tree: usize,
        fits: impl Fn(f64) -> bool,
        stack: &mut Vec<u32>,
        out: &mut Vec<u32>,
    ) {
        stack.clear();
        let mut t = self.roots[tree];
        loop {
            // Down the left spine; a node whose key fails is followed only to the left.
            while t != NIL {
                stack.push(t);
                t = self.nodes[t as usize].left;
            }
            let Some(top) = stack.pop() else {
                return;
            };
            let n = &self.nodes[top as usize];
            if !fits(n.key) {
                // Every node after it fails too.
                return;
            }
            out.push(n.pos);
            t = n.right;
        }
    }

    /// The least of `below` and the positions of the nodes of `tree` whose key passes
    /// `fits`, which holds for every key up to some bound and none beyond (`NIL`: none
    /// passes). A subtree whose least position is not below the best so far is not entered.
    pub(super) fn least_within(&self, tree: usize, below: u32, fits: impl Fn(f64) -> bool) -> u32 {
        let mut t = self.roots[tree];
        let mut best = below;
        while t != NIL {
            let n = &self.nodes[t as usize];
            if n.best >= best {
                break;
            }
            if fits(n.key) {
                best = best.min(n.pos);
                if n.left != NIL {
                    best = best.min(self.nodes[n.left as usize].best);
                }
                t = n.right;
            } else {
                t = n.left;
            }
        }
        best
    }
}
