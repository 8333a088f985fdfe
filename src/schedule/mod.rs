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

use std::collections::BinaryHeap;

use crate::error::Result;
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::params::{ParamSpec, Params};
use crate::plan::Order;
use crate::rng::Rng;
use crate::util::MaxEntry;

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

/// One max-heap of ready ops per device: highest `key` first, then lowest `tie`, then
/// lowest node.
#[derive(Debug, Clone, Default)]
pub struct ReadyHeaps {
    heaps: Vec<BinaryHeap<MaxEntry<f64, (u64, NodeIx)>>>,
}

impl ReadyHeaps {
    pub fn new(devices: usize) -> ReadyHeaps {
        ReadyHeaps {
            heaps: vec![BinaryHeap::new(); devices],
        }
    }

    pub fn push(&mut self, d: DevIx, v: NodeIx, key: f64, tie: u64) {
        self.heaps[d as usize].push(MaxEntry {
            key,
            tie: (tie, v),
            data: (),
        });
    }

    pub fn pop(&mut self, d: DevIx) -> Option<NodeIx> {
        self.heaps[d as usize].pop().map(|e| e.tie.1)
    }

    pub fn len(&self, d: DevIx) -> usize {
        self.heaps[d as usize].len()
    }

    pub fn is_empty(&self, d: DevIx) -> bool {
        self.heaps[d as usize].is_empty()
    }
}
