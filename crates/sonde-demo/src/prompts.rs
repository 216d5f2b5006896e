//! The demo's prompts: `hello` (no arguments) and `review` (a required `language`, an optional
//! `style`), whose messages show each kind a prompt can hold: user and assistant text and an
//! embedded resource.
//!
//! Owns: the prompt list and filling a prompt in. Refuses: completing the arguments
//! (`complete`).

use serde_json::{json, Value};

use crate::resources::{README, README_TEXT};
use crate::Fault;

pub fn list() -> Value {
    json!({"prompts": [
        {"name": "hello", "title": "Hello", "description": "A greeting for Sonde, with no arguments."},
        {"name": "review", "title": "Code review",
         "description": "Asks for a code review in a language and a style, with the README attached.",
         "arguments": [
             {"name": "language", "title": "Language", "required": true,
              "description": "The language the code is written in (completion suggests some)."},
             {"name": "style", "title": "Style", "required": false,
              "description": "How to review; the suggestions depend on the language chosen."}
         ]}
    ]})
}

fn text(role: &str, text: &str) -> Value {
    json!({"role": role, "content": {"type": "text", "text": text}})
}

/// An argument's value; an empty string counts as not given, as a form's empty field sends it.
fn argument<'a>(arguments: &'a Value, name: &str) -> Result<Option<&'a str>, Fault> {
    match arguments.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(Fault::invalid(format!("the argument {name:?} must be a string, not {other}"))),
    }
}

/// `prompts/get`: the prompt's messages with its arguments filled in.
pub fn get(params: &Value) -> Result<Value, Fault> {
    let arguments = &params["arguments"];
    match params["name"].as_str().unwrap_or_default() {
        "hello" => Ok(json!({"description": "A greeting for Sonde.",
                             "messages": [text("user", "Say hello to Sonde.")]})),
        "review" => {
            let Some(language) = argument(arguments, "language")? else {
                return Err(Fault::invalid(
                    "the prompt review needs the argument \"language\" (for example rust)",
                ));
            };
            let style = argument(arguments, "style")?.unwrap_or("plain");
            let readme = json!({"uri": README, "mimeType": "text/markdown", "text": README_TEXT});
            Ok(json!({"description": format!("A {language} code review."), "messages": [
                text("user", &format!("Review this {language} code in a {style} style.")),
                {"role": "user", "content": {"type": "resource", "resource": readme}},
                text("assistant", "Send me the code.")
            ]}))
        }
        "" => Err(Fault::invalid("prompts/get needs params.name")),
        other => Err(Fault::invalid(format!("Unknown prompt: {other}; the prompts are hello and review"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn review_fills_in_its_arguments_and_embeds_the_readme() {
        let got =
            get(&json!({"name": "review", "arguments": {"language": "rust", "style": "idiomatic"}})).unwrap();
        let messages = got["messages"].as_array().unwrap();
        assert_eq!(messages[0]["content"]["text"], "Review this rust code in a idiomatic style.");
        assert_eq!(messages[1]["content"]["resource"]["uri"], README);
        assert_eq!(
            (messages[2]["role"].as_str(), messages[2]["content"]["text"].as_str()),
            (Some("assistant"), Some("Send me the code."))
        );
        let plain = get(&json!({"name": "review", "arguments": {"language": "go", "style": ""}})).unwrap();
        assert_eq!(plain["messages"][0]["content"]["text"], "Review this go code in a plain style.");
    }

    #[test]
    fn a_missing_argument_or_an_unknown_prompt_is_invalid_params() {
        let missing = get(&json!({"name": "review", "arguments": {"style": "concise"}})).unwrap_err();
        assert_eq!(missing.code, -32602);
        assert!(missing.message.contains("\"language\""), "{}", missing.message);
        assert_eq!(get(&json!({"name": "nope"})).unwrap_err().code, -32602);
        assert_eq!(get(&json!({"name": "review", "arguments": {"language": 3}})).unwrap_err().code, -32602);
    }
}
