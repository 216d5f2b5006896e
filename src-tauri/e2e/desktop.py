"""The real Sonde window, driven through tauri-driver and WebKitWebDriver under Xvfb.

Launch, connect the demo server, call a tool, see the request and its response in the wire
log, stop the server and check that its process is gone; then real third-party servers, the
shutdown ladder, follow mode, past sessions of the sonde CLI (one finished, one still being
written), deleting a server, a tool call that runs as a task, and quitting; then, in an app of
its own, a full disk under the session log (fulldisk.py). Screenshots go to
$SONDE_SHOTS.

Each behaviour is one function, run and reported on its own line (ok or FAIL with the reason),
so one failure does not hide the others; a check starts by re-establishing what it needs
(a connection, a saved server) rather than trusting the one before it to have left it there.
The last line is "N passed, N failed"; the exit status is non-zero when any check failed.

usage: desktop.py APP_BINARY [NAME ...]   (make test runs it through xvfb-run with tauri-driver up;
       NAMEs run only the checks whose function name contains one of them)
"""
import atexit
import json
import os
import re
import socket
import subprocess
import sys
import time
import traceback

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.common.options import ArgOptions
from selenium.webdriver.remote.client_config import ClientConfig
from selenium.webdriver.support.ui import WebDriverWait

import apps
import diff
import hardening
import hosts
import inner_loop
import third_pass
import diagnostics
import extensions
import forms
import fulldisk
import layout
import load
import panels
import walk
import window
import oauth
import results
import sessions
import skills
import timeline

app = os.path.abspath(sys.argv[1])
shots = os.environ.get("SONDE_SHOTS", "")


class Session:
    """The WebDriver session every check drives, through which each helper and module reaches
    the window. A new app instance (a check with a disk of its own, or a fresh start after the
    driver died) swaps the session behind it, so what the modules were given stays valid."""

    def __init__(self):
        self.target = None

    def __getattr__(self, name):
        return getattr(self.target, name)


def new_session(application):
    """A WebDriver session on a new instance of `application` (the app, or a script that runs it
    with an environment of its own)."""
    opts = ArgOptions()
    opts.set_capability("browserName", "wry")
    opts.set_capability("tauri:options", {"application": application})
    # No WebDriver command takes a minute: a window that stops answering fails the check that
    # froze it instead of hanging the run, as selenium waits forever by default.
    return webdriver.Remote(command_executor=os.environ["SONDE_DRIVER_URL"], options=opts,
                            client_config=ClientConfig(os.environ["SONDE_DRIVER_URL"], timeout=60))


# Seconds since boot as the run started: the kernel's log is read from there on.
with open("/proc/uptime") as f:
    STARTED = float(f.read().split()[0])
driver = Session()
driver.target = new_session(app)
# React re-renders replace elements under a running query; WebKitWebDriver then reports them
# stale, which only means "look again".
wait = WebDriverWait(driver, 30, ignored_exceptions=[StaleElementReferenceException])


def quit_app():
    try:
        driver.quit()
    except Exception:  # noqa: BLE001 - the app may have exited already, as the quit check asks
        pass


def ours(name):
    """The processes called `name` this run started: those that inherited its mark (another
    checkout's run has its own)."""
    mark = f"SONDE_E2E_RUN={os.environ['SONDE_E2E_RUN']}".encode()
    pids = []
    for pid in subprocess.run(["pgrep", "-x", name], capture_output=True, text=True).stdout.split():
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if mark in f.read().split(b"\0"):
                    pids.append(int(pid))
        except OSError:  # gone meanwhile
            pass
    return pids


def our_apps():
    return ours("sonde-desktop")


def our_app():
    """The pid of the one app this run is driving now, found by the run's mark, never as the
    newest `sonde-desktop` on the machine: a person's own window (or another checkout's run)
    started later is not ours. More than one of ours (a leftover still exiting) is an error that
    names them rather than a guess."""
    pids = our_apps()
    assert len(pids) == 1, f"expected one sonde-desktop of this run (SONDE_E2E_RUN), found {pids or 'none'}"
    return pids[0]


def start_driver():
    """tauri-driver again, on new ports, in place of one that died: when WebKitWebDriver crashes,
    tauri-driver panics with it and takes no new session."""
    for pid in [int(os.environ.get("SONDE_DRIVER_PID", "0"))] + ours("WebKitWebDriver"):
        try:
            os.kill(pid, 9)
        except (ProcessLookupError, ValueError):
            pass
    port, native = free_port(), free_port()
    log = open(os.environ["SONDE_DRIVER_LOG"], "a")
    started = subprocess.Popen(["tauri-driver", "--port", str(port), "--native-port", str(native),
                                "--native-driver", "/usr/bin/WebKitWebDriver"], stdout=log, stderr=subprocess.STDOUT)
    # Ended when the script ends, as run.sh ends the first.
    atexit.register(started.kill)
    os.environ["SONDE_DRIVER_PID"] = str(started.pid)
    os.environ["SONDE_DRIVER_URL"] = f"http://127.0.0.1:{port}"
    wait_listening(port)


def end_leftover_apps():
    """Ends app instances no session drives any more (their driver died under them): SIGTERM,
    which stops their servers, then SIGKILL after 10 s. Their windows would otherwise take the
    keys pressed through X."""
    pids = our_apps()
    for signal_number in (15, 9):
        for pid in pids:
            try:
                os.kill(pid, signal_number)
            except ProcessLookupError:
                pass
        if all(wait_gone(pid, 10) for pid in pids):
            return


def restart_app(data_home=None, config_home=None):
    """Quits the app and starts it again; with `data_home`, its data directory (sessions,
    traces) is there, for a check that needs a disk of its own (and its settings and saved
    servers at `config_home`, when given). Every helper and module follows it: they drive
    `driver`, whose session this replaces. Returns it."""
    quit_app()
    end_leftover_apps()
    application = app
    if data_home:
        application = data_home + "-app"
        config = f'XDG_CONFIG_HOME="{config_home}" ' if config_home else ""
        with open(application, "w") as f:
            f.write(f'#!/bin/sh\n{config}XDG_DATA_HOME="{data_home}" exec "{app}" "$@"\n')
        os.chmod(application, 0o755)
    try:
        driver.target = new_session(application)
    except Exception as e:  # noqa: BLE001 - the driver itself died: a new one, then the session
        print(f"     no new session ({type(e).__name__}); tauri-driver is started again")
        start_driver()
        driver.target = new_session(application)
    return driver


def session_alive():
    try:
        return driver.execute_script("return 1") == 1
    except Exception:  # noqa: BLE001 - any error here means the session is gone
        return False


