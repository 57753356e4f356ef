//! A load: what SQL asks for ([`RunRequest`], every knob of keybench_run and its siblings with its
//! default), validated once into what the workers read ([`Params`], plain data in the shared
//! segment), its errors ([`error`]), the statements it runs, the row it records in keybench.runs
//! ([`RunRecord`]) and its disk-space estimate ([`disk`]).
//!
//! A new knob is one entry of [`keybench_knobs!`](crate::keybench_knobs) ([`knobs`]), which
//! makes its [`RunRequest`] field and default and its SQL arguments; then its check in
//! [`RunRequest::validate`] and its use: the workers read it from [`Params`], and keybench.runs
//! records it through [`RunRecord`].

use crate::kind::{Kind, UnknownKind};
use crate::read::Workload;
use crate::shared_segment::corrupt;
use serde::Serialize;

pub mod disk;
pub mod error;
pub mod knobs;
mod params;
mod progress;
mod record;
mod request;
mod settings;
#[cfg(test)]
mod tests;

pub use error::*;
pub use knobs::*;
pub use params::*;
pub use progress::*;
pub use record::*;
pub use request::*;
pub use settings::*;
