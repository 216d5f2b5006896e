"""The session log on a full disk, in the real window: the app runs with its data directory on a
4 MiB tmpfs of its own (mounted here, as root, and unmounted even when the check fails), the disk is
filled but 64 KiB, and a server's flood of notifications meets it. The window says so at once
in a banner that stays until dismissed, the calls go on, and once space is freed the banner says
that the log resumed and how many entries the gap holds; the file reads back in whole lines, the
gap note among them. Then the app killed with SIGKILL in a flood: its session reads back in whole
lines, and the app started again calls it incomplete in Open Session.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

BANNER = "//*[@aria-label='Session log']"
GRID = "[role='grid'][aria-label='Wire log']"


def install(check, shot, h):
    fixture = os.environ["SONDE_FIXTURE"]

    def flooder_on(data_home, config_home=None):
        """The app started again on `data_home` (and `config_home`), connected to a server that
        floods 4,000 notifications before each answer; returns the new driver and its wait."""
        driver = h["restart_app"](data_home, config_home)
        wait = h["wait"]()
        h["settle"]()
        if not h["saved"]("Flooder"):
            h["add_server"]("Flooder", command=f"{fixture} --flood 4000")
        h["ensure_connected"]("Flooder")
        return driver, wait

    def fill_but(mount, keep):
        """Fills the disk at `mount` with one file, leaving `keep` bytes free; returns its path."""
        filler = os.path.join(mount, "filler")
        stat = os.statvfs(mount)
        with open(filler, "wb") as f:
            f.write(b"\0" * max(0, stat.f_bavail * stat.f_frsize - keep))
        return filler

    @check
    def a_full_disk_is_told_in_a_banner_until_dismissed():
        """A full disk stops the session log: a banner says so at once, the calls go on, and it says the gap once space is freed"""
        mount = tempfile.mkdtemp(prefix="sonde-small-disk-")
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", mount], check=True)
        try:
            driver, wait = flooder_on(mount)
            assert not driver.find_elements(By.XPATH, BANNER), "a banner before the disk filled"
            filler = fill_but(mount, 64 * 1024)
            # 4,000 notifications before the answer: far more than 64 KiB of log.
            h["call_tool"]("echo", ["while the disk is full"], "while the disk is full")
            stopped = wait.until(lambda d: d.find_element(By.XPATH, f"{BANNER}[@role='alert']"))
            assert "The session log stopped at entry" in stopped.text, stopped.text
            assert "No space left on device; the connection goes on unrecorded" in stopped.text, stopped.text
            # The live log ends with one row that says so, not with rows for entries the file
            # will not hold.
            driver.find_element(By.XPATH, "//button[@role='tab'][text()='Wire log']").click()
            driver.execute_script(f"const g = document.querySelector(\"{GRID}\"); g.scrollTop = g.scrollHeight;")
            row = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, f"{GRID} [role='row'][aria-label='Not recorded']"))
            said = row.get_attribute("textContent")
            assert said.startswith("The session log stopped at entry"), said
            # The count says how many went unrecorded, as the guide says, not only the rows.
            count = driver.find_element(By.CSS_SELECTOR, ".log-bar .count").text
            assert re.search(r"\(\d+ not recorded since entry \d+\)", count), count
            shot("full-disk-banner")
            os.remove(filler)
            h["call_tool"]("echo", ["with room again"], "with room again")
            resumed = wait.until(lambda d: d.find_element(By.XPATH, f"{BANNER}[@role='status']"))
            assert "The session log resumed after a gap of" in resumed.text, resumed.text
            shot("full-disk-resumed")
            resumed.find_element(By.XPATH, ".//button[text()='Dismiss']").click()
            # (A banner that the session outgrew the sessions budget may stay: on a 4 MiB disk
            # the default budget is a tenth of its free space.)
            wait.until(lambda d: not d.find_elements(By.XPATH, f"{BANNER}[contains(., 'resumed')]"))
            # The file holds whole lines only, with the note of the gap among them.
            sessions = os.path.join(mount, "sonde", "sessions")
            [session] = [os.path.join(sessions, f) for f in os.listdir(sessions) if f.endswith(".jsonl")]
            with open(session) as f:
                lines = [json.loads(line) for line in f.read().splitlines()]
            gaps = [line["gap"] for line in lines if "gap" in line]
            assert len(gaps) == 1 and gaps[0]["entries"] > 0, gaps
            # The live log lists what the file holds, the gap as the one row of its note: the
            # rows around it are the file's entries, in its order, none left loading.
            seqs = [line["seq"] for line in lines if "seq" in line]
            note = next(i for i, line in enumerate(lines[1:]) if "gap" in line)
            assert not driver.find_elements(By.CSS_SELECTOR, f"{GRID} [aria-label='Not recorded']")
            driver.execute_script(f"document.querySelector(\"{GRID}\").scrollTop = {max(0, note - 5) * 22};")

            def shown_around_the_gap(d):
                rows = d.find_elements(By.CSS_SELECTOR, f"{GRID} [role='row']")
                shown = [r.get_attribute("data-seq") for r in rows]
                return None if None in shown or not shown else [int(s) for s in shown]

            shown = wait.until(shown_around_the_gap)
            start = seqs.index(shown[0])
            assert shown == seqs[start:start + len(shown)], (shown, seqs[start:start + len(shown)])
            assert seqs[note] in shown, (seqs[note], shown)
            shot("full-disk-gap-row")
            count = driver.find_element(By.CSS_SELECTOR, ".log-bar .count").text
            assert count.endswith(f"({gaps[0]['entries']} not recorded)"), count
        finally:
            subprocess.run(["umount", "-l", mount], check=False)
            os.rmdir(mount)
            os.remove(mount + "-app")

    @check
    def a_killed_app_leaves_a_session_open_session_calls_incomplete():
        """The app killed (SIGKILL) in a server's flood leaves a session that reads back in whole lines, and Open Session calls it incomplete"""
        home = tempfile.mkdtemp(prefix="sonde-killed-app-")
        # Settings of its own: a sessions budget an earlier check left would prune the session.
        config = os.path.join(home, "config")
        os.makedirs(config)
        try:
            driver, wait = flooder_on(home, config)
            sessions = os.path.join(home, "sonde", "sessions")
            [killed] = [f for f in os.listdir(sessions) if f.endswith(".jsonl")]
            h["call_tool"]("echo", ["flood"], "flood")
            # The app just started for this check: the run's one (a newer window elsewhere is not).
            pid = h["our_app"]()
            h["call_tool"]("echo", ["killed in this flood"], "Echoes its text back.")
            os.kill(pid, signal.SIGKILL)
            with open(os.path.join(sessions, killed), "rb") as f:
                lines = f.read().split(b"\n")
            # Every line but a partial last one is a whole entry.
            whole = [json.loads(line) for line in lines[:-1]]
            assert len(whole) > 4000, len(whole)
            driver = h["restart_app"](home, config)
            wait = h["wait"]()
            h["settle"]()
            h["press_on_window"]("ctrl+o")
            dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='dialog'][aria-label='Open session']"))
            option = wait.until(lambda d: dialog.find_element(By.XPATH, f".//li[@role='option'][@title='{killed}']"))
            badge = option.find_element(By.XPATH, ".//span[text()='incomplete']")
            assert "no end-of-session entry" in badge.get_attribute("title"), badge.get_attribute("title")
            option.click()
            dialog.find_element(By.CSS_SELECTOR, "[role='listbox']").send_keys(Keys.ENTER)
            said = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='status'][aria-label='Incomplete session']"))
            assert said.text.startswith("This session is incomplete: "), said.text
            shot("killed-app-session-incomplete")
        finally:
            shutil.rmtree(home, ignore_errors=True)
            os.remove(home + "-app")

    @check
    def a_session_larger_than_the_whole_budget_is_told_once_and_kept():
        """A live session that grows larger by itself than the whole sessions budget is told once, in the banner, and kept whole"""
        home = tempfile.mkdtemp(prefix="sonde-outgrown-")
        config = os.path.join(home, "config")
        os.makedirs(os.path.join(config, "sonde"))
        with open(os.path.join(config, "sonde", "settings.json"), "w") as f:
            json.dump({"sessions": {"maxBytes": 1024 * 1024}}, f)
        try:
            driver, wait = flooder_on(home, config)
            assert not driver.find_elements(By.XPATH, BANNER), "a banner before the session outgrew the budget"
            for text in ["past the budget", "further past it"]:
                h["call_tool"]("echo", [text], text)
            banner = wait.until(lambda d: d.find_element(By.XPATH, f"{BANNER}[contains(., 'larger by itself')]"))
            assert banner.text.startswith("This session ("), banner.text
            assert "is larger by itself than the sessions budget (500 sessions and 1.0 MiB); it is kept whole." in banner.text, banner.text
            shot("outgrown-banner")
            banner.find_element(By.XPATH, ".//button[text()='Dismiss']").click()
            wait.until(lambda d: not d.find_elements(By.XPATH, BANNER))
            sessions = os.path.join(home, "sonde", "sessions")
            [session] = [os.path.join(sessions, f) for f in os.listdir(sessions) if f.endswith(".jsonl")]
            assert os.path.getsize(session) > 1024 * 1024, os.path.getsize(session)
        finally:
            shutil.rmtree(home, ignore_errors=True)
            os.remove(home + "-app")
