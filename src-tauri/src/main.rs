#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    // The embedded demo server is this same binary, started with `demo-server`.
    if std::env::args().nth(1).as_deref() == Some("demo-server") {
        std::process::exit(sonde_demo::serve());
    }
    sonde_desktop::run();
}
