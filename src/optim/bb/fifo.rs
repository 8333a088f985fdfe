//! The branch and bound's sequencing under the `fifo` link order (`Exact::with_fifo`): only
//! ops are sequenced, each send follows the simulator's queue (see the parent module).

use super::*;

/// What sequencing one placement under the `fifo` link order needs beyond its network:
/// each transfer's producer, link and rank among its producer's sends.
pub(super) struct Fifo {
    /// Producer op of transfer `i` (activity `n + i`).
    producer: Vec<u32>,
    /// Link of transfer `i` (dense over the network's links), or `NONE` for a signal
    /// (0 bytes, or parallel links), which never queues.
    link: Vec<u32>,
    /// Position of transfer `i` among its producer's sends in the simulator's announcement
    /// order (the producer's output tensors in order, each tensor's transfers in index
    /// order, which is destination order).
    rank: Vec<u32>,
    /// Transfers of each op.
    sends: Vec<Vec<u32>>,
    /// Links each op's transfers queue on, as a bit set (`None`: more than 64 links).
    lmask: Vec<Option<u64>>,
    links: usize,
}

impl Fifo {
    /// `None` when an op or a transfer of `placement` takes no time: the simulator then
    /// breaks ties between instants' rounds, which this search does not model.
    pub(super) fn new(problem: &Problem, placement: &[DevIx], net: &Network) -> Option<Fifo> {
        let g = problem.graph;
        let n = g.node_count();
        let k = problem.device_count();
        if net.dur.iter().any(|&d| d <= 0.0) {
            return None;
        }
        let xs = transfers_of(problem, placement);
        let producer: Vec<u32> = xs
            .iter()
            .map(|x| g.tensors[x.tensor as usize].src)
            .collect();
        let link: Vec<u32> = (0..xs.len())
            .map(|i| match net.res[n + i] {
                NONE => NONE,
                r => r - k as u32,
            })
            .collect();
        let mut rank = vec![0u32; xs.len()];
        let mut sends: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (v, out) in sends.iter_mut().enumerate() {
            for &t in g.out_tensors(v as NodeIx) {
                for (i, x) in xs.iter().enumerate() {
                    if x.tensor == t {
                        rank[i] = out.len() as u32;
                        out.push(i as u32);
                    }
                }
            }
        }
        let lmask = sends
            .iter()
            .map(|out| {
                out.iter()
                    .filter(|&&i| link[i as usize] != NONE)
                    .try_fold(0u64, |m, &i| {
                        let l = link[i as usize];
                        (l < 64).then(|| m | 1 << l)
                    })
            })
            .collect();
        Some(Fifo {
            producer,
            link,
            rank,
            sends,
            lmask,
            links: net.resources - k,
        })
    }
}

/// Search state of the fifo sequencing of one placement: ops are scheduled in
/// non-decreasing start order; transfers follow from them.
struct FifoState {
    start: Vec<f64>,
    end: Vec<f64>,
    done: Vec<bool>,
    /// Inputs of each op whose producer has not been scheduled.
    left: Vec<u32>,
    /// Each device's end of its last scheduled op.
    free: Vec<f64>,
    /// Each link's transfers whose producer is scheduled, in the fifo order.
    queue: Vec<Vec<u32>>,
    /// Start and end of each transfer whose producer is scheduled, given the sends queued
    /// so far (a send of a producer scheduled later can only delay them).
    xstart: Vec<f64>,
    xend: Vec<f64>,
    /// Each link's end of its final sends (those whose producer ended by the last start:
    /// no op scheduled later can end before them, so nothing goes ahead of them).
    settled: Vec<f64>,
    head: Vec<f64>,
    /// The op scheduled last (`0` at the root).
    last_op: u32,
    /// Scratch: (resource, head, duration, tail) of the activities left on a resource.
    items: Vec<Item>,
}

impl<'p, 'a> Exact<'p, 'a> {
    /// Sequences one placement under the fifo rule.
    pub(super) fn sequence_fifo(
        &mut self,
        net: &Network,
        fifo: &Fifo,
        placement: &[DevIx],
        skip: &[bool],
        progress: &mut Progress,
    ) -> Result<()> {
        let n = placement.len();
        let nx = fifo.producer.len();
        let mut left = vec![0u32; n];
        for (v, l) in left.iter_mut().enumerate() {
            *l = net.preds[v].len() as u32;
        }
        let mut st = FifoState {
            start: vec![0.0; n],
            end: vec![0.0; n],
            done: vec![false; n],
            left,
            free: vec![0.0; self.problem.device_count()],
            queue: vec![Vec::new(); fifo.links],
            xstart: vec![0.0; nx],
            xend: vec![0.0; nx],
            settled: vec![0.0; fifo.links],
            head: vec![0.0; net.dur.len()],
            last_op: 0,
            items: Vec::new(),
        };
        // Left-out ops (a probe's): done at 0, on no device's time.
        let mut count = 0;
        for (v, &s) in skip.iter().enumerate() {
            if s {
                st.done[v] = true;
                count += 1;
            }
        }
        self.inner_fifo(net, fifo, &mut st, count, 0.0, 0.0, placement, progress)
    }

