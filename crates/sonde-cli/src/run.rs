//! The commands that talk to a server: connect, do one thing, shut down gracefully.

use std::sync::Arc;

use serde_json::{json, Value};
use sonde_core::config::EraCache;
use sonde_core::hub::{Hub, HubError};
use sonde_core::log::{sessions_dir, WireLog};

use crate::args::{Command, Global, Server, ToolsAction};
use crate::print;

/// Exit codes of the CLI contract.
pub const OK: i32 = 0;
pub const FAILED: i32 = 1;
pub const USAGE: i32 = 2;
pub const TOOL_ERROR: i32 = 3;
pub const INTERRUPTED: i32 = 130;

pub async fn run(global: &Global, command: Command) -> i32 {
    let log = match sessions_dir().and_then(|dir| WireLog::create_in(&dir)) {
        Ok(log) => log,
        Err(e) => {
            eprintln!("sonde: cannot create the session log: {e}");
            return FAILED;
        }
    };
    eprintln!("sonde: session log {}", log.path().display());
    let mut hub = Hub::new(log.clone());
    if !global.no_era_cache {
        match EraCache::default_location() {
            Ok(cache) => hub = hub.with_era_cache(cache),
            Err(e) => eprintln!("sonde: era verdicts are not cached: {e}"),
        }
    }
    let hub = Arc::new(hub);
    let work = {
        let hub = hub.clone();
        async move { execute(&hub, global, command).await }
    };
    let code = tokio::select! {
        code = work => code,
        _ = tokio::signal::ctrl_c() => {
            eprintln!("sonde: interrupted; stopping the server");
            INTERRUPTED
        }
    };
    hub.disconnect_all().await;
    let _ = log.flush();
    code
}

async fn execute(hub: &Hub, global: &Global, command: Command) -> i32 {
    match command {
        Command::Tools { action: ToolsAction::List { json, server } } => {
            with_server(hub, global, &server, |id| async move {
                let tools = hub.list_tools(id).await?;
                if json {
                    print::json_line(&json!({ "tools": tools }));
                } else {
                    print::tools(&tools);
                }
                Ok(OK)
            })
            .await
        }
        Command::Call { tool, args, json, server } => {
            let arguments = match args.as_deref().map(serde_json::from_str::<Value>) {
                None => None,
                Some(Ok(v @ Value::Object(_))) => Some(v),
                Some(Ok(other)) => {
                    eprintln!("sonde: --args must be a JSON object, not {other}");
                    return USAGE;
                }
                Some(Err(e)) => {
                    eprintln!("sonde: --args is not JSON: {e}");
                    return USAGE;
                }
            };
            with_server(hub, global, &server, |id| async move {
                let result = hub.call_tool(id, &tool, arguments).await?;
                if json {
                    print::json_line(&result);
                } else {
                    print::call_result(&result);
                }
                if result.get("isError") == Some(&Value::Bool(true)) {
                    eprintln!("sonde: {tool} returned a result with isError: true");
                    return Ok(TOOL_ERROR);
                }
                Ok(OK)
            })
            .await
        }
        Command::Info { json, server } => {
            with_server(hub, global, &server, |id| async move {
                let server = hub.server(id)?;
                if json {
                    print::json_line(&serde_json::to_value(&server).expect("serializes"));
                } else {
                    print::server(&server);
                }
                Ok(OK)
            })
            .await
        }
        Command::Log(_) | Command::DemoServer => unreachable!("handled without a runtime"),
    }
}

/// Connects, runs `body`, and reports a failure the way the contract says.
async fn with_server<'a, F, Fut>(hub: &'a Hub, global: &Global, server: &Server, body: F) -> i32
where
    F: FnOnce(u64) -> Fut,
    Fut: std::future::Future<Output = Result<i32, HubError>> + 'a,
{
    let config = global.server_config(server);
    let id = match hub.connect(&config).await {
        Ok(id) => id,
        Err(e) => {
            eprintln!("sonde: {e}");
            return FAILED;
        }
    };
    let code = match body(id).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("sonde: {e}");
            FAILED
        }
    };
    if let Ok(Some(exit)) = hub.disconnect(id).await {
        eprintln!("sonde: server {}", exit.describe());
    }
    code
}
