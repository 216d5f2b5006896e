//! A load run's budget (`--slo 'p99<50ms,errors<0.1%'`): each term read, and held against the
//! run's figures.
//!
//! Owns: the terms (`p50`, `p90`, `p99`, `p999` or `p99.9`, `max` below a duration; `errors`
//! below a share (`0.1%`) or a count; `rate` above calls a second) and each term's verdict in
//! words with the figure measured. Refuses: measuring (`run`) and the exit code (the CLI's).

use std::fmt;
use std::time::Duration;

use super::plan::{parse_duration, LoadWordsError};
use super::LoadReport;

/// A budget: every term must hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Slo {
    pub terms: Vec<SloTerm>,
    /// The budget as written, for the reports.
    pub text: String,
}

/// One term of a budget.
#[derive(Debug, Clone, PartialEq)]
pub enum SloTerm {
    /// A latency percentile (`50.0`, `99.9`) or the maximum (`100.0`) below a duration.
    Latency { percentile: f64, below: Duration },
    /// Errors (of every kind) below a share of the calls, in percent.
    ErrorShare { below: f64 },
    /// Errors below a count.
    ErrorCount { below: u64 },
    /// The rate reached above calls a second.
    Rate { above: f64 },
}

/// A term's verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Held {
    /// The term as written (`p99<50ms`).
    pub term: String,
    /// What was measured, in words (`p99 was 72.4 ms`).
    pub measured: String,
    pub held: bool,
}

impl fmt::Display for SloTerm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SloTerm::Latency { percentile, below } => {
                write!(f, "{}<{}", percentile_name(*percentile), duration_text(*below))
            }
            SloTerm::ErrorShare { below } => write!(f, "errors<{below}%"),
            SloTerm::ErrorCount { below } => write!(f, "errors<{below}"),
            SloTerm::Rate { above } => write!(f, "rate>{above}"),
        }
    }
}

/// `p99`, `p99.9`, `max`.
pub fn percentile_name(percentile: f64) -> String {
    if percentile >= 100.0 {
        "max".into()
    } else {
        format!("p{percentile}")
    }
}

fn duration_text(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    format!("{}ms", (ms * 1000.0).round() / 1000.0)
}

impl Slo {
    /// Reads `p99<50ms,errors<0.1%,rate>990`; a mistake names the term and what was expected.
    pub fn parse(text: &str) -> Result<Slo, LoadWordsError> {
        let terms = text
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(term)
            .collect::<Result<Vec<_>, _>>()?;
        if terms.is_empty() {
            return Err(LoadWordsError(
                "the SLO has no terms; write, for example, p99<50ms,errors<0.1%".into(),
            ));
        }
        Ok(Slo { terms, text: text.trim().to_owned() })
    }

    /// Each term against the run's figures.
    pub fn judge(&self, report: &LoadReport) -> Vec<Held> {
        self.terms.iter().map(|t| judged(t, report)).collect()
    }
}

fn term(text: &str) -> Result<SloTerm, LoadWordsError> {
    let wrong = || {
        LoadWordsError(format!(
            "{text:?} is not an SLO term; write p50|p90|p99|p999|max<DURATION, errors<PERCENT% or \
             errors<COUNT, or rate>CALLS_A_SECOND"
        ))
    };
    if let Some((name, value)) = text.split_once('<') {
        let (name, value) = (name.trim(), value.trim());
        let percentile = match name {
            "p50" => Some(50.0),
            "p90" => Some(90.0),
            "p99" => Some(99.0),
            "p999" | "p99.9" => Some(99.9),
            "max" => Some(100.0),
            _ => None,
        };
        if let Some(percentile) = percentile {
            return Ok(SloTerm::Latency { percentile, below: parse_duration(value).map_err(|_| wrong())? });
        }
        if name == "errors" {
            if let Some(share) = value.strip_suffix('%') {
                let below = share
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|s| (0.0..=100.0).contains(s))
                    .ok_or_else(wrong)?;
                return Ok(SloTerm::ErrorShare { below });
            }
            return Ok(SloTerm::ErrorCount { below: value.parse().map_err(|_| wrong())? });
        }
    }
    if let Some(("rate", value)) = text.split_once('>').map(|(n, v)| (n.trim(), v.trim())) {
        let above = super::plan::parse_rate(value).map_err(|_| wrong())?;
        return Ok(SloTerm::Rate { above });
    }
    Err(wrong())
}

fn judged(term: &SloTerm, report: &LoadReport) -> Held {
    let (measured, held) = match term {
        SloTerm::Latency { percentile, below } => {
            let ms = report.latency_at(*percentile);
            let limit = below.as_secs_f64() * 1000.0;
            (format!("{} was {}", percentile_name(*percentile), ms_words(ms)), report.count > 0 && ms < limit)
        }
        SloTerm::ErrorShare { below } => {
            let share = report.error_share() * 100.0;
            (format!("errors were {share:.3}% ({} of {})", report.errors, report.count), share < *below)
        }
        SloTerm::ErrorCount { below } => (format!("errors were {}", report.errors), report.errors < *below),
        SloTerm::Rate { above } => {
            (format!("the rate reached was {:.1}/s", report.rate), report.rate > *above)
        }
    };
    Held { term: term.to_string(), measured, held }
}

/// A latency in milliseconds as the reports write it: `0.412 ms`, `12.3 ms`, `1.25 s`.
pub fn ms_words(ms: f64) -> String {
    if ms >= 1000.0 {
        format!("{:.2} s", ms / 1000.0)
    } else if ms >= 10.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.3} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_read_as_written() {
        let slo = Slo::parse("p99<50ms, errors<0.1%,p99.9<1s,max<2s,errors<3,rate>990").unwrap();
        assert_eq!(slo.terms[0], SloTerm::Latency { percentile: 99.0, below: Duration::from_millis(50) });
        assert_eq!(slo.terms[1], SloTerm::ErrorShare { below: 0.1 });
        assert_eq!(slo.terms[2], SloTerm::Latency { percentile: 99.9, below: Duration::from_secs(1) });
        assert_eq!(slo.terms[3], SloTerm::Latency { percentile: 100.0, below: Duration::from_secs(2) });
        assert_eq!(slo.terms[4], SloTerm::ErrorCount { below: 3 });
        assert_eq!(slo.terms[5], SloTerm::Rate { above: 990.0 });
        assert_eq!(slo.terms[0].to_string(), "p99<50ms");
        assert_eq!(slo.terms[3].to_string(), "max<2000ms");
    }

    #[test]
    fn a_wrong_term_says_what_is_expected() {
        for bad in ["p98<5ms", "p99>5ms", "errors<lots", "errors<120%", "rate<5", "", "p99<fast"] {
            let e = Slo::parse(bad).unwrap_err().0;
            assert!(e.contains("write"), "{bad}: {e}");
        }
    }
}
