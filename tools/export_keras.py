#!/usr/bin/env python3
"""A Keras model as placesim graph JSON, with FLOPs and bytes at a fixed batch size.

    python3 tools/export_keras.py keras.applications:ResNet50 --batch 32 > resnet50.json
    python3 tools/export_keras.py mypkg.models:build --batch 8 --train > g.json
    python3 tools/export_keras.py keras.applications:NASNetMobile --batch 32 --train \
        --name nasnet_mobile_ops_train -o graphs/nasnet_mobile_ops_train.json

MODEL is `module:callable` returning a `keras.Model`, called with `weights=None` when it
takes `weights` (keras.applications: a cost model needs no trained weights, and the
ImageNet download fails offline), else without arguments. The model's concrete TensorFlow
graph, traced at the batch size given (`tf.function` with a static input signature), is
converted to ONNX by `tf2onnx` (Keras layer names become the node scopes, so layers follow
Keras layers), then read by `placesim import`, so FLOP counts, tensor bytes, layers and the
training pass follow docs/onnx.md exactly (one implementation, in the engine). Needs
`tensorflow` and `tf2onnx`, and a built placesim (`cargo build --release`, or PLACESIM=path).
"""
import argparse
import json
import os
import sys
import tempfile

from placesim_import import export_and_import, load_model


def export(model, batch, path, opset):
    import tensorflow as tf
    import tf2onnx

    # One static TensorSpec per model input, the batch dimension fixed.
    signature = [
        tf.TensorSpec([batch] + list(x.shape[1:]), x.dtype, name=x.name.split(":")[0])
        for x in model.inputs
    ]
    if any(d is None for spec in signature for d in spec.shape):
        sys.exit("export_keras: the model has dynamic dimensions besides the batch; build it with static input shapes")
    tf2onnx.convert.from_keras(model, input_signature=signature, opset=opset, output_path=path)


def provenance(a):
    """`source` and `batch_size`, as the bundled graphs record them: the model, the options
    and the versions of the tools that traced and converted it."""
    import keras
    import tensorflow as tf
    import tf2onnx

    options = f"--batch {a.batch}" + (" --train" if a.train else "") + f" --opset {a.opset}"
    return {
        "source": f"{a.model}(weights=None) via tools/export_keras.py {options} "
                  f"[tensorflow {tf.__version__}, keras {keras.__version__}, tf2onnx {tf2onnx.__version__}]; "
                  f"op-level {'training step (placesim import --train)' if a.train else 'inference'} graph, batch {a.batch}",
        "batch_size": a.batch,
    }


def renamed(text, name, extra):
    """The graph JSON `text` with `name` (first, as placesim writes it) and `extra` fields."""
    graph = json.loads(text)
    graph.pop("name", None)
    graph = {"name": name, **extra, **graph}
    return json.dumps(graph, separators=(",", ":")) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", help="module:callable returning a keras.Model")
    p.add_argument("--batch", type=int, default=1, help="the batch size the graph is sized at")
    p.add_argument("--train", action="store_true", help="add the backward pass and the updates")
    p.add_argument("--opset", type=int, default=17)
    p.add_argument("-o", "--output", help="write the graph JSON here instead of stdout")
    p.add_argument("--keep-onnx", metavar="PATH", help="keep the exported ONNX model here")
    p.add_argument("--allow-unsized", action="store_true",
                   help="pass --allow-unsized to placesim import (ops it cannot size cost 0)")
    p.add_argument("--name", help="name the graph NAME (default: the ONNX model's) and record where it came "
                                  "from (`source`: model, options, tool versions; `batch_size`)")
    a = p.parse_args(argv)
    model = load_model("export_keras", a.model)
    name = a.model.partition(":")[2]
    flags = ["--allow-unsized"] if a.allow_unsized else []
    if not a.name:
        export_and_import(name, lambda path: export(model, a.batch, path, a.opset), a.train, a.output,
                          a.keep_onnx, flags)
        return
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "graph.json")
        export_and_import(name, lambda path: export(model, a.batch, path, a.opset), a.train, raw,
                          a.keep_onnx, flags)
        with open(raw) as f:
            text = renamed(f.read(), a.name, provenance(a))
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
