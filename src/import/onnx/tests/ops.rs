//! Shape inference and costs per op family, on models built here: Einsum, Range and
//! DepthToSpace, slices, Where and transposes, batches baked into reshapes, quantized ops,
//! If, Loop and Scan.

use super::*;

fn attr_s(name: &str, s: &str) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        s: Bytes::from(s.as_bytes().to_vec()),
        ..AttributeProto::default()
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
