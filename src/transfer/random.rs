//! `random` link order: TicTac19's baseline, "no enforced order" (§3, §6): vanilla
//! TensorFlow sends whichever transfer its gRPC channel picks up first, which the paper models
//! as random. A free link sends a transfer drawn uniformly from everything queued on it,
//! with draws from the link order's derived stream (independent per link draw, fixed by the
//! scenario's seed).

use super::{LinkQueue, LinkQueueInfo, Transfer};
use crate::model::cluster::DevIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::rng::Rng;

pub const INFO: LinkQueueInfo = LinkQueueInfo {
    name: "random",
    summary: "uniformly random among queued transfers, TicTac19's no-order baseline",
    params: &[],
    needs_plan: false,
    make: |_: &Params, rng: Rng| Box::new(RandomLinks::new(rng)),
};

pub struct RandomLinks {
    rng: Rng,
    link_of: Vec<u32>,
    /// Queued transfers per link, in push order.
    queues: Vec<Vec<u32>>,
}

impl RandomLinks {
    pub fn new(rng: Rng) -> RandomLinks {
        RandomLinks {
            rng,
            link_of: Vec::new(),
            queues: Vec::new(),
        }
    }
}

impl LinkQueue for RandomLinks {
    fn init(&mut self, _: &Problem, _: &[DevIx], transfers: &[Transfer], links: usize) {
        self.link_of = transfers.iter().map(|t| t.link).collect();
        self.queues = vec![Vec::new(); links];
    }

    fn push(&mut self, t: u32, _: f64) {
        self.queues[self.link_of[t as usize] as usize].push(t);
    }

    fn pop(&mut self, link: u32) -> Option<u32> {
        let q = &mut self.queues[link as usize];
        if q.is_empty() {
            return None;
        }
        let i = self.rng.below(q.len() as u64) as usize;
        Some(q.swap_remove(i))
    }
}
