//! The anytime search (Pesto21 §3.2's problem, searched instead of solved as the paper's
//! ILP): simulated annealing over unit candidates (`units`), each scored by the decoder
//! (`decoder`, the simulator itself).
//!
//! - Moves: relocate a unit to another allowed device with memory left (40%), swap the
//!   devices of two units (20%), shift a unit's priority just above or below another unit's,
//!   preferably one on the same device (40%). Moves that break memory or affinity are never
//!   decoded. No critical-path or large-neighbourhood moves.
//! - Acceptance: Metropolis, with temperature `T = t0 · M0 · (1 − used/budget)`, `M0` the
//!   start's makespan; `exp` is `libm::exp`, so the same bits natively and in wasm. After
//!   2000 evaluations without a new best the search restarts from the best.
//! - Budget: decoder work (deterministic), plus an optional wall-clock cap, which makes the
//!   result depend on the machine.
//!
//! What it is not: where the search starts (the placer's warm starts) or what it proves
//! (it proves nothing: the exact searches are `cp` and `bb`).

use crate::clock::Clock;
use crate::error::Result;
use crate::model::cluster::{exceeds, DevIx};
use crate::rng::Rng;

use super::{by_priority, capacity, metropolis, Best, Candidate, Decoder, Progress, SearchUnits};

/// Evaluations without a new best before the search restarts from the best.
const RESTART: u64 = 2000;

/// How long and how hot an annealing run is.
pub struct Limits<'c> {
    /// Decoder work this run may use (`Decoder::used`).
    pub budget: u64,
    /// Wall-clock cap in seconds on `clock`, 0 = none.
    pub seconds: f64,
    pub clock: &'c Clock,
    /// Initial temperature, a fraction of the start's makespan.
    pub t0: f64,
}

/// Simulated annealing over unit candidates from `start` on the decoder's problem; improves
/// `best` in place. Draws from `rng`, reports through `progress` (from 5% to 95%).
pub fn anneal(
    units: &SearchUnits,
    start: Candidate,
    best: &mut Best,
    dec: &mut Decoder,
    rng: &mut Rng,
    progress: &mut Progress,
    limits: &Limits,
) -> Result<()> {
    let problem = dec.problem();
    let Limits {
        budget,
        seconds,
        clock,
        t0,
    } = *limits;
    let n = problem.node_count();
    let k = problem.device_count();
    let nu = units.len();
    let cap = capacity(problem);
    let mut placement = vec![0 as DevIx; n];
    let mut priority = vec![0.0; n];
    let mut cur = start;
    cur.expand(units, &mut placement, &mut priority);
    let mut cur_val = dec.decode(&placement, &by_priority(priority.clone()));
    best.offer(&placement, by_priority(priority.clone()), cur_val, dec);
    let mut best_cand = cur.clone();
    let mut best_val = cur_val;
    let m0 = cur_val.min(best.makespan);
    let mut load = vec![0.0; k];
    for u in 0..nu {
        load[cur.device[u] as usize] += units.footprint[u];
    }
    let movable: Vec<usize> = (0..nu).filter(|&u| units.allowed[u].len() > 1).collect();
    let mut stale = 0u64;
    let mut misses = 0u32;
    let start_used = dec.used;
    while dec.used - start_used < budget && nu > 0 {
        let used = (dec.used - start_used) as f64 / budget as f64;
        if dec.evals.is_multiple_of(64) {
            progress(0.05 + 0.9 * used)?;
            if seconds > 0.0 && clock.seconds() > seconds {
                break;
            }
        }
        let mut next = cur.clone();
        let mut next_load = load.clone();
        let r = rng.unit();
        let moved = if r < 0.4 {
            // Relocate.
            if movable.is_empty() {
                false
            } else {
                let u = movable[rng.below(movable.len() as u64) as usize];
                let ds = &units.allowed[u];
                let d = ds[rng.below(ds.len() as u64) as usize];
                let from = next.device[u];
                if d == from || exceeds(load[d as usize] + units.footprint[u], cap[d as usize]) {
                    false
                } else {
                    next.device[u] = d;
                    next_load[from as usize] -= units.footprint[u];
                    next_load[d as usize] += units.footprint[u];
                    true
                }
            }
        } else if r < 0.6 {
            // Swap.
            if movable.len() < 2 {
                false
            } else {
                let a = movable[rng.below(movable.len() as u64) as usize];
                let b = movable[rng.below(movable.len() as u64) as usize];
                let (da, db) = (next.device[a], next.device[b]);
                let (fa, fb) = (units.footprint[a], units.footprint[b]);
                if da == db
                    || !units.allowed[a].contains(&db)
                    || !units.allowed[b].contains(&da)
                    || exceeds(load[db as usize] - fb + fa, cap[db as usize])
                    || exceeds(load[da as usize] - fa + fb, cap[da as usize])
                {
                    false
                } else {
                    next.device.swap(a, b);
                    next_load[da as usize] += fb - fa;
                    next_load[db as usize] += fa - fb;
                    true
                }
            }
        } else if nu >= 2 {
            // Shift u's priority next to w's, w preferably on u's device.
            let u = rng.below(nu as u64) as usize;
            let same: Vec<usize> = (0..nu)
                .filter(|&w| w != u && next.device[w] == next.device[u])
                .collect();
            let w = if same.is_empty() {
                let w = rng.below(nu as u64 - 1) as usize;
                if w >= u {
                    w + 1
                } else {
                    w
                }
            } else {
                same[rng.below(same.len() as u64) as usize]
            };
            let pw = next.priority[w];
            let up = rng.below(2) == 0;
            let neighbour = next
                .priority
                .iter()
                .enumerate()
                .filter(|&(x, &p)| x != u && if up { p > pw } else { p < pw })
                .map(|(_, &p)| p)
                .fold(None, |acc: Option<f64>, p| {
                    Some(match acc {
                        None => p,
                        Some(a) if up => a.min(p),
                        Some(a) => a.max(p),
                    })
                });
            next.priority[u] = match neighbour {
                Some(p) => (pw + p) / 2.0,
                None if up => pw + 1.0,
                None => pw - 1.0,
            };
            next.normalise();
            next.priority != cur.priority
        } else {
            false
        };
        if !moved {
            misses += 1;
            if misses > 10_000 {
                break; // nothing left to move
            }
            continue;
        }
        misses = 0;
        next.expand(units, &mut placement, &mut priority);
        let order = by_priority(priority.clone());
        let val = dec.decode(&placement, &order);
        let temperature = t0 * m0 * (1.0 - used);
        let accept = metropolis(val, cur_val, temperature, rng);
        best.offer(&placement, order, val, dec);
        if val < best_val {
            best_val = val;
            best_cand = next.clone();
            stale = 0;
        } else {
            stale += 1;
        }
        if accept {
            cur = next;
            cur_val = val;
            load = next_load;
        }
        if stale >= RESTART {
            stale = 0;
            cur = best_cand.clone();
            cur_val = best_val;
            load.iter_mut().for_each(|l| *l = 0.0);
            for u in 0..nu {
                load[cur.device[u] as usize] += units.footprint[u];
            }
        }
    }
    Ok(())
}
