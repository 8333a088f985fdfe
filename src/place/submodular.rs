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
//!   raises the gain of its parallel siblings on the other devices. Groups are grouped by the
//!   multiset of their members' parallel classes ("signature"), which fixes their `pf` on
//!   every device; a group stays in the shared pf = 1 class while none of its classes has
//!   a placed node, and gets a class of its own, built eagerly, in the round one of them is
//!   placed, so a rise is never missed.
//! - With `mem_step`, a unit that steps to zero on a device moves to that device's heap of
//!   stepped units of its class (benefit 0 for all there; memory only fills, so it never
//!   steps back).
//! - Once more than `FILE_ABOVE` (8) groups are active, and until none is, they are filed
//!   per device by their pf there: within one device, one pf, and among the units stepped
//!   to zero or the others, candidates rank by `(x, node)` alone whatever group they come
//!   from, so a bucket's answer is the group whose lowest `(x, node)` is lowest. Each
//!   bucket is a heap of lower bounds of that (it only grows: units leave, `x` grows; a unit
//!   moving to the stepped units re-files that stream if it is lower), checked lazily at
//!   its top; a group whose pf changes on a device (a node of one of its classes placed
//!   elsewhere) is filed anew there, and one with no candidate left in a stream leaves it.
//!   With a few active groups, asking each costs less than filing them.
//!
//! A round costs O(devices × (1 + min(active groups, pf buckets))) plus O(log V) per
//! re-filing; the whole run O(V log V × columns + rounds × devices × (1 + pf buckets) +
//! (E × devices) log V) with the transfer term, plus O(devices × groups of the placed
//! node's classes) per round to re-file (one group per class without colocation). The pf
//! buckets of a device are the distinct pf of its active groups: without colocation (a
//! group is one class) `p` buckets need `p (p - 1) / 2` placed parallel nodes, so there are
//! at most `sqrt(2V)`, and in practice a few (a placed node raises its siblings' gains
//! elsewhere, so they follow at once). Until issue 24b every active group was asked on
//! every device each round, O(devices × (1 + active groups)): quadratic on many sibling
//! sets partly placed at once (docs/cost.md, "Fixed").
//!
//! Exactness rests on every step from `x` to the value being monotone in floating point
//! too: sums, quotients and products are, and `g` is `sqrt` (correctly rounded) for
//! p = 0.5, the identity for p = 1 and `libm::pow` otherwise (faithfully rounded; the
//! random comparison also runs p = 0.3 and 0.75).
//!
//! The hand-computed tests (the appendix walk-through round by round) and the lazy greedy's
//! check against the plain greedy are in `submodular/tests.rs`.

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BinaryHeap};

use super::{assign, no_device_error, Groups, Loads, Placer, PlacerInfo};
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
    units: Groups,
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
        let units = Groups::new(problem);
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
    let n = g.node_count();
    // Each node's predecessor set (sorted, deduplicated) in one flat buffer, then the nodes
    // with a non-empty set sorted by it (ties: node order): classes are the runs of equal
    // sets, numbered in the sets' lexicographic order (as a map keyed by the set would).
    let mut flat: Vec<NodeIx> = Vec::with_capacity(g.edge_count());
    let mut start: Vec<u32> = Vec::with_capacity(n + 1);
    start.push(0);
    let mut with: Vec<NodeIx> = Vec::with_capacity(n);
    let mut preds: Vec<NodeIx> = Vec::new();
    for v in 0..n as NodeIx {
        preds.clear();
        preds.extend(g.predecessors(v));
        preds.sort_unstable();
        preds.dedup();
        flat.extend_from_slice(&preds);
        start.push(flat.len() as u32);
        if !preds.is_empty() {
            with.push(v);
        }
    }
    let set = |v: NodeIx| &flat[start[v as usize] as usize..start[v as usize + 1] as usize];
    with.sort_by(|&a, &b| set(a).cmp(set(b)));
    let mut class = vec![NONE; n];
    let mut count = 0;
    for members in with.chunk_by(|&a, &b| set(a) == set(b)) {
        if members.len() >= 2 {
            for &v in members {
                class[v as usize] = count as u32;
            }
            count += 1;
        }
    }
    (class, count)
}

