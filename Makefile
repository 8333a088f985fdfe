# placesim's front door.
#   make test    every test: format, lints, unit/property/CLI tests (and, with the page, browser tests)
#   make bench   engine benchmark figures

CARGO ?= cargo

.PHONY: test test-rust lint bench

test: lint test-rust

lint:
	$(CARGO) fmt --check
	$(CARGO) clippy --all-targets -- -D warnings

test-rust:
	$(CARGO) test --release --lib --bins --tests

bench:
	$(CARGO) bench --bench engine
