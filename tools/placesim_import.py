"""What the framework exporters (export_pytorch.py, export_keras.py) share: loading the user's
model factory and handing the exported ONNX file to `placesim import`, the one implementation
of FLOPs, bytes, layers and the training pass (docs/onnx.md)."""
import importlib
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.environ.get("PLACESIM", os.path.join(ROOT, "target", "release", "placesim"))


def load_model(tool, spec):
    """Calls `module:callable` (no arguments) and returns the model it builds."""
    module, _, name = spec.partition(":")
    if not name:
        sys.exit(f"{tool}: MODEL must be module:callable, got '{spec}'")
    return getattr(importlib.import_module(module), name)()


def export_and_import(name, export, train, output):
    """Runs `export(path)` to write `name`.onnx in a temporary folder, imports it with placesim
    (`--train` for the backward pass), and writes the graph JSON to `output` or stdout; the
    import's report goes to stderr."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, f"{name}.onnx")
        export(path)
        cmd = [CLI, "import", path] + (["--train"] if train else [])
        out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    sys.stderr.write(out.stderr)
    if output:
        with open(output, "w") as f:
            f.write(out.stdout)
    else:
        sys.stdout.write(out.stdout)
