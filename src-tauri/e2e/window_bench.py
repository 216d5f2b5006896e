"""The desktop figures of `make bench`, measured in the real window under Xvfb.

1. Footprint: resident memory of a Tauri window with an empty page (`sonde-empty-window`), then
   of Sonde idle with nothing connected, with the demo server connected and with ten (the
   servers are counted apart). The idle figures say, for each process (the app, WebKit's web
   and network processes), how much of it is anonymous memory: what the page itself holds.
2. A 1,000,000-entry session (written by `sonde-bench window-session`) opened read-only in a
   fresh Sonde window, and timed in the webview (`performance.now()` from the action to the
   animation frame that paints its rows): the open, a rare word and a method typed into the
   filter box, a jump to the last entry; then the web process's memory and the rows the log
   holds while the list is scrolled through 300,000 entries. (WebKitGTK gives a page no
   measure of its JavaScript heap: the web process's resident memory stands for it.) Then the
   timeline of that session: opened, and fifteen zoom and pan steps, each from the key to the
   new window's view drawn.
3. Launch: the release app started five times (after one start that warms the disk), each
   timed from its process's start to the page's first paint and to the window being usable
   (its saved servers drawn, which the page marks as `sonde:usable`); interleaved with a Tauri
   window with an empty page, timed to the moment its page begins to load.
4. Servers with 10, 1,000 and 10,000 tools (the cap), in interleaved rounds: each connection
   timed from ready to its tools counted and the first of them drawn, then the last tool's name
   typed into the tool filter a key at a time, each key timed to the frame that shows it; each
   round also types the same keys into a plain input, the frame clock's floor under them.

Every figure is printed as a table row and written to OUT_JSON.

usage: window_bench.py APP_BINARY OUT_JSON SONDE_BENCH EMPTY_WINDOW [ENTRIES]
       (run through run.sh under xvfb-run, like desktop.py, with XDG_DATA_HOME set apart and
       SONDE_FIXTURE the fixture server's binary)
"""
import json
import os
import subprocess
import sys
import time

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.options import ArgOptions
from selenium.webdriver.remote.client_config import ClientConfig
from selenium.webdriver.support.ui import WebDriverWait

app, out, bench, empty = (os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3], os.path.abspath(sys.argv[4]))
entries = int(sys.argv[5]) if len(sys.argv) > 5 else 1_000_000
# Rows are this tall in the log list (LogView's estimateSize; rows are not measured).
ROW_PX = 22
# How many entries the memory figures scroll through.
SCROLLED = 300_000


def processes():
    table = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")
            rss = 0
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        rss = int(line.split()[1])
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            table[int(pid)] = (ppid, [c.decode(errors="replace") for c in cmd if c], rss)
        except (FileNotFoundError, ProcessLookupError, PermissionError, IndexError):
            continue
    return table


def tree(table, binary):
    """The pids of `binary`'s process tree (started by WebKitWebDriver), the root first."""
    roots = [p for p, (_, cmd, _) in table.items() if cmd and cmd[0] == binary and "demo-server" not in cmd]
    assert len(roots) == 1, roots
    pids, todo = [], [roots[0]]
    while todo:
        pid = todo.pop()
        pids.append(pid)
        todo.extend(c for c, (ppid, _, _) in table.items() if ppid == pid)
    return pids


def footprint(binary):
    """(app + WebKit KiB, demo servers KiB, server count, web process KiB) for `binary`: its
    process tree, the demo servers in it counted apart."""
    table = processes()
    shell = servers = count = web = 0
    for pid in tree(table, binary):
        _, cmd, rss = table[pid]
        if "demo-server" in cmd:
            servers += rss
            count += 1
        else:
            shell += rss
            if any("WebKitWebProcess" in c for c in cmd[:1]):
                web += rss
    return shell, servers, count, web


