//! The demo server bundled with Sonde (`sonde demo-server`, and the desktop app run with
//! `demo-server`): a small, friendly MCP server on stdio, the default thing to inspect, serving
//! every feature a server can offer so that each of Sonde's panels shows something real.
//!
//! Tools (`tools`, `greet`): `echo`, `add`, `slow` (progress, cancellation), `image`, `greet`
//! (asks the user who they are) and `touch` (sends list_changed). Resources (`resources`): a
//! README, a JSON config, a PNG, a clock that ticks while subscribed, and the greeting
//! template. Prompts (`prompts`) with completion of their arguments (`complete`), log messages
//! about each call and read (`logging`), and subscriptions (`listen`).
//!
//! Dual-era: it answers `server/discover` and serves every request that carries 2026-07-28
//! `_meta` statelessly (log level per request, `subscriptions/listen` streams), and it answers
//! `initialize` for 2025-11-25 clients (log level and subscriptions for the session). Each
//! tools/call runs on its own thread so a slow call never blocks another request; stdout is
//! written whole-line under a lock.
//!
//! Owns: the read loop, the envelope of each era, the two ways a request fails (a `Fault`, or
//! a tool's error result) and routing requests to the modules.
//! Refuses: pagination (every list fits one page) and HTTP (stdio only).

mod complete;
mod greet;
mod listen;
mod logging;
mod prompts;
mod resources;
mod tools;

/// A mutex locked under Sonde's policy for poisoned locks (ARCHITECTURE.md: the data behind a
/// lock is whole after any panic, so it is taken and the server goes on). The demo does not
/// depend on the core, whose `sync` module says the same.
pub(crate) fn locked<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The demo's tools as it lists them (the window's in-memory double shows the same ones).
pub use tools::list as tools;

use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use listen::Streams;
use logging::Level;

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";
const VERSION_META: &str = "/_meta/io.modelcontextprotocol~1protocolVersion";
const INSTRUCTIONS: &str = "A demo server bundled with Sonde. Try `slow` to watch progress notifications, \
     read `demo://readme`, get the `review` prompt, or subscribe to `demo://clock`.";
/// How long a 2026-07-28 client may keep a list or a static resource.
const TTL_MS: u64 = 60_000;

type Out = Arc<Mutex<io::Stdout>>;

/// A JSON-RPC error this server answers with.
#[derive(Debug, Clone, PartialEq)]
struct Fault {
    code: i64,
    message: String,
    data: Option<Value>,
}

impl Fault {
    fn new(code: i64, message: impl Into<String>) -> Fault {
        Fault { code, message: message.into(), data: None }
    }

    /// `-32602`: the request's params are wrong (an unknown name, a missing argument).
    fn invalid(message: impl Into<String>) -> Fault {
        Fault::new(-32602, message)
    }

    fn with_data(mut self, data: Value) -> Fault {
        self.data = Some(data);
        self
    }
}

/// A tool that ran and failed says so in its result (`isError`), for the model to read; a
/// [`Fault`] is for a request that could not be served at all.
fn tool_error(message: &str) -> Value {
    json!({"content": [{"type": "text", "text": message}], "isError": true})
}

/// What every request handler shares: stdout, the calls in flight, and the 2025-11-25
/// session's state (elicitation declared, log level); subscriptions of both eras live in
/// [`Streams`].
struct Server {
    out: Out,
    /// tools/call requests in flight, by id, with the flag their cancellation sets.
    cancels: Mutex<HashMap<String, Arc<AtomicBool>>>,
    asks: greet::Asks,
    /// Whether the 2025-11-25 client declared elicitation in `initialize`.
    elicits: AtomicBool,
    /// The 2025-11-25 session's log level, set by `logging/setLevel`; none until then.
    level: Mutex<Option<Level>>,
    streams: Arc<Streams>,
}

/// A 2026-07-28 request at a version this server does not speak gets `-32022`.
fn unsupported_version(params: &Value) -> Option<Fault> {
    let requested = params.pointer(VERSION_META)?.as_str().unwrap_or_default();
    (requested != MODERN).then(|| {
        Fault::new(-32022, "Unsupported protocol version")
            .with_data(json!({"supported": [MODERN, LEGACY], "requested": requested}))
    })
}