def why_the_session_died():
    """What the driver and the kernel said last: printed once the session is found dead, since
    a CI log is all there is to go on afterwards."""
    lines = []
    log = os.environ.get("SONDE_DRIVER_LOG")
    if log and os.path.exists(log):
        with open(log, errors="replace") as f:
            # A panic's message, not the frames of its backtrace.
            said = [line.rstrip() for line in f if line.strip() and not re.match(r"\s+(\d+:|at )", line)]
        lines += [f"driver: {line}" for line in said[-8:]]
    def this_run(line):
        stamp = re.match(r"\[\s*(\d+\.\d+)\]", line)
        return stamp is not None and float(stamp.group(1)) >= STARTED
    kernel = subprocess.run(["dmesg"], capture_output=True, text=True).stdout.splitlines()
    crashes = [line for line in kernel if "segfault" in line or "killed process" in line.lower()]
    lines += [f"kernel: {line}" for line in crashes if this_run(line)][-5:]
    lines += [f"app still running: pid {pid}" for pid in our_apps()]
    return lines


# `make docs` sets SONDE_GUIDE_IMG to docs/img: a screenshot the README or a guide page names
# (`img/NAME.png`) is also written there, at the window's size in 64 colours, small enough to
# commit, and the build that took it recorded (scripts/pictures.py). scripts/check-docs.py fails
# on an image a page names that is not there, that no check takes, or that is stale.
guide_img = os.environ.get("SONDE_GUIDE_IMG", "")


def guide_names():
    docs = os.path.dirname(guide_img)
    pages = [os.path.join(docs, "..", "README.md")]
    pages += [os.path.join(d, f) for d, _, files in os.walk(docs) for f in files if f.endswith(".md")]
    names = set()
    for page in pages:
        with open(page, encoding="utf-8") as f:
            names.update(re.findall(r"img/([A-Za-z0-9_-]+)\.png", f.read()))
    return names


guide = guide_names() if guide_img else set()


def shot(name, show=None):
    """Saves a screenshot; a guide picture (make docs) shows `show` (an element of the sidebar,
    scrolled into its view), else the sidebar's top: the connections, not the saved servers
    earlier checks added."""
    if shots:
        path = os.path.join(shots, f"{name}.png")
        if name in guide:
            driver.execute_script(
                "const side = document.querySelector('aside.sidebar');"
                "if (arguments[0]) arguments[0].scrollIntoView({block: 'center'}); else if (side) side.scrollTop = 0;",
                show)
        driver.save_screenshot(path)
        if name in guide:
            subprocess.run(["convert", path, "-strip", "+dither", "-colors", "64", "-define", "png:compression-level=9",
                            os.path.join(guide_img, f"{name}.png")], check=True, timeout=60)
            pictures = os.path.join(os.path.dirname(guide_img), "..", "scripts", "pictures.py")
            subprocess.run(["python3", pictures, "record", name], check=True, timeout=60)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port):
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing listened on port {port} within 20 s")
            time.sleep(0.05)


def xpath_text(text):
    return f"//*[contains(normalize-space(.), '{text}')]"


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    except FileNotFoundError:
        return False


def wait_gone(pid, seconds):
    deadline = time.time() + seconds
    while alive(pid) and time.time() < deadline:
        time.sleep(0.05)
    return not alive(pid)


def set_filter(text):
    """Replaces the log filter as a person would, and waits until the log shows its matches (the
    list's `data-filter`): typed a key at a time, the filter passes through others first.
    (WebDriver's clear() does not always reach React's onChange in WebKitGTK, and the next keys
    would then be appended.)"""
    box = driver.find_element(By.CSS_SELECTOR, "input[aria-label='Filter the log']")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.BACKSPACE)
    if text:
        box.send_keys(text)
    wait.until(lambda d: box.get_attribute("value") == text)
    grid = "[role='grid'][aria-label='Wire log']"
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, grid).get_attribute("data-filter") == text)


def call_tool(tool, values, expect, by="strong"):
    """Picks a tool by its title (or `by="code"`: its name), fills its form fields in order,
    calls it and waits for `expect` in the result."""
    button = wait.until(lambda d: d.find_element(By.XPATH, f"//button[contains(@class,'tool')][.//{by}[text()='{tool}']]"))
    # The list draws the rows near its view: a person scrolls the tool into view, then clicks it.
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    wait.until(lambda d: d.find_element(By.XPATH, f"//button[contains(@class,'tool')][.//{by}[text()='{tool}']]")).click()
    inputs = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".tool-call input"))
    for field, value in zip(inputs, values):
        # A field may start with the schema's default: the value replaces it.
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys(Keys.BACKSPACE)
        field.send_keys(value)
    driver.find_element(By.XPATH, "//button[text()='Call']").click()
    wait.until(lambda d: d.find_element(By.XPATH, xpath_text(expect)))


def native_windows(title):
    """The X windows of Sonde's native dialogs (GTK, outside the webview) titled `title`."""
    found = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", f"^{re.escape(title)}$"],
                           capture_output=True, text=True, timeout=10)
    return found.stdout.split()


def answer_native(title, key):
    """Waits for the native dialog `title` and answers it from the keyboard as a person would:
    Return presses its first button (Run, Import), Escape cancels."""
    window = wait.until(lambda d: native_windows(title))[0]
    subprocess.run(["xdotool", "windowfocus", "--sync", window, "key", key], check=True, timeout=10)
    wait.until(lambda d: not native_windows(title))


RUN_TITLES = ("Run a new server?", "Run a changed server?")


def until(cond, timeout=30):
    """Waits for `cond`, running the server when Sonde asks natively on the way (a saved server's
    first run, or a changed one): the checks that are not about that question answer it as a
    person would. hardening.py checks the question itself."""
    def step(d):
        for title in RUN_TITLES:
            if native_windows(title):
                answer_native(title, "Return")
        return cond(d)
    return WebDriverWait(driver, timeout, ignored_exceptions=[StaleElementReferenceException]).until(step)


def saved(name):
    return driver.find_elements(By.XPATH, f"//ul[@class='servers']/li[.//div[text()='{name}']]")


def ready_status(name):
    return f"//ul[@class='connections']/li[.//span[text()='{name}']]//div[@data-status='ready']"


def connect(name):
    """Starts a new connection to the saved server `name` and waits until it is ready (and so
    selected: the window selects a connection as it opens)."""
    before = len(driver.find_elements(By.XPATH, ready_status(name)))
    wait.until(lambda d: d.find_element(By.XPATH, f"//li[.//div[text()='{name}']]//button[text()='Connect']")).click()
    # A server already connected asks before it opens a second connection: this asks for one.
    again = "//*[@role='alertdialog'][@aria-label='Already connected']//button[text()='Open a second connection']"
    until(lambda d: d.find_elements(By.XPATH, again) or len(d.find_elements(By.XPATH, ready_status(name))) > before)
    for button in driver.find_elements(By.XPATH, again):
        button.click()
    wait.until(lambda d: len(d.find_elements(By.XPATH, ready_status(name))) > before)


