//! The one error type of the engine.
//!
//! Every way input can be wrong maps to a variant whose message names the offending part
//! (node id, edge index, device id, field), so the CLI and the page can show it as is.
//! Nothing in the engine panics on bad data: loading returns these errors instead.

use thiserror::Error;

/// Errors from loading, validating, placing and running.
#[derive(Debug, Error, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Error {
    /// A file or payload that is not JSON of the expected shape. `what` names the document.
    #[error("{what}: {message}")]
    Parse { what: String, message: String },
    /// A graph that parses but breaks a rule of the format.
    #[error("graph: {0}")]
    Graph(String),
    /// A cluster that parses but breaks a rule of the format.
    #[error("cluster: {0}")]
    Cluster(String),
    /// A graph and cluster that are each valid but do not fit together.
    #[error("graph on cluster: {0}")]
    Problem(String),
    /// A scenario (or command line) that names unknown strategies or bad parameters.
    #[error("scenario: {0}")]
    Scenario(String),
    /// A placer that could not satisfy a constraint.
    #[error("placer {placer}: {message}")]
    Placement { placer: String, message: String },
    /// The user stopped the run (the page's Cancel).
    #[error("cancelled")]
    Cancelled,
    /// Reading a file failed.
    #[error("{path}: {message}")]
    Io { path: String, message: String },
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn placement(placer: &str, message: impl Into<String>) -> Self {
        Error::Placement {
            placer: placer.to_string(),
            message: message.into(),
        }
    }
}

/// Parses JSON into `T`, reporting errors with their path inside the document
/// (for example `nodes[3].cost: invalid type: string "x", expected f64`). Text after the
/// document is an error (a file of two documents, or one with a stray tail, is not one
/// document; the scenario fuzz target found a scenario whose tail was ignored).
///
/// A document that parses is read once without tracking paths (the tracking wraps every
/// value of a large graph); only one that fails is read again with them, for the message.
pub fn parse_json<T: serde::de::DeserializeOwned>(what: &str, text: &str) -> Result<T> {
    let de = &mut serde_json::Deserializer::from_str(text);
    if let Ok(value) = T::deserialize(&mut *de).and_then(|v| de.end().map(|()| v)) {
        return Ok(value);
    }
    let de = &mut serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let message = if path == "." || path.is_empty() {
            format!("not valid JSON of the expected shape: {inner}")
        } else {
            format!("{path}: {inner}")
        };
        Error::Parse {
            what: what.to_string(),
            message,
        }
    })?;
    de.end().map_err(|e| Error::Parse {
        what: what.to_string(),
        message: format!("text after the end of the document: {e}"),
    })?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_after_the_document_is_refused() {
        let ok: Vec<u32> = parse_json("list", " [1, 2] \n").unwrap();
        assert_eq!(ok, [1, 2]);
        let e = parse_json::<Vec<u32>>("list", "[1, 2], [3]").unwrap_err();
        assert_eq!(
            e.to_string(),
            "list: text after the end of the document: trailing characters at line 1 column 7"
        );
    }
}
