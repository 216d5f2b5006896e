//! The check-up as the reports CI reads (`suite::reports`: JSON with totals, JUnit, SARIF): each
//! check a case named by its id and era, and the sentence on what each check and each rule a
//! finding names looks for, which SARIF's rules carry.
//!
//! Owns: what a verdict is in a report (a `fail` a failure, a `warn` a warning, a `skip` a case
//! skipped) and the rules' texts. Refuses: the formats (`suite::reports` writes them) and
//! writing files (the front ends).

use super::{Check, CheckStatus, Checkup};
use crate::last_words::LastWords;
use crate::report::{Case, Report, Subject};
use crate::suite::Failure;

/// What the reports name the run.
const COMMAND: &str = "sonde doctor";

/// What each check, and each rule of the frames it reports, looks for: SARIF's rules. A check
/// named by a rule of `diagnose` (its findings, grouped) has that rule's id.
pub const RULES: &[(&str, &str)] = &[
    ("handshake", "The server answers the opening exchange (initialize or server/discover) in the era checked."),
    ("era-probe", "The server survives a 2026-07-28 client's first message, answering a method it does not know with -32601."),
    ("ping", "The server answers ping at once with an empty result."),
    ("unknown-method", "The server answers a method it does not know with -32601 (method not found)."),
    ("invalid-params", "The server answers invalid params with -32602 (invalid params)."),
    ("tool-schemas", "Every listed tool has an inputSchema that is a JSON Schema object."),
    ("tool-names", "No two tool names fold onto one another once hosts lowercase them and turn other characters into _ (one would shadow the other)."),
    ("context-cost", "The tool definitions, which a host sends in every request, stay within the token budget (estimated at 4 bytes a token)."),
    ("host-tools", "With --host, each listed tool is one the host takes: its name, the tool count, the schema keywords its model API accepts."),
    ("host-shadowing", "With --host, no tool of the saved servers beside this one (as their baselines last saw them) gets from the host the name of one of this server's."),
    ("host-shows", "With --host, the host shows what the server declares (resources and prompts too, where it has them)."),
    ("host-version", "With --host, the server answers the protocol version the host asks for."),
    ("listings", "Every listing the server declares can be read to its end."),
    ("apps", "Every MCP App the server declares resolves, has the app MIME profile, parses, and declares only CSP domains and permissions the extension knows."),
    ("skills", "A server declaring the Skills extension declares resources too, lists its skills to the end, and serves every listed file as its entry describes it."),
    ("cancellation", "A cancelled call of the named tool is honoured, and the server still answers after it."),
    ("frames", "No frame from the server breaks a protocol rule."),
    ("stdout", "Over stdio, the server writes nothing but protocol messages on stdout."),
    ("shutdown", "The server exits when its stdin closes, within the grace, without signals."),
    ("http-session", "A 2025-11-25 HTTP session the server issued ends with DELETE answered 2xx, 404 or 405."),
    ("http-headers", "A 2026-07-28 HTTP request whose headers disagree with its body is refused."),
    ("app-csp", "An app's CSP domains are ones the extension knows."),
    ("app-html", "An app's HTML parses."),
    ("app-mime", "An app's resource has the app MIME type and its profile."),
    ("app-permission", "An app asks only for permissions the extension knows."),
    ("app-resource", "An app's resource can be read and has contents."),
    ("batch", "The server sends no JSON-RPC batch (MCP has none since 2025-06-18)."),
    ("before-initialized", "Before notifications/initialized, the server sends only pings and log messages."),
    ("capability-undeclared", "The server sends only what its declared capabilities allow."),
    ("cursor-loop", "A listing's cursors always lead further."),
    ("host-result-size", "With --host (or Connect as), a tool's result is within the size the host takes."),
    ("skill-entry", "A skill's entry names it as its path does, lists each file once inside the skill with a sha256: digest and a size, within 512 files and 16 MiB."),
    ("skill-entry-invalid", "A skill's entry has resources: the complete list of its files, or \"dynamic\"."),
    ("skill-file-unverified", "Each skill file read has the size and sha256 digest its entry lists."),
    ("skill-frontmatter-mismatch", "A skill's entry holds SKILL.md's frontmatter exactly, field by field."),
    ("skills-cache-fields", "A 2026-07-28 skills result carries ttlMs and cacheScope."),
    ("tool-hidden-text", "No tool's name, title, description or schema text holds a character a person cannot see (zero-width, bidi control, tag) or, in a name, one that passes for another."),
    ("tool-text-to-model", "No tool's text speaks to the model rather than the person (to ignore its instructions, keep something from the user, call another tool first, send data away)."),
    ("tool-schema-construct", "No tool's inputSchema uses what hosts handle badly: a $ref outside it or back into itself, oneOf/anyOf/allOf at its top, a property without a type."),
    ("envelope", "Each frame is a JSON-RPC 2.0 message: jsonrpc \"2.0\", a string or number id, one of method, result or error."),
    ("era-method", "The server sends only methods of its era (2026-07-28 has no server-to-client requests)."),
    ("not-utf8", "Every frame is UTF-8."),
    ("progress-unknown", "Progress names only the token of a request still running."),
    ("reply-duplicate", "Each request is answered once."),
    ("reply-id-type", "A reply's id is the request's, in the same JSON type."),
    ("reply-unmatched", "Each reply answers a request the client sent."),
    ("result-shape", "Each result has the fields its method requires, of their types."),
];

