//! `sonde-fixture`: a stdio MCP server (2025-11-25) with a knob for every fault Sonde must survive.
//!
//! It answers `initialize`, `ping`, `tools/list` (paginated) and `tools/call` for `echo` (and,
//! unlisted, `fails`, whose result is always `isError`), and misbehaves exactly as its flags say. It is a test instrument: small, synchronous, explicit.
//!
//! ```text
//! --banner TEXT        print TEXT on stdout before the first frame
//! --grandchild         start `sleep 3600` in the server's process group
//! --ignore-sigterm     ignore SIGTERM
//! --stay-on-eof        keep running after stdin closes
//! --exit-delay-ms N    wait N ms after stdin closes before exiting
//! --last-words TEXT    write TEXT to stderr after stdin closes, just before exiting
//! --crash-on-call      exit with code 1 on tools/call, before answering
//! --never-answer       read everything, answer nothing
//! --big-mib N          answer tools/call with one line of N MiB
//! --bad-utf8           put invalid UTF-8 bytes inside the tools/call result
//! --ansi-stderr        write ANSI-coloured lines to stderr
//! --tools N            list N tools (default 1: echo, then filler_2 …)
//! --page-size K        tools/list pages of K tools (default: all in one page)
//! --filler-kib N       give each filler tool a description of N KiB
//! --ask-ping           after `initialized`, send the client a ping request (id "fixture-1")
//! --silent-unknown     never answer a method it does not know (server/discover included)
//! --exit-on-unknown    exit with code 1 on an unknown request before `initialize`, like rmcp < 3
//! --progress-steps N   on tools/call, send N progress updates first (when a token is given;
//!                      without one, the call is never answered)
//! --step-ms M          wait M ms before each progress update (default 100)
//! --reply-delay-ms N   answer tools/call only after N ms
//! --ping-delay-ms N    answer ping only after N ms (reading nothing meanwhile)
//! --flood N            on tools/call, write N small notifications/message lines first
//! --listen-end HOW     answer subscriptions/listen (with --dual-era): acknowledge, send one
//!                      notifications/tools/list_changed, then end it: `complete` or `cancel`;
//!                      `silent` never acknowledges it (nor answers)
//! --dual-era           answer server/discover too; the first message pins the era, and a late
//!                      `initialize` after discover gets -32022 (as the Python SDK does)
//! --modern-only        answer server/discover (2026-07-28 only) and refuse `initialize` with
//!                      -32022, like the TypeScript SDK v2's strict handler
//! --start-delay-ms N   read nothing from stdin and write nothing for N ms first, like a server
//!                      that `npx -y` or `uvx` is still installing; combines with every mode
//! --exit-after-ms N    say so on stderr and exit N ms after starting (0: at once)
//! --exit-code C        the code --exit-after-ms exits with (default 3)
//! --record FILE        append every line read from stdin to FILE, as it is read
//! --malformed-tools    also list tools of the wrong shapes: `bad_icons` (icons an object),
//!                      `object_title` (title an object), `numeric_required` (inputSchema with
//!                      `required: 5`) and `content_not_array` (its result's content an object)
//! --invalid-utf8-mib N after `initialized`, write one notifications/message frame whose data
//!                      holds N MiB of 0xFF bytes (invalid UTF-8)
//! --string-ids        answer a request sent with a number id with that number as a string
//!                      (`1` → `"1"`), which JSON-RPC says is another id
//! --no-content         answer tools/call of `echo` with a result that has no `content`
//! --early-notification send notifications/tools/list_changed just before answering initialize,
//!                      so before the client's notifications/initialized
//! --cursor-loop        tools/list's last page gives the second page's cursor again (with
//!                      --page-size), a cursor loop
//! --echo-prefix TEXT  echo answers with TEXT before its text (a later build whose answer changed)
//! --cursor-prefix TEXT tools/list's cursors start with TEXT (a build whose cursors differ)
//! --ask-many N         list `ask_many`: a call sends N elicitation/create requests at once and
//!                      answers, once every one is answered, with a count of the answers
//! --app KIND          an MCP App: list `show_app` (its `_meta.ui.resourceUri` is
//!                      ui://fixture/app.html), `poll` (for apps only) and `secret` (for the model
//!                      only), and answer resources/read of the app: `hostile` reaches for the
//!                      window, its IPC, the network, the top window, popups, and floods;
//!                      `broken` has the wrong MIME type, HTML that does not parse, a CSP and a
//!                      permission the extension does not know; `missing` names a resource that
//!                      does not resolve
//! --skills             the Skills extension (with directoryRead): four skills, one a page, one
//!                      under a prefixed path, one with a tampered file, one with a file a byte
//!                      longer than listed, one whose SKILL.md's frontmatter differs (skills.rs)
//! --skills-no-cache    --skills, its 2026-07-28 results without ttlMs and cacheScope
//! --risky-tools       tools that pass the protocol but not hosts and models (risky.rs): a
//!                      hidden character, a poisoned description, names that collide, a dotted
//!                      name, a 70-character name, each awkward schema construct
//! --skills-broken K    the extension declared, its skills broken: `list-error` answers
//!                      skills/list -32603; `bad-input` lists a skill whose frontmatter is not
//!                      YAML and one of 513 files, then sends its cursor back forever
//! --stall-on-call N    the Nth tools/call (from 1) waits --stall-ms before it is answered;
//!                      the calls behind it wait with it (the server reads one at a time)
//! --stall-ms S         how long --stall-on-call stalls (default 0)
//! --error-every N      every Nth tools/call is answered with a JSON-RPC error (-32603)
//! --crash-after-calls N  exit with code 1 on the Nth tools/call, before answering it
//! ```

