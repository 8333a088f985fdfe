//! The branch and bound's lower bounds (see `bb.rs`): the placement bound of a partial
//! placement (longest paths per device, updated from the parent's; one-machine bounds per
//! device and link; the work, window and insertion bounds) and the static heads and tails of
//! one placement's activity network.

use super::*;

impl<'p, 'a> Exact<'p, 'a> {
    /// Whether `v` may be on `d` under `placement` (placed ops on theirs only).
    pub(super) fn can(&self, placement: &[DevIx], v: NodeIx, d: usize) -> bool {
        match placement[v as usize] {
            UNPLACED => self.problem.allowed(v, d as DevIx),
            dv => dv as usize == d,
        }
    }

    /// Row `v` of the placement bound's heads (`head[v * k + d]`: `v`'s earliest start were
    /// it on `d`, infinite where it cannot be), from its producers' rows.
    pub(super) fn head_row(&self, placement: &[DevIx], head: &mut [f64], v: NodeIx) {
        let p = self.problem;
        let g = p.graph;
        let k = p.device_count();
        if k > MAX_WINDOW {
            return self.head_row_any(placement, head, v);
        }
        // Each producer's earliest end on each of its devices, once per edge rather than
        // once per edge and device of `v` (same sums, same order: the same bits).
        let mut h = [f64::INFINITY; MAX_WINDOW];
        for (d, h) in h.iter_mut().enumerate().take(k) {
            if self.can(placement, v, d) {
                *h = 0.0;
            }
        }
        let mut end = [f64::INFINITY; MAX_WINDOW];
        for &e in g.in_edges(v) {
            let u = g.edges[e as usize].src as usize;
            let run = p.exec_row(u as NodeIx);
            for du in 0..k {
                let hu = head[u * k + du];
                end[du] = if hu.is_finite() {
                    hu + run[du]
                } else {
                    f64::INFINITY
                };
            }
            let comm = &self.comm[e as usize * k * k..(e as usize + 1) * k * k];
            for d in 0..k {
                if h[d] == f64::INFINITY {
                    continue;
                }
                let mut ready = f64::INFINITY;
                for du in 0..k {
                    if end[du].is_finite() {
                        ready = ready.lo(end[du] + comm[du * k + d]);
                    }
                }
                h[d] = h[d].hi(ready);
            }
        }
        head[v as usize * k..(v as usize + 1) * k].copy_from_slice(&h[..k]);
    }

    /// [`Exact::head_row`] for any number of devices.
    pub(super) fn head_row_any(&self, placement: &[DevIx], head: &mut [f64], v: NodeIx) {
        let p = self.problem;
        let g = p.graph;
        let k = p.device_count();
        for d in 0..k {
            let mut h = f64::INFINITY;
            if self.can(placement, v, d) {
                h = 0.0;
                for &e in g.in_edges(v) {
                    let u = g.edges[e as usize].src;
                    let mut ready = f64::INFINITY;
                    for du in 0..k {
                        let hu = head[u as usize * k + du];
                        if hu.is_finite() {
                            let at = hu
                                + p.exec(u, du as DevIx)
                                + self.comm[(e as usize * k + du) * k + d];
                            ready = ready.lo(at);
                        }
                    }
                    h = h.hi(ready);
                }
            }
            head[v as usize * k + d] = h;
        }
    }

    /// Row `v` of the placement bound's tails (`tail[v * k + d]`: the least time from `v`'s
    /// end to the makespan were it on `d`), from its consumers' rows.
    pub(super) fn tail_row(&self, placement: &[DevIx], tail: &mut [f64], v: NodeIx) {
        let p = self.problem;
        let g = p.graph;
        let k = p.device_count();
        for d in 0..k {
            let mut t = f64::INFINITY;
            if self.can(placement, v, d) {
                t = 0.0;
                for &e in g.out_edges(v) {
                    let w = g.edges[e as usize].dst;
                    let mut after = f64::INFINITY;
                    for dw in 0..k {
                        let tw = tail[w as usize * k + dw];
                        if tw.is_finite() {
                            let at = self.comm[(e as usize * k + d) * k + dw]
                                + p.exec(w, dw as DevIx)
                                + tw;
                            after = after.lo(at);
                        }
                    }
                    t = t.hi(after);
                }
            }
            tail[v as usize * k + d] = t;
        }
    }

