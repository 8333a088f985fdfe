#!/usr/bin/env python3
"""Writes the hardware presets, graphs/clusters/hw_*.json: clusters of real devices in
physical units (speed in FLOP/s, memory in bytes, bandwidth in B/s, latency in s), for
graphs whose `cost` is FLOPs and whose bytes are bytes (ONNX imports, the bundled op graphs).
Each device says which precision its FLOP/s are for (`precision`: float16 or bfloat16 for a
GPU's tensor-core rate, float32 for the CPU), and each cluster's name repeats it; import a
model with `placesim import --dtype float16` to count its tensors at that precision.

Every figure below has its source in a comment. A device's `speed` is its dense peak for
the precision stated, times EFFICIENCY; ops that are limited by memory bandwidth rather than
arithmetic (element-wise, normalization, pooling, softmax, data movement, and their
gradients) get a per-kind `op_speed` factor so that they run at the device's memory
bandwidth instead: one cost unit per element, 4 bytes moved per element on a GPU (an fp16
read and write, mixed precision) and 8 on the CPU (fp32). See graphs/clusters/README.md.

    python3 tools/hardware_presets.py        # rewrites graphs/clusters/hw_*.json
"""
import json
import os

# Share of peak that training kernels reach: 40% is typical of well-tuned large-model
# training (model FLOPs utilisation 30-50%); small ops reach less, which the memory-bound
# factors below partly capture.
EFFICIENCY = 0.4

GB = 1e9
GIB = 1024**3

DEVICES = {
    # NVIDIA Tesla V100 SXM2 datasheet (2017): 125 TFLOP/s fp16 tensor, 15.7 fp32;
    # HBM2 900 GB/s; 16 GB (a 32 GB version exists).
    "V100": {"kind": "gpu", "precision": "float16", "peak": 125e12, "memory": 16 * GIB, "mem_bw": 900 * GB},
    # NVIDIA A100 SXM4 80GB datasheet (2020): 312 TFLOP/s fp16/bf16 tensor dense, 19.5 fp32;
    # HBM2e 2,039 GB/s; 80 GB.
    "A100": {"kind": "gpu", "precision": "float16", "peak": 312e12, "memory": 80 * GIB, "mem_bw": 2039 * GB},
    # NVIDIA H100 SXM5 datasheet (2022): 989 TFLOP/s bf16 tensor dense (1,979 with
    # sparsity), 67 fp32; HBM3 3.35 TB/s; 80 GB.
    "H100": {"kind": "gpu", "precision": "bfloat16", "peak": 989e12, "memory": 80 * GIB, "mem_bw": 3350 * GB},
    # NVIDIA T4 datasheet (2018): 65 TFLOP/s fp16 tensor, 8.1 fp32; GDDR6 320 GB/s; 16 GB.
    "T4": {"kind": "gpu", "precision": "float16", "peak": 65e12, "memory": 16 * GIB, "mem_bw": 320 * GB},
    # A two-socket-class server CPU, one Intel Xeon Platinum 8380 (Ice Lake, 2021): 40 cores
    # x 2.3 GHz x 32 fp32 FLOP/cycle (two AVX-512 FMA units) = 2.94 TFLOP/s fp32 peak;
    # 8 channels DDR4-3200 = 204.8 GB/s; 512 GB of host memory assumed.
    "CPU": {"kind": "cpu", "precision": "float32", "peak": 2.944e12, "memory": 512 * GIB, "mem_bw": 204.8 * GB},
}

LINKS = {
    # NVLink 2.0 (V100 SXM2): 25 GB/s per link per direction, two links between a pair of a
    # DGX-1's directly connected GPUs: 50 GB/s.
    "nvlink2": {"bandwidth": 50 * GB, "latency": 5e-6},
    # NVLink 3.0 through NVSwitch (A100 HGX): 600 GB/s per GPU both directions, 300 one way.
    "nvlink3": {"bandwidth": 300 * GB, "latency": 5e-6},
    # NVLink 4.0 through NVSwitch (H100 HGX): 900 GB/s per GPU both directions, 450 one way.
    "nvlink4": {"bandwidth": 450 * GB, "latency": 5e-6},
    # PCIe x16: 3.0 15.75 GB/s, 4.0 31.5, 5.0 63 raw one way; ~80% after protocol overhead.
    "pcie3": {"bandwidth": 12 * GB, "latency": 1e-5},
    "pcie4": {"bandwidth": 25 * GB, "latency": 1e-5},
    "pcie5": {"bandwidth": 50 * GB, "latency": 1e-5},
    # Ethernet: 10 GbE = 1.25 GB/s raw, ~1.1 GB/s of TCP payload, ~50 us small-message
    # latency through the kernel stack; 100 GbE = 12.5 GB/s raw, ~11 GB/s with RDMA (RoCE),
    # ~10 us.
    "10gbe": {"bandwidth": 1.1 * GB, "latency": 5e-5},
    "100gbe": {"bandwidth": 11 * GB, "latency": 1e-5},
}