mod apps;
mod risky;
mod skills;

use std::io::{self, BufRead, Write};
use std::time::Duration;

use serde_json::{json, Value};

mod knobs;

use knobs::{die, parse_args, Knobs};

/// What the conversation so far has fixed.
#[derive(Default)]
struct State {
    initialized: bool,
    /// Set by the first request in --dual-era: true for 2026-07-28.
    modern: Option<bool>,
    /// An `ask_many` call waiting for the answers to its questions.
    asking: Option<Asking>,
    /// How many tools/call requests have arrived.
    calls: u64,
}

/// The questions of an `ask_many` call: how many are still unanswered, and the answers so far.
struct Asking {
    call: Value,
    asked: u64,
    unanswered: u64,
    answers: std::collections::BTreeMap<String, u64>,
}

fn send(out: &mut impl Write, v: &Value) {
    let mut line = serde_json::to_vec(v).expect("serializes");
    line.push(b'\n');
    // A closed stdout means the client is gone; exiting quietly is all that is left to do.
    if out.write_all(&line).and_then(|_| out.flush()).is_err() {
        std::process::exit(0);
    }
}

fn main() {
    let k = parse_args();
    // Before anything else, stderr and the banner included: a server still being installed
    // has written nothing at all.
    std::thread::sleep(Duration::from_millis(k.start_delay_ms));
    if let Some(ms) = k.exit_after_ms {
        let code = k.exit_code;
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(ms));
            eprintln!("sonde-fixture: exiting on purpose after {ms} ms");
            std::process::exit(code);
        });
    }
    let mut record = k.record.as_ref().map(|path| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap_or_else(|e| die(&format!("cannot open {path}: {e}")))
    });
    if k.ignore_sigterm {
        // SAFETY: setting a signal to SIG_IGN has no preconditions.
        unsafe { libc::signal(libc::SIGTERM, libc::SIG_IGN) };
    }
    if k.grandchild {
        // Inherits our process group; it must die when Sonde stops the server. It is never
        // waited on on purpose: it is meant to outlive this process unless Sonde stops it.
        #[expect(clippy::zombie_processes, reason = "the grandchild must outlive the server")]
        let child =
            std::process::Command::new("sleep").arg("3600").spawn().unwrap_or_else(|e| die(&e.to_string()));
        eprintln!("grandchild pid {}", child.id());
    }
    let stdout = io::stdout();
    let mut out = stdout.lock();
    if let Some(banner) = &k.banner {
        let _ = writeln!(out, "{banner}");
        let _ = out.flush();
    }
    if k.ansi_stderr {
        eprintln!("\x1b[32minfo\x1b[0m sonde-fixture \x1b[1mready\x1b[0m");
    }
    let stdin = io::stdin();
    let mut state = State::default();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if let Some(file) = record.as_mut() {
            // Written before it is handled, so the file holds whatever reached the server.
            let _ = writeln!(file, "{line}").and_then(|_| file.flush());
        }
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            send(
                &mut out,
                &json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}),
            );
            continue;
        };
        if k.ansi_stderr {
            eprintln!(
                "\x1b[36mrecv\x1b[0m {}",
                msg.get("method").and_then(Value::as_str).unwrap_or("(reply)")
            );
        }
        if k.never_answer {
            continue;
        }
        handle(&k, &mut state, &msg, &mut out);
    }
    // stdin closed: the polite request to exit.
    if k.exit_delay_ms > 0 {
        std::thread::sleep(Duration::from_millis(k.exit_delay_ms));
    }
    if let Some(words) = &k.last_words {
        eprintln!("{words}");
    }
    if k.stay_on_eof {
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    }
}

