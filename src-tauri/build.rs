include!("../build-support/commit.rs");

/// Writes `commands.rs` in `OUT_DIR`: every function of `src/*.rs` marked `#[tauri::command]`,
/// as the `collect_commands!` list `lib.rs` includes. A command is registered, and reaches the
/// bindings, by being written: the list is never edited by hand, so none is forgotten.
fn emit_command_list() {
    println!("cargo:rerun-if-changed=src");
    let mut files: Vec<_> = std::fs::read_dir("src")
        .expect("src-tauri/src is readable")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    let mut paths = Vec::new();
    for file in files {
        let module = file.file_stem().and_then(|s| s.to_str()).expect("a UTF-8 file name").to_owned();
        let text = std::fs::read_to_string(&file).expect("a readable source file");
        // The function after each attribute line: the first line that declares one.
        let mut lines = text.lines();
        while let Some(line) = lines.next() {
            if !line.trim_start().starts_with("#[tauri::command") {
                continue;
            }
            let declared = lines
                .by_ref()
                .find_map(|l| l.split_once("fn "))
                .expect("a command attribute precedes its fn");
            let name: String = declared.1.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            paths.push(format!("{module}::{name}"));
        }
    }
    let list = format!("tauri_specta::collect_commands![\n    {},\n]\n", paths.join(",\n    "));
    let out =
        std::path::Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("commands.rs");
    std::fs::write(out, list).expect("OUT_DIR is writable");
}

fn main() {
    emit_commit();
    emit_command_list();
    // tauri.conf.json lives at the workspace root, one level up from this crate.
    println!("cargo:rerun-if-changed=../tauri.conf.json");
    tauri_build::try_build(tauri_build::Attributes::new().config_path("../tauri.conf.json"))
        .expect("failed to run tauri-build");
}
