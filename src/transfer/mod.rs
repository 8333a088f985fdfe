//! Link-queue orderings: which queued transfer a free link sends next.
//!
//! Only the `fcfs` link model queues transfers (one transfer at a time per directed link,
//! Pesto21 §3.1's congestion model); under `parallel` links every transfer starts at once
//! and no ordering applies. A policy is one file implementing [`LinkOrder`];
//! [`LINK_ORDERS`] is the registry (TicTac19's TAO/TIO orderings plug in here).
//!
//! The simulator pushes every transfer that becomes ready at an instant, then asks each
//! free link with something queued for its next one (`pop`), so a policy chooses among
//! all transfers that became ready together. Like a scheduler, a policy may hold a link:
//! `pop` answers `None` although transfers are queued (the `given` order's strict replay);
//! the link is asked again at its next push.

use crate::error::Result;
use crate::model::cluster::DevIx;
use crate::model::graph::{NodeIx, TensorIx};
use crate::model::problem::Problem;
use crate::params::{ParamSpec, Params};
use crate::plan::Order;
use crate::rng::Rng;

pub mod fifo;
pub mod given;
pub mod random;
pub mod recvs;
pub mod tao;
pub mod tio;

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

/// A link ordering policy. One policy value serves the runs of one problem and
/// placement: iterations call [`LinkOrder::reseed`] and then run again, and a policy may keep
/// what it derived from the run's inputs (TicTac19 §5: priorities are computed once, and all
/// iterations follow the same order).
pub trait LinkOrder {
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
    /// The next transfer to send on `link`, or `None` when its queue is empty or the
    /// policy holds the link.
    fn pop(&mut self, link: u32) -> Option<u32>;
    /// The order of the placer's plan, given before the run to policies that replay one.
    fn hint(&mut self, _order: &Order) {}
    /// Takes a fresh random stream for the next run (an iteration) of the same problem and
    /// placement; every draw of that run comes from it.
    fn reseed(&mut self, rng: Rng);
}

pub struct LinkOrderInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub params: &'static [ParamSpec],
    /// Whether it replays a placer's plan (runs only with placers that plan).
    pub needs_plan: bool,
    /// Builds the policy from its parameters and its own random stream.
    pub make: fn(&Params, Rng) -> Box<dyn LinkOrder>,
    /// For an order that ranks transfers (TicTac19's `tao`, `tio`): its ranking, so the
    /// priorities can be inspected outside a run (`placesim order`).
    pub ranking: Option<recvs::Ranking>,
}

pub static LINK_ORDERS: &[LinkOrderInfo] =
    &[fifo::INFO, random::INFO, tio::INFO, tao::INFO, given::INFO];

pub fn link_order(name: &str) -> Result<&'static LinkOrderInfo> {
    crate::params::lookup("link order", name, LINK_ORDERS, |s| s.name)
}

/// The ranking of a link order that ranks (`tao`, `tio`); an error naming the order otherwise.
pub fn ranking(name: &str) -> Result<recvs::Ranking> {
    link_order(name)?.ranking.ok_or_else(|| {
        crate::error::Error::Scenario(format!(
            "link order '{name}' does not rank transfers (tao and tio do)"
        ))
    })
}

#[cfg(test)]
mod tests;
