//! Shell completions and manual pages, generated from the command line's own definition (the
//! clap `Cli`), so neither can disagree with what `sonde` accepts.
//!
//! Owns: writing them (clap_complete, clap_mangen). Refuses: installing them; the package
//! build (`make deb`) puts them where bash, zsh, fish and `man` look.

use std::path::Path;

use crate::exit::{FAILED, OK};

/// Prints `shell`'s completion script for `sonde` on stdout (a reader that stops early, as
/// `head` does, is not an error).
pub fn completions(shell: clap_complete::Shell) -> i32 {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut crate::applies::command(), "sonde", &mut script);
    match std::io::Write::write_all(&mut std::io::stdout(), &script) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            errln!("sonde: cannot write the completion script: {e}");
            FAILED
        }
        _ => OK,
    }
}

/// Writes `sonde.1` and a page per subcommand (`sonde-tools.1`, `sonde-tools-list.1`, …) into
/// `dir`, creating it.
pub fn man_pages(dir: &Path) -> i32 {
    let written =
        std::fs::create_dir_all(dir).and_then(|()| write_pages(dir, crate::applies::command(), "sonde"));
    match written {
        Ok(n) => {
            errln!("sonde: wrote {n} manual pages to {}", dir.display());
            OK
        }
        Err(e) => {
            errln!("sonde: cannot write the manual pages to {}: {e}", dir.display());
            FAILED
        }
    }
}

/// The page of `command` as `name`, then its subcommands' pages; returns how many were written.
fn write_pages(dir: &Path, command: clap::Command, name: &str) -> std::io::Result<usize> {
    let command = command.name(name.to_owned()).version(crate::VERSION);
    let mut page = Vec::new();
    clap_mangen::Man::new(command.clone()).render(&mut page)?;
    std::fs::write(dir.join(format!("{name}.1")), page)?;
    let mut written = 1;
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set() && s.get_name() != "help") {
        written += write_pages(dir, sub.clone(), &format!("{name}-{}", sub.get_name()))?;
    }
    Ok(written)
}
