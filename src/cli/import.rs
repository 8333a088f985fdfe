//! `placesim import`: an ONNX model to graph JSON on stdout, the import's notes on stderr.
//! The engine's errors name the import options by field ("batch", "input shape"); this
//! file adds the flags that set them.
//!
//! Not here: the import (`import::onnx`, through `scenario::load::graph_file`, the page's
//! path too).

use placesim::import::onnx::{self, OptionField};
use placesim::scenario::load::graph_file;
use placesim::{Error, Result};

use super::files::read_bytes;
use super::output::print_notes;

pub fn import(
    model: &str,
    train: bool,
    batch: Option<u64>,
    shapes: &[String],
    allow_unsized: bool,
    dtype: Option<&str>,
) -> Result<()> {
    let mut options = onnx::Options {
        train,
        batch,
        allow_unsized,
        dtype: dtype.map(onnx::Dtype::parse).transpose()?,
        ..onnx::Options::default()
    };
    if batch == Some(0) {
        return Err(Error::Scenario("--batch must be at least 1".into()));
    }
    for s in shapes {
        options.add_input_shape(s)?;
    }
    let read = graph_file(model, read_bytes(model)?, &options).map_err(with_flags)?;
    print_notes(&read.notes);
    out!("{}", read.text);
    Ok(())
}

/// The flag of an import option.
fn flag(field: OptionField) -> &'static str {
    match field {
        OptionField::Batch => "--batch",
        OptionField::InputShape => "--input-shape",
        OptionField::AllowUnsized => "--allow-unsized",
    }
}

/// An error about import options, with the flags that set them: `... (--input-shape)`.
fn with_flags(e: Error) -> Error {
    let fields = OptionField::at_fault(&e);
    match e {
        Error::Parse { what, message } if !fields.is_empty() => {
            let flags: Vec<&str> = fields.into_iter().map(flag).collect();
            Error::Parse {
                what,
                message: format!("{message} ({})", flags.join(", ")),
            }
        }
        other => other,
    }
}
