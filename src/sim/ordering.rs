//! TicTac19's ordering metrics (§3.1, §6) over one simulated iteration of a parameter-server
//! replica, and the bandwidth that balances communication against computation (docs/tictac.md,
//! reading A17). Pure functions of a run's statistics: no strategy appears here.
//!
//! Readings (docs/tictac.md, Readings):
//! - A14: a worker's time `t_w` is measured from the iteration's start (0, when the servers
//!   activate every send), to the later of its last op's end and its last inbound transfer's
//!   arrival.
//! - Eq. 1 and 2 over the worker's resources: its compute (Σ run time of its ops) and each
//!   inbound channel (Σ transfer time on the link from a server; latency included).
//!   Outbound gradient pushes are not recvs (readings A9, A18) and stay out.
//! - A12: the straggler effect is `(max_w t_w - min_w t_w) / T` (waiting for the slowest
//!   worker); `max_w (T - t_w) / T`, which also counts the servers' tail, is `straggler_tail`.
//! - A15: the theoretical best and worst iteration are `max_w lower_w` and `max_w upper_w`
//!   (every worker at E = 1, or at E = 0); the servers' tail is not in them.

use serde::{Deserialize, Serialize};

use super::SimResult;
use crate::error::{Error, Result};
use crate::model::cluster::DevIx;
use crate::model::problem::Problem;
use crate::transfer::Transfer;

/// One worker's times in one iteration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WorkerTimes {
    /// When it finished (reading A14).
    pub t: f64,
    /// Eq. 1: everything one after the other.
    pub upper: f64,
    /// Eq. 2: its busiest resource.
    pub lower: f64,
}

impl WorkerTimes {
    pub fn of(r: &SimResult, w: DevIx) -> WorkerTimes {
        let dev = &r.devices[w as usize];
        let inbound = r.links.iter().filter(|l| l.dst == w);
        let (sum, max, finish) = inbound.fold((0.0f64, 0.0f64, 0.0f64), |(s, m, f), l| {
            (s + l.busy, m.max(l.busy), f.max(l.finish))
        });
        WorkerTimes {
            t: dev.finish.max(finish),
            upper: dev.busy + sum,
            lower: dev.busy.max(max),
        }
    }

    /// Eq. 3, the ordering efficiency: 1 at the best makespan, 0 at the worst; `None` when
    /// the two coincide (ordering cannot matter).
    pub fn efficiency(&self) -> Option<f64> {
        (self.upper > self.lower).then(|| (self.upper - self.t) / (self.upper - self.lower))
    }

    /// Eq. 4, the speedup ordering can give: `(upper - lower) / lower`; `None` when the
    /// worker does nothing.
    pub fn speedup(&self) -> Option<f64> {
        (self.lower > 0.0).then(|| (self.upper - self.lower) / self.lower)
    }
}

/// Every worker's times in one iteration of `makespan` (its iteration time `T`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IterationTimes {
    pub makespan: f64,
    pub workers: Vec<WorkerTimes>,
}

impl IterationTimes {
    pub fn of(r: &SimResult, workers: &[DevIx]) -> IterationTimes {
        IterationTimes {
            makespan: r.makespan,
            workers: workers.iter().map(|&w| WorkerTimes::of(r, w)).collect(),
        }
    }

    fn spread(&self, f: impl Fn(&WorkerTimes) -> f64) -> (f64, f64) {
        self.workers
            .iter()
            .map(f)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                (lo.min(x), hi.max(x))
            })
    }

    /// §6.3 (reading A12): the slowest worker's lead over the fastest, as a share of the iteration.
    pub fn straggler(&self) -> f64 {
        let (lo, hi) = self.spread(|w| w.t);
        if self.makespan > 0.0 && hi >= lo {
            (hi - lo) / self.makespan
        } else {
            0.0
        }
    }

    /// The longest any worker waits for the iteration to end, as a share of it (reading A12).
    pub fn straggler_tail(&self) -> f64 {
        let (lo, _) = self.spread(|w| w.t);
        if self.makespan > 0.0 && lo.is_finite() {
            (self.makespan - lo) / self.makespan
        } else {
            0.0
        }
    }

    /// Fig. 9's theoretical best iteration: every worker at its Eq. 2 bound (reading A15).
    pub fn best(&self) -> f64 {
        self.spread(|w| w.lower).1.max(0.0)
    }

    /// Fig. 9's theoretical worst iteration: every worker at its Eq. 1 bound (reading A15).
    pub fn worst(&self) -> f64 {
        self.spread(|w| w.upper).1.max(0.0)
    }
}

