//! Link-queue orderings: which queued transfer a free link sends next.
//!
//! Only the `fcfs` link model queues transfers (one transfer at a time per directed link,
//! Pesto21 §3.1's congestion model); under `parallel` links every transfer starts at once
//! and no ordering applies. A policy is one file implementing [`LinkQueue`];
//! [`LINK_QUEUES`] is the registry (TicTac19's TAO/TIO orderings plug in here).

use crate::error::Result;
use crate::model::cluster::DevIx;
use crate::model::graph::{NodeIx, TensorIx};
use crate::model::problem::Problem;
use crate::params::{ParamSpec, Params};

pub mod fifo;

/// One transfer: a tensor sent from its producer's device to one consuming device.
#[derive(Debug, Clone, PartialEq)]
pub struct Transfer {
    pub tensor: TensorIx,
    pub src: DevIx,
    pub dst: DevIx,
    pub bytes: f64,
    /// Index of the directed link (dense over the links this run uses).
    pub link: u32,
    /// The consuming ops on `dst`.
    pub consumers: Vec<NodeIx>,
}

/// A link-queue ordering policy.
pub trait LinkQueue {
    /// Prepares for one run: every transfer of the run, and how many links there are.
    fn init(
        &mut self,
        problem: &Problem,
        placement: &[DevIx],
        transfers: &[Transfer],
        links: usize,
    );
    /// Transfer `t` is ready to send on its link at time `now`.
    fn push(&mut self, t: u32, now: f64);
    /// The next transfer to send on `link`, or `None` when its queue is empty.
    fn pop(&mut self, link: u32) -> Option<u32>;
}

pub struct LinkQueueInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub params: &'static [ParamSpec],
    pub make: fn(&Params) -> Box<dyn LinkQueue>,
}

pub static LINK_QUEUES: &[LinkQueueInfo] = &[fifo::INFO];

pub fn link_queue(name: &str) -> Result<&'static LinkQueueInfo> {
    crate::params::lookup("link order", name, LINK_QUEUES, |s| s.name)
}
