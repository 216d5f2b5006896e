"""Real-window checks of the inner loop (issue 52); desktop.py runs them with its driver.

A Python SDK server saved with Restart on change, its file rewritten as its author saves it:
each save restarts the server, and a banner over the line says what the change did; the tool
chosen stays chosen with its values (one the new schema no longer takes is set aside and said),
and Call again (Ctrl+Shift+Enter) sets the new result beside the old. A file that does not parse
fails the restart with the server's last words in the main pane, and the next save starts it
again. The drift baseline: a saved server's interface is kept at its first connect; connected
again after a change, the window says what changed since, and Accept makes the new interface the
baseline.
"""
import os
import tempfile

from selenium.webdriver.common.by import By

V1 = '''from mcp.server.mcpserver import MCPServer

server = MCPServer("calc", version="1")


@server.tool()
def add(a: float, b: float, note: str = "") -> str:
    """Add two numbers."""
    return str(a + b)


server.run("stdio")
'''

# add off by one and without its note; a tool mul.
V2 = '''from mcp.server.mcpserver import MCPServer

server = MCPServer("calc", version="2")


@server.tool()
def add(a: float, b: float) -> str:
    """Add two numbers."""
    return str(a + b + 1)


@server.tool()
def mul(a: float, b: float) -> str:
    """Multiply two numbers."""
    return str(a * b)


server.run("stdio")
'''


