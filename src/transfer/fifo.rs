//! `fifo` link order: first come, first served (Pesto21 §3.1: "one transfer at a time per
//! link ... in the order they arrive"). Transfers that become ready at the same instant
//! go in the order the simulator announced them, which is deterministic.

use super::{LinkOrder, LinkOrderInfo, Transfer};
use crate::model::cluster::DevIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::rng::Rng;

pub const INFO: LinkOrderInfo = LinkOrderInfo {
    name: "fifo",
    summary: "first come, first served per link (Pesto21 §3.1)",
    params: &[],
    needs_plan: false,
    make: |_: &Params, _: Rng| Box::new(FifoLinks::default()),
    ranking: None,
};

/// One FIFO per link, as linked lists threaded through the transfers (`next`), so that
/// queueing allocates nothing per link however many links a run uses.
#[derive(Default)]
pub struct FifoLinks {
    link_of: Vec<u32>,
    next: Vec<u32>,
    head: Vec<u32>,
    tail: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl LinkOrder for FifoLinks {
    fn init(&mut self, _: &Problem, _: &[DevIx], transfers: &[Transfer], links: usize) {
        self.link_of = transfers.iter().map(|t| t.link).collect();
        self.next = vec![NONE; transfers.len()];
        self.head = vec![NONE; links];
        self.tail = vec![NONE; links];
    }

    /// Deterministic: no draws.
    fn reseed(&mut self, _: Rng) {}

    fn push(&mut self, t: u32, _: f64) {
        let l = self.link_of[t as usize] as usize;
        self.next[t as usize] = NONE;
        match self.tail[l] {
            NONE => self.head[l] = t,
            last => self.next[last as usize] = t,
        }
        self.tail[l] = t;
    }

    fn pop(&mut self, link: u32) -> Option<u32> {
        let l = link as usize;
        let t = self.head[l];
        if t == NONE {
            return None;
        }
        self.head[l] = self.next[t as usize];
        if self.head[l] == NONE {
            self.tail[l] = NONE;
        }
        Some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cluster::Cluster;
    use crate::testutil::graph;

    /// Two links; pushes interleaved across them come out per link in push order, and a
    /// queue emptied and refilled starts afresh.
    #[test]
    fn first_in_first_out_per_link() {
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
        let xs = [t(0), t(1), t(0), t(0), t(1)];
        let mut q = FifoLinks::default();
        q.init(&p, &[0], &xs, 2);
        for x in [3, 0, 1, 2] {
            q.push(x, 0.0);
        }
        assert_eq!(q.pop(0), Some(3));
        assert_eq!(q.pop(0), Some(0));
        q.push(4, 0.0);
        assert_eq!(q.pop(1), Some(1));
        assert_eq!(q.pop(1), Some(4));
        assert_eq!(q.pop(1), None);
        assert_eq!(q.pop(0), Some(2));
        assert_eq!(q.pop(0), None);
        q.push(0, 1.0);
        assert_eq!(q.pop(0), Some(0));
    }
}
