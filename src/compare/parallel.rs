//! [`run_parallel`]: a comparison's placements and simulations spread over threads (native
//! only; the page spreads [`work_items`] over its workers instead, docs/batch.md).
//!
//! The tasks are finer than the work items: each placer of an item places once (a task),
//! then each of its pairs is a task of its own, handed out as soon as the placement exists.
//! So a slow placer near the end of the plan (m-ETF is the 12th of 13 default placers) no
//! longer leaves its pairs' simulations to run one after another on its own thread.
//!
//! Which task a free thread takes: first an unstarted placement of the lowest seed that has
//! work left (placements first, so the slow ones start early and the simulations, many and
//! short, fill the threads at the end), then the first simulation whose placement is done,
//! then a placement of a later seed; otherwise it waits for a placement to finish. A
//! placement's simulation tables ([`sim::prepare`]) are built by its first simulation and
//! dropped after its last, and a seed's cost model after its last task, so memory holds
//! about one placement per thread.
//!
//! Results do not depend on the threads: every task computes what the sequential run
//! computes (the same [`place()`] and `run_pair` calls with the same streams), and the items
//! are put back together in plan order and merged as [`run`] merges them (placement seconds,
//! being wall clock, aside).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use super::*;
use crate::scenario::Realization;

type Outcome = std::result::Result<PairSample, Error>;

/// One placer of one work item: a placement task, then a task per pair.
struct Unit {
    item: usize,
    placer: usize,
    seed: u32,
    pairs: Vec<(usize, usize, usize)>,
    started: bool,
    placed: Option<Arc<Placed>>,
    /// The next pair to hand out.
    next: usize,
    /// Tasks not finished (its placement and its pairs).
    left: usize,
    results: Vec<Option<Outcome>>,
}

/// A placement and its simulation tables (built by the first of its pairs to run).
struct Placed {
    plan: Plan,
    seconds: f64,
    prepared: OnceLock<sim::Prepared>,
}

#[derive(Clone, Copy)]
enum Task {
    Place(usize),
    Sim(usize, usize),
}

/// What a seed's items report besides their placers: devices and bounds.
type SeedFacts = (Vec<SeedDevice>, f64, f64);

struct Board {
    units: Vec<Unit>,
    /// Per item, the error that stopped it before its placers ran (a seed that cannot be
    /// realized, a placer index out of range, a replica's missing device).
    failed: Vec<Option<Error>>,
    /// Per seed, what its sample reports, once known.
    facts: Vec<Option<SeedFacts>>,
    /// Per seed, units with tasks left.
    seed_left: Vec<usize>,
}

impl Board {
    /// The board before any task: a unit per placer of each item, in plan order, with the
    /// pairs of its placer.
    fn new(resolved: &Resolved, items: &[WorkItem], seeds: usize) -> Board {
        let mut units = Vec::new();
        for (k, item) in items.iter().enumerate() {
            for &pi in &item.placers {
                let pairs: Vec<_> = resolved
                    .pairs
                    .iter()
                    .copied()
                    .filter(|p| p.0 == pi)
                    .collect();
                units.push(Unit {
                    item: k,
                    placer: pi,
                    seed: item.seed,
                    results: vec![None; pairs.len()],
                    left: 1 + pairs.len(),
                    pairs,
                    started: false,
                    placed: None,
                    next: 0,
                });
            }
        }
        let mut seed_left = vec![0; seeds];
        for u in &units {
            seed_left[u.seed as usize] += 1;
        }
        Board {
            units,
            failed: vec![None; items.len()],
            facts: vec![None; seeds],
            seed_left,
        }
    }

    fn next(&mut self) -> Option<Task> {
        let current = self.seed_left.iter().position(|&n| n > 0)? as u32;
        let first_place = |b: &Board, only: Option<u32>| {
            b.units
                .iter()
                .position(|u| !u.started && only.is_none_or(|s| u.seed == s))
        };
        if let Some(u) = first_place(self, Some(current)) {
            self.units[u].started = true;
            return Some(Task::Place(u));
        }
        if let Some(u) = self
            .units
            .iter()
            .position(|u| u.placed.is_some() && u.next < u.pairs.len())
        {
            let unit = &mut self.units[u];
            unit.next += 1;
            return Some(Task::Sim(u, unit.next - 1));
        }
        let u = first_place(self, None)?;
        self.units[u].started = true;
        Some(Task::Place(u))
    }

