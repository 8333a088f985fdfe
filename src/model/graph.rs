//! The dataflow graph: loading, validation, and a compact index-based form.
//!
//! A [`Graph`] is read once from graph JSON v1 (see `docs/format.md`), validated in full,
//! and never changes afterwards. Nodes and edges are addressed by dense `u32` indices;
//! adjacency is stored in CSR form (one offsets array and one edge-index array per
//! direction) so the hot loops of the simulator and the strategies touch flat memory.
//! Edges that share a source and a `tensor` name form one [`Tensor`], which is sent once
//! to every other device that consumes it.
//!
//! Not here: anything about devices (see `cluster`) or costs on devices (see `problem`).

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::error::{parse_json, Error, Result};
use crate::model::{show, MAX_AMOUNT};

pub type NodeIx = u32;
pub type EdgeIx = u32;
pub type TensorIx = u32;

/// One operation of the graph.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub id: String,
    /// Op type (`Conv2D`, ...); empty when the file gives none.
    pub op: String,
    /// Work of the op; `None` when `time` covers the device kinds instead.
    pub cost: Option<f64>,
    /// Run time per device kind, sorted by kind.
    pub time: Vec<(String, f64)>,
    /// Bytes resident on the op's device for the whole step.
    pub mem: f64,
    /// Index into [`Graph::groups`] when the node has a `colocate` group.
    pub group: Option<u32>,
    /// A device kind or device id the node must run on.
    pub device: Option<String>,
    pub layer: Option<i64>,
}

/// A data (or control, when `bytes == 0`) dependency.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Edge {
    pub src: NodeIx,
    pub dst: NodeIx,
    pub bytes: f64,
    pub tensor: TensorIx,
}

/// One output of an op: the unit that is transferred and held in memory.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    pub src: NodeIx,
    /// The largest `bytes` among the edges that carry it.
    pub bytes: f64,
    /// Edges that carry this tensor, in file order.
    pub edges: Vec<EdgeIx>,
}

/// A validated, immutable DAG.
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    pub name: String,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    pub tensors: Vec<Tensor>,
    /// Colocation group names, indexed by [`Node::group`], sorted by name.
    pub groups: Vec<String>,
    /// Members of each group, ascending.
    pub group_members: Vec<Vec<NodeIx>>,
    /// Distinct op types, sorted; [`Graph::op_type`] indexes it.
    pub op_types: Vec<String>,
    op_type_of: Vec<u32>,
    out_start: Vec<u32>,
    out_edges: Vec<EdgeIx>,
    in_start: Vec<u32>,
    in_edges: Vec<EdgeIx>,
    tensor_start: Vec<u32>,
    tensor_list: Vec<TensorIx>,
    topo: Vec<NodeIx>,
    /// Node ids to indices: only looked up, never iterated (a hash map: a graph's ids
    /// often share long prefixes, which a sorted map compares again at every level).
    index: HashMap<String, NodeIx>,
}

#[derive(Deserialize, Serialize)]
struct RawGraph {
    #[serde(default)]
    name: Option<String>,
    nodes: Vec<RawNode>,
    #[serde(default)]
    edges: Vec<RawEdge>,
}

#[derive(Deserialize, Serialize)]
pub(crate) struct RawNode {
    id: String,
    #[serde(default)]
    op: Option<String>,
    #[serde(default)]
    cost: Option<f64>,
    #[serde(default)]
    time: Option<BTreeMap<String, f64>>,
    #[serde(default)]
    mem: Option<f64>,
    #[serde(default)]
    colocate: Option<String>,
    #[serde(default)]
    device: Option<String>,
    #[serde(default)]
    layer: Option<i64>,
}

#[derive(Deserialize, Serialize)]
pub(crate) struct RawEdge {
    src: String,
    dst: String,
    #[serde(default)]
    bytes: Option<f64>,
    #[serde(default)]
    tensor: Option<String>,
}

/// Checks that a number is finite, not negative and at most [`MAX_AMOUNT`]; names the field
/// on failure.
pub(crate) fn check_amount(value: f64, what: impl FnOnce() -> String) -> Result<f64> {
    if value.is_finite() && (0.0..=MAX_AMOUNT).contains(&value) {
        Ok(value)
    } else {
        Err(Error::Graph(format!(
            "{} must be a finite number >= 0 (at most {MAX_AMOUNT:e}), got {}",
            what(),
            show(value)
        )))
    }
}

