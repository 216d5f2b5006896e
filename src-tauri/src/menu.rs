//! The app menu. Each item is forwarded to the UI as a `menu` event with the item's id; the UI
//! owns what it does (open a dialog, focus the filter, undo in the focused field), except Cut,
//! Copy, Paste and Select All, which the webview does, and Quit, which exits the app through the
//! path that stops every server first. (Tauri's predefined Quit does nothing on Linux/GTK 3, and
//! its Undo and Redo are unsupported there, so those are items of our own.) The View menu's
//! toggles carry check marks the UI sets (its `menu-checked` event) from what the window shows.

use tauri::menu::{
    AboutMetadataBuilder, CheckMenuItemBuilder, MenuBuilder, MenuItemBuilder, PredefinedMenuItem,
    SubmenuBuilder,
};
use tauri::{App, AppHandle, Emitter, Listener, Runtime};

/// The server panels, the one list of them: each one's id and label, in the order of the UI's
/// tabs. The View menu has an item `panel-<id>` for each, Ctrl+1… in this order; the UI reads
/// the list from the bindings (`PANELS`) and maps each id to its component.
pub(crate) const PANELS: [(&str, &str); 8] = [
    ("tools", "Tools"),
    ("resources", "Resources"),
    ("prompts", "Prompts"),
    ("skills", "Skills"),
    ("server", "Server"),
    ("notifications", "Notifications"),
    ("tasks", "Tasks"),
    ("diagnostics", "Diagnostics"),
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
        .item(&item("settings", "Settings…", Some("CmdOrCtrl+Comma"))?)
        .separator()
        .item(&item("quit", "Quit", Some("CmdOrCtrl+Q"))?)
        .build()?;
    let check = |id: &str, text: &str| CheckMenuItemBuilder::with_id(id, text).build(app);
    let edit = SubmenuBuilder::new(app, "Edit")
        .item(&item("undo", "Undo", Some("CmdOrCtrl+Z"))?)
        .item(&item("redo", "Redo", Some("CmdOrCtrl+Shift+Z"))?)
        .separator()
        .item(&PredefinedMenuItem::cut(app, Some("Cut"))?)
        .item(&PredefinedMenuItem::copy(app, Some("Copy"))?)
        .item(&PredefinedMenuItem::paste(app, Some("Paste"))?)
        .item(&PredefinedMenuItem::select_all(app, Some("Select All"))?)
        .separator()
        .item(&item("find", "Find in Log", Some("CmdOrCtrl+F"))?)
        .build()?;
    // The panels of the selected server, in the order of their tabs; the UI maps each id to a tab.
    let mut view = SubmenuBuilder::new(app, "View");
    for (n, (id, text)) in PANELS.iter().enumerate() {
        view = view.item(&item(&format!("panel-{id}"), text, Some(&format!("CmdOrCtrl+{}", n + 1)))?);
    }
    let view = view
        .separator()
        .item(&check("toggle-stderr", "Show stderr")?)
        .item(&check("toggle-lifecycle", "Show Lifecycle Events")?)
        .item(&check("toggle-follow", "Follow Log")?)
        .build()?;
    let about = AboutMetadataBuilder::new()
        .name(Some("Sonde"))
        .version(Some(crate::VERSION))
        .comments(Some("An inspector for MCP servers: every byte on the wire."))
        // Without one, GTK's About dialog shows a broken-image icon.
        .icon(app.default_window_icon().cloned())
        .build();
    let help = SubmenuBuilder::new(app, "Help")
        .item(&PredefinedMenuItem::about(app, Some("About Sonde"), Some(about))?)
        .build()?;
    let menu = MenuBuilder::new(app).items(&[&file, &edit, &view, &help]).build()?;
    app.set_menu(menu)?;
    let handle = app.handle().clone();
    app.listen_any("menu-checked", move |event| set_checked(&handle, event.payload()));
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

/// Sets the check mark of a View menu toggle to what the window shows: the UI's
/// `menu-checked` event says which (`{"id": …, "checked": …}`).
fn set_checked<R: Runtime>(app: &AppHandle<R>, payload: &str) {
    #[derive(serde::Deserialize)]
    struct Checked {
        id: String,
        checked: bool,
    }
    let Ok(Checked { id, checked }) = serde_json::from_str(payload) else { return };
    let Some(menu) = app.menu() else { return };
    let found = menu.items().unwrap_or_default().into_iter().find_map(|top| top.as_submenu()?.get(&id));
    if let Some(toggle) = found.as_ref().and_then(|item| item.as_check_menuitem()) {
        let _ = toggle.set_checked(checked);
    }
}