/// `x`'s place in [`cmp_f`]'s order of finite values, as an integer (`-0.0` and `0.0` alike):
/// `total_cmp`'s order bits, with `-0.0` read as `0.0`.
fn ordered_bits(x: f64) -> u64 {
    crate::util::total_order_bits(if x == 0.0 { 0.0 } else { x })
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

/// A group's stream on one device in its pf bucket: lowest `(x, node)` it may still offer
/// there (a lower bound), the group, the filing's version. The smallest pops first.
type Filed = Reverse<(u64, NodeIx, u32, u32)>;

/// Where an active group is filed, per stream (device `i`, units whose g stepped to zero
/// there or the others: `2 i + zero`): whether it is filed (not when it has no candidate
/// left there), its pf, the version of its live entry (older ones are stale), the lower
/// bound of its best `(x, node)` there.
struct Filing {
    on: Vec<bool>,
    pf: Vec<u32>,
    ver: Vec<u32>,
    low: Vec<(u64, NodeIx)>,
}

/// Active groups above which the rounds file them by pf (measured: NASNet x10 at 50
/// devices keeps at most one active; filing every activation on every device cost 12%).
const FILE_ABOVE: usize = 8;

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
    /// Position of each active group in `active` (the rounds' answer does not depend on
    /// the order: candidates are totally ordered, each asked on its own).
    active_at: Vec<u32>,
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
    /// Whether the active groups are filed by pf ([`Fast::best_filed`]): from a round that
    /// starts with more than `file_above` of them until none is left (asking each of a few
    /// active groups costs less than filing them).
    filed: bool,
    file_above: usize,
    /// While `filed`: per stream (`2 * device + zero`), the active groups by their pf
    /// there, each bucket a heap of [`Filed`] entries; per group, its [`Filing`].
    buckets: Vec<BTreeMap<u32, BinaryHeap<Filed>>>,
    /// The least `(x, node)` of the units [`Fast::best_in`] moved to a stepped heap since
    /// this was last taken.
    moved: Option<(u64, NodeIx)>,
    filings: Vec<Option<Filing>>,
    /// Scratch: the pf buckets of a device, the groups a placement touched (with a stamp
    /// per group).
    pfs: Vec<u32>,
    touched: Vec<u32>,
    stamp: Vec<u32>,
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
            active_at: vec![NONE; ngroups],
            slots: (0..=ngroups).map(|_| None).collect(),
            column,
            column_dev,
            tver: vec![0; nu],
            step: m.cfg.mem_step > 0.0,
            filed: false,
            file_above: FILE_ABOVE,
            buckets: (0..2 * k).map(|_| BTreeMap::new()).collect(),
            moved: None,
            filings: (0..ngroups).map(|_| None).collect(),
            pfs: Vec::new(),
            touched: Vec::new(),
            stamp: vec![u32::MAX; ngroups],
        };
        fast.slots[0] = Some(fast.slot(0..nu as u32));
        fast
    }

    /// A slot holding `units` (those still unplaced), keyed by `c`: exact while the transfer
    /// term is off or nothing is placed, else a lower bound of `x`.
    fn slot(&self, units: impl Iterator<Item = u32>) -> Slot {
        let m = self.m;
        let exact = m.cfg.transfer == 0.0 || self.st.unit_placed.iter().all(|&p| !p);
        // The unplaced units with their nodes, re-sorted for each column from the previous
        // column's order (stable sort: columns of devices that differ in speed alone keep
        // most of it, so each sort after the first is nearly linear). Keys are distinct
        // (each unit's node is its own), so any sort gives the one ascending (x, node)
        // order, the one `b.cmp(a)` gives entries (Entry's order is reversed); costs that
        // are not finite are left out after sorting.
        let mut seq: Vec<(u32, NodeIx)> = units
            .filter(|&u| !self.st.unit_placed[u as usize])
            .map(|u| (u, m.units.members[u as usize][0]))
            .collect();
        let orders = self
            .column_dev
            .iter()
            .map(|&d| {
                seq.sort_by_key(|&(u, tie)| (ordered_bits(m.cost(u, d)), tie));
                seq.iter()
                    .filter(|&&(u, _)| m.cost(u, d).is_finite())
                    .map(|&(u, tie)| Entry {
                        key: Smaller(m.cost(u, d)),
                        tie,
                        data: Tag {
                            unit: u,
                            tver: if exact { self.tver[u as usize] } else { BOUND },
                        },
                    })
                    .collect()
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
                let key = (ordered_bits(top.key.0), top.tie);
                self.moved = Some(self.moved.map_or(key, |m| m.min(key)));
                continue;
            }
            let pf = if s == 0 { 1 } else { self.pf(s - 1, i) };
            return Some(m.score(&self.st, u, i, top.key.0, pf, zero, phi, gb));
        }
    }

    /// Gives `group` a slot of its own from now on (its units leave the shared class) and,
    /// while the active groups are filed, files it.
    fn activate(&mut self, group: usize) {
        self.group_active[group] = true;
        self.active_at[group] = self.active.len() as u32;
        self.active.push(group as u32);
        let units = std::mem::take(&mut self.group_units[group]);
        self.slots[group + 1] = Some(self.slot(units.iter().copied()));
        self.group_units[group] = units;
        if self.filed {
            self.file_all(group);
        }
    }

    /// Files active `group` on every device under its pf there, bound `(0, 0)` (and its
    /// stepped units, with `mem_step`).
    fn file_all(&mut self, group: usize) {
        let k = self.m.k;
        self.filings[group] = Some(Filing {
            on: vec![false; 2 * k],
            pf: vec![0; 2 * k],
            ver: vec![0; 2 * k],
            low: vec![(0, 0); 2 * k],
        });
        for i in 0..k as DevIx {
            self.file(group, 2 * i as usize);
            if self.step {
                self.file(group, 2 * i as usize + 1);
            }
        }
    }

    /// Files active `group`'s stream `j` (`2 * device + zero`) under its pf now, with its
    /// bound, as a new version (the previous entry, in whichever bucket, goes stale).
    fn file(&mut self, group: usize, j: usize) {
        let pf = self.pf(group, (j / 2) as DevIx);
        let f = self.filings[group].as_mut().expect("filed group");
        f.on[j] = true;
        f.pf[j] = pf;
        f.ver[j] = f.ver[j].wrapping_add(1);
        let (x, node) = f.low[j];
        self.buckets[j]
            .entry(pf)
            .or_default()
            .push(Reverse((x, node, group as u32, f.ver[j])));
    }

    /// Moves the active groups a placement touched to their new pf buckets, on each device
    /// where their pf changed and they still have candidates.
    fn refile(&mut self, placed: usize) {
        let m = self.m;
        self.touched.clear();
        for &v in &m.units.members[placed] {
            let cl = self.class_of[v as usize];
            if cl == NONE {
                continue;
            }
            for &gi in &self.class_groups[cl as usize] {
                if self.stamp[gi as usize] != placed as u32 {
                    self.stamp[gi as usize] = placed as u32;
                    self.touched.push(gi);
                }
            }
        }
        for t in 0..self.touched.len() {
            let gi = self.touched[t] as usize;
            if self.filings[gi].is_none() {
                continue;
            }
            for j in 0..2 * m.k {
                let f = self.filings[gi].as_ref().expect("filed group");
                if f.on[j] && f.pf[j] != self.pf(gi, (j / 2) as DevIx) {
                    self.file(gi, j);
                }
            }
        }
    }

    /// The best candidate of the active groups on device `i`, among their units whose g
    /// stepped to zero there (`zero`) or the others: within one device, one pf and one of
    /// the two, candidates rank by `(x, node)` alone (the module doc), so each pf bucket's
    /// answer is the group with the lowest `(x, node)` there. Entries are lower bounds (a
    /// group's lowest `(x, node)` in a stream only grows: units leave, `x` only grows; a
    /// unit moving to the stepped units re-files that stream with its key if lower), so
    /// the top is asked for its best and goes back re-keyed until its bound is exact; a
    /// group with no candidate left in a stream leaves it (stepped units may come back).
    /// Asked for `zero == false` first, as the rounds without filing do: a stepped unit
    /// that no top reached yet is beaten by its bucket's answer (value, then `b`, then
    /// `x`).
    fn best_filed(&mut self, i: DevIx, zero: bool, phi: f64, gb: f64) -> Option<Cand> {
        let j = 2 * i as usize + zero as usize;
        let mut pfs = std::mem::take(&mut self.pfs);
        pfs.clear();
        pfs.extend(self.buckets[j].keys().copied());
        let mut best: Option<Cand> = None;
        for &pf in &pfs {
            loop {
                let heap = self.buckets[j].get_mut(&pf).expect("bucket");
                let Some(&Reverse((x, node, gi, ver))) = heap.peek() else {
                    self.buckets[j].remove(&pf);
                    break;
                };
                let g = gi as usize;
                let live = self.slots[g + 1].is_some()
                    && self.filings[g]
                        .as_ref()
                        .is_some_and(|f| f.on[j] && f.ver[j] == ver);
                if !live {
                    heap.pop();
                    continue;
                }
                self.moved = None;
                let found = self.best_in(g + 1, i, zero, phi, gb);
                if let Some(key) = self.moved.take() {
                    // Units moved to this group's stepped units on `i`: a lower bound there.
                    let z = j + 1;
                    let f = self.filings[g].as_mut().expect("filed group");
                    if !f.on[z] || key < f.low[z] {
                        f.low[z] = if f.on[z] { key.min(f.low[z]) } else { key };
                        self.file(g, z);
                    }
                }
                match found {
                    None => {
                        let f = self.filings[g].as_mut().expect("filed group");
                        f.on[j] = false;
                        self.buckets[j].get_mut(&pf).expect("bucket").pop();
                    }
                    Some(c) => {
                        let now = (ordered_bits(c.x), c.node);
                        if now == (x, node) {
                            if best.is_none_or(|b| order(&c, &b) == Ordering::Greater) {
                                best = Some(c);
                            }
                            break;
                        }
                        debug_assert!(now > (x, node), "bounds only grow");
                        let f = self.filings[g].as_mut().expect("filed group");
                        f.low[j] = now;
                        let heap = self.buckets[j].get_mut(&pf).expect("bucket");
                        heap.pop();
                        heap.push(Reverse((now.0, now.1, gi, ver)));
                    }
                }
            }
        }
        self.pfs = pfs;
        best
    }

    /// Runs the greedy; with `trace`, records each round's choice and `f(S)` before it.
    fn run(mut self, mut trace: Option<&mut Vec<(Cand, f64)>>) -> Result<Placement> {
        let m = self.m;
        let g = m.problem.graph;
        let k = m.k;
        for _ in 0..m.units.len() {
            if !self.filed && self.active.len() > self.file_above {
                self.filed = true;
                for a in 0..self.active.len() {
                    self.file_all(self.active[a] as usize);
                }
            } else if self.filed && self.active.is_empty() {
                // Completed groups dropped their filings; their entries go with the buckets.
                self.filed = false;
                self.buckets.iter_mut().for_each(BTreeMap::clear);
            }
            let (gb, phi) = m.values(&self.st);
            let mut best: Option<Cand> = None;
            for i in 0..k as DevIx {
                if self.filed {
                    // The shared class, then the active groups by pf bucket, each first
                    // among the units not stepped to zero.
                    for zero in [false, true] {
                        if zero && !self.step {
                            continue;
                        }
                        let shared = self.best_in(0, i, zero, phi, gb[i as usize]);
                        let filed = self.best_filed(i, zero, phi, gb[i as usize]);
                        for c in [shared, filed].into_iter().flatten() {
                            if best.is_none_or(|b| order(&c, &b) == Ordering::Greater) {
                                best = Some(c);
                            }
                        }
                    }
                    continue;
                }
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
                    // Out of `active` in O(1) (a scan of it was quadratic with many active).
                    let at = self.active_at[gi] as usize;
                    self.active.swap_remove(at);
                    if let Some(&moved) = self.active.get(at) {
                        self.active_at[moved as usize] = at as u32;
                    }
                    self.slots[grp as usize] = None;
                    self.filings[gi] = None;
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
            if self.filed {
                self.refile(u);
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
mod tests;
