//! Other formats in: each importer turns a file of another format into a validated
//! [`Graph`](crate::model::graph::Graph) through [`GraphBuilder`](crate::model::graph::GraphBuilder),
//! so an imported graph keeps every guarantee of a loaded graph JSON.
//!
//! Not here: where the bytes come from (the CLI's disk, the page's upload) or which strategy
//! runs on the result. Like the model, an importer knows no strategy and no scenario.

pub mod onnx;