# Ops limited by memory bandwidth (ONNX and TensorFlow names); their gradients too.
MEMORY_BOUND = sorted(
    {
        "Relu", "Relu6", "LeakyRelu", "Sigmoid", "Tanh", "Gelu", "Erf", "Elu", "Clip", "HardSwish",
        "Add", "AddV2", "Sub", "Mul", "Div", "RealDiv", "Pow", "Sqrt", "Exp", "Neg", "Where",
        "Sum", "Max", "Min", "BiasAdd", "BatchNormalization", "FusedBatchNormV3",
        "LayerNormalization", "InstanceNormalization", "GroupNormalization", "LRN",
        "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "Softmax", "LogSoftmax",
        "ReduceMean", "ReduceSum", "Mean", "Concat", "ConcatV2", "Transpose", "Pad", "Resize",
        "Cast", "Dropout", "Expand", "Tile", "Gather", "Slice", "Split",
    }
)
MEMORY_BOUND = sorted(set(MEMORY_BOUND) | {op + "Grad" for op in MEMORY_BOUND})

# Fixed seconds per op (`op_overhead`, see docs/format.md): what an op costs before any
# arithmetic. GPU: a CUDA kernel launch takes ~5 us of host time and a few us on the device
# (NVIDIA, "CUDA C++ Best Practices Guide", and the CUDA Graphs introduction on the NVIDIA
# developer blog, "Getting Started with CUDA Graphs", 2019: ~2-3 us launch + ~1-2 us
# per-kernel overhead for back-to-back kernels); eager PyTorch adds ~10 us of Python and
# dispatcher time per op (PyTorch performance tuning guide; "Accelerating PyTorch with CUDA
# Graphs", PyTorch blog, 2021, which removes it). 10 us per op on a GPU. CPU: no launch,
# framework dispatch only, ~2 us per op (onnxruntime / PyTorch CPU eager per-op cost on
# small tensors). These make batch-1 inference take milliseconds, as frameworks do.
OP_OVERHEAD = {"gpu": 10e-6, "cpu": 2e-6}
BYTES_PER_ELEMENT = {"gpu": 4, "cpu": 8}


# The precision of each device's `speed` (its peak above): a device's `precision` field, in
# the names `placesim import --dtype` takes, so a model imported with that --dtype has the
# tensor bytes its FLOP/s assume. A100: fp16 and bf16 tensor rates are equal (312 TFLOP/s).
# Informational: the engine does not read it (docs/format.md).
SHORT = {"float16": "fp16", "bfloat16": "bf16", "float32": "fp32"}


def device(did, model):
    d = DEVICES[model]
    return {"id": did, "kind": d["kind"], "speed": d["peak"] * EFFICIENCY, "memory": d["memory"],
            "precision": d["precision"]}


def precision_text(models):
    """`FLOP/s at fp16 (A100), fp32 (CPU)`: the cluster name's statement of its precisions."""
    return "FLOP/s at " + ", ".join(f"{SHORT[DEVICES[m]['precision']]} ({m})" for m in reversed(models))


def kinds(models):
    out = {}
    for m in models:
        d = DEVICES[m]
        speed = d["peak"] * EFFICIENCY
        factor = d["mem_bw"] / BYTES_PER_ELEMENT[d["kind"]] / speed
        out[d["kind"]] = {
            "op_speed": {op: float(f"{factor:.4g}") for op in MEMORY_BOUND},
            "op_overhead": OP_OVERHEAD[d["kind"]],
        }
    return out


def link(src, dst, kind):
    return [{"src": src, "dst": dst, "type": kind}, {"src": dst, "dst": src, "type": kind}]