    /// The placement bound's heads and tails of `placement`, computed afresh (`heads`:
    /// `n * k` heads then `n * k` tails).
    pub(super) fn heads_tails(&self, placement: &[DevIx], heads: &mut Vec<f64>) {
        let g = self.problem.graph;
        let nk = g.node_count() * self.problem.device_count();
        heads.clear();
        heads.resize(2 * nk, f64::INFINITY);
        let (head, tail) = heads.split_at_mut(nk);
        for &v in g.topo_order() {
            self.head_row(placement, head, v);
        }
        for &v in g.topo_order().iter().rev() {
            self.tail_row(placement, tail, v);
        }
    }

    /// Updates `heads` (as [`Exact::heads_tails`] writes them) from the placement without
    /// `unit` to `placement`, which places it: only the rows of its members, of their
    /// descendants (heads) and ancestors (tails) whose inputs changed are recomputed, each
    /// by the same arithmetic, so the result is bit for bit the fresh one. `changed` is
    /// scratch.
    pub(super) fn update_heads_tails(
        &self,
        placement: &[DevIx],
        unit: u32,
        heads: &mut [f64],
        changed: &mut Vec<bool>,
    ) {
        let g = self.problem.graph;
        let n = g.node_count();
        let k = self.problem.device_count();
        let (head, tail) = heads.split_at_mut(n * k);
        let members = &self.units.members[unit as usize];
        let first = members.iter().map(|&v| self.pos[v as usize]).min();
        let last = members.iter().map(|&v| self.pos[v as usize]).max();
        let (Some(first), Some(last)) = (first, last) else {
            return;
        };
        let topo = g.topo_order();
        let mut row = [0.0f64; 8];
        // Heads: members and the ops downstream of a changed row, in topological order.
        changed.clear();
        changed.resize(n, false);
        for &v in &topo[first as usize..] {
            let vi = v as usize;
            let stale = members.contains(&v)
                || g.in_edges(v)
                    .iter()
                    .any(|&e| changed[g.edges[e as usize].src as usize]);
            if stale {
                changed[vi] = self.recompute(placement, head, v, &mut row, Self::head_row);
            }
        }
        // Tails: the same upstream, in reverse topological order.
        changed.fill(false);
        for &v in topo[..=last as usize].iter().rev() {
            let vi = v as usize;
            let stale = members.contains(&v)
                || g.out_edges(v)
                    .iter()
                    .any(|&e| changed[g.edges[e as usize].dst as usize]);
            if stale {
                changed[vi] = self.recompute(placement, tail, v, &mut row, Self::tail_row);
            }
        }
    }

    /// Recomputes row `v` of `rows` with `f`; whether it changed (`row` is scratch).
    pub(super) fn recompute(
        &self,
        placement: &[DevIx],
        rows: &mut [f64],
        v: NodeIx,
        row: &mut [f64; 8],
        f: fn(&Self, &[DevIx], &mut [f64], NodeIx),
    ) -> bool {
        let k = self.problem.device_count();
        let at = v as usize * k;
        if k > row.len() {
            f(self, placement, rows, v);
            return true;
        }
        row[..k].copy_from_slice(&rows[at..at + k]);
        f(self, placement, rows, v);
        rows[at..at + k] != row[..k]
    }

    /// A lower bound for a partial placement: longest path per device (each op's earliest
    /// start and least time to the end were it on each device it may take: placed ops on
    /// theirs, the others on any allowed one, each edge paying its transfer between the
    /// two devices), a one-machine bound per device (its placed ops) and per directed
    /// link (the sends between placed ops), the work bound, and the insertion bound: each
    /// unplaced op runs on one of its devices, with that device's placed ops and, on the
    /// links into it, the sends it needs from placed producers elsewhere (the least over
    /// its devices of those one-machine bounds). Computed afresh; the search updates the
    /// longest paths from its parent's ([`Exact::child_bound`]).
    #[cfg(test)]
    pub(super) fn partial_bound(&mut self, placement: &[DevIx]) -> f64 {
        let mut heads = std::mem::take(&mut self.scratch.heads);
        self.heads_tails(placement, &mut heads);
        let lb = self.bound_from(placement, &heads);
        self.scratch.heads = heads;
        lb
    }

