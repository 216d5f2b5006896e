//! A server's interface, kept and compared: a snapshot of everything it declares and lists
//! (`snapshot`), what changed between two, each change with its verdict for the clients that
//! use it (`diff`), where each change is on both sides (`placed`), and where two JSON values
//! differ (`values`). This is the core's JSON comparison of contracts.md: replay, tests and the
//! window's comparisons use it.

mod baselines;
mod change;
pub mod diff;
mod from_session;
mod item_parts;
mod placed;
mod schema_diff;
pub mod snapshot;
pub mod values;

pub use baselines::{Baseline, BaselineCheck, Baselines};
pub use change::{in_brief, Change, ChangeSeverity};
pub use diff::{diff, eras_chosen, listings};
pub use placed::{place_changes, Placed};
pub use snapshot::{Snapshot, SnapshotError};
