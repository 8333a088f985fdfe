# placesim's front door.
#   make serve         build the site and serve it on http://127.0.0.1:$(PORT)/
#   make site          build the static site under www/ (wasm + JS glue in www/pkg, graphs in www/graphs)
#   make test          lint (fmt, clippy, rustdoc, tsc over www/), cargo tests, then the headless-browser tests
#   make test-browser  only the browser tests (builds the site and the CLI first)
#   make test-full     the cargo tests at full size (slow properties, 50k-op shapes)
#   make bench         engine benchmark figures (generated graphs)
#   make bench-real    every default pair on every bundled graph and the degenerate shapes
#   make bench-wasm    pesto's exact mode on 20-op instances, natively and in wasm
#   make test-exporters  the ONNX exporters and importer against torch, Keras and onnx (installs them; GBs)
#   make calibrate-cpu the cost model against onnxruntime on this CPU (EXPORT_VENV, ZOO; minutes)
#   make measure       wasm size, time to interactive, run times in headless Chromium
#   make fuzz          cargo-fuzz targets of the loaders, >= 10^7 executions (nightly; fuzz/)
#   make fuzz-smoke    each fuzz target for 20 s (CI)
# See DEVELOPERS.md.

PORT ?= 8000
CARGO ?= cargo
WASM_TARGET := wasm32-unknown-unknown
TARGET_DIR := $(or $(CARGO_TARGET_DIR),target)
WASM := $(TARGET_DIR)/$(WASM_TARGET)/release/placesim.wasm
# One native profile for clippy, the cargo tests and the CLI the browser tests drive: `ci`
# (Cargo.toml: release without fat LTO, 16 codegen units; the same numbers, a third of the
# build time on 2 cores). The shipped wasm stays in `release`.
PROFILE ?= ci
CLI := $(TARGET_DIR)/$(PROFILE)/placesim
# tests/shapes.rs sizes its degenerate graphs by PLACESIM_SHAPE_OPS (default 3,000).
# PLACESIM_TEST_SIZE=full runs the slow property tests at their old, larger size (tests/properties.rs:
# 48 random cases instead of 16; compare's bit-identity test with 1, 3 and 9 seeds instead of 1
# and 3): `make test-full`, the same cargo tests at that size and the shapes at 50,000 ops.
# The wasm-bindgen CLI must be exactly the version of the wasm-bindgen crate in Cargo.lock.
WASM_BINDGEN_VERSION := $(shell awk '/^name = "wasm-bindgen"$$/ {getline; gsub(/[" ]/, "", $$0); sub(/version=/, "", $$0); print; exit}' Cargo.lock)
WASM_BINDGEN := $(or $(shell command -v wasm-bindgen 2>/dev/null),$(HOME)/.cargo/bin/wasm-bindgen)

.PHONY: site serve test build-wasm build-native test-native lint test-rust test-full bench bench-real bench-wasm test-browser test-exporters calibrate-cpu wasm-target wasm-bindgen-cli pkg graphs cli measure chromium clean-site

site: pkg graphs

wasm-target:
	@rustup target list --installed 2>/dev/null | grep -qx $(WASM_TARGET) \
	  || rustup target add $(WASM_TARGET)

# Reuses an installed wasm-bindgen of the right version. A debug build of the CLI installs in
# about a minute on 2 cores instead of 8-11 (optimised), and writes byte-identical output for
# our module (1.2 s per run instead of 0.3 s). Only the `wasm-bindgen` binary, without debug
# info: 2 min 19 s of CPU instead of 2 min 40 s, a 23 MB binary instead of 135 MB.
wasm-bindgen-cli:
	@have=$$($(WASM_BINDGEN) --version 2>/dev/null | awk '{print $$2}'); \
	if [ "$$have" != "$(WASM_BINDGEN_VERSION)" ]; then \
	  echo "installing wasm-bindgen-cli $(WASM_BINDGEN_VERSION) (found: $${have:-none})"; \
	  CARGO_PROFILE_DEV_DEBUG=0 $(CARGO) install --debug --bin wasm-bindgen wasm-bindgen-cli --version $(WASM_BINDGEN_VERSION); \
	fi

# wasm-opt is skipped on purpose: Debian's binaryen emits modules that throw at init.
# The generated placesim.d.ts lets `make lint` type-check the page's calls into the engine.
pkg: wasm-target wasm-bindgen-cli
	$(CARGO) build --release --lib --target $(WASM_TARGET)
	$(or $(shell command -v wasm-bindgen 2>/dev/null),$(HOME)/.cargo/bin/wasm-bindgen) \
	  --target web --out-dir www/pkg $(WASM)