/// The server-worker bandwidth at which worker `w`'s inbound transfer time is `ratio` times
/// its compute time (reading A17; the paper tunes the batch until `S > 0.9`, and with one channel
/// `S = min(a, 1/a)` for `a` = transfer / compute):
/// `b = Σ bytes_in / (ratio · Σ exec − Σ latency_in)` over the transfers into `w`.
pub fn balanced_bandwidth(
    problem: &Problem,
    placement: &[DevIx],
    transfers: &[Transfer],
    w: DevIx,
    ratio: f64,
) -> Result<f64> {
    let compute: f64 = (0..problem.node_count() as u32)
        .filter(|&v| placement[v as usize] == w)
        .map(|v| problem.exec(v, w))
        .sum();
    let inbound = transfers.iter().filter(|x| x.dst == w && x.bytes > 0.0);
    let (bytes, latency) = inbound.fold((0.0, 0.0), |(b, l), x| {
        (b + x.bytes, l + problem.cluster.latency(x.src, x.dst))
    });
    let id = &problem.cluster.devices[w as usize].id;
    let room = ratio * compute - latency;
    if bytes <= 0.0 {
        return Err(Error::Scenario(format!(
            "replica.balance: worker '{id}' receives no bytes from the servers, so no bandwidth balances it"
        )));
    }
    if room <= 0.0 || !(bytes / room).is_finite() {
        return Err(Error::Scenario(format!(
            "replica.balance = {ratio}: worker '{id}' computes for {compute} and its {} transfers' latencies alone take {latency}, so no bandwidth gives that ratio",
            transfers.iter().filter(|x| x.dst == w && x.bytes > 0.0).count()
        )));
    }
    Ok(bytes / room)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{DeviceStats, LinkStats};

    fn device(busy: f64, finish: f64) -> DeviceStats {
        DeviceStats {
            busy,
            finish,
            ops: 1,
            peak_memory: 0.0,
            oom: false,
        }
    }

    fn link(src: DevIx, dst: DevIx, busy: f64, finish: f64) -> LinkStats {
        LinkStats {
            src,
            dst,
            bytes: 1.0,
            transfers: 1,
            busy,
            finish,
        }
    }

    /// Worked by hand: worker 1 computes 4 and receives 3 + 2 over two channels, finishing at
    /// 6; worker 2 computes 2 and receives 5, finishing at 7; the iteration ends at 8.
    #[test]
    fn eqs_1_to_4_and_the_straggler_by_hand() {
        let r = SimResult {
            makespan: 8.0,
            traffic_bytes: 0.0,
            devices: vec![device(0.0, 0.0), device(4.0, 6.0), device(2.0, 7.0)],
            links: vec![
                link(0, 1, 3.0, 3.0),
                link(0, 2, 5.0, 5.0),
                link(3, 1, 2.0, 5.5),
                link(1, 0, 9.0, 8.0),
            ],
            unfinished: 0,
            trace: None,
        };
        let it = IterationTimes::of(&r, &[1, 2]);
        let w1 = it.workers[0];
        // Outbound 1 -> 0 is not a recv: upper = 4 + 3 + 2, lower = max(4, 3, 2).
        assert_eq!(
            w1,
            WorkerTimes {
                t: 6.0,
                upper: 9.0,
                lower: 4.0
            }
        );
        assert_eq!(w1.efficiency(), Some((9.0 - 6.0) / 5.0));
        assert_eq!(w1.speedup(), Some(5.0 / 4.0));
        let w2 = it.workers[1];
        assert_eq!(
            w2,
            WorkerTimes {
                t: 7.0,
                upper: 7.0,
                lower: 5.0
            }
        );
        assert_eq!(w2.efficiency(), Some(0.0));
        assert_eq!(it.straggler(), (7.0 - 6.0) / 8.0);
        assert_eq!(it.straggler_tail(), (8.0 - 6.0) / 8.0);
        assert_eq!(it.best(), 5.0);
        assert_eq!(it.worst(), 9.0);
        // A worker whose bounds coincide has no efficiency (ordering cannot matter).
        let flat = WorkerTimes {
            t: 3.0,
            upper: 3.0,
            lower: 3.0,
        };
        assert_eq!(flat.efficiency(), None);
    }
}
