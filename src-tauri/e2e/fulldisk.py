"""The session log on a full disk, in the real window: the app runs with its data directory on a
tmpfs of its own (mounted here, as root, and unmounted even when the check fails), the disk is
filled but 64 KiB, and a server's flood of notifications meets it. The window says so at once
in a banner that stays until dismissed, the calls go on, and once space is freed the banner says
that the log resumed and how many entries the gap holds; the file reads back in whole lines, the
gap note among them.
"""
import json
import os
import subprocess
import tempfile

from selenium.webdriver.common.by import By

BANNER = "//*[@aria-label='Session log']"


def install(check, shot, h):
    fixture = os.environ["SONDE_FIXTURE"]

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
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", mount], check=True)
        try:
            driver = h["restart_app"](mount)
            wait = h["wait"]()
            h["settle"]()
            name = "Flooder"
            if not h["saved"](name):
                h["add_server"](name, command=f"{fixture} --flood 4000")
            h["ensure_connected"](name)
            assert not driver.find_elements(By.XPATH, BANNER), "a banner before the disk filled"
            filler = fill_but(mount, 64 * 1024)
            # 4,000 notifications before the answer: far more than 64 KiB of log.
            h["call_tool"]("echo", ["while the disk is full"], "while the disk is full")
            stopped = wait.until(lambda d: d.find_element(By.XPATH, f"{BANNER}[@role='alert']"))
            assert "The session log stopped at entry" in stopped.text, stopped.text
            assert "No space left on device; the connection goes on unrecorded" in stopped.text, stopped.text
            shot("full-disk-banner")
            os.remove(filler)
            h["call_tool"]("echo", ["with room again"], "with room again")
            resumed = wait.until(lambda d: d.find_element(By.XPATH, f"{BANNER}[@role='status']"))
            assert "The session log resumed after a gap of" in resumed.text, resumed.text
            shot("full-disk-resumed")
            resumed.find_element(By.XPATH, ".//button[text()='Dismiss']").click()
            wait.until(lambda d: not d.find_elements(By.XPATH, BANNER))
            # The file holds whole lines only, with the note of the gap among them.
            sessions = os.path.join(mount, "sonde", "sessions")
            [session] = [os.path.join(sessions, f) for f in os.listdir(sessions) if f.endswith(".jsonl")]
            with open(session) as f:
                lines = [json.loads(line) for line in f.read().splitlines()]
            gaps = [line["gap"] for line in lines if "gap" in line]
            assert len(gaps) == 1 and gaps[0]["entries"] > 0, gaps
        finally:
            subprocess.run(["umount", "-l", mount], check=False)
            os.rmdir(mount)
            os.remove(mount + "-app")
