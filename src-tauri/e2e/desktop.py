"""The real Sonde window, driven through tauri-driver and WebKitWebDriver under Xvfb.

Launch, connect the demo server, call a tool, see the request and its response in the wire
log, stop the server and check that its process is gone. Screenshots go to $SONDE_SHOTS.

usage: desktop.py APP_BINARY     (make test runs it through xvfb-run with tauri-driver up)
"""
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.common.by import By
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


def xpath_text(text):
    return f"//*[contains(normalize-space(.), '{text}')]"


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    except FileNotFoundError:
        return False


try:
    wait = WebDriverWait(driver, 30)
    wait.until(lambda d: d.title == "Sonde")
    connect = wait.until(lambda d: d.find_element(By.XPATH, "//li[.//div[text()='Demo server']]//button[text()='Connect']"))
    connect.click()
    status = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, ".connections .status[data-status='ready']"))
    pid = int(status.text.split("pid")[1].split()[0])
    assert alive(pid), f"demo server pid {pid} is not running"
    wait.until(lambda d: d.find_element(By.XPATH, "//button[contains(@class,'tool')][.//strong[text()='Add']]")).click()
    inputs = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".tool-call input"))
    inputs[0].send_keys("2")
    inputs[1].send_keys("40")
    driver.find_element(By.XPATH, "//button[text()='Call']").click()
    wait.until(lambda d: d.find_element(By.XPATH, xpath_text("2 + 40 = 42")))
    wait.until(lambda d: d.find_element(By.XPATH, xpath_text("matches the outputSchema")))
    shot("tool-result")
    # The request and its response are in the wire log.
    row = wait.until(lambda d: d.find_element(By.XPATH, "//div[@role='row'][.//span[contains(text(),'tools/call #')]][.//span[@class='c-dir' and text()='>']]"))
    row.click()
    wait.until(lambda d: d.find_element(By.XPATH, "//button[text()='Jump to response']")).click()
    wait.until(lambda d: d.find_element(By.XPATH, "//button[text()='Jump to request']"))
    assert "42" in driver.find_element(By.CSS_SELECTOR, ".detail").text
    shot("log-selected")
    driver.find_element(By.XPATH, "//button[@role='tab'][text()='stderr']").click()
    wait.until(lambda d: d.find_element(By.XPATH, xpath_text("ready on stdio")))
    shot("stderr")
    driver.find_element(By.XPATH, "//button[@role='tab'][text()='Wire log']").click()
    # Back on the log, everything recorded so far is still there.
    wait.until(lambda d: d.find_element(By.XPATH, "//div[@role='row'][.//span[contains(text(),'tools/call #')]]"))
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
    fields = dialog.find_elements(By.CSS_SELECTOR, "input")
    fields[0].send_keys("Everything")
    fields[1].send_keys(f"{everything} stdio")
    dialog.find_element(By.XPATH, ".//button[text()='Save']").click()
    wait.until(lambda d: d.find_element(By.XPATH, "//li[.//div[text()='Everything']]//button[text()='Connect']")).click()
    badge = wait.until(lambda d: d.find_element(By.XPATH, "//li[.//span[text()='Everything']]//span[contains(@class,'era')]"))
    assert badge.text == "2025-11-25", badge.text
    wait.until(lambda d: d.find_element(By.XPATH, "//button[contains(@class,'tool')][.//code[text()='echo']]")).click()
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, ".tool-call input")).send_keys("hi from the window")
    driver.find_element(By.XPATH, "//button[text()='Call']").click()
    wait.until(lambda d: d.find_element(By.XPATH, xpath_text("Echo: hi from the window")))
    shot("everything")
    passed += 1
    print("ok   add server-everything through the dialog, connect (2025-11-25), call echo")
except Exception as e:  # noqa: BLE001 - report any failure with a screenshot
    failed += 1
    shot("failure")
    print(f"FAIL desktop: {e!r}")
finally:
    driver.quit()
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