    /// `Exact::partial_bound` (tests) of `placement`, which places `unit` on top of the
    /// placement whose heads and tails are `self.levels[base]` (`ROOT`: `self.root`),
    /// updated into `self.levels[slot]`.
    pub(super) fn child_bound(
        &mut self,
        placement: &[DevIx],
        unit: u32,
        base: usize,
        slot: usize,
    ) -> f64 {
        let mut buf = std::mem::take(&mut self.levels[slot]);
        buf.clear();
        buf.extend_from_slice(if base == ROOT {
            &self.root
        } else {
            &self.levels[base]
        });
        let mut changed = std::mem::take(&mut self.scratch.changed);
        self.update_heads_tails(placement, unit, &mut buf, &mut changed);
        self.scratch.changed = changed;
        let lb = self.bound_from(placement, &buf);
        self.levels[slot] = buf;
        lb
    }

    /// The placement bound of `placement` given its heads and tails (`heads`, as
    /// [`Exact::heads_tails`] writes them).
    pub(super) fn bound_from(&mut self, placement: &[DevIx], heads: &[f64]) -> f64 {
        let p = self.problem;
        let g = p.graph;
        let k = p.device_count();
        let n = g.node_count();
        let unplaced = UNPLACED;
        let (head, tail) = heads.split_at(n * k);
        let Scratch {
            heads: keep,
            changed,
            mut items,
            mut to,
            mut keyed,
            mut placed,
            mut ins,
        } = std::mem::take(&mut self.scratch);
        items.clear();
        to.resize(k, f64::INFINITY);
        let speed = |d: DevIx| p.cluster.devices[d as usize].speed;
        let mut work = 0.0;
        let mut best = 0.0f64;
        for &v in g.topo_order() {
            let v = v as usize;
            let dv = placement[v];
            work += if dv == unplaced {
                self.min_work[v]
            } else {
                p.exec(v as NodeIx, dv) * speed(dv)
            };
            let mut through = f64::INFINITY;
            for d in 0..k {
                if head[v * k + d].is_finite() {
                    through = through
                        .lo(head[v * k + d] + p.exec(v as NodeIx, d as DevIx) + tail[v * k + d]);
                }
            }
            best = best.hi(through);
        }
        let total_speed: f64 = p.cluster.devices.iter().map(|d| d.speed).sum();
        // The cheaper parts first: a child that the longest path prunes needs no more.
        let mut lb = best.hi(work / total_speed);
        let cut = self.cut();
        if lb < cut {
            lb = lb.hi(self.windows(placement, head, tail, cut, &mut keyed, &mut placed));
        }
        if lb < cut {
            // Placed ops' own heads and tails.
            let at = |x: &[f64], v: usize| x[v * k + placement[v] as usize];
            let run = |v: NodeIx| p.exec(v, placement[v as usize]);
            // One machine per device (its placed ops) and per directed link (fcfs: the sends
            // between placed ops, after their producer, before their consumer's tail).
            for (v, &d) in placement.iter().enumerate() {
                if d != unplaced {
                    items.push((d, at(head, v), run(v as NodeIx), at(tail, v)));
                }
            }
            if self.links == LinkModel::Fcfs {
                for (t, tensor) in g.tensors.iter().enumerate() {
                    let u = tensor.src as usize;
                    let s = placement[u];
                    let bytes = p.tensor_bytes[t];
                    if s == unplaced || bytes <= 0.0 {
                        continue;
                    }
                    to.fill(f64::INFINITY);
                    for &e in &tensor.edges {
                        let w = g.edges[e as usize].dst;
                        let dw = placement[w as usize];
                        if dw != unplaced && dw != s {
                            let after = run(w) + at(tail, w as usize);
                            to[dw as usize] = to[dw as usize].lo(after);
                        }
                    }
                    for (d, &after) in to.iter().enumerate() {
                        if after.is_finite() {
                            items.push((
                                (k + s as usize * k + d) as u32,
                                at(head, u) + run(u as NodeIx),
                                p.cluster.transfer_time(s, d as DevIx, bytes),
                                after,
                            ));
                        }
                    }
                }
            }
            sort_items(&mut items, &mut ins, k + k * k);
            lb = lb.hi(one_machine_sorted(&items));
        }
        // Each unplaced op runs on some device it may take, with that device's placed
        // ops: the least over its devices of their one-machine bound with it added
        // (`items` are sorted by resource, then head, decreasing).
        if lb < cut {
            for v in 0..n {
                if lb >= cut {
                    break;
                }
                if placement[v] != unplaced {
                    continue;
                }
                let mut least = f64::INFINITY;
                for d in 0..k {
                    let h = head[v * k + d];
                    if !h.is_finite() || !p.allowed(v as NodeIx, d as DevIx) {
                        continue;
                    }
                    let run_v = p.exec(v as NodeIx, d as DevIx);
                    let after = run_v + tail[v * k + d];
                    // Its own head, run time and tail (a part of `val`) cannot lower
                    // `least`.
                    if h + after >= least {
                        continue;
                    }
                    let mut val = with_item(&items, (d as u32, h, run_v, tail[v * k + d]));
                    // The sends it needs from placed producers on other devices, on their
                    // links (fcfs), unless that tensor already goes to `d`.
                    if self.links == LinkModel::Fcfs && val < cut {
                        for &e in g.in_edges(v as NodeIx) {
                            let edge = &g.edges[e as usize];
                            let u = edge.src as usize;
                            let s = placement[u];
                            let bytes = p.tensor_bytes[edge.tensor as usize];
                            if s == unplaced || s as usize == d || bytes <= 0.0 {
                                continue;
                            }
                            let sent = g.tensors[edge.tensor as usize].edges.iter().any(|&f| {
                                placement[g.edges[f as usize].dst as usize] as usize == d
                            });
                            if sent {
                                continue;
                            }
                            let x = (
                                (k + s as usize * k + d) as u32,
                                head[u * k + s as usize] + p.exec(u as NodeIx, s),
                                // `transfer_time(s, d, bytes)`, precomputed.
                                self.comm[(e as usize * k + s as usize) * k + d],
                                after,
                            );
                            val = val.hi(with_item(&items, x));
                        }
                    }
                    least = least.lo(val);
                    if least <= lb {
                        break;
                    }
                }
                lb = lb.hi(least);
            }
        }
        self.scratch = Scratch {
            heads: keep,
            changed,
            items,
            to,
            keyed,
            placed,
            ins,
        };
        lb
    }

