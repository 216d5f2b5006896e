"""Real-window checks of the window with servers a new user brings (issue 31's walk; desktop.py
runs them with its driver): server-filesystem listing a directory, mcp-server-time (Python)
telling the time, and a server slow to start, shown as it opens. Each step saves a screenshot
(`walk-*.png`), the pictures the closing note and the guide use.
"""
import os
import tempfile

from selenium.webdriver.common.by import By


def install(check, driver, wait, shot, h):
    """Registers the checks; `h` holds desktop.py's helpers by name."""
    peers = os.environ["SONDE_PEERS"]

    def connected(name, command):
        if not h["saved"](name):
            h["add_server"](name, command=command)
        h["ensure_connected"](name)
        h["press_on_window"]("ctrl+1")

    @check
    def server_filesystem_lists_a_directory_it_was_given():
        """server-filesystem (npm), given a directory: list_directory shows the file in it"""
        folder = tempfile.mkdtemp(prefix="sonde-walk-")
        with open(os.path.join(folder, "walk-marker.txt"), "w") as f:
            f.write("hello")
        connected("Filesystem", f"{peers}/npm/node_modules/.bin/mcp-server-filesystem {folder}")
        h["call_tool"]("list_directory", [folder], "[FILE] walk-marker.txt", by="code")
        shot("walk-filesystem")

    @check
    def mcp_server_time_tells_the_time_in_a_zone():
        """mcp-server-time (PyPI): get_current_time in UTC answers with the zone and a time"""
        connected("Time", f"{peers}/py/bin/mcp-server-time --local-timezone UTC")
        h["call_tool"]("get_current_time", ["UTC"], '"timezone": "UTC"')
        shot("walk-time")

    @check
    def a_server_slow_to_start_is_shown_opening_then_ready():
        """a server that answers after 3 s: its card says it is opening (selected, in the main pane), then ready"""
        name = "Slow starter"
        if not h["saved"](name):
            h["add_server"](name, command=f"{os.environ['SONDE_FIXTURE']} --start-delay-ms 3000")
        wait.until(lambda d: d.find_element(By.XPATH, f"//li[.//div[text()='{name}']]//button[text()='Connect']")).click()
        card = f"//ul[@class='connections']/li[contains(@class,'selected')][.//span[text()='{name}']]"
        # Its first run is confirmed natively first (`until` answers Run, as a person would).
        opening = h["until"](lambda d: d.find_element(By.XPATH, f"{card}//div[@data-status]"))
        assert opening.get_attribute("data-status") != "ready", opening.text
        shot("walk-slow-start")
        h["until"](lambda d: d.find_elements(By.XPATH, f"{card}//div[@data-status='ready']"), timeout=30)
