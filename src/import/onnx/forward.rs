//! The forward graph of an ONNX import, built node by node in topological order ([`Forward`]):
//! each node sized (`infer`, `control`), its edges, the parameters it reads, its layer.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::graph::NodeSpec;

use super::control;
use super::infer::{self, elems, BatchChange, Info, Sized};
use super::layers::{layer_label, structural_layer, Place};
use super::lost::inputs_text;
use super::options::Dtype;
use super::proto;
use super::report::{Report, Unsized};
use super::tensors::{tensor_bytes, tensor_info};
use super::{EdgeSpec, Known, NAMES_SHOWN};

/// The forward graph as it is built: the node specs and edges, the layers, the parameters
/// each node claims, and what the report says of the nodes not sized.
pub(super) struct Forward<'a, 'g> {
    nodes: &'a [&'g proto::NodeProto],
    ids: &'a [String],
    producer: &'a BTreeMap<&'g str, usize>,
    pub specs: Vec<NodeSpec>,
    pub edges: Vec<EdgeSpec>,
    layers: BTreeMap<String, i64>,
    /// Names that carry no scope at all (`Conv_12`): layers from the structure instead.
    pub structural: bool,
    layer_of: Vec<Option<i64>>,
    constant: BTreeSet<&'g str>,
    claimed: BTreeSet<&'g str>,
    pub params: BTreeMap<String, f64>,
    unsized_ops: BTreeMap<String, Unsized>,
    /// Nodes not sized, with why and what their inputs were, in topological order.
    pub lost: Vec<(usize, Option<infer::Fail>, String)>,
    from_value_info: usize,
    /// (node id, external initializer) of ops not sized that read an external initializer.
    blocked_by_external: Vec<(String, String)>,
}