def where(binary):
    """Where an idle window's memory is, by process (the app, WebKit's web and network
    processes): its RSS and, of it, the anonymous memory (a page's script heap, DOM and compiled
    code; the rest is mapped files, the libraries' and the binary's code), in KiB."""
    table = processes()
    parts = {}
    for i, pid in enumerate(tree(table, binary)):
        role = "app" if i == 0 else table[pid][1][0].rsplit("/", 1)[-1]
        if role not in ("app", "WebKitWebProcess", "WebKitNetworkProcess"):
            continue
        with open(f"/proc/{pid}/smaps_rollup") as f:
            anon = next((int(line.split()[1]) for line in f if line.startswith("Anonymous:")), 0)
        parts[role] = {"rss_kib": table[pid][2], "anonymous_kib": anon}
    return parts


def described(parts):
    names = (("app", "the app"), ("WebKitWebProcess", "web process"), ("WebKitNetworkProcess", "network process"))
    return ", ".join(f"{label} {parts[role]['rss_kib'] / 1024:.0f} ({parts[role]['anonymous_kib'] / 1024:.0f} anonymous)"
                     for role, label in names if role in parts)


def session(binary):
    opts = ArgOptions()
    opts.set_capability("browserName", "wry")
    opts.set_capability("tauri:options", {"application": binary})
    url = os.environ["SONDE_DRIVER_URL"]
    return webdriver.Remote(command_executor=url, options=opts, client_config=ClientConfig(url, timeout=120))


def settle():
    time.sleep(3)  # idle means nothing in flight: the figures are of a window at rest


rows, figures = [], {}


def say(what):
    """Progress on stderr: the whole script takes minutes."""
    print(f"window_bench: {what}", file=sys.stderr, flush=True)


def spread(ms):
    """The median of several (five, or three), with their min–max."""
    return sorted(ms)[len(ms) // 2], min(ms), max(ms)


def row(figure, sonde, baseline="", ratio="", target="", met=None):
    rows.append((figure, sonde, baseline, ratio, target, "" if met is None else ("met" if met else "MISSED")))


# Runs ACTION in the webview, then reports the milliseconds until COND holds, at the animation
# frame that paints it (-1 past the deadline), and what VALUE says then. CSP forbids eval in the
# page; WebDriver's own scripts are not bound by it, so each measurement is one script.
TIMED = """
const done = arguments[arguments.length - 1];
const grid = () => document.querySelector("[role='grid'][aria-label='Wire log']");
const rowsShown = () => [...(grid()?.querySelectorAll("[role='row'][data-seq]") ?? [])].map((r) => Number(r.dataset.seq));
const setFilter = (text) => {
  const box = document.querySelector("input[aria-label='Filter the log']");
  Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set.call(box, text);
  box.dispatchEvent(new Event("input", { bubbles: true }));
};
const cond = () => { %(cond)s };
let finished = false;
const t0 = performance.now();
%(action)s;
const seen = new MutationObserver(check);
seen.observe(document.body, { childList: true, subtree: true, attributes: true });
const deadline = setTimeout(() => { seen.disconnect(); done({ ms: -1, value: null }); }, 30000);
function check() {
  if (finished || !cond()) return;
  finished = true;
  seen.disconnect();
  clearTimeout(deadline);
  requestAnimationFrame(() => done({ ms: performance.now() - t0, value: %(value)s }));
}
check();
"""


def timed(action, cond, value="null"):
    got = driver.execute_async_script(TIMED % {"action": action, "cond": cond, "value": value})
    assert got["ms"] >= 0, f"not shown within 30 s: {cond}"
    return got["ms"], got["value"]


def press_on_window(keys):
    window = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", "^Sonde$"], capture_output=True,
                            text=True, check=True)
    subprocess.run(["xdotool", "windowfocus", "--sync", window.stdout.split()[0], "key", "--clearmodifiers", keys],
                   check=True)


def web_mib():
    return footprint(app)[3] / 1024


