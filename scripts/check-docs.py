#!/usr/bin/env python3
"""Fails when the README or a guide page names an image that is missing, links to a file that is
gone or to a heading that is not there (anchors in GitHub's form), or when docs/img holds an image
no page shows; and when a picture a page shows is one `make docs` no longer takes (no real-window
check calls shot("NAME") for it, nor a guide script writes it) or is stale by the rule in
pictures.py (taken more than one release before the current version). `make test` runs it;
`make docs` refreshes the images and reference pages.

Usage: check-docs.py [ROOT]   (default: the repository this script is in)
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pictures  # noqa: E402

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
MAX_IMAGE_BYTES = 400 * 1024


def pages():
    yield os.path.join(ROOT, "README.md")
    yield os.path.join(ROOT, "ARCHITECTURE.md")
    for folder, _, files in os.walk(os.path.join(ROOT, "docs")):
        for name in sorted(files):
            if name.endswith(".md"):
                yield os.path.join(folder, name)


def prose(path):
    """The file's lines outside fenced code, each with its number, inline code blanked."""
    fenced = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if not fenced:
                yield number, re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), line)


def slug(text):
    """GitHub's anchor for a heading's text: markup and punctuation dropped, lowercase,
    spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.replace("`", "").lower()
    return "".join(c for c in text if c.isalnum() or c in " -_").replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        found, seen, fenced = set(), {}, False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if FENCE.match(line):
                    fenced = not fenced
                    continue
                m = None if fenced else HEADING.match(line)
                if m:
                    base = slug(m.group(2))
                    n = seen.get(base, 0)
                    seen[base] = n + 1
                    found.add(base if n == 0 else f"{base}-{n}")
        cache[path] = found
    return cache[path]


def taken_by_make_docs():
    """The pictures `make docs` takes: each shot("NAME") of the real-window suite, and each
    docs/img/NAME.png the Makefile has a guide script write."""
    names = set()
    for script in glob.glob(os.path.join(ROOT, "src-tauri", "e2e", "*.py")):
        with open(script, encoding="utf-8") as f:
            names.update(re.findall(r'\bshot\("([A-Za-z0-9_-]+)"[,)]', f.read()))
    with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as f:
        names.update(re.findall(r"docs/img/([A-Za-z0-9_-]+)\.png", f.read()))
    return names


def picture_problems(shown):
    """Each shown picture `make docs` does not take, or took too long ago (pictures.py)."""
    taken, suite = pictures.manifest(ROOT), taken_by_make_docs()
    fresh = pictures.fresh_versions(ROOT)
    problems = []
    for file in shown:
        name = file[: -len(".png")]
        if name not in suite:
            problems.append(f"docs/img/{file}: no real-window check takes it (shot(\"{name}\")), so make docs cannot refresh it")
        why = pictures.why_stale(name, taken, fresh)
        if why:
            problems.append(f"docs/img/{file} is stale: {why}")
    return problems


def main():
    problems, shown = [], set()
    for page in pages():
        if not os.path.exists(page):
            continue
        where = os.path.relpath(page, ROOT)
        for number, line in prose(page):
            for bang, _, target in LINK.findall(line):
                if re.match(r"^[a-z]+:", target):
                    continue
                path, _, anchor = target.partition("#")
                full = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
                if not os.path.exists(full):
                    what = "image" if bang else "link"
                    problems.append(f"{where}:{number}: the {what} {target} is missing ({os.path.relpath(full, ROOT)})")
                    continue
                if bang:
                    shown.add(full)
                    size = os.path.getsize(full)
                    if size > MAX_IMAGE_BYTES:
                        problems.append(f"{where}:{number}: {path} is {size // 1024} KiB; keep images under {MAX_IMAGE_BYTES // 1024} KiB")
                if anchor and full.endswith(".md") and anchor not in anchors(full):
                    problems.append(f"{where}:{number}: {target} links to a heading that is not in {os.path.relpath(full, ROOT)}")
    img = os.path.join(ROOT, "docs", "img")
    if os.path.isdir(img):
        for name in sorted(os.listdir(img)):
            if name != "pictures.json" and os.path.join(img, name) not in shown:
                problems.append(f"docs/img/{name} is shown by no page: remove it, or show it")
        problems += picture_problems(sorted(os.path.basename(p) for p in shown if os.path.dirname(p) == img))
    for p in problems:
        print(f"check-docs: {p}")
    if problems:
        print(f"check-docs: {len(problems)} problem(s); `make docs` refreshes the images and reference pages")
        return 1
    print("check-docs: every image, link and heading the README and the guide name is there")
    return 0


if __name__ == "__main__":
    sys.exit(main())