# Copies the bundled graphs and clusters (graphs/*.json, graphs/clusters/*.json) into the
# site and lists them in www/graphs/index.json: {"graphs": [...], "clusters": [...]}.
define SITE_INDEX
import glob, json, os, shutil
out = {"graphs": [], "clusters": []}
os.makedirs("www/graphs/clusters", exist_ok=True)
for p in sorted(glob.glob("graphs/*.json") + glob.glob("graphs/clusters/*.json")):
    d = json.load(open(p))
    stem = os.path.basename(p)[:-5]
    title = d.get("name") or stem
    if isinstance(d.get("nodes"), list):
        shutil.copyfile(p, f"www/graphs/{stem}.json")
        out["graphs"].append({"name": stem, "title": title, "nodes": len(d["nodes"]),
                              "edges": len(d.get("edges", [])), "bytes": os.path.getsize(p)})
    elif isinstance(d.get("devices"), list):
        shutil.copyfile(p, f"www/graphs/clusters/{stem}.json")
        out["clusters"].append({"name": stem, "title": title, "devices": len(d["devices"])})
# The papers' experiments (scenarios/*.json) become the page's presets: a cluster file is
# inlined, and a title and one sentence are written from the scenario itself.
os.makedirs("www/scenarios", exist_ok=True)
titles = {g["name"]: g["title"] for g in out["graphs"]}
papers = {"mayer17": "Mayer17", "carbonari": "Carbonari17", "tictac": "TicTac19", "pesto": "Pesto21"}
out["scenarios"] = []
for p in sorted(glob.glob("scenarios/*.json")):
    sc = json.load(open(p))
    stem = os.path.basename(p)[:-5]
    paper = next((v for k, v in papers.items() if stem.startswith(k)), stem.split("_")[0])
    graph = sc["graph"].get("bundled") or "an uploaded graph"
    cl = sc["cluster"]
    if "file" in cl:
        c = json.load(open(os.path.join("scenarios", cl["file"])))
        sc["cluster"] = {"inline": c}
        where = c.get("name") or os.path.basename(cl["file"])[:-5]
        short = where.split(": ", 1)[-1]
        # The title already says the machine (short); the sentence names it by its head alone.
        where = where.split(": ", 1)[0]
    elif "generate" in cl:
        g = cl["generate"]
        short = f"{g['devices']} generated devices"
        where = (f"{g['devices']} generated devices, speeds {g['speed'][0]:g}..{g['speed'][1]:g}, "
                 f"bandwidths {g['bandwidth'][0]:g}..{g['bandwidth'][1]:g}")
    else:
        short = where = "its device table"
    pl, sch = sc.get("placers") or [], sc.get("schedulers") or []
    seeds = sc.get("seeds", 1)
    rnd = ", op costs and tensor sizes drawn per seed" if sc.get("randomize") else ""
    if sc.get("footprint", "outputs") != "outputs":
        rnd += f", placement footprint {sc['footprint']}"
    n = lambda xs, what: f"{len(xs)} {what}{'s' if len(xs) != 1 else ''} ({', '.join(xs)})" if xs else f"every {what}"
    orders = sc.get("link_order", "fifo")
    orders = orders if isinstance(orders, list) else [orders]
    its = sc.get("iterations", 1)
    rep = sc.get("replica")
    if rep:
        # TicTac19: the replica, not the placers, says what runs where.
        w, ps = rep["workers"], rep["ps"]
        target = rep.get("forward_target")
        mode = "forward" if target else ("training" if "train" in graph else "inference")
        what = {"forward": f"the forward pass of its replica, to {(target or '').split('/')[-1]}",
                "training": "its replica's training step (forward, backward, updates to the servers)",
                "inference": "its whole replica (an inference graph)"}[mode]
        sentence = (f"{len(w)} worker{'s' if len(w) != 1 else ''} ({', '.join(w)}) and {len(ps)} parameter "
                    f"server{'s' if len(ps) != 1 else ''} ({', '.join(ps)}): each worker runs {what}; "
                    f"{n(orders, 'link order')} under {sc.get('links', 'parallel')} links; "
                    f"{its} iteration{'s' if its != 1 else ''} x {seeds} seed{'s' if seeds != 1 else ''}; {where}.")
        short = f"{len(ps)} server{'s' if len(ps) != 1 else ''} + {len(w)} worker{'s' if len(w) != 1 else ''}, {mode}"
    else:
        sentence = (f"{n(pl, 'placer')} x {n(sch, 'scheduler')}"
                    f"{' x ' + n(orders, 'link order') if orders != ['fifo'] else ''} on {where}{rnd}; "
                    f"{f'{its} iterations x ' if its != 1 else ''}{seeds} seed{'s' if seeds != 1 else ''}.")
    json.dump(sc, open(f"www/scenarios/{stem}.json", "w"), indent=1)
    out["scenarios"].append({"name": stem, "title": f"{paper}: {titles.get(graph, graph)} on {short}",
                             "sentence": sentence})
