//! `fifo` link order: first come, first served (Pesto21 §3.1: "one transfer at a time per
//! link ... in the order they arrive"). Transfers that become ready at the same instant
//! go in the order the simulator announced them, which is deterministic.

use std::collections::VecDeque;

use super::{LinkQueue, LinkQueueInfo, Transfer};
use crate::model::cluster::DevIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::rng::Rng;

pub const INFO: LinkQueueInfo = LinkQueueInfo {
    name: "fifo",
    summary: "first come, first served per link (Pesto21 §3.1)",
    params: &[],
    needs_plan: false,
    make: |_: &Params, _: Rng| Box::new(FifoLinks::default()),
};

#[derive(Default)]
pub struct FifoLinks {
    link_of: Vec<u32>,
    queues: Vec<VecDeque<u32>>,
}

impl LinkQueue for FifoLinks {
    fn init(&mut self, _: &Problem, _: &[DevIx], transfers: &[Transfer], links: usize) {
        self.link_of = transfers.iter().map(|t| t.link).collect();
        self.queues = vec![VecDeque::new(); links];
    }

    fn push(&mut self, t: u32, _: f64) {
        self.queues[self.link_of[t as usize] as usize].push_back(t);
    }

    fn pop(&mut self, link: u32) -> Option<u32> {
        self.queues[link as usize].pop_front()
    }
}