/// Modern results say they are complete and who answered; the cacheable ones also say for how
/// long they may be kept (`ttl_ms`).
fn stamp(mut result: Value, modern: bool, ttl_ms: Option<u64>) -> Value {
    if modern {
        if let Some(o) = result.as_object_mut() {
            o.entry("resultType").or_insert(json!("complete"));
            o.insert("_meta".into(), json!({"io.modelcontextprotocol/serverInfo": server_info()}));
            if let Some(ttl) = ttl_ms {
                o.insert("ttlMs".into(), json!(ttl));
                o.insert("cacheScope".into(), json!("public"));
            }
        }
    }
    result
}

fn server_info() -> Value {
    json!({"name": "sonde-demo", "title": "Sonde demo server", "version": env!("CARGO_PKG_VERSION")})
}

/// The same capabilities in both eras' answers (`initialize`, `server/discover`).
fn capabilities() -> Value {
    json!({
        "tools": {},
        "resources": {"subscribe": true, "listChanged": true},
        "prompts": {"listChanged": true},
        "completions": {},
        "logging": {}
    })
}

fn send(out: &Out, message: &Value) {
    let mut line = serde_json::to_vec(message).expect("serializes");
    line.push(b'\n');
    let mut out = crate::locked(out);
    // The client closing stdout means it is gone; the read loop will see EOF next.
    let _ = out.write_all(&line).and_then(|_| out.flush());
}

fn notify(out: &Out, method: &str, params: Value) {
    send(out, &json!({"jsonrpc": "2.0", "method": method, "params": params}));
}

fn reply_to(id: Value, outcome: Result<Value, Fault>) -> Value {
    match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(Fault { code, message, data }) => {
            let mut error = json!({"code": code, "message": message});
            if let Some(data) = data {
                error["data"] = data;
            }
            json!({"jsonrpc": "2.0", "id": id, "error": error})
        }
    }
}

/// Runs the demo server until stdin closes; returns the process exit code.
pub fn serve() -> i32 {
    eprintln!("sonde demo-server {} ready on stdio", env!("CARGO_PKG_VERSION"));
    let out: Out = Arc::new(Mutex::new(io::stdout()));
    let server = Arc::new(Server {
        streams: Streams::start(out.clone()),
        out,
        cancels: Mutex::default(),
        asks: greet::Asks::default(),
        elicits: AtomicBool::new(false),
        level: Mutex::new(None),
    });
    for line in io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        match serde_json::from_str::<Value>(&line) {
            Ok(message) => server.receive(message),
            Err(e) => {
                let error = Fault::new(-32700, format!("Parse error: {e}"));
                send(&server.out, &reply_to(Value::Null, Err(error)));
            }
        }
    }
    // The client is gone: listen streams and subscriptions end with it.
    server.streams.close();
    0
}

impl Server {
    fn receive(self: &Arc<Self>, message: Value) {
        let method = message["method"].as_str().unwrap_or_default().to_owned();
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        let Some(id) = message.get("id").cloned() else {
            if method == "notifications/cancelled" {
                self.cancelled(&params["requestId"]);
            }
            return;
        };
        if method.is_empty() {
            // A reply: to an elicitation a `greet` call is waiting on, or to nothing.
            greet::answered(&self.asks, &id, message);
            return;
        }
        let modern = params.pointer(VERSION_META).is_some();
        if let Some(error) = unsupported_version(&params) {
            send(&self.out, &reply_to(id, Err(error)));
            return;
        }
        let level = match modern {
            true => logging::requested(&params),
            false => Ok(*crate::locked(&self.level)),
        };
        let level = match level {
            Ok(level) => level,
            Err(error) => return send(&self.out, &reply_to(id, Err(error))),
        };
        match method.as_str() {
            "tools/call" => self.call(id, params, modern, level),
            "subscriptions/listen" if modern => {
                // The stream stays open: no reply until the client cancels it.
                if let Err(error) = self.streams.listen(id.clone(), &params) {
                    send(&self.out, &reply_to(id, Err(error)));
                }
            }
            _ => {
                let reply = self.answer(&method, &params, modern, level);
                let ttl = match method.as_str() {
                    "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list" => {
                        Some(TTL_MS)
                    }
                    "resources/read" => Some(resources::ttl_ms(params["uri"].as_str().unwrap_or_default())),
                    _ => None,
                };
                send(&self.out, &reply_to(id, reply.map(|r| stamp(r, modern, ttl))));
            }
        }
    }