json.dump(out, open("www/graphs/index.json", "w"), indent=1)
print(f"www/graphs/index.json: {len(out['graphs'])} graphs, {len(out['clusters'])} clusters, "
      f"{len(out['scenarios'])} scenarios")
endef
export SITE_INDEX

graphs:
	@rm -rf www/graphs www/scenarios
	@python3 -c "$$SITE_INDEX"

serve: site
	python3 -m http.server $(PORT) --bind 127.0.0.1 --directory www

# The CLI in the shared test profile (PROFILE=release for an LTO build: same numbers).
# Built together with one test target (`--test cli`), so cargo resolves features as
# `cargo test` does (dev-dependencies unify features of libc, getrandom, rand and the
# pumpkin crates): after `make test-rust` this is the binary the CLI tests ran, already
# built, instead of a second build of those crates and placesim (1.5 min on 2 cores).
cli:
	$(CARGO) build --profile $(PROFILE) --bin placesim --test cli

# Two stages. First everything that needs only CPU and the network, side by side: the
# wasm-bindgen install, then the shipped wasm (fat LTO, one codegen unit: its last minutes run
# on one core) and its clippy; the native clippy and test binaries, then the cargo tests;
# Chromium's install when it is missing. (Building the wasm beside the install instead of
# after it was tried: fresh runs of the same code took 13 min 54 s beside, 14 min 20 s after,
# no clear gain for a second target.) Cargo locks target/ci and
# target/$(WASM_TARGET)/release apart, so neither build waits for the other. Then tsc and the browser tests on what is built
# (`lint` replays clippy's cached verdicts).
test:
	$(CARGO) fmt --check
	$(MAKE) --no-print-directory -j3 build-wasm test-native chromium
	$(MAKE) --no-print-directory lint test-browser

build-wasm: pkg
	$(CARGO) clippy --release --lib --target $(WASM_TARGET) -- -D warnings

build-native:
	$(CARGO) clippy --profile $(PROFILE) --all-targets -- -D warnings
	$(CARGO) test --profile $(PROFILE) --lib --bins --tests --no-run

test-native: build-native
	$(MAKE) --no-print-directory test-rust

# rustdoc checks every doc comment's links, private items' too (src/lib.rs says why public
# docs may link to private items). tsc checks the page's JavaScript against its JSDoc types
# (www/jsconfig.json, www/types.js); it needs www/pkg (the engine's generated declarations)
# and tests/browser's pinned typescript.
lint: wasm-target pkg
	$(CARGO) fmt --check
	$(CARGO) clippy --profile $(PROFILE) --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --profile $(PROFILE) --no-deps --lib --document-private-items
	$(CARGO) clippy --release --lib --target $(WASM_TARGET) -- -D warnings
	cd tests/browser && npm ci --no-audit --no-fund
	tests/browser/node_modules/.bin/tsc --noEmit -p www/jsconfig.json

test-rust:
	$(CARGO) test --profile $(PROFILE) --lib --bins --tests

test-full:
	PLACESIM_TEST_SIZE=full PLACESIM_SHAPE_OPS=50000 $(CARGO) test --profile $(PROFILE) --lib --bins --tests

bench:
	$(CARGO) bench --bench engine

# Every default pair on every bundled graph (8 and 50 generated devices, a hardware preset),
# then the degenerate shapes at 50,000 ops; prints markdown tables (docs/bench.md).
bench-real:
	$(CARGO) bench --bench real

# Pesto21's exact mode on the 20-op instances, natively then in wasm (Node, www/pkg).
bench-wasm: pkg
	$(CARGO) bench --bench pesto -- write target/pesto-wasm
	node benches/pesto_wasm.mjs target/pesto-wasm