def footprint_figures():
    """1. The footprint."""
    global driver
    # 1. Footprint.
    say("an empty Tauri window")
    driver = session(empty)
    try:
        WebDriverWait(driver, 60).until(lambda d: d.execute_script("return document.readyState") == "complete")
        settle()
        base, _, _, base_web = footprint(empty)
        base_parts = where(empty)
    finally:
        driver.quit()
    figures["empty_window"] = {"app_and_webkit_mib": round(base / 1024, 1), "web_process_mib": round(base_web / 1024, 1),
                               "processes": base_parts}

    say("Sonde idle, then with 1 and 10 demo servers")
    driver = session(app)
    try:
        wait = WebDriverWait(driver, 60)
        connect = wait.until(lambda d: d.find_element(By.XPATH, "//li[.//div[text()='Demo server']]//button[text()='Connect']"))
        settle()
        idle, _, _, idle_web = footprint(app)
        parts = where(app)
        figures["idle"] = {"app_and_webkit_mib": round(idle / 1024, 1), "web_process_mib": round(idle_web / 1024, 1),
                           "processes": parts}
        row("desktop (release), idle, nothing connected",
            f"app + WebKit {idle / 1024:.0f} MiB: {described(parts)}",
            f"{base / 1024:.0f} MiB a Tauri window with an empty page: {described(base_parts)}",
            f"{idle / base:.2f}×", "≤ 1.1×", idle / base <= 1.1)
        for n in (1, 10):
            deadline = time.time() + 60
            while len(driver.find_elements(By.CSS_SELECTOR, ".connections .status[data-status='ready']")) < n:
                assert time.time() < deadline, f"{n} connections were not ready within 60 s"
                have = len(driver.find_elements(By.CSS_SELECTOR, ".connections li:not(.hint)"))
                if have < n:
                    connect.click()
                    if have:
                        # A server already connected asks before a second connection opens.
                        second = "//*[@role='alertdialog'][@aria-label='Already connected']//button[text()='Open a second connection']"
                        wait.until(lambda d: d.find_element(By.XPATH, second)).click()
                time.sleep(0.2)
            settle()
            shell, servers, count, _ = footprint(app)
            figures[f"{n}_servers"] = {"app_and_webkit_mib": round(shell / 1024, 1), "servers_mib": round(servers / 1024, 1), "servers": count}
            row(f"desktop (release), {n} demo server(s) connected, idle", f"app + WebKit {shell / 1024:.0f} MiB",
                f"{count} server(s) {servers / 1024:.0f} MiB", "", "≤ 10 MiB a server", servers / count <= 10 * 1024)
    finally:
        driver.quit()


