// Names the commit Sonde is built from (`SONDE_COMMIT`), so `sonde --version` and Help → About
// say which code a report came from: the short hash from git, or the `SONDE_COMMIT` given to
// the build (a source tarball has no `.git`), else "unknown". Included by the build scripts of
// the two binaries (not the core's: a new commit then rebuilds only them).

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_owned())
}

fn emit_commit() {
    println!("cargo:rerun-if-env-changed=SONDE_COMMIT");
    // A new commit moves HEAD or the branch it names; either reruns this script.
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
            let common = git(&["rev-parse", "--path-format=absolute", "--git-common-dir"]).unwrap_or(dir);
            println!("cargo:rerun-if-changed={common}/{branch}");
            println!("cargo:rerun-if-changed={common}/packed-refs");
        }
    }
    let commit = std::env::var("SONDE_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(|| git(&["rev-parse", "--short=9", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=SONDE_COMMIT={commit}");
}
