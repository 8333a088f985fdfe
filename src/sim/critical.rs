//! The critical path of one simulated run: the chain of ops and transfers whose times
//! determine its makespan, read from the run's actual start and end times.
//!
//! This is not the static longest path of [`critical_path_bound`](crate::analysis::critical_path_bound)
//! (every op at its fastest device, free communication): it walks the recorded schedule
//! backwards from the op that ends last and, at every element, asks what it was waiting for.
//!
//! - An op's *ready time* is when its last input was on its device: the producer's end for an
//!   input made on the same device, the arrival (end) of the tensor's transfer to the op's
//!   device otherwise (the simulator's rule: a tensor crosses once per consuming device).
//! - An op that started at its ready time was held by its inputs: the step before it is the
//!   input that arrived last (its producer, or the transfer that brought it; the first such
//!   in-edge in the graph's edge order when several arrived together).
//! - An op that started after its ready time queued for its device: the step before it is the
//!   op that ran on the device just before it (which ended at its start), unless a policy
//!   held the device idle longer than that op; then the later of that op's end and the ready
//!   time decides, and the gap between it and the op's start is counted as `idle`.
//! - A transfer that started at its ready time was held by its producer; one that started
//!   later queued for its link (`fcfs` links, Pesto21 §3.1): the step before it is the
//!   transfer sent on the same link just before it. Zero-byte signals never queue.
//!
//! Ties among elements on one device or link at one instant (zero-length ops) are broken by
//! the graph's topological position, so the walk always steps to something that ran no later
//! and never depends on the current element: it cannot cycle. The walk is still bounded by
//! the number of elements, so bad times could only shorten the answer, never hang.
//!
//! The durations of the steps plus `idle` (policy holds, and any start after 0 of the first
//! step) sum to the makespan: the chain explains every second of it.

use std::collections::BTreeMap;

use serde::Serialize;

use super::Trace;
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;

/// One element of a critical path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Step {
    /// A node index.
    Op(NodeIx),
    /// An index into the trace's transfers.
    Transfer(u32),
}

/// The chain that determines a run's makespan, in time order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CriticalPath {
    pub steps: Vec<Step>,
    /// Seconds on the chain where nothing on it ran (a policy held a device or link idle,
    /// or the first step started after 0).
    pub idle: f64,
}

/// Per op, when its last input was on its device (0 for an op without inputs).
pub fn ready_times(problem: &Problem, placement: &[DevIx], trace: &Trace) -> Vec<f64> {
    let arrivals = Arrivals::new(problem, placement, trace);
    (0..problem.graph.node_count() as NodeIx)
        .map(|v| arrivals.binding_input(v).map_or(0.0, |(t, _)| t))
        .collect()
}

/// Where each input of an op comes from and when it arrived.
struct Arrivals<'a> {
    problem: &'a Problem<'a>,
    placement: &'a [DevIx],
    trace: &'a Trace,
    /// `(tensor, destination device) -> transfer index`.
    transfer_of: BTreeMap<(u32, DevIx), u32>,
}

impl<'a> Arrivals<'a> {
    fn new(problem: &'a Problem<'a>, placement: &'a [DevIx], trace: &'a Trace) -> Self {
        let transfer_of = trace
            .transfers
            .iter()
            .enumerate()
            .map(|(x, t)| ((t.tensor, t.dst), x as u32))
            .collect();
        Arrivals {
            problem,
            placement,
            trace,
            transfer_of,
        }
    }

    /// The input of `v` that arrived last, and when: `None` for an op without inputs.
    fn binding_input(&self, v: NodeIx) -> Option<(f64, Step)> {
        let g = self.problem.graph;
        let d = self.placement[v as usize];
        let mut best: Option<(f64, Step)> = None;
        for &e in g.in_edges(v) {
            let edge = &g.edges[e as usize];
            let local = (self.trace.ops[edge.src as usize].1, Step::Op(edge.src));
            let arrival = if self.placement[edge.src as usize] == d {
                local
            } else {
                self.transfer_of.get(&(edge.tensor, d)).map_or(local, |&x| {
                    (self.trace.transfer_times[x as usize].end, Step::Transfer(x))
                })
            };
            if best.is_none_or(|(t, _)| arrival.0 > t) {
                best = Some(arrival);
            }
        }
        best
    }
}

