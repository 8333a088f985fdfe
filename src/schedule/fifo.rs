//! `fifo`: first executable, first run (Mayer17 §5.1 baseline).
//!
//! "The vertices are scheduled according to the time they become executable. If two
//! vertices become executable at the same time, the FIFO scheduler chooses randomly which
//! of them to schedule." Each op gets a random tie-break number from the run's seeded
//! stream when it becomes executable; equal ready times are ordered by that number.

use super::{ReadyHeaps, Scheduler, SchedulerInfo, SimView};
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::rng::Rng;

pub const INFO: SchedulerInfo = SchedulerInfo {
    name: "fifo",
    summary: "earliest executable first, random ties (Mayer17 §5.1)",
    params: &[],
    needs_plan: false,
    make: |_: &Params, rng: Rng| Box::new(Fifo::new(rng)),
};

pub struct Fifo {
    rng: Rng,
    ready: ReadyHeaps,
}

impl Fifo {
    pub fn new(rng: Rng) -> Fifo {
        Fifo {
            rng,
            ready: ReadyHeaps::default(),
        }
    }
}

impl Scheduler for Fifo {
    fn init(&mut self, problem: &Problem, _: &[DevIx]) {
        self.ready = ReadyHeaps::new(problem.device_count());
    }

    fn ready(&mut self, v: NodeIx, d: DevIx, now: f64) {
        let tie = self.rng.next_u64();
        self.ready.push(d, v, -now, tie);
    }

    fn pick(&mut self, d: DevIx, _: &SimView) -> Option<NodeIx> {
        self.ready.pop(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_and_random_but_seeded_ties() {
        let view = SimView {
            now: 0.0,
            busy: &[false],
        };
        let mut orders = std::collections::BTreeSet::new();
        for seed in 0..40 {
            let mut f = Fifo::new(Rng::new(seed));
            f.ready = ReadyHeaps::new(1);
            f.ready(5, 0, 2.0);
            f.ready(1, 0, 1.0);
            f.ready(2, 0, 1.0);
            let order: Vec<_> = std::iter::from_fn(|| f.pick(0, &view)).collect();
            assert_eq!(order[2], 5, "the later op runs last");
            orders.insert(order);
        }
        assert_eq!(orders.len(), 2, "both tie orders occur across seeds");
    }
}