def million_figures():
    """2. A million entries, in a fresh window. The empty page's web process is the footprint's."""
    global driver
    base_web = figures["empty_window"]["web_process_mib"] * 1024
    say(f"writing a {entries:,}-entry session")
    name = subprocess.run([bench, "window-session", str(entries)], check=True, capture_output=True, text=True).stdout.strip()

    driver = session(app)
    try:
        # The scroll below runs for tens of seconds in one script.
        driver.set_script_timeout(300)
        wait = WebDriverWait(driver, 60)
        wait.until(lambda d: d.find_element(By.XPATH, "//li[.//div[text()='Demo server']]"))
        press_on_window("ctrl+o")
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, f"[role='option'][title='{name}']")).click()
        settle()
        web_before = web_mib()
        say("opening it, filtering, jumping")
        last = entries - 1
        open_ms, _ = timed(
            "document.querySelector(\"[role='dialog'][aria-label='Open session'] button[type='submit']\").click()",
            "return document.querySelector(\"[aria-label='Past session']\") && rowsShown().length > 0",
        )
        # Follow off, as a person reading an old session has it: the list stays where it is put.
        timed("const follow = document.querySelector(\".log-bar .follow input\"); if (follow.checked) follow.click()",
              "return !document.querySelector('.log-bar .follow input').checked")
        settle()
        # Five rare words, each typed once (the core remembers a filter's matches): "needle" is in
        # every 10,000th entry, each "line N" in entry N alone, the last at the session's end.
        words = []
        alone = [n + (n % 10_000 == 0) for n in (entries * 123457 // 10**6, entries * 555555 // 10**6,
                                                  entries * 777777 // 10**6)] + [last]
        for word, first in [("needle", 0)] + [(f"line {n}", n) for n in alone]:
            ms, shown = timed(f'setFilter("{word}")', f'return grid().dataset.filter === "{word}" && rowsShown().length > 0',
                              "rowsShown()[0]")
            assert shown == first, f"{word}: the first row shown is entry {shown}"
            words.append(ms)
            timed('setFilter("")', "return !grid().dataset.filter && rowsShown().includes(0)")
        # Five filters the index answers, each typed once.
        methods = []
        for expr in ("method:tools/call", "kind:message method:tools/call", "dir:in method:tools/call",
                     "conn:1 method:tools/call", "method:notifications/message"):
            ms, _ = timed(f'setFilter("{expr}")', f'return grid().dataset.filter === "{expr}" && rowsShown().length > 0')
            methods.append(ms)
            timed('setFilter("")', "return !grid().dataset.filter && rowsShown().includes(0)")
        settle()
        # The last entry first (the figure asked for), then four places not yet shown; each from the top.
        jumps = []
        for to in (last, entries // 2, entries // 4, entries * 3 // 4, entries // 8):
            top = "grid().scrollHeight" if to == last else f"{to} * {ROW_PX}"
            ms, _ = timed(f"grid().focus(); grid().scrollTop = {top}", f"return rowsShown().includes({to})")
            jumps.append(ms)
            timed("grid().scrollTop = 0", "return rowsShown().includes(0)")

        # Scrolled through 300,000 entries 150 rows a step (less than a page of the core's, so every
        # page is shown), each step waiting for its rows: the web process's memory and the rows
        # held, every 20,000 entries. The figure asked for is the one at 100,000; the rest tell a
        # bounded heap from a leak, since the JavaScript collector lets garbage build up for about
        # 100,000 entries before its full collections keep pace.
        STEP = """
        const done = arguments[arguments.length - 1];
        const [from, to] = [arguments[0], arguments[1]];
        const grid = document.querySelector("[role='grid'][aria-label='Wire log']");
        let at = from;
        function next() {
          if (at >= to) return done({ held: Number(grid.dataset.held), nodes: document.getElementsByTagName("*").length });
          at = Math.min(to, at + 150);
          grid.scrollTop = at * %d;
          wait(performance.now() + 10000);
        }
        function wait(deadline) {
          const shown = [...grid.querySelectorAll("[role='row']")];
          if (shown.length > 0 && shown.every((r) => r.dataset.seq !== undefined)) return requestAnimationFrame(next);
          if (performance.now() > deadline) return done({ error: `rows at ${at} not read within 10 s` });
          requestAnimationFrame(() => wait(deadline));
        }
        next();
        """ % ROW_PX
        scroll = [{"entries": 0, "web_process_mib": round(web_mib(), 1)}]
        for k in range(1, SCROLLED // 20_000 + 1):
            say(f"scrolling through entries {(k - 1) * 20_000:,} to {k * 20_000:,}")
            got = driver.execute_async_script(STEP, (k - 1) * 20_000, k * 20_000)
            assert "error" not in got, got["error"]
            settle()
            scroll.append({"entries": k * 20_000, "web_process_mib": round(web_mib(), 1), "rows_held": got["held"],
                           "dom_elements": got["nodes"]})
        # The timeline of the whole session: opened (the core reads its index once), then zoomed
        # in, panned and zoomed out a step at a time from the keyboard, each step timed from the
        # key to the view of the new window drawn.
        say("the timeline: opening it, then fifteen zoom and pan steps")
        settle()
        timeline_open_ms, _ = timed(
            "[...document.querySelectorAll('.log-bar button')].find((b) => b.textContent === 'Timeline').click()",
            "const bar = document.querySelector('.timeline-bar'); return bar && bar.textContent.includes('requests in view')",
        )
        STEPPED = "Number(document.querySelector('[data-steps]')?.dataset.steps ?? 0)"
        timeline_steps = []
        for key in ["+"] * 5 + ["ArrowRight"] * 5 + ["-"] * 5:
            ms, _ = timed(
                f"window.__steps = {STEPPED}; document.querySelector('canvas.timeline-canvas')"
                f".dispatchEvent(new KeyboardEvent('keydown', {{ key: '{key}', bubbles: true }}))",
                f"return {STEPPED} > window.__steps",
            )
            timeline_steps.append(ms)
    finally:
        driver.quit()

    at = {s["entries"]: s["web_process_mib"] for s in scroll}
    held = max(s.get("rows_held", 0) for s in scroll)
    figures["million"] = {
        "entries": entries, "open_ms": round(open_ms, 1), "rare_word_ms": [round(m, 1) for m in words],
        "index_filter_ms": [round(m, 1) for m in methods], "jump_ms": [round(m, 1) for m in jumps],
        "web_process_before_open_mib": round(web_before, 1), "scroll": scroll,
        "timeline_open_ms": round(timeline_open_ms, 1), "timeline_step_ms": [round(m, 1) for m in timeline_steps],
    }


    # Flat: the highest figure over the last 100,000 entries scrolled is within 5% of the highest
    # over the 100,000 before them. A leak grows with every page read; the collector's swings do not.
    peak = lambda lo, hi: max(v for n, v in at.items() if lo < n <= hi)
    late, before = peak(SCROLLED - 100_000, SCROLLED), peak(SCROLLED - 200_000, SCROLLED - 100_000)
    flat = late <= 1.05 * before
    row(f"window, {entries:,}-entry session: open to first rows shown", f"{open_ms:.0f} ms")
    word, word_lo, word_hi = spread(words)
    row("window: a rare word typed into the filter to its first rows shown (5 words)",
        f"{word:.0f} ms ({word_lo:.0f}–{word_hi:.0f})", "", "", "≤ 200 ms (median)", word <= 200)
    index, index_lo, index_hi = spread(methods)
    row("window: an index filter (method:, kind:, dir:, conn:) typed to its first rows shown (5 filters)",
        f"{index:.0f} ms ({index_lo:.0f}–{index_hi:.0f})", "", "", "≤ 200 ms (median)", index <= 200)
    jump, jump_lo, jump_hi = spread(jumps)
    row("window: jump to the last entry to its row shown", f"{jumps[0]:.0f} ms", "", "", "≤ 100 ms", jumps[0] <= 100)
    row("window: jump to a place not yet shown (the last entry and four more)", f"{jump:.0f} ms ({jump_lo:.0f}–{jump_hi:.0f})",
        "", "", "≤ 100 ms (median)", jump <= 100)
    row("window: web process after scrolling through 100,000 entries", f"{at[100_000]:.0f} MiB (rows held ≤ {held:,})",
        f"{base_web / 1024:.0f} MiB an empty page's", f"{at[100_000] / (base_web / 1024):.2f}×")
    row(f"window: web process while {SCROLLED:,} entries are scrolled through",
        " ".join(f"{v:.0f}" for v in at.values()) + " MiB, every 20,000", "", "",
        f"flat: the last 100,000's peak ≤ 1.05× the 100,000 before ({late:.0f} vs {before:.0f} MiB)", flat)
    row(f"window: the timeline of the {entries:,}-entry session, opened to its first view drawn", f"{timeline_open_ms:.0f} ms")
    step, step_lo, step_hi = sorted(timeline_steps)[len(timeline_steps) // 2], min(timeline_steps), max(timeline_steps)
    row("window: a timeline zoom or pan step to its view drawn (15 steps: 5 in, 5 right, 5 out)",
        f"{step:.0f} ms ({step_lo:.0f}–{step_hi:.0f})", "", "", "≤ 50 ms (every step)", step_hi <= 50)


# 3. Launch to a usable window. The clock of a process's start is the kernel's (since boot, in
# clock ticks: 10 ms here); the page's is the epoch: both are brought to the epoch.
def started_at(binary):
    """The epoch second the newest process running `binary` started."""
    table = processes()
    pids = [p for p, (_, cmd, _) in table.items() if cmd and cmd[0] == binary]
    assert pids, f"{binary} is not running"
    with open(f"/proc/{max(pids)}/stat") as f:
        ticks = int(f.read().rsplit(")", 1)[1].split()[19])
    since_boot = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    return time.time() - since_boot


MARKS = """
const done = arguments[arguments.length - 1];
function look() {
  const usable = performance.getEntriesByName("sonde:usable")[0];
  if (!usable) return setTimeout(look, 10);
  const paint = performance.getEntriesByType("paint");
  const first = (paint.find((p) => p.name === "first-contentful-paint") ?? paint[0]) || null;
  done({ origin: performance.timeOrigin, usable: usable.startTime, paint: first && first.startTime,
         paintName: first && first.name });
}
look();
"""
def launch_figures():
    say("launch: one start of each to warm the disk, then five of each timed, interleaved")
    launches, empties = [], []
    for k in range(6):
        driver = session(app)
        try:
            driver.set_script_timeout(60)
            marks = driver.execute_async_script(MARKS)
            start = started_at(app)
        finally:
            driver.quit()
        assert marks["paint"] is not None, "the page gives no paint timing"
        # The baseline: a Tauri window with an empty page, started the same way, to the moment
        # its page begins to load (an empty page paints nothing to time).
        driver = session(empty)
        try:
            origin = driver.execute_script("return performance.timeOrigin")
            empty_start = started_at(empty)
        finally:
            driver.quit()
        if k:
            # navigation_ms: when the page began to load, which splits the shell's start from the page's.
            launches.append({"navigation_ms": marks["origin"] - start * 1000,
                             "paint_ms": marks["origin"] + marks["paint"] - start * 1000,
                             "usable_ms": marks["origin"] + marks["usable"] - start * 1000, "paint": marks["paintName"]})
            empties.append(origin - empty_start * 1000)
    figures["launch"] = [{k: (round(v, 1) if isinstance(v, float) else v) for k, v in r.items()} for r in launches]
    figures["launch_empty_navigation_ms"] = [round(v, 1) for v in empties]
    paints, usables = [r["paint_ms"] for r in launches], [r["usable_ms"] for r in launches]
    paint, paint_lo, paint_hi = spread(paints)
    usable, usable_lo, usable_hi = spread(usables)
    nav, _, _ = spread([r["navigation_ms"] for r in launches])
    empty_nav, empty_lo, empty_hi = spread(empties)
    row("launch (release, warm disk, started by WebKitWebDriver): process start to the page's first paint (5 starts)",
        f"{paint:.0f} ms ({paint_lo:.0f}–{paint_hi:.0f}); its page began loading at {nav:.0f} ms",
        f"{empty_nav:.0f} ms ({empty_lo:.0f}–{empty_hi:.0f}) an empty Tauri window's page began loading", "",
        "≤ 300 ms (median)", paint <= 300)
    row("launch: process start to a usable window, its saved servers drawn (5 starts)",
        f"{usable:.0f} ms ({usable_lo:.0f}–{usable_hi:.0f})", "", "", "≤ 1 s (median)", usable <= 1000)


# 4. Servers with many tools. Each is added through the Add dialog and run once (Sonde asks,
# natively, before a new command runs: xdotool answers), then connected in rounds.
fixture = os.environ["SONDE_FIXTURE"]
SIZES = (10, 1_000, 10_000)
ROUNDS = 3
CONNECTED = """
const done = arguments[arguments.length - 1];
const [connect, readyPath, n] = [arguments[0], arguments[1], arguments[2]];
const readyCount = () => document.evaluate(readyPath, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null).snapshotLength;
const countOf = () => document.querySelector("[aria-label='Tools shown']");
const before = readyCount(), oldCount = countOf();
let ready = null, finished = false;
const seen = new MutationObserver(check);
seen.observe(document.body, { childList: true, subtree: true, attributes: true, characterData: true });
const deadline = setTimeout(() => { seen.disconnect(); done({ error: "not listed within 60 s" }); }, 60000);
connect.click();
function check() {
  if (finished) return;
  if (ready === null && readyCount() > before) ready = performance.now();
  const count = countOf();
  if (ready === null || !count || count === oldCount || count.textContent !== `${n} tools`) return;
  if (!document.querySelector(".tool-scroll li[data-index='0']")) return;
  finished = true;
  seen.disconnect();
  clearTimeout(deadline);
  requestAnimationFrame(() => done({ ms: performance.now() - ready }));
}
"""
TYPED = """
const done = arguments[arguments.length - 1];
const text = arguments[0];
const box = document.querySelector("input[aria-label='Filter tools']");
const list = document.querySelector(".tool-scroll");
const times = [];
function key(k) {
  if (k > text.length) return done({ ms: times, last: [...list.querySelectorAll("li strong")].map((s) => s.textContent) });
  const typed = text.slice(0, k);
  const t0 = performance.now();
  Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set.call(box, typed);
  box.dispatchEvent(new Event("input", { bubbles: true }));
  const deadline = t0 + 10000;
  (function wait() {
    if (list.dataset.filter === typed) return requestAnimationFrame(() => { times.push(performance.now() - t0); key(k + 1); });
    if (performance.now() > deadline) return done({ error: `the filter "${typed}" not shown within 10 s` });
    setTimeout(wait, 0);
  })();
}
key(1);
"""
# The floor under a key's figure: the same keys typed into a plain input that nothing listens to,
# added to the same window for the measurement, each timed the same way to the frame after it.
# A key's time is mostly the window's frame clock: a frame that paints the key, then the next.
PLAIN = """
const done = arguments[arguments.length - 1];
const text = arguments[0];
const box = document.body.appendChild(document.createElement("input"));
const times = [];
function key(k) {
  if (k > text.length) { box.remove(); return done({ ms: times }); }
  const t0 = performance.now();
  box.value = text.slice(0, k);
  box.dispatchEvent(new Event("input", { bubbles: true }));
  requestAnimationFrame(() => { times.push(performance.now() - t0); key(k + 1); });
}
key(1);
"""
def tool_figures():
    global driver
    say("servers with 10, 1,000 and 10,000 tools")
    listed = {n: [] for n in SIZES}
    keys = {n: [] for n in SIZES}
    plain = []
    driver = session(app)
    try:
        driver.set_script_timeout(120)
        wait = WebDriverWait(driver, 60)

        def saved_server(name):
            return f"//li[.//div[text()='{name}']]//button[text()='Connect']"

        def ready_path(name):
            return f"//ul[@class='connections']/li[.//span[text()='{name}']]//div[@data-status='ready']"

        def stop(name):
            driver.find_element(By.XPATH, ready_path(name) + "/ancestor::li[1]//button[text()='Stop']").click()
            wait.until(lambda d: not d.find_elements(By.XPATH, ready_path(name)))

        for n in SIZES:
            name = f"{n} tools"
            wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "button[aria-label='Add a server']")).click()
            dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "form.dialog"))
            dialog.find_element(By.XPATH, ".//label[contains(., 'Name')]/input").send_keys(name)
            dialog.find_element(By.XPATH, ".//label[contains(., 'Command line')]/input").send_keys(f"{fixture} --tools {n}")
            dialog.find_element(By.XPATH, ".//button[text()='Save']").click()
            wait.until(lambda d: d.find_element(By.XPATH, saved_server(name))).click()
            window = WebDriverWait(driver, 30).until(lambda d: subprocess.run(
                ["xdotool", "search", "--onlyvisible", "--name", "^Run a new server\\?$"], capture_output=True,
                text=True).stdout.split())[0]
            subprocess.run(["xdotool", "windowfocus", "--sync", window, "key", "Return"], check=True, timeout=10)
            wait.until(lambda d: d.find_elements(By.XPATH, ready_path(name)))
            stop(name)
        press_on_window("ctrl+1")
        for r in range(ROUNDS):
            got = driver.execute_async_script(PLAIN, f"filler_{SIZES[-1]}")
            plain.extend(got["ms"])
            for n in SIZES:
                name = f"{n} tools"
                say(f"round {r + 1}: {name}")
                got = driver.execute_async_script(CONNECTED, driver.find_element(By.XPATH, saved_server(name)),
                                                  ready_path(name), n)
                assert "error" not in got, got["error"]
                listed[n].append(got["ms"])
                last = f"filler_{n}"
                got = driver.execute_async_script(TYPED, last)
                assert "error" not in got, got["error"]
                assert got["last"] == [last], got["last"]
                keys[n].extend(got["ms"])
                stop(name)
    finally:
        driver.quit()
    figures["tools"] = {str(n): {"listed_ms": [round(m, 1) for m in listed[n]], "key_ms": [round(m, 1) for m in keys[n]]}
                        for n in SIZES}
    figures["tools"]["plain_key_ms"] = [round(m, 1) for m in plain]
    floor = (f"{sorted(plain)[len(plain) // 2]:.0f} ms median, {max(plain):.0f} ms the slowest, "
             f"a plain input in the same window ({len(plain)} keys)")
    small = sorted(listed[SIZES[0]])[ROUNDS // 2]
    for n in SIZES:
        mid, lo, hi = spread(listed[n])
        key_mid, key_hi = sorted(keys[n])[len(keys[n]) // 2], max(keys[n])
        ratio = mid / small
        if n == SIZES[0]:
            row(f"window: a server with {n:,} tools, ready to its tools counted and drawn ({ROUNDS} rounds)",
                f"{mid:.0f} ms ({lo:.0f}–{hi:.0f})", "", "", "≤ 200 ms (median)", mid <= 200)
        elif n == SIZES[-1]:
            # The cap: the targets of time are for 1,000 tools; at 10,000 the window must stay
            # responsive, which its keys' row says.
            row(f"window: a server with {n:,} tools (the cap), ready to its tools counted and drawn ({ROUNDS} rounds)",
                f"{mid:.0f} ms ({lo:.0f}–{hi:.0f})", f"{small:.0f} ms the same server with {SIZES[0]} tools",
                f"{ratio:.2f}×", "—")
        else:
            row(f"window: a server with {n:,} tools, ready to its tools counted and drawn ({ROUNDS} rounds)",
                f"{mid:.0f} ms ({lo:.0f}–{hi:.0f})", f"{small:.0f} ms the same server with {SIZES[0]} tools",
                f"{ratio:.2f}×", "≤ 200 ms and ≤ 3× (medians)", mid <= 200 and ratio <= 3)
        row(f"window: a server with {n:,} tools, a key typed into the tool filter to the list shown "
            f"({len(keys[n])} keys)", f"{key_mid:.0f} ms median, {key_hi:.0f} ms the slowest", floor, "",
            "≤ 50 ms (every key)", key_hi <= 50)


# SONDE_WINDOW_BENCH=launch,tools (of footprint, million, launch, tools) runs those sections
# alone, while working on one of them (million needs footprint).
only = set(filter(None, os.environ.get("SONDE_WINDOW_BENCH", "").split(",")))
sections = (("footprint", footprint_figures), ("million", million_figures), ("launch", launch_figures),
            ("tools", tool_figures))
for name, section in sections:
    if not only or name in only:
        section()
print("| figure | Sonde | baseline | ratio | target | |")
print("| --- | --- | --- | --- | --- | --- |")
for r in rows:
    print("| " + " | ".join(r) + " |")
# The rows as printed, for docs/performance.md (scripts/performance-page.py).
figures["rows"] = [dict(zip(("figure", "sonde", "baseline", "ratio", "target", "met"), r)) for r in rows]
with open(out, "w") as f:
    json.dump(figures, f, indent=2)
