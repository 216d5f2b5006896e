//! Where live spans go: the collector the OpenTelemetry SDKs' standard variables name.
//!
//! Owns: reading `OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`,
//! `OTEL_EXPORTER_OTLP_HEADERS` (and `…_TRACES_HEADERS`), `OTEL_EXPORTER_OTLP_PROTOCOL` (and
//! `…_TRACES_PROTOCOL`), `OTEL_EXPORTER_OTLP_TIMEOUT` (and `…_TRACES_TIMEOUT`),
//! `OTEL_SDK_DISABLED` and `OTEL_TRACES_EXPORTER` as the SDK configuration specification says
//! (<https://opentelemetry.io/docs/specs/otel/protocol/exporter/>), and the words for a setting
//! Sonde cannot use. Refuses: sending (`live`).

use std::time::Duration;

use crate::transport::shown_url;

/// The OTLP/HTTP endpoint spans are sent to, and how.
#[derive(Clone, PartialEq)]
pub struct OtlpTarget {
    /// The whole URL spans are POSTed to (`…/v1/traces`).
    pub endpoint: url::Url,
    /// Sent with every request; their values are never shown.
    pub headers: Vec<(String, String)>,
    /// OTLP/JSON rather than protobuf (`http/json`).
    pub json: bool,
    /// How long one request may take.
    pub timeout: Duration,
}

impl std::fmt::Debug for OtlpTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("OtlpTarget")
            .field("endpoint", &self.shown())
            .field("headers", &names)
            .field("json", &self.json)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// A variable (or the window's setting) whose value Sonde cannot use, said with what would do:
/// the person's input, `bad_input`. No value of a header is ever in the words.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct OtlpTargetError(pub String);

impl OtlpTargetError {
    pub fn code(&self) -> crate::error_code::ErrorCode {
        crate::error_code::ErrorCode::BadInput
    }
}

/// The default of `OTEL_EXPORTER_OTLP_TIMEOUT`.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

impl OtlpTarget {
    /// The endpoint as Sonde shows it: credentials and tokens in it redacted.
    pub fn shown(&self) -> String {
        shown_url(&self.endpoint)
    }

    /// The target the process's environment names: `Ok(None)` when it names none (or turns
    /// tracing off), `Err` with words when what it says cannot be used.
    pub fn from_env() -> Result<Option<OtlpTarget>, OtlpTargetError> {
        OtlpTarget::from_vars(|name| std::env::var(name).ok())
    }

    /// As [`OtlpTarget::from_env`], with `endpoint` (a base URL, as the window's setting holds
    /// it) in place of the variables' endpoints when it is given: the headers, protocol and
    /// timeout still come from the environment.
    pub fn from_env_with(endpoint: Option<&str>) -> Result<Option<OtlpTarget>, OtlpTargetError> {
        let Some(endpoint) = endpoint.map(str::trim).filter(|e| !e.is_empty()) else {
            return OtlpTarget::from_env();
        };
        OtlpTarget::from_vars(|name| match name {
            "OTEL_EXPORTER_OTLP_ENDPOINT" => Some(endpoint.to_owned()),
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" | "OTEL_SDK_DISABLED" | "OTEL_TRACES_EXPORTER" => None,
            other => std::env::var(other).ok(),
        })
        .map_err(|e| OtlpTargetError(e.0.replace("OTEL_EXPORTER_OTLP_ENDPOINT", "the collector's URL")))
    }

    /// As [`OtlpTarget::from_env`], from `var`.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Option<OtlpTarget>, OtlpTargetError> {
        let var = |name: &str| var(name).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
        if var("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true"))
            || var("OTEL_TRACES_EXPORTER").is_some_and(|v| v.eq_ignore_ascii_case("none"))
        {
            return Ok(None);
        }
        let endpoint = match (var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), var("OTEL_EXPORTER_OTLP_ENDPOINT")) {
            // The signal's own endpoint is the whole URL.
            (Some(whole), _) => parse_url("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", &whole)?,
            // The base gets the signal's path after it.
            (None, Some(base)) => {
                let base = parse_url("OTEL_EXPORTER_OTLP_ENDPOINT", &base)?;
                let mut url = base.clone();
                url.set_path(&format!("{}/v1/traces", base.path().trim_end_matches('/')));
                url
            }
            (None, None) => return Ok(None),
        };
        let protocol = var("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
            .or_else(|| var("OTEL_EXPORTER_OTLP_PROTOCOL"))
            .unwrap_or_else(|| "http/protobuf".into());
        let json = match protocol.as_str() {
            "http/protobuf" => false,
            "http/json" => true,
            other => {
                return Err(OtlpTargetError(format!(
                    "OTEL_EXPORTER_OTLP_PROTOCOL={other}: Sonde sends spans over OTLP/HTTP only; set it to \
                     http/protobuf or http/json"
                )))
            }
        };
        let mut headers = Vec::new();
        for name in ["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"] {
            for (key, value) in parse_headers(name, var(name).as_deref().unwrap_or(""))? {
                // The signal's own value wins over the general one.
                headers.retain(|(k, _): &(String, String)| !k.eq_ignore_ascii_case(&key));
                headers.push((key, value));
            }
        }
        let timeout =
            match var("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT").or_else(|| var("OTEL_EXPORTER_OTLP_TIMEOUT")) {
                Some(ms) => Duration::from_millis(ms.parse::<u64>().map_err(|_| {
                    OtlpTargetError(format!(
                        "OTEL_EXPORTER_OTLP_TIMEOUT={ms}: give milliseconds, as a whole number"
                    ))
                })?),
                None => DEFAULT_TIMEOUT,
            };
        Ok(Some(OtlpTarget { endpoint, headers, json, timeout }))
    }
}