def newest_pid(name):
    return wait.until(lambda d: pid_of(d.find_elements(By.XPATH, ready_status(name))[-1]))


def pid_of(status):
    return int(status.text.split("pid")[1].split()[0])


def ensure_connected(name):
    """A ready connection to `name`, selected: the one there is, or a new one. Returns its pid."""
    if not driver.find_elements(By.XPATH, ready_status(name)):
        connect(name)
    selected = f"//ul[@class='connections']/li[@class='selected'][.//span[text()='{name}']]//div[@data-status='ready']"
    if not driver.find_elements(By.XPATH, selected):
        wait.until(lambda d: d.find_elements(By.XPATH, ready_status(name))[-1]).click()
    return wait.until(lambda d: pid_of(d.find_element(By.XPATH, selected)))


def ensure_call():
    """A tools/call in the wire log: the demo's Add, unless one is there already."""
    if not driver.find_elements(By.XPATH, "//div[@role='row'][.//span[starts-with(text(),'tools/call ') and contains(text(),'#')]]"):
        call_tool("Add", ["2", "40"], "2 + 40 = 42")


def add_server(name, command=None, url=None, header=None, graces=None, restart=False, host=None, trace=False):
    """Saves a server through the Add dialog, as a new user would."""
    driver.find_element(By.CSS_SELECTOR, "button[aria-label='Add a server']").click()
    dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "form.dialog"))
    dialog.find_element(By.XPATH, ".//label[contains(., 'Name')]/input").send_keys(name)
    if url:
        dialog.find_element(By.XPATH, ".//label[contains(., 'URL (HTTP)')]/input").click()
        dialog.find_element(By.XPATH, ".//label[contains(., 'URL')]/input[@class='mono']").send_keys(url)
    else:
        dialog.find_element(By.XPATH, ".//label[contains(., 'Command line')]/input").send_keys(command)
    if header:
        dialog.find_element(By.XPATH, ".//button[text()='Add header']").click()
        dialog.find_element(By.CSS_SELECTOR, "input[aria-label='Header name']").send_keys(header[0])
        dialog.find_element(By.CSS_SELECTOR, "input[aria-label='Header value']").send_keys(header[1])
    for field, ms in (graces or {}).items():
        dialog.find_element(By.XPATH, f".//label[contains(., '{field}')]/input").send_keys(ms)
    if restart:
        dialog.find_element(By.XPATH, ".//label[contains(., 'Restart when it exits')]/input").click()
    if trace:
        dialog.find_element(By.XPATH, ".//label[contains(., 'Start a trace for each request')]/input").click()
    if host:
        connect_as = dialog.find_element(By.XPATH, ".//label[contains(., 'Connect as')]/select")
        wait.until(lambda d: connect_as.is_enabled())
        connect_as.find_element(By.XPATH, f"./option[starts-with(normalize-space(.), '{host} (')]").click()
    dialog.find_element(By.XPATH, ".//button[text()='Save']").click()
    wait.until(lambda d: saved(name))


def connect_and_echo(name, text):
    """Connects a saved server-everything (2025-11-25) and calls echo with `text`."""
    connect(name)
    badge = wait.until(lambda d: d.find_element(By.XPATH, f"//li[.//span[text()='{name}']]//span[contains(@class,'era')]"))
    assert badge.text == "2025-11-25", badge.text
    call_tool("echo", [text], f"Echo: {text}", by="code")


def everything():
    return os.path.join(os.environ["SONDE_PEERS"], "npm/node_modules/.bin/mcp-server-everything")


def settle():
    """Back to a window a check can start from: loaded, no confirm box, no dialog, the wire log
    shown and unfiltered."""
    wait.until(lambda d: d.title == "Sonde")
    try:
        driver.switch_to.alert.dismiss()
    except WebDriverException:  # no alert open: the usual case
        pass
    for cancel in driver.find_elements(By.XPATH, "//div[@class='dialog-backdrop']//button[text()='Cancel']"):
        cancel.click()
    for back in driver.find_elements(By.XPATH, "//button[text()='Back to the live session']"):
        back.click()
    wait.until(lambda d: d.find_element(By.XPATH, "//button[@role='tab'][text()='Wire log']")).click()
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "input[aria-label='Filter the log']"))
    set_filter("")


checks = []


def check(fn):
    checks.append(fn)
    return fn


@check
def demo_server_connects():
    """launch and connect the demo server; its process runs, from the small sonde binary beside the app"""
    wait.until(lambda d: d.title == "Sonde")
    pid = ensure_connected("Demo server")
    assert alive(pid), f"demo server pid {pid} is not running"
    # Not the GTK-linked app: the CLI installed beside it (make desktop copies it there too).
    exe = os.readlink(f"/proc/{pid}/exe")
    assert exe == os.path.join(os.path.dirname(app), "sonde"), exe


@check
def tool_call_shows_result_and_verdict():
    """call a tool: its result and the outputSchema verdict are shown"""
    ensure_connected("Demo server")
    call_tool("Add", ["2", "40"], "2 + 40 = 42")
    wait.until(lambda d: d.find_element(By.XPATH, xpath_text("matches the outputSchema")))
    shot("tool-result")


@check
def request_jumps_to_its_response():
    """the request and its response are in the wire log, one a click from the other"""
    ensure_connected("Demo server")
    ensure_call()
    sent = "//div[@role='row'][.//span[starts-with(text(),'tools/call ') and contains(text(),'#')]][.//span[@class='c-dir' and text()='>']]"
    wait.until(lambda d: d.find_element(By.XPATH, sent)).click()
    wait.until(lambda d: d.find_element(By.XPATH, "//button[text()='Jump to response']")).click()
    wait.until(lambda d: d.find_element(By.XPATH, "//button[text()='Jump to request']"))
    assert "42" in driver.find_element(By.CSS_SELECTOR, ".detail").text
    shot("log-selected")


@check
def elicitation_is_answered_in_the_window():
    """the demo's elicitation is answered in the window (input_required round), defaults filled"""
    ensure_connected("Demo server")
    wait.until(lambda d: d.find_element(By.XPATH, "//button[contains(@class,'tool')][.//strong[text()='Greet']]")).click()
    wait.until(lambda d: d.find_element(By.XPATH, "//button[text()='Call']")).click()
    dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='dialog'][aria-label='Server request']"))
    assert "Who is calling?" in dialog.text, dialog.text
    name = dialog.find_element(By.CSS_SELECTOR, "input[name='name']")
    assert name.get_attribute("value") == "Ada", name.get_attribute("value")
    name.send_keys(Keys.CONTROL, "a")
    name.send_keys(Keys.BACKSPACE)
    name.send_keys("Grace")
    shot("elicitation")
    dialog.find_element(By.XPATH, ".//button[text()='Accept']").click()
    wait.until(lambda d: d.find_element(By.XPATH, xpath_text("Hello, Grace!")))


