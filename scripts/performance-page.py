#!/usr/bin/env python3
"""Writes the table of docs/performance.md from the last `make bench` run (bench/results.json,
and bench/window.json from the real window), between the page's table markers; the prose around
them is the page's own. `make bench` runs it last.

Usage: performance-page.py [ROOT]
"""
import datetime
import json
import os
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
PAGE = os.path.join(ROOT, "docs", "performance.md")
BEGIN, END = "<!-- bench table: begin -->", "<!-- bench table: end -->"


def cell(value):
    return str(value).replace("|", "\\|")


def ratio(value):
    return f"{value:.2f}×" if isinstance(value, (int, float)) else cell(value or "")


def met(value):
    return {True: "met", False: "missed"}.get(value, "") if not isinstance(value, str) else value.lower()


def table():
    with open(os.path.join(ROOT, "bench", "results.json")) as f:
        rows = json.load(f)["rows"]
    window = os.path.join(ROOT, "bench", "window.json")
    if os.path.exists(window):
        with open(window) as f:
            rows += json.load(f).get("rows", [])
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=9", "HEAD"], capture_output=True, text=True).stdout.strip()
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [BEGIN, "", f"One run of `make bench` on {commit or 'this tree'}, {when}:", "",
             "| figure | Sonde | baseline | ratio | target | |", "| --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append("| " + " | ".join([cell(r["figure"]), cell(r["sonde"]), cell(r["baseline"]), ratio(r["ratio"]),
                                        cell(r["target"]), met(r["met"])]) + " |")
    lines += ["", END]
    return "\n".join(lines)


def main():
    with open(PAGE, encoding="utf-8") as f:
        page = f.read()
    if BEGIN not in page or END not in page:
        print(f"performance-page: {PAGE} has no table markers ({BEGIN} … {END})", file=sys.stderr)
        return 1
    head, rest = page.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(PAGE, "w", encoding="utf-8") as f:
        f.write(head + table() + tail)
    print(f"performance-page: wrote the table of {os.path.relpath(PAGE, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