fn handle(k: &Knobs, state: &mut State, msg: &Value, out: &mut impl Write) {
    let id = msg.get("id").cloned();
    let method = msg.get("method").and_then(Value::as_str);
    if method.is_none() {
        return heard_answer(state, msg, out);
    }
    let (Some(id), Some(method)) = (id, method) else {
        if method == Some("notifications/initialized") && k.ask_ping {
            send(out, &json!({"jsonrpc":"2.0","id":"fixture-1","method":"ping"}));
        }
        if method == Some("notifications/initialized") && k.invalid_utf8_mib > 0 {
            invalid_utf8(k.invalid_utf8_mib, out);
        }
        return;
    };
    let id = match id {
        Value::Number(n) if k.string_ids => Value::String(n.to_string()),
        id => id,
    };
    let params = msg.get("params").cloned().unwrap_or(Value::Null);
    if k.modern_only && method == "initialize" {
        return refuse_initialize(id, &params, out);
    }
    if k.dual_era && method != "ping" {
        let modern = method == "server/discover"
            || params.pointer("/_meta/io.modelcontextprotocol~1protocolVersion").is_some();
        let pinned = *state.modern.get_or_insert(modern);
        if method == "initialize" && pinned {
            return refuse_initialize(id, &params, out);
        }
    }
    if method == "subscriptions/listen" && k.dual_era {
        if let Some(how) = &k.listen_end {
            return listen(how, id, &params, out);
        }
    }
    let modern = k.dual_era || k.modern_only;
    let known = ["initialize", "ping", "tools/list", "tools/call"].contains(&method)
        || (modern && method == "server/discover")
        || (k.app.is_some() && method.starts_with("resources/"))
        || (k.skills && skills::answers(method));
    if !known {
        if k.exit_on_unknown && !state.initialized {
            eprintln!("sonde-fixture: {method} before initialize; exiting as asked");
            std::process::exit(1);
        }
        if k.silent_unknown {
            return;
        }
    }
    let result = match method {
        "server/discover" if modern => json!({
            "resultType": "complete",
            "supportedVersions": if k.modern_only { json!(["2026-07-28"]) } else { json!(["2026-07-28", "2025-11-25"]) },
            "capabilities": if k.skills { skills::capabilities(json!({"tools": {}, "logging": {}})) } else { json!({"tools": {}, "logging": {}}) },
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "sonde-fixture", "version": env!("CARGO_PKG_VERSION")}},
            "ttlMs": 0,
            "cacheScope": "public"
        }),
        "initialize" => {
            state.initialized = true;
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": if k.app.is_some() { json!({"tools": {}, "logging": {}, "resources": {}}) } else if k.skills { skills::capabilities(json!({"tools": {}, "logging": {}})) } else { json!({"tools": {}, "logging": {}}) },
                "serverInfo": {"name": "sonde-fixture", "version": env!("CARGO_PKG_VERSION")},
                "instructions": "A test server with knobs for faults."
            })
        }
        "ping" if k.crash_on_ping => {
            eprintln!("sonde-fixture: crashing on ping as asked");
            std::process::exit(1);
        }
        "ping" => {
            std::thread::sleep(Duration::from_millis(k.ping_delay_ms));
            json!({})
        }
        "tools/list" => list_tools(k, &params),
        "resources/read" if k.app.is_some() => {
            match apps::read(k.app.as_deref().unwrap_or_default(), &params) {
                Ok(result) => result,
                Err(error) => return send(out, &json!({"jsonrpc":"2.0","id":id,"error":error})),
            }
        }
        "resources/list" if k.app.is_some() => apps::listed(k.app.as_deref().unwrap_or_default()),
        "resources/templates/list" if k.app.is_some() => json!({"resourceTemplates": []}),
        "tools/call" if k.app.is_some() && apps::calls(&params) => {
            return send(out, &json!({"jsonrpc":"2.0","id":id,"result":apps::call(&params)}));
        }
        "tools/call" => return call_tool(k, state, id, &params, out),
        m if k.skills && skills::answers(m) => {
            let modern = params.pointer("/_meta/io.modelcontextprotocol~1protocolVersion").is_some();
            let broken = k.skills_broken.as_deref().and_then(|b| skills::broken(b, m, &params));
            match broken.unwrap_or_else(|| skills::answer(m, &params, modern, k.skills_no_cache)) {
                Ok(result) => result,
                Err(error) => return send(out, &json!({"jsonrpc":"2.0","id":id,"error":error})),
            }
        }
        _ => {
            let error = json!({"code": -32601, "message": format!("Method not found: {method}")});
            send(out, &json!({"jsonrpc":"2.0","id":id,"error":error}));
            return;
        }
    };
    // Before the reply, so it is read before the client can have sent `initialized`.
    if method == "initialize" && k.early_notification {
        send(out, &json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed"}));
    }
    send(out, &json!({"jsonrpc":"2.0","id":id,"result":stamp(method, &params, result)}));
}