    fn finished(&self) -> bool {
        self.seed_left.iter().all(|&n| n == 0)
    }

    /// One task of unit `u` is done.
    fn task_done(&mut self, u: usize) {
        let unit = &mut self.units[u];
        unit.left -= 1;
        if unit.left == 0 {
            unit.placed = None;
            self.seed_left[unit.seed as usize] -= 1;
        }
    }
}

fn lock_board(m: &Mutex<Board>) -> std::sync::MutexGuard<'_, Board> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A seed's cost model, shared by its tasks while any is left.
enum Slot<'a> {
    Empty,
    Ready(Arc<Result<SeedBase<'a>>>),
    Released,
}

/// What the threads share while they run a comparison's tasks: the inputs, the board, the
/// seeds' realizations and cost models, and the signals between threads.
struct Run<'a> {
    resolved: &'a Resolved,
    graph: &'a Graph,
    fixed: Option<&'a Cluster>,
    items: &'a [WorkItem],
    /// Units (placements and simulations) to report, for `progress`.
    total: usize,
    progress: &'a (dyn Fn(f64, usize) -> bool + Sync),
    board: Mutex<Board>,
    wake: Condvar,
    cancelled: AtomicBool,
    done: AtomicU64,
    reporting: Mutex<()>,
    reals: &'a [OnceLock<Result<Realization>>],
    slots: Vec<Mutex<Slot<'a>>>,
}

/// Runs every pair of a resolved scenario over its seeds on `threads` threads (native only):
/// each placement and each simulation is a task (module doc), and the results are merged in
/// their fixed order, so the result has the bits of [`run`] (placement seconds, being wall
/// clock, aside). `progress(done, total)` counts whole units (a placement, a simulation),
/// never goes back, and may be called from any thread.
pub fn run_parallel(
    resolved: &Resolved,
    graph: &Graph,
    fixed: Option<&Cluster>,
    threads: usize,
    progress: &(dyn Fn(f64, usize) -> bool + Sync),
) -> Result<Comparison> {
    let items = work_items(resolved, threads);
    if threads <= 1 || items.iter().any(|it| it.placers.is_empty()) {
        return run(resolved, graph, fixed, &mut |d, t| progress(d, t));
    }
    let scenario = resolved.scenario();
    let total: usize = items.iter().map(|it| item_units(resolved, it)).sum();
    let seeds = scenario.seeds as usize;
    let reals: Vec<OnceLock<Result<Realization>>> = (0..seeds).map(|_| OnceLock::new()).collect();
    let run = Run {
        resolved,
        graph,
        fixed,
        items: &items,
        total,
        progress,
        board: Mutex::new(Board::new(resolved, &items, seeds)),
        wake: Condvar::new(),
        cancelled: AtomicBool::new(false),
        done: AtomicU64::new(0),
        reporting: Mutex::new(()),
        reals: &reals,
        slots: (0..seeds).map(|_| Mutex::new(Slot::Empty)).collect(),
    };
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| run.worker());
        }
    });
    if run.cancelled.load(Ordering::Relaxed) {
        return Err(Error::Cancelled);
    }
    let board = run.board.into_inner().unwrap_or_else(|e| e.into_inner());
    merge(
        resolved,
        &[Partial {
            graph: graph_summary(graph),
            items: item_results(items, board),
        }],
    )
}

