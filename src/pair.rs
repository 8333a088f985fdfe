//! A pair: a placer's plan run under a scheduler and a link order. This is THE one way a
//! plan is simulated, for a comparison's rows (`compare`) and for an optimiser's decoder
//! (`optim`, Pesto21 §3.2's objective: the makespan the pair itself simulates).
//!
//! A [`Pair`] names its placer, its scheduler and its link order (entries of the registries
//! `schedule::SCHEDULERS` and `transfer::LINK_ORDERS` with their checked parameters, never
//! a strategy file), the link model, and the scenario's seed and seed index. From these it derives its random
//! streams in one function ([`Pair::streams`]), so a comparison's row and a placer's decoder
//! that describe the same pair draw the same numbers; it builds its policies from their
//! registry entries and simulates the plan once ([`Pair::simulate`]) or per iteration
//! ([`Pair::iterate`]).
//!
//! What it is not: it resolves no scenario (the caller hands it checked parameters) and
//! places nothing (the plan comes from `place/`). It sits above `sim/`, `schedule/` and
//! `transfer/`, below `optim/` and `place/`: a placer receives the pair its plan will be
//! replayed by (`PlaceContext::pair`), and an optimiser simulates candidates through it.

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::model::cluster::DevIx;
use crate::model::problem::Problem;
use crate::model::LinkModel;
use crate::params::Params;
use crate::plan::Order;
use crate::rng::Rng;
use crate::schedule::{self, Scheduler, SchedulerInfo};
use crate::sim::{self, SimOptions, SimResult};
use crate::transfer::{self, LinkOrder, LinkOrderInfo};

/// The registry name of the scheduler that replays a plan: the pair a planning placer's
/// objective is the makespan of is `placer x given x link order`.
const REPLAY: &str = "given";

/// How a plan will be run: placer, scheduler, link order, link model, and where the pair's
/// random draws come from.
#[derive(Clone)]
pub struct Pair {
    placer: &'static str,
    scheduler: &'static SchedulerInfo,
    scheduler_params: Params,
    link_order: &'static LinkOrderInfo,
    link_order_params: Params,
    links: LinkModel,
    /// The scenario's seed and the seed index (`Rng::derive`'s seed and index).
    seed: u64,
    seed_index: u32,
}

/// The random streams of one run of a pair: the scheduler's and the link order's.
pub struct Streams {
    pub scheduler: Rng,
    pub link_order: Rng,
}

impl Default for Pair {
    /// `given` (strict) with the `fifo` link order on parallel links, seed 0: the scenario
    /// defaults, for a placer used directly (tests, benches).
    fn default() -> Pair {
        let scheduler = schedule::scheduler(REPLAY).expect("the registry has `given`");
        let link_order = transfer::link_order("fifo").expect("the registry has `fifo`");
        Pair {
            placer: "",
            scheduler,
            scheduler_params: Params::defaults(scheduler.params),
            link_order,
            link_order_params: Params::defaults(link_order.params),
            links: LinkModel::Parallel,
            seed: 0,
            seed_index: 0,
        }
    }
}

