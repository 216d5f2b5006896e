"""Desktop footprint for `make bench`: resident memory of the app and its WebKit processes,
idle with the demo server connected, then with 10 servers connected (the servers themselves are
counted apart). Prints a table and writes the figures as JSON to the path given.

usage: footprint.py APP_BINARY OUT_JSON   (run through run.sh under xvfb-run, like desktop.py)
"""
import json
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.options import ArgOptions
from selenium.webdriver.support.ui import WebDriverWait

app, out = os.path.abspath(sys.argv[1]), sys.argv[2]


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


def footprint():
    """(app + WebKit KiB, servers KiB, server count) for the app started by WebKitWebDriver."""
    table = processes()
    apps = [p for p, (_, cmd, _) in table.items() if cmd and cmd[0] == app and "demo-server" not in cmd]
    assert len(apps) == 1, apps
    root = apps[0]
    shell = servers = count = 0
    todo = [root]
    while todo:
        pid = todo.pop()
        _, cmd, rss = table[pid]
        if "demo-server" in cmd:
            servers += rss
            count += 1
        else:
            shell += rss
        todo.extend(c for c, (ppid, _, _) in table.items() if ppid == pid)
    return shell, servers, count


opts = ArgOptions()
opts.set_capability("browserName", "wry")
opts.set_capability("tauri:options", {"application": app})
driver = webdriver.Remote(command_executor=os.environ["SONDE_DRIVER_URL"], options=opts)
try:
    wait = WebDriverWait(driver, 60)
    connect = wait.until(lambda d: d.find_element(By.XPATH, "//li[.//div[text()='Demo server']]//button[text()='Connect']"))
    figures = {}
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
        time.sleep(3)  # settle: idle means nothing in flight
        shell, servers, count = footprint()
        figures[f"{n}_servers"] = {"app_and_webkit_mib": round(shell / 1024, 1), "servers_mib": round(servers / 1024, 1), "servers": count}
        print(f"| desktop, {n} demo server(s) connected, idle | app + WebKit {shell / 1024:.0f} MiB | {count} server(s) {servers / 1024:.0f} MiB |")
    with open(out, "w") as f:
        json.dump(figures, f, indent=2)
finally:
    driver.quit()