/// A node to add with a [`GraphBuilder`]: the fields of a graph file's node.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeSpec {
    pub id: String,
    pub op: String,
    pub cost: Option<f64>,
    pub time: Vec<(String, f64)>,
    pub mem: f64,
    pub colocate: Option<String>,
    pub device: Option<String>,
    pub layer: Option<i64>,
}

impl NodeSpec {
    /// Node `v` of `graph` as a spec (its colocation group by name), to copy it.
    pub fn of(graph: &Graph, v: NodeIx) -> NodeSpec {
        let n = &graph.nodes[v as usize];
        NodeSpec {
            id: n.id.clone(),
            op: n.op.clone(),
            cost: n.cost,
            time: n.time.clone(),
            mem: n.mem,
            colocate: n.group.map(|g| graph.groups[g as usize].clone()),
            device: n.device.clone(),
            layer: n.layer,
        }
    }
}

/// Builds a [`Graph`] in code (transforms, importers, tests). [`GraphBuilder::build`]
/// validates exactly as loading a file does, so a built graph keeps every guarantee of a
/// loaded one and an error names the node or edge (by its index in the order added).
#[derive(Default)]
pub struct GraphBuilder {
    nodes: Vec<RawNode>,
    edges: Vec<RawEdge>,
}

impl GraphBuilder {
    pub fn new() -> GraphBuilder {
        GraphBuilder::default()
    }

    pub fn node(&mut self, n: NodeSpec) -> &mut Self {
        self.nodes.push(RawNode {
            id: n.id,
            op: (!n.op.is_empty()).then_some(n.op),
            cost: n.cost,
            time: (!n.time.is_empty()).then(|| n.time.into_iter().collect()),
            mem: Some(n.mem),
            colocate: n.colocate,
            device: n.device,
            layer: n.layer,
        });
        self
    }

    /// An edge between node ids; edges of one source with the same `tensor` name carry one
    /// tensor.
    pub fn edge(&mut self, src: &str, dst: &str, bytes: f64, tensor: Option<&str>) -> &mut Self {
        self.edges.push(RawEdge {
            src: src.to_string(),
            dst: dst.to_string(),
            bytes: Some(bytes),
            tensor: tensor.map(str::to_string),
        });
        self
    }

    pub fn build(self, name: &str) -> Result<Graph> {
        Graph::from_raw(
            RawGraph {
                name: Some(name.to_string()),
                nodes: self.nodes,
                edges: self.edges,
            },
            name,
        )
    }
}

impl Graph {
    /// Parses and validates graph JSON. `fallback_name` is used when the file has no `name`.
    pub fn from_json(text: &str, fallback_name: &str) -> Result<Graph> {
        let raw: RawGraph = parse_json("graph", text)?;
        Graph::from_raw(raw, fallback_name)
    }

