//! What a placer gets besides the problem: its random stream, progress and cancel, and the
//! pair that will replay its plan (`crate::pair`).

use crate::error::{Error, Result};
use crate::pair::Pair;
use crate::rng::Rng;

/// What a placer gets besides the problem: its random stream, and a way to report progress
/// and learn that the user cancelled.
pub struct PlaceContext<'a> {
    /// The placer's own stream (`derive(seed, ["place", name], seed index)`).
    pub rng: Rng,
    progress: Option<&'a mut dyn FnMut(f64) -> bool>,
    /// Whether anything will replay the plan's order (a `given` policy): a placer may skip
    /// building an order nobody reads.
    pub wants_order: bool,
    /// The pair `placer x given x link order` that will replay the plan, so that a placer
    /// that decodes candidates with the simulator (Pesto21's optimiser) decodes them as that
    /// pair runs them: same policies, same link model, same random streams.
    pub pair: Pair,
}

impl<'a> PlaceContext<'a> {
    /// `progress(fraction)` is told how far the placer is (0 to 1) and answers `false` to
    /// cancel.
    pub fn new(rng: Rng, progress: &'a mut dyn FnMut(f64) -> bool) -> PlaceContext<'a> {
        PlaceContext {
            rng,
            progress: Some(progress),
            wants_order: true,
            pair: Pair::default(),
        }
    }

    /// A context that never reports and never cancels (direct use and tests).
    pub fn quiet(rng: Rng) -> PlaceContext<'static> {
        PlaceContext {
            rng,
            progress: None,
            wants_order: true,
            pair: Pair::default(),
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
