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
//!   a device without room for a unit's footprint does not take it ([`Loads`]).
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
//! **Speed.** The paper's greedy evaluates every (node, device) pair every round, O(V² k)
//! evaluations (its Tables 1-3: 10,000x to 1,000,000x the run time of Heuristic-G). Here the
//! result is exactly that greedy's (a plain reference greedy in the tests is compared with
//! it round by round on random graphs), found without re-evaluating every pair:
//! - Within one device, all candidates with the same `pf` rank by the charged time
//!   `x = c + w*T` alone: `b`, and with it `Δ` or GI's value, is a monotone function of `x`
//!   (`placed_i`, `B_i` and `f(S)` are common to them). So a round only looks, per device
//!   and per pf class, at the candidate with the smallest `(x, node)`.
//! - That candidate comes from a static order by `(c, node)`, one per distinct cost column
//!   (all devices of one kind and speed share it) read by a cursor per device, merged with
//!   a small per-device heap of entries whose `x` was refreshed. `x` can only grow (more
//!   placed neighbours; a version per unit says when), memory and placed time only fill:
//!   stored keys are lower bounds, refreshed lazily when they reach the front, and a unit
//!   a device can no longer take is passed for good.
//! - `pf` can only grow, and is the part of `f` that is not submodular: placing a node
//!   raises the gain of its parallel siblings on the other devices. Units are grouped by the
//!   multiset of their members' parallel classes ("signature"), which fixes their `pf` on
//!   every device; a group stays in the shared pf = 1 class while none of its classes has
//!   a placed node, and gets a class of its own, built eagerly, in the round one of them is
//!   placed, so a rise is never missed.
//! - With `mem_step`, a unit that steps to zero on a device moves to that device's heap of
//!   stepped units of its class (benefit 0 for all there; memory only fills, so it never
//!   steps back).
//!
//! A round costs O(devices × (1 + active groups)); the whole run
//! O(V log V × columns + rounds × devices × (1 + active groups) + (E × devices) log V) with
//! the transfer term. Active groups (sibling sets partly placed) are few: a placed node
//! doubles its siblings' gains elsewhere, so they follow at once (at most one at a time on
//! 20,000-op Inception-like block graphs with random costs). A graph that kept thousands of
//! sibling sets partly placed would make rounds slower.
//!
//! Exactness rests on every step from `x` to the value being monotone in floating point
//! too: sums, quotients and products are, and `g` is `sqrt` (correctly rounded) for
//! p = 0.5, the identity for p = 1 and `libm::pow` otherwise (faithfully rounded; the
//! random comparison also runs p = 0.3 and 0.75).

use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap};

use super::{assign, no_device_error, Loads, Placer, PlacerInfo, Units};
use crate::error::{Error, Result};
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::params::{ParamKind, ParamSpec, Params};
use crate::plan::Placement;
use crate::rng::Rng;
use crate::util::{HeapKey, MaxEntry};

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

const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct Config {
    improved: bool,
    cap: f64,
    p: f64,
    mem_step: f64,
    transfer: f64,
}

impl Config {
    /// The parameters, already checked against their declared ranges when the scenario was
    /// resolved.
    fn from_params(improved: bool, params: &Params) -> Config {
        Config {
            improved,
            cap: params.get("cap"),
            p: params.get("g"),
            mem_step: params.get("mem_step"),
            transfer: params.get("transfer"),
        }
    }

    fn name(&self) -> &'static str {
        if self.improved {
            INFO_GI.name
        } else {
            INFO.name
        }
    }

    /// The concave `g(x) = x^p`.
    #[inline]
    fn g(&self, x: f64) -> f64 {
        if self.p == 0.5 {
            x.sqrt()
        } else if self.p == 1.0 {
            x
        } else {
            libm::pow(x, self.p)
        }
    }
}

/// One candidate element `E_ij` (a unit on a device) with everything the order looks at.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Cand {
    /// Submodular-G: the gain `Δ`; GI: `(f(S) + Δ) * pf`.
    value: f64,
    dev: DevIx,
    /// The benefit `b` that `B_dev` gains (G: with pf; GI: without).
    b: f64,
    /// Charged time `c + w*T`.
    x: f64,
    /// Lowest node of the unit.
    node: NodeIx,
    unit: u32,
}

fn cmp_f(a: f64, b: f64) -> Ordering {
    a.partial_cmp(&b).unwrap_or(Ordering::Equal)
}

/// `Greater` when `a` goes before `b`: larger value, lower device, larger benefit, smaller
/// charged time, lower node.
fn order(a: &Cand, b: &Cand) -> Ordering {
    cmp_f(a.value, b.value)
        .then(b.dev.cmp(&a.dev))
        .then(cmp_f(a.b, b.b))
        .then(cmp_f(b.x, a.x))
        .then(b.node.cmp(&a.node))
}

/// What does not change while placing.
struct Model<'p, 'a> {
    problem: &'p Problem<'a>,
    cfg: Config,
    units: Units,
    k: usize,
    /// `c` of each unit on each device (`unit * k + dev`); infinite where not allowed.
    cost: Vec<f64>,
    /// Bytes of memory at which `g` steps to zero, per device (infinite when off).
    mem_limit: Vec<f64>,
}

/// The greedy's set `S`, as the quantities `f` needs.
struct State {
    /// Device of each node (`NONE` while unplaced).
    dev: Vec<DevIx>,
    unit_placed: Vec<bool>,
    /// `placed_i`: sum of `c` on each device.
    placed: Vec<f64>,
    /// `B_i`: sum of the frozen benefits on each device.
    benefit: Vec<f64>,
    loads: Loads,
}

impl<'p, 'a> Model<'p, 'a> {
    fn new(problem: &'p Problem<'a>, cfg: Config) -> Model<'p, 'a> {
        let units = Units::new(problem);
        let k = problem.device_count();
        let mut cost = Vec::with_capacity(units.len() * k);
        for ms in &units.members {
            for d in 0..k as DevIx {
                cost.push(ms.iter().map(|&v| problem.exec(v, d)).sum::<f64>());
            }
        }
        let mem_limit = problem
            .cluster
            .devices
            .iter()
            .map(|d| {
                if cfg.mem_step > 0.0 && d.memory.is_finite() {
                    cfg.mem_step * d.memory
                } else {
                    f64::INFINITY
                }
            })
            .collect();
        Model {
            problem,
            cfg,
            units,
            k,
            cost,
            mem_limit,
        }
    }

    fn state(&self) -> State {
        State {
            dev: vec![NONE; self.problem.node_count()],
            unit_placed: vec![false; self.units.len()],
            placed: vec![0.0; self.k],
            benefit: vec![0.0; self.k],
            loads: Loads::new(self.problem),
        }
    }

    #[inline]
    fn cost(&self, u: u32, i: DevIx) -> f64 {
        self.cost[u as usize * self.k + i as usize]
    }

    /// Whether device `i` may take unit `u` now: allowed, memory left, time capacity left.
    /// Once false it stays false (memory and placed time only grow).
    fn feasible(&self, st: &State, u: u32, i: DevIx) -> bool {
        let c = self.cost(u, i);
        c.is_finite()
            && st.loads.fits(i, self.units.footprint[u as usize])
            && st.placed[i as usize] + c <= self.cfg.cap
    }

    /// Whether `g` has stepped to zero for `u` on `i` (memory-aware g). Once true, stays.
    fn stepped(&self, st: &State, u: u32, i: DevIx) -> bool {
        st.loads.memory[i as usize] + self.units.footprint[u as usize] > self.mem_limit[i as usize]
    }

