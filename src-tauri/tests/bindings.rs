//! The committed TypeScript bindings match the Rust commands and types.

#[test]
fn the_committed_bindings_match_the_rust_commands_and_types() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../ui/src/ipc/bindings.ts");
    let generated = sonde_desktop::bindings::typescript().unwrap();
    if std::env::var_os("SONDE_UPDATE_BINDINGS").is_some() {
        std::fs::write(path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == generated,
        "ui/src/ipc/bindings.ts is stale: run SONDE_UPDATE_BINDINGS=1 cargo test -p sonde-desktop --test bindings"
    );
}
