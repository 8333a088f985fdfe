#!/usr/bin/env python3
"""A PyTorch model as placesim graph JSON, with FLOPs and bytes at the shapes of a sample input.

    python3 tools/export_pytorch.py torchvision.models:resnet50 --input-shape 1x3x224x224 > resnet50.json
    python3 tools/export_pytorch.py mypkg.models:build --input-shape 8x128 --dtype int64 --train > g.json

MODEL is `module:callable`: the callable returns an `nn.Module` (called without arguments;
a class with a default constructor works). The model is exported with PyTorch's own ONNX
exporter (`torch.onnx.export`, static shapes from the sample input, the module hierarchy in
the node names, so layers follow modules), then read by `placesim import`, so FLOP counts,
tensor bytes, layers and the training pass follow docs/onnx.md exactly (one implementation,
in the engine). Needs `torch` (and `onnx`, which torch's exporter uses) and a built placesim
(`cargo build --release`, or PLACESIM=path).
"""
import argparse
import importlib
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.environ.get("PLACESIM", os.path.join(ROOT, "target", "release", "placesim"))


def load_model(spec):
    module, _, name = spec.partition(":")
    if not name:
        sys.exit(f"export_pytorch: MODEL must be module:callable, got '{spec}'")
    return getattr(importlib.import_module(module), name)()


def export(model, shapes, dtype, path, opset):
    import torch

    model.eval()
    inputs = tuple(
        torch.zeros(shape, dtype=getattr(torch, dtype)) if dtype != "float32" else torch.randn(shape)
        for shape in shapes
    )
    names = [f"input{i}" for i in range(len(inputs))]
    # Static shapes (no dynamic_axes): the graph is sized at the sample input's shapes. The
    # TorchScript exporter (dynamo=False) names nodes by module path (/layer1/layer1.0/conv1/Conv),
    # which placesim's layers follow; torch before 2.5 has no `dynamo` argument.
    kwargs = dict(input_names=names, opset_version=opset, do_constant_folding=True)
    try:
        torch.onnx.export(model, inputs, path, dynamo=False, **kwargs)
    except TypeError:
        torch.onnx.export(model, inputs, path, **kwargs)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", help="module:callable returning an nn.Module")
    p.add_argument("--input-shape", action="append", required=True,
                   help="a sample input's shape, e.g. 1x3x224x224 (repeat for several inputs)")
    p.add_argument("--dtype", default="float32", help="the inputs' torch dtype (float32, int64, ...)")
    p.add_argument("--train", action="store_true", help="add the backward pass and the updates")
    p.add_argument("--opset", type=int, default=17)
    p.add_argument("-o", "--output", help="write the graph JSON here instead of stdout")
    a = p.parse_args(argv)
    shapes = [[int(d) for d in s.split("x")] for s in a.input_shape]
    model = load_model(a.model)
    name = a.model.partition(":")[2]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, f"{name}.onnx")
        export(model, shapes, a.dtype, path, a.opset)
        cmd = [CLI, "import", path] + (["--train"] if a.train else [])
        out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    sys.stderr.write(out.stderr)
    if a.output:
        with open(a.output, "w") as f:
            f.write(out.stdout)
    else:
        sys.stdout.write(out.stdout)


if __name__ == "__main__":
    main()