    /// The window work bound of a set of unplaced ops, given for each device `d` the least
    /// of their heads there (`h[d]`, infinite where none may run) and of their tails
    /// (`q[d]`), and `w`, the sum of their least works (run time times speed, least over
    /// their devices): the set's ops on `d` start no earlier than `h[d]` and end at least
    /// `q[d]` before the makespan `M`; so do the placed ops of `d` whose own head and tail
    /// are at least those (`placed`: device, head, tail, run time). So `d` runs `P_d`
    /// (those placed ops' run times) plus its share of the set within `M - h[d] - q[d]`,
    /// and an op `v` on `d` runs at least `w_v / s_d` (`s_d` the speed): `w <= sum_d s_d
    /// max(0, M - h[d] - q[d] - P_d)`, whose least `M` (water filling) bounds every
    /// completion.
    pub(super) fn window_work(
        &self,
        h: &[f64],
        q: &[f64],
        w: f64,
        placed: &[(u32, f64, f64, f64)],
    ) -> f64 {
        let k = h.len();
        let mut base = [f64::INFINITY; MAX_WINDOW];
        for d in 0..k {
            if h[d].is_finite() && q[d].is_finite() {
                base[d] = h[d] + q[d];
            }
        }
        for &(d, hv, tv, run) in placed {
            let d = d as usize;
            if hv >= h[d] && tv >= q[d] {
                base[d] += run;
            }
        }
        let mut order = [0usize; MAX_WINDOW];
        for (d, o) in order.iter_mut().enumerate().take(k) {
            *o = d;
        }
        order[..k].sort_unstable_by(|&a, &b| base[a].total_cmp(&base[b]).then(a.cmp(&b)));
        let (mut speeds, mut weighted) = (0.0, 0.0);
        for j in 0..k {
            let d = order[j];
            if !base[d].is_finite() {
                break;
            }
            let s = self.problem.cluster.devices[d].speed;
            speeds += s;
            weighted += s * base[d];
            let level = (w + weighted) / speeds;
            let next = if j + 1 < k {
                base[order[j + 1]]
            } else {
                f64::INFINITY
            };
            if level <= next {
                return level;
            }
        }
        f64::INFINITY
    }