    /// A cancellation: of a tools/call in flight, or of a 2026-07-28 listen stream.
    fn cancelled(&self, request: &Value) {
        if let Some(flag) = crate::locked(&self.cancels).get(&request.to_string()) {
            flag.store(true, Ordering::SeqCst);
        }
        self.streams.cancel(request);
    }

    /// Runs a tools/call on a thread of its own, after its log messages.
    fn call(self: &Arc<Self>, id: Value, params: Value, modern: bool, level: Option<Level>) {
        let what = format!("tools/call {}", params["name"].as_str().unwrap_or_default());
        logging::announce(&self.out, level, &what, &params);
        let flag = Arc::new(AtomicBool::new(false));
        crate::locked(&self.cancels).insert(id.to_string(), flag.clone());
        let server = self.clone();
        std::thread::spawn(move || {
            let reply = tools::call(&server, &params, &flag, modern).map(|r| stamp(r, modern, None));
            crate::locked(&server.cancels).remove(&id.to_string());
            // A cancelled request gets no reply, as the protocol asks.
            if !flag.load(Ordering::SeqCst) {
                send(&server.out, &reply_to(id, reply));
            }
        });
    }

    /// Every request answered at once, on the read loop.
    fn answer(
        &self,
        method: &str,
        params: &Value,
        modern: bool,
        level: Option<Level>,
    ) -> Result<Value, Fault> {
        match (method, modern) {
            ("server/discover", _) => Ok(json!({
                "supportedVersions": [MODERN, LEGACY],
                "capabilities": capabilities(),
                "instructions": INSTRUCTIONS,
                "ttlMs": TTL_MS,
                "cacheScope": "public"
            })),
            ("initialize", _) => {
                let elicits = params.pointer("/capabilities/elicitation").is_some();
                self.elicits.store(elicits, Ordering::SeqCst);
                Ok(json!({
                    "protocolVersion": LEGACY,
                    "capabilities": capabilities(),
                    "serverInfo": server_info(),
                    "instructions": INSTRUCTIONS
                }))
            }
            ("ping", _) => Ok(json!({})),
            ("tools/list", _) => Ok(json!({ "tools": tools::list() })),
            ("resources/list", _) => Ok(resources::list()),
            ("resources/templates/list", _) => Ok(resources::templates()),
            ("resources/read", _) => {
                let uri = params["uri"].as_str().unwrap_or_default();
                logging::announce(&self.out, level, &format!("resources/read {uri}"), params);
                resources::read(uri, self.streams.ticks()).map_err(|missing| missing.fault(modern))
            }
            ("prompts/list", _) => Ok(prompts::list()),
            ("prompts/get", _) => prompts::get(params),
            ("completion/complete", _) => Ok(complete::answer(params)),
            ("logging/setLevel", false) => {
                *crate::locked(&self.level) = Some(logging::set_level(params)?);
                Ok(json!({}))
            }
            ("resources/subscribe" | "resources/unsubscribe", false) => {
                let uri = params["uri"].as_str().unwrap_or_default();
                if !resources::exists(uri) {
                    return Err(resources::Missing::NotFound(uri.to_owned()).fault(false));
                }
                self.streams.subscribe(uri, method == "resources/subscribe");
                Ok(json!({}))
            }
            ("logging/setLevel" | "resources/subscribe" | "resources/unsubscribe", true) => Err(Fault::new(
                -32601,
                format!("Method not found: 2026-07-28 has no {method} (the level rides in _meta, subscriptions in subscriptions/listen)"),
            )),
            ("subscriptions/listen", false) => Err(Fault::new(
                -32601,
                "Method not found: subscriptions/listen is 2026-07-28 only; this session speaks 2025-11-25 (resources/subscribe)",
            )),
            (other, _) => Err(Fault::new(-32601, format!("Method not found: {other}"))),
        }
    }
}
