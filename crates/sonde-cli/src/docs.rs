//! Shell completions and manual pages, generated from the command line's own definition (the
//! clap `Cli`), so neither can disagree with what `sonde` accepts.
//!
//! Owns: writing them (clap_complete, clap_mangen, with each command's EXIT STATUS and EXAMPLES
//! from `manual`). Refuses: installing them; the package
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
    let mut root = crate::applies::command().name("sonde").version(crate::VERSION);
    // Built, each subcommand holds the server options it takes, and its page lists them.
    root.build();
    let written = std::fs::create_dir_all(dir).and_then(|()| write_pages(dir, &root, "sonde", ""));
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

/// The page of `command` as `name` (its words below `sonde` are `words`), then its
/// subcommands' pages; returns how many were written.
fn write_pages(dir: &Path, command: &clap::Command, name: &str, words: &str) -> std::io::Result<usize> {
    std::fs::write(dir.join(format!("{name}.1")), page(command, name, words)?)?;
    let mut written = 1;
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set() && s.get_name() != "help") {
        let words = format!("{words} {}", sub.get_name());
        written += write_pages(dir, sub, &format!("{name}-{}", sub.get_name()), words.trim())?;
    }
    Ok(written)
}

/// One manual page: clap_mangen's sections, with EXIT STATUS and EXAMPLES from the command's
/// page in `manual` (for `sonde` itself, the table every command shares) in place of the
/// after-help they are printed from in `--help`.
fn page(command: &clap::Command, name: &str, words: &str) -> std::io::Result<Vec<u8>> {
    let command = command.clone().name(name.to_owned()).version(crate::VERSION);
    let man = clap_mangen::Man::new(command.clone());
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    if command.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut page)?;
    }
    if command.has_subcommands() {
        man.render_subcommands_section(&mut page)?;
    }
    match crate::manual::page(words) {
        Some(manual) => {
            page.extend(roff_section("EXIT STATUS", manual.exits.iter().map(|(c, m)| (c.to_string(), *m))));
            page.extend(roff_section("EXAMPLES", manual.examples.iter().map(|(l, w)| (l.to_string(), *w))));
        }
        None if words.is_empty() => {
            let rows = crate::args::EXIT_CODES.lines().skip(1).collect::<Vec<_>>().join("\n");
            page.extend(format!(".SH \"EXIT STATUS\"\n.nf\n{}\n.fi\n", roff_text(&rows)).into_bytes());
        }
        None => {}
    }
    man.render_version_section(&mut page)?;
    Ok(page)
}

/// A section of tagged paragraphs: each term in bold, its text below it.
fn roff_section<'a>(title: &str, items: impl Iterator<Item = (String, &'a str)>) -> Vec<u8> {
    let mut text = format!(".SH \"{title}\"\n");
    for (term, words) in items {
        text.push_str(&format!(".TP\n\\fB{}\\fR\n{}\n", roff_text(&term), roff_text(words)));
    }
    text.into_bytes()
}

/// Text made safe for roff: backslashes and hyphens escaped, and a line that starts with a
/// control character (`.`, `'`) kept as text.
fn roff_text(text: &str) -> String {
    text.replace('\\', "\\e")
        .replace('-', "\\-")
        .lines()
        .map(|line| match line.starts_with(['.', '\'']) {
            true => format!("\\&{line}"),
            false => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::roff_text;

    #[test]
    fn roff_text_escapes_what_roff_would_read_as_its_own() {
        assert_eq!(roff_text("sonde --json"), "sonde \\-\\-json");
        assert_eq!(roff_text("a\\nb"), "a\\enb");
        assert_eq!(roff_text(".hidden\n'quoted"), "\\&.hidden\n\\&'quoted");
    }
}
