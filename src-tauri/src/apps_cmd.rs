//! MCP Apps in the window: the commands the app pane's bridge calls, and the `sonde-app`
//! scheme each app's page is served from, an origin that is not the window's.
//!
//! Owns: translating between the pane and the core's open apps (`Hub::app_*`), and serving an
//! open app's HTML with the Content Security Policy the core built from what it declared.
//! Refuses: the app protocol itself (the core's `apps::bridge`, kept per app by the hub), and
//! deciding what an app may do.

use serde_json::Value;
use sonde_core::{AppOpened, AppTurn, HostContext};
use tauri::http::{header, Request, Response, StatusCode};
use tauri::{Manager, Runtime, State, UriSchemeContext};

use crate::error::Result;
use crate::state::AppState;

/// The scheme apps are served from: `sonde-app://localhost/<app>` on Linux.
pub const SCHEME: &str = "sonde-app";

/// Opens the app of `tool` (its definition) on connection `id`: the core reads and checks its
/// resource (again when `reload`), and keeps the call's `input` (and its `result`, when the call
/// has ended) to send it.
#[tauri::command]
#[specta::specta]
pub async fn app_open(
    state: State<'_, AppState>,
    id: u64,
    tool: Value,
    input: Value,
    result: Option<Value>,
    context: HostContext,
    reload: bool,
) -> Result<AppOpened> {
    Ok(state.hub.app_open(id, &tool, input, result, context, reload).await?)
}

/// One message the app's frame posted, as its text: what to post back, and what to decide.
#[tauri::command]
#[specta::specta]
pub async fn app_message(state: State<'_, AppState>, app: u64, text: String) -> Result<AppTurn> {
    Ok(state.hub.app_message(app, &text).await?)
}

/// The window's decision on a question the app asked.
#[tauri::command]
#[specta::specta]
pub fn app_answer(state: State<'_, AppState>, app: u64, ask: u64, granted: Value) -> Result<AppTurn> {
    Ok(state.hub.app_answer(app, ask, granted)?)
}

/// The window's context changed for the app (theme, display mode, size).
#[tauri::command]
#[specta::specta]
pub fn app_context(state: State<'_, AppState>, app: u64, changed: Value) -> Result<AppTurn> {
    Ok(state.hub.app_context(app, changed)?)
}

/// What the frame reported outside the protocol: a console error, a policy violation, a
/// flood's dropped messages.
#[tauri::command]
#[specta::specta]
pub fn app_note(state: State<'_, AppState>, app: u64, what: String) -> Result<()> {
    Ok(state.hub.app_note(app, &what)?)
}

/// The app's call ended: its `result`, or `failed` with why (an error, a cancel), for the app.
#[tauri::command]
#[specta::specta]
pub fn app_ended(
    state: State<'_, AppState>,
    app: u64,
    result: Option<Value>,
    failed: Option<String>,
) -> Result<AppTurn> {
    let ended = match (result, failed) {
        (Some(result), _) => Ok(result),
        (None, why) => Err(why.unwrap_or_else(|| "the call gave no result".to_owned())),
    };
    Ok(state.hub.app_ended(app, ended)?)
}

/// Messages the pane dropped in a flood: how many, and the dropped requests as their text, which
/// the core answers with an error.
#[tauri::command]
#[specta::specta]
pub fn app_dropped(
    state: State<'_, AppState>,
    app: u64,
    count: u64,
    requests: Vec<String>,
) -> Result<AppTurn> {
    Ok(state.hub.app_dropped(app, count, requests)?)
}

/// Forgets an app whose frame is gone (or did not answer its teardown in time), and why.
#[tauri::command]
#[specta::specta]
pub fn app_forget(state: State<'_, AppState>, app: u64, why: String) {
    state.hub.app_forget(app, &why);
}

/// Closes the app: its teardown to post while its frame is still there.
#[tauri::command]
#[specta::specta]
pub fn app_close(state: State<'_, AppState>, app: u64, reason: String) -> Result<AppTurn> {
    Ok(state.hub.app_close(app, &reason)?)
}

