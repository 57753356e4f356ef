//! What keybench_export and keybench_import refuse, and how: the field's path, what is wrong
//! with it, its SQLSTATE and hint.

use super::format::{FORMAT, VERSION};
use crate::sqlstate::{SqlError, SqlState};

/// What keybench_export or keybench_import refuses.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    #[error("keybench_export: run {0} does not exist")]
    UnknownRun(i64),
    #[error("keybench_export: run {0} is still running")]
    StillRunning(i64),
    /// The input of keybench_import: the path of the offending field ("" for the whole), what is
    /// wrong with it, and a detail.
    #[error("keybench_import: {}{message}", path_prefix(.path))]
    Input {
        path: String,
        message: String,
        detail: Option<String>,
    },
    /// keybench.runs or keybench.batches has columns this version of keybench does not know.
    #[error("keybench_export: cannot read {0}: {1}")]
    Schema(&'static str, String),
}

fn path_prefix(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!("{path}: ")
    }
}

impl SqlError for ExportError {
    fn sqlstate(&self) -> SqlState {
        match self {
            ExportError::UnknownRun(_) => SqlState::UndefinedObject,
            ExportError::StillRunning(_) => SqlState::ObjectNotInPrerequisiteState,
            ExportError::Input { .. } => SqlState::InvalidParameterValue,
            ExportError::Schema(..) => SqlState::InternalError,
        }
    }
    fn detail(&self) -> Option<String> {
        match self {
            ExportError::Input { detail, .. } => detail.clone(),
            _ => None,
        }
    }
    fn hint(&self) -> Option<String> {
        match self {
            ExportError::StillRunning(_) => {
                Some("Export it once it has finished (or keybench_cleanup() has closed it).".into())
            }
            ExportError::Input { .. } => Some(format!(
                "keybench_import reads what keybench_export writes: an object with format \
                 \"{FORMAT}\", version {VERSION}, source, runs and batches."
            )),
            _ => None,
        }
    }
}

pub fn input(path: impl Into<String>, message: impl Into<String>) -> ExportError {
    ExportError::Input {
        path: path.into(),
        message: message.into(),
        detail: None,
    }
}

/// serde's error, at the path where it happened. An unknown field's list of the expected ones goes
/// to the DETAIL.
pub fn from_serde(e: serde_path_to_error::Error<serde_json::Error>) -> ExportError {
    let path = e.path().to_string();
    let path = if path == "." { String::new() } else { path };
    let message = e.inner().to_string();
    match message.split_once(", expected one of ") {
        Some((m, expected)) if m.starts_with("unknown field") => ExportError::Input {
            path,
            message: m.to_string(),
            detail: Some(format!("Expected one of {expected}.")),
        },
        _ => ExportError::Input {
            path,
            message,
            detail: None,
        },
    }
}