    /// `T`: transfer time of the edges between `u` and placed nodes outside it on other
    /// devices, summed in a fixed order (members ascending, in-edges then out-edges).
    fn transfer_time(&self, st: &State, u: u32, i: DevIx) -> f64 {
        let g = self.problem.graph;
        let mut t = 0.0;
        for &v in &self.units.members[u as usize] {
            for &e in g.in_edges(v) {
                let src = g.edges[e as usize].src;
                let d = st.dev[src as usize];
                if d != NONE && self.units.of[src as usize] != u {
                    t += self.problem.edge_transfer_time(e, d, i);
                }
            }
            for &e in g.out_edges(v) {
                let dst = g.edges[e as usize].dst;
                let d = st.dev[dst as usize];
                if d != NONE && self.units.of[dst as usize] != u {
                    t += self.problem.edge_transfer_time(e, i, d);
                }
            }
        }
        t
    }

    /// `x = c + w*T`, the time the benefit charges to the device.
    fn charged(&self, st: &State, u: u32, i: DevIx) -> f64 {
        let c = self.cost(u, i);
        if self.cfg.transfer == 0.0 {
            c
        } else {
            c + self.cfg.transfer * self.transfer_time(st, u, i)
        }
    }

    /// The candidate `E_{i,u}`, given its charged time `x`, its parallelism factor, whether
    /// g stepped to zero, `phi = f(S)` and `gb = g(B_i)`.
    #[allow(clippy::too_many_arguments)]
    fn score(
        &self,
        st: &State,
        u: u32,
        i: DevIx,
        x: f64,
        pf: u32,
        stepped: bool,
        phi: f64,
        gb: f64,
    ) -> Cand {
        let free = 2.0 - (st.placed[i as usize] + x) / self.cfg.cap;
        let b0 = if stepped || free <= 0.0 { 0.0 } else { free };
        let bi = st.benefit[i as usize];
        let (b, value) = if self.cfg.improved {
            let gain = self.cfg.g(bi + b0) - gb;
            (b0, (phi + gain) * pf as f64)
        } else {
            let b = b0 * pf as f64;
            (b, self.cfg.g(bi + b) - gb)
        };
        Cand {
            value,
            dev: i,
            b,
            x,
            node: self.units.members[u as usize][0],
            unit: u,
        }
    }

    /// `g(B_i)` per device and their sum `f(S)`.
    fn values(&self, st: &State) -> (Vec<f64>, f64) {
        let gb: Vec<f64> = st.benefit.iter().map(|&b| self.cfg.g(b)).collect();
        let phi = gb.iter().sum();
        (gb, phi)
    }

    /// Adds the element: freezes its benefit into `B_i`.
    fn add(&self, st: &mut State, c: &Cand) {
        let i = c.dev as usize;
        st.benefit[i] += c.b;
        st.placed[i] += self.cost(c.unit, c.dev);
        assign(
            self.problem,
            &self.units,
            &mut st.loads,
            &mut st.dev,
            c.unit,
            c.dev,
        );
        st.unit_placed[c.unit as usize] = true;
    }

    /// The error when unit `u` fits nowhere: names the time capacity when some device would
    /// have the memory, else the memory.
    fn stuck(&self, st: &State, u: u32) -> Error {
        let fits_memory = (0..self.k as DevIx).any(|i| {
            self.cost(u, i).is_finite() && st.loads.fits(i, self.units.footprint[u as usize])
        });
        let name = self.cfg.name();
        if !fits_memory {
            return no_device_error(name, self.problem, &self.units, u);
        }
        let g = self.problem.graph;
        let first = self.units.members[u as usize][0];
        let what = match g.nodes[first as usize].group {
            Some(grp) => format!("colocation group '{}'", g.groups[grp as usize]),
            None => format!("node '{}'", g.nodes[first as usize].id),
        };
        Error::placement(
            name,
            format!(
                "no device has time capacity left for {what}: placed time + its run time exceeds \
                 cap = {} on every device with memory for it (the model needs cost + placed <= cap, §3; \
                 raise {name}.cap to suit the graph's time unit)",
                self.cfg.cap
            ),
        )
    }
}

/// Parallel classes: nodes with the same non-empty predecessor set, classes of two or more.
/// Returns the class of each node (`NONE` for none) and the number of classes.
fn parallel_classes(problem: &Problem) -> (Vec<u32>, usize) {
    let g = problem.graph;
    let mut by_preds: BTreeMap<Vec<NodeIx>, Vec<NodeIx>> = BTreeMap::new();
    for v in 0..g.node_count() as NodeIx {
        let mut preds: Vec<NodeIx> = g.predecessors(v).collect();
        if preds.is_empty() {
            continue;
        }
        preds.sort_unstable();
        preds.dedup();
        by_preds.entry(preds).or_default().push(v);
    }
    let mut class = vec![NONE; g.node_count()];
    let mut count = 0;
    for members in by_preds.values() {
        if members.len() >= 2 {
            for &v in members {
                class[v as usize] = count as u32;
            }
            count += 1;
        }
    }
    (class, count)
}

/// A charged time `x` as a heap key: the smaller pops first, compared as [`cmp_f`] does.
#[derive(Debug, Clone, Copy)]
struct Smaller(f64);

impl HeapKey for Smaller {
    fn heap_cmp(&self, other: &Self) -> Ordering {
        cmp_f(other.0, self.0)
    }
}

/// What a queue entry refers to: unit `unit`, and the transfer version its `x` was
/// computed at.
#[derive(Debug, Clone, Copy)]
struct Tag {
    unit: u32,
    tver: u32,
}

/// A queue entry: unit `data.unit` (lowest node `tie`) on one device with charged time
/// `key.0` = `x`, exact when `data.tver` is the unit's current transfer version, else a
/// lower bound (`c` alone, or `x` before more neighbours were placed). `BinaryHeap` pops
/// the smallest `(x, node)` first.
type Entry = MaxEntry<Smaller, NodeIx, Tag>;

/// `tver` of an entry whose `x` is only the lower bound `c`.
const BOUND: u32 = u32::MAX;

/// The candidates of one pf class (the shared class, or one signature group) on every
/// device: a static order by `(c, node)` per distinct cost column, consumed by a cursor per
/// device, merged with a per-device heap of entries whose `x` was refreshed, and a
/// per-device heap of entries whose g stepped to zero.
struct Slot {
    /// Per distinct cost column, ascending `(c, node)`.
    orders: Vec<Vec<Entry>>,
    /// Per device: position in its column's order.
    cursor: Vec<usize>,
    /// Per device: `[refreshed, stepped]`.
    heaps: Vec<[BinaryHeap<Entry>; 2]>,
}

/// The lazy greedy.
struct Fast<'m, 'p, 'a> {
    m: &'m Model<'p, 'a>,
    st: State,
    /// Parallel class of each node.
    class_of: Vec<u32>,
    /// Placed nodes per class, and per class and device (`class * k + dev`).
    n_class: Vec<u32>,
    n_class_dev: Vec<u32>,
    /// Signature group of each unit: 0 = none (pf is always 1), else `1 + group`.
    group_of: Vec<u32>,
    /// Classes of each group's members, with multiplicity.
    group_sig: Vec<Vec<u32>>,
    group_units: Vec<Vec<u32>>,
    group_unplaced: Vec<u32>,
    group_active: Vec<bool>,
    /// Groups of each class.
    class_groups: Vec<Vec<u32>>,
    /// Active groups (some class placed, some unit unplaced).
    active: Vec<u32>,
    /// Index 0: the shared class (pf = 1: units without parallel nodes, and units of
    /// groups not yet active); `1 + group`: an active group.
    slots: Vec<Option<Slot>>,
    /// Distinct cost column of each device (devices of one kind and speed share one), and
    /// a representative device of each column.
    column: Vec<u32>,
    column_dev: Vec<DevIx>,
    /// Transfer version of each unit: bumped when a neighbour is placed.
    tver: Vec<u32>,
    step: bool,
}