    /// Whether transfer `i` goes before transfer `j` on their link (both producers
    /// scheduled): the simulator's queue order.
    fn before(fifo: &Fifo, st: &FifoState, placement: &[DevIx], i: u32, j: u32) -> bool {
        let (p, q) = (
            fifo.producer[i as usize] as usize,
            fifo.producer[j as usize] as usize,
        );
        st.end[p]
            .total_cmp(&st.end[q])
            .then(st.start[p].total_cmp(&st.start[q]))
            .then(placement[p].cmp(&placement[q]))
            .then(p.cmp(&q))
            .then(fifo.rank[i as usize].cmp(&fifo.rank[j as usize]))
            .is_lt()
    }

    /// The transfers' times given the scheduled producers, and each link's settled end.
    fn fifo_times(net: &Network, fifo: &Fifo, st: &mut FifoState, last: f64) {
        let n = st.done.len();
        for (l, q) in st.queue.iter().enumerate() {
            let mut f = 0.0f64;
            let mut settled = 0.0f64;
            for &i in q {
                let i = i as usize;
                let e = st.end[fifo.producer[i] as usize];
                let s = e.hi(f);
                f = s + net.dur[n + i];
                st.xstart[i] = s;
                st.xend[i] = f;
                if e <= last {
                    settled = f;
                }
            }
            st.settled[l] = settled;
        }
        for (i, &l) in fifo.link.iter().enumerate() {
            let p = fifo.producer[i] as usize;
            if l == NONE && st.done[p] {
                st.xstart[i] = st.end[p];
                st.xend[i] = st.end[p] + net.dur[n + i];
            }
        }
    }

    /// A lower bound of every completion of the state: heads (no op starts before `last`;
    /// queued sends at their times so far, the others after their producer and their
    /// link's settled sends) plus tails, and each device's and link's remaining load.
    fn fifo_bound(&self, net: &Network, fifo: &Fifo, st: &mut FifoState, last: f64) -> f64 {
        let n = st.done.len();
        let k = self.problem.device_count();
        let mut lb = 0.0f64;
        st.items.clear();
        for &a in &net.topo {
            let a = a as usize;
            let h;
            let res;
            if a < n {
                if st.done[a] {
                    lb = lb.hi(st.end[a]);
                    continue;
                }
                let d = net.res[a] as usize;
                let mut t = last.hi(st.free[d]);
                for &p in &net.preds[a] {
                    let p = p as usize;
                    t = t.hi(if p < n && st.done[p] {
                        st.end[p]
                    } else {
                        st.head[p] + net.dur[p]
                    });
                }
                h = t;
                res = Some(d);
            } else {
                let i = a - n;
                let p = fifo.producer[i] as usize;
                let l = fifo.link[i];
                if st.done[p] {
                    h = st.xstart[i];
                    res = (l != NONE && st.end[p] > last).then_some(k + l as usize);
                } else {
                    let mut t = st.head[p] + net.dur[p];
                    if l != NONE {
                        t = t.hi(st.settled[l as usize]);
                    }
                    h = t;
                    res = (l != NONE).then_some(k + l as usize);
                }
            }
            let h = h.hi(net.head[a]);
            st.head[a] = h;
            lb = lb.hi(h + net.dur[a] + net.tail[a]);
            if let Some(r) = res {
                st.items.push((r as u32, h, net.dur[a], net.tail[a]));
            }
        }
        lb.hi(one_machine(&mut st.items))
    }

