//! Per-device scheduling strategies: which executable op a free device runs next.
//!
//! A scheduler is one file implementing [`Scheduler`]; [`SCHEDULERS`] is the registry.
//! The simulator calls [`Scheduler::init`] once per run (after placement), tells the
//! scheduler each time an op becomes executable ([`Scheduler::ready`]) and asks it for
//! the next op whenever a device is free ([`Scheduler::pick`]). The scheduler owns its
//! ready sets; the simulator only promises that `pick(d)` is asked when `d` is idle and
//! that every op it returns was announced as ready on `d` and not yet returned.
//!
//! Work conservation is the scheduler's choice, not the simulator's: `pick` may answer
//! `None` while `d` has ready ops, and `d` then *holds* (stays idle) until an op next
//! becomes ready on it, when it is asked again. Every scheduler here is work-conserving but
//! the `given` scheduler in strict mode, which replays a plan's per-device sequences and
//! waits for each planned op. A hold that never ends (a replay whose sequences contradict
//! the graph) leaves ops unrun: the simulator reports them in `SimResult::unfinished` and
//! the comparison shows the run as failed, never hangs.
//!
//! A scheduler that replays a plan ([`SchedulerInfo::needs_plan`]) receives the plan's
//! order through [`Scheduler::hint`] before the run.
//!
//! [`ReadyHeaps`] is the shared building block: one max-heap per device keyed by a
//! priority and a tie break, which fifo, pct and heft use.

use crate::error::Result;
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::params::{ParamSpec, Params};
use crate::plan::Order;
use crate::rng::Rng;
use crate::util::{merge_sorted, total_order_bits, MinHeap4};

pub mod fifo;
pub mod given;
pub mod heft;
pub mod msr;
pub mod pct;
pub mod random;

/// What the simulator shows a scheduler while it picks.
pub struct SimView<'a> {
    /// Simulated time now.
    pub now: f64,
    /// Whether each device is running an op right now.
    pub busy: &'a [bool],
}

impl SimView<'_> {
    pub fn idle(&self, d: DevIx) -> bool {
        !self.busy[d as usize]
    }
}

/// A per-device scheduling strategy.
pub trait Scheduler {
    /// Prepares for one run of `problem` under `placement` (priorities, queues).
    fn init(&mut self, problem: &Problem, placement: &[DevIx]);
    /// Op `v`, placed on `d`, has all its inputs on `d` at time `now`.
    fn ready(&mut self, v: NodeIx, d: DevIx, now: f64);
    /// The next op for idle device `d`, or `None` when it has no executable op or holds
    /// the device (see the module doc).
    fn pick(&mut self, d: DevIx, view: &SimView) -> Option<NodeIx>;
    /// The order of the placer's plan, given before the run to schedulers that replay one.
    fn hint(&mut self, _order: &Order) {}
}

/// A registered scheduler.
pub struct SchedulerInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub params: &'static [ParamSpec],
    /// Whether it replays a placer's plan (paired only with placers that plan).
    pub needs_plan: bool,
    /// Builds the scheduler from its parameters and its own random stream.
    pub make: fn(&Params, Rng) -> Box<dyn Scheduler>,
}

/// Every scheduler, in the order tables list them.
pub static SCHEDULERS: &[SchedulerInfo] = &[
    fifo::INFO,
    pct::INFO,
    msr::INFO,
    heft::INFO,
    random::INFO,
    given::INFO,
];

pub fn scheduler(name: &str) -> Result<&'static SchedulerInfo> {
    crate::params::lookup("scheduler", name, SCHEDULERS, |s| s.name)
}

/// Ready ops per device, best first: highest `key` first, then lowest `tie`, then
/// lowest node.
///
/// Each entry is packed into integers whose ascending order is that priority order (the key
/// through `f64::total_cmp`'s bit order, inverted), so every pop returns the maximum of one
/// strict total order and the sequence does not depend on how the entries are stored.
/// Stored as a sorted run (best at the end) plus a binary heap of later pushes: when the
/// heap has grown to the run's size (and past a few entries) it is sorted and merged into
/// the run, so a burst of pushes (every source ready at time 0) costs one sort and O(1)
/// pops instead of a pop walking a deep heap each time.
#[derive(Debug, Clone, Default)]
pub struct ReadyHeaps {
    devs: Vec<ReadyDev>,
}