    fn from_raw(raw: RawGraph, fallback_name: &str) -> Result<Graph> {
        if raw.nodes.is_empty() {
            return Err(Error::Graph("the graph has no nodes".into()));
        }
        let mut index = HashMap::with_capacity(raw.nodes.len());
        let mut group_index: BTreeMap<String, u32> = BTreeMap::new();
        let mut op_index: BTreeMap<String, u32> = BTreeMap::new();
        for (i, n) in raw.nodes.iter().enumerate() {
            if n.id.is_empty() {
                return Err(Error::Graph(format!("nodes[{i}].id is empty")));
            }
            if index.insert(n.id.clone(), i as NodeIx).is_some() {
                return Err(Error::Graph(format!(
                    "duplicate node id '{}' (nodes[{i}])",
                    n.id
                )));
            }
            if let Some(g) = &n.colocate {
                if !group_index.contains_key(g) {
                    group_index.insert(g.clone(), 0);
                }
            }
            let op = n.op.as_deref().unwrap_or_default();
            if !op_index.contains_key(op) {
                op_index.insert(op.to_string(), 0);
            }
        }
        for (i, v) in group_index.values_mut().enumerate() {
            *v = i as u32;
        }
        for (i, v) in op_index.values_mut().enumerate() {
            *v = i as u32;
        }

        let mut nodes = Vec::with_capacity(raw.nodes.len());
        let mut op_type_of = Vec::with_capacity(raw.nodes.len());
        for n in raw.nodes {
            let id = n.id;
            let cost = match n.cost {
                Some(c) => Some(check_amount(c, || format!("node '{id}': cost"))?),
                None => None,
            };
            let mut time = Vec::new();
            for (kind, t) in n.time.unwrap_or_default() {
                check_amount(t, || format!("node '{id}': time.{kind}"))?;
                time.push((kind, t));
            }
            if cost.is_none() && time.is_empty() {
                return Err(Error::Graph(format!(
                    "node '{id}' has neither a cost nor a time table"
                )));
            }
            let mem = check_amount(n.mem.unwrap_or(0.0), || format!("node '{id}': mem"))?;
            let op = n.op.unwrap_or_default();
            op_type_of.push(op_index[&op]);
            nodes.push(Node {
                group: n.colocate.as_ref().map(|g| group_index[g]),
                id,
                op,
                cost,
                time,
                mem,
                device: n.device.filter(|d| !d.is_empty()),
                layer: n.layer,
            });
        }

        let mut edges = Vec::with_capacity(raw.edges.len());
        let mut tensors: Vec<Tensor> = Vec::new();
        let mut named: BTreeMap<(NodeIx, String), TensorIx> = BTreeMap::new();
        for (i, e) in raw.edges.into_iter().enumerate() {
            let lookup = |end: &str, id: &str| {
                index.get(id).copied().ok_or_else(|| {
                    Error::Graph(format!("edges[{i}].{end} names unknown node '{id}'"))
                })
            };
            let src = lookup("src", &e.src)?;
            let dst = lookup("dst", &e.dst)?;
            if src == dst {
                return Err(Error::Graph(format!(
                    "edges[{i}] is a self-loop on node '{}' (the graph must be acyclic)",
                    e.src
                )));
            }
            let bytes = check_amount(e.bytes.unwrap_or(0.0), || format!("edges[{i}].bytes"))?;
            let tensor = match e.tensor {
                Some(name) => *named.entry((src, name)).or_insert_with(|| {
                    tensors.push(Tensor {
                        src,
                        bytes: 0.0,
                        edges: Vec::new(),
                    });
                    (tensors.len() - 1) as TensorIx
                }),
                None => {
                    tensors.push(Tensor {
                        src,
                        bytes: 0.0,
                        edges: Vec::new(),
                    });
                    (tensors.len() - 1) as TensorIx
                }
            };
            let t = &mut tensors[tensor as usize];
            t.bytes = t.bytes.max(bytes);
            t.edges.push(i as EdgeIx);
            edges.push(Edge {
                src,
                dst,
                bytes,
                tensor,
            });
        }

        let n = nodes.len();
        let (out_start, out_edges) = csr(n, &edges, |e| e.src);
        let (in_start, in_edges) = csr(n, &edges, |e| e.dst);
        let mut tensor_start = vec![0u32; n + 1];
        for t in &tensors {
            tensor_start[t.src as usize + 1] += 1;
        }
        for i in 0..n {
            tensor_start[i + 1] += tensor_start[i];
        }
        let mut fill = tensor_start.clone();
        let mut tensor_list = vec![0; tensors.len()];
        for (i, t) in tensors.iter().enumerate() {
            tensor_list[fill[t.src as usize] as usize] = i as TensorIx;
            fill[t.src as usize] += 1;
        }
        let topo = topological_order(&nodes, &edges, &out_start, &out_edges, &in_start)?;

        let mut group_members = vec![Vec::new(); group_index.len()];
        for (v, node) in nodes.iter().enumerate() {
            if let Some(g) = node.group {
                group_members[g as usize].push(v as NodeIx);
            }
        }

        Ok(Graph {
            name: raw.name.unwrap_or_else(|| fallback_name.to_string()),
            nodes,
            edges,
            tensors,
            groups: group_index.into_keys().collect(),
            group_members,
            op_types: op_index.into_keys().collect(),
            op_type_of,
            out_start,
            out_edges,
            in_start,
            in_edges,
            tensor_start,
            tensor_list,
            topo,
            index,
        })
    }

    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    /// Index of the node with this id.
    pub fn node_index(&self, id: &str) -> Option<NodeIx> {
        self.index.get(id).copied()
    }

    /// Index into [`Graph::op_types`] of a node's op type.
    pub fn op_type(&self, v: NodeIx) -> u32 {
        self.op_type_of[v as usize]
    }

    /// The graph as a petgraph `DiGraph` whose node and edge indices are this graph's
    /// (for petgraph's traversals and algorithms in transforms).
    pub fn to_petgraph(&self) -> petgraph::graph::DiGraph<(), EdgeIx, u32> {
        let mut pg = petgraph::graph::DiGraph::with_capacity(self.nodes.len(), self.edges.len());
        for _ in &self.nodes {
            pg.add_node(());
        }
        for (i, e) in self.edges.iter().enumerate() {
            pg.add_edge(e.src.into(), e.dst.into(), i as EdgeIx);
        }
        pg
    }