@check
def stderr_tab_shows_the_server_output():
    """the stderr tab shows the server's output, and the wire log is whole on return"""
    ensure_connected("Demo server")
    ensure_call()
    driver.find_element(By.XPATH, "//button[@role='tab'][text()='stderr']").click()
    try:
        wait.until(lambda d: d.find_element(By.XPATH, xpath_text("ready on stdio")))
        assert not driver.find_elements(By.XPATH, xpath_text("This server has written nothing on stderr yet."))
        shot("stderr")
    finally:
        driver.find_element(By.XPATH, "//button[@role='tab'][text()='Wire log']").click()
    # Back on the log, everything recorded so far is still there.
    wait.until(lambda d: d.find_element(By.XPATH, "//div[@role='row'][.//span[starts-with(text(),'tools/call ') and contains(text(),'#')]]"))


@check
def a_silent_server_s_stderr_tab_says_so():
    """the stderr tab of a server that has written nothing there says so instead of a blank"""
    if not saved("Silent"):
        add_server("Silent", command=f"{os.environ['SONDE_FIXTURE']} --tools 1")
    ensure_connected("Silent")
    driver.find_element(By.XPATH, "//button[@role='tab'][text()='stderr']").click()
    try:
        wait.until(lambda d: d.find_element(By.XPATH, "//*[@role='status'][text()='This server has written nothing on stderr yet.']"))
    finally:
        driver.find_element(By.XPATH, "//button[@role='tab'][text()='Wire log']").click()


@check
def stop_ends_the_server_process():
    """Stop ends the demo server: exit code 0, and its process is gone"""
    pid = ensure_connected("Demo server")
    driver.find_element(By.XPATH, "//ul[@class='connections']/li[@class='selected']//button[text()='Stop']").click()
    wait.until(lambda d: d.find_element(By.XPATH, xpath_text("exited with code 0")))
    shot("stopped")
    assert wait_gone(pid, 5), f"pid {pid} outlived Stop"


@check
def server_everything_over_stdio():
    """add server-everything through the dialog, connect (2025-11-25), call echo"""
    # A real third-party server, added through the dialog as a new user would.
    if not saved("Everything"):
        add_server("Everything", command=f"{everything()} stdio")
    connect_and_echo("Everything", "hi from the window")
    shot("everything")


@check
def server_everything_over_http():
    """add server-everything over HTTP by URL with a secret header, call echo, read the headers"""
    # The same server over Streamable HTTP, added by URL (a saved one from an earlier run
    # would point at another port, so this one is always new).
    port = free_port()
    http_server = subprocess.Popen([everything(), "streamableHttp"], env={**os.environ, "PORT": str(port)},
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_listening(port)
        add_server("Everything HTTP", url=f"http://127.0.0.1:{port}/mcp", header=("Authorization", "Bearer never-recorded"))
        connect_and_echo("Everything HTTP", "hi over http")
        # The POST of the call, selected: its headers are shown, the credential redacted.
        set_filter("method:tools/call dir:out kind:message")
        rows = wait.until(lambda d: d.find_elements(By.XPATH, "//div[@role='row'][.//span[starts-with(text(),'tools/call ') and contains(text(),'#')]]")[1:])
        rows[-1].click()
        headers = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[aria-label='HTTP'] table.headers"))
        assert "[redacted]" in headers.text and "never-recorded" not in headers.text, headers.text
        assert "mcp-session-id" in headers.text.lower(), headers.text
        shot("http-headers")
    finally:
        os.killpg(http_server.pid, 9)
        http_server.wait()


@check
def stop_runs_the_ladder_on_a_stubborn_server():
    """Stop on a stubborn server shows stdin → SIGTERM → SIGKILL as it happens"""
    # A server that ignores EOF and SIGTERM: Stop shows each step of the ladder as it happens.
    if not saved("Stubborn"):
        add_server("Stubborn", command=f"{os.environ['SONDE_FIXTURE']} --stay-on-eof --ignore-sigterm --grandchild",
                   graces={"stdin grace": "1500", "SIGTERM grace": "1500"})
    connect("Stubborn")
    stubborn = newest_pid("Stubborn")
    set_filter("kind:lifecycle")
    driver.find_element(By.XPATH, "//li[.//span[text()='Stubborn']]//button[text()='Stop']").click()
    wait.until(lambda d: d.find_element(By.XPATH, "//li[.//span[text()='Stubborn']]//div[@data-status='stopping']"))
    wait.until(lambda d: d.find_element(By.XPATH, "//div[@role='row'][.//span[contains(text(),'sent SIGTERM to process group')]]"))
    shot("stopping")
    wait.until(lambda d: d.find_element(By.XPATH, "//li[.//span[text()='Stubborn']]//div[contains(., 'killed by SIGKILL')]"))
    assert not alive(stubborn), f"pid {stubborn} outlived the ladder"


@check
def follow_mode_keeps_the_newest_entry_in_view():
    """follow mode keeps the newest entry in view while a call streams progress"""
    # Turned on, follow mode keeps the newest entry in view as a slow call streams progress
    # notifications into the log.
    follow = driver.find_element(By.CSS_SELECTOR, ".follow input")
    if not follow.is_selected():
        follow.click()
    ensure_connected("Demo server")
    call_tool("Slow task", ["1", "25"], "done after 1 s in 25 steps")
    at_bottom = "const el = document.querySelector('.rows'); return el.scrollHeight - el.scrollTop - el.clientHeight < 30;"
    WebDriverWait(driver, 5).until(lambda d: d.execute_script(at_bottom))
    last = driver.execute_script("const rows = [...document.querySelectorAll('.rows .row')]; return rows.map(r => r.textContent).join('|');")
    assert "tools/call" in last.split("|")[-1] or "result" in last.split("|")[-1], last.split("|")[-3:]
    assert follow.is_selected(), "follow mode switched itself off"
    shot("follow")


def card(name, status):
    """The XPath of the newest card of saved server `name` in state `status`."""
    return f"(//ul[@class='connections']/li[.//span[@class='name'][text()='{name}']])[last()]//div[@data-status='{status}']"


@check
def a_killed_server_leaves_ready_within_a_second_and_restarts():
    """a server killed from outside leaves "ready" within a second; Restart brings a new one"""
    pid = ensure_connected("Demo server")
    os.kill(pid, 9)
    killed = time.monotonic()
    exited = WebDriverWait(driver, 1, poll_frequency=0.02, ignored_exceptions=[StaleElementReferenceException]).until(
        lambda d: d.find_element(By.XPATH, card("Demo server", "exited")))
    print(f"     the card left ready {1000 * (time.monotonic() - killed):.0f} ms after the kill")
    assert "server killed by SIGKILL" in exited.text, exited.text
    shot("killed")
    driver.find_element(By.XPATH, "(//ul[@class='connections']/li[.//span[text()='Demo server']])[last()]//button[text()='Restart']").click()
    again = wait.until(lambda d: pid_of(d.find_element(By.XPATH, card("Demo server", "ready"))))
    assert again != pid and alive(again), (pid, again)
    set_filter("kind:lifecycle replaces")
    wait.until(lambda d: d.find_element(By.XPATH, "//div[@role='row'][.//span[contains(text(),'replaces connection ')]]"))


@check
def send_again_goes_to_the_new_server_after_a_confirmation():
    """a call whose server died is sent again to the restarted server, after a confirmation"""
    if not saved("Crasher"):
        add_server("Crasher", command=f"{os.environ['SONDE_FIXTURE']} --crash-on-call")
    connect("Crasher")
    call_tool("echo", ["once"], "server exited with code 1 while tools/call was pending")
    newest = "(//ul[@class='connections']/li[.//span[text()='Crasher']])[last()]"
    wait.until(lambda d: d.find_element(By.XPATH, card("Crasher", "exited")))
    first = driver.find_element(By.XPATH, f"{newest}//span[contains(@class,'conn')]").text
    driver.find_element(By.XPATH, "(//ul[@class='connections']/li[.//span[text()='Crasher']])[last()]//button[text()='Restart']").click()
    wait.until(lambda d: d.find_element(By.XPATH, card("Crasher", "ready")))
    second = driver.find_element(By.XPATH, f"{newest}//span[contains(@class,'conn')]").text
    assert first != second, (first, second)
    wait.until(lambda d: d.find_element(By.XPATH, "//button[starts-with(text(),'Send again to connection ')]")).click()
    confirm = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='alertdialog'][aria-label='Send again?']"))
    assert confirm.text.startswith("echo may have run before its server ended"), confirm.text
    shot("send-again")
    confirm.find_element(By.XPATH, ".//button[text()='Send again']").click()
    # The fixture crashes on every call: the second one fails the same way, on the new connection.
    set_filter("method:tools/call dir:out")
    rows = lambda d: d.find_elements(By.XPATH, "//div[@role='row'][.//span[starts-with(text(),'tools/call #')][contains(concat(text(),' '),' echo ')]]")
    # Rows name their server; the connection is in the name's title ("Crasher (connection 7)").
    number = lambda text: re.search(r"(\d+)", text).group(1)
    conns = lambda d: {number(r.find_element(By.CSS_SELECTOR, ".c-conn").get_attribute("title")) for r in rows(d)}
    wait.until(lambda d: {number(first), number(second)} <= conns(d))
    # A request whose server died says so in its detail, in the core's words, and leads to the
    # note that answers it.
    crasher = [r for r in rows(driver) if r.find_element(By.CSS_SELECTOR, ".c-conn").text == "Crasher"]
    crasher[0].click()
    said = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='note'][aria-label='Never answered']"))
    assert re.match(r"tools/call \d+ was never answered: server exited with code 1\. Show the note$", said.text), said.text
    shot("never-answered")
    said.find_element(By.XPATH, ".//button[text()='Show the note']").click()
    wait.until(lambda d: d.find_element(By.XPATH, "//*[@aria-label='Entry detail']//button[text()='Jump to the request it is about']"))


