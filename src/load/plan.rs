//! What a load run does, as people write it: durations (`5s`, `500ms`, `2m`, a bare number of
//! seconds), stepped load (`10/s:10s,100/s:10s`), and a mix of tools, resource reads and prompts
//! with weights (a YAML or JSON file).
//!
//! Owns: the plan's shape and reading it from words, each mistake said with what was expected.
//! Refuses: sending anything (`run`) and judging the outcome (`slo`).

use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

/// Words of a load plan that cannot be read (a duration, a rate, a step, a mix, a budget, a
/// form's setting), said with what was expected: the person's input, `bad_input`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct LoadWordsError(pub String);

impl LoadWordsError {
    pub fn code(&self) -> crate::error_code::ErrorCode {
        crate::error_code::ErrorCode::BadInput
    }
}

/// One run: what is sent, how fast, for how long.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadPlan {
    /// What each call is, chosen by weight in a fixed rotation (never at random, so two runs of
    /// one plan send the same sequence).
    pub mix: Vec<Weighted>,
    pub pacing: Pacing,
    /// Sent at the first step's rate (or the loop's concurrency) first, and not counted.
    pub warmup: Duration,
    /// Seeds `{{rand}}`.
    pub seed: u64,
}

/// How calls are paced.
#[derive(Debug, Clone, PartialEq)]
pub enum Pacing {
    /// Open loop: calls fall due at each step's rate whatever the server does, and a call's
    /// latency runs from when it was due (coordinated omission corrected). `count` stops the run
    /// after that many counted calls.
    Open { steps: Vec<Step>, count: Option<u64> },
    /// Closed loop: `concurrency` callers, each sending its next call when the last is answered,
    /// until `duration` has passed or `count` calls were sent.
    Closed { concurrency: usize, duration: Option<Duration>, count: Option<u64> },
}

/// One step of stepped load: a rate held for a duration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    /// Calls a second.
    pub rate: f64,
    pub duration: Duration,
}

/// One kind of call in the mix, with its share.
#[derive(Debug, Clone, PartialEq)]
pub struct Weighted {
    pub op: LoadOp,
    pub weight: u32,
}

/// A call the run sends; `{{seq}}` and `{{rand}}` in its strings are filled per call.
#[derive(Debug, Clone, PartialEq)]
pub enum LoadOp {
    Tool { name: String, arguments: Option<Value> },
    Resource { uri: String },
    Prompt { name: String, arguments: Option<Value> },
}

impl LoadOp {
    /// The call as a report names it: `tools/call add`, `resources/read file:///x`.
    pub fn label(&self) -> String {
        match self {
            LoadOp::Tool { name, .. } => format!("tools/call {name}"),
            LoadOp::Resource { uri } => format!("resources/read {uri}"),
            LoadOp::Prompt { name, .. } => format!("prompts/get {name}"),
        }
    }
}

impl Pacing {
    /// How long the counted part lasts, when it is known before the run.
    pub fn planned(&self) -> Option<Duration> {
        match self {
            Pacing::Open { steps, count } => {
                let whole: Duration = steps.iter().map(|s| s.duration).sum();
                match (count, steps.as_slice()) {
                    (Some(n), [one]) => Some(Duration::from_secs_f64(*n as f64 / one.rate).min(whole)),
                    _ => Some(whole),
                }
            }
            Pacing::Closed { duration, .. } => *duration,
        }
    }
}

/// A duration as people write one: `5s`, `500ms`, `2m`, `1h`, `1m30s`, or a bare number of
/// seconds (`2.5`).
pub fn parse_duration(text: &str) -> Result<Duration, LoadWordsError> {
    let text = text.trim();
    if let Ok(secs) = text.parse::<f64>() {
        return Duration::try_from_secs_f64(secs).map_err(|_| {
            LoadWordsError(format!("{text:?} is not a duration: seconds must be a finite number ≥ 0"))
        });
    }
    humantime::parse_duration(text).map_err(|_| {
        LoadWordsError(format!("{text:?} is not a duration; write 5s, 500ms, 2m or a number of seconds"))
    })
}

/// Stepped load: `10/s:10s,100/s:10s,500/s:10s`, each step a rate (calls a second, `/s`
/// optional) and how long it is held.
pub fn parse_steps(text: &str) -> Result<Vec<Step>, LoadWordsError> {
    let steps = text
        .split(',')
        .map(|part| {
            let part = part.trim();
            let (rate, duration) = part.split_once(':').ok_or_else(|| {
                LoadWordsError(format!("{part:?} is not a step; write RATE/s:DURATION, as 100/s:10s"))
            })?;
            Ok(Step { rate: parse_rate(rate)?, duration: parse_duration(duration)? })
        })
        .collect::<Result<Vec<_>, LoadWordsError>>()?;
    if steps.iter().all(|s| s.duration.is_zero()) {
        return Err(LoadWordsError(format!("{text:?} lasts no time at all")));
    }
    Ok(steps)
}