impl<'a, 'g> Forward<'a, 'g> {
    /// No node yet, for `nodes` with their ids and producers ([`super::node_ids`]).
    pub fn new(
        nodes: &'a [&'g proto::NodeProto],
        ids: &'a [String],
        producer: &'a BTreeMap<&'g str, usize>,
        known: &Known<'g>,
    ) -> Self {
        Forward {
            nodes,
            ids,
            producer,
            specs: Vec::with_capacity(nodes.len()),
            edges: Vec::new(),
            layers: BTreeMap::new(),
            structural: nodes
                .iter()
                .zip(ids)
                .all(|(n, id)| layer_label(n, id) == id.trim_start_matches('/')),
            layer_of: vec![None; nodes.len()],
            constant: known.init_bytes.keys().copied().collect(),
            claimed: BTreeSet::new(),
            params: BTreeMap::new(),
            unsized_ops: BTreeMap::new(),
            lost: Vec::new(),
            from_value_info: 0,
            blocked_by_external: Vec::new(),
        }
    }

    /// Adds node `i` (its producers already added): sizes it (its outputs' infos go into
    /// `known`; one not sized costs 0, its outputs take their `declared` value_info, and the
    /// report counts it), then its edges, memory, layer and spec. Returns its FLOPs.
    pub fn node(
        &mut self,
        i: usize,
        known: &mut Known<'g>,
        declared: &BTreeMap<&str, Info>,
        batch: BatchChange,
        dtype: Option<Dtype>,
    ) -> f64 {
        let n = self.nodes[i];
        let default_domain = n.domain.is_empty() || n.domain == "ai.onnx";
        let sized = size(n, default_domain, &known.infos, batch);
        let cost = match &sized {
            Ok(s) => {
                for (o, info) in n.output.iter().zip(&s.outputs) {
                    if !o.is_empty() {
                        known.infos.insert(o, Some(info.clone()));
                    }
                }
                s.flops
            }
            Err(fail) => {
                self.not_sized(i, *fail, default_domain, known, declared);
                0.0
            }
        };
        let mem = self.read_inputs(i, known, dtype);
        let layer = self.layer(i);
        self.layer_of[i] = layer;
        self.specs.push(NodeSpec {
            id: self.ids[i].clone(),
            op: n.op_type.clone(),
            cost: Some(cost),
            mem,
            layer,
            ..NodeSpec::default()
        });
        cost
    }

    /// Records node `i` as not sized (`fail`: why; kept for a node of the default domain):
    /// in `lost`, in the report's unsized ops, in the ops blocked by an external
    /// initializer; its outputs take their declared shapes where the model has them.
    fn not_sized(
        &mut self,
        i: usize,
        fail: infer::Fail,
        default_domain: bool,
        known: &mut Known<'g>,
        declared: &BTreeMap<&str, Info>,
    ) {
        let n = self.nodes[i];
        let id = &self.ids[i];
        self.lost.push((
            i,
            default_domain.then_some(fail),
            inputs_text(n, &known.infos),
        ));
        let op = if default_domain {
            n.op_type.clone()
        } else {
            format!("{}.{}", n.domain, n.op_type)
        };
        let u = self.unsized_ops.entry(op.clone()).or_insert(Unsized {
            op,
            count: 0,
            nodes: Vec::new(),
        });
        u.count += 1;
        if u.nodes.len() < NAMES_SHOWN {
            u.nodes.push(id.clone());
        }
        if let Some(x) = n
            .input
            .iter()
            .find(|x| known.external_names.contains(x.as_str()))
        {
            self.blocked_by_external.push((id.clone(), x.clone()));
        }
        for o in n.output.iter().filter(|o| !o.is_empty()) {
            let known_shape = declared.get(o.as_str()).cloned();
            self.from_value_info += usize::from(known_shape.is_some());
            known.infos.insert(o, known_shape);
        }
    }

    /// Node `i`'s inputs: an edge from the producer of each tensor it reads (once per
    /// tensor), and its memory, the bytes of the parameters it is the first to read (their
    /// elements counted in `params`).
    fn read_inputs(&mut self, i: usize, known: &Known<'g>, dtype: Option<Dtype>) -> f64 {
        let n = self.nodes[i];
        let id = &self.ids[i];
        let infos = &known.infos;
        let mut mem = 0.0;
        let mut seen = BTreeSet::new();
        for x in n.input.iter().filter(|x| !x.is_empty()) {
            if !seen.insert(x.as_str()) {
                continue;
            }
            if let Some(&b) = known.init_bytes.get(x.as_str()) {
                if self.claimed.insert(x) {
                    mem += b;
                    let shape = infos
                        .get(x.as_str())
                        .cloned()
                        .flatten()
                        .and_then(|t| t.shape);
                    *self.params.entry(id.clone()).or_default() += shape.map_or(0.0, |s| elems(&s));
                }
            } else if let Some(&p) = self.producer.get(x.as_str()) {
                let bytes = infos
                    .get(x.as_str())
                    .cloned()
                    .flatten()
                    .map_or(0.0, |t| tensor_bytes(&t, dtype));
                self.edges.push(EdgeSpec {
                    src: self.ids[p].clone(),
                    dst: id.clone(),
                    bytes,
                    tensor: x.clone(),
                });
            }
        }
        mem
    }

    /// Node `i`'s layer: its name scope's, or when names carry none ([`Self::structural`]) one
    /// from the structure (`None` for an op reading only constants, set by
    /// [`Self::constant_readers_layers`]).
    fn layer(&mut self, i: usize) -> Option<i64> {
        let n = self.nodes[i];
        let id = &self.ids[i];
        let next = self.layers.len() as i64;
        if self.structural {
            match structural_layer(n, i, self.producer, &self.layer_of, &self.constant) {
                Place::Join(l) => Some(l),
                Place::New => Some(*self.layers.entry(id.clone()).or_insert(next)),
                Place::Consumer => {
                    self.constant.extend(n.output.iter().map(String::as_str));
                    None
                }
            }
        } else {
            Some(*self.layers.entry(layer_label(n, id)).or_insert(next))
        }
    }

    /// With structural layers, after the last node: ops reading only constants take their
    /// first consumer's layer (later ones first, so a chain of them resolves), or one of
    /// their own when nothing reads them.
    pub fn constant_readers_layers(&mut self) {
        let specs = &mut self.specs;
        let layers = &mut self.layers;
        let at: BTreeMap<&str, usize> = specs
            .iter()
            .enumerate()
            .map(|(k, s)| (s.id.as_str(), k))
            .collect();
        let mut consumers: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for e in &self.edges {
            consumers
                .entry(at[e.src.as_str()])
                .or_default()
                .push(at[e.dst.as_str()]);
        }
        for k in (0..specs.len()).rev() {
            if specs[k].layer.is_none() {
                let first = consumers
                    .get(&k)
                    .and_then(|c| c.iter().filter_map(|&d| specs[d].layer).min());
                let next = layers.len() as i64;
                specs[k].layer = Some(
                    first.unwrap_or_else(|| *layers.entry(specs[k].id.clone()).or_insert(next)),
                );
            }
        }
    }

    /// The report's unsized ops, and its notes on the forward pass: structural layers, ops
    /// blocked by the external data file, outputs sized from value_info.
    pub fn notes(&mut self, report: &mut Report) {
        report.unsized_ops = std::mem::take(&mut self.unsized_ops)
            .into_values()
            .collect();
        if self.structural && self.nodes.len() > 1 {
            report.notes.push(format!(
                "node names carry no scopes ('/') and no module metadata: {} layers derived from \
                 the structure (an op with a weight matrix starts one; the ops after it join it)",
                self.layers.len()
            ));
        }
        if let Some((node, tensor)) = self.blocked_by_external.first() {
            // The external file is not read (only sizes are needed), so an op whose shape
            // depends on an external initializer's values stays unsized: say which, and how
            // to avoid it.
            report.notes.push(format!(
                "{} ops not sized read values stored in the external data file (first: node '{node}' \
                 reads initializer '{tensor}'); save the model with small tensors inline \
                 (onnx.save_model(..., size_threshold=1024), the default)",
                self.blocked_by_external.len()
            ));
        }
        if self.from_value_info > 0 {
            report.notes.push(format!(
                "{} outputs of ops not sized took their shapes from the model's value_info",
                self.from_value_info
            ));
        }
    }
}

