#!/usr/bin/env python3
"""The ONNX importer against independent counts (skipped when `onnx` is not installed;
the onnx-tool comparison skipped when `onnx_tool` is not).

For each committed fixture (tests/fixtures/onnx/) and a ResNet-50-size model built here
with random weights (tools/onnx_fixtures.py), `placesim import` must give:
- as many nodes as the ONNX graph has;
- for every Conv, ConvTranspose, Gemm, MatMul, LSTM and GRU, exactly 2 x the multiply-
  accumulates computed here from the shapes of onnx's own shape inference;
- parameter bytes (the nodes' `mem`) within 1% of the initializers' bytes (NumPy);
- on the ResNet-50-size model, total FLOPs within 10% of 2 x onnx-tool's MACs (onnx-tool
  counts one MAC per element of element-wise ops, placesim one FLOP; docs/onnx.md).

    cargo build --release && python3 tests/onnx_crosscheck.py -v
    PLACESIM=path/to/placesim python3 tests/onnx_crosscheck.py
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "onnx")
CLI = os.environ.get("PLACESIM", os.path.join(ROOT, "target", "release", "placesim"))

try:
    import onnx
    from onnx import shape_inference
except ImportError:  # CI machines: no onnx, nothing to check against
    onnx = None

try:
    import onnx_tool
except ImportError:
    onnx_tool = None


def placesim_import(path, *args):
    out = subprocess.run([CLI, "import", path, *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def shapes_of(model):
    inferred = shape_inference.infer_shapes(model)
    g = inferred.graph
    shapes = {}
    for v in list(g.input) + list(g.value_info) + list(g.output):
        dims = [d.dim_value for d in v.type.tensor_type.shape.dim]
        shapes[v.name] = dims
    for t in g.initializer:
        shapes[t.name] = list(t.dims)
    return shapes


def attr(node, name, default):
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def expected_macs(node, s):
    """Multiply-accumulates of the ops whose FLOPs must be exactly 2 x MACs."""
    op = node.op_type
    if op == "Conv":
        w = s[node.input[1]]
        return math.prod(s[node.output[0]]) * w[1] * math.prod(w[2:])
    if op == "ConvTranspose":
        w = s[node.input[1]]
        return math.prod(s[node.input[0]]) * w[1] * math.prod(w[2:])
    if op == "Gemm":
        a = s[node.input[0]]
        k = a[0] if attr(node, "transA", 0) else a[1]
        return math.prod(s[node.output[0]]) * k
    if op == "MatMul":
        return math.prod(s[node.output[0]]) * s[node.input[0]][-1]
    if op in ("LSTM", "GRU"):
        x, w = s[node.input[0]], s[node.input[1]]
        seq, batch = (x[1], x[0]) if attr(node, "layout", 0) else (x[0], x[1])
        h = attr(node, "hidden_size", None)
        return seq * batch * w[0] * w[1] * (x[2] + h)
    return None


@unittest.skipIf(onnx is None, "the onnx Python package is not installed")
class CrossCheck(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.exists(CLI):
            raise unittest.SkipTest(f"{CLI} is not built (cargo build --release)")
        cls.tmp = tempfile.TemporaryDirectory()
        sys.path.insert(0, os.path.join(ROOT, "tools"))
        import onnx_fixtures

        cls.resnet = os.path.join(cls.tmp.name, "resnet50.onnx")
        onnx.save(onnx_fixtures.resnet50(), cls.resnet)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def models(self):
        names = sorted(f for f in os.listdir(FIXTURES) if f.endswith(".onnx") and f not in ("dynamic.onnx", "data_dependent.onnx"))
        return [os.path.join(FIXTURES, f) for f in names] + [self.resnet]

    def test_nodes_flops_and_parameters(self):
        for path in self.models():
            with self.subTest(model=os.path.basename(path)):
                # A fixture exported with its weights in an external file that is not committed
                # (resnet18_torchvision.onnx): the graph and the dims are all that is compared.
                model = onnx.load(path, load_external_data=False)
                graph = placesim_import(path)
                self.assertEqual(len(graph["nodes"]), len(model.graph.node))
                by_id = {n["id"]: n for n in graph["nodes"]}
                shapes = shapes_of(model)
                checked = 0
                for node in model.graph.node:
                    macs = expected_macs(node, shapes)
                    if macs is None:
                        continue
                    self.assertEqual(by_id[node.name]["cost"], 2 * macs, node.name)
                    checked += 1
                self.assertGreater(checked, 0)
                params = sum(math.prod(t.dims) * onnx.helper.tensor_dtype_to_np_dtype(t.data_type).itemsize
                             for t in model.graph.initializer)
                mem = sum(n.get("mem") or 0 for n in graph["nodes"])
                self.assertLessEqual(abs(mem - params), 0.01 * params)
                print(f"{os.path.basename(path)}: {len(model.graph.node)} nodes, "
                      f"{checked} Conv/Gemm/MatMul/LSTM/GRU exact, params {mem:.6g} B "
                      f"(numpy {params:.6g} B)", file=sys.stderr)

    @unittest.skipIf(onnx_tool is None, "onnx-tool is not installed")
    def test_total_flops_near_onnx_tool(self):
        graph = placesim_import(self.resnet)
        ours = sum(n["cost"] for n in graph["nodes"])
        m = onnx_tool.Model(self.resnet)
        m.graph.shape_infer()
        m.graph.profile()
        theirs = 2 * sum(m.graph.macs)
        print(f"resnet50: placesim {ours:.6g} FLOPs, 2 x onnx-tool MACs {theirs:.6g} "
              f"({(ours - theirs) / theirs:+.2%})", file=sys.stderr)
        self.assertLessEqual(abs(ours - theirs), 0.10 * theirs)


# --- the zoo: real models, exported here (python3 tests/onnx_crosscheck.py --zoo DIR [NAME|torchvision|keras ...]) --

TORCHVISION = ["resnet50", "mobilenet_v3_large", "efficientnet_b0", "convnext_tiny", "densenet121",
               "regnet_y_400mf", "vit_b_16", "swin_t", "squeezenet1_0", "inception_v3"]
KERAS = ["MobileNetV2", "ResNet50", "EfficientNetB0", "DenseNet121"]


def export_torchvision(name, path, batch=1, dynamic=False):
    import torch
    import torchvision

    model = getattr(torchvision.models, name)(weights=None).eval()
    size = 299 if name == "inception_v3" else 224
    x = torch.randn(batch, 3, size, size)
    axes = {"x": {0: "batch"}} if dynamic else None
    torch.onnx.export(model, (x,), path, input_names=["x"], opset_version=17, dynamo=False,
                      do_constant_folding=True, dynamic_axes=axes)


def export_keras(name, path):
    import tensorflow as tf
    import tf2onnx
    import keras

    model = getattr(keras.applications, name)(weights=None)
    spec = [tf.TensorSpec([1] + list(x.shape[1:]), x.dtype, name="x") for x in model.inputs]
    tf2onnx.convert.from_keras(model, input_signature=spec, opset=17, output_path=path)


def matrix_flops(model):
    """2 x the MACs of the Conv/Gemm/MatMul/LSTM/GRU nodes, from onnx's shape inference."""
    shapes = shapes_of(model)
    total = 0
    for node in model.graph.node:
        try:
            macs = expected_macs(node, shapes)
        except (KeyError, IndexError, TypeError):
            macs = None
        total += 2 * (macs or 0)
    return total