    /// Edges leaving `v`, in file order.
    pub fn out_edges(&self, v: NodeIx) -> &[EdgeIx] {
        let v = v as usize;
        &self.out_edges[self.out_start[v] as usize..self.out_start[v + 1] as usize]
    }

    /// Edges entering `v`, in file order.
    pub fn in_edges(&self, v: NodeIx) -> &[EdgeIx] {
        let v = v as usize;
        &self.in_edges[self.in_start[v] as usize..self.in_start[v + 1] as usize]
    }

    /// Tensors produced by `v`.
    pub fn out_tensors(&self, v: NodeIx) -> &[TensorIx] {
        let v = v as usize;
        &self.tensor_list[self.tensor_start[v] as usize..self.tensor_start[v + 1] as usize]
    }

    pub fn successors(&self, v: NodeIx) -> impl Iterator<Item = NodeIx> + '_ {
        self.out_edges(v)
            .iter()
            .map(|&e| self.edges[e as usize].dst)
    }

    pub fn predecessors(&self, v: NodeIx) -> impl Iterator<Item = NodeIx> + '_ {
        self.in_edges(v).iter().map(|&e| self.edges[e as usize].src)
    }

    /// A topological order (sources first); deterministic for a given file.
    pub fn topo_order(&self) -> &[NodeIx] {
        &self.topo
    }

    /// Serializes back to graph JSON v1 (used to embed an uploaded graph in a link).
    pub fn to_json(&self) -> String {
        let nodes = self
            .nodes
            .iter()
            .map(|n| RawNode {
                id: n.id.clone(),
                op: (!n.op.is_empty()).then(|| n.op.clone()),
                cost: n.cost,
                time: (!n.time.is_empty()).then(|| n.time.iter().cloned().collect()),
                mem: (n.mem != 0.0).then_some(n.mem),
                colocate: n.group.map(|g| self.groups[g as usize].clone()),
                device: n.device.clone(),
                layer: n.layer,
            })
            .collect();
        let edges = self
            .edges
            .iter()
            .map(|e| {
                let t = &self.tensors[e.tensor as usize];
                RawEdge {
                    src: self.nodes[e.src as usize].id.clone(),
                    dst: self.nodes[e.dst as usize].id.clone(),
                    bytes: Some(e.bytes),
                    tensor: (t.edges.len() > 1).then(|| format!("t{}", e.tensor)),
                }
            })
            .collect();
        let raw = RawGraph {
            name: Some(self.name.clone()),
            nodes,
            edges,
        };
        serde_json::to_string(&raw).expect("graph serializes")
    }
}

