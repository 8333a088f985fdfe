//! The committed fixtures (`tests/fixtures/onnx/`) against their hand-computed counts:
//! FLOPs, bytes and memory per op, dynamic inputs, training, dtypes.

use super::*;

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
    let err = import(fixture("dynamic"), "d", &Options::default()).unwrap_err();
    let e = err.to_string();
    assert!(
        e.contains("input 'x'") && e.contains("'batch'") && e.contains("a batch for"),
        "{e}"
    );
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
    let err = import(fixture("tiny_cnn"), "t", &batch).unwrap_err();
    let e = err.to_string();
    assert!(
        e.contains("batch 32:") && e.contains("'x' is 1x3x16x16"),
        "{e}"
    );
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
    let err = import(fixture("dynamic"), "d", &shaped).unwrap_err();
    let e = err.to_string();
    assert!(
        e.contains("input shape 'nope'") && e.contains("inputs: x"),
        "{e}"
    );
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
