//! The importer against hand-computed counts of the committed fixtures
//! (`tests/fixtures/onnx/`, written by `tools/onnx_fixtures.py`), and against models built
//! here for each way a file can be wrong.

use super::layers::scope;
use super::proto::*;
use super::*;
use crate::model::graph::Graph;

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

#[test]
fn tiny_cnn_counts_are_the_hand_computed_ones() {
    let Imported { graph: g, report } = imp("tiny_cnn", &Options::default());
    assert_eq!(g.node_count(), 11);
    assert!(report.unsized_ops.is_empty(), "{report:?}");
    // conv1: x 1x3x16x16, 8 filters 3x3, pad 1 -> 1x8x16x16: 2 x 8*256 x 3*9 MACs.
    assert_eq!(cost(&g, "/conv1/Conv"), 2.0 * 8.0 * 256.0 * 27.0);
    // Weights 8x3x3x3 + bias 8, fp32.
    assert_eq!(node(&g, "/conv1/Conv").mem, (216.0 + 8.0) * 4.0);
    assert_eq!(
        edge_bytes(&g, "/conv1/Conv", "/bn1/BatchNormalization"),
        2048.0 * 4.0
    );
    // Batch norm: 2 FLOPs per element; its four vectors of 8.
    assert_eq!(cost(&g, "/bn1/BatchNormalization"), 2.0 * 2048.0);
    assert_eq!(node(&g, "/bn1/BatchNormalization").mem, 4.0 * 8.0 * 4.0);
    // MaxPool 2x2 stride 2 -> 1x8x8x8: kernel elements per output element.
    assert_eq!(cost(&g, "/pool/MaxPool"), 512.0 * 4.0);
    // conv2: groups 2 (4 input channels per group), stride 2, pad 1 -> 1x8x4x4.
    assert_eq!(cost(&g, "/conv2/Conv"), 2.0 * 128.0 * 4.0 * 9.0);
    // conv3: dilation 2 (span 5), pad 2 -> 1x8x4x4, 8 input channels.
    assert_eq!(cost(&g, "/conv3/Conv"), 2.0 * 128.0 * 8.0 * 9.0);
    assert_eq!(cost(&g, "/add/Add"), 128.0);
    assert_eq!(cost(&g, "/gap/GlobalAveragePool"), 128.0);
    assert_eq!(cost(&g, "/flatten/Flatten"), 0.0);
    // Gemm 1x8 by 8x10 (transB).
    assert_eq!(cost(&g, "/fc/Gemm"), 2.0 * 10.0 * 8.0);
    assert_eq!(cost(&g, "/softmax/Softmax"), 3.0 * 10.0);
    assert_eq!(edge_bytes(&g, "/fc/Gemm", "/softmax/Softmax"), 40.0);
    let params = (216.0 + 8.0 + 4.0 * 8.0 + 8.0 * 4.0 * 9.0 + 8.0 * 8.0 * 9.0 + 80.0 + 10.0) * 4.0;
    assert_eq!(report.param_bytes, params);
    let total: f64 = g.nodes.iter().map(|n| n.mem).sum();
    assert_eq!(total, params, "every initializer's bytes on one node");
    // A layer per name scope, in order.
    assert_eq!(node(&g, "/conv1/Conv").layer, Some(0));
    assert_eq!(node(&g, "/softmax/Softmax").layer, Some(10));
}

#[test]
fn gemm_and_shape_arithmetic_of_an_mlp() {
    let Imported { graph: g, report } = imp("mlp", &Options::default());
    assert_eq!(g.node_count(), 8);
    assert!(report.unsized_ops.is_empty(), "{report:?}");
    assert_eq!(cost(&g, "/fc1/Gemm"), 2.0 * 4.0 * 32.0 * 16.0);
    assert_eq!(cost(&g, "/fc2/Gemm"), 2.0 * 4.0 * 8.0 * 32.0);
    // Shape -> Gather -> Unsqueeze -> Concat gave Reshape its target [4, 2, 4].
    assert_eq!(edge_bytes(&g, "/view/Shape", "/view/Gather"), 16.0);
    assert_eq!(edge_bytes(&g, "/view/Concat", "/view/Reshape"), 24.0);
    // Relu shares its Gemm's scope, so its layer.
    assert_eq!(node(&g, "/fc1/Relu").layer, node(&g, "/fc1/Gemm").layer);
}

#[test]
fn batched_matmuls_broadcast() {
    let Imported { graph: g, .. } = imp("matmul_batched", &Options::default());
    // [2,3,4,5] x [5,6]: 6 batches of 4x5 by 5x6.
    assert_eq!(cost(&g, "/attn/q/MatMul"), 2.0 * 6.0 * 4.0 * 6.0 * 5.0);
    // [2,3,4,6] x [2,3,6,4] (transposed keys).
    assert_eq!(cost(&g, "/attn/scores/MatMul"), 2.0 * 6.0 * 4.0 * 4.0 * 6.0);
    assert_eq!(cost(&g, "/attn/ctx/MatMul"), 2.0 * 6.0 * 4.0 * 6.0 * 4.0);
    // [2,3,4,6] x [1,3,6,7]: the batch broadcasts to 2x3.
    assert_eq!(cost(&g, "/out/MatMul"), 2.0 * 6.0 * 4.0 * 7.0 * 6.0);
    assert_eq!(cost(&g, "/attn/Softmax"), 3.0 * 96.0);
    assert_eq!(
        edge_bytes(&g, "/attn/Transpose", "/attn/scores/MatMul"),
        144.0 * 4.0
    );
}

#[test]
fn lstm_and_gru_count_their_gates() {
    let Imported { graph: g, report } = imp("rnn", &Options::default());
    assert!(report.unsized_ops.is_empty(), "{report:?}");
    // Bidirectional LSTM, seq 5, batch 2, input 4, hidden 3: 4 gates of 3 over 4 + 3.
    assert_eq!(cost(&g, "/lstm/LSTM"), 2.0 * 5.0 * 2.0 * 2.0 * 12.0 * 7.0);
    // GRU over the 6 features of both directions, hidden 4: 3 gates of 4 over 6 + 4.
    assert_eq!(cost(&g, "/gru/GRU"), 2.0 * 5.0 * 2.0 * 12.0 * 10.0);
    assert_eq!(node(&g, "/lstm/LSTM").mem, (96.0 + 72.0 + 48.0) * 4.0);
    // Y of the LSTM: 5 x 2 directions x 2 x 3.
    assert_eq!(edge_bytes(&g, "/lstm/LSTM", "/t/Transpose"), 60.0 * 4.0);
}

