//! Each way a file can be wrong: files refused with one clear error, ops it cannot size
//! (reported, costing nothing), models that lose too much, bad input shapes.

use super::*;

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
fn json_does_not_look_like_onnx() {
    assert!(is_onnx("m.ONNX", b"{"));
    assert!(is_onnx("upload", &[0x08, 0x07]));
    assert!(!is_onnx("g.json", b"{\"nodes\": []}"));
    assert!(!is_onnx("g.json", b""));
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