def cluster(name, devices, models, default, links):
    used = sorted({l["type"] for l in links} | {default})
    return {
        "name": f"{name}; {precision_text(models)}",
        "devices": devices,
        "bandwidth": LINKS[default]["bandwidth"],
        "latency": LINKS[default]["latency"],
        "link_types": {t: LINKS[t] for t in used},
        "links": links,
        "kinds": kinds(models),
    }


def one_node(gpu, n, gpu_link, host_link):
    """A host CPU and n GPUs: GPUs all-to-all over gpu_link, each GPU to the CPU over host_link."""
    gpus = [f"gpu{i}" for i in range(n)]
    devs = [device("cpu0", "CPU")] + [device(g, gpu) for g in gpus]
    links = []
    for i, a in enumerate(gpus):
        for b in gpus[i + 1:]:
            links += link(a, b, gpu_link)
    return devs, links, host_link


def two_nodes(gpu, per_node, gpu_link, host_link, net):
    """Two hosts of per_node GPUs each; inside a node as one_node, between nodes over net."""
    devs, links = [], []
    for node in range(2):
        cpu = f"n{node}.cpu0"
        gpus = [f"n{node}.gpu{i}" for i in range(per_node)]
        devs += [device(cpu, "CPU")] + [device(g, gpu) for g in gpus]
        for i, a in enumerate(gpus):
            links += link(a, cpu, host_link)
            for b in gpus[i + 1:]:
                links += link(a, b, gpu_link)
    return devs, links, net


PRESETS = {}
for n in (2, 4, 8):
    devs, links, default = one_node("A100", n, "nvlink3", "pcie4")
    PRESETS[f"hw_1node_{n}xA100_nvlink"] = cluster(
        f"1 node: Xeon 8380 + {n} x A100 80GB, NVLink 3 (NVSwitch) between GPUs, PCIe 4.0 to the host",
        devs, ["CPU", "A100"], default, links)
devs, links, default = one_node("H100", 8, "nvlink4", "pcie5")
PRESETS["hw_1node_8xH100_nvlink"] = cluster(
    "1 node: Xeon 8380 + 8 x H100 SXM, NVLink 4 (NVSwitch) between GPUs, PCIe 5.0 to the host",
    devs, ["CPU", "H100"], default, links)
devs, links, default = one_node("V100", 4, "nvlink2", "pcie3")
PRESETS["hw_1node_4xV100_nvlink"] = cluster(
    "1 node: Xeon 8380 + 4 x V100 16GB, NVLink 2 between GPUs, PCIe 3.0 to the host",
    devs, ["CPU", "V100"], default, links)
devs, links, default = one_node("T4", 4, "pcie3", "pcie3")
PRESETS["hw_1node_4xT4_pcie3"] = cluster(
    "1 node: Xeon 8380 + 4 x T4, PCIe 3.0 everywhere (T4 has no NVLink)",
    devs, ["CPU", "T4"], default, links)
for net in ("10gbe", "100gbe"):
    devs, links, default = two_nodes("V100", 4, "nvlink2", "pcie3", net)
    PRESETS[f"hw_2node_8xV100_{net}"] = cluster(
        f"2 nodes of Xeon 8380 + 4 x V100 16GB (NVLink 2 inside, PCIe 3.0 to the host), "
        f"{'10' if net == '10gbe' else '100'} GbE between nodes",
        devs, ["CPU", "V100"], default, links)
# Pesto21's evaluation machine: one CPU and two V100 GPUs. The two V100 (SXM2) talk over
# NVLink 2, each to the CPU over PCIe 3.0; the CPU is this file's server-CPU preset.
devs, links, default = one_node("V100", 2, "nvlink2", "pcie3")
PRESETS["hw_pesto_cpu_2xV100"] = cluster(
    "Pesto21's evaluation machine: a CPU + 2 x V100 (NVLink 2 between the GPUs, PCIe 3.0 to the CPU)",
    devs, ["CPU", "V100"], default, links)


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "graphs", "clusters")
    for name, c in PRESETS.items():
        with open(os.path.join(out, f"{name}.json"), "w") as f:
            json.dump(c, f, indent=1)
            f.write("\n")
        print(name, len(c["devices"]), "devices")


if __name__ == "__main__":
    main()