#[test]
fn a_dynamic_input_names_itself_until_given_a_size() {
    let e = import(fixture("dynamic"), "d", &Options::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("input 'x'") && e.contains("'batch'") && e.contains("a batch for"),
        "{e}"
    );
    let err = import(fixture("dynamic"), "d", &Options::default()).unwrap_err();
    assert_eq!(
        OptionField::at_fault(&err),
        [OptionField::InputShape, OptionField::Batch]
    );
    let batch = Options {
        batch: Some(32),
        ..Options::default()
    };
    let g = import(fixture("dynamic"), "d", &batch).unwrap().graph;
    assert_eq!(cost(&g, "relu"), 32.0 * 8.0);
    // --batch on a model whose batch is static: an error naming the input's shape.
    let e = import(fixture("tiny_cnn"), "t", &batch)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("batch 32:") && e.contains("'x' is 1x3x16x16"),
        "{e}"
    );
    let err = import(fixture("tiny_cnn"), "t", &batch).unwrap_err();
    assert_eq!(
        OptionField::at_fault(&err),
        [OptionField::Batch, OptionField::InputShape]
    );
    let mut shaped = Options::default();
    shaped.input_shapes.insert("x".into(), vec![3, 8]);
    assert_eq!(
        cost(
            &import(fixture("dynamic"), "d", &shaped).unwrap().graph,
            "relu"
        ),
        24.0
    );
    shaped.input_shapes.insert("nope".into(), vec![1]);
    let e = import(fixture("dynamic"), "d", &shaped)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("input shape 'nope'") && e.contains("inputs: x"),
        "{e}"
    );
    let err = import(fixture("dynamic"), "d", &shaped).unwrap_err();
    assert_eq!(OptionField::at_fault(&err), [OptionField::InputShape]);
    // Other errors name no option.
    let err = import(fixture("dynamic"), "d", &Options::default()).unwrap_err();
    let Error::Parse { what, .. } = err else {
        panic!("{err}")
    };
    let other = Error::Parse {
        what,
        message: "batch norm: bad".into(),
    };
    assert!(OptionField::at_fault(&other).is_empty());
}