/// The items' results, in plan order, from the finished board: an item that failed before
/// its placers ran reports its error, the others their seed's facts and their placers' pairs.
fn item_results(items: Vec<WorkItem>, board: Board) -> Vec<ItemResult> {
    let mut units = board.units.into_iter().peekable();
    let mut out = Vec::with_capacity(items.len());
    for (k, (item, failed)) in items.into_iter().zip(board.failed).enumerate() {
        let mut placers = Vec::with_capacity(item.placers.len());
        while let Some(unit) = units.next_if(|u| u.item == k) {
            if failed.is_some() {
                // Its pairs never ran: the item reports its error.
                continue;
            }
            placers.push(PlacerSample {
                placer: unit.placer,
                pairs: unit
                    .results
                    .into_iter()
                    .map(|r| r.expect("every pair ran"))
                    .collect(),
            });
        }
        let outcome = match failed {
            Some(e) => Err(e),
            None => {
                let (devices, critical_path_bound, work_bound) = board.facts[item.seed as usize]
                    .clone()
                    .expect("a seed whose items ran has its facts");
                Ok(SeedSample {
                    devices,
                    critical_path_bound,
                    work_bound,
                    placers,
                })
            }
        };
        out.push(ItemResult { item, outcome });
    }
    out
}

impl<'a> Run<'a> {
    /// Whether the run goes on (not cancelled).
    fn go_on(&self) -> bool {
        !self.cancelled.load(Ordering::Relaxed)
    }

    /// Stops every thread: set under the board's lock, so that no thread between its check
    /// and its wait misses the wake-up.
    fn cancel(&self) {
        let _b = lock_board(&self.board);
        self.cancelled.store(true, Ordering::Relaxed);
        drop(_b);
        self.wake.notify_all();
    }