    /// [`Exact::window_work`] over the unplaced ops with edges whose least head over
    /// their devices is at least each of theirs (a late set has a late window), then the
    /// same by tails: the largest, stopping at `cut`. Unlike the work bound, which starts
    /// every device at 0, it sees that the last ops to place (sinks) cannot start before
    /// their producers end. `keyed` and `placed` are scratch.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn windows(
        &self,
        placement: &[DevIx],
        head: &[f64],
        tail: &[f64],
        cut: f64,
        keyed: &mut Vec<(f64, u32)>,
        placed: &mut Vec<(u32, f64, f64, f64)>,
    ) -> f64 {
        let p = self.problem;
        let k = p.device_count();
        if k > MAX_WINDOW {
            return 0.0;
        }
        placed.clear();
        for (v, &d) in placement.iter().enumerate() {
            if d != UNPLACED {
                let at = v * k + d as usize;
                placed.push((d, head[at], tail[at], p.exec(v as NodeIx, d)));
            }
        }
        let mut lb = 0.0f64;
        for x in [head, tail] {
            keyed.clear();
            for (v, &d) in placement.iter().enumerate() {
                if d == UNPLACED && !self.no_edges[v] {
                    let least = x[v * k..(v + 1) * k]
                        .iter()
                        .copied()
                        .fold(f64::INFINITY, f64::lo);
                    keyed.push((least, v as u32));
                }
            }
            // Latest first: each prefix is a set.
            keyed.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let mut h = [f64::INFINITY; MAX_WINDOW];
            let mut q = [f64::INFINITY; MAX_WINDOW];
            let mut w = 0.0;
            for (i, &(key, v)) in keyed.iter().enumerate() {
                let v = v as usize;
                w += self.min_work[v];
                for d in 0..k {
                    let hv = head[v * k + d];
                    if hv.is_finite() {
                        h[d] = h[d].lo(hv);
                        q[d] = q[d].lo(tail[v * k + d]);
                    }
                }
                if i + 1 < keyed.len() && keyed[i + 1].0 == key || w <= 0.0 {
                    continue;
                }
                lb = lb.hi(self.window_work(&h[..k], &q[..k], w, placed));
                if lb >= cut {
                    return lb;
                }
            }
        }
        lb
    }
}

/// Static heads and tails of an activity network, each the larger of the longest chain of
/// durations and a one-machine bound per resource over the activity's ancestors
/// (descendants): a descendant `x` of `a` starts at least the longest chain of durations
/// strictly between them after `a` ends, the descendants that share a resource run one at
/// a time, and each is followed by its own tail ([`one_machine`] with those releases and
/// tails); symmetrically for heads. Both hold in every schedule of the network, whatever
/// the link order (the `fifo` rule only adds constraints), so heads plus durations plus
/// tails never exceed a schedule's makespan.
pub(super) fn resource_heads_tails(
    dur: &[f64],
    res: &[u32],
    preds: &[Vec<u32>],
    succs: &[Vec<u32>],
    topo: &[u32],
) -> (Vec<f64>, Vec<f64>) {
    let tail = chain_bounds(dur, res, succs, topo, true);
    // Heads are tails of the reversed network.
    let reversed: Vec<u32> = topo.iter().rev().copied().collect();
    let head = chain_bounds(dur, res, preds, &reversed, false);
    (head, tail)
}

/// Tails along `next` (successors, with `order` topological), or heads along predecessors
/// with `order` reversed: each activity's bound is the larger of its longest chain through
/// `next` and [`one_machine`] over the activities beyond it, those released by the chain
/// of durations between them (`tails`: the chain is each one's head and its own bound its
/// tail; heads: the other way round).
pub(super) fn chain_bounds(
    dur: &[f64],
    res: &[u32],
    next: &[Vec<u32>],
    order: &[u32],
    tails: bool,
) -> Vec<f64> {
    let na = dur.len();
    let mut bound = vec![0.0f64; na];
    let mut dist = vec![f64::NEG_INFINITY; na];
    let mut items: Vec<Item> = Vec::new();
    for (i, &a) in order.iter().enumerate().rev() {
        let a = a as usize;
        let chain = next[a]
            .iter()
            .map(|&s| dur[s as usize] + bound[s as usize])
            .fold(0.0, f64::hi);
        dist.fill(f64::NEG_INFINITY);
        for &s in &next[a] {
            dist[s as usize] = 0.0;
        }
        items.clear();
        for &x in &order[i + 1..] {
            let x = x as usize;
            if dist[x] == f64::NEG_INFINITY {
                continue;
            }
            for &s in &next[x] {
                let s = s as usize;
                dist[s] = dist[s].hi(dist[x] + dur[x]);
            }
            if res[x] != NONE {
                items.push(if tails {
                    (res[x], dist[x], dur[x], bound[x])
                } else {
                    (res[x], bound[x], dur[x], dist[x])
                });
            }
        }
        bound[a] = chain.hi(one_machine(&mut items));
    }
    bound
}