#[test]
fn training_adds_gradients_and_colocated_updates() {
    let opts = Options {
        train: true,
        ..Options::default()
    };
    let g = imp("tiny_cnn", &opts).graph;
    // 11 forward ops, 11 gradients (all float), 5 updates (conv1, bn1, conv2, conv3, fc).
    assert_eq!(g.node_count(), 11 + 11 + 5);
    assert_eq!(
        cost(&g, "gradient//conv1/Conv"),
        2.0 * cost(&g, "/conv1/Conv")
    );
    assert_eq!(node(&g, "gradient//conv1/Conv").op, "ConvGrad");
    // SGD: 2 FLOPs per parameter element; colocated with the op holding the weights.
    assert_eq!(cost(&g, "update//conv1/Conv"), 2.0 * 224.0);
    let (f, u) = (node(&g, "/conv1/Conv"), node(&g, "update//conv1/Conv"));
    assert!(f.group.is_some() && f.group == u.group);
    assert_eq!(
        edge_bytes(&g, "gradient//conv1/Conv", "update//conv1/Conv"),
        896.0
    );
    // The gradient of conv1's output flows back from bn1's gradient, the activation forward.
    assert_eq!(
        edge_bytes(
            &g,
            "gradient//bn1/BatchNormalization",
            "gradient//conv1/Conv"
        ),
        8192.0
    );
    assert_eq!(
        edge_bytes(&g, "/conv1/Conv", "gradient//bn1/BatchNormalization"),
        8192.0
    );
    // The loss's gradient starts at the last op's own output.
    assert_eq!(
        edge_bytes(&g, "/softmax/Softmax", "gradient//softmax/Softmax"),
        40.0
    );
    // Integer shape arithmetic has no gradient.
    let m = imp("mlp", &opts).graph;
    assert!(m.node_index("gradient//view/Shape").is_none());
    assert!(m.node_index("gradient//view/Reshape").is_some());
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

#[test]
fn bad_files_give_one_clear_error() {
    let good = fixture("tiny_cnn");
    let err = |b: Bytes| import(b, "m", &Options::default()).unwrap_err().to_string();
    let e = err(good.slice(..good.len() / 2));
    assert!(
        e.contains("not an ONNX model") && e.contains("truncated"),
        "{e}"
    );
    let e = err(Bytes::from_static(br#"{"nodes": []}"#));
    assert!(e.contains("ONNX model"), "{e}");
    assert!(err(Bytes::new()).contains("empty"));
    let e = run(&model(vec![op("Relu", "r", &["x"], &["y"])], 99))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("opset 99") && e.contains(&MAX_OPSET.to_string()),
        "{e}"
    );
    let mut m = model(vec![op("Relu", "r", &["x"], &["y"])], 13);
    m.opset_import[0].domain = "com.example".into();
    assert!(run(&m)
        .unwrap_err()
        .to_string()
        .contains("no opset of the default"));
    let e = run(&model(vec![op("Relu", "r", &["nowhere"], &["y"])], 13))
        .unwrap_err()
        .to_string();
    assert!(e.contains("node 'r' (Relu) reads 'nowhere'"), "{e}");
    let cycle = vec![
        op("Add", "a", &["x", "b_out"], &["a_out"]),
        op("Relu", "b", &["a_out"], &["b_out"]),
    ];
    let e = run(&model(cycle, 13)).unwrap_err().to_string();
    assert!(e.contains("on a cycle"), "{e}");
    let twice = vec![
        op("Relu", "a", &["x"], &["y"]),
        op("Relu", "b", &["x"], &["y"]),
    ];
    assert!(run(&model(twice, 13))
        .unwrap_err()
        .to_string()
        .contains("node 'b' (Relu) writes 'y'"));
    let mut m = model(vec![], 13);
    m.ir_version = 0;
    assert!(run(&m).unwrap_err().to_string().contains("IR version 0"));
}

#[test]
fn ops_it_cannot_size_are_reported_and_cost_nothing() {
    let mut custom = op("FusedThing", "f", &["y"], &["z"]);
    custom.domain = "com.example".into();
    let nodes = vec![
        op("Relu", "r", &["x"], &["y"]),
        op("NonZero", "nz1", &["y"], &["i1"]),
        op("NonZero", "nz2", &["y"], &["i2"]),
        custom,
        op("Relu", "after", &["z"], &["w"]),
    ];
    let mut m = model(nodes, 13);
    // The model's own shape for z lets the op after the custom one be sized.
    m.graph.as_mut().unwrap().value_info.push(vi("z", &[2, 4]));
    // The custom op may carry FLOPs: an error unless unsized ops are allowed.
    let e = run(&m).unwrap_err().to_string();
    assert!(
        e.contains("node 'f' (FusedThing) could not be sized"),
        "{e}"
    );
    let allow = Options {
        allow_unsized: true,
        ..Options::default()
    };
    let Imported { graph: g, report } = with_opts(&m, &allow).unwrap();
    assert_eq!(g.node_count(), 5);
    let names: Vec<(&str, usize)> = report
        .unsized_ops
        .iter()
        .map(|u| (u.op.as_str(), u.count))
        .collect();
    assert_eq!(names, [("NonZero", 2), ("com.example.FusedThing", 1)]);
    assert_eq!(report.unsized_ops[0].nodes, ["nz1", "nz2"]);
    assert_eq!(cost(&g, "nz1"), 0.0);
    assert_eq!(cost(&g, "after"), 8.0);
    let lines = report.lines().join("\n");
    assert!(
        lines.contains("2 x NonZero not sized (cost 0): nz1, nz2"),
        "{lines}"
    );
    // Only z was declared: one output of the three ops not sized took its shape from it.
    assert!(
        lines.contains("1 outputs of ops not sized took their shapes from the model's value_info"),
        "{lines}"
    );
}

#[test]
fn external_weights_are_sized_from_their_dims() {
    let mut m = model(vec![op("MatMul", "mm", &["x", "w"], &["y"])], 13);
    m.graph.as_mut().unwrap().initializer.push(TensorProto {
        dims: vec![4, 5],
        data_type: 1,
        name: "w".into(),
        data_location: 1,
        external_data: vec![StringStringEntryProto {
            key: "location".into(),
            value: "weights.bin".into(),
        }],
        ..TensorProto::default()
    });
    let Imported { graph: g, report } = run(&m).unwrap();
    assert_eq!(cost(&g, "mm"), 2.0 * 2.0 * 5.0 * 4.0);
    assert_eq!(node(&g, "mm").mem, 80.0);
    assert!(
        report.notes[0].contains("'weights.bin'"),
        "{:?}",
        report.notes
    );
}

/// torchvision's ResNet-18 as PyTorch exports it (`tools/onnx_fixtures.py --torchvision`:
/// torch 2.15's TorchScript exporter at 1x3x224x224, batch norm folded into the convolutions),
/// committed without its weights file: the import needs only the dims.
#[test]
fn torchvision_resnet18_matches_the_published_counts() {
    let Imported { graph: g, report } =
        import(fixture("resnet18_torchvision"), "m", &Options::default()).unwrap();
    // The ONNX file's 65 nodes (20 Conv, 17 Relu, 16 Identity, 8 Add, MaxPool,
    // GlobalAveragePool, Flatten, Gemm), one graph node each.
    assert_eq!(g.nodes.len(), 65);
    // 1,814,073,344 multiply-accumulates in the convolutions and the classifier, torchvision's
    // published 1.81 GMACs, at 2 FLOPs each.
    let macs: f64 = g
        .nodes
        .iter()
        .filter(|n| n.op == "Conv" || n.op == "Gemm")
        .map(|n| n.cost.unwrap())
        .sum();
    assert_eq!(macs, 2.0 * 1_814_073_344.0);
    // 11,680,872 float32 values in the 26 initializers, as the onnx package counts their dims
    // (the exporter folds batch norm into the convolutions and shares equal bias tensors through
    // the Identity nodes, so fewer than torchvision's 11,689,512 parameters).
    assert_eq!(report.param_bytes, 46_723_488.0);
    assert!(report.unsized_ops.is_empty(), "{:?}", report.unsized_ops);
    assert!(
        report.notes.iter().any(|n| n.contains("external file")),
        "{:?}",
        report.notes
    );
}

#[test]
fn an_op_needing_external_values_is_named_with_the_file() {
    // A Reshape's target shape stored in the external file: its values are not read, so the
    // Reshape and what follows cannot be sized, and the report says why (docs/onnx.md).
    let nodes = vec![
        op("Reshape", "rs", &["x", "shape"], &["y"]),
        op("Relu", "r", &["y"], &["z"]),
    ];
    let mut m = model(nodes, 13);
    m.graph.as_mut().unwrap().initializer.push(TensorProto {
        dims: vec![2],
        data_type: 7,
        name: "shape".into(),
        data_location: 1,
        external_data: vec![StringStringEntryProto {
            key: "location".into(),
            value: "weights.bin".into(),
        }],
        ..TensorProto::default()
    });
    let allow = Options {
        allow_unsized: true,
        ..Options::default()
    };
    let Imported { graph: g, report } = with_opts(&m, &allow).unwrap();
    assert_eq!(cost(&g, "rs"), 0.0);
    let notes = report.notes.join("\n");
    assert!(notes.contains("'weights.bin'"), "{notes}");
    assert!(
        notes.contains("node 'rs' reads initializer 'shape'") && notes.contains("size_threshold"),
        "{notes}"
    );
    // Inline, the same shape sizes both ops and no such note is written.
    let t = &mut m.graph.as_mut().unwrap().initializer[0];
    t.data_location = 0;
    t.external_data.clear();
    t.int64_data = vec![4, 2];
    let Imported { graph: g, report } = run(&m).unwrap();
    assert!(cost(&g, "r") > 0.0, "{:?}", report.unsized_ops);
    assert!(
        report.notes.iter().all(|n| !n.contains("external")),
        "{:?}",
        report.notes
    );
}

#[test]
fn unnamed_and_duplicate_names_get_unique_ids() {
    let nodes = vec![
        op("Relu", "", &["x"], &["a"]),
        op("Relu", "r", &["a"], &["b"]),
        op("Relu", "r", &["b"], &["c"]),
    ];
    let g = run(&model(nodes, 13)).unwrap().graph;
    let ids: Vec<&str> = g.nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(ids, ["Relu_0", "r", "r_1"]);
}

#[test]
fn torch_export_module_paths_are_the_layers() {
    // PyTorch's torch.export-based exporter names nodes `node_Conv_292` and records the module
    // path in the node's metadata: ops of one module share a layer, whatever their names.
    let scoped = |mut n: NodeProto, scopes: &str| {
        n.metadata_props.push(StringStringEntryProto {
            key: "pkg.torch.onnx.name_scopes".into(),
            value: scopes.into(),
        });
        n
    };
    let nodes = vec![
        scoped(
            op("Relu", "node_relu_1", &["x"], &["a"]),
            "['', 'layer1', 'layer1.0', 'relu']",
        ),
        scoped(
            op("Relu", "node_relu_2", &["a"], &["b"]),
            "['', 'layer1', 'layer1.0', 'relu_1']",
        ),
        scoped(
            op("Relu", "node_relu_3", &["b"], &["c"]),
            "['', 'fc', 'relu_2']",
        ),
        op("Relu", "/head/Relu", &["c"], &["d"]),
        op("Relu", "/head/Relu_1", &["d"], &["e"]),
    ];
    let g = run(&model(nodes, 13)).unwrap().graph;
    let layer = |id: &str| node(&g, id).layer.unwrap();
    assert_eq!(layer("node_relu_1"), layer("node_relu_2"));
    assert_ne!(layer("node_relu_1"), layer("node_relu_3"));
    // Without the metadata, the name's scope.
    assert_eq!(layer("/head/Relu"), layer("/head/Relu_1"));
    assert_ne!(layer("/head/Relu"), layer("node_relu_3"));
}

#[test]
fn scopes_are_the_name_before_the_last_slash() {
    assert_eq!(
        scope("/layer1/layer1.0/conv1/Conv"),
        "layer1/layer1.0/conv1"
    );
    assert_eq!(scope("model/dense/MatMul"), "model/dense");
    assert_eq!(scope("relu"), "relu");
    assert_eq!(scope("/Relu"), "Relu");
}

#[test]
fn json_does_not_look_like_onnx() {
    assert!(is_onnx("m.ONNX", b"{"));
    assert!(is_onnx("upload", &[0x08, 0x07]));
    assert!(!is_onnx("g.json", b"{\"nodes\": []}"));
    assert!(!is_onnx("g.json", b""));
}

fn attr_s(name: &str, s: &str) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        s: Bytes::from(s.as_bytes().to_vec()),
        ..AttributeProto::default()
    }
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

#[test]
fn einsum_range_and_depth_to_space() {
    // x is 2x4: "ij,jk->ik" with w 4x5 is a 2x4 by 4x5 product.
    let mut e = op("Einsum", "e", &["x", "w"], &["y"]);
    e.attribute.push(attr_s("equation", "ij,jk->ik"));
    let mut implicit = op("Einsum", "t", &["y"], &["yt"]);
    implicit.attribute.push(attr_s("equation", "ba"));
    let nodes = vec![
        e,
        implicit,
        op("Range", "r", &["zero", "five", "one"], &["idx"]),
        op("Gather", "g", &["yt", "idx"], &["picked"]),
    ];
    let mut m = model(nodes, 13);
    let g = m.graph.as_mut().unwrap();
    g.initializer.push(TensorProto {
        dims: vec![4, 5],
        data_type: 1,
        name: "w".into(),
        raw_data: Bytes::from(vec![0u8; 80]),
        ..TensorProto::default()
    });
    g.initializer.extend([
        int64_init("zero", &[0]),
        int64_init("five", &[5]),
        int64_init("one", &[1]),
    ]);
    let Imported { graph, report } = run(&m).unwrap();
    assert!(report.unsized_ops.is_empty(), "{report:?}");
    assert_eq!(cost(&graph, "e"), 2.0 * 2.0 * 4.0 * 5.0);
    // Implicit output of "ba": labels used once, sorted: "ab", a transpose of y (2x5 -> 5x2).
    assert_eq!(edge_bytes(&graph, "t", "g"), 40.0);
    // Range 0..5 indexes 5 rows of the 5x2 tensor.
    assert_eq!(edge_bytes(&graph, "r", "g"), 40.0);
    let mut d2s = op("DepthToSpace", "d", &["x4"], &["y4"]);
    d2s.attribute.push(AttributeProto {
        name: "blocksize".into(),
        i: 2,
        ..AttributeProto::default()
    });
    let mut m = model(vec![d2s, op("Relu", "r", &["y4"], &["z"])], 13);
    m.graph.as_mut().unwrap().input = vec![vi("x4", &[1, 8, 3, 3])];
    let graph = run(&m).unwrap().graph;
    assert_eq!(cost(&graph, "r"), 2.0 * 6.0 * 6.0);
}

#[test]
fn input_shapes_are_read_as_name_equals_dims() {
    let mut o = Options::default();
    o.add_input_shape("x=8x3x224x224").unwrap();
    o.add_input_shape("ids = 1x128").unwrap();
    assert_eq!(o.input_shapes["x"], vec![8, 3, 224, 224]);
    assert_eq!(o.input_shapes["ids"], vec![1, 128]);
    for bad in ["x", "x=", "x=1x0", "x=1xa", "=1x2", "x=1x-2"] {
        let e = o.add_input_shape(bad).unwrap_err().to_string();
        assert!(e.contains(&format!("got '{bad}'")), "{bad}: {e}");
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

#[test]
fn open_ended_slices_clamp_to_the_dimension() {
    // PyTorch's x[:, 1:], x[:, ::-1] and x[..., ::2] on a 2x4 input: ends INT64_MAX, a
    // reversed slice from -1 to INT64_MIN + 1, a step of 2 to INT64_MAX.
    let mut m = model(
        vec![
            op("Slice", "tail", &["x", "one", "max", "ax1"], &["a"]),
            op("Slice", "rev", &["x", "m1", "min", "ax1", "m1"], &["b"]),
            op("Slice", "even", &["x", "zero", "max", "ax1", "two"], &["c"]),
            op("Relu", "ra", &["a"], &["ya"]),
            op("Relu", "rb", &["b"], &["yb"]),
            op("Relu", "rc", &["c"], &["yc"]),
        ],
        13,
    );
    m.graph.as_mut().unwrap().initializer = vec![
        ints1d("one", &[1]),
        ints1d("zero", &[0]),
        ints1d("two", &[2]),
        ints1d("m1", &[-1]),
        ints1d("ax1", &[1]),
        ints1d("max", &[i64::MAX]),
        ints1d("min", &[i64::MIN + 1]),
    ];
    let Imported { graph: g, report } = run(&m).unwrap();
    assert!(report.unsized_ops.is_empty(), "{:?}", report.unsized_ops);
    assert_eq!(cost(&g, "ra"), 2.0 * 3.0);
    assert_eq!(cost(&g, "rb"), 2.0 * 4.0);
    assert_eq!(cost(&g, "rc"), 2.0 * 2.0);
    assert_eq!(edge_bytes(&g, "tail", "ra"), 6.0 * 4.0);
}

/// x (2x4) -> Reshape by a shape known only at run time (NonZero's) -> MatMul -> Relu.
fn mostly_unsized() -> ModelProto {
    let mut m = model(
        vec![
            op("Relu", "first", &["x"], &["x1"]),
            op("NonZero", "nz", &["x1"], &["idx"]),
            op("Shape", "shape", &["idx"], &["s"]),
            op("Reshape", "reshape", &["x1", "s"], &["r"]),
            op("MatMul", "mm", &["r", "w"], &["y"]),
            op("Relu", "last", &["y"], &["z"]),
        ],
        13,
    );
    m.graph.as_mut().unwrap().initializer = vec![float_init("w", &[4, 5])];
    m
}

#[test]
fn a_model_that_loses_flops_is_an_error_naming_its_first_node() {
    let err = run(&mostly_unsized()).unwrap_err();
    let e = err.to_string();
    // NonZero (data-dependent) is the first lost node, and it feeds the MatMul's input
    // through Shape and Reshape (which carry no FLOPs).
    assert!(e.contains("node 'nz' (NonZero) could not be sized"), "{e}");
    assert!(
        e.contains("it feeds node 'mm' (MatMul)") && e.contains("'r' shape unknown"),
        "{e}"
    );
    assert!(
        e.contains("5 of 6 ops") && e.contains("2 of the 3 ops that carry FLOPs"),
        "{e}"
    );
    assert!(e.contains("unsized ops allowed"), "{e}");
    assert_eq!(
        OptionField::at_fault(&err),
        [OptionField::InputShape, OptionField::AllowUnsized]
    );
    // Allowed, the import goes on and says what is missing.
    let opts = Options {
        allow_unsized: true,
        ..Options::default()
    };
    let Imported { graph: g, report } = with_opts(&mostly_unsized(), &opts).unwrap();
    assert_eq!(cost(&g, "mm"), 0.0);
    let lines = report.lines().join("\n");
    assert!(
        lines.contains("5 of 6 ops (83%) not sized") && lines.contains("first: node 'nz'"),
        "{lines}"
    );
    // An op with no rule, and a custom domain's op, say so.
    let mut m = model(vec![op("FancyNorm", "f", &["x"], &["y"])], 13);
    let e = run(&m).unwrap_err().to_string();
    assert!(e.contains("no shape rule for op type FancyNorm"), "{e}");
    m.graph.as_mut().unwrap().node[0].domain = "com.microsoft".into();
    let e = run(&m).unwrap_err().to_string();
    assert!(e.contains("domain 'com.microsoft'"), "{e}");
}

#[test]
fn an_input_shape_of_the_wrong_rank_is_an_error() {
    // The model's x is 2x4; a 4-D shape is refused with the input's rank and an example.
    let m = model(vec![op("Relu", "r", &["x"], &["y"])], 13);
    let mut opts = Options::default();
    opts.add_input_shape("x=1x3x224x224").unwrap();
    let err = with_opts(&m, &opts).unwrap_err();
    let e = err.to_string();
    assert!(
        e.contains("input shape 'x' has 4 dimensions")
            && e.contains("rank 2 (2 x 4)")
            && e.contains("like x=2x4"),
        "{e}"
    );
    assert_eq!(OptionField::at_fault(&err), [OptionField::InputShape]);
    // A dynamic input of rank 2 is suggested a rank-2 shape, not 1x3x224x224.
    let mut m = model(vec![op("Relu", "r", &["ids"], &["y"])], 13);
    let mut input = vi("ids", &[0, 0]);
    let dims = &mut input.r#type.as_mut().unwrap().tensor_type.as_mut().unwrap();
    let dims = &mut dims.shape.as_mut().unwrap().dim;
    dims[0] = Dimension {
        dim_value: None,
        dim_param: Some("batch".into()),
    };
    dims[1] = Dimension {
        dim_value: None,
        dim_param: Some("seq".into()),
    };
    m.graph.as_mut().unwrap().input = vec![input];
    let e = run(&m).unwrap_err().to_string();
    assert!(e.contains("ids=1x128") && !e.contains("224"), "{e}");
}

#[test]
fn constants_feeding_weight_inputs_are_parameters() {
    // Paddle-style: the MatMul's weight and the Add's bias are Constant nodes.
    let mut w = op("Constant", "w_const", &[], &["w"]);
    w.attribute.push(AttributeProto {
        name: "value".into(),
        t: Some(float_init("w", &[4, 5])),
        ..AttributeProto::default()
    });
    let mut b = op("Constant", "b_const", &[], &["b"]);
    b.attribute.push(AttributeProto {
        name: "value".into(),
        t: Some(float_init("b", &[5])),
        ..AttributeProto::default()
    });
    let nodes = vec![
        w,
        b,
        op("MatMul", "mm", &["x", "w"], &["y"]),
        op("Add", "add", &["y", "b"], &["z"]),
    ];
    let m = model(nodes, 13);
    let Imported { graph: g, report } = run(&m).unwrap();
    assert_eq!(report.param_bytes, (20.0 + 5.0) * 4.0);
    assert_eq!(node(&g, "mm").mem, 80.0);
    assert_eq!(node(&g, "add").mem, 20.0);
    assert!(
        g.node_index("w_const").is_none(),
        "weights are not graph nodes"
    );
    assert_eq!(g.node_count(), 2);
    assert!(report
        .notes
        .iter()
        .any(|n| n.contains("2 Constant nodes hold weights")));
    // So training updates them, as it would initializers.
    let opts = Options {
        train: true,
        ..Options::default()
    };
    let g = with_opts(&m, &opts).unwrap().graph;
    assert_eq!(cost(&g, "update/mm"), 2.0 * 20.0);
    assert_eq!(cost(&g, "update/add"), 2.0 * 5.0);
}

/// x (1x2x2, batch 1 static) -> Reshape to [1, 4] -> MatMul by 4x3, plus `extra`.
fn static_batch(extra: Vec<NodeProto>, out: &str) -> ModelProto {
    let mut nodes = vec![op("Reshape", "flat", &["x", "target"], &["f"])];
    nodes.extend(extra);
    nodes.push(op("MatMul", "mm", &[out, "w"], &["y"]));
    let mut m = model(nodes, 13);
    let g = m.graph.as_mut().unwrap();
    g.input = vec![vi("x", &[1, 2, 2])];
    g.initializer = vec![
        ints1d("target", &[1, 4]),
        float_init("w", &[4, 3]),
        ints1d("zero", &[0]),
        ints1d("one", &[1]),
    ];
    m
}

#[test]
fn a_batch_baked_into_reshapes_is_propagated_or_refused() {
    let mut opts = Options::default();
    opts.add_input_shape("x=8x2x2").unwrap();
    // The Reshape's leading 1 is the exported batch: it becomes 8, and the FLOPs scale.
    let Imported { graph: g, report } = with_opts(&static_batch(vec![], "f"), &opts).unwrap();
    assert_eq!(cost(&g, "mm"), 8.0 * 2.0 * 4.0 * 3.0);
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains("exported at batch 1")),
        "{:?}",
        report.notes
    );
    // A slice that keeps the first sample (x[0:1]) would silently cost batch 1: refused.
    let first = op("Slice", "first", &["f", "zero", "one", "zero"], &["s"]);
    let e = with_opts(&static_batch(vec![first], "s"), &opts)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("exported at batch 1")
            && e.contains("1.00x its forward FLOPs instead of 8.00x")
            && e.contains("dynamic_axes"),
        "{e}"
    );
    // Exported batch unchanged: no note about the batch.
    let mut same = Options::default();
    same.add_input_shape("x=1x2x2").unwrap();
    let r = with_opts(&static_batch(vec![], "f"), &same).unwrap().report;
    assert!(
        !r.notes.iter().any(|n| n.contains("batch")),
        "{:?}",
        r.notes
    );
}

