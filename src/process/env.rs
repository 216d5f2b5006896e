//! The environment a server starts with.
//!
//! Owns: the minimal default (a few variables a program needs to run, nothing that could carry a
//! secret by accident) and the opt-in to inherit everything. Refuses: redaction; exports do that.

/// The variables passed through from Sonde's own environment by default.
pub const PASSED_THROUGH: [&str; 7] = ["PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG"];

/// Builds the server's environment from Sonde's and the configured variables, which win.
pub fn build(inherit_all: bool, configured: &[(String, String)]) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = if inherit_all {
        std::env::vars().collect()
    } else {
        PASSED_THROUGH.iter().filter_map(|k| std::env::var(k).ok().map(|v| ((*k).to_owned(), v))).collect()
    };
    // stderr is a terminal, so a server may ask what kind; give it one when Sonde has none.
    if !env.iter().any(|(k, _)| k == "TERM") {
        env.push(("TERM".into(), "xterm-256color".into()));
    }
    for (k, v) in configured {
        env.retain(|(key, _)| key != k);
        env.push((k.clone(), v.clone()));
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_passes_only_the_allowlist_and_configured_values_win() {
        let env = build(false, &[("PATH".into(), "/custom".into()), ("API_KEY".into(), "k".into())]);
        assert!(env.iter().all(|(k, _)| PASSED_THROUGH.contains(&k.as_str()) || k == "API_KEY"));
        assert_eq!(
            env.iter().filter(|(k, _)| k == "PATH").collect::<Vec<_>>(),
            vec![&("PATH".into(), "/custom".into())]
        );
        assert!(env.iter().any(|(k, _)| k == "TERM"));
    }
}