@check
def a_crash_looping_server_stops_at_crash_loop():
    """a supervised server that keeps exiting is restarted with backoff and stops at crash loop"""
    if not saved("Crash loop"):
        add_server("Crash loop", command=f"{os.environ['SONDE_FIXTURE']} --exit-after-ms 300", restart=True)
    # Its first run may end before or after it opens; either way supervision takes over.
    driver.find_element(By.XPATH, "//li[.//div[text()='Crash loop']]//button[text()='Connect']").click()
    until(lambda d: d.find_element(By.XPATH, card("Crash loop", "waiting")))
    # 1 + 2 + 4 + 8 s of waits and five short runs: well within 40 s.
    looped = WebDriverWait(driver, 40, ignored_exceptions=[StaleElementReferenceException]).until(
        lambda d: d.find_element(By.XPATH, card("Crash loop", "crash_loop")))
    assert "server exited with code 3" in looped.text, looped.text
    # Its last words are in the main pane, the card being selected.
    press_on_window("ctrl+1")
    words = wait.until(lambda d: d.find_element(By.XPATH, "//div[@class='tools']//pre[@aria-label=\"The server's last words\"]"))
    assert "exiting on purpose after 300 ms" in words.text, words.text
    shot("crash-loop")
    set_filter("kind:lifecycle restart attempt")
    wait.until(lambda d: len(d.find_elements(By.XPATH, "//div[@role='row']")) >= 4)


@check
def a_failed_server_shows_its_last_words_and_adds_the_withheld_variable():
    """a server that fails for lack of a withheld variable says so in its card and, with its last words, in the main pane; one click adds it, and Restart runs it with it"""
    # XDG_CONFIG_HOME is in the app's environment (make test sets it) and not passed through.
    key = "XDG_CONFIG_HOME"
    script = f'[ -n "${key}" ] || {{ echo "Error: {key} is not set; export it first" >&2; exit 1; }}; exec {os.environ["SONDE_FIXTURE"]}'
    if not saved("Needs a key"):
        add_server("Needs a key", command=f"sh -c '{script}'")
    driver.find_element(By.XPATH, "//li[.//div[text()='Needs a key']]//button[text()='Connect']").click()
    failed = until(lambda d: d.find_element(By.XPATH, card("Needs a key", "failed")))
    assert "server exited with code 1" in failed.text, failed.text
    newest = "(//ul[@class='connections']/li[.//span[text()='Needs a key']])[last()]"
    # The card is short: its state and reason; the last words are the main pane's.
    assert not driver.find_elements(By.XPATH, f"{newest}//pre"), "the card carries the last words"
    hint = driver.find_element(By.XPATH, "//div[@class='tools']//div[@role='note']")
    assert f"It names {key}, set in Sonde's environment but not passed." in hint.text, hint.text
    assert os.environ[key] not in driver.page_source, "a variable's value is on screen"
    # The connection just started is selected, and its failure is in the main pane too, with the
    # server's last words; its card is above the saved servers, in view.
    assert "selected" in driver.find_element(By.XPATH, newest).get_attribute("class")
    main = wait.until(lambda d: d.find_element(By.XPATH, "//div[@class='tools']//p[@role='status'][starts-with(., 'Connection ')]"))
    assert "is not ready: failed" in main.text and "server exited with code 1" in main.text, main.text
    said = driver.find_element(By.XPATH, "//div[@class='tools']//pre[@aria-label=\"The server's last words\"]")
    assert said.text == f"Error: {key} is not set; export it first", said.text
    sidebar = driver.find_element(By.CSS_SELECTOR, "aside.sidebar")
    assert sidebar.text.index("CONNECTIONS") < sidebar.text.index("SERVERS"), sidebar.text[:200]
    shot("last-words-card")
    driver.find_element(By.XPATH, f"//div[@class='tools']//button[normalize-space(.)='Add {key} from my environment']").click()
    wait.until(lambda d: d.find_element(By.XPATH, xpath_text(f"Added {key} from your environment")))
    assert os.environ[key] not in driver.page_source, "a variable's value is on screen"
    # Restart on the failed card runs the server as it is saved now, with the variable: its launch
    # changed, so Sonde asks first (answered by `until`), and the same card becomes ready.
    cards = len(driver.find_elements(By.XPATH, "//ul[@class='connections']/li[.//span[text()='Needs a key']]"))
    driver.find_element(By.XPATH, f"{newest}//button[text()='Restart']").click()
    until(lambda d: d.find_elements(By.XPATH, ready_status("Needs a key")))
    after = len(driver.find_elements(By.XPATH, "//ul[@class='connections']/li[.//span[text()='Needs a key']]"))
    assert after == cards, f"Restart made a new card: {cards} then {after}"
    shot("restart-after-environment-fix")