#[test]
fn quantized_ops_count_integer_macs_and_bytes() {
    // x (2x4 float) -> DynamicQuantizeLinear -> MatMulInteger by a uint8 4x5 -> Cast ->
    // QuantizeLinear -> DequantizeLinear; and a QLinearMatMul.
    let mut wq = float_init("wq", &[4, 5]);
    wq.data_type = 2;
    wq.raw_data = Bytes::from(vec![0u8; 20]);
    let mut zp = ints1d("zp", &[0]);
    zp.data_type = 2;
    zp.int64_data.clear();
    zp.raw_data = Bytes::from(vec![0u8]);
    zp.dims = vec![];
    let mut scale = float_init("scale", &[]);
    scale.raw_data = Bytes::from(vec![0u8; 4]);
    let mut cast = op("Cast", "cast", &["acc"], &["accf"]);
    cast.attribute.push(AttributeProto {
        name: "to".into(),
        i: 1,
        ..AttributeProto::default()
    });
    let nodes = vec![
        op("DynamicQuantizeLinear", "dq", &["x"], &["xq", "xs", "xz"]),
        op("MatMulInteger", "mmi", &["xq", "wq", "xz", "zp"], &["acc"]),
        cast,
        op("QuantizeLinear", "q", &["accf", "scale", "zp"], &["yq"]),
        op(
            "QLinearMatMul",
            "qmm",
            &["xq", "xs", "xz", "wq", "scale", "zp", "scale", "zp"],
            &["z"],
        ),
        op("DequantizeLinear", "deq", &["yq", "scale", "zp"], &["y"]),
    ];
    let mut m = model(nodes, 13);
    m.graph.as_mut().unwrap().initializer = vec![wq, zp, scale];
    let Imported { graph: g, report } = run(&m).unwrap();
    assert!(report.unsized_ops.is_empty(), "{:?}", report.unsized_ops);
    assert_eq!(cost(&g, "mmi"), 2.0 * 2.0 * 5.0 * 4.0);
    assert_eq!(cost(&g, "qmm"), 2.0 * 2.0 * 5.0 * 4.0);
    // uint8 activations, int32 accumulators, uint8 again after QuantizeLinear.
    let dq_mmi: f64 = g
        .edges
        .iter()
        .filter(|e| (e.src, e.dst) == (g.node_index("dq").unwrap(), g.node_index("mmi").unwrap()))
        .map(|e| e.bytes)
        .sum();
    assert_eq!(dq_mmi, 8.0 + 1.0, "xq and its zero point");
    assert_eq!(edge_bytes(&g, "mmi", "cast"), 10.0 * 4.0);
    assert_eq!(edge_bytes(&g, "q", "deq"), 10.0);
    assert_eq!(node(&g, "mmi").mem, 20.0 + 1.0);
}

