//! Whether an app's HTML parses: the HTML tokenizer (html5ever, which Tauri already builds)
//! run over it, its parse errors counted and the first named with its line.

use std::cell::{Cell, RefCell};

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};

use crate::diagnose::{Finding, Severity};

#[derive(Default)]
struct Sink {
    elements: Cell<usize>,
    errors: RefCell<Vec<(u64, String)>>,
}

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, line: u64) -> TokenSinkResult<()> {
        match token {
            Token::TagToken(tag) if tag.kind == TagKind::StartTag => {
                self.elements.set(self.elements.get() + 1);
                // The tokenizer alone does not know which elements hold raw text; the tree
                // builder would tell it, so this sink does.
                match &*tag.name {
                    "script" => return TokenSinkResult::RawData(RawKind::ScriptData),
                    "style" | "xmp" | "iframe" | "noembed" | "noframes" => {
                        return TokenSinkResult::RawData(RawKind::Rawtext)
                    }
                    "title" | "textarea" => return TokenSinkResult::RawData(RawKind::Rcdata),
                    _ => {}
                }
            }
            Token::ParseError(why) => self.errors.borrow_mut().push((line, why.into_owned())),
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

/// What is wrong with an app's HTML as HTML: nothing, parse errors (a warning: browsers
/// recover, and what they recover to may not be what the author meant), or no markup at all.
pub(super) fn check(html: &str) -> Vec<Finding> {
    let spec = "HTML Living Standard, parsing";
    if html.trim().is_empty() {
        return vec![Finding::new("app-html", Severity::Error, "the app's HTML is empty", spec)];
    }
    let tokenizer =
        Tokenizer::new(Sink::default(), TokenizerOpts { exact_errors: true, ..Default::default() });
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    let sink = &tokenizer.sink;
    if sink.elements.get() == 0 {
        return vec![Finding::new(
            "app-html",
            Severity::Error,
            "the app's resource has no HTML element in it",
            spec,
        )];
    }
    let errors = sink.errors.borrow();
    match errors.first() {
        None => Vec::new(),
        Some((line, why)) => {
            let more = match errors.len() {
                1 => String::new(),
                n => format!(" ({} more)", n - 1),
            };
            let detail = format!("the app's HTML does not parse cleanly: line {line}: {why}{more}");
            vec![Finding::new("app-html", Severity::Warning, detail, spec)]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn clean_html_passes_and_broken_html_is_named() {
        let good = "<!DOCTYPE html>\n<html><head><style>a<b{}</style><script>if (1 < 2) {}</script></head><body><p>x</p></body></html>";
        assert!(check(good).is_empty(), "{:?}", check(good));
        let broken = "<!DOCTYPE html>\n<html><body>\n<div class=\"a\"\"b\">x</div><p <>";
        let found = check(broken);
        assert_eq!(found.len(), 1);
        assert!(
            found[0].detail.starts_with("the app's HTML does not parse cleanly: line 3"),
            "{}",
            found[0].detail
        );
        assert_eq!(check("{\"not\": \"html\"}")[0].severity, crate::diagnose::Severity::Error);
        assert_eq!(check("  ")[0].detail, "the app's HTML is empty");
    }
}