    /// The seed's cost model, built by the first task that needs it.
    fn base(&self, s: u32) -> Arc<Result<SeedBase<'a>>> {
        let mut slot = self.slots[s as usize]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Slot::Ready(b) = &*slot {
            return b.clone();
        }
        let scenario = self.resolved.scenario();
        let real =
            self.reals[s as usize].get_or_init(|| realize(scenario, self.graph, self.fixed, s));
        let b = Arc::new(match real {
            Ok(real) => seed_base(scenario, self.graph, real),
            Err(e) => Err(e.clone()),
        });
        debug_assert!(
            matches!(*slot, Slot::Empty),
            "a released seed has no task left"
        );
        *slot = Slot::Ready(b.clone());
        b
    }

    /// Records a finished task of unit `u` (`outcome`: what it changes on the board), wakes
    /// the waiting threads, and counts `units` done; false when the run is cancelled.
    fn finish(&self, u: usize, units: u64, outcome: &mut dyn FnMut(&mut Board)) -> bool {
        let mut b = lock_board(&self.board);
        outcome(&mut b);
        b.task_done(u);
        let s = b.units[u].seed as usize;
        if b.seed_left[s] == 0 {
            *self.slots[s].lock().unwrap_or_else(|e| e.into_inner()) = Slot::Released;
        }
        drop(b);
        self.wake.notify_all();
        self.done.fetch_add(units, Ordering::Relaxed);
        let _one_at_a_time = self.reporting.lock().unwrap_or_else(|e| e.into_inner());
        if !self.go_on() {
            return false;
        }
        if !(self.progress)(self.done.load(Ordering::Relaxed) as f64, self.total) {
            self.cancel();
            return false;
        }
        true
    }

    /// Places unit `u`'s placer (after its item's checks) and puts the plan on the board, or
    /// the error that stops the item or becomes its pairs' rows; false when the run stops.
    fn place_task(&self, u: usize) -> bool {
        let (k, pi, s, n_pairs) = {
            let b = lock_board(&self.board);
            let unit = &b.units[u];
            (unit.item, unit.placer, unit.seed, unit.pairs.len())
        };
        let resolved = self.resolved;
        let seed = self.base(s);
        // The item's checks, in `seed_sample`'s order: the seed, the placer indices, a
        // replica's devices.
        let checked = match &*seed {
            Err(e) => Err(e.clone()),
            Ok(sb) => match self.items[k]
                .placers
                .iter()
                .find(|&&p| p >= resolved.placers.len())
            {
                Some(&p) => Err(Error::Scenario(format!(
                    "placer index {p} is out of range (the scenario has {} placers)",
                    resolved.placers.len()
                ))),
                None => sb.workers.as_ref().map(|_| sb).map_err(Error::clone),
            },
        };
        let sb = match checked {
            Ok(sb) => sb,
            Err(e) => {
                // The item stops: none of its placers' pairs runs.
                let mut e = Some(e);
                return self.finish(u, 1 + n_pairs as u64, &mut |b| {
                    b.failed[k] = e.take();
                    let unit = &mut b.units[u];
                    unit.next = n_pairs;
                    unit.left = 1;
                });
            }
        };
        let mut placed = Some(place(&sb.problem, resolved, pi, s, &mut |_| self.go_on()));
        if let Some(Err(Error::Cancelled)) = placed {
            self.cancel();
            return false;
        }
        let facts = (sb.devices.clone(), sb.critical_path, sb.work);
        let failed = matches!(placed, Some(Err(_)));
        let units = if failed { 1 + n_pairs as u64 } else { 1 };
        self.finish(u, units, &mut |b| {
            if b.facts[s as usize].is_none() {
                b.facts[s as usize] = Some(facts.clone());
            }
            let unit = &mut b.units[u];
            match placed.take().expect("recorded once") {
                // A row error for each of its pairs.
                Err(e) => {
                    for r in &mut unit.results {
                        *r = Some(Err(e.clone()));
                    }
                    unit.next = n_pairs;
                    unit.left = 1;
                }
                Ok((plan, seconds)) => {
                    unit.placed = Some(Arc::new(Placed {
                        plan,
                        seconds,
                        prepared: OnceLock::new(),
                    }))
                }
            }
        })
    }

    /// Simulates pair `j` of unit `u` on its placement (building the placement's simulation
    /// tables if it is the first) and puts the row on the board; false when the run stops.
    fn sim_task(&self, u: usize, j: usize) -> bool {
        let (placed, pair_ix, s) = {
            let b = lock_board(&self.board);
            let unit = &b.units[u];
            let placed = unit
                .placed
                .clone()
                .expect("a unit's pairs run once it placed");
            (placed, unit.pairs[j], unit.seed)
        };
        let seed = self.base(s);
        let sb = seed
            .as_ref()
            .as_ref()
            .expect("a seed that failed has no pairs to run");
        let prepared = placed
            .prepared
            .get_or_init(|| sim::prepare(&sb.problem, &placed.plan.placement));
        let outcome = run_pair(
            &sb.problem,
            self.resolved,
            (&placed.plan, placed.seconds),
            prepared,
            (pair_ix, s),
            (sb.critical_path, sb.work),
            sb.workers.as_deref().unwrap_or(&[]),
            &mut |_| self.go_on(),
        );
        drop(placed);
        drop(seed);
        let Ok(outcome) = outcome else {
            self.cancel();
            return false;
        };
        let mut outcome = Some(outcome);
        self.finish(u, 1, &mut |b| b.units[u].results[j] = outcome.take())
    }

    /// A thread's loop: takes the board's next task (waiting while there is none yet) and
    /// runs it, until every task is done or the run stops.
    fn worker(&self) {
        // A panicking task stops the others (they would wait for it), then the scope
        // passes the panic on.
        struct OnPanic<'a>(&'a dyn Fn());
        impl Drop for OnPanic<'_> {
            fn drop(&mut self) {
                if std::thread::panicking() {
                    (self.0)();
                }
            }
        }
        let cancel = || self.cancel();
        let _guard = OnPanic(&cancel);
        loop {
            let task = {
                let mut b = lock_board(&self.board);
                loop {
                    if !self.go_on() || b.finished() {
                        return;
                    }
                    if let Some(t) = b.next() {
                        break t;
                    }
                    b = self.wake.wait(b).unwrap_or_else(|e| e.into_inner());
                }
            };
            let go = match task {
                Task::Place(u) => self.place_task(u),
                Task::Sim(u, j) => self.sim_task(u, j),
            };
            if !go {
                return;
            }
        }
    }
}