/// Sizes node `n` from its inputs' infos: a control-flow node (If, Loop, Scan) of the
/// default domain with its subgraphs (`control`), another op of the default domain by its
/// rule (`infer`, sized only when every output's shape is known), an op of another domain
/// not at all.
fn size(
    n: &proto::NodeProto,
    default_domain: bool,
    infos: &BTreeMap<&str, Option<Info>>,
    batch: BatchChange,
) -> Result<Sized, infer::Fail> {
    let inputs: Vec<Option<Info>> = n
        .input
        .iter()
        .map(|x| {
            if x.is_empty() {
                None
            } else {
                infos.get(x.as_str()).cloned().flatten()
            }
        })
        .collect();
    let control_flow = matches!(n.op_type.as_str(), "If" | "Loop" | "Scan");
    if default_domain && control_flow {
        let scope: BTreeMap<String, Info> = infos
            .iter()
            .filter_map(|(k, v)| Some((k.to_string(), v.clone()?)))
            .collect();
        control::size_node(n, &inputs, &scope, batch, 0).ok_or(infer::Fail::NotSized)
    } else if default_domain {
        infer::infer(n, &inputs, &tensor_info, batch).and_then(|s| {
            if s.outputs.iter().all(|o| o.shape.is_some()) {
                Ok(s)
            } else {
                Err(infer::Fail::NotSized)
            }
        })
    } else {
        Err(infer::Fail::NoRule)
    }
}