def press_on_window(keys):
    """Keys pressed on the Sonde window through X, as a person presses them (menu accelerators
    included)."""
    # Only a mapped window: WebKitGTK and earlier checks may leave unmapped windows of that name,
    # and keys sent there never reach the page.
    window = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", "^Sonde$"], capture_output=True,
                            text=True, check=True)
    subprocess.run(["xdotool", "windowfocus", "--sync", window.stdout.split()[0], "key", "--clearmodifiers", keys],
                   check=True)


def press_enter(element):
    """Enter pressed in `element` (clicked first when it has not the focus) on the real window
    through X, as a person presses it. WebKitWebDriver's own Enter in a form field, late in a
    full run, waited forever for the page to take the key and then crashed, failing every check
    after it."""
    focused = "return document.activeElement === arguments[0]"
    if not driver.execute_script(focused, element):
        element.click()
    assert driver.execute_script(focused, element), "not focused"
    press_on_window("Return")


def choose_theme(label):
    """File → Settings (Ctrl+,), the theme `label` (Light, Dark, System) chosen and saved."""
    press_on_window("ctrl+comma")
    settings = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='dialog'][aria-label='Settings']"))
    radio = wait.until(lambda d: settings.find_element(By.XPATH, f".//label[starts-with(., '{label}')]/input"))
    radio.click()
    # Saved once the choice shows, as a person sees it chosen before pressing Save.
    wait.until(lambda d: radio.is_selected())
    settings.find_element(By.XPATH, ".//button[text()='Save']").click()
    wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "[role='dialog'][aria-label='Settings']"))


@check
def deleting_a_server_asks_first():
    """deleting a saved server asks for confirmation first"""
    # A WebKitGTK confirm dialog, then it is gone. (If the HTTP check could not save its server,
    # one is saved here: the URL need not answer to be deleted.)
    if not saved("Everything HTTP"):
        add_server("Everything HTTP", url=f"http://127.0.0.1:{free_port()}/mcp")
    driver.find_element(By.XPATH, "//li[.//div[text()='Everything HTTP']]//button[text()='Delete']").click()
    alert = wait.until(lambda d: d.switch_to.alert)
    assert "Everything HTTP" in alert.text, alert.text
    alert.accept()
    wait.until(lambda d: not saved("Everything HTTP"))


@check
def a_hostile_server_leaves_the_window_usable():
    """a hostile server (malformed tools, 1 MiB of invalid UTF-8, 100 questions at once): the window stays usable"""
    if not saved("Hostile"):
        knobs = "--malformed-tools --invalid-utf8-mib 1 --ask-many 100"
        add_server("Hostile", command=f"{os.environ['SONDE_FIXTURE']} {knobs}")
    connect("Hostile")
    pid = newest_pid("Hostile")
    # Every malformed tool is listed, each with what is wrong with it in words.
    listed = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[aria-label='Problems with object_title']"))
    assert "title is an object, not a string" in listed.text, listed.text
    tools = driver.find_element(By.CSS_SELECTOR, ".tool-list").text
    for said in ("icons is an object, not an array", "inputSchema.required is a number, not a list of property names"):
        assert said in tools, tools
    def into_view(tool):
        """The list is taller than its panel with the problems shown: scroll `tool` into view."""
        button = driver.find_element(By.XPATH, f"//button[contains(@class,'tool')][.//strong[text()='{tool}']]")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)

    # A schema with `required: 5` still gives a form; a result whose content is no array says so.
    call_tool("numeric_required", ["typed into the form"], "numeric_required was called")
    call_tool("content_not_array", [], "The result is malformed")
    problems = driver.find_element(By.CSS_SELECTOR, "[aria-label='Problems with the result']").text
    assert "content is an object, not an array" in problems, problems
    shot("hostile-tools")

    # The frame of 1 MiB of invalid UTF-8: selecting it shows its entry within a deadline.
    set_filter("method:notifications/message")
    # Other servers send log messages too (server-everything logs each roots change): the row
    # wanted is the 1 MiB one.
    row = wait.until(lambda d: d.find_element(
        By.XPATH, "//div[@role='row'][.//span[contains(text(),'notifications/message')]][.//span[contains(text(),'MiB')]]"))
    started = time.monotonic()
    row.click()
    WebDriverWait(driver, 20).until(lambda d: "not UTF-8" in d.find_element(By.CSS_SELECTOR, ".detail").text)
    print(f"     the 1 MiB entry was shown {time.monotonic() - started:.1f} s after the click")
    detail = driver.find_element(By.CSS_SELECTOR, ".detail").text
    assert "The first 64.0 KiB of 1.0 MiB" in detail, detail[:300]
    # The window was sent a preview (the core cuts every entry it streams or pages at 64 KiB);
    # Show all reads the entry whole from the core: every one of its bytes, each 0xFF as \xff.
    raw = "return document.querySelector('.detail pre.raw').textContent"
    assert len(driver.execute_script(raw)) < 300_000
    driver.find_element(By.XPATH, "//div[contains(@class,'detail')]//button[normalize-space(.)='Show all 1.0 MiB']").click()
    WebDriverWait(driver, 20).until(lambda d: d.execute_script(raw).count("\\xff") == 1024 * 1024)
    assert not driver.find_elements(By.XPATH, "//div[contains(@class,'detail')]//*[@role='note']")
    set_filter("")

    # A hundred questions at once: eight wait, the rest are declined and counted, and the panel
    # leaves Stop uncovered. Decline all answers the eight.
    def ask_many():
        into_view("ask_many")
        driver.find_element(By.XPATH, "//button[contains(@class,'tool')][.//strong[text()='ask_many']]").click()
        wait.until(lambda d: d.find_element(By.XPATH, "//button[text()='Call']")).click()
        return wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='dialog'][aria-label='Server request']"))

    panel = ask_many()
    waiting = "[aria-label='Questions waiting']"
    wait.until(lambda d: panel.find_element(By.CSS_SELECTOR, waiting).text == "1 of 8 waiting from this server")
    declined = "[aria-label='Questions declined at once']"
    wait.until(lambda d: panel.find_element(By.CSS_SELECTOR, declined).text.startswith("92 questions from this server"))
    stop = "//ul[@class='connections']/li[.//span[text()='Hostile']][.//div[@data-status='ready']]//button[text()='Stop']"
    uncovered = """const el = arguments[0], r = el.getBoundingClientRect();
        return el.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2));"""
    # The sidebar may have scrolled it out of view (earlier checks leave cards): scroll to it as a
    # person would, then nothing may lie over it.
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", driver.find_element(By.XPATH, stop))
    assert driver.execute_script(uncovered, driver.find_element(By.XPATH, stop)), "the questions cover Stop"
    shot("hostile-questions")
    panel.find_element(By.XPATH, ".//button[text()='Decline all from this server']").click()
    wait.until(lambda d: d.find_element(By.XPATH, xpath_text("asked 100 questions: 8 declined; 92 refused")))
    assert not driver.find_elements(By.CSS_SELECTOR, "[role='dialog'][aria-label='Server request']")
    set_filter("kind:note declined elicitation/create at once")
    wait.until(lambda d: d.find_element(By.XPATH, xpath_text("92 of ")))
    set_filter("")

    # Asked again, then stopped with the questions open: Stop works and takes them away.
    ask_many()
    driver.find_element(By.XPATH, stop).click()
    wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "[role='dialog'][aria-label='Server request']"))
    wait.until(lambda d: d.find_element(By.XPATH, "//li[.//span[text()='Hostile']]//div[@data-status='exited']"))
    assert wait_gone(pid, 5), f"pid {pid} outlived Stop"