impl<'m, 'p, 'a> Fast<'m, 'p, 'a> {
    fn new(m: &'m Model<'p, 'a>) -> Fast<'m, 'p, 'a> {
        let (class_of, classes) = parallel_classes(m.problem);
        let nu = m.units.len();
        let k = m.k;
        let mut sig_index: BTreeMap<Vec<u32>, u32> = BTreeMap::new();
        let mut group_of = vec![0u32; nu];
        let mut group_sig: Vec<Vec<u32>> = Vec::new();
        let mut group_units: Vec<Vec<u32>> = Vec::new();
        for (u, members) in m.units.members.iter().enumerate() {
            let mut sig: Vec<u32> = members
                .iter()
                .map(|&v| class_of[v as usize])
                .filter(|&c| c != NONE)
                .collect();
            if sig.is_empty() {
                continue;
            }
            sig.sort_unstable();
            let gid = *sig_index.entry(sig.clone()).or_insert_with(|| {
                group_sig.push(sig);
                group_units.push(Vec::new());
                (group_sig.len() - 1) as u32
            });
            group_of[u] = gid + 1;
            group_units[gid as usize].push(u as u32);
        }
        let mut class_groups = vec![Vec::new(); classes];
        for (gid, sig) in group_sig.iter().enumerate() {
            for &c in sig {
                let list: &mut Vec<u32> = &mut class_groups[c as usize];
                if list.last() != Some(&(gid as u32)) {
                    list.push(gid as u32);
                }
            }
        }
        let mut columns: BTreeMap<Vec<u64>, u32> = BTreeMap::new();
        let mut column = Vec::with_capacity(k);
        let mut column_dev = Vec::new();
        for d in 0..k as DevIx {
            let key: Vec<u64> = (0..nu as u32).map(|u| m.cost(u, d).to_bits()).collect();
            let next = column_dev.len() as u32;
            let id = *columns.entry(key).or_insert(next);
            if id == next {
                column_dev.push(d);
            }
            column.push(id);
        }
        let ngroups = group_sig.len();
        let mut fast = Fast {
            m,
            st: m.state(),
            class_of,
            n_class: vec![0; classes],
            n_class_dev: vec![0; classes * k],
            group_of,
            group_unplaced: group_units.iter().map(|us| us.len() as u32).collect(),
            group_sig,
            group_units,
            group_active: vec![false; ngroups],
            class_groups,
            active: Vec::new(),
            slots: (0..=ngroups).map(|_| None).collect(),
            column,
            column_dev,
            tver: vec![0; nu],
            step: m.cfg.mem_step > 0.0,
        };
        fast.slots[0] = Some(fast.slot(0..nu as u32));
        fast
    }

    /// A slot holding `units` (those still unplaced), keyed by `c`: exact while the transfer
    /// term is off or nothing is placed, else a lower bound of `x`.
    fn slot(&self, units: impl Iterator<Item = u32> + Clone) -> Slot {
        let m = self.m;
        let exact = m.cfg.transfer == 0.0 || self.st.unit_placed.iter().all(|&p| !p);
        let orders = self
            .column_dev
            .iter()
            .map(|&d| {
                let mut order: Vec<Entry> = units
                    .clone()
                    .filter(|&u| !self.st.unit_placed[u as usize] && m.cost(u, d).is_finite())
                    .map(|u| Entry {
                        key: Smaller(m.cost(u, d)),
                        tie: m.units.members[u as usize][0],
                        data: Tag {
                            unit: u,
                            tver: if exact { self.tver[u as usize] } else { BOUND },
                        },
                    })
                    .collect();
                // Ascending (x, node): Entry's order is reversed.
                order.sort_unstable_by(|a, b| b.cmp(a));
                order
            })
            .collect();
        Slot {
            orders,
            cursor: vec![0; m.k],
            heaps: (0..m.k).map(|_| Default::default()).collect(),
        }
    }

    /// `pf` of the units of `group` on device `i`.
    fn pf(&self, group: usize, i: DevIx) -> u32 {
        let k = self.m.k;
        1 + self.group_sig[group]
            .iter()
            .map(|&c| self.n_class[c as usize] - self.n_class_dev[c as usize * k + i as usize])
            .sum::<u32>()
    }

    /// The best candidate of pf class `s` on device `i`, among the units whose g stepped to
    /// zero there or the others. Cleans what it passes: placed units and units device `i`
    /// can no longer take leave for good, stale `x` are refreshed, stepped units move.
    fn best_in(&mut self, s: usize, i: DevIx, zero: bool, phi: f64, gb: f64) -> Option<Cand> {
        let m = self.m;
        let iu = i as usize;
        let col = self.column[iu] as usize;
        loop {
            let slot = self.slots[s].as_mut().expect("active slot");
            let heap = &mut slot.heaps[iu][zero as usize];
            let from_heap = heap.peek().copied();
            let from_order = if zero {
                None
            } else {
                slot.orders[col].get(slot.cursor[iu]).copied()
            };
            // The smaller (x, node) of the two (Entry's order is reversed).
            let (top, in_order) = match (from_heap, from_order) {
                (None, None) => return None,
                (Some(a), None) => (a, false),
                (None, Some(b)) => (b, true),
                (Some(a), Some(b)) if b > a => (b, true),
                (Some(a), Some(_)) => (a, false),
            };
            let u = top.data.unit;
            let ui = u as usize;
            let grp = self.group_of[ui] as usize;
            let gone = self.st.unit_placed[ui]
                || (s == 0 && grp != 0 && self.group_active[grp - 1])
                || !m.feasible(&self.st, u, i);
            let stale = !gone && top.data.tver != self.tver[ui];
            let steps = !gone && !stale && !zero && self.step && m.stepped(&self.st, u, i);
            if gone || stale || steps {
                if in_order {
                    slot.cursor[iu] += 1;
                } else {
                    heap.pop();
                }
            }
            if gone {
                continue;
            }
            if stale {
                let x = m.charged(&self.st, u, i);
                let fresh = Entry {
                    key: Smaller(x),
                    data: Tag {
                        tver: self.tver[ui],
                        ..top.data
                    },
                    ..top
                };
                slot.heaps[iu][zero as usize].push(fresh);
                continue;
            }
            if steps {
                slot.heaps[iu][1].push(top);
                continue;
            }
            let pf = if s == 0 { 1 } else { self.pf(s - 1, i) };
            return Some(m.score(&self.st, u, i, top.key.0, pf, zero, phi, gb));
        }
    }

    /// Gives `group` a slot of its own from now on (its units leave the shared class).
    fn activate(&mut self, group: usize) {
        self.group_active[group] = true;
        self.active.push(group as u32);
        let units = std::mem::take(&mut self.group_units[group]);
        self.slots[group + 1] = Some(self.slot(units.iter().copied()));
        self.group_units[group] = units;
    }

    /// Runs the greedy; with `trace`, records each round's choice and `f(S)` before it.
    fn run(mut self, mut trace: Option<&mut Vec<(Cand, f64)>>) -> Result<Placement> {
        let m = self.m;
        let g = m.problem.graph;
        let k = m.k;
        for _ in 0..m.units.len() {
            let (gb, phi) = m.values(&self.st);
            let mut best: Option<Cand> = None;
            for i in 0..k as DevIx {
                for a in 0..=self.active.len() {
                    let s = if a == 0 {
                        0
                    } else {
                        self.active[a - 1] as usize + 1
                    };
                    for zero in [false, true] {
                        if zero && !self.step {
                            continue;
                        }
                        if let Some(c) = self.best_in(s, i, zero, phi, gb[i as usize]) {
                            if best.is_none_or(|b| order(&c, &b) == Ordering::Greater) {
                                best = Some(c);
                            }
                        }
                    }
                }
            }
            let Some(c) = best else {
                let u = (0..m.units.len() as u32)
                    .find(|&u| !self.st.unit_placed[u as usize])
                    .expect("a round runs only while units are unplaced");
                return Err(m.stuck(&self.st, u));
            };
            if let Some(t) = trace.as_deref_mut() {
                t.push((c, phi));
            }
            m.add(&mut self.st, &c);
            let u = c.unit as usize;
            let grp = self.group_of[u];
            if grp != 0 {
                let gi = grp as usize - 1;
                self.group_unplaced[gi] -= 1;
                if self.group_unplaced[gi] == 0 && self.group_active[gi] {
                    self.active.retain(|&a| a as usize != gi);
                    self.slots[grp as usize] = None;
                }
            }
            for &v in &m.units.members[u] {
                let cl = self.class_of[v as usize];
                if cl == NONE {
                    continue;
                }
                self.n_class[cl as usize] += 1;
                self.n_class_dev[cl as usize * k + c.dev as usize] += 1;
                if self.n_class[cl as usize] == 1 {
                    for gi in self.class_groups[cl as usize].clone() {
                        let gi = gi as usize;
                        if !self.group_active[gi] && self.group_unplaced[gi] > 0 {
                            self.activate(gi);
                        }
                    }
                }
            }
            if m.cfg.transfer != 0.0 {
                for &v in &m.units.members[u] {
                    let ends = g
                        .in_edges(v)
                        .iter()
                        .map(|&e| g.edges[e as usize].src)
                        .chain(g.out_edges(v).iter().map(|&e| g.edges[e as usize].dst));
                    for w in ends {
                        let wu = m.units.of[w as usize] as usize;
                        if wu != u && !self.st.unit_placed[wu] {
                            self.tver[wu] = self.tver[wu].wrapping_add(1);
                        }
                    }
                }
            }
        }
        Ok(self.st.dev)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::LinkModel;
    use crate::model::{cluster::Cluster, graph::Graph};
    use crate::place::verify;
    use crate::sim::{simulate, SimOptions};
    use crate::testutil::{carbonari_appendix, cluster, graph, joined};

    /// One round of the plain greedy: every candidate, `f(S)` before it, the choice.
    struct Round {
        phi: f64,
        cands: Vec<Cand>,
        chosen: Cand,
    }

    /// The paper's greedy as written: every round evaluates every (unit, device) pair from
    /// scratch (pf counted from the raw predecessor sets) and adds the best.
    fn reference(m: &Model, mut rounds: Option<&mut Vec<Round>>) -> Result<Placement> {
        let g = m.problem.graph;
        let preds: Vec<Vec<NodeIx>> = (0..g.node_count() as NodeIx)
            .map(|v| {
                let mut p: Vec<NodeIx> = g.predecessors(v).collect();
                p.sort_unstable();
                p.dedup();
                p
            })
            .collect();
        let mut st = m.state();
        for _ in 0..m.units.len() {
            let (gb, phi) = m.values(&st);
            let mut cands = Vec::new();
            for u in 0..m.units.len() as u32 {
                if st.unit_placed[u as usize] {
                    continue;
                }
                for i in 0..m.k as DevIx {
                    if !m.feasible(&st, u, i) {
                        continue;
                    }
                    let mut pf = 1;
                    for &j in &m.units.members[u as usize] {
                        if preds[j as usize].is_empty() {
                            continue;
                        }
                        for (v, &d) in st.dev.iter().enumerate() {
                            if d != NONE && d != i && preds[v] == preds[j as usize] {
                                pf += 1;
                            }
                        }
                    }
                    let x = m.charged(&st, u, i);
                    let stepped = m.stepped(&st, u, i);
                    cands.push(m.score(&st, u, i, x, pf, stepped, phi, gb[i as usize]));
                }
            }
            let Some(&chosen) = cands.iter().reduce(|a, b| {
                if order(b, a) == Ordering::Greater {
                    b
                } else {
                    a
                }
            }) else {
                let u = (0..m.units.len() as u32)
                    .find(|&u| !st.unit_placed[u as usize])
                    .unwrap();
                return Err(m.stuck(&st, u));
            };
            m.add(&mut st, &chosen);
            if let Some(r) = rounds.as_deref_mut() {
                r.push(Round { phi, cands, chosen });
            }
        }
        Ok(st.dev)
    }

    fn model<'p, 'a>(p: &'p Problem<'a>, improved: bool, params: &Params) -> Model<'p, 'a> {
        Model::new(p, Config::from_params(improved, params))
    }

    fn fast_trace(m: &Model) -> (Result<Placement>, Vec<(Cand, f64)>) {
        let mut t = Vec::new();
        let r = Fast::new(m).run(Some(&mut t));
        (r, t)
    }

    fn makespan(p: &Problem, placement: &[DevIx]) -> f64 {
        let mut sched =
            (crate::schedule::scheduler("fifo").unwrap().make)(&Params::default(), Rng::new(0));
        let mut queue = (crate::transfer::link_queue("fifo").unwrap().make)(
            &Params::default(),
            crate::rng::Rng::new(0),
        );
        simulate(
            p,
            placement,
            sched.as_mut(),
            queue.as_mut(),
            SimOptions {
                links: LinkModel::Parallel,
                record: false,
            },
        )
        .makespan
    }

    /// The walk-through's three-decimal arithmetic: each f^i truncated, then summed.
    fn printed(m: &Model, st_benefit: &[f64], c: &Cand) -> f64 {
        let mut b = st_benefit.to_vec();
        b[c.dev as usize] += c.b;
        b.iter()
            .filter(|&&x| x > 0.0)
            .map(|&x| (m.cfg.g(x) * 1000.0 + 1e-9).floor() / 1000.0)
            .sum()
    }

    /// Carbonari17 appendix 6.1, Submodular-G: 5 nodes of Figure 1a on CPU1, CPU2, GPU with the
    /// costs of Table 5, cap 100. Every candidate of every round, `(node, device, f(S))` as
    /// printed (E_ij = node j on device i).
    const APPENDIX: [&[(u32, u32, f64)]; 5] = [
        &[
            (1, 1, 1.400),
            (2, 1, 1.392),
            (3, 1, 1.410),
            (4, 1, 1.400),
            (5, 1, 1.396),
            (1, 2, 1.400),
            (2, 2, 1.392),
            (3, 2, 1.410),
            (4, 2, 1.400),
            (5, 2, 1.396),
            (1, 3, 1.407),
            (2, 3, 1.396),
            (3, 3, 1.403),
            (4, 3, 1.407),
            (5, 3, 1.389),
        ],
        &[
            (1, 1, 1.984),
            (2, 1, 1.979),
            (4, 1, 1.984),
            (5, 1, 1.982),
            (1, 2, 2.810),
            (2, 2, 2.806),
            (4, 2, 3.389),
            (5, 2, 2.806),
            (1, 3, 2.817),
            (2, 3, 2.806),
            (4, 3, 3.399),
            (5, 3, 2.799),
        ],
        &[
            (1, 1, 3.973),
            (2, 1, 3.968),
            (5, 1, 3.978),
            (1, 2, 4.799),
            (2, 2, 4.791),
            (5, 2, 4.795),
            (1, 3, 3.843),
            (2, 3, 3.836),
            (5, 3, 3.832),
        ],
        &[
            (2, 1, 5.368),
            (5, 1, 5.371),
            (2, 2, 5.363),
            (5, 2, 5.361),
            (2, 3, 5.236),
            (5, 3, 5.232),
        ],
        &[(2, 1, 5.799), (2, 2, 5.935), (2, 3, 5.808)],
    ];

    /// The appendix's printed values that its own arithmetic contradicts, with what the
    /// formulas give (in its three-decimal style):
    /// - round 2, E_22: sqrt(1.99) + sqrt(1.94) = 1.410 + 1.392 = 2.802, printed 2.806;
    /// - round 3, E_15: uses c = 2 instead of c_{1,5} = 5: b = 2 - 6/100 = 1.94,
    ///   sqrt(1.99 + 1.94) = 1.982, f = 3.971, printed 3.978 (b = 1.97);
    /// - round 4, E_25: 2 - (5 + 4)/100 is 1.91, printed "2 - 0.11 = 1.89";
    ///   sqrt(1.96 + 1.91) = 1.967, f = 5.366, printed 5.361.
    ///
    /// None changes a round's choice.
    const APPENDIX_SLIPS: [(usize, u32, u32, f64); 3] =
        [(1, 2, 2, 2.802), (2, 5, 1, 3.971), (3, 5, 2, 5.366)];

    #[test]
    fn appendix_walk_through_round_by_round() {
        let (g, c) = carbonari_appendix();
        let p = Problem::new(&g, &c).unwrap();
        let m = model(&p, false, &Params::defaults(PARAMS));
        let mut rounds = Vec::new();
        let placement = reference(&m, Some(&mut rounds)).unwrap();
        // Replay the rounds to know B before each.
        let mut st = m.state();
        for (r, (round, table)) in rounds.iter().zip(APPENDIX).enumerate() {
            let mut ours: Vec<(u32, u32)> = round
                .cands
                .iter()
                .map(|c| (c.node + 1, c.dev + 1))
                .collect();
            let mut theirs: Vec<(u32, u32)> = table.iter().map(|&(j, i, _)| (j, i)).collect();
            ours.sort_unstable();
            theirs.sort_unstable();
            assert_eq!(ours, theirs, "round {}: candidate set", r + 1);
            for &(j, i, f) in table {
                let cand = round
                    .cands
                    .iter()
                    .find(|c| c.node + 1 == j && c.dev + 1 == i)
                    .unwrap();
                let value = printed(&m, &st.benefit, cand);
                // f(S ∪ e) = f(S) + Δ, exactly as the greedy compares.
                let exact: f64 = {
                    let mut b = st.benefit.clone();
                    b[cand.dev as usize] += cand.b;
                    b.iter().map(|&x| x.sqrt()).sum()
                };
                assert!((round.phi + cand.value - exact).abs() < 1e-12);
                match APPENDIX_SLIPS
                    .iter()
                    .find(|s| s.0 == r && s.1 == j && s.2 == i)
                {
                    Some(&(_, _, _, right)) => {
                        assert!((value - right).abs() < 1e-9, "round {} E{i}{j}", r + 1);
                        assert!((value - f).abs() > 1e-3);
                    }
                    None => assert!(
                        (value - f).abs() < 1e-9,
                        "round {} E{i}{j}: {value} vs printed {f}",
                        r + 1
                    ),
                }
            }
            m.add(&mut st, &round.chosen);
        }
        // Rounds choose E_13, E_34, E_21, E_15, E_22 (node, device).
        let chosen: Vec<(u32, u32)> = rounds
            .iter()
            .map(|r| (r.chosen.node + 1, r.chosen.dev + 1))
            .collect();
        assert_eq!(chosen, vec![(3, 1), (4, 3), (1, 2), (5, 1), (2, 2)]);
        // f after each round, in closed form (B per device: CPU1, CPU2, GPU).
        let s = f64::sqrt;
        let f_after = [
            s(1.99),
            s(1.99) + s(3.96),
            s(1.99) + s(1.96) + s(3.96),
            s(1.99 + 1.94) + s(1.96) + s(3.96),
            s(1.99 + 1.94) + s(1.96 + 1.90) + s(3.96),
        ];
        for (r, round) in rounds.iter().enumerate() {
            assert!((round.phi + round.chosen.value - f_after[r]).abs() < 1e-12);
        }
        // node1 and node2 on CPU2, node3 and node5 on CPU1, node4 on the GPU.
        assert_eq!(placement, vec![1, 1, 0, 2, 0]);
        // The lazy greedy makes the same choices.
        let (fast, trace) = fast_trace(&m);
        assert_eq!(fast.unwrap(), placement);
        let fast_chosen: Vec<Cand> = trace.iter().map(|t| t.0).collect();
        let ref_chosen: Vec<Cand> = rounds.iter().map(|r| r.chosen).collect();
        assert_eq!(fast_chosen, ref_chosen);
        // The appendix's JCT: 4 + 6 + max(1, 2) + 5 = 17, which the simulator agrees with.
        assert_eq!(makespan(&p, &placement), 17.0);
        verify(&p, &placement).unwrap();
    }

    /// Submodular-GI on the appendix graph, by hand (b = 2 - (c + placed)/100, no pf;
    /// value = (f(S) + Δ) * pf):
    /// 1. f = 0, pf = 1: the largest b is node3 on a CPU (1.99), CPU1 by the tie rule.
    /// 2. f = sqrt(1.99) = 1.41067. node4 is parallel to node3: pf = 2 off CPU1.
    ///    node4 on the GPU: (1.41067 + sqrt(1.98)) * 2 = 5.63559; on CPU2:
    ///    (1.41067 + sqrt(1.96)) * 2 = 5.62135; everything else has pf = 1 (< 2.82).
    /// 3. node1, node2, node5 left, pf = 1: the empty CPU2 gives sqrt(b): node1 (c = 4)
    ///    b = 1.96 -> 1.4; on CPU1 or the GPU gains are ~0.57.
    /// 4. B = (1.99, 1.96, 1.98), placed = (1, 4, 2): node5 on CPU1 b = 1.94,
    ///    gain sqrt(3.93) - sqrt(1.99) = 0.57175; node2 on the GPU b = 1.93, gain
    ///    sqrt(3.91) - sqrt(1.98) = 0.57025; node5 on CPU2 0.56723 -> node5 on CPU1.
    /// 5. node2: CPU1 b = 1.88, gain 0.42797; CPU2 b = 1.90, gain 0.56469; GPU b = 1.93,
    ///    gain 0.57025 -> GPU.
    ///
    /// Placement CPU2, GPU, CPU1, GPU, CPU1; simulated: node1 0-4 on CPU2, node2 4-9 on
    /// the GPU, node3 9-10 on CPU1 with node4 9-11 on the GPU, node5 11-16: makespan 16.
    #[test]
    fn appendix_graph_improved_by_hand() {
        let (g, c) = carbonari_appendix();
        let p = Problem::new(&g, &c).unwrap();
        let m = model(&p, true, &Params::defaults(PARAMS));
        let mut rounds = Vec::new();
        let placement = reference(&m, Some(&mut rounds)).unwrap();
        let chosen: Vec<(u32, u32)> = rounds
            .iter()
            .map(|r| (r.chosen.node + 1, r.chosen.dev + 1))
            .collect();
        assert_eq!(chosen, vec![(3, 1), (4, 3), (1, 2), (5, 1), (2, 3)]);
        let s = f64::sqrt;
        let r2 = &rounds[1];
        let find = |r: &Round, j: u32, i: u32| {
            *r.cands
                .iter()
                .find(|c| c.node + 1 == j && c.dev + 1 == i)
                .unwrap()
        };
        assert!((find(r2, 4, 3).value - (s(1.99) + s(1.98)) * 2.0).abs() < 1e-12);
        assert!((find(r2, 4, 2).value - (s(1.99) + s(1.96)) * 2.0).abs() < 1e-12);
        assert!((find(r2, 4, 1).value - (s(1.99) + s(1.99 + 1.95) - s(1.99))).abs() < 1e-12);
        assert!((find(&rounds[3], 5, 1).value - (rounds[3].phi + s(3.93) - s(1.99))).abs() < 1e-12);
        assert_eq!(placement, vec![1, 2, 0, 2, 0]);
        assert_eq!(Fast::new(&m).run(None).unwrap(), placement);
        assert_eq!(makespan(&p, &placement), 16.0);
    }

    /// §2.3 prints b = 2 - (c - placed)/cap; we keep §2.2's "+": the benefit falls as a
    /// device fills. GI round 3 above: node1 on the empty CPU2 has b = 2 - 4/100 = 1.96, on
    /// CPU1 (placed 1) 2 - (4 + 1)/100 = 1.95 (the printed sign would give 1.97).
    #[test]
    fn improved_benefit_falls_as_the_device_fills() {
        let (g, c) = carbonari_appendix();
        let p = Problem::new(&g, &c).unwrap();
        let m = model(&p, true, &Params::defaults(PARAMS));
        let mut rounds = Vec::new();
        reference(&m, Some(&mut rounds)).unwrap();
        let r3 = &rounds[2];
        let b = |j: u32, i: u32| {
            r3.cands
                .iter()
                .find(|c| c.node + 1 == j && c.dev + 1 == i)
                .unwrap()
                .b
        };
        assert!((b(1, 2) - 1.96).abs() < 1e-12);
        assert!((b(1, 1) - 1.95).abs() < 1e-12);
        assert!(b(1, 1) < b(1, 2));
    }

    fn two_devices(extra: &str) -> Cluster {
        cluster(&format!(
            r#"{{"devices":[{{"id":"d0","speed":1{extra}}},{{"id":"d1","speed":1{extra}}}],"bandwidth":1}}"#
        ))
    }

    /// Parallel = same non-empty predecessor set in the full graph.
    /// r -> p -> x, p -> y (x, y parallel); a -> q, a -> z, b -> z (q and z share `a` only:
    /// not parallel); sources r, a, b are not parallel to each other.
    #[test]
    fn parallel_means_same_predecessors() {
        let g = graph(
            r#"{"nodes":[{"id":"r","cost":1},{"id":"p","cost":1},{"id":"x","cost":1},{"id":"y","cost":1},
                         {"id":"a","cost":1},{"id":"b","cost":1},{"id":"q","cost":1},{"id":"z","cost":1}],
                "edges":[{"src":"r","dst":"p"},{"src":"p","dst":"x"},{"src":"p","dst":"y"},{"src":"p","dst":"y"},
                         {"src":"a","dst":"q"},{"src":"a","dst":"z"},{"src":"b","dst":"z"}]}"#,
        );
        let c = two_devices("");
        let p = Problem::new(&g, &c).unwrap();
        let (class, count) = parallel_classes(&p);
        assert_eq!(count, 1);
        assert_eq!(
            class,
            vec![NONE, NONE, 0, 0, NONE, NONE, NONE, NONE],
            "only x and y (two edges p -> y count once)"
        );
    }

