//! A load run of one tool as the window's form asks for it: numbers, not words.
//!
//! Owns: the form's settings and the plan and budget they make, each value out of range said.
//! Refuses: the words of the CLI (`plan`, `slo`).

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::plan::{parse_rate, LoadOp, LoadPlan, LoadWordsError, Pacing, Step, Weighted};
use super::slo::Slo;

/// A run of one tool as a form asks for it (the window's Load test…): a rate or a number of
/// callers, how long, a warm-up, a budget.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadSettings {
    /// Calls a second (an open loop), unless `concurrency` is given.
    pub rate: f64,
    /// Callers of a closed loop, instead of a rate.
    pub concurrency: Option<u32>,
    pub duration_s: f64,
    pub warmup_s: f64,
    /// A budget as `--slo` takes it; empty for none.
    pub slo: String,
}

impl LoadSettings {
    /// The plan of these settings for calls of `tool` with `arguments`, and the budget; a
    /// setting out of range says which.
    pub fn plan(
        &self,
        tool: &str,
        arguments: Option<Value>,
    ) -> Result<(LoadPlan, Option<Slo>), LoadWordsError> {
        let duration = Duration::try_from_secs_f64(self.duration_s)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or_else(|| LoadWordsError("the duration must be a number of seconds above 0".into()))?;
        let warmup = Duration::try_from_secs_f64(self.warmup_s)
            .map_err(|_| LoadWordsError("the warm-up must be 0 seconds or more".into()))?;
        let pacing = match self.concurrency {
            Some(0) => return Err(LoadWordsError("there must be at least one caller".into())),
            Some(c) => Pacing::Closed { concurrency: c as usize, duration: Some(duration), count: None },
            None => {
                let rate = parse_rate(&self.rate.to_string())?;
                Pacing::Open { steps: vec![Step { rate, duration }], count: None }
            }
        };
        let slo = match self.slo.trim() {
            "" => None,
            text => Some(Slo::parse(text)?),
        };
        let op = LoadOp::Tool { name: tool.to_owned(), arguments };
        Ok((LoadPlan { mix: vec![Weighted { op, weight: 1 }], pacing, warmup, seed: 1 }, slo))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> LoadSettings {
        LoadSettings { rate: 50.0, concurrency: None, duration_s: 2.0, warmup_s: 0.5, slo: "p99<20ms".into() }
    }

    #[test]
    fn a_form_makes_a_plan_of_one_tool() {
        let (plan, slo) = settings().plan("echo", None).unwrap();
        assert_eq!(
            plan.pacing,
            Pacing::Open { steps: vec![Step { rate: 50.0, duration: Duration::from_secs(2) }], count: None }
        );
        assert_eq!(plan.warmup, Duration::from_millis(500));
        assert_eq!(slo.unwrap().terms.len(), 1);
        let closed = LoadSettings { concurrency: Some(4), slo: String::new(), ..settings() };
        assert!(matches!(
            closed.plan("echo", None).unwrap(),
            (LoadPlan { pacing: Pacing::Closed { concurrency: 4, .. }, .. }, None)
        ));
    }

    #[test]
    fn a_setting_out_of_range_is_said() {
        assert!(LoadSettings { duration_s: 0.0, ..settings() }
            .plan("echo", None)
            .unwrap_err()
            .0
            .contains("duration"));
        assert!(LoadSettings { rate: -1.0, ..settings() }.plan("echo", None).is_err());
        assert!(LoadSettings { concurrency: Some(0), ..settings() }
            .plan("echo", None)
            .unwrap_err()
            .0
            .contains("caller"));
        assert!(LoadSettings { slo: "p98<1ms".into(), ..settings() }.plan("echo", None).is_err());
    }
}
