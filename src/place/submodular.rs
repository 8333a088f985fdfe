//! `submodular` and `submodular-gi`: Submodular-G and Submodular-GI of Carbonari17 (Carbonari,
//! Kodirov, Golub 2017, §2.2, §2.3, §3, §5 and the appendix 6.1).
//!
//! The ground set is every (node, device) pair `E_ij`; the matroid keeps one pair per node
//! (eq. 1). The greedy starts from the empty set and adds, round by round, the pair that
//! gives the largest `f(S ∪ {E_ij})` until every node is placed (appendix: "in each round
//! greedy will choose the node and device placement which produces the highest f(S)").
//!
//! Submodular-G (§2.2, eqs. 2-3):
//!
//! ```text
//! f(S)    = sum_i g(B_i),        B_i = sum over nodes j placed on i of b_ij
//! b_ij    = (2 - (c_ij + placed_i) / cap) * pf_ij,   placed_i = sum of c of the nodes on i
//! pf_ij   = 1 + |{ j' placed : j' parallel to j, device(j') != i }|
//! g(x)    = x^p (p = 0.5: the paper's sqrt)
//! ```
//!
//! Submodular-GI (§2.3, eq. 5) moves the parallelism factor out of the benefit into `f`:
//! `b_ij = 2 - (c_ij + placed_i) / cap` and the value of adding `E_ij` is
//! `f(S ∪ {E_ij}) = (sum_i f^i(S ∪ {E_ij})) * pf_ij`.
//!
//! Choices where the paper is ambiguous or inconsistent (each has a test below):
//! - **pf counts from 1.** The formula says `pf_ij = |P_S^j|` and "pf = 0 if S = ∅", but the
//!   walk-through multiplies by 1 in round 1 and by 2 for node 4 next to node 3 on another
//!   device, and §2.2's own example gives `pf_{1,4} = 2, pf_{2,4} = 1` with one parallel
//!   node placed: the paper computes `1 + |P_S^j|`, and so do we (with `|P|` every benefit
//!   of round 1 would be 0).
//! - **Parallel nodes** are distinct nodes with the same non-empty set of direct
//!   predecessors in the full graph (Figure 1a's `D_S`). The formula's
//!   `D_S[j] ≠ D_S[j']` is read as `=` ("two nodes ... have the same dependency"). The
//!   paper evaluates `D_S` on the partial topology of the placed nodes, where a node's
//!   dependencies are its nearest placed ancestors; there two nodes whose common parent is
//!   not placed yet both show `∅` and look parallel, and stop looking parallel once it is
//!   placed, and any two nodes without placed ancestors look parallel. We use the fixed
//!   relation of the full graph: in the walk-through it gives the same `pf` in every round
//!   (nodes 3 and 4 are the only parallel pair either way). Sources (no predecessors) are
//!   not parallel to each other: they "depend on" nothing in common.
//! - **Benefits are frozen when added.** `B_i` sums each node's `b` as computed when it was
//!   added: the walk-through keeps `b_{1,3} = 1.99` and `b_{3,4} = 3.96` in every later
//!   round although `placed_1` and `placed_3` grow. So `f(S ∪ {e}) = f(S) + Δ_e` with
//!   `Δ_ij = g(B_i + b_ij) - g(B_i)`, and Submodular-G picks the largest gain `Δ`.
//! - **Submodular-GI's sign.** §2.3 prints `b_ij = 2 - (c_ij - placed_i) / cap`, which would
//!   *raise* the benefit of a device as it fills, against its name ("free ratio", §2.2),
//!   the third characteristic ("device diversity", §2) and §3's bound `b >= 1`. We keep
//!   §2.2's `+`. In GI, `pf` multiplies the value of the round only ("captured after summing
//!   all the benefits ... not affect the f values later on"): `B_i` and `f(S)` carried to
//!   the next round hold no `pf`.
//! - **cap is a constraint.** §3 requires `c_ij + placed_i <= cap` ("This does constrain our
//!   solution"); a device whose placed time plus the unit's cost would exceed `cap` does not
//!   take the unit, so `b >= 1` always holds (with the §5 terms off). When no device
//!   can, the placer fails naming the node and `cap`. Costs are run times in the problem's
//!   unit (seconds for the bundled graphs), so `cap` must be sized to them; the default 100
//!   is the appendix's.
//! - **Ties** (equal value): lowest device index, then lowest node index (round 1 of the
//!   appendix picks `E_13` over the equal `E_23`). Between the two, a larger benefit `b`,
//!   then a smaller charged time `c + w*T` go first: these only separate candidates whose
//!   values are equal although their benefits differ (rounding, or a coincidence between
//!   candidates of different pf), and make the order one that the fast search can
//!   reproduce exactly.
//! - **Colocation groups** are one matroid element each (one device for the whole group):
//!   `c` is the sum of the members' run times, `pf = 1 + sum over members of their placed
//!   parallel nodes on other devices`, transfers count the edges leaving the group, the
//!   footprint is the group's. Ties use the group's lowest node index.
//! - **Memory** (§2.1 assumes none) is honoured as a hard constraint like every placer's:
//!   a device without room for a unit's footprint does not take it ([`Loads`](super::Loads)).
//!
//! Future work of §5, as parameters that default to off:
//! - `mem_step` = θ: the memory-aware `g` per device, "a step function, which remains
//!   constant until device has available memory and drops significantly down when the
//!   device has no more memory": a unit that would fill device `i` past θ of its memory
//!   adds benefit 0 there ("as marginal benefit is zero"). θ = 1 coincides with the hard
//!   limit; θ < 1 steers units away from devices before they are full. Devices with
//!   unlimited memory never step.
//! - `transfer` = w: "transmission cost can be added in the benefit function, such that that
//!   cost decreases the benefit of placing a node on a device other than its predecessor":
//!   `b_ij = max(0, 2 - (placed_i + c_ij + w * T_ij) / cap) * pf` (GI: without pf), where
//!   `T_ij` sums the transfer times of the edges between `j` and its already placed
//!   neighbours on other devices. The greedy does not visit nodes in topological order, so
//!   a consumer may be placed before its producer: both directions count, each edge once
//!   (when its second end is placed).
//!
//! The paper's job completion time (eq. 4) is not used: the simulator measures makespans.
//!
//! **Speed.** The result is exactly the paper's greedy's, found without re-evaluating every
//! (node, device) pair every round: how, and what a round costs, is in `submodular/fast.rs`.
//!
//! Files: this one holds the placers' parameters and entries; `submodular/model.rs` the
//! function `f` (the greedy's set `S`, a candidate's value, the order of candidates, the
//! parallel classes); `submodular/fast.rs` the lazy greedy; `submodular/fronts.rs` its
//! per-device, per-pf fronts of active groups (24b).
//!
//! The hand-computed tests (the appendix walk-through round by round) and the lazy greedy's
//! check against the plain greedy are in `submodular/tests.rs`.

