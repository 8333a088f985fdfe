//! `given` link order: replays the transfer order of the placer's plan (see the `given`
//! scheduler). Shares `given.work_conserving` with it:
//! - **strict** (0, the default) when the plan orders its transfers: each link sends its
//!   transfers in the plan's order; a free link whose next planned transfer is not ready
//!   yet holds (stays free) until it is.
//! - **priority** (1), or a plan without a transfer order: a free link sends its queued
//!   transfer that comes first in the plan's transfer order, or, when the plan has none, the
//!   one whose consumers have the highest plan priority (Pesto21's consumer priority);
//!   ties go to the earlier pushed.
//!
//! Transfers the plan does not name go after every named one on their link, in push order.
//! Without a hint every transfer has the same priority: first come, first served.

use std::collections::{BTreeMap, BinaryHeap};

use super::{LinkOrder, LinkOrderInfo, Transfer};
use crate::model::cluster::DevIx;
use crate::model::graph::TensorIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::plan::Order;
use crate::plan::REPLAY_MODE;
use crate::rng::Rng;
use crate::util::MaxEntry;

pub const INFO: LinkOrderInfo = LinkOrderInfo {
    name: "given",
    summary: "replays the placer's plan: its per-link transfer order, or its priorities",
    params: &[REPLAY_MODE],
    needs_plan: true,
    make: |params: &Params, _: Rng| Box::new(GivenLinks::new(params.get(REPLAY_MODE.name) != 0.0)),
    ranking: None,
};

pub struct GivenLinks {
    work_conserving: bool,
    order: Option<Order>,
    link_of: Vec<u32>,
    /// Priority of each transfer (higher first).
    key: Vec<f64>,
    /// Priority mode: queued transfers per link, by key then push order.
    heaps: Vec<BinaryHeap<MaxEntry<f64, u64, u32>>>,
    pushes: u64,
    /// Strict mode: each link's planned transfers, the next one's position, and which
    /// transfers are ready; unplanned ready ones wait in `extra` until the plan's are sent.
    planned: Vec<Vec<u32>>,
    cursor: Vec<usize>,
    is_ready: Vec<bool>,
    extra: Vec<std::collections::VecDeque<u32>>,
}

impl GivenLinks {
    pub fn new(work_conserving: bool) -> GivenLinks {
        GivenLinks {
            work_conserving,
            order: None,
            link_of: Vec::new(),
            key: Vec::new(),
            heaps: Vec::new(),
            pushes: 0,
            planned: Vec::new(),
            cursor: Vec::new(),
            is_ready: Vec::new(),
            extra: Vec::new(),
        }
    }

    fn strict(&self) -> bool {
        !self.work_conserving && self.order.as_ref().is_some_and(|o| o.transfers.is_some())
    }
}

impl LinkOrder for GivenLinks {
    fn hint(&mut self, order: &Order) {
        self.order = Some(order.clone());
    }

    fn init(&mut self, _: &Problem, _: &[DevIx], transfers: &[Transfer], links: usize) {
        let nx = transfers.len();
        self.link_of = transfers.iter().map(|t| t.link).collect();
        self.pushes = 0;
        // Position of each named transfer in the plan's order.
        let rank: BTreeMap<(TensorIx, DevIx), usize> = self
            .order
            .as_ref()
            .and_then(|o| o.transfers.as_ref())
            .map(|xs| xs.iter().enumerate().map(|(i, &x)| (x, i)).collect())
            .unwrap_or_default();
        self.key = transfers
            .iter()
            .map(|t| match (&self.order, rank.get(&(t.tensor, t.dst))) {
                (_, Some(&i)) => -(i as f64),
                (Some(o), None) if o.transfers.is_none() => t
                    .consumers
                    .iter()
                    .map(|&w| o.priority[w as usize])
                    .fold(f64::NEG_INFINITY, f64::max),
                _ => f64::NEG_INFINITY,
            })
            .collect();
        if self.strict() {
            // Zero-byte signals never queue (the simulator sends them at once): a link
            // must not wait for one.
            let mut by_rank: Vec<(usize, u32)> = (0..nx as u32)
                .filter_map(|x| {
                    let t = &transfers[x as usize];
                    let planned = rank.get(&(t.tensor, t.dst)).filter(|_| t.bytes > 0.0);
                    planned.map(|&i| (i, x))
                })
                .collect();
            by_rank.sort_unstable();
            self.planned = vec![Vec::new(); links];
            for (_, x) in by_rank {
                self.planned[self.link_of[x as usize] as usize].push(x);
            }
            self.cursor = vec![0; links];
            self.is_ready = vec![false; nx];
            self.extra = vec![Default::default(); links];
        } else {
            self.heaps = vec![BinaryHeap::new(); links];
        }
    }

