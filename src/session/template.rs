//! RFC 6570 resource templates: their variables, and a template expanded into a URI.
//!
//! Owns: reading a `uriTemplate` and expanding it with the values a person typed, by a
//! well-kept implementation of the RFC (`iri-string`), never by string replacement.
//! Refuses: asking the server anything (completion is `session::completion`).

use std::collections::BTreeMap;

use iri_string::spec::UriSpec;
use iri_string::template::simple_context::SimpleContext;
use iri_string::template::UriTemplateStr;

use crate::error_code::ErrorCode;

/// Why a template gives no variables or no URI.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TemplateError {
    #[error("{template:?} is not an RFC 6570 template: {error}")]
    NotATemplate { template: String, error: iri_string::template::Error },
    #[error("{template:?} cannot be expanded: {error}")]
    CannotExpand { template: String, error: iri_string::template::Error },
}

impl TemplateError {
    /// The stable code a front end shows with the message: the template (the server's, or one a
    /// person typed) cannot be used.
    pub fn code(&self) -> ErrorCode {
        ErrorCode::BadInput
    }
}

fn parse(template: &str) -> Result<&UriTemplateStr, TemplateError> {
    UriTemplateStr::new(template)
        .map_err(|error| TemplateError::NotATemplate { template: template.to_owned(), error })
}

/// The variables of a template, each once, in the order they first appear.
pub fn template_variables(template: &str) -> Result<Vec<String>, TemplateError> {
    let parsed = parse(template)?;
    let mut names: Vec<String> = Vec::new();
    for var in parsed.variables() {
        if !names.iter().any(|n| n == var.as_str()) {
            names.push(var.as_str().to_owned());
        }
    }
    Ok(names)
}

/// The URI `template` names with `values`; an empty value counts as given (RFC 6570 expands
/// it), a variable left out as undefined (its expression expands to nothing).
pub fn expand_template(template: &str, values: &BTreeMap<String, String>) -> Result<String, TemplateError> {
    let parsed = parse(template)?;
    let mut context = SimpleContext::new();
    for (name, value) in values {
        context.insert(name.as_str(), value.as_str());
    }
    let expanded = parsed
        .expand::<UriSpec, _>(&context)
        .map_err(|error| TemplateError::CannotExpand { template: template.to_owned(), error })?;
    Ok(expanded.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn variables_are_listed_once_in_order() {
        assert_eq!(template_variables("demo://resource/dynamic/text/{index}").unwrap(), ["index"]);
        assert_eq!(template_variables("file:///{+path}{?q,lang}{&q}").unwrap(), ["path", "q", "lang"]);
        let unclosed = template_variables("demo://{unclosed").unwrap_err();
        assert!(unclosed.to_string().starts_with("\"demo://{unclosed\" is not an RFC 6570 template: "));
        assert_eq!(unclosed.code(), ErrorCode::BadInput);
    }

    #[test]
    fn expansion_follows_the_operators_and_encodes_values() {
        assert_eq!(
            expand_template("demo://resource/dynamic/text/{index}", &values(&[("index", "3")])).unwrap(),
            "demo://resource/dynamic/text/3"
        );
        // Simple expansion percent-encodes reserved characters; `+` keeps them.
        assert_eq!(expand_template("x://{v}", &values(&[("v", "a/b c")])).unwrap(), "x://a%2Fb%20c");
        assert_eq!(expand_template("x://{+v}", &values(&[("v", "a/b")])).unwrap(), "x://a/b");
        assert_eq!(expand_template("x://s{?q,n}", &values(&[("q", "hi")])).unwrap(), "x://s?q=hi");
    }
}
