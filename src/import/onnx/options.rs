//! What an import is asked: [`Options`] (batch, input shapes, unsized ops allowed, the
//! precision [`Dtype`]) and [`OptionField`], how the engine's messages name an option so
//! a front end (the CLI's flags, the page's controls) can add its own.
//!
//! Not here: how the options are applied (the importer, `mod.rs`).

use std::collections::BTreeMap;

use crate::error::Error;

/// What to import besides the model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    /// Add the backward pass and the optimizer updates (a training step).
    pub train: bool,
    /// The size of every input's dynamic first dimension.
    pub batch: Option<u64>,
    /// Static shapes for inputs by name (override what the model says).
    pub input_shapes: BTreeMap<String, Vec<u64>>,
    /// Go on when ops that carry FLOPs (or feed them) cannot be sized: they cost 0 and the
    /// report says which share of the model is missing. Off, such a model is an error.
    pub allow_unsized: bool,
    /// The precision floating-point tensors (weights, activations, gradients) are counted
    /// at; `None`: each tensor's own type in the model.
    pub dtype: Option<Dtype>,
}

/// A floating-point precision to count a model's tensors at (`--dtype`): the bytes of every
/// floating-point tensor, on edges and in `mem`; integer tensors (shapes, indices, quantized
/// weights) keep their type. FLOPs do not change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dtype {
    Float64,
    Float32,
    Float16,
    Bfloat16,
    /// Either 8-bit float format (E4M3, E5M2).
    Float8,
}

impl Dtype {
    /// The names `parse` reads, first the canonical one.
    const NAMES: &'static [(Dtype, &'static [&'static str])] = &[
        (Dtype::Float64, &["float64", "fp64", "double"]),
        (Dtype::Float32, &["float32", "fp32", "float"]),
        (Dtype::Float16, &["float16", "fp16", "half"]),
        (Dtype::Bfloat16, &["bfloat16", "bf16"]),
        (Dtype::Float8, &["float8", "fp8"]),
    ];

    /// `float16`, `fp16`, `bf16`... (case-insensitive).
    pub fn parse(s: &str) -> crate::error::Result<Dtype> {
        let want = s.trim().to_ascii_lowercase();
        Self::NAMES
            .iter()
            .find(|(_, names)| names.contains(&want.as_str()))
            .map(|&(d, _)| d)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::NAMES.iter().map(|(_, n)| n[0]).collect();
                crate::error::Error::Scenario(format!(
                    "a dtype must be one of {}, got '{s}'",
                    names.join(", ")
                ))
            })
    }

    /// Its canonical name (`float16`).
    pub fn name(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(d, _)| *d == self)
            .map_or("", |(_, n)| n[0])
    }

    /// Bytes per element.
    pub fn bytes(self) -> f64 {
        match self {
            Dtype::Float64 => 8.0,
            Dtype::Float32 => 4.0,
            Dtype::Float16 | Dtype::Bfloat16 => 2.0,
            Dtype::Float8 => 1.0,
        }
    }
}

/// Floating-point ONNX element types (FLOAT, FLOAT16, DOUBLE, BFLOAT16, the FLOAT8 variants,
/// FLOAT4E2M1): what a [`Dtype`] recounts.
pub(super) fn is_float(data_type: i32) -> bool {
    matches!(data_type, 1 | 10 | 11 | 16 | 17..=20 | 23)
}

impl Options {
    /// Adds a static input shape written `NAME=DIMS`, DIMS like `1x3x224x224` (the CLI's
    /// `--input-shape` and the page's import options); every dimension at least 1.
    pub fn add_input_shape(&mut self, spec: &str) -> crate::error::Result<()> {
        let bad = || {
            crate::error::Error::Scenario(format!(
                "an input shape must be NAME=DIMS with DIMS like 1x3x224x224, got '{spec}'"
            ))
        };
        let (input, dims) = spec.rsplit_once('=').ok_or_else(bad)?;
        let dims = dims
            .split('x')
            .map(|d| d.trim().parse::<u64>().ok().filter(|&d| d > 0))
            .collect::<Option<Vec<u64>>>()
            .ok_or_else(bad)?;
        if input.trim().is_empty() {
            return Err(bad());
        }
        self.input_shapes.insert(input.trim().to_string(), dims);
        Ok(())
    }
}

/// An import option as the engine's messages name it (by its field, never by a front end's
/// control: the CLI's `--batch`, the page's "Batch size"), so a front end can add its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionField {
    /// [`Options::batch`], "batch" in messages.
    Batch,
    /// [`Options::input_shapes`], "input shape" in messages.
    InputShape,
    /// [`Options::allow_unsized`], "unsized ops allowed" in messages.
    AllowUnsized,
}

/// The advice of an input whose shape is not static.
pub(super) const SIZE_IT: &str = "give it a static shape";

/// The words of an error that [`Options::allow_unsized`] would turn into a note.
pub(super) const ALLOW_IT: &str = "unsized ops allowed";

impl OptionField {
    /// The options an import error is about, in the order its message names them: an input
    /// shape naming no input, a batch no input takes, an input the options must size.
    pub fn at_fault(e: &Error) -> Vec<OptionField> {
        let Error::Parse { message, .. } = e else {
            return Vec::new();
        };
        let batch = message
            .strip_prefix("batch ")
            .and_then(|rest| rest.split_once(':'))
            .is_some_and(|(b, _)| b.parse::<u64>().is_ok());
        if message.starts_with("input shape '") {
            vec![OptionField::InputShape]
        } else if batch {
            vec![OptionField::Batch, OptionField::InputShape]
        } else if message.starts_with("input '") && message.contains(SIZE_IT) {
            vec![OptionField::InputShape, OptionField::Batch]
        } else if message.contains(ALLOW_IT) {
            vec![OptionField::InputShape, OptionField::AllowUnsized]
        } else {
            Vec::new()
        }
    }
}
