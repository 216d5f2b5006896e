//! A check-up as a host: each listed tool against the host's limits (a confirmed limit fails, a
//! reported one warns), and what the server offers that the host does not show.
//!
//! Owns: the `host-tools`, `host-shows` and `host-version` checks. Refuses: the limits themselves (the host
//! profiles') and connecting as the host (the connection, from the config).

use serde_json::Value;

use super::{Check, CheckStatus};
use crate::hosts::{verdicts, HostProfile};

/// How many refused tools a check names before it counts the rest.
const NAMED: usize = 10;

/// `server`: the name the host knows the server by.
pub fn tools(host: &HostProfile, tools: &[Value], server: &str, conn: u64) -> Check {
    let refused: Vec<_> =
        verdicts(host, tools, server).into_iter().filter(|v| !v.refused.is_empty()).collect();
    if refused.is_empty() {
        let detail = format!("{} takes each of the {} listed tools", host.title, tools.len());
        return Check::new("host-tools", CheckStatus::Pass, detail, None, conn);
    }
    let confirmed = refused.iter().any(|v| v.refused.iter().any(|r| r.confirmed));
    let mut said: Vec<String> = refused
        .iter()
        .take(NAMED)
        .map(|v| {
            let why: Vec<String> = v
                .refused
                .iter()
                .map(|r| if r.confirmed { r.why.clone() } else { format!("{} (unconfirmed)", r.why) })
                .collect();
            format!("{}: {}", v.tool, why.join("; "))
        })
        .collect();
    if refused.len() > NAMED {
        said.push(format!("and {} more", refused.len() - NAMED));
    }
    let status = if confirmed { CheckStatus::Fail } else { CheckStatus::Warn };
    Check::new("host-tools", status, said.join("; "), None, conn)
}

/// What the server declares that `host` does not show its user or model.
pub fn shows(host: &HostProfile, capabilities: &Value, conn: u64) -> Check {
    let hidden = crate::hosts::hidden(host, capabilities);
    if hidden.is_empty() {
        let detail = format!("{} shows everything the server declares", host.title);
        return Check::new("host-shows", CheckStatus::Pass, detail, None, conn);
    }
    let unconfirmed = if host.shows.confirmed { "" } else { " (unconfirmed)" };
    let detail = format!(
        "{} does not show {}{unconfirmed}: what the server offers there reaches no one through it",
        host.title,
        hidden.join(" or ")
    );
    Check::new("host-shows", CheckStatus::Warn, detail, None, conn)
}

/// The version the server answered against the one the host asked for: another one is a
/// version the host may not speak (it would disconnect).
pub fn version(host: &HostProfile, answered: &str, conn: u64) -> Check {
    let asked = &host.connects.protocol_version;
    if answered == asked {
        let detail = format!("{} asked for {asked}, and the server answered it", host.title);
        return Check::new("host-version", CheckStatus::Pass, detail, None, conn);
    }
    let detail = format!(
        "{} asked for protocolVersion {asked}; the server answered {answered}, which a client that speaks only {asked} disconnects from (answer the version asked for when you support it)",
        host.title
    );
    Check::new("host-version", CheckStatus::Warn, detail, None, conn)
}
