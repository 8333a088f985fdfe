#!/usr/bin/env python3
"""The framework exporters (tools/export_pytorch.py, tools/export_keras.py) on a tiny model
each: node count, the convolution's FLOPs (2 x MACs) and the parameter bytes. Each test is
skipped when its framework is not installed (CI installs none).

    cargo build --release && python3 tests/exporters_test.py -v
"""
import importlib.util
import json
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
CLI = os.environ.get("PLACESIM", os.path.join(ROOT, "target", "release", "placesim"))


def has(module):
    return importlib.util.find_spec(module) is not None


def tiny_torch():
    import torch.nn as nn

    # 1x3x8x8 -> conv 4 filters 3x3 pad 1 -> relu -> flatten -> linear 256 -> 10.
    return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(256, 10))


def tiny_keras():
    import keras

    x = keras.Input((8, 8, 3))
    y = keras.layers.Conv2D(4, 3, padding="same", name="conv")(x)
    y = keras.layers.ReLU(name="relu")(y)
    y = keras.layers.Flatten(name="flatten")(y)
    y = keras.layers.Dense(10, name="dense")(y)
    return keras.Model(x, y)


def keras_with_weights(weights="imagenet"):
    """Like keras.applications: a factory that would download weights unless weights=None."""
    if weights is not None:
        raise RuntimeError(f"would download weights '{weights}' (offline: fails)")
    return tiny_keras()


@unittest.skipUnless(os.path.exists(CLI), "placesim is not built (cargo build --release)")
class Exporters(unittest.TestCase):
    def run_exporter(self, main, args):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "g.json")
            main(args + ["-o", out])
            with open(out) as f:
                return json.load(f)

    def check(self, graph):
        convs = [n for n in graph["nodes"] if n.get("op") == "Conv"]
        self.assertEqual(len(convs), 1, graph["nodes"])
        # 4 x 8 x 8 outputs, 3 x 3 x 3 MACs each (the exporters keep NCHW or transpose around it).
        self.assertEqual(convs[0]["cost"], 2 * 4 * 64 * 27)
        mem = sum(n.get("mem") or 0 for n in graph["nodes"])
        params = (4 * 27 + 4 + 256 * 10 + 10) * 4
        self.assertLessEqual(abs(mem - params), 0.01 * params)

    @unittest.skipUnless(has("torch") and has("onnx"), "torch is not installed")
    def test_pytorch(self):
        import export_pytorch

        sys.modules["exporters_test_models"] = sys.modules[__name__]
        graph = self.run_exporter(export_pytorch.main,
                                  ["exporters_test_models:tiny_torch", "--input-shape", "1x3x8x8"])
        self.check(graph)
        self.assertEqual(len(graph["nodes"]), 4)
        # One layer per module of the Sequential (its children 0..3), from the exporter's metadata.
        self.assertEqual(len({n["layer"] for n in graph["nodes"]}), 4, graph["nodes"])

    @unittest.skipUnless(has("torch") and has("onnx"), "torch is not installed")
    def test_pytorch_stdout_is_only_the_graph(self):
        # The README's usage, `export_pytorch.py ... > g.json`: the exporter's progress lines
        # must not land in the JSON.
        import subprocess

        env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.abspath(__file__)), PLACESIM=CLI)
        out = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "export_pytorch.py"),
                              "exporters_test:tiny_torch", "--input-shape", "1x3x8x8"],
                             capture_output=True, text=True, env=env, check=True)
        self.check(json.loads(out.stdout))

    @unittest.skipUnless(has("tensorflow") and has("tf2onnx") and has("keras"), "tensorflow/tf2onnx is not installed")
    def test_keras_builds_without_weights(self):
        import export_keras

        sys.modules["exporters_test_models"] = sys.modules[__name__]
        graph = self.run_exporter(export_keras.main, ["exporters_test_models:keras_with_weights"])
        self.check(graph)

    @unittest.skipUnless(has("tensorflow") and has("tf2onnx") and has("keras"), "tensorflow/tf2onnx is not installed")
    def test_keras(self):
        import export_keras

        sys.modules["exporters_test_models"] = sys.modules[__name__]
        graph = self.run_exporter(export_keras.main, ["exporters_test_models:tiny_keras", "--batch", "1"])
        self.check(graph)

    @unittest.skipUnless(has("tensorflow") and has("tf2onnx") and has("keras"), "tensorflow/tf2onnx is not installed")
    def test_keras_name_and_provenance(self):
        # --name: the graph named as a bundled graph is, with where it came from; the same ops.
        import export_keras

        sys.modules["exporters_test_models"] = sys.modules[__name__]
        graph = self.run_exporter(export_keras.main,
                                  ["exporters_test_models:tiny_keras", "--batch", "2", "--name", "tiny_b2"])
        self.assertEqual(list(graph)[:3], ["name", "source", "batch_size"])
        self.assertEqual(graph["name"], "tiny_b2")
        self.assertEqual(graph["batch_size"], 2)
        self.assertIn("exporters_test_models:tiny_keras(weights=None) via tools/export_keras.py --batch 2",
                      graph["source"])
        self.assertIn("tensorflow ", graph["source"])
        convs = [n for n in graph["nodes"] if n.get("op") == "Conv"]
        self.assertEqual(len(convs), 1, graph["nodes"])
        self.assertEqual(convs[0]["cost"], 2 * 2 * 4 * 64 * 27)


if __name__ == "__main__":
    unittest.main()
