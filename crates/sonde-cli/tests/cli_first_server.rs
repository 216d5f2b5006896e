//! The first-server page (docs/first-server.md), run: its Python server on the pinned Python
//! SDK and its TypeScript server on the pinned TypeScript SDK (both installed by `make peers`),
//! as the page writes them, each through the page's commands: tools listed, `greet` called,
//! the check-up passed, the interface snapshotted and diffed, the page's suite passed; and the
//! suite failing (exit 5) once the server greets otherwise, so its test can fail.

mod support;

use std::path::{Path, PathBuf};

use support::*;

/// The page's first code block of `language`.
fn block(language: &str) -> String {
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/first-server.md"))
            .unwrap();
    let fence = format!("```{language}\n");
    let start = page.find(&fence).unwrap_or_else(|| panic!("no {language} block")) + fence.len();
    page[start..].split("```").next().unwrap().to_owned()
}

fn text(out: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// The page's commands against `server` (a program and its arguments), run in `dir`.
fn walk(name: &str, dir: &Path, server: &[&str]) {
    let home = data_home(name);
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    std::fs::write(dir.join("tests/suite.yaml"), block("yaml")).unwrap();
    let run = |args: &[&str]| {
        let mut all: Vec<&str> = args.to_vec();
        all.push("--");
        all.extend(server);
        let out = std::process::Command::new(SONDE)
            .args(&all)
            .current_dir(dir)
            .env("XDG_DATA_HOME", &home)
            .env("XDG_CONFIG_HOME", home.join("config"))
            .output()
            .unwrap();
        (out.status.code(), text(&out), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let (code, said, listed) = run(&["-q", "tools", "list"]);
    assert_eq!(code, Some(0), "{said}");
    assert!(listed.starts_with("greet"), "{listed}");
    let (code, said, printed) = run(&["-q", "call", "greet", "name=Ada"]);
    assert_eq!((code, printed.trim()), (Some(0), "Hello, Ada!"), "{said}");
    let (code, said, _) = run(&["-q", "doctor"]);
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("sonde doctor: 22 pass, 0 warn, 0 fail"), "every check in each era: {said}");
    let (code, said, _) = run(&["-q", "snapshot", "--out", "tests/interface.json"]);
    assert_eq!(code, Some(0), "{said}");
    let (code, said, _) = run(&["-q", "test", "tests/suite.yaml"]);
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("greets by name"), "{said}");
    let (code, said, _) = run(&["-q", "diff", "tests/interface.json"]);
    assert_eq!(code, Some(0), "{said}");
}

#[test]
fn the_python_server_goes_from_its_first_connect_to_a_passing_suite() {
    let dir = data_home("first-python-project");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("server.py"), block("python")).unwrap();
    let python = peer("py/bin/python");
    walk("first-python", &dir, &[python.to_str().unwrap(), "server.py"]);
    // A build that greets otherwise fails the page's suite: its test can fail.
    let changed = block("python").replace("Hello, {name}!", "Hi {name}");
    std::fs::write(dir.join("server.py"), changed).unwrap();
    let out = std::process::Command::new(SONDE)
        .args(["-q", "test", "tests/suite.yaml", "--", python.to_str().unwrap(), "server.py"])
        .current_dir(&dir)
        .env("XDG_DATA_HOME", data_home("first-python-changed"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5), "{}", text(&out));
}

#[test]
fn the_typescript_server_goes_from_its_first_connect_to_a_passing_suite() {
    let dir = data_home("first-ts-project");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("server.mjs"), block("js")).unwrap();
    // The page's `npm install`, as make peers made it: its node_modules beside the server.
    let modules: PathBuf = peer("tsv2/node_modules");
    std::os::unix::fs::symlink(modules, dir.join("node_modules")).unwrap();
    walk("first-ts", &dir, &["node", "server.mjs"]);
}
