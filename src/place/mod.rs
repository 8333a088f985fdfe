//! Placement strategies: which device runs each op.
//!
//! A placer is one file implementing [`Placer`]; [`PLACERS`] is the registry the CLI, the
//! scenario runner and the page list from. Every placer must return a placement that
//! honours device rules, colocation groups and memory capacity (as static
//! [`Problem::footprint`]s), or an error naming the constraint it could not meet;
//! [`verify`] checks exactly that, and the scenario runner calls it on every placement.
//!
//! Shared helpers for placers live here: [`Groups`] (colocation groups as placement units,
//! from the model, which the optimiser shares),
//! [`Loads`] (memory and compute already assigned to each device), `assign` (a unit onto a
//! device) and `best_device` (the feasible device with the least key).

use crate::error::{Error, Result};
use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;
use crate::params::{ParamSpec, Params};
use crate::plan::Plan;
use crate::rng::Rng;

pub mod batch_split;
pub mod context;
pub mod critical_path;
pub mod dfs;
mod etf;
pub mod expert;
mod fill;
pub mod hash;
pub mod heft;
pub mod m_etf;
pub mod m_sct;
pub mod m_topo;
pub mod mite;
pub mod pesto;
pub mod pinned;
mod scores;
pub mod single;
pub mod submodular;
pub mod tf_greedy;

pub use crate::model::groups::Groups;
pub(crate) use crate::model::groups::UNPLACED;
pub use crate::plan::{verify, Placement};
pub use context::PlaceContext;

/// A placement strategy.
pub trait Placer {
    /// Places every node of `problem`. All randomness comes from `rng`.
    fn place(&self, problem: &Problem, params: &Params, rng: &mut Rng) -> Result<Placement>;

    /// Places and, for a joint strategy, plans the order too ([`Plan`]). Placers that only
    /// place keep the provided method. A placer that runs long reports progress through
    /// `ctx` and returns its error when the user cancels.
    fn plan(&self, problem: &Problem, params: &Params, ctx: &mut PlaceContext) -> Result<Plan> {
        self.place(problem, params, &mut ctx.rng)
            .map(Plan::placement)
    }
}

/// A registered placer: its name, where it comes from, its parameters, a constructor.
pub struct PlacerInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub params: &'static [ParamSpec],
    /// Whether [`Placer::plan`] returns an order (the `given` policies replay it).
    pub plans: bool,
    pub make: fn() -> Box<dyn Placer>,
}

/// Every placer, in the order tables list them.
pub static PLACERS: &[PlacerInfo] = &[
    single::INFO,
    hash::INFO,
    batch_split::INFO,
    critical_path::INFO,
    mite::INFO,
    dfs::INFO,
    heft::INFO,
    tf_greedy::INFO,
    submodular::INFO,
    submodular::INFO_GI,
    m_topo::INFO,
    m_etf::INFO,
    m_sct::INFO,
    expert::INFO,
    pesto::INFO,
    pinned::INFO,
];

/// Placers a scenario runs only when it names them: searches that take seconds where the
/// others take milliseconds (`pesto`), `m-sct` (its LP takes seconds on graphs of
/// thousands of ops, and adding it to the defaults would change every golden), and `pinned`, which only follows a graph's pins and
/// fails on a graph that does not pin every op.
pub const OPT_IN: &[&str] = &["pesto", "m-sct", "pinned"];

/// The placers a scenario runs when it names none: every placer not [`OPT_IN`].
pub fn default_placers() -> Vec<String> {
    PLACERS
        .iter()
        .filter(|p| !OPT_IN.contains(&p.name))
        .map(|p| p.name.to_string())
        .collect()
}

/// Looks up a placer by name.
pub fn placer(name: &str) -> Result<&'static PlacerInfo> {
    crate::params::lookup("placer", name, PLACERS, |s| s.name)
}