impl Check {
    /// The check as a report names it: its id and, once an era was decided, the era's revision
    /// (`handshake (2025-11-25)`), since a dual-era server has each check twice.
    pub fn case_name(&self) -> String {
        match self.revision() {
            Some(revision) => format!("{} ({revision})", self.id),
            None => self.id.clone(),
        }
    }
}

impl Checkup {
    /// The check-up of `server` (its command line or URL) as a report: a check a case, with no
    /// time (a check does not measure one). A `warn` is a warning, not a failure: doctor exits
    /// 0 on warnings, and a CI reading the report must not fail where the run passed.
    pub fn cases(&self, server: &str) -> Report {
        let cases = self
            .checks
            .iter()
            .map(|check| {
                let said = vec![Failure::new(&check.id, words(check))];
                let case = Case::new(check.case_name(), None);
                match check.status {
                    CheckStatus::Pass => case,
                    CheckStatus::Fail => Case { failures: said, ..case },
                    CheckStatus::Warn => Case { warnings: said, ..case },
                    CheckStatus::Skip => Case { skipped: said.into_iter().next(), ..case },
                }
            })
            .collect();
        Report { command: COMMAND.into(), subject: Subject::Server(server.to_owned()), rules: rules(), cases }
    }

    /// The report of a check-up that could not open `server` ([`Checkup::unopened`]): one case in
    /// error saying why, with the server's last `words` (once, not in the sentence too), after
    /// `ms` of trying.
    pub fn unopened_cases(&self, server: &str, words: &LastWords, ms: f64) -> Report {
        let detail = self.checks.first().map_or("the opening exchange failed", |c| c.detail.as_str());
        let reason = detail.split_once(super::LAST_WORDS).map_or(detail, |(reason, _)| reason);
        Report::unstarted(COMMAND, Subject::Server(server.to_owned()), rules(), reason, words, ms)
    }
}

/// A check's sentence, with the seq of its evidence in the session log.
fn words(check: &Check) -> String {
    match check.seq {
        Some(seq) => format!("{} (seq {seq})", check.detail),
        None => check.detail.clone(),
    }
}

fn rules() -> Vec<(String, String)> {
    RULES.iter().map(|(id, text)| (id.to_string(), text.to_string())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::era::Era;

    /// Every rule a finding can name has a text among the report's rules (stdout lines are the
    /// `stdout` check's), so no SARIF result names a rule it does not describe.
    #[test]
    fn every_rule_a_check_can_name_has_a_text() {
        for rule in crate::diagnose::DIAGNOSTIC_RULES.iter().filter(|r| **r != "stdout-not-protocol") {
            assert!(RULES.iter().any(|(id, _)| id == rule), "{rule} has no text");
        }
    }

    /// Each verdict lands where a CI reads it: a fail a failure with the check's id and words,
    /// a warn a warning, a skip a skipped case, a pass nothing; the era is in the name.
    #[test]
    fn each_verdict_is_a_case_named_with_its_era() {
        let check = |id: &str, status, era| Check {
            id: id.into(),
            status,
            detail: format!("{id} said"),
            seq: Some(4),
            conn: Some(1),
            era,
        };
        let report = Checkup {
            checks: vec![
                check("handshake", CheckStatus::Pass, Some(Era::Legacy)),
                check("stdout", CheckStatus::Fail, Some(Era::Modern)),
                check("shutdown", CheckStatus::Warn, None),
                check("cancellation", CheckStatus::Skip, None),
            ],
            tally: String::new(),
        };
        let cases = report.cases("srv").cases;
        assert_eq!(cases[0].name, "handshake (2025-11-25)");
        assert!(cases[0].passed());
        assert_eq!(cases[1].name, "stdout (2026-07-28)");
        assert_eq!(cases[1].failures, [Failure::new("stdout", "stdout said (seq 4)")]);
        assert_eq!((cases[2].passed(), cases[2].warnings.len()), (true, 1));
        assert_eq!(cases[3].skipped, Some(Failure::new("cancellation", "cancellation said (seq 4)")));
    }
}