@check
def ten_thousand_tools_are_counted_filtered_and_walked_from_the_keyboard():
    """a server with 10,000 tools (the cap): all counted, a screenful drawn, the last found by the filter and chosen with Enter, the arrows and End walk the list"""
    if not saved("Ten thousand tools"):
        add_server("Ten thousand tools", command=f"{os.environ['SONDE_FIXTURE']} --tools 10000")
    connect("Ten thousand tools")
    press_on_window("ctrl+1")
    shown = "[aria-label='Tools shown']"
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, shown).text == "10000 tools")
    drawn = driver.find_elements(By.CSS_SELECTOR, ".tool-scroll li[data-index]")
    assert 0 < len(drawn) < 100, f"{len(drawn)} rows drawn for 10,000 tools"
    box = driver.find_element(By.CSS_SELECTOR, "input[aria-label='Filter tools']")
    box.click()
    box.send_keys("filler_10000")
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, shown).text == "1 of 10000 tools")
    box.send_keys(Keys.ENTER)
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, ".tool-call h2").text == "filler_10000")
    shot("tools-filtered")
    # Escape gives the whole list back; the arrows go from the filter into it, End to its last.
    box.send_keys(Keys.ESCAPE)
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, shown).text == "10000 tools")
    box.send_keys(Keys.ARROW_DOWN)
    focused = lambda d: d.execute_script("const b = document.activeElement; return b.matches('button.tool') && b.querySelector('strong').textContent")
    wait.until(lambda d: focused(d) == "echo")
    driver.switch_to.active_element.send_keys(Keys.ARROW_DOWN)
    wait.until(lambda d: focused(d) == "filler_2")
    driver.switch_to.active_element.send_keys(Keys.END)
    wait.until(lambda d: focused(d) == "filler_10000")
    driver.switch_to.active_element.send_keys(Keys.HOME)
    wait.until(lambda d: focused(d) == "echo")
    driver.switch_to.active_element.send_keys(Keys.ARROW_UP)
    wait.until(lambda d: d.execute_script("return document.activeElement.getAttribute('aria-label')") == "Filter tools")
    stop = "//ul[@class='connections']/li[.//span[text()='Ten thousand tools']][.//div[@data-status='ready']]//button[text()='Stop']"
    driver.find_element(By.XPATH, stop).click()
    wait.until(lambda d: not d.find_elements(By.XPATH, ready_status("Ten thousand tools")))

# Past sessions, the CLI's, opened read-only (File → Open Session).
sessions.install(check, driver, wait, shot, {"press_on_window": press_on_window, "set_filter": set_filter,
                                            "choose_theme": choose_theme, "ensure_connected": ensure_connected,
                                            "call_tool": call_tool, "saved": saved, "add_server": add_server})

# Room to work: the splitter, a folded question, the era select, every panel in both themes
# (issue 31).
layout.install(check, driver, wait, shot, {
    "ensure_connected": ensure_connected, "press_on_window": press_on_window, "xpath_text": xpath_text,
    "choose_theme": choose_theme, "subprocess": subprocess,
})

# Servers a new user brings: server-filesystem, mcp-server-time, a slow starter (issue 31's walk).
walk.install(check, driver, wait, shot, {
    "saved": saved, "add_server": add_server, "ensure_connected": ensure_connected,
    "press_on_window": press_on_window, "call_tool": call_tool, "until": until,
})

# The window with two servers at once (issue 21).
window.install(check, driver, wait, shot, {
    "saved": saved, "add_server": add_server, "everything": everything, "connect": connect,
    "ensure_connected": ensure_connected, "press_on_window": press_on_window, "ready_status": ready_status,
    "call_tool": call_tool, "set_filter": set_filter,
})

# The native confirmations before new code runs, and the native save dialog (issue 13).
hardening.install(check, driver, wait, shot, {
    "subprocess": subprocess, "native_windows": native_windows, "answer_native": answer_native,
    "RUN_TITLES": RUN_TITLES, "add_server": add_server, "ready_status": ready_status, "saved": saved,
    "xpath_text": xpath_text, "ensure_connected": ensure_connected, "connect": connect, "call_tool": call_tool,
    "our_app": our_app,
})

# Protocol findings on a broken server's frames (issue 14).
diagnostics.install(check, driver, wait, shot, {
    "saved": saved, "add_server": add_server, "connect": connect, "call_tool": call_tool, "set_filter": set_filter,
    "ensure_connected": ensure_connected, "everything": everything,
})