/// The script every app page starts with: it reports the frame's console errors, uncaught
/// errors and policy violations to the pane, which records them (a violation once, though the
/// header and the page's copy of the policy each report it). It is Sonde's, runs before
/// the app's, and sends only `sonde/` reports, which the pane never passes to the bridge.
///
/// WebKit withholds an uncaught error's message, file and line from a frame of no origin (a
/// sandboxed one: "Script error."), so the app's callbacks (event listeners, timers, animation
/// frames, microtasks) run inside a catch that reports the error with its stack, then throws
/// it on; the withheld report that follows is dropped. A rejection's reason keeps its stack.
/// It is one line, so the app's own line numbers stay what its author wrote.
const REPORTER: &str = concat!(
    r#"<script>(()=>{const p=window.parent,s=(kind,text)=>{try{p.postMessage({sonde:kind,text:String(text).slice(0,2000)},"*")}catch(e){}};"#,
    r#"const said=x=>{try{return x&&x.stack?String(x)+"\n"+x.stack:String(x)}catch(_){return "an error that cannot be read"}};"#,
    r#"const e=console.error.bind(console);console.error=(...a)=>{e(...a);try{s("console",a.map(x=>{try{return x&&x.stack?x.stack:typeof x==="object"?JSON.stringify(x):String(x)}catch(_){return String(x)}}).join(" "))}catch(_){}};"#,
    r#"let caught=0;const w=new WeakMap(),T=EventTarget.prototype,add=T.addEventListener,rem=T.removeEventListener,later=setTimeout;"#,
    r#"const wrap=f=>{if(typeof f!=="function")return f;let g=w.get(f);if(!g){g=function(...a){try{return f.apply(this,a)}catch(x){caught++;s("error","uncaught "+said(x));later(()=>caught--);throw x}};w.set(f,g)}return g};"#,
    r#"T.addEventListener=function(t,f,o){return add.call(this,t,wrap(f),o)};T.removeEventListener=function(t,f,o){return rem.call(this,t,w.get(f)||f,o)};"#,
    r#"for(const n of["setTimeout","setInterval","requestAnimationFrame","queueMicrotask"]){const o=window[n];if(o)window[n]=function(f,...a){return o.call(window,wrap(f),...a)}}"#,
    r#"add.call(window,"error",v=>{if(caught)return;if(v.error)return s("error","uncaught "+said(v.error));"#,
    r#"s("error",v.filename?v.message+" ("+v.filename+":"+v.lineno+")":v.message+" (WebKit withholds where: an error thrown as a script of this sandboxed frame first runs; errors in its event listeners, timers and promises come with their line)")});"#,
    r#"add.call(window,"unhandledrejection",v=>s("error","unhandled rejection: "+said(v.reason)));"#,
    r#"const seen=new Set();add.call(window,"securitypolicyviolation",v=>{const t=v.effectiveDirective+" refused "+(v.blockedURI||"inline");if(!seen.has(t)){seen.add(t);s("refused",t)}});})()</script>"#,
);

/// `html` with `head` as the first thing in its `<head>` (or after its doctype, or first): never
/// before the doctype, which would put the page in quirks mode.
fn with_head(html: &str, head: &str) -> String {
    let lower = html.to_ascii_lowercase();
    // `<head>` or `<head …>`, never `<header>`.
    let head_at = lower
        .match_indices("<head")
        .map(|(at, _)| at)
        .find(|&at| lower[at + 5..].starts_with(|c: char| c == '>' || c.is_ascii_whitespace()));
    let after = |at: Option<usize>| at.and_then(|at| lower[at..].find('>').map(|end| at + end + 1));
    let at = after(head_at).or_else(|| after(lower.find("<!doctype"))).unwrap_or(0);
    format!("{}{head}{}", &html[..at], &html[at..])
}

/// Serves `sonde-app://localhost/<app>`: the open app's HTML with its policy as a header and as
/// the page's first element (WebKit applies either), Sonde's reporter before the app's own
/// scripts. Anything else is 404.
pub fn serve<R: Runtime>(ctx: UriSchemeContext<'_, R>, request: Request<Vec<u8>>) -> Response<Vec<u8>> {
    let state = ctx.app_handle().state::<AppState>();
    let page =
        request.uri().path().trim_matches('/').parse::<u64>().ok().and_then(|app| state.hub.app_page(app));
    let Some((html, policy)) = page else {
        return Response::builder()
            .status(StatusCode::NOT_FOUND)
            .body(b"no such app".to_vec())
            .expect("a response");
    };
    let head = format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">{REPORTER}");
    let body = with_head(&html, &head);
    Response::builder()
        .header(header::CONTENT_TYPE, "text/html; charset=utf-8")
        .header("Content-Security-Policy", policy)
        .header(header::CACHE_CONTROL, "no-store")
        .body(body.into_bytes())
        .expect("a response")
}

#[cfg(test)]
mod tests {
    use super::{with_head, REPORTER};

    #[test]
    fn the_reporter_is_one_line_so_an_app_keeps_its_line_numbers() {
        assert!(!REPORTER.contains('\n') && REPORTER.ends_with("</script>"), "{REPORTER}");
    }

    #[test]
    fn the_policy_goes_inside_the_head_never_before_the_doctype() {
        assert_eq!(
            with_head("<!DOCTYPE html><html><HEAD lang=x><title>", "P"),
            "<!DOCTYPE html><html><HEAD lang=x>P<title>"
        );
        assert_eq!(with_head("<!doctype html><p>x", "P"), "<!doctype html>P<p>x");
        assert_eq!(with_head("<p>x", "P"), "P<p>x");
        assert_eq!(
            with_head("<!doctype html><body><header>h</header>", "P"),
            "<!doctype html>P<body><header>h</header>"
        );
    }
}