/// For each item, the item run just before it in its lane (device or link), if any.
/// `lane_of` gives an item's lane (`None`: in no lane); items are sorted by
/// `(start, end, tie)`.
fn previous_in_lane(
    n: usize,
    lane_of: impl Fn(usize) -> Option<u32>,
    key: impl Fn(usize) -> (f64, f64, u32),
) -> Vec<Option<u32>> {
    let mut order: Vec<usize> = (0..n).filter(|&i| lane_of(i).is_some()).collect();
    order.sort_by(|&a, &b| {
        let (ka, kb) = (key(a), key(b));
        lane_of(a)
            .cmp(&lane_of(b))
            .then(ka.0.total_cmp(&kb.0))
            .then(ka.1.total_cmp(&kb.1))
            .then(ka.2.cmp(&kb.2))
            .then(a.cmp(&b))
    });
    let mut prev = vec![None; n];
    for w in order.windows(2) {
        if lane_of(w[0]) == lane_of(w[1]) {
            prev[w[1]] = Some(w[0] as u32);
        }
    }
    prev
}

/// The critical path of a recorded run (see the module comment). Empty for a run without
/// ops.
pub fn critical_path(problem: &Problem, placement: &[DevIx], trace: &Trace) -> CriticalPath {
    let g = problem.graph;
    let n = g.node_count();
    let ops = &trace.ops;
    let times = &trace.transfer_times;
    let arrivals = Arrivals::new(problem, placement, trace);
    let topo = crate::analysis::topo_position(problem);
    let prev_op = previous_in_lane(n, |v| Some(placement[v]), |v| (ops[v].0, ops[v].1, topo[v]));
    let producer = |x: usize| g.tensors[trace.transfers[x].tensor as usize].src;
    // Zero-byte signals never occupy a link, so they are in no link's queue.
    let prev_transfer = previous_in_lane(
        trace.transfers.len(),
        |x| (trace.transfers[x].bytes > 0.0).then_some(trace.transfers[x].link),
        |x| (times[x].start, times[x].end, topo[producer(x) as usize]),
    );
    // The op that ends last (the first in topological order among ties).
    let Some(last) = (0..n as NodeIx).fold(None, |best: Option<NodeIx>, v| match best {
        Some(b)
            if ops[b as usize].1 > ops[v as usize].1
                || (ops[b as usize].1 == ops[v as usize].1
                    && topo[b as usize] < topo[v as usize]) =>
        {
            Some(b)
        }
        _ => Some(v),
    }) else {
        return CriticalPath {
            steps: vec![],
            idle: 0.0,
        };
    };
    let span = |s: Step| match s {
        Step::Op(v) => ops[v as usize],
        Step::Transfer(x) => (times[x as usize].start, times[x as usize].end),
    };
    let mut steps = vec![];
    let mut idle = 0.0;
    let mut cur = Step::Op(last);
    for _ in 0..n + trace.transfers.len() {
        steps.push(cur);
        let start = span(cur).0;
        // What `cur` waited for, as (its end, the step) candidates: the later one binds.
        let (input, queue) = match cur {
            Step::Op(v) => (arrivals.binding_input(v), prev_op[v as usize].map(Step::Op)),
            Step::Transfer(x) => {
                let p = producer(x as usize);
                (
                    Some((ops[p as usize].1, Step::Op(p))),
                    prev_transfer[x as usize].map(Step::Transfer),
                )
            }
        };
        let ready = input.map_or(0.0, |(t, _)| t);
        let queued = queue.filter(|&q| start > ready && span(q).1 >= ready);
        let next = match (queued, input) {
            (Some(q), _) => Some((span(q).1, q)),
            (None, i) => i,
        };
        match next {
            Some((end, step)) => {
                idle += (start - end).max(0.0);
                cur = step;
            }
            None => {
                idle += start.max(0.0);
                break;
            }
        }
    }
    steps.reverse();
    CriticalPath { steps, idle }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cluster::Cluster;
    use crate::model::LinkModel;
    use crate::testutil::{graph, simulate_fifo};

    /// A run's trace and makespan, its ops' ready times and its critical path.
    struct Walk {
        trace: Trace,
        makespan: f64,
        ready: Vec<f64>,
        path: CriticalPath,
    }

    /// Simulates `json` on `cluster` (fifo scheduling and links) and walks its critical path.
    fn walk(json: &str, cluster: &Cluster, placement: &[DevIx], links: LinkModel) -> Walk {
        let g = graph(json);
        let p = Problem::new(&g, cluster).unwrap();
        let r = simulate_fifo(json, cluster, placement, links);
        let trace = r.trace.unwrap();
        Walk {
            ready: ready_times(&p, placement, &trace),
            path: critical_path(&p, placement, &trace),
            trace,
            makespan: r.makespan,
        }
    }

    /// The ops' times, their ready times and the path's steps are as hand-computed, nothing
    /// on the path idles, and its steps' durations sum to the makespan.
    fn assert_walk(w: &Walk, ops: &[(f64, f64)], ready: &[f64], steps: &[Step]) {
        assert_eq!(w.trace.ops, ops);
        assert_eq!(w.ready, ready);
        assert_eq!(w.path.steps, steps);
        assert_eq!(w.path.idle, 0.0);
        let explained: f64 = w
            .path
            .steps
            .iter()
            .map(|s| match *s {
                Step::Op(v) => w.trace.ops[v as usize].1 - w.trace.ops[v as usize].0,
                Step::Transfer(x) => {
                    let t = w.trace.transfer_times[x as usize];
                    t.end - t.start
                }
            })
            .sum();
        assert_eq!(explained, w.makespan);
    }

    /// The transfer into device `dst` whose consumers are `consumers`.
    fn transfer(w: &Walk, dst: DevIx, consumers: &[NodeIx]) -> u32 {
        w.trace
            .transfers
            .iter()
            .position(|t| t.dst == dst && t.consumers == consumers)
            .unwrap() as u32
    }

    #[test]
    fn fork_join_path_goes_through_the_slow_branch_and_its_transfers() {
        // Speeds 1, bandwidth 1, latency 0.5; a, b, d on d0, c on d1 (the simulator's test):
        // a 0..2; a->c 2..4.5; c 4.5..7.5; b 2..6; c->d 7.5..9; d 9..10.
        // d's last input is c's tensor (9 > b's 6): d <- c->d <- c <- a->c <- a, and
        // 2 + 2.5 + 3 + 1.5 + 1 = 10, the makespan, with nothing idle. b is off the path.
        let c = Cluster::uniform(&[1.0, 1.0], 1.0, 0.5);
        let w = walk(
            r#"{"nodes":[{"id":"a","cost":2},{"id":"b","cost":4},{"id":"c","cost":3},{"id":"d","cost":1}],
                "edges":[{"src":"a","dst":"b","bytes":3},{"src":"a","dst":"c","bytes":2},
                         {"src":"b","dst":"d","bytes":1},{"src":"c","dst":"d","bytes":1}]}"#,
            &c,
            &[0, 0, 1, 0],
            LinkModel::Parallel,
        );
        assert_eq!(w.makespan, 10.0);
        let (a_to_c, c_to_d) = (transfer(&w, 1, &[2]), transfer(&w, 0, &[3]));
        assert_walk(
            &w,
            &[(0.0, 2.0), (2.0, 6.0), (4.5, 7.5), (9.0, 10.0)],
            &[0.0, 2.0, 4.5, 9.0],
            &[
                Step::Op(0),
                Step::Transfer(a_to_c),
                Step::Op(2),
                Step::Transfer(c_to_d),
                Step::Op(3),
            ],
        );
    }

    #[test]
    fn an_op_queued_for_its_device_follows_the_op_before_it() {
        // d0 runs a(2), then b(3) (a -> b) and c(1); x(1) on d1. a -> x and x -> c are
        // zero-byte signals (latency 0). a 0..2; x 2..3; b 2..5 (the only op d0 can run at
        // 2); c is ready at 3 (x's signal) but waits for b: 5..6. c's path: a, b, c
        // (2 + 3 + 1 = 6); c waited 5 - 3 = 2 s for the device; x is off the path.
        let c = Cluster::uniform(&[1.0, 1.0], 1.0, 0.0);
        let w = walk(
            r#"{"nodes":[{"id":"a","cost":2},{"id":"b","cost":3},{"id":"c","cost":1},{"id":"x","cost":1}],
                "edges":[{"src":"a","dst":"b","bytes":1},{"src":"a","dst":"x","bytes":0},
                         {"src":"x","dst":"c","bytes":0}]}"#,
            &c,
            &[0, 0, 0, 1],
            LinkModel::Parallel,
        );
        assert_walk(
            &w,
            &[(0.0, 2.0), (2.0, 5.0), (5.0, 6.0), (2.0, 3.0)],
            &[0.0, 2.0, 3.0, 2.0],
            &[Step::Op(0), Step::Op(1), Step::Op(2)],
        );
    }

    #[test]
    fn a_transfer_queued_for_its_link_follows_the_transfer_before_it() {
        // d0 runs a(1) then x(1) (a -> x, zero bytes: the order); a -> b and x -> y (2 bytes
        // each) cross to d1 on one fcfs link of bandwidth 1, latency 0. a 0..1, x 1..2; a's
        // tensor 1..3; x's is ready at 2 but the link is busy until 3: 3..5; b 3..4, y 5..6.
        // y's path: a, a's transfer, x's transfer, y (1 + 2 + 2 + 1 = 6); x is not on it.
        let c = Cluster::uniform(&[1.0, 1.0], 1.0, 0.0);
        let w = walk(
            r#"{"nodes":[{"id":"a","cost":1},{"id":"x","cost":1},{"id":"b","cost":1},{"id":"y","cost":1}],
                "edges":[{"src":"a","dst":"b","bytes":2},{"src":"x","dst":"y","bytes":2},
                         {"src":"a","dst":"x","bytes":0}]}"#,
            &c,
            &[0, 0, 1, 1],
            LinkModel::Fcfs,
        );
        let (a_to_b, x_to_y) = (transfer(&w, 1, &[2]), transfer(&w, 1, &[3]));
        assert_eq!(w.trace.transfer_times[x_to_y as usize].ready, 2.0);
        assert_walk(
            &w,
            &[(0.0, 1.0), (1.0, 2.0), (3.0, 4.0), (5.0, 6.0)],
            &[0.0, 1.0, 3.0, 5.0],
            &[
                Step::Op(0),
                Step::Transfer(a_to_b),
                Step::Transfer(x_to_y),
                Step::Op(3),
            ],
        );
    }

    #[test]
    fn a_single_op_is_its_own_path() {
        let g = graph(r#"{"nodes":[{"id":"a","cost":1}],"edges":[]}"#);
        let c = Cluster::uniform(&[1.0], 1.0, 0.0);
        let p = Problem::new(&g, &c).unwrap();
        let trace = Trace {
            ops: vec![(0.0, 1.0)],
            transfers: vec![],
            transfer_times: vec![],
            memory: vec![vec![]],
        };
        let path = critical_path(&p, &[0], &trace);
        assert_eq!(path.steps, vec![Step::Op(0)]);
        assert_eq!(path.idle, 0.0);
    }
}
