//! The graph built: unique ids, layers from names and from the structure, parameters
//! (constants feeding weights, external weights).

use super::*;

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