fn graph_attr(
    name: &str,
    nodes: Vec<NodeProto>,
    inputs: &[(&str, &[i64])],
    outputs: &[&str],
) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        g: Some(GraphProto {
            node: nodes,
            name: name.into(),
            input: inputs.iter().map(|(n, d)| vi(n, d)).collect(),
            output: outputs.iter().map(|n| vi(n, &[])).collect(),
            ..GraphProto::default()
        }),
        ..AttributeProto::default()
    }
}

#[test]
fn if_loop_and_scan_are_sized_from_their_subgraphs() {
    // If: the then branch is one Relu of x (8 FLOPs), the else branch a MatMul by w (2x4 by
    // 4x5: 80 FLOPs) then a Relu (10): the larger branch, 90, with its output shape.
    let mut iff = op("If", "if", &["cond"], &["y"]);
    iff.attribute.push(graph_attr(
        "then_branch",
        vec![op("Relu", "t", &["x"], &["ty"])],
        &[],
        &["ty"],
    ));
    iff.attribute.push(graph_attr(
        "else_branch",
        vec![
            op("MatMul", "e", &["x", "w"], &["ey0"]),
            op("Relu", "e2", &["ey0"], &["ey"]),
        ],
        &[],
        &["ey"],
    ));
    let mut m = model(vec![iff, op("Relu", "after", &["y"], &["z"])], 13);
    let g = m.graph.as_mut().unwrap();
    g.initializer = vec![float_init("w", &[4, 5])];
    let mut cond = vi("cond", &[]);
    cond.r#type
        .as_mut()
        .unwrap()
        .tensor_type
        .as_mut()
        .unwrap()
        .elem_type = 9;
    g.input.push(cond);
    let Imported { graph: gr, .. } = run(&m).unwrap();
    assert_eq!(cost(&gr, "if"), 80.0 + 10.0);
    assert_eq!(cost(&gr, "after"), 10.0, "the else branch's 2x5 output");

    // Loop: 3 trips of a body adding x to the carried value (8 FLOPs each), one scan output.
    let mut lp = op("Loop", "loop", &["trips", "", "x"], &["v", "scan"]);
    lp.attribute.push(graph_attr(
        "body",
        vec![
            op("Identity", "c", &["cond_in"], &["cond_out"]),
            op("Add", "add", &["v_in", "x"], &["v_out"]),
            op("Identity", "s", &["v_out"], &["scan_out"]),
        ],
        &[("i", &[]), ("cond_in", &[]), ("v_in", &[2, 4])],
        &["cond_out", "v_out", "scan_out"],
    ));
    let mut m = model(vec![lp, op("Relu", "after", &["scan"], &["z"])], 13);
    m.graph.as_mut().unwrap().initializer = vec![int64_init("trips", &[3])];
    let Imported { graph: gr, .. } = run(&m).unwrap();
    assert_eq!(cost(&gr, "loop"), 3.0 * 8.0);
    assert_eq!(cost(&gr, "after"), 3.0 * 8.0, "scan output 3x2x4");
    // A trip count known only at run time cannot be sized: an error naming the Loop.
    m.graph.as_mut().unwrap().initializer.clear();
    m.graph.as_mut().unwrap().input.push(vi("trips", &[]));
    let e = run(&m).unwrap_err().to_string();
    assert!(e.contains("node 'loop' (Loop) could not be sized"), "{e}");

    // Scan over x's 2 rows (4 each): a running sum, 4 FLOPs per step.
    let mut sc = op("Scan", "scan", &["init", "x"], &["final", "ys"]);
    sc.attribute.push(AttributeProto {
        name: "num_scan_inputs".into(),
        i: 1,
        ..AttributeProto::default()
    });
    sc.attribute.push(graph_attr(
        "body",
        vec![
            op("Add", "acc", &["s_in", "row"], &["s_out"]),
            op("Identity", "o", &["s_out"], &["y_out"]),
        ],
        &[("s_in", &[4]), ("row", &[4])],
        &["s_out", "y_out"],
    ));
    let mut m = model(vec![sc, op("Relu", "after", &["ys"], &["z"])], 13);
    m.graph.as_mut().unwrap().initializer = vec![float_init("init", &[4])];
    let Imported { graph: gr, .. } = run(&m).unwrap();
    assert_eq!(cost(&gr, "scan"), 2.0 * 4.0);
    assert_eq!(cost(&gr, "after"), 8.0, "stacked 2x4");
}