/// The accelerators: the devices of kind `gpu` in index order, or every device when the
/// cluster has none. Pesto21's Expert splits a model over them (§5.2), and Baechi places over
/// them only: its driver hands its placers the session's GPUs (Jeon et al., SoCC'20, §4; in
/// its code `train.py` lists the devices whose type is GPU), leaving the CPU the ops only it
/// may run.
pub(crate) fn gpus(problem: &Problem) -> Vec<DevIx> {
    let devices = &problem.cluster.devices;
    let gpus: Vec<DevIx> = (0..devices.len() as DevIx)
        .filter(|&d| devices[d as usize].kind == "gpu")
        .collect();
    if gpus.is_empty() {
        (0..devices.len() as DevIx).collect()
    } else {
        gpus
    }
}

/// The devices Baechi's placers (`m-topo`, `m-etf`, `m-sct`) use per unit: the accelerators
/// ([`gpus`]) it may run on, or, for a unit that may run on none of them (a CPU-only op),
/// every device it may run on.
#[derive(Debug, Clone)]
pub(crate) struct Accelerators {
    /// Whether each device is an accelerator.
    on: Vec<bool>,
    /// Whether each unit may run on some accelerator.
    reaches: Vec<bool>,
}

impl Accelerators {
    pub fn new(problem: &Problem, units: &Groups) -> Accelerators {
        let mut on = vec![false; problem.device_count()];
        for d in gpus(problem) {
            on[d as usize] = true;
        }
        let reaches = (0..units.len() as u32)
            .map(|u| (0..on.len() as DevIx).any(|d| on[d as usize] && units.allowed(problem, u, d)))
            .collect();
        Accelerators { on, reaches }
    }

    /// Whether `unit` may use `d` (before its own rules and memory, which `Loads::feasible`
    /// checks).
    pub fn usable(&self, unit: u32, d: DevIx) -> bool {
        self.on[d as usize] || !self.reaches[unit as usize]
    }
}

/// Memory and compute assigned to each device so far, for placers that fill devices.
#[derive(Debug, Clone)]
pub struct Loads {
    /// Footprint bytes assigned per device.
    pub memory: Vec<f64>,
    /// Sum of run times of the ops assigned per device.
    pub busy: Vec<f64>,
    capacity: Vec<f64>,
}

impl Loads {
    pub fn new(problem: &Problem) -> Loads {
        let k = problem.device_count();
        Loads {
            memory: vec![0.0; k],
            busy: vec![0.0; k],
            capacity: problem.cluster.devices.iter().map(|d| d.memory).collect(),
        }
    }

    /// Whether `bytes` more fit on `d`.
    pub fn fits(&self, d: DevIx, bytes: f64) -> bool {
        self.memory[d as usize] + bytes <= self.capacity[d as usize]
    }

    /// Memory left on `d`.
    pub fn free(&self, d: DevIx) -> f64 {
        self.capacity[d as usize] - self.memory[d as usize]
    }

    /// Fraction of `d`'s memory in use (0 for unlimited devices).
    pub fn utilization(&self, d: DevIx) -> f64 {
        let c = self.capacity[d as usize];
        if c.is_finite() && c > 0.0 {
            self.memory[d as usize] / c
        } else {
            0.0
        }
    }

    /// Records node `v` on `d`.
    pub fn add(&mut self, problem: &Problem, v: NodeIx, d: DevIx) {
        self.memory[d as usize] += problem.footprint[v as usize];
        self.busy[d as usize] += problem.exec(v, d);
    }

    /// Whether a whole unit may go to `d`: allowed there and fits in memory.
    pub fn feasible(&self, problem: &Problem, units: &Groups, unit: u32, d: DevIx) -> bool {
        units.allowed(problem, unit, d) && self.fits(d, units.footprint[unit as usize])
    }
}

/// Slowest run time of `v` over the devices it may use (0 when it may use none).
pub(crate) fn slowest_exec(problem: &Problem, v: NodeIx) -> f64 {
    problem
        .exec_row(v)
        .iter()
        .copied()
        .filter(|t| t.is_finite())
        .fold(0.0, f64::max)
}

