"""The real Sonde window, driven through tauri-driver and WebKitWebDriver under Xvfb.

Launch, connect the demo server, call a tool, see the request and its response in the wire
log, stop the server and check that its process is gone. Screenshots go to $SONDE_SHOTS.

usage: desktop.py APP_BINARY     (make test runs it through xvfb-run with tauri-driver up)
"""
import json
import os
import socket
import subprocess
import sys
import time
import traceback

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.common.options import ArgOptions
from selenium.webdriver.support.ui import WebDriverWait

app = os.path.abspath(sys.argv[1])
shots = os.environ.get("SONDE_SHOTS", "")
opts = ArgOptions()
opts.set_capability("browserName", "wry")
opts.set_capability("tauri:options", {"application": app})
driver = webdriver.Remote(command_executor="http://127.0.0.1:4444", options=opts)
passed = failed = 0


def shot(name):
    if shots:
        driver.save_screenshot(os.path.join(shots, f"{name}.png"))


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


def set_filter(text):
    """Replaces the log filter as a person would. (WebDriver's clear() does not always reach
    React's onChange in WebKitGTK, and the next keys would then be appended.)"""
    box = driver.find_element(By.CSS_SELECTOR, "input[aria-label='Filter the log']")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.BACKSPACE)
    if text:
        box.send_keys(text)
    wait.until(lambda d: box.get_attribute("value") == text)


def call_tool(tool, values, expect, by="strong"):
    """Picks a tool by its title (or `by="code"`: its name), fills its form fields in order,
    calls it and waits for `expect` in the result."""
    wait.until(lambda d: d.find_element(By.XPATH, f"//button[contains(@class,'tool')][.//{by}[text()='{tool}']]")).click()
    inputs = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".tool-call input"))
    for field, value in zip(inputs, values):
        field.send_keys(value)
    driver.find_element(By.XPATH, "//button[text()='Call']").click()
    wait.until(lambda d: d.find_element(By.XPATH, xpath_text(expect)))


def connect_and_echo(name, text):
    """Connects a saved server-everything (2025-11-25) and calls echo with `text`."""
    wait.until(lambda d: d.find_element(By.XPATH, f"//li[.//div[text()='{name}']]//button[text()='Connect']")).click()
    badge = wait.until(lambda d: d.find_element(By.XPATH, f"//li[.//span[text()='{name}']]//span[contains(@class,'era')]"))
    assert badge.text == "2025-11-25", badge.text
    call_tool("echo", [text], f"Echo: {text}", by="code")