/// A 2026-07-28 request's result says it is complete, and a list how long it may be kept.
fn stamp(method: &str, params: &Value, mut result: Value) -> Value {
    if params.pointer("/_meta/io.modelcontextprotocol~1protocolVersion").is_none() {
        return result;
    }
    if let Some(o) = result.as_object_mut() {
        o.entry("resultType").or_insert(json!("complete"));
        if method == "tools/list" {
            o.insert("ttlMs".into(), json!(0));
            o.insert("cacheScope".into(), json!("public"));
        }
    }
    result
}

/// `-32022` to an `initialize` on a connection that speaks 2026-07-28.
fn refuse_initialize(id: Value, params: &Value, out: &mut impl Write) {
    let data = json!({"supported": ["2026-07-28"], "requested": params["protocolVersion"]});
    let error = json!({"code": -32022, "message": "Unsupported protocol version", "data": data});
    send(out, &json!({"jsonrpc":"2.0","id":id,"error":error}));
}

fn list_tools(k: &Knobs, params: &Value) -> Value {
    let start: usize = params
        .get("cursor")
        .and_then(Value::as_str)
        .and_then(|c| c.strip_prefix(k.cursor_prefix.as_str()))
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let mut all: Vec<Value> = (0..k.tools)
        .map(|i| {
            let (name, description) = match (i, k.filler_kib) {
                (0, _) => ("echo".to_owned(), "Echoes its text back.".to_owned()),
                (_, 0) => (format!("filler_{}", i + 1), "Echoes its text back.".to_owned()),
                (_, kib) => (format!("filler_{}", i + 1), "f".repeat(kib * 1024)),
            };
            json!({"name": name, "description": description,
                   "inputSchema": {"type":"object","properties":{"text":{"type":"string"}}}})
        })
        .collect();
    if k.malformed_tools {
        all.extend(malformed_tools());
    }
    if k.risky_tools {
        all.extend(risky::tools());
    }
    if k.wrong_structure {
        all.push(json!({"name": "count", "description": "Counts, in structuredContent that breaks its outputSchema.",
            "inputSchema": {"type": "object", "properties": {}},
            "outputSchema": {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}}));
    }
    if k.ask_many > 0 {
        all.push(json!({"name": "ask_many",
            "description": format!("Asks {} questions at once (elicitation/create).", k.ask_many),
            "inputSchema": {"type": "object", "properties": {}}}));
    }
    if let Some(kind) = &k.app {
        all.extend(apps::tools(kind));
    }
    let page = k.page_size.unwrap_or(all.len().max(1));
    let end = (start + page).min(all.len());
    let mut result = json!({ "tools": all[start.min(end)..end] });
    if end < all.len() {
        result["nextCursor"] = json!(format!("{}{end}", k.cursor_prefix));
    } else if k.cursor_loop && page < all.len() {
        result["nextCursor"] = json!(format!("{}{page}", k.cursor_prefix));
    }
    result
}

