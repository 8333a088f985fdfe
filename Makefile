# placesim's front door.
#   make serve         build the site and serve it on http://127.0.0.1:$(PORT)/
#   make site          build the static site under www/ (wasm + JS glue in www/pkg, graphs in www/graphs)
#   make test          fmt, clippy, cargo tests, then the headless-browser tests
#   make test-browser  only the browser tests (builds the site and the CLI first)
#   make bench         engine benchmark figures
#   make measure       wasm size, time to interactive, run times in headless Chromium
# See DEVELOPERS.md.

PORT ?= 8000
CARGO ?= cargo
WASM_TARGET := wasm32-unknown-unknown
WASM := target/$(WASM_TARGET)/release/placesim.wasm
# The wasm-bindgen CLI must be exactly the version of the wasm-bindgen crate in Cargo.lock.
WASM_BINDGEN_VERSION := $(shell awk '/^name = "wasm-bindgen"$$/ {getline; gsub(/[" ]/, "", $$0); sub(/version=/, "", $$0); print; exit}' Cargo.lock)
WASM_BINDGEN := $(or $(shell command -v wasm-bindgen 2>/dev/null),$(HOME)/.cargo/bin/wasm-bindgen)

.PHONY: site serve test lint test-rust bench test-browser wasm-target wasm-bindgen-cli pkg graphs cli measure chromium clean-site

site: pkg graphs

wasm-target:
	@rustup target list --installed 2>/dev/null | grep -qx $(WASM_TARGET) \
	  || rustup target add $(WASM_TARGET)

# Reuses an installed wasm-bindgen of the right version (installing takes ~11 min on 2 cores).
wasm-bindgen-cli:
	@have=$$($(WASM_BINDGEN) --version 2>/dev/null | awk '{print $$2}'); \
	if [ "$$have" != "$(WASM_BINDGEN_VERSION)" ]; then \
	  echo "installing wasm-bindgen-cli $(WASM_BINDGEN_VERSION) (found: $${have:-none})"; \
	  $(CARGO) install wasm-bindgen-cli --version $(WASM_BINDGEN_VERSION); \
	fi

# wasm-opt is skipped on purpose: Debian's binaryen emits modules that throw at init.
pkg: wasm-target wasm-bindgen-cli
	$(CARGO) build --release --lib --target $(WASM_TARGET)
	$(or $(shell command -v wasm-bindgen 2>/dev/null),$(HOME)/.cargo/bin/wasm-bindgen) \
	  --target web --no-typescript --out-dir www/pkg $(WASM)

# Copies graphs/*.json into the site and lists them in www/graphs/index.json.
graphs:
	@mkdir -p www/graphs
	@rm -f www/graphs/*.json
	@if ls graphs/*.json >/dev/null 2>&1; then cp graphs/*.json www/graphs/; fi
	@python3 -c 'import json,glob,os; \
	out=[]; \
	[out.append({"name": os.path.basename(p)[:-5], "title": (lambda g: g.get("name") or os.path.basename(p)[:-5])(json.load(open(p))), \
	  "nodes": len(json.load(open(p)).get("nodes", [])), "edges": len(json.load(open(p)).get("edges", [])), "bytes": os.path.getsize(p)}) \
	 for p in sorted(glob.glob("www/graphs/*.json")) if not p.endswith("/index.json")]; \
	json.dump(out, open("www/graphs/index.json", "w"), indent=1); \
	print("www/graphs/index.json:", len(out), "graphs")'

serve: site
	python3 -m http.server $(PORT) --bind 127.0.0.1 --directory www

cli:
	$(CARGO) build --release --bin placesim

test: lint test-rust test-browser

lint: wasm-target
	$(CARGO) fmt --check
	$(CARGO) clippy --all-targets -- -D warnings
	$(CARGO) clippy --release --lib --target $(WASM_TARGET) -- -D warnings

test-rust:
	$(CARGO) test --release --lib --bins --tests

bench:
	$(CARGO) bench --bench engine

# Debian's Chromium drives the browser tests (playwright-core never downloads a browser).
CHROMIUM ?= /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
chromium:
	@[ -x $(CHROMIUM) ] || { echo "installing Debian's chromium"; \
	  $(SUDO) apt-get update && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; }

# The test script starts its own static server on a free port and stops it at the end.
test-browser: site cli chromium
	cd tests/browser && npm ci --no-audit --no-fund
	cd tests/browser && node --test --test-concurrency=1 ./*.test.mjs

# Prints wasm size, time to interactive and run times in the browser (see DEVELOPERS.md).
measure: site cli chromium
	cd tests/browser && npm ci --no-audit --no-fund
	cd tests/browser && node measure.mjs

clean-site:
	rm -rf www/pkg www/graphs