# React re-renders replace elements under a running query; WebKitWebDriver then reports them
# stale, which only means "look again".
wait = WebDriverWait(driver, 30, ignored_exceptions=[StaleElementReferenceException])
try:
    wait.until(lambda d: d.title == "Sonde")
    connect = wait.until(lambda d: d.find_element(By.XPATH, "//li[.//div[text()='Demo server']]//button[text()='Connect']"))
    connect.click()
    status = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, ".connections .status[data-status='ready']"))
    pid = int(status.text.split("pid")[1].split()[0])
    assert alive(pid), f"demo server pid {pid} is not running"
    call_tool("Add", ["2", "40"], "2 + 40 = 42")
    wait.until(lambda d: d.find_element(By.XPATH, xpath_text("matches the outputSchema")))
    shot("tool-result")
    # The request and its response are in the wire log.
    row = wait.until(lambda d: d.find_element(By.XPATH, "//div[@role='row'][.//span[contains(text(),'tools/call #')]][.//span[@class='c-dir' and text()='>']]"))
    row.click()
    wait.until(lambda d: d.find_element(By.XPATH, "//button[text()='Jump to response']")).click()
    wait.until(lambda d: d.find_element(By.XPATH, "//button[text()='Jump to request']"))
    assert "42" in driver.find_element(By.CSS_SELECTOR, ".detail").text
    shot("log-selected")
    # The demo's greet asks who is calling: a form from the elicitation's schema, defaults filled.
    driver.find_element(By.XPATH, "//button[contains(@class,'tool')][.//strong[text()='Greet']]").click()
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
    driver.find_element(By.XPATH, "//button[@role='tab'][text()='stderr']").click()
    wait.until(lambda d: d.find_element(By.XPATH, xpath_text("ready on stdio")))
    shot("stderr")
    driver.find_element(By.XPATH, "//button[@role='tab'][text()='Wire log']").click()
    # Back on the log, everything recorded so far is still there.
    wait.until(lambda d: d.find_element(By.XPATH, "//div[@role='row'][.//span[contains(text(),'tools/call #')]]"))
    print("ok   the demo's elicitation is answered in the window (input_required round)")
    driver.find_element(By.XPATH, "//button[text()='Stop']").click()
    wait.until(lambda d: d.find_element(By.XPATH, xpath_text("exited with code 0")))
    shot("stopped")
    deadline = time.time() + 5
    while alive(pid) and time.time() < deadline:
        time.sleep(0.05)
    assert not alive(pid), f"pid {pid} outlived Stop"
    passed += 1
    print("ok   launch, connect, call, log, stderr, stop")

    # A real third-party server, added through the dialog as a new user would.
    everything = os.path.join(os.environ["SONDE_PEERS"], "npm/node_modules/.bin/mcp-server-everything")
    driver.find_element(By.CSS_SELECTOR, "button[aria-label='Add a server']").click()
    dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "form.dialog"))
    dialog.find_element(By.XPATH, ".//label[contains(., 'Name')]/input").send_keys("Everything")
    dialog.find_element(By.XPATH, ".//label[contains(., 'Command line')]/input").send_keys(f"{everything} stdio")
    dialog.find_element(By.XPATH, ".//button[text()='Save']").click()
    connect_and_echo("Everything", "hi from the window")
    shot("everything")
    passed += 1
    print("ok   add server-everything through the dialog, connect (2025-11-25), call echo")

    # The same server over Streamable HTTP, added by URL.
    port = free_port()
    http_server = subprocess.Popen([everything, "streamableHttp"], env={**os.environ, "PORT": str(port)},
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_listening(port)
        driver.find_element(By.CSS_SELECTOR, "button[aria-label='Add a server']").click()
        dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "form.dialog"))
        dialog.find_element(By.XPATH, ".//label[contains(., 'Name')]/input").send_keys("Everything HTTP")
        dialog.find_element(By.XPATH, ".//label[contains(., 'URL (HTTP)')]/input").click()
        dialog.find_element(By.XPATH, ".//label[contains(., 'URL')]/input[@class='mono']").send_keys(f"http://127.0.0.1:{port}/mcp")
        dialog.find_element(By.XPATH, ".//button[text()='Add header']").click()
        dialog.find_element(By.CSS_SELECTOR, "input[aria-label='Header name']").send_keys("Authorization")
        dialog.find_element(By.CSS_SELECTOR, "input[aria-label='Header value']").send_keys("Bearer never-recorded")
        dialog.find_element(By.XPATH, ".//button[text()='Save']").click()
        connect_and_echo("Everything HTTP", "hi over http")
        # The POST of the call, selected: its headers are shown, the credential redacted.
        set_filter("method:tools/call dir:out kind:message")
        rows = wait.until(lambda d: d.find_elements(By.XPATH, "//div[@role='row'][.//span[contains(text(),'tools/call #')]]")[1:])
        rows[-1].click()
        headers = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[aria-label='HTTP'] table.headers"))
        assert "[redacted]" in headers.text and "never-recorded" not in headers.text, headers.text
        assert "mcp-session-id" in headers.text.lower(), headers.text
        shot("http-headers")
        passed += 1
        print("ok   add server-everything over HTTP by URL with a secret header, call echo, read the headers")
    finally:
        os.killpg(http_server.pid, 9)
        http_server.wait()

    # A server that ignores EOF and SIGTERM: Stop shows each step of the ladder as it happens.
    fixture = os.environ["SONDE_FIXTURE"]
    driver.find_element(By.CSS_SELECTOR, "button[aria-label='Add a server']").click()
    dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "form.dialog"))
    dialog.find_element(By.XPATH, ".//label[contains(., 'Name')]/input").send_keys("Stubborn")
    dialog.find_element(By.XPATH, ".//label[contains(., 'Command line')]/input").send_keys(f"{fixture} --stay-on-eof --ignore-sigterm --grandchild")
    dialog.find_element(By.XPATH, ".//label[contains(., 'stdin grace')]/input").send_keys("1500")
    dialog.find_element(By.XPATH, ".//label[contains(., 'SIGTERM grace')]/input").send_keys("1500")
    dialog.find_element(By.XPATH, ".//button[text()='Save']").click()
    wait.until(lambda d: d.find_element(By.XPATH, "//li[.//div[text()='Stubborn']]//button[text()='Connect']")).click()
    status = wait.until(lambda d: d.find_element(By.XPATH, "//li[.//span[text()='Stubborn']]//div[@data-status='ready']"))
    stubborn = int(status.text.split("pid")[1].split()[0])
    set_filter("kind:lifecycle")
    driver.find_element(By.XPATH, "//li[.//span[text()='Stubborn']]//button[text()='Stop']").click()
    wait.until(lambda d: d.find_element(By.XPATH, "//li[.//span[text()='Stubborn']]//div[@data-status='stopping']"))
    wait.until(lambda d: d.find_element(By.XPATH, "//div[@role='row'][.//span[contains(text(),'sent SIGTERM to process group')]]"))
    shot("stopping")
    wait.until(lambda d: d.find_element(By.XPATH, "//li[.//span[text()='Stubborn']]//div[contains(., 'killed by SIGKILL')]"))
    assert not alive(stubborn), f"pid {stubborn} outlived the ladder"
    passed += 1
    print("ok   Stop on a stubborn server shows stdin → SIGTERM → SIGKILL as it happens")

    # Follow mode in the real window: turned on, it keeps the newest entry in view as a slow call
    # streams progress notifications into the log.
    set_filter("")
    follow = driver.find_element(By.CSS_SELECTOR, ".follow input")
    if not follow.is_selected():
        follow.click()
    driver.find_element(By.XPATH, "//li[.//div[text()='Demo server']]//button[text()='Connect']").click()
    wait.until(lambda d: d.find_element(By.XPATH, "//li[.//span[text()='Demo server']]//div[@data-status='ready']"))
    call_tool("Slow task", ["1", "25"], "done after 1 s in 25 steps")
    at_bottom = "const el = document.querySelector('.rows'); return el.scrollHeight - el.scrollTop - el.clientHeight < 30;"
    WebDriverWait(driver, 5).until(lambda d: d.execute_script(at_bottom))
    last = driver.execute_script("const rows = [...document.querySelectorAll('.rows .row')]; return rows.map(r => r.textContent).join('|');")
    assert "tools/call" in last.split("|")[-1] or "result" in last.split("|")[-1], last.split("|")[-3:]
    assert follow.is_selected(), "follow mode switched itself off"
    shot("follow")
    passed += 1
    print("ok   follow mode keeps the newest entry in view while a call streams progress")

    # Deleting a saved server asks first (a WebKitGTK confirm dialog), then it is gone.
    driver.find_element(By.XPATH, "//li[.//div[text()='Everything HTTP']]//button[text()='Delete']").click()
    alert = wait.until(lambda d: d.switch_to.alert)
    assert "Everything HTTP" in alert.text, alert.text
    alert.accept()
    wait.until(lambda d: not d.find_elements(By.XPATH, "//li[.//div[text()='Everything HTTP']]"))
    passed += 1
    print("ok   deleting a saved server asks for confirmation first")

    # Quitting stops every server with the ladder before the app exits.
    driver.find_element(By.XPATH, "//li[.//div[text()='Demo server']]//button[text()='Connect']").click()
    status = wait.until(lambda d: d.find_element(By.XPATH, "//li[.//span[text()='Demo server']]//div[@data-status='ready']"))
    pid = int(status.text.split("pid")[1].split()[0])
    assert alive(pid), f"demo server pid {pid} is not running"
    # Ctrl+Q on the window, as a person quits (File → Quit); the app must stop servers first.
    window = subprocess.run(["xdotool", "search", "--name", "^Sonde$"], capture_output=True, text=True, check=True)
    wid = window.stdout.split()[0]
    subprocess.run(["xdotool", "windowfocus", "--sync", wid, "key", "--clearmodifiers", "ctrl+q"], check=True)
    deadline = time.time() + 10
    while alive(pid) and time.time() < deadline:
        time.sleep(0.05)
    assert not alive(pid), f"pid {pid} outlived the app"
    # The app writes the last entries out as it exits, just after the server is gone: read the
    # session log until they are there (10 s at most).
    sessions = os.path.join(os.environ["XDG_DATA_HOME"], "sonde", "sessions")
    deadline = time.time() + 10
    while True:
        latest = max((os.path.join(sessions, f) for f in os.listdir(sessions)), key=os.path.getmtime)
        with open(latest) as f:
            entries = [json.loads(line) for line in f if line.strip()]
        conn = next(e["conn"] for e in entries if (e.get("detail") or "").startswith(f"spawned pid {pid} "))
        steps = [e.get("detail") or "" for e in entries if e["conn"] == conn and e["kind"] == "lifecycle"]
        if any(d.startswith("closed stdin") for d in steps) or time.time() > deadline:
            break
        time.sleep(0.1)
    assert any(d.startswith("closed stdin") for d in steps), f"no graceful shutdown of connection {conn}: {steps}"
    assert not any("SIGKILL" in d for d in steps), steps
    passed += 1
    print("ok   Ctrl+Q (File → Quit) stops the connected server gracefully before the app exits")
except Exception as e:  # noqa: BLE001 - report any failure with a screenshot
    failed += 1
    try:
        shot("failure")
    except Exception:  # noqa: BLE001 - the window may be gone
        pass
    print(f"FAIL desktop: {e!r}")
    traceback.print_exc(limit=3)
finally:
    try:
        driver.quit()
    except Exception:  # noqa: BLE001 - the app may have exited already, as the last test asks
        pass
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