/// Tools whose definitions break the schema, one way each.
fn malformed_tools() -> [Value; 4] {
    let text = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    [
        json!({"name": "bad_icons", "description": "Its icons are an object, not an array.",
               "icons": {"src": "data:image/png;base64,iVBORw0KGgo="}, "inputSchema": text}),
        json!({"name": "object_title", "title": {"text": "A title in an object"},
               "description": "Its title is an object, not a string.", "inputSchema": text}),
        json!({"name": "numeric_required", "description": "Its inputSchema says required: 5.",
               "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": 5}}),
        json!({"name": "content_not_array", "description": "Its result's content is an object, not an array.",
               "inputSchema": text}),
    ]
}

/// One notification frame carrying `mib` MiB of 0xFF bytes inside a JSON string, written in
/// pieces so the fixture never holds it whole.
fn invalid_utf8(mib: u64, out: &mut impl Write) {
    let chunk = vec![0xFF_u8; 1024 * 1024];
    let mut write = || -> io::Result<()> {
        out.write_all(
            br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":""#,
        )?;
        for _ in 0..mib {
            out.write_all(&chunk)?;
        }
        out.write_all(b"\"}}\n")?;
        out.flush()
    };
    if write().is_err() {
        std::process::exit(0);
    }
}

/// Sends `n` elicitation/create requests at once for the `ask_many` call `id`.
fn ask_many(n: u64, state: &mut State, id: Value, out: &mut impl Write) {
    state.asking = Some(Asking { call: id, asked: n, unanswered: n, answers: Default::default() });
    let mut burst = io::BufWriter::new(&mut *out);
    for i in 1..=n {
        let params = json!({"message": format!("Question {i} of {n}: who is asking?"),
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}});
        let ask = json!({"jsonrpc": "2.0", "id": format!("ask-{i}"), "method": "elicitation/create", "params": params});
        let mut line = serde_json::to_vec(&ask).expect("serializes");
        line.push(b'\n');
        if burst.write_all(&line).is_err() {
            std::process::exit(0);
        }
    }
    if burst.flush().is_err() {
        std::process::exit(0);
    }
}