impl Pair {
    /// The pair `placer x scheduler x link order` at seed index `seed_index` of a scenario
    /// seeded `seed`; the parameters are the policies' resolved ones.
    pub fn new(
        placer: &'static str,
        (scheduler, scheduler_params): (&'static SchedulerInfo, Params),
        (link_order, link_order_params): (&'static LinkOrderInfo, Params),
        links: LinkModel,
        (seed, seed_index): (u64, u32),
    ) -> Pair {
        Pair {
            placer,
            scheduler,
            scheduler_params,
            link_order,
            link_order_params,
            links,
            seed,
            seed_index,
        }
    }

    /// The pair `placer x given x link order` that replays a planning placer's plan: what
    /// its decoder simulates. `overrides` are the scenario's parameters
    /// (`given.work_conserving` chooses the replay mode).
    pub fn replay(
        placer: &'static str,
        overrides: &BTreeMap<String, f64>,
        link_order: (&'static LinkOrderInfo, Params),
        links: LinkModel,
        seeds: (u64, u32),
    ) -> Result<Pair> {
        let given = schedule::scheduler(REPLAY)?;
        let params = Params::resolve(given.name, given.params, overrides)?;
        Ok(Pair::new(placer, (given, params), link_order, links, seeds))
    }

    /// The same pair under another link model (a search that ignores congestion).
    pub fn with_links(self, links: LinkModel) -> Pair {
        Pair { links, ..self }
    }

    /// The name of the pair's link order (`fifo`, `given`, ...).
    pub fn link_order_name(&self) -> &'static str {
        self.link_order.name
    }

    /// The link model the pair is simulated under.
    pub fn links(&self) -> LinkModel {
        self.links
    }

    /// The random streams of iteration `iteration`: THE one place the pair's streams are
    /// named. The scheduler draws from `derive(seed, ["schedule", placer, scheduler], i)`,
    /// the link order from `derive(seed, ["link_order", placer, scheduler, link order], i)`,
    /// with `i = seed index + (iteration << 32)`, so iteration 0 is a single run's and
    /// adding a strategy never shifts another's draws.
    pub fn streams(&self, iteration: u32) -> Streams {
        let index = self.seed_index as u64 | (iteration as u64) << 32;
        let (s, o) = (self.scheduler.name, self.link_order.name);
        Streams {
            scheduler: Rng::derive(self.seed, &["schedule", self.placer, s], index),
            link_order: Rng::derive(self.seed, &["link_order", self.placer, s, o], index),
        }
    }

    /// The scheduler of one run, from its registry entry, told the plan's order.
    fn scheduler(&self, rng: Rng, order: Option<&Order>) -> Box<dyn Scheduler> {
        let mut s = (self.scheduler.make)(&self.scheduler_params, rng);
        if let Some(o) = order {
            s.hint(o);
        }
        s
    }

    /// The link order, from its registry entry, told the plan's order.
    fn link_order(&self, rng: Rng, order: Option<&Order>) -> Box<dyn LinkOrder> {
        let mut q = (self.link_order.make)(&self.link_order_params, rng);
        if let Some(o) = order {
            q.hint(o);
        }
        q
    }

    fn options(&self, record: bool) -> SimOptions {
        SimOptions {
            links: self.links,
            record,
        }
    }

    /// Simulates `placement` with the plan's `order` once (iteration 0), as it is: a replay
    /// that deadlocks comes back with `unfinished` ops (an optimiser's decoder scores it).
    pub fn simulate(
        &self,
        problem: &Problem,
        placement: &[DevIx],
        order: Option<&Order>,
        record: bool,
    ) -> SimResult {
        let Streams {
            scheduler,
            link_order,
        } = self.streams(0);
        let mut queue = self.link_order(link_order, order);
        let mut scheduler = self.scheduler(scheduler, order);
        sim::simulate(
            problem,
            placement,
            scheduler.as_mut(),
            queue.as_mut(),
            self.options(record),
        )
    }

    /// Simulates `placement` with the plan's `order` `iterations` times
    /// (`(iterations, record)`), handing each run to `each` (answering `false` cancels).
    /// The link order is made once, so that its priorities are computed once (TicTac19 §5),
    /// and reseeded per iteration; the scheduler is made afresh per iteration (TensorFlow's
    /// random order is redrawn). A run that leaves ops unrun (a strict replay that
    /// deadlocks) is an error naming how many.
    pub fn iterate(
        &self,
        problem: &Problem,
        placement: &[DevIx],
        order: Option<&Order>,
        runs: (u32, bool),
        each: &mut dyn FnMut(u32, SimResult) -> bool,
    ) -> Result<()> {
        self.iterate_prepared(
            problem,
            &sim::prepare(problem, placement),
            order,
            runs,
            each,
        )
    }

    /// [`Pair::iterate`] on the placement `prepared` was built for ([`sim::prepare`], from
    /// `problem`): the pairs of one placer share it.
    pub fn iterate_prepared(
        &self,
        problem: &Problem,
        prepared: &sim::Prepared,
        order: Option<&Order>,
        (iterations, record): (u32, bool),
        each: &mut dyn FnMut(u32, SimResult) -> bool,
    ) -> Result<()> {
        let mut queue: Option<Box<dyn LinkOrder>> = None;
        for j in 0..iterations {
            let streams = self.streams(j);
            let queue = match &mut queue {
                None => queue.insert(self.link_order(streams.link_order, order)),
                Some(q) => {
                    q.reseed(streams.link_order);
                    q
                }
            };
            let mut scheduler = self.scheduler(streams.scheduler, order);
            let r = sim::simulate_prepared(
                problem,
                prepared,
                scheduler.as_mut(),
                queue.as_mut(),
                self.options(record),
            );
            if r.unfinished > 0 {
                return Err(Error::Problem(format!(
                    "the replay of placer {}'s plan under scheduler {} and link order {} deadlocked: {} of {} ops never ran (a device or link waited for a planned item that could not become ready)",
                    self.placer,
                    self.scheduler.name,
                    self.link_order.name,
                    r.unfinished,
                    problem.node_count()
                )));
            }
            if !each(j, r) {
                return Err(Error::Cancelled);
            }
        }
        Ok(())
    }
}
