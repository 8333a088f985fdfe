#!/usr/bin/env python3
"""Label the layers of the bundled Pesto21 model graphs (nodes[].layer), for the `expert` placer.

Pesto21 §5.2's Expert puts "a subset of layers" on each GPU (RNNLM, Transformer: the stacked
LSTM / encoder and decoder layers, embedding with the first, softmax with the last) and, for
NASNet, "parallel branches within each cell across different GPUs". The bundled graphs carry
TensorFlow name scopes that say which layer or cell an op belongs to; this script writes them
as `layer` (docs/format.md) and leaves every other byte of the file as it was (the files are
compact JSON; loading and dumping them again is byte-identical, checked before writing).

Rules (a node whose name says nothing keeps no layer; `expert` then gives it its first labelled
predecessor's, else its first labelled successor's):
- rnnlm_ops_train: `lstm<k>` and `drop<k>` -> k; `embedding` -> 0; `softmax_w` -> 1.
- transformer2_ops_train: `enc<k>_...` -> k, `dec<k>_...` -> 2 + k; `enc_emb...` -> 0,
  `dec_emb...` -> 2.
- nasnet_mobile_ops_infer: cells in network order: the stem (`stem_conv1`, `stem_bn1`), the
  two stem cells (`..._stem_1_1`, `..._stem_2_1`), the normal cells `..._<n>_1` and the
  reduction cells `..._reduce_<n>_1` (before normal cell n), numbered 0, 1, ... in that order;
  only scopes of a cell's own layers (names with normal, reduction, adjust, separable_conv or
  stem), since Keras numbers its anonymous layers (activation_14, add_3) globally.
- nasnet_mobile_ops_train (`placesim import --train` of an ONNX export): as the inference
  graph; the backward and update ops (`gradient/<model>/<scope>/...`,
  `update/<model>/<scope>/...`) take their forward op's cell, so a cell is its forward,
  backward and update ops.
Gradient ops (`gradient_tape/<model>/<scope>/...`) take their forward scope's layer.

Usage: python3 tools/label_layers.py [NAME ...]   (rewrites the files in graphs/: all four,
or the ones named)
"""
import json
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "graphs")


def scope(node_id, model):
    """The name-scope segment right after the model's scope, or None."""
    parts = node_id.split("/")
    if parts and parts[0] == "gradient_tape":
        parts = parts[1:]
    if len(parts) >= 2 and parts[0] == model:
        return parts[1]
    return None


def rnnlm(node_id):
    s = scope(node_id, "rnnlm_1")
    if s is None:
        return None
    m = re.match(r"(lstm|drop)(\d+)_1$", s)
    if m:
        return int(m.group(2))
    if s.startswith("embedding"):
        return 0
    if s.startswith("softmax_w"):
        return 1
    return None


def transformer2(node_id):
    s = scope(node_id, "transformer2_1")
    if s is None:
        return None
    if s.startswith("enc_emb"):
        return 0
    if s.startswith("dec_emb"):
        return 2
    m = re.match(r"(enc|dec)(\d+)_", s)
    if m:
        return int(m.group(2)) + (2 if m.group(1) == "dec" else 0)
    return None


def nasnet_key(node_id):
    """A sortable key of the node's cell, or None."""
    s = scope(node_id, "nasnet_mobile_1")
    if s is None:
        return None
    if s.startswith("stem_"):
        return (0, 0, 0)
    # Keras's own counters (activation_14, add_3, concatenate_7) are not cell numbers.
    if not any(w in s for w in ("normal", "reduction", "adjust", "separable_conv", "stem")):
        return None
    m = re.search(r"(stem_\d|reduce_\d+|\d+)_1$", s)
    if not m:
        return None
    cell = m.group(1)
    if cell.startswith("stem_"):
        return (1, int(cell[5:]), 0)
    if cell.startswith("reduce_"):
        return (2, int(cell[7:]), 0)
    return (2, int(cell), 1)


def nasnet_train_key(node_id):
    """`nasnet_key` of the forward op a backward or update op belongs to."""
    head, _, rest = node_id.partition("/")
    return nasnet_key(rest if head in ("gradient", "update") else node_id)


def label(name, rule):
    path = os.path.join(ROOT, f"{name}.json")
    with open(path) as f:
        text = f.read()
    graph = json.loads(text)
    if json.dumps(graph, separators=(",", ":")) != text.rstrip("\n"):
        raise SystemExit(f"{path}: not compact JSON; refusing to rewrite it")
    keys = [rule(n["id"]) for n in graph["nodes"]]
    if name.startswith("nasnet"):
        rank = {k: i for i, k in enumerate(sorted({k for k in keys if k is not None}))}
        keys = [None if k is None else rank[k] for k in keys]
    for node, layer in zip(graph["nodes"], keys):
        node.pop("layer", None)
        if layer is not None:
            node["layer"] = layer
    out = json.dumps(graph, separators=(",", ":"))
    if text.endswith("\n"):
        out += "\n"
    with open(path, "w") as f:
        f.write(out)
    labelled = sum(k is not None for k in keys)
    print(f"{name}: {labelled} of {len(keys)} nodes labelled, "
          f"{len({k for k in keys if k is not None})} layers")


RULES = {
    "rnnlm_ops_train": rnnlm,
    "transformer2_ops_train": transformer2,
    "nasnet_mobile_ops_infer": nasnet_key,
    "nasnet_mobile_ops_train": nasnet_train_key,
}


def main(argv=None):
    names = sys.argv[1:] if argv is None else argv
    for name in names or RULES:
        if name not in RULES:
            raise SystemExit(f"label_layers: no rule for '{name}' (rules: {', '.join(RULES)})")
        label(name, RULES[name])


if __name__ == "__main__":
    main()
