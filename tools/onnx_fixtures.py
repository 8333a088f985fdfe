#!/usr/bin/env python3
"""Writes the small ONNX models the importer's tests read (tests/fixtures/onnx/*.onnx).

Built with the `onnx` package's helper API, weights from a fixed NumPy seed, so running it
again gives the same files. The expected FLOPs and bytes in
src/import/onnx/tests/fixtures.rs are computed by hand from the shapes here;
tests/onnx_crosscheck.py checks them against `onnx` and, when installed, `onnx-tool`.

    python3 tools/onnx_fixtures.py [OUT_DIR]          # default tests/fixtures/onnx
    python3 tools/onnx_fixtures.py --resnet50 OUT.onnx  # a ResNet-50-size model (~100 MB), for figures
    python3 tools/onnx_fixtures.py --torchvision OUT_DIR  # torchvision's ResNet-18, graph only (needs torch)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
RNG = np.random.default_rng(11)


def w(name, *shape):
    return numpy_helper.from_array(RNG.standard_normal(shape).astype(np.float32), name)


def i64(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def model(nodes, inputs, outputs, inits, name):
    g = helper.make_graph(nodes, name, inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="placesim-fixtures")
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def vi(name, shape, dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def tiny_cnn():
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "c1.w", "c1.b"], ["c1"], name="/conv1/Conv", pads=[1, 1, 1, 1]),
        n("BatchNormalization", ["c1", "bn.s", "bn.b", "bn.m", "bn.v"], ["b1"], name="/bn1/BatchNormalization"),
        n("Relu", ["b1"], ["r1"], name="/relu1/Relu"),
        n("MaxPool", ["r1"], ["p1"], name="/pool/MaxPool", kernel_shape=[2, 2], strides=[2, 2]),
        n("Conv", ["p1", "c2.w"], ["c2"], name="/conv2/Conv", group=2, strides=[2, 2], pads=[1, 1, 1, 1]),
        n("Conv", ["c2", "c3.w"], ["c3"], name="/conv3/Conv", dilations=[2, 2], pads=[2, 2, 2, 2]),
        n("Add", ["c2", "c3"], ["s"], name="/add/Add"),
        n("GlobalAveragePool", ["s"], ["gap"], name="/gap/GlobalAveragePool"),
        n("Flatten", ["gap"], ["f"], name="/flatten/Flatten"),
        n("Gemm", ["f", "fc.w", "fc.b"], ["logits"], name="/fc/Gemm", transB=1),
        n("Softmax", ["logits"], ["y"], name="/softmax/Softmax", axis=1),
    ]
    inits = [w("c1.w", 8, 3, 3, 3), w("c1.b", 8), w("bn.s", 8), w("bn.b", 8), w("bn.m", 8),
             numpy_helper.from_array(np.ones(8, np.float32), "bn.v"),
             w("c2.w", 8, 4, 3, 3), w("c3.w", 8, 8, 3, 3), w("fc.w", 10, 8), w("fc.b", 10)]
    return model(nodes, [vi("x", [1, 3, 16, 16])], [vi("y", [1, 10])], inits, "tiny_cnn")


def mlp():
    n = helper.make_node
    nodes = [
        n("Gemm", ["x", "fc1.w", "fc1.b"], ["h"], name="/fc1/Gemm", transB=1),
        n("Relu", ["h"], ["r"], name="/fc1/Relu"),
        n("Gemm", ["r", "fc2.w"], ["o"], name="/fc2/Gemm"),
        # Shape arithmetic as exporters write it: reshape o to [batch, 2, 4].
        n("Shape", ["o"], ["shp"], name="/view/Shape"),
        n("Gather", ["shp", "zero"], ["b"], name="/view/Gather", axis=0),
        n("Unsqueeze", ["b", "zero1"], ["b1"], name="/view/Unsqueeze"),
        n("Concat", ["b1", "tail"], ["newshape"], name="/view/Concat", axis=0),
        n("Reshape", ["o", "newshape"], ["y"], name="/view/Reshape"),
    ]
    inits = [w("fc1.w", 32, 16), w("fc1.b", 32), w("fc2.w", 32, 8),
             i64("zero", 0), i64("zero1", [0]), i64("tail", [2, 4])]
    return model(nodes, [vi("x", [4, 16])], [vi("y", [4, 2, 4])], inits, "mlp")


def matmul_batched():
    n = helper.make_node
    nodes = [
        n("MatMul", ["q", "wq"], ["qp"], name="/attn/q/MatMul"),       # [2,3,4,5] x [5,6]
        n("MatMul", ["k", "wk"], ["kp"], name="/attn/k/MatMul"),       # [2,3,4,5] x [5,6]
        n("Transpose", ["kp"], ["kt"], name="/attn/Transpose", perm=[0, 1, 3, 2]),
        n("MatMul", ["qp", "kt"], ["sc"], name="/attn/scores/MatMul"),  # [2,3,4,6] x [2,3,6,4]
        n("Div", ["sc", "scale"], ["scs"], name="/attn/Div"),
        n("Softmax", ["scs"], ["p"], name="/attn/Softmax", axis=-1),
        n("MatMul", ["p", "qp"], ["ctx"], name="/attn/ctx/MatMul"),    # [2,3,4,4] x [2,3,4,6]
        n("MatMul", ["ctx", "wo"], ["y"], name="/out/MatMul"),         # [2,3,4,6] x [1,3,6,7]
    ]
    inits = [w("wq", 5, 6), w("wk", 5, 6), w("wo", 1, 3, 6, 7),
             numpy_helper.from_array(np.array(2.0, np.float32), "scale")]
    return model(nodes, [vi("q", [2, 3, 4, 5]), vi("k", [2, 3, 4, 5])], [vi("y", [2, 3, 4, 7])], inits,
                 "matmul_batched")


def rnn():
    n = helper.make_node
    nodes = [
        n("LSTM", ["x", "l.W", "l.R", "l.B"], ["ly", "lh", "lc"], name="/lstm/LSTM", hidden_size=3,
          direction="bidirectional"),
        n("Transpose", ["ly"], ["lyt"], name="/t/Transpose", perm=[0, 2, 1, 3]),  # [5,2,2,3]
        n("Reshape", ["lyt", "s"], ["g_in"], name="/t/Reshape"),                  # [5,2,6]
        n("GRU", ["g_in", "g.W", "g.R"], ["gy", "gh"], name="/gru/GRU", hidden_size=4),
    ]
    inits = [w("l.W", 2, 12, 4), w("l.R", 2, 12, 3), w("l.B", 2, 24),
             i64("s", [5, 2, 6]), w("g.W", 1, 12, 6), w("g.R", 1, 12, 4)]
    return model(nodes, [vi("x", [5, 2, 4])], [vi("gy", [5, 1, 2, 4]), vi("gh", [1, 2, 4])], inits, "rnn")


def dynamic():
    n = helper.make_node
    nodes = [n("Relu", ["x"], ["y"], name="relu")]
    return model(nodes, [vi("x", ["batch", 8])], [vi("y", ["batch", 8])], [], "dynamic")


def data_dependent():
    """A Reshape by a shape known only at run time (NonZero's), before a MatMul: the import is
    an error naming NonZero unless unsized ops are allowed."""
    n = helper.make_node
    nodes = [n("NonZero", ["x"], ["idx"], name="nz"), n("Shape", ["idx"], ["s"], name="shape"),
             n("Reshape", ["x", "s"], ["r"], name="reshape"), n("MatMul", ["r", "w"], ["y"], name="mm")]
    return model(nodes, [vi("x", [2, 4])], [vi("y", ["r0", "r1"])], [w("w", 4, 5)], "data_dependent")


def bottleneck(nodes, inits, x, cin, mid, cout, stride, name):
    """A ResNet-50 bottleneck block (1x1, 3x3, 1x1 convolutions with batch norms)."""
    n = helper.make_node

    def conv_bn(inp, cin, cout, k, s, tag, relu=True):
        pad = k // 2
        inits.extend([w(f"{name}.{tag}.w", cout, cin, k, k),
                      w(f"{name}.{tag}.bs", cout), w(f"{name}.{tag}.bb", cout), w(f"{name}.{tag}.bm", cout),
                      numpy_helper.from_array(np.ones(cout, np.float32), f"{name}.{tag}.bv")])
        nodes.append(n("Conv", [inp, f"{name}.{tag}.w"], [f"{name}.{tag}.c"], name=f"/{name}/{tag}/Conv",
                       kernel_shape=[k, k], strides=[s, s], pads=[pad] * 4))
        nodes.append(n("BatchNormalization", [f"{name}.{tag}.c"] + [f"{name}.{tag}.b{x}" for x in "sbmv"],
                       [f"{name}.{tag}.n"], name=f"/{name}/{tag}/BatchNormalization"))
        if not relu:
            return f"{name}.{tag}.n"
        nodes.append(n("Relu", [f"{name}.{tag}.n"], [f"{name}.{tag}.r"], name=f"/{name}/{tag}/Relu"))
        return f"{name}.{tag}.r"

    a = conv_bn(x, cin, mid, 1, 1, "conv1")
    b = conv_bn(a, mid, mid, 3, stride, "conv2")
    c = conv_bn(b, mid, cout, 1, 1, "conv3", relu=False)
    short = x if (cin == cout and stride == 1) else conv_bn(x, cin, cout, 1, stride, "down", relu=False)
    nodes.append(n("Add", [c, short], [f"{name}.sum"], name=f"/{name}/Add"))
    nodes.append(n("Relu", [f"{name}.sum"], [f"{name}.out"], name=f"/{name}/Relu"))
    return f"{name}.out"


def resnet50(batch=1):
    n = helper.make_node
    nodes, inits = [], []
    inits.append(w("stem.w", 64, 3, 7, 7))
    nodes.append(n("Conv", ["x", "stem.w"], ["stem"], name="/stem/Conv", kernel_shape=[7, 7], strides=[2, 2],
                   pads=[3, 3, 3, 3]))
    nodes.append(n("Relu", ["stem"], ["stem.r"], name="/stem/Relu"))
    nodes.append(n("MaxPool", ["stem.r"], ["pool"], name="/pool/MaxPool", kernel_shape=[3, 3], strides=[2, 2],
                   pads=[1, 1, 1, 1]))
    x, cin = "pool", 64
    for stage, (mid, blocks, stride) in enumerate([(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]):
        for b in range(blocks):
            x = bottleneck(nodes, inits, x, cin, mid, mid * 4, stride if b == 0 else 1, f"layer{stage + 1}.{b}")
            cin = mid * 4
    nodes.append(n("GlobalAveragePool", [x], ["gap"], name="/gap/GlobalAveragePool"))
    nodes.append(n("Flatten", ["gap"], ["flat"], name="/flatten/Flatten"))
    inits.extend([w("fc.w", 1000, 2048), w("fc.b", 1000)])
    nodes.append(n("Gemm", ["flat", "fc.w", "fc.b"], ["y"], name="/fc/Gemm", transB=1))
    return model(nodes, [vi("x", [batch, 3, 224, 224])], [vi("y", [batch, 1000])], inits, "resnet50")


def torchvision_resnet18(out):
    """torchvision's ResNet-18 exported by PyTorch (TorchScript exporter, 1x3x224x224), saved with
    its weights in an external file that is then deleted: the committed model is the graph and
    the dims only (12.7 KB instead of 47 MB), which is all an import needs. Needs torch and
    torchvision."""
    import tempfile

    import torch
    import torchvision

    with tempfile.TemporaryDirectory() as tmp:
        full = os.path.join(tmp, "full.onnx")
        torch.onnx.export(torchvision.models.resnet18().eval(), (torch.randn(1, 3, 224, 224),), full,
                          dynamo=False, input_names=["input0"], opset_version=17, do_constant_folding=True)
        path = os.path.join(out, "resnet18_torchvision.onnx")
        onnx.save_model(onnx.load(full), path, save_as_external_data=True, all_tensors_to_one_file=True,
                        location="resnet18_torchvision.weights", size_threshold=1024)
        os.remove(os.path.join(out, "resnet18_torchvision.weights"))
        print(path, os.path.getsize(path))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--resnet50":
        onnx.save(resnet50(), sys.argv[2])
        return
    if len(sys.argv) == 3 and sys.argv[1] == "--torchvision":
        torchvision_resnet18(sys.argv[2])
        return
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "onnx")
    os.makedirs(out, exist_ok=True)
    for name, build in [("tiny_cnn", tiny_cnn), ("mlp", mlp), ("matmul_batched", matmul_batched), ("rnn", rnn),
                        ("dynamic", dynamic), ("data_dependent", data_dependent)]:
        path = os.path.join(out, f"{name}.onnx")
        onnx.save(build(), path)
        print(path, os.path.getsize(path))


if __name__ == "__main__":
    main()
