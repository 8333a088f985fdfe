//! What a placer gets besides the problem: its random stream, progress and cancel, and the
//! rules the pair it belongs to will be simulated under.

use crate::error::{Error, Result};
use crate::model::LinkModel;
use crate::params::Params;
use crate::rng::Rng;
use crate::transfer::LinkQueueInfo;

/// What a placer gets besides the problem: its random stream, and a way to report progress
/// and learn that the user cancelled.
pub struct PlaceContext<'a> {
    /// The placer's own stream (`derive(seed, ["place", name], seed index)`).
    pub rng: Rng,
    progress: Option<&'a mut dyn FnMut(f64) -> bool>,
    /// Whether anything will replay the plan's order (a `given` policy): a placer may skip
    /// building an order nobody reads.
    pub wants_order: bool,
    /// How the pair will be simulated: the link model and link order, so that a placer that
    /// decodes candidates with the simulator (Pesto21's optimiser) decodes under the same
    /// rules.
    pub links: LinkRules,
}

/// The scenario's link model and link order, and the `given` scheduler's mode: how a
/// `placer x given` pair will be simulated.
#[derive(Clone)]
pub struct LinkRules {
    pub model: LinkModel,
    pub order: &'static LinkQueueInfo,
    pub params: Params,
    /// The link order's own stream for the pair `placer x given` (a `random` link order
    /// draws from it).
    pub rng: Rng,
    /// Whether the `given` scheduler replays by priority (`given.work_conserving=1`) rather
    /// than strictly.
    pub work_conserving: bool,
}

impl Default for LinkRules {
    /// Parallel links, `fifo` order: the scenario defaults.
    fn default() -> LinkRules {
        let order = &crate::transfer::fifo::INFO;
        LinkRules {
            model: LinkModel::Parallel,
            order,
            params: Params::defaults(order.params),
            rng: Rng::new(0),
            work_conserving: false,
        }
    }
}

impl<'a> PlaceContext<'a> {
    /// `progress(fraction)` is told how far the placer is (0 to 1) and answers `false` to
    /// cancel.
    pub fn new(rng: Rng, progress: &'a mut dyn FnMut(f64) -> bool) -> PlaceContext<'a> {
        PlaceContext {
            rng,
            progress: Some(progress),
            wants_order: true,
            links: LinkRules::default(),
        }
    }

    /// A context that never reports and never cancels (direct use and tests).
    pub fn quiet(rng: Rng) -> PlaceContext<'static> {
        PlaceContext {
            rng,
            progress: None,
            wants_order: true,
            links: LinkRules::default(),
        }
    }

    /// Reports the fraction done; an error when the user cancelled, which a placer returns
    /// at once (`?`).
    pub fn progress(&mut self, fraction: f64) -> Result<()> {
        let go_on = match &mut self.progress {
            Some(report) => report(fraction.clamp(0.0, 1.0)),
            None => true,
        };
        if go_on {
            Ok(())
        } else {
            Err(Error::Cancelled)
        }
    }
}