/// A reply from the client: one answer to an `ask_many` question. The call is answered with a
/// count of the answers once the last one is in.
fn heard_answer(state: &mut State, msg: &Value, out: &mut impl Write) {
    let ours = msg.get("id").and_then(Value::as_str).is_some_and(|id| id.starts_with("ask-"));
    let Some(asking) = state.asking.as_mut().filter(|_| ours) else { return };
    let answer = match (msg.pointer("/result/action").and_then(Value::as_str), msg.get("error")) {
        (Some("accept"), _) => "accepted".to_owned(),
        (Some("decline"), _) => "declined".to_owned(),
        (Some("cancel"), _) => "cancelled".to_owned(),
        (Some(other), _) => format!("answered {other:?}"),
        (None, Some(error)) => format!("refused: {}", error["message"].as_str().unwrap_or("(no message)")),
        (None, None) => "answered without an action".to_owned(),
    };
    *asking.answers.entry(answer).or_default() += 1;
    asking.unanswered = asking.unanswered.saturating_sub(1);
    if asking.unanswered > 0 {
        return;
    }
    let asking = state.asking.take().expect("checked above");
    let counts: Vec<String> = asking.answers.iter().map(|(answer, n)| format!("{n} {answer}")).collect();
    let text = format!("asked {} questions: {}", asking.asked, counts.join("; "));
    let result = json!({"content": [{"type": "text", "text": text}]});
    send(out, &json!({"jsonrpc": "2.0", "id": asking.call, "result": result}));
}

fn call_tool(k: &Knobs, state: &mut State, id: Value, params: &Value, out: &mut impl Write) {
    state.calls += 1;
    if k.crash_on_call {
        eprintln!("sonde-fixture: crashing during tools/call as asked");
        std::process::exit(1);
    }
    if k.crash_after_calls == Some(state.calls) {
        eprintln!("sonde-fixture: crashing during tools/call {} as asked", state.calls);
        std::process::exit(1);
    }
    if k.stall_on_call == Some(state.calls) {
        std::thread::sleep(Duration::from_millis(k.stall_ms));
    }
    if k.error_every.is_some_and(|n| state.calls.is_multiple_of(n)) {
        let error = json!({"code": -32603, "message": format!("call {} fails on purpose", state.calls)});
        return send(out, &json!({"jsonrpc":"2.0","id":id,"error":error}));
    }
    if k.progress_steps > 0 {
        let Some(token) = params.pointer("/_meta/progressToken") else { return };
        for step in 1..=k.progress_steps {
            std::thread::sleep(Duration::from_millis(k.step_ms));
            let progress = json!({"progressToken": token, "progress": step, "total": k.progress_steps});
            send(out, &json!({"jsonrpc":"2.0","method":"notifications/progress","params":progress}));
        }
    }
    std::thread::sleep(Duration::from_millis(k.reply_delay_ms));
    if k.flood > 0 {
        // One buffered burst: the point is to measure the reader, not this writer.
        let mut burst = io::BufWriter::with_capacity(1 << 20, &mut *out);
        for i in 0..k.flood {
            let _ = writeln!(
                burst,
                r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"flood {i}"}}}}"#
            );
        }
        if burst.flush().is_err() {
            std::process::exit(0);
        }
    }
    let id_json = serde_json::to_string(&id).expect("serializes");
    if let Some(mib) = k.big_mib {
        // Written in pieces so the fixture itself never holds the whole line.
        let head = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id_json},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"");
        let chunk = vec![b'x'; 1024 * 1024];
        let mut write = || -> io::Result<()> {
            out.write_all(head.as_bytes())?;
            for _ in 0..mib {
                out.write_all(&chunk)?;
            }
            out.write_all(b"\"}]}}\n")?;
            out.flush()
        };
        if write().is_err() {
            std::process::exit(0);
        }
        return;
    }
    if k.bad_utf8 {
        let mut line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id_json},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"bad ").into_bytes();
        line.extend_from_slice(b"\xff\xfe bytes\"}]}}\n");
        if out.write_all(&line).and_then(|_| out.flush()).is_err() {
            std::process::exit(0);
        }
        return;
    }
    let name = params.get("name").and_then(Value::as_str).unwrap_or_default();
    let result = match name {
        "ask_many" if k.ask_many > 0 => return ask_many(k.ask_many, state, id, out),
        "content_not_array" if k.malformed_tools => {
            json!({"content": {"type": "text", "text": "content in an object, not an array"}})
        }
        "bad_icons" | "object_title" | "numeric_required" if k.malformed_tools => {
            json!({"content": [{"type": "text", "text": format!("{name} was called")}]})
        }
        "echo" if k.no_content => json!({"isError": false}),
        // Not listed: a tool whose every call fails as a tool (`isError`), not as a request.
        "fails" => json!({"isError": true, "content": [{"type": "text", "text": "fails always fails"}]}),
        "count" if k.wrong_structure => {
            json!({"content": [{"type": "text", "text": "three"}], "structuredContent": {"count": "three"}})
        }
        "echo" => {
            let text = params.pointer("/arguments/text").and_then(Value::as_str).unwrap_or_default();
            json!({"content": [{"type": "text", "text": format!("{}{text}", k.echo_prefix)}]})
        }
        "needs_input" if k.dual_era => match needs_input(params) {
            Ok(result) => result,
            Err(error) => {
                send(out, &json!({"jsonrpc":"2.0","id":id,"error":error}));
                return;
            }
        },
        other => {
            let error = json!({"code": -32602, "message": format!("Unknown tool: {other}")});
            send(out, &json!({"jsonrpc":"2.0","id":id,"error":error}));
            return;
        }
    };
    send(out, &json!({"jsonrpc":"2.0","id":id,"result":stamp("tools/call", params, result)}));
}

