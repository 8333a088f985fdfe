//! Colocation groups as placement units, which placers (`place/`) and the optimiser
//! (`optim/`) share: a unit's members always go to one device (Pesto21 §3.2.2, "we set
//! x_i1 = ... = x_ik"). Not a placement strategy: it only groups the problem's nodes.

use crate::model::cluster::DevIx;
use crate::model::graph::NodeIx;
use crate::model::problem::Problem;

/// Colocation groups as placement units: a grouped node's unit is its group, an
/// ungrouped node is a unit of its own. Units are numbered groups first, then the
/// ungrouped nodes in index order.
#[derive(Debug, Clone)]
pub struct Groups {
    /// Unit of each node.
    pub of: Vec<u32>,
    /// Members of each unit, ascending.
    pub members: Vec<Vec<NodeIx>>,
    /// Sum of the members' footprints.
    pub footprint: Vec<f64>,
}

impl Groups {
    pub fn new(problem: &Problem) -> Groups {
        let g = problem.graph;
        let mut members: Vec<Vec<NodeIx>> = g.group_members.clone();
        let mut of = vec![0u32; g.node_count()];
        for (unit, ms) in members.iter().enumerate() {
            for &v in ms {
                of[v as usize] = unit as u32;
            }
        }
        for (v, node) in g.nodes.iter().enumerate() {
            if node.group.is_none() {
                of[v] = members.len() as u32;
                members.push(vec![v as NodeIx]);
            }
        }
        let footprint = members
            .iter()
            .map(|ms| ms.iter().map(|&v| problem.footprint[v as usize]).sum())
            .collect();
        Groups {
            of,
            members,
            footprint,
        }
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Whether every member of `unit` may run on `d` (the problem already narrowed each
    /// member to the devices its whole group allows).
    pub fn allowed(&self, problem: &Problem, unit: u32, d: DevIx) -> bool {
        problem.allowed(self.members[unit as usize][0], d)
    }
}

/// Marks a node that has no device yet.
pub const UNPLACED: DevIx = DevIx::MAX;