# The exporters and the importer against real frameworks and onnx's own shape inference. Not in
# `make test`: torch alone is ~5.5 GB. Installs what it needs into EXPORT_VENV when missing
# (a few minutes), then runs tests/exporters_test.py and tests/onnx_crosscheck.py.
EXPORT_VENV ?= .venv-exporters
EXPORT_PACKAGES ?= torch torchvision onnx onnxscript onnxruntime onnx-tool tensorflow-cpu tf2onnx
test-exporters: cli
	@[ -x $(EXPORT_VENV)/bin/python ] || python3 -m venv $(EXPORT_VENV)
	$(EXPORT_VENV)/bin/pip install -q $(EXPORT_PACKAGES)
	@# One process per framework: TensorFlow and torch each bring an LLVM, and loading both in
	@# one process aborts ("Option ... registered more than once").
	PLACESIM=$(abspath $(CLI)) $(EXPORT_VENV)/bin/python tests/exporters_test.py -v -k pytorch
	PLACESIM=$(abspath $(CLI)) $(EXPORT_VENV)/bin/python tests/exporters_test.py -v -k keras
	PLACESIM=$(abspath $(CLI)) $(EXPORT_VENV)/bin/python tests/onnx_crosscheck.py -v

# How close the cost model is to a real run (docs/onnx.md): tools/calibrate_cpu.py fits a
# "this CPU" device on CALIBRATE_FIT measured with onnxruntime on one thread, then predicts
# every other model of the zoo. Not in `make test`: it measures for minutes and needs the
# zoo (exported into ZOO when missing: torch and TensorFlow, one process each).
ZOO ?= target/zoo
CALIBRATE_FIT ?= torchvision_resnet50
CALIBRATE_REPS ?= 9
CALIBRATE_FLAGS ?=
calibrate-cpu: cli
	@[ -x $(EXPORT_VENV)/bin/python ] || python3 -m venv $(EXPORT_VENV)
	@[ -f $(ZOO)/torchvision_resnet50.onnx ] || { $(EXPORT_VENV)/bin/pip install -q $(EXPORT_PACKAGES) && \
	  PLACESIM=$(abspath $(CLI)) $(EXPORT_VENV)/bin/python tests/onnx_crosscheck.py --zoo $(ZOO) torchvision && \
	  PLACESIM=$(abspath $(CLI)) $(EXPORT_VENV)/bin/python tests/onnx_crosscheck.py --zoo $(ZOO) keras; }
	PLACESIM=$(abspath $(CLI)) $(EXPORT_VENV)/bin/python tools/calibrate_cpu.py --reps $(CALIBRATE_REPS) $(CALIBRATE_FLAGS) \
	  --fit $(ZOO)/$(CALIBRATE_FIT).onnx $(ZOO)/*.onnx --cluster-out $(ZOO)/this_cpu.json

# Debian's Chromium drives the browser tests (playwright-core never downloads a browser).
CHROMIUM ?= /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
chromium:
	@[ -x $(CHROMIUM) ] || { echo "installing Debian's chromium"; \
	  $(SUDO) apt-get update && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; }

# Each test file starts its own static server on a free port and its own Chromium, and stops
# them at the end. Two files run at a time: one file keeps about 0.6 of a core busy (page loads,
# CLI runs, waits), so on 2 cores two at a time take less wall time; every wait has its own
# generous timeout (60-600 s). One at a time the suite took 200 s on a quiet machine for about
# 125 s of CPU (node and Chromium); two at a time it passed 53/53 at a load of 14.
BROWSER_TEST_CONCURRENCY ?= 2
test-browser: site cli chromium
	cd tests/browser && npm ci --no-audit --no-fund
	cd tests/browser && PLACESIM_CLI=$${PLACESIM_CLI:-$(abspath $(CLI))} node --test --test-concurrency=$(BROWSER_TEST_CONCURRENCY) ./*.test.mjs

# Prints wasm size, time to interactive and run times in the browser (see DEVELOPERS.md).
measure: site cli chromium
	cd tests/browser && npm ci --no-audit --no-fund
	cd tests/browser && PLACESIM_CLI=$${PLACESIM_CLI:-$(abspath $(CLI))} node measure.mjs

clean-site:
	rm -rf www/pkg www/graphs www/scenarios

# Fuzzing: cargo-fuzz targets for the graph, cluster, scenario and share-link loaders
# (fuzz/, nightly toolchain). `make fuzz` runs each target FUZZ_SECONDS, two at a time, and
# fails below 10^7 executions in total; `make fuzz-smoke` (CI) runs each 20 s. See DEVELOPERS.md.
FUZZ_SECONDS ?= 300
FUZZ_SMOKE_SECONDS ?= 20
FUZZ_MIN_EXECS ?= 10000000

.PHONY: fuzz fuzz-smoke fuzz-tools
fuzz-tools:
	@rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
	@cargo +nightly fuzz --version >/dev/null 2>&1 || $(CARGO) install cargo-fuzz

fuzz: fuzz-tools
	fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_MIN_EXECS)

fuzz-smoke: fuzz-tools
	fuzz/run.sh $(FUZZ_SMOKE_SECONDS)