/// A 2026-07-28 subscription: acknowledgement first, one change, then the end the test asked for.
fn listen(how: &str, id: Value, params: &Value, out: &mut impl Write) {
    if how == "silent" {
        return;
    }
    let meta = json!({ "io.modelcontextprotocol/subscriptionId": id });
    let granted = params["notifications"].clone();
    let ack = json!({"_meta": meta, "notifications": granted});
    send(out, &json!({"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":ack}));
    send(out, &json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta": meta}}));
    if how == "cancel" {
        let params = json!({"requestId": id, "reason": "fixture ends the subscription", "_meta": meta});
        send(out, &json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":params}));
    } else {
        send(out, &json!({"jsonrpc":"2.0","id":id,"result":{"resultType":"complete","_meta": meta}}));
    }
}

/// A 2026-07-28 tool that needs two `input_required` rounds: it asks who (round 1), then for a
/// confirmation (round 2), checking each time that `requestState` came back unchanged.
fn needs_input(params: &Value) -> Result<Value, Value> {
    let caps = params.pointer("/_meta/io.modelcontextprotocol~1clientCapabilities");
    if caps.and_then(|c| c.get("elicitation")).is_none() {
        return Err(json!({"code": -32021, "message": "Missing required client capability",
                          "data": {"requiredCapabilities": {"elicitation": {}}}}));
    }
    let ask = |key: &str, message: &str, state: &str| {
        let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
        json!({"resultType": "input_required",
               "inputRequests": {key: {"method": "elicitation/create",
                                       "params": {"mode": "form", "message": message, "requestedSchema": schema}}},
               "requestState": state})
    };
    let state = params.get("requestState").and_then(Value::as_str);
    let answer =
        |key: &str| params.pointer(&format!("/inputResponses/{key}/content/name")).and_then(Value::as_str);
    match (state, answer("who"), answer("confirm")) {
        (None, None, None) => Ok(ask("who", "Who is asking?", "state:1")),
        (Some("state:1"), Some(_), None) => Ok(ask("confirm", "Really?", "state:2")),
        (Some("state:2"), _, Some(name)) => Ok(
            json!({"resultType": "complete", "content": [{"type": "text", "text": format!("hello {name}")}]}),
        ),
        _ => Err(json!({"code": -32602, "message": format!("unexpected round: requestState {state:?}")})),
    }
}