/// `(!order(key), tie, node)`: smaller is better.
type Packed = (u64, u64, NodeIx);

#[derive(Debug, Clone, Default)]
struct ReadyDev {
    /// Sorted worst first, so the best entry is last.
    run: Vec<Packed>,
    heap: MinHeap4<Packed>,
}

/// Below this many entries in the heap it is never merged into the run.
const MERGE_MIN: usize = 64;

impl ReadyDev {
    fn merge(&mut self) {
        let mut add = self.heap.take_vec();
        // Descending: worst first, as the run.
        add.sort_unstable_by(|a, b| b.cmp(a));
        if self.run.is_empty() {
            self.run = add;
            return;
        }
        self.run = merge_sorted(&self.run, &add, |o, a| o > a);
    }

    fn pop(&mut self) -> Option<NodeIx> {
        if self.heap.len() >= MERGE_MIN && self.heap.len() >= self.run.len() {
            self.merge();
        }
        let from_run = match (self.run.last(), self.heap.peek()) {
            (None, None) => return None,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(r), Some(h)) => r < h,
        };
        let e = if from_run {
            self.run.pop()
        } else {
            self.heap.pop()
        };
        e.map(|e| e.2)
    }
}

impl ReadyHeaps {
    pub fn new(devices: usize) -> ReadyHeaps {
        ReadyHeaps {
            devs: vec![ReadyDev::default(); devices],
        }
    }

    pub fn push(&mut self, d: DevIx, v: NodeIx, key: f64, tie: u64) {
        self.devs[d as usize]
            .heap
            .push((!total_order_bits(key), tie, v));
    }

    pub fn pop(&mut self, d: DevIx) -> Option<NodeIx> {
        self.devs[d as usize].pop()
    }

    pub fn len(&self, d: DevIx) -> usize {
        let r = &self.devs[d as usize];
        r.run.len() + r.heap.len()
    }

    pub fn is_empty(&self, d: DevIx) -> bool {
        self.len(d) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::MaxEntry;
    use std::collections::BinaryHeap;

    /// Random pushes and pops (bursts past the merge size, repeated keys and ties, -0.0
    /// and 0.0) give the same sequence as one `BinaryHeap` of `MaxEntry`.
    #[test]
    fn same_order_as_one_binary_heap() {
        let mut rng = Rng::new(7);
        for round in 0..40 {
            let mut a = ReadyHeaps::new(2);
            let mut b: Vec<BinaryHeap<MaxEntry<f64, (u64, NodeIx)>>> = vec![BinaryHeap::new(); 2];
            let mut next = 0u32;
            for _ in 0..3000 {
                let d = rng.below(2) as DevIx;
                let burst = if rng.below(50) == 0 { 300 } else { 1 };
                if rng.below(3) > 0 || round % 2 == 0 {
                    for _ in 0..burst {
                        let key = [-0.0, 0.0, 1.0, -2.5, 3.0][rng.below(5) as usize];
                        let tie = rng.below(4);
                        a.push(d, next, key, tie);
                        b[d as usize].push(MaxEntry {
                            key,
                            tie: (tie, next),
                            data: (),
                        });
                        next += 1;
                    }
                }
                for _ in 0..rng.below(3) {
                    assert_eq!(a.pop(d), b[d as usize].pop().map(|e| e.tie.1));
                    assert_eq!(a.len(d), b[d as usize].len());
                }
            }
            for d in 0..2 {
                while let Some(e) = b[d as usize].pop() {
                    assert_eq!(a.pop(d), Some(e.tie.1));
                }
                assert_eq!(a.pop(d), None);
                assert!(a.is_empty(d));
            }
        }
    }
}