/// A rate in calls a second: `500`, `500/s`.
pub fn parse_rate(text: &str) -> Result<f64, LoadWordsError> {
    let number = text.trim().trim_end_matches("/s");
    match number.parse::<f64>() {
        Ok(rate) if rate.is_finite() && rate > 0.0 && rate <= 1_000_000.0 => Ok(rate),
        _ => Err(LoadWordsError(format!(
            "{text:?} is not a rate; write calls a second, between 0 and 1000000, as 500 or 500/s"
        ))),
    }
}

/// One entry of a mix file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MixEntry {
    tool: Option<String>,
    resource: Option<String>,
    prompt: Option<String>,
    arguments: Option<Value>,
    #[serde(default = "one")]
    weight: u32,
}

fn one() -> u32 {
    1
}

/// A mix file (YAML, of which JSON is a part): a list of entries, each one `tool:` (with
/// `arguments:`), `resource:` (a URI) or `prompt:` (with `arguments:`), and a `weight:` (1 when
/// left out).
pub fn parse_mix(text: &str) -> Result<Vec<Weighted>, LoadWordsError> {
    let entries: Vec<MixEntry> = serde_saphyr::from_str(text).map_err(|e| {
        LoadWordsError(format!(
            "not a mix: {e}; a mix is a list of entries of tool:, resource: or prompt:, each with a weight:"
        ))
    })?;
    if entries.is_empty() {
        return Err(LoadWordsError("the mix has no entries".into()));
    }
    entries
        .into_iter()
        .enumerate()
        .map(|(at, e)| {
            let n = at + 1;
            if e.weight == 0 {
                return Err(LoadWordsError(format!("entry {n} has weight 0; leave it out instead")));
            }
            if e.arguments.as_ref().is_some_and(|a| !a.is_object()) {
                return Err(LoadWordsError(format!("entry {n}'s arguments are not an object")));
            }
            let op = match (e.tool, e.resource, e.prompt) {
                (Some(name), None, None) => LoadOp::Tool { name, arguments: e.arguments },
                (None, Some(uri), None) if e.arguments.is_none() => LoadOp::Resource { uri },
                (None, Some(_), None) => {
                    return Err(LoadWordsError(format!(
                        "entry {n} reads a resource, which takes no arguments"
                    )))
                }
                (None, None, Some(name)) => LoadOp::Prompt { name, arguments: e.arguments },
                _ => {
                    return Err(LoadWordsError(format!(
                        "entry {n} needs exactly one of tool:, resource: or prompt:"
                    )))
                }
            };
            Ok(Weighted { op, weight: e.weight })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(parse_duration("5s"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("30"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("0.25"), Ok(Duration::from_millis(250)));
        assert!(parse_duration("-1").is_err());
        assert!(parse_duration("soon").unwrap_err().0.contains("500ms"));
    }

    #[test]
    fn steps_are_rates_held_for_a_while() {
        let steps = parse_steps("10/s:10s, 100:500ms").unwrap();
        assert_eq!(steps[0], Step { rate: 10.0, duration: Duration::from_secs(10) });
        assert_eq!(steps[1], Step { rate: 100.0, duration: Duration::from_millis(500) });
        assert!(parse_steps("10/s").unwrap_err().0.contains("RATE/s:DURATION"));
        assert!(parse_steps("0/s:1s").is_err());
        assert!(parse_steps("5/s:0s").unwrap_err().0.contains("no time"));
    }

    #[test]
    fn a_count_at_one_rate_plans_its_own_length() {
        let pacing = Pacing::Open {
            steps: vec![Step { rate: 100.0, duration: Duration::from_secs(3600) }],
            count: Some(250),
        };
        assert_eq!(pacing.planned(), Some(Duration::from_millis(2500)));
    }

    #[test]
    fn a_mix_names_one_call_per_entry_with_its_weight() {
        let mix = parse_mix(
            "- tool: add\n  arguments: {a: 1, b: \"{{seq}}\"}\n  weight: 3\n- resource: file:///x\n- prompt: greet\n",
        )
        .unwrap();
        assert_eq!(mix.len(), 3);
        assert_eq!(mix[0].weight, 3);
        assert_eq!(mix[1], Weighted { op: LoadOp::Resource { uri: "file:///x".into() }, weight: 1 });
        assert!(parse_mix("- tool: a\n  prompt: b\n").unwrap_err().0.contains("exactly one"));
        assert!(parse_mix("- tool: a\n  weight: 0\n").unwrap_err().0.contains("weight 0"));
        assert!(parse_mix("- tool: a\n  wieght: 2\n").is_err());
        assert!(parse_mix("[]").unwrap_err().0.contains("no entries"));
    }
}