/// Builds CSR adjacency: offsets per node and the edge indices grouped by `key(edge)`.
fn csr(n: usize, edges: &[Edge], key: impl Fn(&Edge) -> NodeIx) -> (Vec<u32>, Vec<EdgeIx>) {
    let mut start = vec![0u32; n + 1];
    for e in edges {
        start[key(e) as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut list = vec![0; edges.len()];
    for (i, e) in edges.iter().enumerate() {
        let k = key(e) as usize;
        list[fill[k] as usize] = i as EdgeIx;
        fill[k] += 1;
    }
    (start, list)
}

/// Kahn's algorithm with a FIFO of ready nodes (ties in file order). On a cycle, names a
/// node on it, found by walking predecessors among the nodes that never became ready.
fn topological_order(
    nodes: &[Node],
    edges: &[Edge],
    out_start: &[u32],
    out_edges: &[EdgeIx],
    in_start: &[u32],
) -> Result<Vec<NodeIx>> {
    let n = nodes.len();
    let mut indegree: Vec<u32> = (0..n).map(|v| in_start[v + 1] - in_start[v]).collect();
    let mut order: Vec<NodeIx> = (0..n as NodeIx)
        .filter(|&v| indegree[v as usize] == 0)
        .collect();
    let mut head = 0;
    while head < order.len() {
        let v = order[head] as usize;
        head += 1;
        for &e in &out_edges[out_start[v] as usize..out_start[v + 1] as usize] {
            let d = edges[e as usize].dst as usize;
            indegree[d] -= 1;
            if indegree[d] == 0 {
                order.push(d as NodeIx);
            }
        }
    }
    if order.len() == n {
        return Ok(order);
    }
    // Every unfinished node has an unfinished predecessor, so walking back n steps from
    // one of them must land on a cycle; the node reached is on it.
    let mut pred_of = vec![u32::MAX; n];
    for e in edges {
        if indegree[e.src as usize] > 0 && indegree[e.dst as usize] > 0 {
            pred_of[e.dst as usize] = e.src;
        }
    }
    let mut v = (0..n).find(|&v| indegree[v] > 0).unwrap_or(0);
    for _ in 0..n {
        if pred_of[v] == u32::MAX {
            break;
        }
        v = pred_of[v] as usize;
    }
    Err(Error::Graph(format!(
        "the graph has a cycle through node '{}'",
        nodes[v].id
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_and_indexes() {
        let g = Graph::from_json(
            r#"{"nodes":[{"id":"a","cost":1},{"id":"b","cost":2,"op":"MatMul"},{"id":"c","cost":3}],
                "edges":[{"src":"a","dst":"b","bytes":4,"tensor":"out"},{"src":"a","dst":"c","bytes":4,"tensor":"out"},{"src":"b","dst":"c"}]}"#,
            "g",
        )
        .unwrap();
        assert_eq!(g.node_count(), 3);
        assert_eq!(g.tensors.len(), 2, "a's two edges share one tensor");
        assert_eq!(g.topo_order(), &[0, 1, 2]);
        assert_eq!(g.successors(0).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(g.predecessors(2).collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(g.op_types, vec!["".to_string(), "MatMul".to_string()]);
    }

    fn err(text: &str) -> String {
        Graph::from_json(text, "g").unwrap_err().to_string()
    }

    #[test]
    fn bad_graphs_name_the_culprit() {
        assert!(err("{").contains("graph"));
        assert!(
            err(r#"{"nodes":[{"id":"a","cost":1},{"id":"a","cost":1}]}"#)
                .contains("duplicate node id 'a'")
        );
        assert!(
            err(r#"{"nodes":[{"id":"a","cost":1}],"edges":[{"src":"a","dst":"zz"}]}"#)
                .contains("edges[0].dst names unknown node 'zz'")
        );
        assert!(err(r#"{"nodes":[{"id":"a","cost":-1}]}"#).contains("node 'a': cost"));
        assert!(err(r#"{"nodes":[{"id":"a","cost":"x"}]}"#).contains("nodes[0].cost"));
        assert!(err(r#"{"nodes":[{"id":"a"}]}"#).contains("node 'a' has neither"));
        assert!(err(r#"{"nodes":[{"id":"a","cost":1e999}]}"#).contains("graph"));
        assert!(
            err(r#"{"nodes":[{"id":"a","cost":1}],"edges":[{"src":"a","dst":"a"}]}"#)
                .contains("self-loop")
        );
        assert!(err(r#"{"nodes":[]}"#).contains("no nodes"));
        // Past 1e30: two such costs in a chain summed to an infinite makespan.
        assert_eq!(
            err(r#"{"nodes":[{"id":"a","cost":1e308}]}"#),
            "graph: node 'a': cost must be a finite number >= 0 (at most 1e30), got 1e308"
        );
        assert!(err(r#"{"nodes":[{"id":"a","time":{"cpu":1e31}}]}"#).contains("node 'a': time.cpu"));
        assert!(err(r#"{"nodes":[{"id":"a","cost":1,"mem":1e31}]}"#).contains("node 'a': mem"));
        assert!(err(
            r#"{"nodes":[{"id":"a","cost":1}],"edges":[{"src":"a","dst":"a","bytes":-3}]}"#
        )
        .contains("edges[0]"));
        let cyc = err(
            r#"{"nodes":[{"id":"s","cost":1},{"id":"a","cost":1},{"id":"b","cost":1}],
                "edges":[{"src":"s","dst":"a"},{"src":"a","dst":"b"},{"src":"b","dst":"a"}]}"#,
        );
        assert!(
            cyc.contains("cycle through node 'a'") || cyc.contains("cycle through node 'b'"),
            "{cyc}"
        );
    }

    #[test]
    fn round_trips_through_json() {
        let text = r#"{"name":"x","nodes":[{"id":"a","cost":1,"mem":5,"colocate":"g"},{"id":"b","time":{"cpu":2},"colocate":"g","device":"cpu"}],
                "edges":[{"src":"a","dst":"b","bytes":4}]}"#;
        let g = Graph::from_json(text, "g").unwrap();
        let again = Graph::from_json(&g.to_json(), "g").unwrap();
        assert_eq!(g, again);
    }
}
