include!("../../build-support/commit.rs");

fn main() {
    emit_commit();
}