/// One machine per resource (`items`: resource, head, duration, tail of the activities
/// left on it): for every pair of a head and a tail threshold, the activities with a head
/// and a tail at least those run one at a time after the head threshold and before the
/// tail threshold (the preemptive one-machine bound: the largest smallest-head plus
/// durations plus smallest-tail over every subset, reached by such a pair).
pub(super) fn one_machine(items: &mut [Item]) -> f64 {
    items.sort_unstable_by(|x, y| x.0.cmp(&y.0).then(y.1.total_cmp(&x.1)));
    one_machine_sorted(items)
}

/// [`one_machine`] of `x`'s resource: its items in `items` (sorted by resource, then
/// head, decreasing) with `x` added after those with a head at least its own.
pub(super) fn with_item(items: &[Item], x: Item) -> f64 {
    let lo = items.partition_point(|y| y.0 < x.0);
    let hi = items.partition_point(|y| y.0 <= x.0);
    let group = &items[lo..hi];
    let (_, xh, xd, xt) = x;
    let mut lb = 0.0f64;
    for q in group.iter().map(|y| y.3).chain(std::iter::once(xt)) {
        let mut sum = 0.0;
        let mut placed = false;
        for &(_, h, d, t) in group {
            if !placed && h < xh {
                placed = true;
                if xt >= q {
                    sum += xd;
                    lb = lb.hi(xh + sum + q);
                }
            }
            if t >= q {
                sum += d;
                lb = lb.hi(h + sum + q);
            }
        }
        if !placed && xt >= q {
            sum += xd;
            lb = lb.hi(xh + sum + q);
        }
    }
    lb
}

/// Sorts `items` as [`one_machine_sorted`] wants them (by resource, then head,
/// decreasing; resources below `resources`): counted into buckets by resource, each
/// sorted by insertion (`tmp` is scratch; many resources: a plain sort).
pub(super) fn sort_items(items: &mut Vec<Item>, tmp: &mut Vec<Item>, resources: usize) {
    const MAX: usize = 64;
    if resources >= MAX {
        items.sort_unstable_by(|x, y| x.0.cmp(&y.0).then(y.1.total_cmp(&x.1)));
        return;
    }
    let mut start = [0usize; MAX + 1];
    for x in items.iter() {
        start[x.0 as usize + 1] += 1;
    }
    for r in 0..resources {
        start[r + 1] += start[r];
    }
    tmp.clear();
    tmp.resize(items.len(), (0, 0.0, 0.0, 0.0));
    let mut next = start;
    for &x in items.iter() {
        let r = x.0 as usize;
        let mut at = next[r];
        next[r] += 1;
        // Insertion into its bucket, by head, decreasing.
        while at > start[r] && tmp[at - 1].1 < x.1 {
            tmp[at] = tmp[at - 1];
            at -= 1;
        }
        tmp[at] = x;
    }
    std::mem::swap(items, tmp);
}

/// [`one_machine`] of items already sorted by resource, then head, decreasing.
pub(super) fn one_machine_sorted(items: &[Item]) -> f64 {
    let mut lb = 0.0f64;
    let mut i = 0;
    while i < items.len() {
        let r = items[i].0;
        let mut j = i;
        while j < items.len() && items[j].0 == r {
            j += 1;
        }
        let group = &items[i..j];
        for &(_, _, _, q) in group {
            let mut sum = 0.0;
            for &(_, h, d, t) in group {
                if t >= q {
                    sum += d;
                    lb = lb.hi(h + sum + q);
                }
            }
        }
        i = j;
    }
    lb
}
