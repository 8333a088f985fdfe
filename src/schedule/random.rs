//! `random`: TensorFlow's default per-device scheduling (Pesto21 §2.1: "for each device,
//! TensorFlow randomly picks an operation from the ready queue"). A free device runs an op
//! drawn uniformly from its executable ops. The draws come from the scheduler's derived
//! stream, so a scenario still gives the same numbers everywhere; Expert and Baechi ran
//! under TensorFlow, so `random` is their faithful scheduler (Pesto21 §5.2).

use super::{Scheduler, SchedulerInfo, SimView};
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::rng::Rng;

pub const INFO: SchedulerInfo = SchedulerInfo {
    name: "random",
    summary: "uniformly random among executable ops, TensorFlow's default (Pesto21 §2.1)",
    params: &[],
    needs_plan: false,
    make: |_: &Params, rng: Rng| Box::new(RandomOrder::new(rng)),
};

pub struct RandomOrder {
    rng: Rng,
    /// Executable ops per device, in the order they became executable.
    ready: Vec<Vec<NodeIx>>,
}

impl RandomOrder {
    pub fn new(rng: Rng) -> RandomOrder {
        RandomOrder {
            rng,
            ready: Vec::new(),
        }
    }
}

impl Scheduler for RandomOrder {
    fn init(&mut self, problem: &Problem, _: &[DevIx]) {
        self.ready = vec![Vec::new(); problem.device_count()];
    }

    fn ready(&mut self, v: NodeIx, d: DevIx, _: f64) {
        self.ready[d as usize].push(v);
    }

    fn pick(&mut self, d: DevIx, _: &SimView) -> Option<NodeIx> {
        let ready = &mut self.ready[d as usize];
        if ready.is_empty() {
            return None;
        }
        let i = self.rng.below(ready.len() as u64) as usize;
        Some(ready.swap_remove(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three ops ready at once on one device: every order is drawn across seeds (3! = 6),
    /// each seed's order is its own every time, and nothing is picked twice.
    #[test]
    fn uniform_seeded_and_each_op_once() {
        let view = SimView {
            now: 0.0,
            busy: &[false],
        };
        let order_of = |seed| {
            let mut s = RandomOrder::new(Rng::derive(seed, &["schedule"], 0));
            s.ready = vec![Vec::new()];
            for v in [4, 7, 9] {
                s.ready(v, 0, 0.0);
            }
            std::iter::from_fn(|| s.pick(0, &view)).collect::<Vec<_>>()
        };
        let mut seen = std::collections::BTreeMap::new();
        for seed in 0..600 {
            let o = order_of(seed);
            assert_eq!(o, order_of(seed));
            let mut sorted = o.clone();
            sorted.sort();
            assert_eq!(sorted, vec![4, 7, 9]);
            *seen.entry(o).or_insert(0) += 1;
        }
        assert_eq!(seen.len(), 6);
        // Uniform: each of the 6 orders about 100 times in 600 (a loose 5-sigma band).
        for (o, c) in seen {
            assert!((50..=150).contains(&c), "{o:?} drawn {c} times");
        }
    }
}
