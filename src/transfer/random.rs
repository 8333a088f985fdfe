//! `random` link order: TicTac19's baseline, "no enforced order" (§3, §6): vanilla
//! TensorFlow sends whichever transfer its gRPC channel picks up first, which the paper models
//! as random. A free link sends a transfer drawn uniformly from everything queued on it,
//! with draws from the link order's derived stream (independent per link draw, fixed by the
//! scenario's seed).

use super::{LinkOrder, LinkOrderInfo, Transfer};
use crate::model::cluster::DevIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::rng::Rng;

pub const INFO: LinkOrderInfo = LinkOrderInfo {
    name: "random",
    summary: "uniformly random among queued transfers, TicTac19's no-order baseline",
    params: &[],
    needs_plan: false,
    make: |_: &Params, rng: Rng| Box::new(RandomLinks::new(rng)),
    ranking: None,
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

impl LinkOrder for RandomLinks {
    fn init(&mut self, _: &Problem, _: &[DevIx], transfers: &[Transfer], links: usize) {
        self.link_of = transfers.iter().map(|t| t.link).collect();
        self.queues = vec![Vec::new(); links];
    }

    fn reseed(&mut self, rng: Rng) {
        self.rng = rng;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cluster::Cluster;
    use crate::testutil::graph;

    /// Three transfers queued on link 0 and one on link 1: link 1 gets its own; link 0's
    /// orders cover all 3! = 6 permutations across seeds, about equally often, each one the
    /// same every time for its seed.
    #[test]
    fn uniform_among_queued_per_link_and_seeded() {
        let g = graph(r#"{"nodes":[{"id":"a","cost":1}]}"#);
        let c = Cluster::uniform(&[1.0], 1.0, 0.0);
        let p = Problem::new(&g, &c).unwrap();
        let t = |link| Transfer {
            tensor: 0,
            src: 0,
            dst: 0,
            bytes: 1.0,
            link,
            consumers: vec![],
        };
        let xs = [t(0), t(1), t(0), t(0)];
        let order_of = |seed| {
            let mut q = RandomLinks::new(Rng::derive(seed, &["link_order"], 0));
            q.init(&p, &[0], &xs, 2);
            for x in 0..4 {
                q.push(x, 0.0);
            }
            assert_eq!(q.pop(1), Some(1));
            assert_eq!(q.pop(1), None);
            std::iter::from_fn(|| q.pop(0)).collect::<Vec<_>>()
        };
        let mut seen = std::collections::BTreeMap::new();
        for seed in 0..600 {
            let o = order_of(seed);
            assert_eq!(o, order_of(seed));
            *seen.entry(o).or_insert(0) += 1;
        }
        assert_eq!(seen.len(), 6, "{seen:?}");
        for (o, n) in seen {
            assert!((50..=150).contains(&n), "{o:?} drawn {n} times");
        }
    }
}