use super::{Placer, PlacerInfo};
use crate::error::Result;
use crate::model::problem::Problem;
use crate::params::{ParamKind, ParamSpec, Params};
use crate::plan::Placement;
use crate::rng::Rng;

mod fast;
mod fronts;
mod model;

use fast::Fast;
use model::{Config, Model};

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "cap",
        default: 100.0,
        kind: ParamKind::Real,
        min: 0.0,
        min_open: true,
        max: f64::INFINITY,
        doc: "device time capacity i_cap (§2.2): benefit 2 - (cost + placed)/cap; a device takes a node only while placed + cost <= cap",
    },
    ParamSpec {
        name: "g",
        default: 0.5,
        kind: ParamKind::Real,
        min: 0.0,
        min_open: true,
        max: 1.0,
        doc: "exponent p of the concave g(x) = x^p, 0 < p <= 1 (0.5 = the paper's sqrt)",
    },
    ParamSpec::non_negative(
        "mem_step",
        0.0,
        "future work (§5), memory-aware g: a node that would fill a device past this fraction of its memory adds zero benefit there (0 = off)",
    ),
    ParamSpec::non_negative(
        "transfer",
        0.0,
        "future work (§5): weight of the transfer time to placed neighbours on other devices, charged like run time in the benefit (0 = off)",
    ),
];

pub const INFO: PlacerInfo = PlacerInfo {
    name: "submodular",
    summary: "greedy maximisation of sum over devices of sqrt(sum of benefits), parallelism in the benefit (Submodular-G, Carbonari17 §2.2)",
    params: PARAMS,
    plans: false,
    make: || Box::new(Submodular { improved: false }),
};

pub const INFO_GI: PlacerInfo = PlacerInfo {
    name: "submodular-gi",
    summary: "Submodular-G with the parallelism factor moved from the benefit into f (Submodular-GI, Carbonari17 §2.3)",
    params: PARAMS,
    plans: false,
    make: || Box::new(Submodular { improved: true }),
};

/// Submodular-G (`improved == false`) or Submodular-GI (`improved == true`).
pub struct Submodular {
    pub improved: bool,
}

impl Placer for Submodular {
    fn place(&self, problem: &Problem, params: &Params, _: &mut Rng) -> Result<Placement> {
        let model = Model::new(problem, Config::from_params(self.improved, params));
        Fast::new(&model).run(None)
    }
}

#[cfg(test)]
mod tests;
