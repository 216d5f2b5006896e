#!/usr/bin/env python3
"""The core's one front door, checked: outside `src/`, code names the core's items only from the
crate root (`sonde_core::Hub`), never by a module path (`sonde_core::log::Entry`); the core's own
integration tests (`tests/`) and fuzz targets (`fuzz/`) may also reach `sonde_core::internals`,
and nothing else may. In `src/lib.rs`, every public module is a namespace ARCHITECTURE.md names
under "The front door", and there are at most three public namespaces, the root included.

Usage: check-front-door.py [ROOT]   (exit 1 and one line per finding when the door is not kept)
"""
import os
import re
import sys

PATH = re.compile(r"\bsonde_core::([a-z_][a-z0-9_]*)::")
PUB_MOD = re.compile(r"^pub(?:\([^)]*\))?\s+mod\s+([a-z_][a-z0-9_]*)\b", re.M)
# Folders whose code is another crate's (the shells, the CLI, the bench, the fixtures), and the
# two folders of the core's own crate that are outside its source.
OUTSIDE = ["src-tauri", "crates", "tests", "fuzz", "benches", "examples"]
MAY_REACH_INTERNALS = ("tests", "fuzz")
SKIP = {"target", "node_modules", ".git", ".cache"}


def findings_in(rel: str, text: str) -> list[str]:
    """Each module path in `text` that `rel`'s folder may not use, as `rel:line: why`."""
    allowed = {"internals"} if rel.split("/")[0] in MAY_REACH_INTERNALS else set()
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for m in PATH.finditer(line):
            if m.group(1) not in allowed:
                found.append(
                    f"{rel}:{number}: sonde_core::{m.group(1)}:: names a module of the core; "
                    f"use the item from the crate root (sonde_core::Name)"
                )
    return found


def namespaces_unnamed(lib_rs: str, architecture: str) -> list[str]:
    """The public modules of lib.rs that the map's front door does not name, and too many."""
    door = architecture.split("## The front door", 1)
    section = door[1].split("\n## ", 1)[0] if len(door) == 2 else ""
    public = PUB_MOD.findall(lib_rs)
    out = [f"src/lib.rs: `pub mod {m}` is not named under ARCHITECTURE.md's \"## The front door\""
           for m in public if f"`sonde_core::{m}`" not in section]
    if len(public) + 1 > 3:
        out.append(f"src/lib.rs: {len(public) + 1} public namespaces (the root and {', '.join(public)}); at most 3")
    return out


def check(root: str) -> list[str]:
    out = []
    for top in OUTSIDE:
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = [d for d in dirs if d not in SKIP]
            for name in files:
                if name.endswith(".rs"):
                    path = os.path.join(folder, name)
                    with open(path, encoding="utf-8") as f:
                        out += findings_in(os.path.relpath(path, root), f.read())
    with open(os.path.join(root, "src/lib.rs"), encoding="utf-8") as f:
        lib_rs = f.read()
    with open(os.path.join(root, "ARCHITECTURE.md"), encoding="utf-8") as f:
        out += namespaces_unnamed(lib_rs, f.read())
    return out


def self_test() -> None:
    """The rules on small inputs, so a check that reads nothing cannot pass quietly."""
    assert findings_in("crates/sonde-cli/src/a.rs", "use sonde_core::log::Entry;\nuse sonde_core::Hub;") == [
        "crates/sonde-cli/src/a.rs:1: sonde_core::log:: names a module of the core; "
        "use the item from the crate root (sonde_core::Name)"
    ]
    assert findings_in("src-tauri/src/a.rs", "let x = sonde_core::internals::classify(l);")
    assert not findings_in("tests/a.rs", "use sonde_core::internals::{Connection, Options};")
    assert findings_in("tests/a.rs", "use sonde_core::hub::Hub;")
    assert not findings_in("crates/x/src/a.rs", "use sonde_core::{Hub, WireLog};\nsonde_core::Hub::new(l)")
    door = "## The front door\n\n- `sonde_core::internals`: for tests\n\n## Next\n`sonde_core::extra`"
    assert not namespaces_unnamed("mod a;\npub mod internals {\n}\n", door)
    assert namespaces_unnamed("pub mod extra;\npub mod internals {}", door) == [
        'src/lib.rs: `pub mod extra` is not named under ARCHITECTURE.md\'s "## The front door"'
    ]
    assert namespaces_unnamed("pub mod a;\npub mod b;\npub mod c;", "## The front door\n`sonde_core::a` `sonde_core::b` `sonde_core::c`")[-1].endswith("at most 3")


if __name__ == "__main__":
    self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print("front door: the shells, the CLI and the bench name the core from its root only")
