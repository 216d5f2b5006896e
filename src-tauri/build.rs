include!("../build-support/commit.rs");

fn main() {
    emit_commit();
    // tauri.conf.json lives at the workspace root, one level up from this crate.
    println!("cargo:rerun-if-changed=../tauri.conf.json");
    tauri_build::try_build(tauri_build::Attributes::new().config_path("../tauri.conf.json"))
        .expect("failed to run tauri-build");
}