    /// pf counts from 1 and only parallel nodes on other devices: x placed on d0 (p, its
    /// parent, unplaced) gives y pf 2 on d1 and 1 on d0. Round 1 is a 4-way tie on b = 1.99
    /// (cost 1, cap 100; x and y on d0 or d1... all nodes cost 1) -> node 0 (p) on d0.
    /// We check pf directly on the state after placing x on d0 by hand.
    #[test]
    fn pf_counts_from_one() {
        let g = graph(
            r#"{"nodes":[{"id":"p","cost":1},{"id":"x","cost":1},{"id":"y","cost":1}],
                "edges":[{"src":"p","dst":"x"},{"src":"p","dst":"y"}]}"#,
        );
        let c = two_devices("");
        let p = Problem::new(&g, &c).unwrap();
        let m = model(&p, false, &Params::defaults(PARAMS));
        let mut f = Fast::new(&m);
        // Place x (unit 1) on d0 by hand, as the fast greedy's bookkeeping would.
        let (gb, phi) = m.values(&f.st);
        let cand = m.score(&f.st, 1, 0, 1.0, 1, false, phi, gb[0]);
        m.add(&mut f.st, &cand);
        f.n_class[0] += 1;
        f.n_class_dev[0] += 1;
        let gid = f.group_of[2] as usize - 1;
        assert_eq!(f.pf(gid, 0), 1);
        assert_eq!(f.pf(gid, 1), 2);
        // b of y on d1: (2 - 1/100) * 2 = 3.98; the first round's b is (2 - 1/100) * 1.
        let (gb, phi) = m.values(&f.st);
        let y1 = m.score(&f.st, 2, 1, 1.0, 2, false, phi, gb[1]);
        assert!((y1.b - 3.98).abs() < 1e-12);
        assert!((cand.b - 1.99).abs() < 1e-12);
    }

    /// Ties: two equal nodes on two equal devices. Round 1: all four pairs tie -> lowest
    /// device (d0), then lowest node (a). Round 2: b on d1 (sqrt(1.99)) beats b on d0.
    #[test]
    fn ties_go_to_lowest_device_then_node() {
        let g = graph(r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1}]}"#);
        let c = two_devices("");
        let p = Problem::new(&g, &c).unwrap();
        for improved in [false, true] {
            let m = model(&p, improved, &Params::defaults(PARAMS));
            let (r, t) = fast_trace(&m);
            assert_eq!(r.unwrap(), vec![0, 1]);
            assert_eq!((t[0].0.node, t[0].0.dev), (0, 0));
        }
    }

    /// cap is a hard constraint: costs 3, cap 5 -> each device takes one node
    /// (3 + 3 > 5); a third node fits nowhere and the error names cap.
    #[test]
    fn cap_is_a_constraint() {
        let c = two_devices("");
        let g = graph(r#"{"nodes":[{"id":"a","cost":3},{"id":"b","cost":3},{"id":"c","cost":3}]}"#);
        let p = Problem::new(&g, &c).unwrap();
        let params = Params::defaults(PARAMS).with("cap", 5.0);
        let e = Submodular { improved: false }
            .place(&p, &params, &mut Rng::new(0))
            .unwrap_err()
            .to_string();
        assert!(e.contains("node 'c'") && e.contains("cap = 5"), "{e}");
        let g2 = graph(r#"{"nodes":[{"id":"a","cost":3},{"id":"b","cost":3}]}"#);
        let p2 = Problem::new(&g2, &c).unwrap();
        let placement = Submodular { improved: true }
            .place(&p2, &params, &mut Rng::new(0))
            .unwrap();
        assert_eq!(placement, vec![0, 1]);
        // An exponent outside (0, 1] never reaches the placer: resolving refuses it.
        let o = std::collections::BTreeMap::from([("submodular.g".to_string(), 1.5)]);
        let e = Params::resolve("submodular", PARAMS, &o)
            .unwrap_err()
            .to_string();
        assert!(e.contains("submodular.g"), "{e}");
    }

    /// A colocation group is one element: cost the sum, one device, memory for all.
    /// Group w = {a (cost 2, mem 3), c (cost 2, mem 3)}, b (cost 1), device d0 has memory 5
    /// (the group's 6 bytes only fit d1). Round 1 (cap 100): b on d0 has b = 1.99, the
    /// group on d1 has b = 2 - 4/100 = 1.96 -> b on d0. Round 2: the group on d1.
    #[test]
    fn groups_are_one_element() {
        let c = cluster(
            r#"{"devices":[{"id":"d0","speed":1,"memory":5},{"id":"d1","speed":1}],"bandwidth":1}"#,
        );
        let g = graph(
            r#"{"nodes":[{"id":"a","cost":2,"mem":3,"colocate":"w"},{"id":"b","cost":1},{"id":"c","cost":2,"mem":3,"colocate":"w"}]}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        for improved in [false, true] {
            let m = model(&p, improved, &Params::defaults(PARAMS));
            let (r, t) = fast_trace(&m);
            let placement = r.unwrap();
            assert_eq!(placement, vec![1, 0, 1]);
            assert!((t[1].0.b - 1.96).abs() < 1e-12);
            assert_eq!(t[1].0.node, 0);
            verify(&p, &placement).unwrap();
        }
        let tiny = cluster(r#"{"devices":[{"id":"d0","speed":1,"memory":5}],"bandwidth":1}"#);
        let p = Problem::new(&g, &tiny).unwrap();
        let e = Submodular { improved: false }
            .place(&p, &Params::defaults(PARAMS), &mut Rng::new(0))
            .unwrap_err()
            .to_string();
        assert!(e.contains("colocation group 'w'"), "{e}");
    }

    /// Memory-aware g (§5), with a linear g (p = 1, so no diversity pull) and cap 10:
    /// node costs 1 on d0 and 9 on d1 (time tables), mem 4 each, memory 20 per device.
    /// Without the step every node goes to d0 (b = 2 - (placed + 1)/10 >= 1.7 > 1.1 on d1).
    /// With mem_step 0.5 (10 bytes): the third node would bring d0 to 12 > 10 -> b = 0
    /// there, so it goes to d1 (b = 1.1).
    #[test]
    fn memory_step_moves_nodes_off_full_devices() {
        let c = cluster(
            r#"{"devices":[{"id":"d0","kind":"fast","speed":1,"memory":20},{"id":"d1","kind":"slow","speed":1,"memory":20}],"bandwidth":1}"#,
        );
        let nodes: Vec<String> = (0..3)
            .map(|i| format!(r#"{{"id":"n{i}","time":{{"fast":1,"slow":9}},"mem":4}}"#))
            .collect();
        let g = joined(&nodes, &[]);
        let p = Problem::new(&g, &c).unwrap();
        let base = Params::defaults(PARAMS).with("g", 1.0).with("cap", 10.0);
        for improved in [false, true] {
            let m = model(&p, improved, &base);
            assert_eq!(Fast::new(&m).run(None).unwrap(), vec![0, 0, 0]);
            let stepped = base.clone().with("mem_step", 0.5);
            let m = model(&p, improved, &stepped);
            assert_eq!(Fast::new(&m).run(None).unwrap(), vec![0, 0, 1]);
            assert_eq!(reference(&m, None).unwrap(), vec![0, 0, 1]);
        }
    }

    /// Transfer term (§5): a (cost 1) -> b (cost 1), 5 bytes over bandwidth 1 (T = 5),
    /// cap 10, two equal devices.
    /// Round 1: a and b tie (b = 1.9) -> a on d0. Round 2, b: on d0 placed 1, b = 1.8,
    /// gain sqrt(3.7) - sqrt(1.9) = 0.545; on d1 with weight w: b = 2 - (1 + 5w)/10:
    /// w = 0: 1.9, gain 1.378 -> d1; w = 3: 0.4, gain 0.632 -> d1; w = 4: -0.1 -> 0 -> d0.
    /// Reversed costs (a 2, b 1): b goes first to d0; then a's *successor* is placed and
    /// with w = 4, a on d1 has 2 - (2 + 20)/10 < 0 -> 0, on d0 b = 1.7 -> d0.
    #[test]
    fn transfer_term_keeps_neighbours_together() {
        let c = two_devices("");
        let g = graph(
            r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1}],"edges":[{"src":"a","dst":"b","bytes":5}]}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        let run = |p: &Problem, w: f64| {
            let params = Params::defaults(PARAMS)
                .with("cap", 10.0)
                .with("transfer", w);
            let m = model(p, false, &params);
            let fast = Fast::new(&m).run(None).unwrap();
            assert_eq!(fast, reference(&m, None).unwrap());
            fast
        };
        assert_eq!(run(&p, 0.0), vec![0, 1]);
        assert_eq!(run(&p, 3.0), vec![0, 1]);
        assert_eq!(run(&p, 4.0), vec![0, 0]);
        let g2 = graph(
            r#"{"nodes":[{"id":"a","cost":2},{"id":"b","cost":1}],"edges":[{"src":"a","dst":"b","bytes":5}]}"#,
        );
        let p2 = Problem::new(&g2, &c).unwrap();
        assert_eq!(run(&p2, 0.0), vec![1, 0]);
        assert_eq!(run(&p2, 4.0), vec![0, 0]);
    }

    /// A random DAG whose nodes often copy an earlier node's predecessors (so parallel
    /// classes of several nodes appear), with random integer-ish costs (ties), groups,
    /// device rules, memory, and time tables per kind.
    fn random_case(rng: &mut Rng) -> (Graph, Cluster) {
        let n = 2 + rng.below(28) as usize;
        let k = 1 + rng.below(4) as usize;
        let kinds = ["cpu", "gpu"];
        let mut nodes = Vec::new();
        let mut edges = Vec::new();
        let mut preds_of: Vec<Vec<usize>> = Vec::new();
        for v in 0..n {
            let mut preds: Vec<usize> = Vec::new();
            if v > 0 && rng.unit() < 0.85 {
                if v > 1 && rng.unit() < 0.5 {
                    preds = preds_of[rng.below(v as u64) as usize].clone();
                }
                if preds.is_empty() {
                    for _ in 0..1 + rng.below(2) {
                        let u = rng.below(v as u64) as usize;
                        if !preds.contains(&u) {
                            preds.push(u);
                        }
                    }
                }
            }
            for &u in &preds {
                edges.push(format!(
                    r#"{{"src":"n{u}","dst":"n{v}","bytes":{}}}"#,
                    rng.below(6)
                ));
            }
            preds_of.push(preds);
            let cost = if rng.unit() < 0.5 {
                (1 + rng.below(5)) as f64
            } else {
                rng.uniform(0.5, 6.0)
            };
            let mut fields = vec![format!(r#""id":"n{v}""#)];
            if rng.unit() < 0.3 {
                fields.push(format!(
                    r#""time":{{"cpu":{},"gpu":{}}}"#,
                    1 + rng.below(6),
                    1 + rng.below(6)
                ));
            } else {
                fields.push(format!(r#""cost":{cost}"#));
            }
            if rng.unit() < 0.4 {
                fields.push(format!(r#""mem":{}"#, rng.below(5)));
            }
            if rng.unit() < 0.15 {
                fields.push(format!(r#""colocate":"g{}""#, rng.below(3)));
            } else if rng.unit() < 0.1 {
                fields.push(format!(r#""device":"{}""#, kinds[rng.below(2) as usize]));
            }
            nodes.push(format!("{{{}}}", fields.join(",")));
        }
        let devices: Vec<String> = (0..k)
            .map(|d| {
                let mem = if rng.unit() < 0.5 {
                    format!(r#","memory":{}"#, 8 + rng.below(20))
                } else {
                    String::new()
                };
                format!(
                    r#"{{"id":"d{d}","kind":"{}","speed":{}{mem}}}"#,
                    kinds[d % 2],
                    1 + rng.below(3)
                )
            })
            .collect();
        let g = joined(&nodes, &edges);
        let c = cluster(&format!(
            r#"{{"devices":[{}],"bandwidth":{},"latency":{}}}"#,
            devices.join(","),
            1 + rng.below(3),
            rng.below(2)
        ));
        (g, c)
    }

    /// The lazy greedy makes exactly the plain greedy's choices (same candidate, same
    /// numbers, round by round, or the same error) on random graphs, both variants, with
    /// and without the §5 terms and for several g.
    #[test]
    fn lazy_greedy_equals_plain_greedy() {
        let mut rng = Rng::new(2017);
        let mut compared = 0;
        let mut errors = 0;
        for case in 0..600 {
            let (g, c) = random_case(&mut rng);
            let Ok(p) = Problem::new(&g, &c) else {
                continue;
            };
            let improved = rng.unit() < 0.5;
            let mut params = Params::defaults(PARAMS);
            if rng.unit() < 0.5 {
                params = params.with("cap", [20.0, 40.0, 100.0][rng.below(3) as usize]);
            }
            if rng.unit() < 0.3 {
                params = params.with("g", [0.3, 1.0, 0.75][rng.below(3) as usize]);
            }
            if rng.unit() < 0.3 {
                params = params.with("mem_step", [0.5, 0.8, 1.0][rng.below(3) as usize]);
            }
            if rng.unit() < 0.3 {
                params = params.with("transfer", [0.5, 2.0, 10.0][rng.below(3) as usize]);
            }
            let m = model(&p, improved, &params);
            let mut rounds = Vec::new();
            let plain = reference(&m, Some(&mut rounds));
            let (fast, trace) = fast_trace(&m);
            let plain_chosen: Vec<Cand> = rounds.iter().map(|r| r.chosen).collect();
            let fast_chosen: Vec<Cand> = trace.iter().map(|t| t.0).collect();
            assert_eq!(
                fast_chosen, plain_chosen,
                "case {case}: improved {improved}, {params:?}"
            );
            assert_eq!(fast, plain, "case {case}");
            match &fast {
                Ok(placement) => verify(&p, placement).unwrap(),
                Err(_) => errors += 1,
            }
            compared += 1;
        }
        assert!(compared > 500, "{compared}");
        assert!(
            errors > 0 && errors < compared / 4,
            "{errors} of {compared}"
        );
    }

    /// With memory a hard constraint, a step at 100% of memory changes nothing.
    #[test]
    fn memory_step_at_full_memory_is_the_hard_limit() {
        let mut rng = Rng::new(5);
        for _ in 0..100 {
            let (g, c) = random_case(&mut rng);
            let Ok(p) = Problem::new(&g, &c) else {
                continue;
            };
            for improved in [false, true] {
                let off = model(&p, improved, &Params::defaults(PARAMS));
                let on = model(
                    &p,
                    improved,
                    &Params::defaults(PARAMS).with("mem_step", 1.0),
                );
                assert_eq!(Fast::new(&off).run(None), Fast::new(&on).run(None));
            }
        }
    }
}

#[cfg(test)]
mod speed {
    use super::*;
    use crate::model::{cluster::Cluster, graph::Graph};
    use crate::place::tf_greedy::TfGreedy;
    use std::time::Instant;

    /// An inception-like chain of blocks: a split node feeding `width` parallel branches of
    /// `depth` ops each, joined by a concat; op costs drawn at random (so sibling sets are
    /// placed at different rounds and many are partly placed at once).
    pub(super) fn blocks(nodes: usize, width: usize, depth: usize, seed: u64) -> Graph {
        let mut rng = Rng::new(seed);
        let mut ns = Vec::new();
        let mut es = Vec::new();
        let mut prev = "in".to_string();
        ns.push(r#"{"id":"in","op":"Input","cost":1}"#.to_string());
        let mut b = 0;
        while ns.len() + width * depth < nodes {
            let join = format!("b{b}_join");
            for w in 0..width {
                let mut last = prev.clone();
                for d in 0..depth {
                    let id = format!("b{b}_{w}_{d}");
                    let op = if d % 2 == 0 { "Conv2D" } else { "Activation" };
                    ns.push(format!(
                        r#"{{"id":"{id}","op":"{op}","cost":{}}}"#,
                        rng.uniform(1e8, 4e9)
                    ));
                    es.push(format!(
                        r#"{{"src":"{last}","dst":"{id}","bytes":{}}}"#,
                        rng.uniform(1e5, 1e7)
                    ));
                    last = id;
                }
                es.push(format!(r#"{{"src":"{last}","dst":"{join}","bytes":1e6}}"#));
            }
            ns.push(format!(
                r#"{{"id":"{join}","op":"Concatenate","cost":1e7}}"#
            ));
            prev = join;
            b += 1;
        }
        Graph::from_json(
            &format!(
                r#"{{"nodes":[{}],"edges":[{}]}}"#,
                ns.join(","),
                es.join(",")
            ),
            "blocks",
        )
        .unwrap()
    }

    pub(super) fn cluster(k: usize) -> Cluster {
        let devs: Vec<String> = (0..k)
            .map(|i| {
                if i % 3 == 2 {
                    format!(r#"{{"id":"gpu{i}","kind":"gpu","speed":1e12}}"#)
                } else {
                    format!(r#"{{"id":"cpu{i}","kind":"cpu","speed":5e10}}"#)
                }
            })
            .collect();
        crate::testutil::cluster(&format!(
            r#"{{"devices":[{}],"bandwidth":1.2e10,"latency":1e-5,"kinds":{{"gpu":{{"op_speed":{{"Conv2D":5}}}}}}}}"#,
            devs.join(",")
        ))
    }

    /// Fastest of several runs (the machine is shared).
    fn time(p: &Problem, placer: &dyn Placer, params: &Params) -> f64 {
        let reps = if p.node_count() > 1000 { 7 } else { 101 };
        (0..reps)
            .map(|_| {
                let t = Instant::now();
                placer.place(p, params, &mut Rng::new(0)).unwrap();
                t.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
    }

    /// `cargo test --release --lib place::submodular::speed -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn placement_times() {
        let mut cases: Vec<(String, Graph, Cluster)> = Vec::new();
        let inception = Graph::from_json(
            include_str!("../../graphs/inception_v3_layers.json"),
            "inception_v3_layers",
        )
        .unwrap();
        let large = Cluster::from_json(
            include_str!("../../graphs/clusters/carbonari_large.json"),
            "large",
        )
        .unwrap();
        cases.push((
            "inception_v3_layers on carbonari_large (60)".into(),
            inception,
            large,
        ));
        for (width, depth) in [(4, 1), (4, 3), (1, 1)] {
            cases.push((
                format!("20k ops, blocks of {width} x {depth}, 50 devices"),
                blocks(20_000, width, depth, 7),
                cluster(50),
            ));
        }
        for (name, g, c) in &cases {
            let p = Problem::new(g, c).unwrap();
            let params = Params::defaults(PARAMS).with("cap", 1e6);
            let tf = time(&p, &TfGreedy, &Params::default());
            let sg = time(&p, &Submodular { improved: false }, &params);
            let si = time(&p, &Submodular { improved: true }, &params);
            let with_transfer = params.clone().with("transfer", 1.0);
            let st = time(&p, &Submodular { improved: false }, &with_transfer);
            println!(
                "{name} ({} nodes): tf-greedy {:.2} ms, submodular {:.2} ms ({:.1}x), \
                 submodular-gi {:.2} ms ({:.1}x), submodular transfer=1 {:.2} ms ({:.1}x)",
                g.node_count(),
                tf * 1e3,
                sg * 1e3,
                sg / tf,
                si * 1e3,
                si / tf,
                st * 1e3,
                st / tf
            );
        }
    }
}
