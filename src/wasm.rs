//! The wasm-bindgen adapter (placeholder until the playground issue lands).
