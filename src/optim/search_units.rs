//! What the anytime search moves (Pesto21 §3.3): placement units, each a coarse vertex of
//! §3.3's cycle-free coarsening (`transform::coarsen`, only when the graph has more ops than
//! the target) joined with others by colocation (§3.2.2, "we set x_i1 = ... = x_ik"); a
//! candidate, one device and one priority per unit, which expands to the full graph (each op
//! gets its unit's device and priority; ops of one priority run in topological order); and
//! the projection of a full plan (a warm start) onto units.
//!
//! What it is not: the search over candidates (`anneal`) or their scoring (`decoder`).

use crate::model::cluster::{exceeds, DevIx};
use crate::model::graph::NodeIx;
use crate::model::groups::Groups;
use crate::model::problem::Problem;
use crate::transform::coarsen::{coarsen, Coarse};

use super::capacity;

/// Placement units of the search: coarse vertices joined by colocation.
pub struct SearchUnits {
    /// Unit of each op.
    pub of: Vec<u32>,
    /// Members of each unit, ascending.
    pub members: Vec<Vec<NodeIx>>,
    /// Sum of the members' footprints.
    pub footprint: Vec<f64>,
    /// Devices every member may run on.
    pub allowed: Vec<Vec<DevIx>>,
    /// The coarse graph, when the graph was coarsened.
    pub coarse: Option<Coarse>,
}

impl SearchUnits {
    /// The units of `problem`, coarsened to about `target` vertices when it has more ops;
    /// `Err(v)` when the unit of op `v` has no device all its members may use.
    pub fn new(problem: &Problem, target: usize) -> Result<SearchUnits, NodeIx> {
        let n = problem.node_count();
        let (of, coarse) = if n > target {
            let c = coarsen(problem, target);
            let roots = c.units(problem);
            let mut dense = vec![u32::MAX; c.len()];
            let mut next = 0u32;
            let mut of = vec![0u32; n];
            for v in 0..n {
                let r = roots[c.of[v] as usize] as usize;
                if dense[r] == u32::MAX {
                    dense[r] = next;
                    next += 1;
                }
                of[v] = dense[r];
            }
            (of, Some(c))
        } else {
            (Groups::new(problem).of, None)
        };
        let count = of.iter().map(|&u| u as usize + 1).max().unwrap_or(0);
        let mut members = vec![Vec::new(); count];
        for (v, &u) in of.iter().enumerate() {
            members[u as usize].push(v as NodeIx);
        }
        let k = problem.device_count() as DevIx;
        let mut allowed = Vec::with_capacity(count);
        for ms in &members {
            let ds: Vec<DevIx> = (0..k)
                .filter(|&d| ms.iter().all(|&v| problem.allowed(v, d)))
                .collect();
            if ds.is_empty() {
                return Err(ms[0]);
            }
            allowed.push(ds);
        }
        let footprint = members
            .iter()
            .map(|ms| ms.iter().map(|&v| problem.footprint[v as usize]).sum())
            .collect();
        Ok(SearchUnits {
            of,
            members,
            footprint,
            allowed,
            coarse,
        })
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
}

/// A candidate: a device and a priority per unit.
#[derive(Clone)]
pub struct Candidate {
    pub device: Vec<DevIx>,
    pub priority: Vec<f64>,
}

impl Candidate {
    /// Each op gets its unit's device and priority.
    pub fn expand(&self, units: &SearchUnits, placement: &mut [DevIx], priority: &mut [f64]) {
        for (v, &u) in units.of.iter().enumerate() {
            placement[v] = self.device[u as usize];
            priority[v] = self.priority[u as usize];
        }
    }

    /// Priorities as ranks `0..U` (ties by unit index), so midpoints stay distinct.
    pub fn normalise(&mut self) {
        let mut idx: Vec<usize> = (0..self.priority.len()).collect();
        idx.sort_by(|&a, &b| {
            self.priority[a]
                .total_cmp(&self.priority[b])
                .then(a.cmp(&b))
        });
        for (r, &u) in idx.iter().enumerate() {
            self.priority[u] = r as f64;
        }
    }
}

/// Projects a full placement and priority onto units: the majority device among the members
/// that the unit may use, then memory repaired by moving the largest units of an over-full
/// device to the allowed device with the most memory left. `None` when repair fails.
pub fn project(
    problem: &Problem,
    units: &SearchUnits,
    placement: &[DevIx],
    priority: &[f64],
) -> Option<Candidate> {
    let k = problem.device_count();
    let cap = capacity(problem);
    let mut device = Vec::with_capacity(units.len());
    let mut prio = Vec::with_capacity(units.len());
    let mut load = vec![0.0; k];
    for (u, ms) in units.members.iter().enumerate() {
        let mut count = vec![0usize; k];
        for &v in ms {
            count[placement[v as usize] as usize] += 1;
        }
        let d = *units.allowed[u]
            .iter()
            .max_by(|&&a, &&b| count[a as usize].cmp(&count[b as usize]).then(b.cmp(&a)))?;
        device.push(d);
        load[d as usize] += units.footprint[u];
        prio.push(
            ms.iter()
                .map(|&v| priority[v as usize])
                .fold(f64::NEG_INFINITY, f64::max),
        );
    }
    for d in 0..k {
        if !exceeds(load[d], cap[d]) {
            continue;
        }
        let mut on: Vec<usize> = (0..units.len())
            .filter(|&u| device[u] as usize == d)
            .collect();
        on.sort_by(|&a, &b| {
            units.footprint[b]
                .total_cmp(&units.footprint[a])
                .then(a.cmp(&b))
        });
        for u in on {
            if !exceeds(load[d], cap[d]) {
                break;
            }
            let to = units.allowed[u]
                .iter()
                .copied()
                .filter(|&e| {
                    e as usize != d
                        && !exceeds(load[e as usize] + units.footprint[u], cap[e as usize])
                })
                .max_by(|&a, &b| {
                    (cap[a as usize] - load[a as usize])
                        .total_cmp(&(cap[b as usize] - load[b as usize]))
                        .then(b.cmp(&a))
                })?;
            load[d] -= units.footprint[u];
            load[to as usize] += units.footprint[u];
            device[u] = to;
        }
        if exceeds(load[d], cap[d]) {
            return None;
        }
    }
    let mut c = Candidate {
        device,
        priority: prio,
    };
    c.normalise();
    Some(c)
}
