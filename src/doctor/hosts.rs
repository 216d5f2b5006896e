//! A check-up as a host: each listed tool against the host's limits (a confirmed limit fails, a
//! reported one warns), and what the server offers that the host does not show.
//!
//! Owns: the `host-tools`, `host-shadowing`, `host-shows` and `host-version` checks. Refuses: the limits themselves (the host
//! profiles') and connecting as the host (the connection, from the config).

use serde_json::Value;

use super::{Beside, Check, CheckStatus};
use crate::hosts::{shadowed, verdicts, HostProfile, Served};
use crate::interface::Baselines;
use crate::saved::era_cache::EraCache;
use crate::saved::servers::SavedServer;
use crate::server_config::Target;

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

/// Tools of the servers `beside` this one (`server`, its `tools`) that `host` would give the
/// name of one of this server's: one shadows the other. A host whose naming no source gives
/// judges nothing.
pub fn shadowing(
    host: &HostProfile,
    (server, tools): (&str, &[Value]),
    beside: &[Beside],
    conn: u64,
) -> Check {
    let seen: Vec<String> = beside.iter().map(|b| format!("{} ({})", b.server, b.seen)).collect();
    if host.limits.qualified_name.is_none() {
        let detail = format!("no source gives how {} names tools of two servers: not judged", host.title);
        return Check::new("host-shadowing", CheckStatus::Skip, detail, None, conn);
    }
    let others: Vec<Served<'_>> =
        beside.iter().map(|b| Served { server: &b.server, tools: &b.tools }).collect();
    let said = shadowed(host, &Served { server, tools }, &others);
    if said.is_empty() {
        let detail = format!(
            "{} gives none of this server's tools the name of a tool beside it: {}",
            host.title,
            seen.join(", ")
        );
        return Check::new("host-shadowing", CheckStatus::Pass, detail, None, conn);
    }
    let detail = format!("{}; beside: {}", said.join("; "), seen.join(", "));
    Check::new("host-shadowing", CheckStatus::Warn, detail, None, conn)
}

/// The saved servers as a host meets them beside the server at `this`: the name `this` is saved
/// under, if it is, and every other saved server with the tools its baseline kept (as last
/// seen). A server with no baseline, or one that cannot be read, is left out: it was never
/// seen, or is not this check's to mend.
pub fn saved_beside(
    servers: &[SavedServer],
    baselines: &Baselines,
    this: &Target,
) -> (Option<String>, Vec<Beside>) {
    let key = EraCache::key(this);
    let mut name = None;
    let mut beside = Vec::new();
    for config in servers.iter().filter_map(|saved| saved.to_config().ok()) {
        if EraCache::key(&config.target) == key {
            name = name.or(config.name.clone());
            continue;
        }
        if let Ok(Some(kept)) = baselines.get(&config.target) {
            beside.push(Beside {
                server: config.host_name(),
                tools: kept.snapshot.tools.unwrap_or_default(),
                seen: format!("its baseline of {}", kept.kept_at),
            });
        }
    }
    (name, beside)
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