#[test]
fn shape_arithmetic_through_where_slices_and_transposes() {
    // PyTorch's expand(-1): Expand(cls, Where(Equal(c, -1), ones, c)), c = [1, -1, 4].
    let nodes = vec![
        op("Equal", "eq", &["c", "m1"], &["is"]),
        op("Where", "where", &["is", "ones", "c"], &["target"]),
        op("Expand", "expand", &["cls", "target"], &["e"]),
        op("Relu", "r1", &["e"], &["y1"]),
        // Its pad reordering: [1, 2] ++ zeros(2) -> 2x2 -> rows reversed -> transposed -> flat:
        // pads [0, 1, 0, 2] on x (2x4) -> 2x7.
        op("Mod", "mod", &["nine", "seven"], &["two"]),
        op("ConstantOfShape", "zeros", &["two"], &["z"]),
        op("Concat", "cat", &["p12", "z"], &["p"]),
        op("Reshape", "p2", &["p", "s22"], &["pm"]),
        op("Slice", "rev", &["pm", "m1", "min", "zero", "m1"], &["pr"]),
        op("Transpose", "tr", &["pr"], &["pt"]),
        op("Reshape", "flat", &["pt", "m1"], &["pads"]),
        op("Pad", "pad", &["x", "pads"], &["xp"]),
        op("Relu", "r2", &["xp"], &["y2"]),
    ];
    let mut m = model(nodes, 13);
    let g = m.graph.as_mut().unwrap();
    g.node[6].attribute.push(AttributeProto {
        name: "axis".into(),
        ..AttributeProto::default()
    });
    g.initializer = vec![
        ints1d("c", &[1, -1, 4]),
        ints1d("m1", &[-1]),
        ints1d("ones", &[1, 1, 1]),
        float_init("cls", &[1, 1, 4]),
        ints1d("nine", &[-5]),
        ints1d("seven", &[7]),
        ints1d("p12", &[1, 2]),
        ints1d("s22", &[2, 2]),
        ints1d("zero", &[0]),
        ints1d("min", &[i64::MIN + 1]),
    ];
    g.node[9].attribute.push(AttributeProto {
        name: "perm".into(),
        ints: vec![1, 0],
        ..AttributeProto::default()
    });
    let Imported { graph: gr, report } = run(&m).unwrap();
    assert!(report.unsized_ops.is_empty(), "{:?}", report.unsized_ops);
    assert_eq!(cost(&gr, "r1"), 4.0);
    assert_eq!(cost(&gr, "r2"), 14.0);
}

