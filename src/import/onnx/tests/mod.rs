//! The importer against hand-computed counts of the committed fixtures
//! (`tests/fixtures/onnx/`, written by `tools/onnx_fixtures.py`), and against models built
//! here for each way a file can be wrong. Here the helpers they share; the tests by theme:
//! `fixtures.rs` (the committed fixtures' counts), `errors.rs` (files refused, ops not
//! sized), `ops.rs` (shapes and costs per op family), `graph.rs` (ids, layers, parameters).

use super::layers::scope;
use super::proto::*;
use super::*;
use crate::model::graph::Graph;

mod errors;
mod fixtures;
mod graph;
mod ops;

fn fixture(name: &str) -> Bytes {
    let path = format!(
        "{}/tests/fixtures/onnx/{name}.onnx",
        env!("CARGO_MANIFEST_DIR")
    );
    Bytes::from(std::fs::read(&path).unwrap())
}

fn imp(name: &str, opts: &Options) -> Imported {
    import(fixture(name), name, opts).unwrap()
}

fn node<'a>(g: &'a Graph, id: &str) -> &'a crate::model::graph::Node {
    &g.nodes[g.node_index(id).unwrap_or_else(|| panic!("no node {id}")) as usize]
}

fn cost(g: &Graph, id: &str) -> f64 {
    node(g, id).cost.unwrap()
}

/// Bytes of the edge `src -> dst`.
fn edge_bytes(g: &Graph, src: &str, dst: &str) -> f64 {
    let (s, d) = (g.node_index(src).unwrap(), g.node_index(dst).unwrap());
    g.edges
        .iter()
        .find(|e| e.src == s && e.dst == d)
        .unwrap()
        .bytes
}

// --- models built here -------------------------------------------------------------------

fn vi(name: &str, dims: &[i64]) -> ValueInfoProto {
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            tensor_type: Some(TensorTypeProto {
                elem_type: 1,
                shape: Some(TensorShapeProto {
                    dim: dims
                        .iter()
                        .map(|&d| Dimension {
                            dim_value: Some(d),
                            dim_param: None,
                        })
                        .collect(),
                }),
            }),
        }),
    }
}

fn op(op_type: &str, name: &str, inputs: &[&str], outputs: &[&str]) -> NodeProto {
    NodeProto {
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: outputs.iter().map(|s| s.to_string()).collect(),
        name: name.into(),
        op_type: op_type.into(),
        ..NodeProto::default()
    }
}

fn model(nodes: Vec<NodeProto>, opset: i64) -> ModelProto {
    ModelProto {
        ir_version: 8,
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: opset,
        }],
        graph: Some(GraphProto {
            node: nodes,
            name: "g".into(),
            input: vec![vi("x", &[2, 4])],
            ..GraphProto::default()
        }),
        ..ModelProto::default()
    }
}

fn run(m: &ModelProto) -> Result<Imported> {
    import(Bytes::from(m.encode_to_vec()), "m", &Options::default())
}

fn int64_init(name: &str, values: &[i64]) -> TensorProto {
    TensorProto {
        dims: if values.len() == 1 {
            vec![]
        } else {
            vec![values.len() as i64]
        },
        data_type: 7,
        name: name.into(),
        int64_data: values.to_vec(),
        ..TensorProto::default()
    }
}

/// A 1-D int64 initializer (`int64_init` makes a one-value tensor a scalar).
fn ints1d(name: &str, values: &[i64]) -> TensorProto {
    TensorProto {
        dims: vec![values.len() as i64],
        ..int64_init(name, values)
    }
}

fn float_init(name: &str, dims: &[i64]) -> TensorProto {
    TensorProto {
        dims: dims.to_vec(),
        data_type: 1,
        name: name.into(),
        raw_data: Bytes::from(vec![0u8; 4 * dims.iter().product::<i64>() as usize]),
        ..TensorProto::default()
    }
}

fn with_opts(m: &ModelProto, opts: &Options) -> Result<Imported> {
    import(Bytes::from(m.encode_to_vec()), "m", opts)
}
