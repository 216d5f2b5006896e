//! A Tauri window with an empty page and nothing else: no commands, no plugins, no state. `make
//! bench` starts it under Xvfb beside the Sonde window and weighs both (`window_bench.py`), so
//! the Sonde window's footprint is read against what any Tauri window on WebKitGTK costs.
//!
//! It prints `loaded` on stdout once the page has finished loading, so the bench measures a
//! window that is up rather than sleeping for one.

use std::io::Write;

use tauri::webview::PageLoadEvent;

fn main() {
    tauri::Builder::default()
        .on_page_load(|_, payload| {
            if payload.event() == PageLoadEvent::Finished {
                let mut out = std::io::stdout();
                let _ = writeln!(out, "loaded");
                let _ = out.flush();
            }
        })
        .run(tauri::generate_context!())
        .expect("the empty window runs");
}