fn parse_url(name: &str, text: &str) -> Result<url::Url, OtlpTargetError> {
    let url = url::Url::parse(text).map_err(|e| OtlpTargetError(format!("{name} is not a URL ({e})")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(OtlpTargetError(format!(
            "{name}: Sonde sends spans over http or https, not {}",
            url.scheme()
        )));
    }
    Ok(url)
}

/// `key1=value1,key2=value2`, each value percent-decoded (the W3C Baggage format the
/// specification names); the words never hold a value.
fn parse_headers(name: &str, text: &str) -> Result<Vec<(String, String)>, OtlpTargetError> {
    let mut out = Vec::new();
    for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((key, value)) = pair.split_once('=') else {
            let key: String = pair.chars().take_while(|c| *c != ':').collect();
            return Err(OtlpTargetError(format!(
                "{name}: {key:?} has no value; write key=value, separated by commas"
            )));
        };
        let key = key.trim();
        if key.is_empty() || !key.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)) {
            return Err(OtlpTargetError(format!("{name}: {key:?} is not a header name")));
        }
        let value = percent_decode(value.trim())
            .ok_or_else(|| OtlpTargetError(format!("{name}: the value of {key} is not UTF-8")))?;
        out.push((key.to_owned(), value));
    }
    Ok(out)
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1).copied().and_then(hex), bytes.get(i + 2).copied().and_then(hex)) {
            (b'%', Some(hi), Some(lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn from(vars: &[(&str, &str)]) -> Result<Option<OtlpTarget>, OtlpTargetError> {
        let vars: HashMap<String, String> =
            vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        OtlpTarget::from_vars(|name| vars.get(name).cloned())
    }

    #[test]
    fn the_endpoint_is_the_base_with_the_signals_path_or_the_signals_own_whole() {
        assert_eq!(from(&[]).unwrap(), None);
        let base = from(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")]).unwrap().unwrap();
        assert_eq!(base.endpoint.as_str(), "http://127.0.0.1:4318/v1/traces");
        assert!(!base.json);
        assert_eq!(base.timeout, Duration::from_secs(10));
        let prefixed = from(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "https://c.example/otlp/")]).unwrap().unwrap();
        assert_eq!(prefixed.endpoint.as_str(), "https://c.example/otlp/v1/traces");
        let whole = from(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"),
            ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://127.0.0.1:9999/custom"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(whole.endpoint.as_str(), "http://127.0.0.1:9999/custom");
    }

    #[test]
    fn headers_protocol_and_timeout_are_read_and_what_cannot_be_used_is_said() {
        let target = from(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4318"),
            ("OTEL_EXPORTER_OTLP_HEADERS", "x-honeycomb-team=abc%20def, Authorization=Basic%3Dx"),
            ("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "authorization=Bearer t"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "2500"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(
            target.headers,
            [
                ("x-honeycomb-team".to_owned(), "abc def".to_owned()),
                ("authorization".into(), "Bearer t".into())
            ]
        );
        assert!(target.json);
        assert_eq!(target.timeout, Duration::from_millis(2500));
        assert!(!format!("{target:?}").contains("abc def"), "values are never shown");

        let grpc = from(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4317"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
        ]);
        assert!(grpc.unwrap_err().0.contains("http/protobuf or http/json"));
        let bad = from(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h"),
            ("OTEL_EXPORTER_OTLP_HEADERS", "secretvalue"),
        ]);
        assert!(bad.unwrap_err().0.contains("has no value"));
        assert!(from(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318")]).is_err());
        let off = [("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4318"), ("OTEL_SDK_DISABLED", "true")];
        assert_eq!(from(&off).unwrap(), None);
        let none = [("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4318"), ("OTEL_TRACES_EXPORTER", "none")];
        assert_eq!(from(&none).unwrap(), None);
    }

    #[test]
    fn an_endpoint_with_credentials_is_shown_without_them() {
        let target = from(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://user:pw@h:4318")]).unwrap().unwrap();
        assert!(!target.shown().contains("pw"), "{}", target.shown());
    }
}
