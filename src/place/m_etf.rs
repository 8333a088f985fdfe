//! `m-etf`: Baechi's memory-constrained Earliest Task First (m-ETF; Jeon et al., SoCC'20, as
//! Pesto21 §5.2 compares against it; ETF is Hwang, Chow, Anger, Lee 1989).
//!
//! List scheduling by time (the loop is `etf::schedule`, which m-SCT shares): at each
//! step, among every (ready op, device) pair, the op that can start earliest goes to the
//! device where it starts earliest, and that device's clock moves to the op's end. An op's
//! start on `d` is `max(now, d free, data ready on d)`. A colocation group is placed whole,
//! with its first member, and its other members may only use that device.
//!
//! Choices, each Baechi's code (github.com/beomyeol/baechi, `placer/m_etf.py`; `etf/` says
//! where each comes from):
//! - Baechi's devices are the GPUs (every device when a cluster has none; an op no GPU may
//!   run uses the devices it may run on), as Baechi's driver gives them (`etf/`).
//! - Ties go to the op earlier in topological order, then to the lower device index
//!   (`TimestampOpTuple`, then the first device in `_get_next_op_metadata`).
//! - Transfers (`m-etf.channel`, on by default): each device has one channel for its sends
//!   and its receives (`DeviceWrapper.channel_available_ts`); an estimate sends an op's
//!   missing tensors from one producer together, after the producer's finish and when both
//!   channels are free; placing the op sends them one by one and occupies both channels.
//!   A tensor already sent to a device is not sent again. `channel = 0`: every edge's
//!   transfer time alone, without contention (the placements before the parameter).
//! - Memory (`m-etf.static_memory`, off by default): Baechi's rule, an op fits when its `mem`
//!   and its outputs fit in what is free now; they are allocated when it runs and its outputs
//!   freed once its last consumer ran (`ETFDevice.run_op`, `deallocate_predecessor_memory`).
//!   `static_memory = 1`: the scenario's static footprints summed per device, as every other
//!   placer. The scenario still checks the placement against its footprint rule, so a
//!   placement Baechi's rule accepts and the static rule rejects is reported out of memory.
//! - No insertion into idle gaps (that is HEFT's, not ETF's).
//! - The makespan always comes from placesim's simulator, as Pesto21 ran Baechi's
//!   placements in TensorFlow; the placer's own schedule only decides the placement.
//!
//! Cost: per device, trees of the ready ops keyed by their start estimates' fixed parts, each
//! node holding its subtree's least topological position (a device's free time only grows;
//! `etf/`, "Cost"), `O((V + E) * k * log V)` plus one re-file per overtaking of a stored
//! estimate.

use super::{etf, Placer, PlacerInfo};
use crate::error::Result;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::plan::Placement;
use crate::rng::Rng;

pub const INFO: PlacerInfo = PlacerInfo {
    name: "m-etf",
    summary: "earliest start first over (ready op, device) pairs, memory-aware (Baechi m-ETF; Pesto21 §5.2)",
    params: &[etf::CHANNEL, etf::STATIC_MEMORY],
    plans: false,
    make: || Box::new(MEtf),
};

pub struct MEtf;

impl Placer for MEtf {
    fn place(&self, problem: &Problem, params: &Params, _: &mut Rng) -> Result<Placement> {
        let opts = etf::Options::from_params(params);
        etf::schedule(INFO.name, problem, &vec![None; problem.node_count()], opts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::parse;

    /// The model the hand computations below use: transfers alone, static memory.
    fn legacy() -> Params {
        Params::defaults(INFO.params)
            .with("channel", 0.0)
            .with("static_memory", 1.0)
    }

    /// Fork-join a(2) -> b(4) [3 B], a -> c(3) [2 B], b -> d(1) [1 B], c -> d [1 B]; two
    /// devices of speed 1, bandwidth 1, latency 0.
    /// - a: 0 on both, d0 by index: 0..2.
    /// - b and c both start earliest at 2 on d0; b comes first in topological order: 2..6.
    /// - c: d0 now free at 6, d1 at 2 + 2 = 4: d1, 4..7.
    /// - d: d0 max(6, 7 + 1) = 8, d1 max(6 + 1, 7) = 7: d1, 7..8.
    #[test]
    fn hand_computed_fork_join() {
        let (g, c) = parse(
            r#"{"nodes":[{"id":"a","cost":2},{"id":"b","cost":4},{"id":"c","cost":3},{"id":"d","cost":1}],
                "edges":[{"src":"a","dst":"b","bytes":3},{"src":"a","dst":"c","bytes":2},
                         {"src":"b","dst":"d","bytes":1},{"src":"c","dst":"d","bytes":1}]}"#,
            r#"{"devices":[{"id":"d0","speed":1},{"id":"d1","speed":1}],"bandwidth":1}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        let placement = MEtf.place(&p, &legacy(), &mut Rng::new(0)).unwrap();
        assert_eq!(placement, vec![0, 0, 1, 1]);
        // b and d in one group: d may only go where b went (d0), though d1 would start it
        // sooner; the rest is as above.
        let (g, c) = parse(
            r#"{"nodes":[{"id":"a","cost":2},{"id":"b","cost":4,"colocate":"w"},{"id":"c","cost":3},{"id":"d","cost":1,"colocate":"w"}],
                "edges":[{"src":"a","dst":"b","bytes":3},{"src":"a","dst":"c","bytes":2},
                         {"src":"b","dst":"d","bytes":1},{"src":"c","dst":"d","bytes":1}]}"#,
            r#"{"devices":[{"id":"d0","speed":1},{"id":"d1","speed":1}],"bandwidth":1}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        let placement = MEtf.place(&p, &legacy(), &mut Rng::new(0)).unwrap();
        assert_eq!(placement, vec![0, 0, 1, 0], "d follows b's group to d0");
    }

    /// Baechi's devices are the GPUs: a CPU `c` and GPUs `g0`, `g1` (devices 0, 1, 2), all of
    /// speed 1; independent ops a, b, c of cost 1 and x, which only the CPU may run.
    /// - a: starts at 0 on every device, but the CPU is not Baechi's: g0, [0, 1].
    /// - b: g0 free at 1, g1 at 0: g1 [0, 1]. c: 1 on both GPUs: g0 (lower index), [1, 2].
    /// - x: no GPU may run it, so it uses the devices it may: the CPU.
    ///
    /// Over every device, a would take the CPU (start 0, lowest index), then b g0, c g1.
    #[test]
    fn only_the_gpus_unless_an_op_may_run_on_none() {
        let (g, c) = parse(
            r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1},{"id":"c","cost":1},{"id":"x","cost":1,"device":"cpu"}]}"#,
            r#"{"devices":[{"id":"c","kind":"cpu","speed":1},{"id":"g0","kind":"gpu","speed":1},
                {"id":"g1","kind":"gpu","speed":1}],"bandwidth":1}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        let placement = MEtf.place(&p, &legacy(), &mut Rng::new(0)).unwrap();
        assert_eq!(placement, vec![1, 2, 1, 0]);
    }
}
