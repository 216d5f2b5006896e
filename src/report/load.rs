//! A load run as the reports CI reads (`sonde load --reporter junit|sarif|json`): a case for
//! each term of its budget, failed when broken, or, with no budget, one case that fails on any
//! failed call; the server's death fails every case.
//!
//! Owns: turning a `LoadReport` into `Report`'s cases and rules. Refuses: measuring and judging
//! the run (`load`), and the formats (`cases`).

use super::cases::{Case, Failure, Report, Subject};
use crate::load::{kinds_words, LoadReport};

/// `run` as cases of the server named `server`.
pub fn load_cases(run: &LoadReport, server: &str) -> Report {
    let ms = Some(run.duration_s * 1000.0);
    let mut cases: Vec<Case> = if run.slo.is_empty() {
        let mut case = Case::new(format!("load {}", run.asked), ms);
        if run.errors > 0 {
            let words =
                format!("{} of {} calls failed: {}", run.errors, run.count, kinds_words(&run.errors_by_kind));
            case.failures.push(Failure::new("errors", words));
        }
        vec![case]
    } else {
        run.slo
            .iter()
            .map(|v| {
                let mut case = Case::new(v.term.clone(), ms);
                if !v.held {
                    case.failures.push(Failure::new("slo", format!("{} broken: {}", v.term, v.measured)));
                }
                case
            })
            .collect()
    };
    if let Some(at) = run.server_died_s {
        for case in &mut cases {
            case.failures.push(Failure::new("died", format!("the server died {at:.1} s into the run")));
        }
    }
    Report {
        command: "sonde load".into(),
        subject: Subject::Server(server.to_owned()),
        rules: vec![
            ("slo".into(), "A term of the load run's budget (--slo) held.".into()),
            ("errors".into(), "Every call of the load run ended without an error.".into()),
            ("died".into(), "The server lived through the load run.".into()),
        ],
        cases,
    }
}
