//! The shapes a server's data must have, checked where that data enters Sonde.
//!
//! Owns: reading a `tools/list` entry into a [`ToolView`] a front end can show without
//! guessing, checking a `tools/call` result's content, checking a JSON Schema as a form reads it
//! (a tool's `inputSchema`, an elicitation's `requestedSchema`), reading a task's state in
//! either era (`task`), and reading the items that carry a resource (`content`). Each check returns what is wrong in plain words ("title is an object, not
//! a string"), at most [`MAX_PROBLEMS`] of them, and never refuses the data: the raw JSON stays
//! available next to the view.
//! Refuses: validating arguments or results against a schema (`schema` does the outputSchema
//! verdict; the server judges its inputs) and presentation.

pub mod app_link;
pub mod content;
mod result;
mod schema;
pub mod task;
mod tool;

pub use result::{result_problems, structured_in_text};
pub use schema::{schema_problems, MAX_DEPTH as SCHEMA_MAX_DEPTH};
pub use task::{Task, TaskStatus};
pub use tool::{read_tools, shown_icon, ToolView};

use serde_json::Value;

/// How many problems one check reports; the rest are counted in a last line. A hostile server
/// can send a schema with a million bad properties, and the window must stay readable.
pub const MAX_PROBLEMS: usize = 20;

/// The problems a check found, capped at [`MAX_PROBLEMS`] with a count of the rest.
#[derive(Debug, Default)]
pub(crate) struct Problems {
    found: Vec<String>,
    more: usize,
}

impl Problems {
    pub(crate) fn push(&mut self, problem: String) {
        if self.found.len() < MAX_PROBLEMS {
            self.found.push(problem);
        } else {
            self.more += 1;
        }
    }

    /// The problem `what` is `v` (of the wrong kind), "not `wanted`".
    pub(crate) fn wrong(&mut self, what: &str, v: &Value, wanted: &str) {
        self.push(format!("{what} is {}, not {wanted}", kind(v)));
    }

    pub(crate) fn into_vec(mut self) -> Vec<String> {
        if self.more > 0 {
            self.found.push(format!("… and {} more problems", self.more));
        }
        self.found
    }
}

/// A JSON value's kind as a sentence says it: "an object", "a number", "null".
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