# The server panels beyond tools, before Quit (which ends the run).
panels.install(check, driver, wait, shot, {
    "saved": saved, "add_server": add_server, "everything": everything,
    "ensure_connected": ensure_connected, "press_on_window": press_on_window, "set_filter": set_filter,
    "press_enter": press_enter,
})
forms.install(check, driver, wait, shot, {
    "saved": saved, "add_server": add_server, "everything": everything,
    "ensure_connected": ensure_connected, "set_filter": set_filter, "press_enter": press_enter,
})
extensions.install(check, driver, wait, shot, {
    "saved": saved, "add_server": add_server, "everything": everything, "ensure_connected": ensure_connected,
    "set_filter": set_filter, "call_tool": call_tool, "xpath_text": xpath_text,
})
hosts.install(check, driver, wait, shot, {
    "saved": saved, "add_server": add_server, "ensure_connected": ensure_connected,
    "press_on_window": press_on_window, "set_filter": set_filter,
})
skills.install(check, driver, wait, shot, {
    "saved": saved, "add_server": add_server, "ensure_connected": ensure_connected,
    "press_on_window": press_on_window, "set_filter": set_filter,
})
oauth.install(check, driver, wait, shot, {
    "saved": saved, "ready_status": ready_status, "call_tool": call_tool, "set_filter": set_filter,
    "free_port": free_port, "wait_listening": wait_listening, "press_on_window": press_on_window,
})
apps.install(check, driver, wait, shot, {
    "ensure_connected": ensure_connected, "press_on_window": press_on_window, "saved": saved,
    "add_server": add_server, "set_filter": set_filter, "choose_theme": choose_theme,
})
diff.install(check, driver, wait, shot, {
    "ensure_connected": ensure_connected, "press_on_window": press_on_window, "native_windows": native_windows,
    "saved": saved, "add_server": add_server, "answer_native": answer_native, "call_tool": call_tool,
})
timeline.install(check, driver, wait, shot, {
    "saved": saved, "add_server": add_server, "ensure_connected": ensure_connected,
    "press_on_window": press_on_window, "call_tool": call_tool, "set_filter": set_filter,
})
results.install(check, driver, wait, shot, {
    "saved": saved, "add_server": add_server, "everything": everything,
    "ensure_connected": ensure_connected, "press_on_window": press_on_window,
})
inner_loop.install(check, driver, wait, shot, {
    "saved": saved, "add_server": add_server, "connect": connect, "call_tool": call_tool,
    "newest_pid": newest_pid, "press_on_window": press_on_window,
})
third_pass.install(check, driver, wait, shot, {
    "saved": saved, "add_server": add_server, "ensure_connected": ensure_connected, "call_tool": call_tool,
    "set_filter": set_filter, "press_on_window": press_on_window, "until": until,
})
load.install(check, driver, wait, shot, {
    "saved": saved, "add_server": add_server, "ensure_connected": ensure_connected,
    "press_on_window": press_on_window,
})
# Checks with an app of their own, run after the shared app has quit (the last shared check).
alone = []
fulldisk.install(alone.append, shot, {
    "restart_app": restart_app, "wait": lambda: wait, "settle": settle,
    "saved": saved, "add_server": add_server, "ensure_connected": ensure_connected, "call_tool": call_tool,
    "press_on_window": press_on_window, "our_app": our_app,
})


@check
def quitting_stops_servers_first():
    """Ctrl+Q (File → Quit) stops the connected server gracefully before the app exits"""
    pid = ensure_connected("Demo server")
    assert alive(pid), f"demo server pid {pid} is not running"
    # Ctrl+Q on the window, as a person quits (File → Quit); the app must stop servers first.
    press_on_window("ctrl+q")
    assert wait_gone(pid, 10), f"pid {pid} outlived the app"
    # The app writes the last entries out as it exits, just after the server is gone: read the
    # session log until they are there (10 s at most).
    sessions = os.path.join(os.environ["XDG_DATA_HOME"], "sonde", "sessions")
    deadline = time.time() + 10
    while True:
        latest = max((os.path.join(sessions, f) for f in os.listdir(sessions) if f.endswith(".jsonl")),
                     key=os.path.getmtime)
        with open(latest) as f:
            # Entries only: from format 2 on the first line is the file's header, with no seq.
            entries = [e for e in (json.loads(line) for line in f if line.strip()) if "seq" in e]
        conn = next(e["conn"] for e in entries if (e.get("detail") or "").startswith(f"spawned pid {pid} "))
        steps = [e.get("detail") or "" for e in entries if e["conn"] == conn and e["kind"] == "lifecycle"]
        if any(d.startswith("closed stdin") for d in steps) or time.time() > deadline:
            break
        time.sleep(0.1)
    assert any(d.startswith("closed stdin") for d in steps), f"no graceful shutdown of connection {conn}: {steps}"
    assert not any("SIGKILL" in d for d in steps), steps


def attempt(fn):
    """Runs one check from a settled window: None when it passed, else what failed, in words."""
    try:
        if fn not in alone:
            settle()
        fn()
        return None
    except Exception as e:  # noqa: BLE001 - any failure is this check's
        limit = None if os.environ.get("SONDE_TRACE") else -2
        # Where in the checks it failed: the innermost frame in this folder's files.
        here = os.path.dirname(os.path.abspath(__file__))
        ours = [f for f in traceback.extract_tb(e.__traceback__) if os.path.dirname(os.path.abspath(f.filename)) == here]
        where = f"at {os.path.basename(ours[-1].filename)}:{ours[-1].lineno}" if ours else ""
        return f"{type(e).__name__}: {e}".rstrip() + f"\n{where}\n" + traceback.format_exc(limit=limit)


def run(fn):
    """Runs one check; reports it; True when it passed. A check whose driver died under a live
    app (WebKitWebDriver crashing is not the app failing) runs once more on a new app, and the
    report says so with what the driver and the kernel said; one whose app died fails."""
    name = fn.__doc__.strip()
    if fn not in alone and not session_alive():
        print("     the WebDriver session was gone before this check; the app is started again")
        restart_app()
    failure = attempt(fn)
    if failure and fn not in alone and not session_alive():
        said = why_the_session_died()
        app_lived = bool(our_apps())
        print(f"     the WebDriver session died in this check, {'the app still running' if app_lived else 'with the app'}:")
        # What failed, and where in the checks.
        for line in said + failure.splitlines()[:2]:
            print(f"     {line}")
        restart_app()
        if app_lived:
            print("     the check runs once more, on a new app")
            failure = attempt(fn)
    if failure:
        print(f"FAIL {name}: {failure}")
        try:
            shot(f"failure-{fn.__name__}")
        except Exception:  # noqa: BLE001 - the window may be gone
            pass
        return False
    print(f"ok   {name}")
    return True


chosen = [fn for fn in checks + alone if not sys.argv[2:] or any(name in fn.__name__ for name in sys.argv[2:])]
try:
    results = [run(fn) for fn in chosen]
finally:
    quit_app()
passed = sum(results)
failed = len(results) - passed
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
