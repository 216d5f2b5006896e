//! The app menu. Each item is forwarded to the UI as a `menu` event with the item's id; the UI
//! owns what it does (open a dialog, focus the filter), except Copy, which the webview does, and
//! Quit, which exits the app through the path that stops every server first. (Tauri's predefined
//! Quit does nothing on Linux/GTK 3, so Quit is an item of our own.)

use tauri::menu::{AboutMetadataBuilder, MenuBuilder, MenuItemBuilder, PredefinedMenuItem, SubmenuBuilder};
use tauri::{App, Emitter, Runtime};

/// The server panels' menu items: `panel-<tab>` ids, Ctrl+1… in this order (the UI's tab order).
const PANELS: [(&str, &str); 6] = [
    ("panel-tools", "Tools"),
    ("panel-resources", "Resources"),
    ("panel-prompts", "Prompts"),
    ("panel-server", "Server"),
    ("panel-notifications", "Notifications"),
    ("panel-tasks", "Tasks"),
];

pub fn install<R: Runtime>(app: &mut App<R>) -> tauri::Result<()> {
    let item = |id: &str, text: &str, accel: Option<&str>| {
        let b = MenuItemBuilder::with_id(id, text);
        match accel {
            Some(a) => b.accelerator(a).build(app),
            None => b.build(app),
        }
    };
    let file = SubmenuBuilder::new(app, "File")
        .item(&item("new-connection", "New Connection…", Some("CmdOrCtrl+N"))?)
        .item(&item("import", "Import mcpServers Config…", None)?)
        .item(&item("open-session", "Open Session…", Some("CmdOrCtrl+O"))?)
        .item(&item("close-connection", "Close Connection", Some("CmdOrCtrl+W"))?)
        .separator()
        .item(&item("quit", "Quit", Some("CmdOrCtrl+Q"))?)
        .build()?;
    let edit = SubmenuBuilder::new(app, "Edit")
        .item(&PredefinedMenuItem::copy(app, Some("Copy"))?)
        .item(&PredefinedMenuItem::select_all(app, Some("Select All"))?)
        .item(&item("find", "Find in Log", Some("CmdOrCtrl+F"))?)
        .build()?;
    // The panels of the selected server, in the order of their tabs; the UI maps each id to a tab.
    let mut view = SubmenuBuilder::new(app, "View");
    for (n, (id, text)) in PANELS.iter().enumerate() {
        view = view.item(&item(id, text, Some(&format!("CmdOrCtrl+{}", n + 1)))?);
    }
    let view = view
        .separator()
        .item(&item("toggle-stderr", "Show stderr", None)?)
        .item(&item("toggle-lifecycle", "Show Lifecycle Events", None)?)
        .item(&item("toggle-follow", "Follow Log", None)?)
        .build()?;
    let about = AboutMetadataBuilder::new()
        .name(Some("Sonde"))
        .version(Some(env!("CARGO_PKG_VERSION")))
        .comments(Some("An inspector for MCP servers: every byte on the wire."))
        .build();
    let help = SubmenuBuilder::new(app, "Help")
        .item(&PredefinedMenuItem::about(app, Some("About Sonde"), Some(about))?)
        .build()?;
    let menu = MenuBuilder::new(app).items(&[&file, &edit, &view, &help]).build()?;
    app.set_menu(menu)?;
    app.on_menu_event(|handle, event| {
        if event.id().as_ref() == "quit" {
            // Raises ExitRequested, where the servers are stopped before the process ends.
            handle.exit(0);
        } else {
            let _ = handle.emit("menu", event.id().as_ref());
        }
    });
    Ok(())
}
