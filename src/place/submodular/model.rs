//! What Submodular-G and Submodular-GI maximise (Carbonari17 §2.2, §2.3, §5): the
//! parameters as a [`Config`], what does not change while placing ([`Model`]: units, their
//! costs per device, the memory step), the greedy's set `S` as the quantities `f` needs
//! ([`State`]), a candidate element `E_ij` with its value ([`Cand`], [`Model::score`]) and the
//! order of candidates ([`order`]: ties as the module doc of `submodular.rs` says), and the
//! parallel classes `pf` counts ([`parallel_classes`]). The reference greedy in the tests
//! and the lazy one in `fast.rs` both score through this file.

use std::cmp::Ordering;

use super::{INFO, INFO_GI};
use crate::error::Error;
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::params::Params;
use crate::place::{assign, no_device_error, Groups, Loads};

pub(super) const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
pub(super) struct Config {
    pub(super) improved: bool,
    pub(super) cap: f64,
    pub(super) p: f64,
    pub(super) mem_step: f64,
    pub(super) transfer: f64,
}

impl Config {
    /// The parameters, already checked against their declared ranges when the scenario was
    /// resolved.
    pub(super) fn from_params(improved: bool, params: &Params) -> Config {
        Config {
            improved,
            cap: params.get("cap"),
            p: params.get("g"),
            mem_step: params.get("mem_step"),
            transfer: params.get("transfer"),
        }
    }

    pub(super) fn name(&self) -> &'static str {
        if self.improved {
            INFO_GI.name
        } else {
            INFO.name
        }
    }

    /// The concave `g(x) = x^p`.
    #[inline]
    pub(super) fn g(&self, x: f64) -> f64 {
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
pub(super) struct Cand {
    /// Submodular-G: the gain `Δ`; GI: `(f(S) + Δ) * pf`.
    pub(super) value: f64,
    pub(super) dev: DevIx,
    /// The benefit `b` that `B_dev` gains (G: with pf; GI: without).
    pub(super) b: f64,
    /// Charged time `c + w*T`.
    pub(super) x: f64,
    /// Lowest node of the unit.
    pub(super) node: NodeIx,
    pub(super) unit: u32,
}

pub(super) fn cmp_f(a: f64, b: f64) -> Ordering {
    a.partial_cmp(&b).unwrap_or(Ordering::Equal)
}

/// `Greater` when `a` goes before `b`: larger value, lower device, larger benefit, smaller
/// charged time, lower node.
pub(super) fn order(a: &Cand, b: &Cand) -> Ordering {
    cmp_f(a.value, b.value)
        .then(b.dev.cmp(&a.dev))
        .then(cmp_f(a.b, b.b))
        .then(cmp_f(b.x, a.x))
        .then(b.node.cmp(&a.node))
}

/// What does not change while placing.
pub(super) struct Model<'p, 'a> {
    pub(super) problem: &'p Problem<'a>,
    pub(super) cfg: Config,
    pub(super) units: Groups,
    pub(super) k: usize,
    /// `c` of each unit on each device (`unit * k + dev`); infinite where not allowed.
    pub(super) cost: Vec<f64>,
    /// Bytes of memory at which `g` steps to zero, per device (infinite when off).
    mem_limit: Vec<f64>,
}

/// The greedy's set `S`, as the quantities `f` needs.
pub(super) struct State {
    /// Device of each node (`NONE` while unplaced).
    pub(super) dev: Vec<DevIx>,
    pub(super) unit_placed: Vec<bool>,
    /// `placed_i`: sum of `c` on each device.
    pub(super) placed: Vec<f64>,
    /// `B_i`: sum of the frozen benefits on each device.
    pub(super) benefit: Vec<f64>,
    loads: Loads,
}

impl<'p, 'a> Model<'p, 'a> {
    pub(super) fn new(problem: &'p Problem<'a>, cfg: Config) -> Model<'p, 'a> {
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

    pub(super) fn state(&self) -> State {
        State {
            dev: vec![NONE; self.problem.node_count()],
            unit_placed: vec![false; self.units.len()],
            placed: vec![0.0; self.k],
            benefit: vec![0.0; self.k],
            loads: Loads::new(self.problem),
        }
    }

    #[inline]
    pub(super) fn cost(&self, u: u32, i: DevIx) -> f64 {
        self.cost[u as usize * self.k + i as usize]
    }

    /// Whether device `i` may take unit `u` now: allowed, memory left, time capacity left.
    /// Once false it stays false (memory and placed time only grow).
    pub(super) fn feasible(&self, st: &State, u: u32, i: DevIx) -> bool {
        let c = self.cost(u, i);
        c.is_finite()
            && st.loads.fits(i, self.units.footprint[u as usize])
            && st.placed[i as usize] + c <= self.cfg.cap
    }

    /// Whether `g` has stepped to zero for `u` on `i` (memory-aware g). Once true, stays.
    pub(super) fn stepped(&self, st: &State, u: u32, i: DevIx) -> bool {
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
    pub(super) fn charged(&self, st: &State, u: u32, i: DevIx) -> f64 {
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
    pub(super) fn score(
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
    pub(super) fn values(&self, st: &State) -> (Vec<f64>, f64) {
        let gb: Vec<f64> = st.benefit.iter().map(|&b| self.cfg.g(b)).collect();
        let phi = gb.iter().sum();
        (gb, phi)
    }

    /// Adds the element: freezes its benefit into `B_i`.
    pub(super) fn add(&self, st: &mut State, c: &Cand) {
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
    pub(super) fn stuck(&self, st: &State, u: u32) -> Error {
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
pub(super) fn parallel_classes(problem: &Problem) -> (Vec<u32>, usize) {
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
