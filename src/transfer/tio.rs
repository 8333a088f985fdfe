//! `tio`: TicTac19's timing-independent ordering (TIO, "TIC" in the MLSys'19 version; §4.3,
//! Eq. 6, Algorithm 3).
//!
//! With the general oracle (Eq. 6: every op takes 0, every recv 1) every recv's `P` is 0,
//! so Eq. 5's comparator reduces to `M+`: one pass of Algorithm 1 over all recvs of a
//! device, then `r.order = r.M+`. Static: no rounds, no updates (a dynamic variant would
//! order differently). Recvs with equal `M+` share a priority "to allow them to run in
//! parallel": the integer form is the competition rank of `M+` (the authors' code; docs/tictac.md,
//! reading A4), and all `M+ = inf` share the last rank. Ranks are normalized per link (A6) and
//! enforced per §3 ([`RankedLinks`]: least rank first, ties and unranked transfers at
//! random from the link order's stream). Computed once per run, in `init`.

use super::recvs::{DeviceRecvs, Oracle, RankedLinks};
use super::{LinkOrderInfo, Transfer};
use crate::model::cluster::DevIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::rng::Rng;

pub const INFO: LinkOrderInfo = LinkOrderInfo {
    name: "tio",
    summary: "TicTac19 timing-independent order (TIO/TIC, §4.3): least M+ first, ties at random",
    params: &[],
    needs_plan: false,
    make: |_: &Params, rng: Rng| Box::new(RankedLinks::new(rng, tio_ranks)),
    ranking: Some(tio_ranks),
};

/// TIO's global rank of every transfer: the competition rank of `M+` among its device's
/// recvs (`None` for transfers that are not recvs).
pub fn tio_ranks(
    problem: &Problem,
    placement: &[DevIx],
    transfers: &[Transfer],
) -> Vec<Option<f64>> {
    let mut rank = vec![None; transfers.len()];
    for dev in DeviceRecvs::of_run(problem, placement, transfers, Oracle::General) {
        let all = vec![true; dev.recv.len()];
        let (_, _, m_plus) = dev.properties(&all);
        for (&x, below) in dev.recv.iter().zip(competition_ranks(&m_plus)) {
            rank[x as usize] = Some(below as f64);
        }
    }
    rank
}