#[test]
fn dtype_recounts_floating_point_tensors_only() {
    use super::Dtype;
    let own = imp("tiny_cnn", &Options::default());
    let half = Options {
        train: true,
        dtype: Some(Dtype::Float16),
        ..Options::default()
    };
    let Imported { graph: g, report } = imp("tiny_cnn", &half);
    // Weights, activations and gradients at 2 bytes instead of float32's 4; FLOPs unchanged.
    assert_eq!(report.param_bytes, own.report.param_bytes / 2.0);
    assert_eq!(node(&g, "/conv1/Conv").mem, 896.0 / 2.0);
    assert_eq!(
        edge_bytes(&g, "/conv1/Conv", "/bn1/BatchNormalization"),
        4096.0
    );
    assert_eq!(
        edge_bytes(&g, "gradient//conv1/Conv", "update//conv1/Conv"),
        448.0
    );
    assert_eq!(cost(&g, "/conv1/Conv"), cost(&own.graph, "/conv1/Conv"));
    assert!(
        report
            .lines()
            .iter()
            .any(|l| l.contains("counted at float16") && l.contains("own: float32")),
        "{:?}",
        report.lines()
    );
    // Integer tensors keep their type: the MLP's int64 shape arithmetic.
    let eight = Options {
        dtype: Some(Dtype::Float64),
        ..Options::default()
    };
    let (m32, m64) = (
        imp("mlp", &Options::default()).graph,
        imp("mlp", &eight).graph,
    );
    let ints = |g: &Graph| edge_bytes(g, "/view/Shape", "/view/Gather");
    assert!(ints(&m32) > 0.0);
    assert_eq!(ints(&m32), ints(&m64));
    assert_eq!(
        edge_bytes(&m64, "/fc2/Gemm", "/view/Reshape"),
        2.0 * edge_bytes(&m32, "/fc2/Gemm", "/view/Reshape")
    );
    // Names and a bad one.
    assert_eq!(Dtype::parse("BF16").unwrap(), Dtype::Bfloat16);
    assert_eq!(Dtype::parse("fp8").unwrap().bytes(), 1.0);
    let e = Dtype::parse("int8").unwrap_err().to_string();
    assert!(e.contains("'int8'") && e.contains("bfloat16"), "{e}");
}