def install(check, driver, wait, shot, h):
    """Registers the checks; `h` holds desktop.py's helpers by name."""
    python = os.path.join(os.environ["SONDE_PEERS"], "py/bin/python")

    def project(text):
        """A folder holding server.py with `text`, as its author has it."""
        folder = tempfile.mkdtemp(prefix="sonde-e2e-loop-")
        path = os.path.join(folder, "server.py")
        save(path, text)
        return path

    def save(path, text):
        """A save as an editor makes it: the whole file written anew."""
        with open(path, "w") as f:
            f.write(text)

    def add_watched(name, server):
        """Saves `server` through the Add dialog with Restart on change on, as a new user would."""
        driver.find_element(By.CSS_SELECTOR, "button[aria-label='Add a server']").click()
        dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "form.dialog"))
        dialog.find_element(By.XPATH, ".//label[contains(., 'Name')]/input").send_keys(name)
        dialog.find_element(By.XPATH, ".//label[contains(., 'Command line')]/input").send_keys(f"{python} {server}")
        dialog.find_element(By.XPATH, ".//label[contains(., 'Restart the server when its source changes')]/input").click()
        # No path given: the folder of the script the command names.
        wait.until(lambda d: dialog.find_element(By.XPATH, ".//label[contains(., 'Paths to watch')]/textarea"))
        dialog.find_element(By.XPATH, ".//button[text()='Save']").click()
        wait.until(lambda d: h["saved"](name))

    def banner(kind):
        """The shown line's Restart on change banner once it says `kind` (its data-rebuild)."""
        return wait.until(lambda d: [b for b in d.find_elements(By.CSS_SELECTOR, f"[data-rebuild='{kind}']")
                                     if b.is_displayed()])[0]

    def fields():
        """The values in the tool form's fields, in order."""
        return [i.get_attribute("value") for i in driver.find_elements(By.CSS_SELECTOR, ".tool-call form input")]

    def drift(kind):
        """The banner over the shown line once it says `kind` (its data-drift)."""
        return wait.until(lambda d: [b for b in d.find_elements(By.CSS_SELECTOR, f"[data-drift='{kind}']")
                                     if b.is_displayed()])[0]

    def baseline_said(words):
        """The Server panel's line about the baseline, once it holds `words`; back to Tools after."""
        driver.find_element(By.XPATH, "//div[@role='tablist']/button[text()='Server']").click()
        said = wait.until(lambda d: [e for e in d.find_elements(By.CSS_SELECTOR, "dd[aria-label='Drift baseline']")
                                     if e.is_displayed() and words in e.text])[0].text
        driver.find_element(By.XPATH, "//div[@role='tablist']/button[text()='Tools']").click()
        return said

    @check
    def restart_on_change_keeps_the_form_says_what_changed_and_calls_again():
        """Restart on change: a save restarts the server, the banner says what changed, the form keeps its values and Call again sets the results side by side"""
        server = project(V1)
        add_watched("Calc (watched)", server)
        h["connect"]("Calc (watched)")
        h["call_tool"]("add", ["2", "3", "hi"], "5.0")
        first = h["newest_pid"]("Calc (watched)")

        save(server, V2)
        restarted = banner("restarted")
        said = restarted.text
        assert "Restarted after a change to server.py (" in said, said
        # mul added; add's optional note removed and the version: changes, not breaking.
        assert "1 tool added, 2 changes" in said, said
        restarted.find_element(By.XPATH, ".//button[text()='Show the changes']").click()
        changes = restarted.find_element(By.CSS_SELECTOR, "ul[aria-label='Changes']").text
        assert "tools/mul: a new tool" in changes and "tools/add/inputSchema" in changes, changes
        now = h["newest_pid"]("Calc (watched)")
        assert now != first, f"the server was not restarted: pid {now}"
        # The tool stays chosen with the values the new schema takes; the note is set aside.
        wait.until(lambda d: fields() == ["2", "3"])
        aside = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[aria-label='Set aside']")).text
        assert 'note = "hi"' in aside, aside
        shot("restart-on-change-banner")

        h["press_on_window"]("ctrl+shift+Return")
        before = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "section[aria-label^='Before: connection']"))
        after = driver.find_element(By.CSS_SELECTOR, "section[aria-label^='Now: connection']")
        wait.until(lambda d: "6.0" in after.text)
        assert "5.0" in before.text, before.text
        shot("restart-on-change-call-again")

        # A file that does not parse: the restart fails with the server's last words; the next
        # save starts it again, and the changes are said against the last build that started.
        save(server, V2 + "\ndef broken(:\n")
        failed = banner("start_failed")
        assert "The restart after a change to server.py failed" in failed.text, failed.text
        wait.until(lambda d: "SyntaxError" in d.find_element(By.CSS_SELECTOR, ".tools").text)
        save(server, V1)
        wait.until(lambda d: "1 breaking change" in banner("restarted").text)
        h["newest_pid"]("Calc (watched)")
        stop_line("Calc (watched)")

    def stop_line(name):
        """Stops the line of `name` from its card and waits until it has stopped."""
        stop = f"//ul[@class='connections']/li[.//span[text()='{name}']]//button[text()='Stop']"
        for button in driver.find_elements(By.XPATH, stop):
            button.click()
        wait.until(lambda d: not d.find_elements(By.XPATH, stop))

    @check
    def the_drift_baseline_says_what_changed_since_and_accept_keeps_it():
        """Drift baseline: connected again after a change, the window says what changed since the baseline; Accept keeps the new interface"""
        server = project(V1)
        h["add_server"]("Calc (baseline)", f"{python} {server}")
        name = "Calc (baseline)"
        h["connect"](name)
        # The first connect keeps the interface as the server's baseline, said quietly.
        baseline_said("Kept as the server's baseline at this connect")
        stop_line(name)
        save(server, V2)
        h["connect"](name)
        changed = drift("changed")
        assert "Since " in changed.text and "1 tool added" in changed.text, changed.text
        changed.find_element(By.XPATH, ".//button[text()='Show the changes']").click()
        assert "tools/mul: a new tool" in changed.find_element(By.CSS_SELECTOR, "ul[aria-label='Changes']").text
        shot("drift-baseline")
        changed.find_element(By.XPATH, ".//button[text()='Accept']").click()
        drift("accepted")
        stop_line(name)
        h["connect"](name)
        baseline_said("As its baseline of")
        assert not driver.find_elements(By.CSS_SELECTOR, "[data-drift='changed']"), "a change said after Accept"
        stop_line(name)
