#!/usr/bin/env python3
"""Where each picture of the guide comes from, and when it is too old.

docs/img/pictures.json maps each picture's name to the build that took it (`sonde 0.1.0
(dfb23f2fa)`, what `sonde --version` says), written by `make docs` as each picture is taken.
The rule check-docs.py holds every picture to: a picture may lag the code it shows by one
release, no more. A release is a version heading of CHANGELOG.md (`## 0.1.0`); the current
version is the one in Cargo.toml. A picture taken by the current version or by the release just
before it is fresh; one taken earlier, or by no recorded build, is stale: `make docs` takes it
again.

Usage: pictures.py record NAME   (the build from the environment's SONDE_GUIDE_BUILD)
"""
import json
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
MANIFEST = os.path.join(ROOT, "docs", "img", "pictures.json")


def manifest(root=ROOT):
    path = os.path.join(root, "docs", "img", "pictures.json")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def record(name, build):
    taken = manifest()
    taken[name] = build
    with open(MANIFEST, "w", encoding="utf-8") as f:
        json.dump(dict(sorted(taken.items())), f, indent=1)
        f.write("\n")


def current(root=ROOT):
    """The version Cargo.toml gives the core (the first `version =` of its [package])."""
    with open(os.path.join(root, "Cargo.toml"), encoding="utf-8") as f:
        return re.search(r'^version\s*=\s*"([^"]+)"', f.read(), re.M).group(1)


def releases(root=ROOT):
    """The releases CHANGELOG.md names, newest first."""
    with open(os.path.join(root, "CHANGELOG.md"), encoding="utf-8") as f:
        return re.findall(r"^## \[?(\d+\.\d+\.\d+)\]?", f.read(), re.M)


def fresh_versions(root=ROOT):
    """The versions whose pictures are fresh: the current one, and the release before it."""
    now = current(root)
    listed = releases(root)
    before = [v for v in listed if v != now]
    older = [v for v in before if tuple(map(int, v.split("."))) < tuple(map(int, now.split(".")))]
    return [now] + older[:1]


def why_stale(name, taken, fresh):
    """Why the picture `name` is stale, or None when it is fresh."""
    build = taken.get(name)
    if build is None:
        return "no build of record took it (make docs records each picture it takes)"
    version = build.split()[1] if len(build.split()) > 1 else "?"
    if version not in fresh:
        return f"taken by {build}, more than one release before {fresh[0]}"
    return None


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "record":
        sys.exit(__doc__)
    build = os.environ.get("SONDE_GUIDE_BUILD", "")
    if not build.startswith("sonde "):
        sys.exit("pictures.py: SONDE_GUIDE_BUILD must say the build, as `sonde --version` does")
    record(sys.argv[2], build)
