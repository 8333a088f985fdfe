"""What the framework exporters (export_pytorch.py, export_keras.py) share: loading the user's
model factory and handing the exported ONNX file to `placesim import`, the one implementation
of FLOPs, bytes, layers and the training pass (docs/onnx.md)."""
import contextlib
import importlib
import inspect
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.environ.get("PLACESIM", os.path.join(ROOT, "target", "release", "placesim"))


@contextlib.contextmanager
def stdout_to_stderr():
    """Everything written to stdout inside (Python's prints, and the C++ progress lines of
    torch's and TensorFlow's exporters, through file descriptor 1) goes to stderr, so stdout
    holds only the graph JSON."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    python_stdout, sys.stdout = sys.stdout, sys.stderr
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stdout = python_stdout
        os.dup2(saved, 1)
        os.close(saved)


def load_model(tool, spec):
    """Calls `module:callable` and returns the model it builds: with `weights=None` when the
    callable takes `weights` (keras.applications, torchvision), since a cost model needs no
    trained weights and a download fails offline; else without arguments."""
    module, _, name = spec.partition(":")
    if not name:
        sys.exit(f"{tool}: MODEL must be module:callable, got '{spec}'")
    with stdout_to_stderr():
        build = getattr(importlib.import_module(module), name)
        try:
            takes_weights = "weights" in inspect.signature(build).parameters
        except (TypeError, ValueError):
            takes_weights = False
        return build(weights=None) if takes_weights else build()


def export_and_import(name, export, train, output, keep_onnx=None, extra=()):
    """Runs `export(path)` to write `name`.onnx in a temporary folder (or `keep_onnx`),
    imports it with placesim (`--train` for the backward pass, `extra` flags), and writes the
    graph JSON to `output` or stdout; the exporter's chatter and the import's report go to
    stderr. A failed import exits with placesim's code and error."""
    with tempfile.TemporaryDirectory() as tmp:
        path = keep_onnx or os.path.join(tmp, f"{name}.onnx")
        with stdout_to_stderr():
            export(path)
        cmd = [CLI, "import", path] + (["--train"] if train else []) + list(extra)
        out = subprocess.run(cmd, capture_output=True, text=True)
    sys.stderr.write(out.stderr)
    if out.returncode != 0:
        sys.exit(out.returncode)
    if output:
        with open(output, "w") as f:
            f.write(out.stdout)
    else:
        sys.stdout.write(out.stdout)
