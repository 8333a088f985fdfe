#!/usr/bin/env python3
"""The torchvision models of docs/bench.md's "Session 16" as ONNX files (opset 17), for
`placesim import` and the real-graph benchmark (`cargo bench --bench real -- file|growth`).

    python3 tools/export_torchvision.py OUTDIR [NAME ...]    # no NAME: every model below

Random weights (`weights=None`: nothing is downloaded; placesim reads shapes, not values),
eval mode, batch 1, `do_constant_folding=True`, the TorchScript exporter (`dynamo=False`;
torch >= 2.9 defaults to the torch.export-based one, which tools/export_pytorch.py tries
first, one model at a time, straight to graph JSON). A model that fails is reported and the
others go on; the exit code is 1 if any failed. Needs `torch`, `torchvision` and `onnx`.
"""
import os
import sys
import time

import torch
import torchvision.models as tvm
import torchvision.models.detection as tvd

IMAGE = (1, 3, 224, 224)


def encoder():
    """`nn.TransformerEncoder`, 12 layers, d_model 768 (BERT-base sized), 128 tokens."""
    layer = torch.nn.TransformerEncoderLayer(d_model=768, nhead=12, dim_feedforward=3072, batch_first=True)
    model = torch.nn.TransformerEncoder(layer, num_layers=12, enable_nested_tensor=False)
    # The layers are deep copies of one: draw each anew, or constant folding merges the equal
    # initializers and the twelve layers share one set of weights (28 MB instead of 340).
    for p in model.parameters():
        torch.nn.init.normal_(p, std=0.02)
    return model


# name -> (constructor, input shape, whether the model takes a list of images)
MODELS = {
    "resnet50": (tvm.resnet50, IMAGE, False),
    "densenet121": (tvm.densenet121, IMAGE, False),
    "inception_v3": (lambda: tvm.inception_v3(init_weights=False), (1, 3, 299, 299), False),
    "googlenet": (lambda: tvm.googlenet(aux_logits=False, init_weights=False), IMAGE, False),
    "mobilenet_v3_large": (tvm.mobilenet_v3_large, IMAGE, False),
    "efficientnet_b0": (tvm.efficientnet_b0, IMAGE, False),
    "regnet_y_400mf": (tvm.regnet_y_400mf, IMAGE, False),
    "convnext_tiny": (tvm.convnext_tiny, IMAGE, False),
    "vit_b_16": (tvm.vit_b_16, IMAGE, False),
    "swin_t": (tvm.swin_t, IMAGE, False),
    "transformer_encoder": (encoder, (1, 128, 768), False),
    # Their size-dependent resize and NonZero/TopK make most ops unsized: import them with
    # --allow-unsized (docs/bench.md says how many ops that leaves at cost 0).
    "maskrcnn_resnet50_fpn": (lambda: tvd.maskrcnn_resnet50_fpn(weights=None, weights_backbone=None), (3, 320, 320), True),
    "fasterrcnn_mobilenet_v3_large_fpn": (
        lambda: tvd.fasterrcnn_mobilenet_v3_large_fpn(weights=None, weights_backbone=None), (3, 320, 320), True),
}


def export(name, out):
    make, shape, as_list = MODELS[name]
    torch.manual_seed(0)
    model = make().eval()
    x = torch.rand(*shape)
    path = os.path.join(out, name + ".onnx")
    t = time.time()
    with torch.no_grad():
        torch.onnx.export(model, ([x],) if as_list else (x,), path, opset_version=17,
                          do_constant_folding=True, dynamo=False, input_names=["input"])
    print(f"{name}: {path} {os.path.getsize(path) / 1e6:.1f} MB in {time.time() - t:.1f} s", flush=True)


def main():
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        sys.exit(__doc__)
    # The fused attention fast path (eval mode, no grad) has no ONNX export
    # (aten::_native_multi_head_attention, aten::_transformer_encoder_layer_fwd): off, so
    # vit_b_16 and the encoder export as MatMul and Softmax ops.
    torch.backends.mha.set_fastpath_enabled(False)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    failed = 0
    for name in sys.argv[2:] or MODELS:
        try:
            export(name, out)
        except Exception as e:  # noqa: BLE001: report the model and go on with the next
            failed += 1
            print(f"{name}: FAILED {type(e).__name__}: {str(e)[:500]}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