    /// Deterministic: no draws.
    fn reseed(&mut self, _: Rng) {}

    fn push(&mut self, t: u32, _: f64) {
        let link = self.link_of[t as usize] as usize;
        if self.strict() {
            self.is_ready[t as usize] = true;
            if self.key[t as usize] == f64::NEG_INFINITY {
                self.extra[link].push_back(t);
            }
            return;
        }
        self.heaps[link].push(MaxEntry {
            key: self.key[t as usize],
            tie: self.pushes,
            data: t,
        });
        self.pushes += 1;
    }

    fn pop(&mut self, link: u32) -> Option<u32> {
        let l = link as usize;
        if !self.strict() {
            return self.heaps[l].pop().map(|e| e.data);
        }
        match self.planned[l].get(self.cursor[l]) {
            Some(&x) if self.is_ready[x as usize] => {
                self.cursor[l] += 1;
                Some(x)
            }
            Some(_) => None, // hold for the plan's next transfer
            None => self.extra[l].pop_front(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cluster::Cluster;
    use crate::model::LinkModel;
    use crate::schedule::given::Given;
    use crate::schedule::Scheduler;
    use crate::sim::{simulate, SimOptions};
    use crate::testutil::graph;

    /// a(1) and b(2) on d0 each send 1 byte to c(1) and e(1) on d1 (bandwidth 1, latency 0,
    /// fcfs). The plan sends b's tensor first.
    /// - strict: a's tensor is ready at 1 but the link holds for b's, ready at 3: b's 3..4,
    ///   a's 4..5; e 4..5, c 5..6.
    /// - work-conserving with the same plan order: a's goes at once 1..2, b's 3..4; c 2..3,
    ///   e 4..5.
    #[test]
    fn strict_holds_a_link_for_its_planned_transfer() {
        let g = graph(
            r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":2},{"id":"c","cost":1},{"id":"e","cost":1}],
                "edges":[{"src":"a","dst":"c","bytes":1},{"src":"b","dst":"e","bytes":1}]}"#,
        );
        let c = Cluster::uniform(&[1.0, 1.0], 1.0, 0.0);
        let p = Problem::new(&g, &c).unwrap();
        let placement = [0, 0, 1, 1];
        let order = Order {
            priority: vec![2.0, 1.0, 0.0, 0.0],
            sequences: None,
            transfers: Some(vec![(1, 1), (0, 1)]),
        };
        let run = |wc: bool| {
            let mut q = GivenLinks::new(wc);
            q.hint(&order);
            // Devices by the plan's priorities (a before b), never holding.
            let mut s = Given::new(true);
            s.hint(&order);
            let r = simulate(
                &p,
                &placement,
                &mut s,
                &mut q,
                SimOptions {
                    links: LinkModel::Fcfs,
                    record: true,
                },
            );
            r.trace.unwrap().ops
        };
        let strict = run(false);
        let wc = run(true);
        assert_eq!(
            (strict[0], strict[1]),
            ((0.0, 1.0), (1.0, 3.0)),
            "a then b on d0"
        );
        assert_eq!(strict[3], (4.0, 5.0), "e after b's tensor, sent first at 3");
        assert_eq!(strict[2], (5.0, 6.0), "c waited for the held link");
        assert_eq!(wc[2], (2.0, 3.0), "a's tensor went at once");
        assert_eq!(wc[3], (4.0, 5.0));
    }
}
