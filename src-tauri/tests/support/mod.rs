//! What the IPC tests share: the app on Tauri's mock runtime, invoking its commands as the
//! window does, the binaries they start, and saving and connecting a server.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use sonde_core::{Hub, ServerStore, WireLog};
use sonde_desktop::state::AppState;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, mock_builder, mock_context, noop_assets, MockRuntime, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::{WebviewWindow, WebviewWindowBuilder};

pub fn sonde_cli() -> PathBuf {
    built("sonde-cli", "sonde")
}

pub fn fixture() -> PathBuf {
    built("sonde-fixture", "sonde-fixture")
}

/// Builds `package` of the workspace and returns its `binary`.
fn built(package: &str, binary: &str) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let status = std::process::Command::new(env!("CARGO"))
        .args(["build", "--quiet", "-p", package])
        .current_dir(&root)
        .status()
        .unwrap();
    assert!(status.success());
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target"));
    target.join("debug").join(binary)
}

pub fn app(name: &str) -> (tauri::App<MockRuntime>, WebviewWindow<MockRuntime>) {
    let dir = std::env::temp_dir().join(format!("sonde-ipc-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    app_in(&dir, &dir.join("sessions"))
}

/// An app whose own session is written in `sessions`, with its saved servers in `dir`.
pub fn app_in(dir: &Path, sessions: &Path) -> (tauri::App<MockRuntime>, WebviewWindow<MockRuntime>) {
    let hub = Hub::new(WireLog::create_in(sessions).unwrap());
    let demo = format!("{} demo-server", sonde_cli().display());
    let state = AppState::with_demo_command(hub, ServerStore::at(dir.join("servers.json")), demo).unwrap();
    let app = sonde_desktop::configure(mock_builder(), state).build(mock_context(noop_assets())).unwrap();
    let window = WebviewWindowBuilder::new(&app, "main", Default::default()).build().unwrap();
    (app, window)
}

pub fn invoke(window: &WebviewWindow<MockRuntime>, cmd: &str, args: Value) -> Result<Value, Value> {
    let request = InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().unwrap(),
        body: InvokeBody::Json(args),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    };
    get_ipc_response(window, request).map(|b| b.deserialize::<Value>().unwrap())
}

/// Saves a fixture server with `knobs` and connects it; returns the connection's id.
pub fn connect_fixture(w: &WebviewWindow<MockRuntime>, name: &str, knobs: &str) -> Value {
    let command = format!("{} {knobs}", fixture().display());
    let server = json!({"id": "", "name": name, "command": command, "env": [], "era": "legacy"});
    let all = invoke(w, "servers_save", json!({"server": server})).unwrap();
    let saved = all.as_array().unwrap().iter().find(|s| s["name"] == name).unwrap()["id"].clone();
    approve(w, &saved);
    invoke(w, "connect", json!({"serverId": saved})).unwrap()
}

/// Approves the saved server's launch as the person does in the native dialog (which the mock
/// runtime cannot show; the real window's checks answer it).
pub fn approve(w: &WebviewWindow<MockRuntime>, id: &Value) {
    let state = tauri::Manager::state::<AppState>(w);
    let server = state.servers.get(id.as_str().unwrap()).unwrap();
    state.launches.approve(&server).unwrap();
}

/// A data directory for the `sonde` CLI (`XDG_DATA_HOME`) and an app whose own session is
/// written where the CLI writes its sessions, as on a person's machine.
pub fn app_beside_the_cli(name: &str) -> (PathBuf, tauri::App<MockRuntime>, WebviewWindow<MockRuntime>) {
    let dir = std::env::temp_dir().join(format!("sonde-ipc-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let data = dir.join("data");
    let (app, w) = app_in(&dir, &data.join("sonde/sessions"));
    (data, app, w)
}

pub fn cli_with_demo(data: &Path, args: &[&str]) -> std::process::Command {
    let cli = sonde_cli();
    let mut command = std::process::Command::new(&cli);
    command.env("XDG_DATA_HOME", data).args(args).arg("--").arg(&cli).arg("demo-server");
    command
}