#[test]
fn unscoped_names_get_layers_from_the_structure() {
    // Names without '/' or metadata (`MatMul_0`): an op with a weight matrix starts a
    // layer, the ops after it join the latest layer that feeds them.
    let nodes = vec![
        // A weight through an Identity (PyTorch's TorchScript exporter writes these).
        op("Identity", "Identity_7", &["w2raw"], &["w2"]),
        op("Relu", "Relu_0", &["x"], &["x0"]),
        op("MatMul", "MatMul_1", &["x0", "w1"], &["a"]),
        op("Relu", "Relu_2", &["a"], &["b"]),
        op("MatMul", "MatMul_3", &["b", "w2"], &["c"]),
        op("Add", "Add_4", &["c", "b"], &["d"]),
        op("MatMul", "MatMul_5", &["d", "d2"], &["e"]),
        op("Transpose", "Transpose_6", &["d"], &["d2"]),
    ];
    let mut m = model(nodes, 13);
    let g0 = m.graph.as_mut().unwrap();
    g0.input = vec![vi("x", &[4, 4])];
    g0.initializer = vec![float_init("w1", &[4, 4]), float_init("w2raw", &[4, 4])];
    let Imported { graph: g, report } = run(&m).unwrap();
    let layer = |id: &str| node(&g, id).layer.unwrap();
    assert_eq!(layer("MatMul_1"), layer("Relu_2"));
    assert_ne!(layer("MatMul_1"), layer("MatMul_3"));
    // The residual Add joins its branch's MatMul, not the skip's layer.
    assert_eq!(layer("Add_4"), layer("MatMul_3"));
    // A MatMul of two activations has no weights: it joins too.
    assert_eq!(layer("MatMul_5"), layer("MatMul_3"));
    assert_eq!(layer("Transpose_6"), layer("MatMul_3"));
    // An op nothing feeds is its own layer; one that reads only constants is its consumer's.
    assert_ne!(layer("Relu_0"), layer("MatMul_1"));
    assert_eq!(layer("Identity_7"), layer("MatMul_3"));
    let distinct: BTreeSet<i64> = g.nodes.iter().map(|n| n.layer.unwrap()).collect();
    assert_eq!(distinct.len(), 3);
    assert!(
        report
            .lines()
            .iter()
            .any(|l| l.contains("3 layers derived from the structure")),
        "{:?}",
        report.lines()
    );
    // One scoped name anywhere: layers from the names, as before.
    let named = imp("tiny_cnn", &Options::default());
    assert!(!named
        .report
        .lines()
        .iter()
        .any(|l| l.contains("derived from the structure")));
}
