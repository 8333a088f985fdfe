//! What an import gives back: the graph and the [`Report`] a user reads (ops not sized,
//! notes).
//!
//! Not here: deciding what is reported (the importer, `mod.rs`).

use crate::model::graph::Graph;

/// Ops of one type that could not be sized (cost 0).
#[derive(Debug, Clone, PartialEq)]
pub struct Unsized {
    /// Op type, with its domain when not the default one (`com.microsoft.FusedConv`).
    pub op: String,
    pub count: usize,
    /// The first few node ids.
    pub nodes: Vec<String>,
}

/// What an import did, for the user to read.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    /// ONNX nodes imported (the forward graph).
    pub onnx_nodes: usize,
    /// Forward FLOPs (sum of the ONNX nodes' costs).
    pub forward_flops: f64,
    /// Bytes of the initializers (parameters and constants stored as initializers).
    pub param_bytes: f64,
    /// Ops that got cost 0 because their shapes or FLOPs are unknown, by op type.
    pub unsized_ops: Vec<Unsized>,
    /// Other facts worth a line (external data, shapes taken from the model's value_info).
    pub notes: Vec<String>,
}

impl Report {
    /// The report as lines of text (the CLI prints them on stderr, the page as notes).
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![format!(
            "ONNX import: {} ops, {:.4e} forward FLOPs, {:.4e} parameter bytes",
            self.onnx_nodes, self.forward_flops, self.param_bytes
        )];
        for u in &self.unsized_ops {
            let more = if u.count > u.nodes.len() { ", ..." } else { "" };
            out.push(format!(
                "ONNX import: {} x {} not sized (cost 0): {}{more}",
                u.count,
                u.op,
                u.nodes.join(", ")
            ));
        }
        out.extend(self.notes.iter().map(|n| format!("ONNX import: {n}")));
        out
    }
}

/// An imported graph and what the import did.
#[derive(Debug, Clone)]
pub struct Imported {
    pub graph: Graph,
    pub report: Report,
}
