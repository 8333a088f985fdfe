#!/usr/bin/env python3
"""A PyTorch model as placesim graph JSON, with FLOPs and bytes at the shapes of a sample input.

    python3 tools/export_pytorch.py torchvision.models:resnet50 --input-shape 1x3x224x224 > resnet50.json
    python3 tools/export_pytorch.py mypkg.models:build --input-shape 8x128 --dtype int64 --train > g.json

MODEL is `module:callable`: the callable returns an `nn.Module` (called without arguments;
a class with a default constructor works). The model is exported with PyTorch's own ONNX
exporter (`torch.onnx.export` on torch.export, static shapes from the sample input, the module
path of every op in its metadata, so layers follow modules; the TorchScript exporter when
torch.export cannot trace the model), then read by `placesim import`, so FLOP counts,
tensor bytes, layers and the training pass follow docs/onnx.md exactly (one implementation,
in the engine). Needs `torch`, `onnx` and `onnxscript` (which torch's exporter uses) and a built placesim
(`cargo build --release`, or PLACESIM=path).
"""
import argparse
import sys

from placesim_import import export_and_import, load_model


def export(model, shapes, dtype, path, opset):
    import torch

    model.eval()
    inputs = tuple(
        torch.zeros(shape, dtype=getattr(torch, dtype)) if dtype != "float32" else torch.randn(shape)
        for shape in shapes
    )
    names = [f"input{i}" for i in range(len(inputs))]
    # Static shapes (no dynamic axes): the graph is sized at the sample input's shapes.
    # torch.export-based exporter first (torch >= 2.5; it records each op's module path, which
    # placesim's layers follow, docs/onnx.md); the TorchScript exporter (node names
    # /layer1/layer1.0/conv1/Conv) for an older torch or a model torch.export cannot trace.
    kwargs = dict(input_names=names, opset_version=opset)
    try:
        torch.onnx.export(model, inputs, path, dynamo=True, **kwargs)
        return
    except Exception as e:  # noqa: BLE001: any failure of the new exporter falls back
        print(f"export_pytorch: torch.export-based export failed ({type(e).__name__}: {e}); "
              "using the TorchScript exporter", file=sys.stderr)
    try:
        torch.onnx.export(model, inputs, path, dynamo=False, do_constant_folding=True, **kwargs)
    except TypeError:
        torch.onnx.export(model, inputs, path, do_constant_folding=True, **kwargs)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", help="module:callable returning an nn.Module")
    p.add_argument("--input-shape", action="append", required=True,
                   help="a sample input's shape, e.g. 1x3x224x224 (repeat for several inputs)")
    p.add_argument("--dtype", default="float32", help="the inputs' torch dtype (float32, int64, ...)")
    p.add_argument("--train", action="store_true", help="add the backward pass and the updates")
    p.add_argument("--opset", type=int, default=18, help="ONNX opset (18: torch.export-based exporter's own, no conversion)")
    p.add_argument("-o", "--output", help="write the graph JSON here instead of stdout")
    p.add_argument("--keep-onnx", metavar="PATH", help="keep the exported ONNX model here")
    p.add_argument("--allow-unsized", action="store_true",
                   help="pass --allow-unsized to placesim import (ops it cannot size cost 0)")
    a = p.parse_args(argv)
    shapes = [[int(d) for d in s.split("x")] for s in a.input_shape]
    model = load_model("export_pytorch", a.model)
    name = a.model.partition(":")[2]
    export_and_import(name, lambda path: export(model, shapes, a.dtype, path, a.opset), a.train, a.output, a.keep_onnx,
                      ["--allow-unsized"] if a.allow_unsized else [])


if __name__ == "__main__":
    main()