/// Records every member of `unit` on `d`: its placement and its load.
pub(crate) fn assign(
    problem: &Problem,
    units: &Groups,
    loads: &mut Loads,
    placement: &mut [DevIx],
    unit: u32,
    d: DevIx,
) {
    for &v in &units.members[unit as usize] {
        placement[v as usize] = d;
        loads.add(problem, v, d);
    }
}

/// The device with the least `key(d)` among those `unit` may go to ([`Loads::feasible`]:
/// allowed there, memory left); ties go to the lower index. `None` when no device may
/// take the unit. A tuple key compares field by field, so its later fields break ties.
pub(crate) fn best_device<K: PartialOrd>(
    problem: &Problem,
    units: &Groups,
    loads: &Loads,
    unit: u32,
    mut key: impl FnMut(DevIx) -> K,
) -> Option<DevIx> {
    let mut best: Option<(K, DevIx)> = None;
    for d in 0..problem.device_count() as DevIx {
        if !loads.feasible(problem, units, unit, d) {
            continue;
        }
        let k = key(d);
        if best.as_ref().is_none_or(|(b, _)| k < *b) {
            best = Some((k, d));
        }
    }
    best.map(|(_, d)| d)
}

/// The error a placer returns when no device can take a unit.
pub fn no_device_error(placer: &str, problem: &Problem, units: &Groups, unit: u32) -> Error {
    let g = problem.graph;
    let first = units.members[unit as usize][0];
    let node = &g.nodes[first as usize];
    let what = match node.group {
        Some(grp) => format!(
            "colocation group '{}' ({} nodes, {} bytes)",
            g.groups[grp as usize],
            units.members[unit as usize].len(),
            units.footprint[unit as usize]
        ),
        None => format!(
            "node '{}' ({} bytes)",
            node.id, units.footprint[unit as usize]
        ),
    };
    Error::placement(
        placer,
        format!("no device it may use has memory left for {what}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{cluster, parse};

    /// Node a (mem 5) on four devices; d1 has 4 bytes of memory, so it is not feasible.
    /// Keys by device: d0 2, d1 1 (infeasible), d2 2, d3 3.
    /// - `key` alone: d0 and d2 tie at 2 -> the lower index, d0.
    /// - `(key, second)` with second d0 7, d2 6: the tie breaks on the second field -> d2.
    /// - `assign` records the unit's members and their loads.
    #[test]
    fn best_device_skips_infeasible_and_breaks_ties() {
        let (g, c) = parse(
            r#"{"nodes":[{"id":"a","cost":1,"mem":5}]}"#,
            r#"{"devices":[{"id":"d0","speed":1},{"id":"d1","speed":1,"memory":4},
                           {"id":"d2","speed":2},{"id":"d3","speed":1}],"bandwidth":1}"#,
        );
        let p = Problem::new(&g, &c).unwrap();
        let units = Groups::new(&p);
        let mut loads = Loads::new(&p);
        let key = [2.0, 1.0, 2.0, 3.0];
        let second = [7.0, 0.0, 6.0, 0.0];
        let by_key = best_device(&p, &units, &loads, 0, |d| key[d as usize]);
        assert_eq!(by_key, Some(0));
        let by_pair = best_device(&p, &units, &loads, 0, |d| {
            (key[d as usize], second[d as usize])
        });
        assert_eq!(by_pair, Some(2));
        let mut placement = vec![UNPLACED; 1];
        assign(&p, &units, &mut loads, &mut placement, 0, 2);
        assert_eq!(placement, vec![2]);
        assert_eq!((loads.memory[2], loads.busy[2]), (5.0, 0.5));
        // No device with room: None.
        let none = cluster(r#"{"devices":[{"id":"d0","speed":1,"memory":1}],"bandwidth":1}"#);
        let p = Problem::new(&g, &none).unwrap();
        let loads = Loads::new(&p);
        assert_eq!(best_device(&p, &units, &loads, 0, |_| 0.0), None);
    }
}