def onnx_tool_flops(path):
    try:
        import onnx_tool

        m = onnx_tool.Model(path)
        m.graph.shape_infer()
        m.graph.profile()
        return 2 * float(sum(m.graph.macs))
    except Exception as e:  # noqa: BLE001: a model onnx-tool cannot profile gets "n/a"
        print(f"onnx-tool: {type(e).__name__}: {e}", file=sys.stderr)
        return None


def zoo_row(label, path, *flags):
    import time

    model = onnx.load(path, load_external_data=False)
    t0 = time.monotonic()
    out = subprocess.run([CLI, "import", path, *flags], capture_output=True, text=True)
    secs = time.monotonic() - t0
    row = {"model": label, "nodes": len(model.graph.node), "import_s": round(secs, 2),
           "rc": out.returncode}
    indep = matrix_flops(model)
    row["matrix_flops_onnx"] = indep
    row["onnx_tool_flops"] = onnx_tool_flops(path) if not flags else None
    if out.returncode == 0:
        g = json.loads(out.stdout)
        row["flops"] = sum(n["cost"] for n in g["nodes"])
        row["matrix_flops"] = sum(n["cost"] for n in g["nodes"] if n["op"] in
                                  ("Conv", "ConvTranspose", "Gemm", "MatMul", "LSTM", "GRU"))
        row["param_bytes"] = sum(n.get("mem") or 0 for n in g["nodes"])
        row["what"] = "; ".join(l.removeprefix("note: ONNX import: ") for l in out.stderr.splitlines()[1:])[:300]
    else:
        row["what"] = out.stderr.strip()[:400]
    print(json.dumps(row), flush=True)
    return row


def zoo(out_dir, only=None):
    os.makedirs(out_dir, exist_ok=True)
    rows = []
    jobs = [("torchvision", n) for n in TORCHVISION] + [("keras", n) for n in KERAS]
    for kind, name in jobs:
        if only and name not in only and kind not in only:
            continue
        path = os.path.join(out_dir, f"{kind}_{name}.onnx")
        try:
            if not os.path.exists(path):
                (export_torchvision if kind == "torchvision" else export_keras)(name, path)
        except Exception as e:  # noqa: BLE001: an export failure is a row too
            print(json.dumps({"model": f"{kind} {name}", "export_failed": f"{type(e).__name__}: {e}"[:300]}))
            continue
        rows.append(zoo_row(f"{kind} {name}", path))
        if name in ("vit_b_16", "swin_t", "resnet50"):
            # A static batch-1 export imported at batch 8: propagated or refused, never silent.
            rows.append(zoo_row(f"{kind} {name} @8", path, "--input-shape", "x=8x3x224x224"))
    return rows


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--zoo":
        zoo(sys.argv[2], set(sys.argv[3:]) or None)
    else:
        unittest.main()
