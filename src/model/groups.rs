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
    pub members: Members,
    /// Sum of the members' footprints.
    pub footprint: Vec<f64>,
}

/// Each unit's members, ascending, in one flat list: `members[u]` is unit `u`'s slice.
/// (Built by every placer; a `Vec` per unit was one allocation per ungrouped node.)
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Members {
    /// Unit `u`'s members are `list[start[u]..start[u + 1]]`.
    start: Vec<u32>,
    list: Vec<NodeIx>,
}

impl Members {
    /// Number of units.
    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Each unit's members, in unit order.
    pub fn iter(&self) -> MembersIter<'_> {
        MembersIter {
            members: self,
            unit: 0,
        }
    }
}

/// [`Members::iter`]: each unit's members, in unit order.
#[derive(Debug, Clone)]
pub struct MembersIter<'a> {
    members: &'a Members,
    unit: usize,
}

impl<'a> Iterator for MembersIter<'a> {
    type Item = &'a [NodeIx];

    fn next(&mut self) -> Option<&'a [NodeIx]> {
        let m = self.members;
        if self.unit >= m.len() {
            return None;
        }
        self.unit += 1;
        Some(&m[self.unit - 1])
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.members.len() - self.unit;
        (left, Some(left))
    }
}

impl ExactSizeIterator for MembersIter<'_> {}

impl std::ops::Index<usize> for Members {
    type Output = [NodeIx];

    fn index(&self, u: usize) -> &[NodeIx] {
        &self.list[self.start[u] as usize..self.start[u + 1] as usize]
    }
}

impl<'a> IntoIterator for &'a Members {
    type Item = &'a [NodeIx];
    type IntoIter = MembersIter<'a>;

    fn into_iter(self) -> MembersIter<'a> {
        self.iter()
    }
}

impl PartialEq<Vec<Vec<NodeIx>>> for Members {
    fn eq(&self, other: &Vec<Vec<NodeIx>>) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a == b.as_slice())
    }
}

impl Groups {
    pub fn new(problem: &Problem) -> Groups {
        let g = problem.graph;
        let n = g.node_count();
        let groups = g.group_members.len();
        let ungrouped = g.nodes.iter().filter(|node| node.group.is_none()).count();
        let mut start: Vec<u32> = Vec::with_capacity(groups + ungrouped + 1);
        let mut list: Vec<NodeIx> = Vec::with_capacity(n);
        let mut of = vec![0u32; n];
        start.push(0);
        for (unit, ms) in g.group_members.iter().enumerate() {
            for &v in ms {
                of[v as usize] = unit as u32;
            }
            list.extend_from_slice(ms);
            start.push(list.len() as u32);
        }
        for (v, node) in g.nodes.iter().enumerate() {
            if node.group.is_none() {
                of[v] = (start.len() - 1) as u32;
                list.push(v as NodeIx);
                start.push(list.len() as u32);
            }
        }
        let members = Members { start, list };
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{cluster, graph};

    /// Units are the groups (members ascending, in group order), then each ungrouped node
    /// in index order; the flat list answers as a list per unit would.
    #[test]
    fn units_are_groups_then_ungrouped_nodes() {
        let g = graph(
            r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":1,"colocate":"y"},
            {"id":"c","cost":1,"colocate":"x","mem":2},{"id":"d","cost":1},
            {"id":"e","cost":1,"colocate":"y"},{"id":"f","cost":1,"colocate":"x","mem":3}]}"#,
        );
        let c =
            cluster(r#"{"devices":[{"id":"d0","speed":1},{"id":"d1","speed":1}],"bandwidth":1}"#);
        let p = Problem::new(&g, &c).unwrap();
        let units = Groups::new(&p);
        let expected: Vec<Vec<NodeIx>> = vec![vec![2, 5], vec![1, 4], vec![0], vec![3]];
        assert_eq!(units.members, expected);
        assert_eq!(units.len(), 4);
        assert_eq!(units.members.iter().len(), 4);
        let listed: Vec<&[NodeIx]> = (&units.members).into_iter().collect();
        for (u, ms) in expected.iter().enumerate() {
            assert_eq!(&units.members[u], ms.as_slice());
            assert_eq!(listed[u], ms.as_slice());
            for &v in ms {
                assert_eq!(units.of[v as usize], u as u32);
            }
        }
        assert_eq!(units.footprint[0], p.footprint[2] + p.footprint[5]);
        assert_ne!(units.members, vec![vec![2, 5], vec![1, 4], vec![0]]);
    }
}
