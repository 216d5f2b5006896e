//! Where a run's report goes, for each command that writes one (`test`, `doctor`): the reporter
//! asked for (`--reporter`) in the file given (`--out`), or else on stdout.
//!
//! Owns: the usage rule for `--json` beside a reporter, writing the file, printing the report.
//! Refuses: the formats (the core's `Report`) and each command's own lines and
//! `--json` document.

use std::path::PathBuf;

use clap::ValueEnum;
use sonde_core::Report;

use crate::args::Reporter;
use crate::exit::FAILED;

/// The reporter asked for and its file.
#[derive(Debug, Clone)]
pub struct Outputs {
    pub reporter: Reporter,
    pub out: Option<PathBuf>,
}

impl Outputs {
    /// The outputs asked for; a usage error when `--json` (`json`) and the reporter would both
    /// print on stdout. `json_is_report`: `--json` prints this very JSON report (`test`), so
    /// `--reporter json` beside it is the same document, not a second one.
    pub fn checked(
        reporter: Reporter,
        out: Option<PathBuf>,
        json: bool,
        json_is_report: bool,
    ) -> Result<Outputs, String> {
        let clashes = match reporter {
            Reporter::Text => false,
            Reporter::Json => !json_is_report,
            Reporter::Junit | Reporter::Sarif => true,
        };
        if json && out.is_none() && clashes {
            return Err(format!(
                "--json prints its JSON on stdout, where --reporter {} would go too; give --out FILE for it",
                reporter.to_possible_value().map(|v| v.get_name().to_owned()).unwrap_or_default()
            ));
        }
        Ok(Outputs { reporter, out })
    }

    /// Whether the report itself goes to stdout: a reporter other than text, and no file.
    pub fn on_stdout(&self) -> bool {
        self.out.is_none() && self.reporter != Reporter::Text
    }

    /// The report in `--out`, when given, said on stderr as `command`'s note; `text` is the
    /// text report (the command's lines). The exit code of a file that cannot be written.
    pub fn to_file(&self, command: &str, report: &Report, text: &dyn Fn() -> String) -> Result<(), i32> {
        let Some(path) = &self.out else { return Ok(()) };
        if let Err(e) = std::fs::write(path, self.rendered(report, text)) {
            errln!("sonde: cannot write the report to {}: {e}", path.display());
            return Err(FAILED);
        }
        noteln!("{command}: wrote the report to {}", path.display());
        Ok(())
    }

    /// Prints the report on stdout when it goes there ([`Outputs::on_stdout`]).
    pub fn print(&self, report: &Report) {
        if self.on_stdout() {
            outln!("{}", self.rendered(report, &String::new).trim_end());
        }
    }

    /// The report as the reporter writes it: `text` for text.
    fn rendered(&self, report: &Report, text: &dyn Fn() -> String) -> String {
        match self.reporter {
            Reporter::Text => text(),
            Reporter::Json => report.json().to_string() + "\n",
            Reporter::Junit => report.junit(),
            // Named relative to where sonde runs: a CI job runs it at the repository's root.
            Reporter::Sarif => report.sarif(&std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"))),
        }
    }
}