    #[allow(clippy::too_many_arguments)]
    fn inner_fifo(
        &mut self,
        net: &Network,
        fifo: &Fifo,
        st: &mut FifoState,
        count: usize,
        last: f64,
        makespan: f64,
        placement: &[DevIx],
        progress: &mut Progress,
    ) -> Result<()> {
        if !self.tick(progress)? {
            return Ok(());
        }
        let n = st.done.len();
        Self::fifo_times(net, fifo, st, last);
        if count == n {
            if self.probing {
                self.found |= makespan < self.cut();
                return Ok(());
            }
            self.offer(makespan, placement, || {
                [&st.start[..], &st.xstart[..]].concat()
            });
            return Ok(());
        }
        if self.fifo_bound(net, fifo, st, last) >= self.cut() {
            return Ok(());
        }
        // Ops whose inputs' producers are all scheduled, with their earliest start given
        // the sends queued so far (exact for the op that starts next: any send that could
        // still go ahead of its inputs has a producer that starts before it).
        let mut next: Vec<(f64, u32)> = Vec::new();
        // Links with sends of exactly one unscheduled op (gap filling, below).
        let (mut once, mut more) = (0u64, 0u64);
        for (v, m) in fifo.lmask.iter().enumerate() {
            if !st.done[v] {
                let m = m.unwrap_or(u64::MAX);
                more |= once & m;
                once |= m;
            }
        }
        let alone = once & !more;
        // Ready ops that can move alone: their earliest ends (gap filling, below).
        let mut fill: Vec<(u32, f64, u32)> = Vec::new();
        for (v, &d) in placement.iter().enumerate() {
            if st.done[v] || st.left[v] > 0 {
                continue;
            }
            let mut t = st.free[d as usize];
            for &p in &net.preds[v] {
                let p = p as usize;
                t = t.hi(if p < n { st.end[p] } else { st.xend[p - n] });
            }
            if fifo.lmask[v].is_some_and(|m| m & alone == m) {
                fill.push((d, t + net.dur[v], v as u32));
            }
            // Generated in another order: ops that start together (on different devices,
            // none feeding another) commute, so they go in index order.
            if t < last || (t == last && (v as u32) < st.last_op) {
                continue;
            }
            if t + net.dur[v] + net.tail[v] >= self.cut() {
                continue;
            }
            next.push((t, v as u32));
        }
        // Gap filling (dominance): if a ready op `w` of `v`'s device could end by `v`'s
        // start, and no other unscheduled op sends on a link `w` sends on, every
        // completion with `v` first is dominated by the one with `w` moved before `v`. On
        // a link all sends come from one device, so its fifo order is its producers' order
        // on that device: given device sequences the schedule is a longest path, and
        // moving such a `w` earlier changes no link's order (the scheduled producers stay
        // ahead of it, no unscheduled one shares its links), so `v` and every other start
        // stay or move earlier and the makespan is no larger. Each such move strictly
        // lowers the sum of starts, so among the optimal schedules the one with the least
        // sum is never pruned.
        next.retain(|&(t, v)| {
            let d = placement[v as usize];
            !fill.iter().any(|&(e, end, w)| e == d && w != v && end <= t)
        });
        next.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
        for (t, v) in next {
            let v = v as usize;
            let d = placement[v] as usize;
            let old_free = st.free[d];
            st.done[v] = true;
            st.start[v] = t;
            st.end[v] = t + net.dur[v];
            st.free[d] = st.end[v];
            for &i in &fifo.sends[v] {
                let l = fifo.link[i as usize];
                if l != NONE {
                    let q = &st.queue[l as usize];
                    let at = q.partition_point(|&j| Self::before(fifo, st, placement, j, i));
                    st.queue[l as usize].insert(at, i);
                }
            }
            for &s in &net.succs[v] {
                let s = s as usize;
                if s < n {
                    st.left[s] -= 1;
                } else {
                    for &c in &net.succs[s] {
                        st.left[c as usize] -= 1;
                    }
                }
            }
            let m = makespan.hi(st.end[v]);
            let last_op = std::mem::replace(&mut st.last_op, v as u32);
            self.inner_fifo(net, fifo, st, count + 1, t, m, placement, progress)?;
            st.last_op = last_op;
            for &s in &net.succs[v] {
                let s = s as usize;
                if s < n {
                    st.left[s] += 1;
                } else {
                    for &c in &net.succs[s] {
                        st.left[c as usize] += 1;
                    }
                }
            }
            for &i in &fifo.sends[v] {
                let l = fifo.link[i as usize];
                if l != NONE {
                    let q = &mut st.queue[l as usize];
                    let at = q.iter().position(|&j| j == i).expect("queued above");
                    q.remove(at);
                }
            }
            st.free[d] = old_free;
            st.done[v] = false;
            if self.aborted || self.found {
                return Ok(());
            }
        }
        Ok(())
    }
}