/// The competition rank of each value: how many values are below it (`<`). A binary search
/// in the sorted values, `O(n log n)` (a count over all of them, as before, was `O(n^2)`
/// per device: 0.4 s for the 40,000 recvs of one op with 40,000 inputs). A NaN is below
/// nothing and nothing is below it, so the sorted list leaves NaNs out; `-0.0` and `0.0`
/// sort apart but are not below each other, which `<` in the search respects.
fn competition_ranks(values: &[f64]) -> Vec<usize> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|m| !m.is_nan()).collect();
    sorted.sort_unstable_by(f64::total_cmp);
    values
        .iter()
        .map(|&x| sorted.partition_point(|&m| m < x))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::LinkModel;
    use crate::schedule::fifo::Fifo;
    use crate::sim::{simulate, transfers_of, SimOptions};
    use crate::testutil::tictac;
    use crate::transfer::recvs::per_link;

    /// `(read name, rank)`, by name.
    type Named<T> = Vec<(String, T)>;

    /// TIO's global ranks and per-link ranks, by read name.
    fn ranks(reads: &[(&str, f64, u32)], ops: &[(&str, f64, &[&str])]) -> (Named<f64>, Named<u32>) {
        let (g, c, placement) = tictac(reads, ops);
        let p = Problem::new(&g, &c).unwrap();
        let xs = transfers_of(&p, &placement);
        let global = tio_ranks(&p, &placement, &xs);
        let link_of: Vec<u32> = xs.iter().map(|t| t.link).collect();
        let local = per_link(&global, &link_of);
        let name = |x: usize| {
            g.nodes[g.tensors[xs[x].tensor as usize].src as usize]
                .id
                .clone()
        };
        let mut a: Vec<(String, f64)> = (0..xs.len())
            .filter_map(|x| global[x].map(|r| (name(x), r)))
            .collect();
        let mut b: Vec<(String, u32)> = (0..xs.len())
            .filter_map(|x| local[x].map(|r| (name(x), r)))
            .collect();
        a.sort_by(|x, y| x.0.cmp(&y.0));
        b.sort_by(|x, y| x.0.cmp(&y.0));
        (a, b)
    }

    /// The binary search counts what a scan over every value counts, on values with many
    /// ties, infinities, both zeros and NaNs.
    #[test]
    fn competition_ranks_count_the_values_below() {
        let pool = [
            0.0,
            -0.0,
            1.0,
            2.5,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            7.0,
        ];
        let mut rng = Rng::new(7);
        for len in 0..40 {
            let values: Vec<f64> = (0..len)
                .map(|_| pool[rng.below(pool.len() as u64) as usize])
                .collect();
            let scan: Vec<usize> = values
                .iter()
                .map(|&x| values.iter().filter(|&&m| m < x).count())
                .collect();
            assert_eq!(competition_ranks(&values), scan, "{values:?}");
        }
    }

    fn named<T: Copy>(v: &[(&str, T)]) -> Vec<(String, T)> {
        v.iter().map(|&(n, r)| (n.to_string(), r)).collect()
    }

    /// docs/tictac.md V4, unit times: M+ = {A: 2, B: 2, C: 3}: ranks {A: 0, B: 0, C: 2}. The run
    /// sends A and B in either order (13 or 14), both over seeds, then C.
    #[test]
    fn worked_example_w() {
        let reads = [("A", 2.0, 0), ("B", 2.0, 0), ("C", 1.0, 0)];
        let ops: [(&str, f64, &[&str]); 5] = [
            ("op1", 2.0, &["A"]),
            ("op2", 1.0, &["op1", "B"]),
            ("op3", 6.0, &["C"]),
            ("op4", 1.0, &["op2", "op3"]),
            ("op5", 1.0, &["B"]),
        ];
        let (global, _) = ranks(&reads, &ops);
        assert_eq!(global, named(&[("A", 0.0), ("B", 0.0), ("C", 2.0)]));
        let (g, c, placement) = tictac(&reads, &ops);
        let p = Problem::new(&g, &c).unwrap();
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..40 {
            let mut q = RankedLinks::new(Rng::derive(seed, &["link_order"], 0), tio_ranks);
            let opts = SimOptions {
                links: LinkModel::Fcfs,
                record: false,
            };
            let r = simulate(&p, &placement, &mut Fifo::new(Rng::new(seed)), &mut q, opts);
            seen.insert(r.makespan as u64);
        }
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), [13, 14]);
    }

    /// docs/tictac.md V3 (case 2): o1 <- {A, B}, o2 <- {o1, C}, o3 <- {o2, D}: M+ = {A: 2, B:
    /// 2, C: 3, D: 4}, ranks {A: 0, B: 0, C: 2, D: 3}.
    #[test]
    fn case_2_ranks_by_impending_load() {
        let (global, _) = ranks(
            &[("A", 1.0, 0), ("B", 1.0, 0), ("C", 1.0, 0), ("D", 1.0, 0)],
            &[
                ("o1", 1.0, &["A", "B"]),
                ("o2", 1.0, &["o1", "C"]),
                ("o3", 1.0, &["o2", "D"]),
            ],
        );
        assert_eq!(
            global,
            named(&[("A", 0.0), ("B", 0.0), ("C", 2.0), ("D", 3.0)])
        );
    }

    /// docs/tictac.md V7: A and C on ps0, B on ps1; o1 <- {A, B}, o2 <- {A, C}. Per channel
    /// M(o1) = max(1, 1) = 1 and M(o2) = 2, so M+ = {A: 1, B: 1, C: 2}: ranks {A: 0, B: 0,
    /// C: 2}; per link, ps0's link ranks A 0, C 1 and ps1's ranks B 0.
    #[test]
    fn two_channels_take_the_largest_channel_sum() {
        let (global, local) = ranks(
            &[("A", 1.0, 0), ("B", 1.0, 1), ("C", 1.0, 0)],
            &[("o1", 1.0, &["A", "B"]), ("o2", 1.0, &["A", "C"])],
        );
        assert_eq!(global, named(&[("A", 0.0), ("B", 0.0), ("C", 2.0)]));
        assert_eq!(local, named(&[("A", 0), ("B", 0), ("C", 1)]));
    }

    /// docs/tictac.md V8, unit times: ranks {A: 0, D: 0, B: 2, C: 3} (no op joins C: M+ = inf).
    #[test]
    fn infinite_impending_load_ranks_last() {
        let (global, _) = ranks(crate::testutil::V8_READS, crate::testutil::V8_OPS);
        assert_eq!(
            global,
            named(&[("A", 0.0), ("B", 2.0), ("C", 3.0), ("D", 0.0)])
        );
    }
}
