"""Real-window checks of Diff… (issue 34) and Replay against… (issue 35); desktop.py runs
them with its driver. The demo server's connection set beside an earlier build's snapshot,
chosen in the native open dialog, lists the breaking changes first, each one click from both
definitions with the changed key marked; set beside its own saved server, started for the
comparison, nothing changed. A CLI session of the fixture replayed against its next build says
which answer moved, the two answers side by side with the difference marked. A result saved as
a test in a new suite passes in `sonde test`.
"""
import json
import os
import subprocess
import tempfile

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

OPEN_TITLE = "Diff against a snapshot or a session"


def install(check, driver, wait, shot, h):
    """Registers the checks; `h` holds desktop.py's helpers by name."""

    def earlier_build(path):
        """The demo's interface as `sonde snapshot` writes it, edited into an earlier build's:
        echo took no argument, a tool "ghost" existed, add said less."""
        sonde = os.path.join(os.path.dirname(os.environ["SONDE_FIXTURE"]), "sonde")
        subprocess.run([sonde, "snapshot", "--out", path, "--", sonde, "demo-server"], check=True, timeout=60,
                       capture_output=True)
        with open(path) as f:
            snapshot = json.load(f)
        tools = snapshot["tools"]
        next(t for t in tools if t["name"] == "echo")["inputSchema"] = {"type": "object", "properties": {}}
        next(t for t in tools if t["name"] == "add")["description"] = "Adds."
        tools.append({"name": "ghost", "inputSchema": {"type": "object"}})
        with open(path, "w") as f:
            json.dump(snapshot, f, indent=2)

    def type_path(title, field_key, path):
        """Types `path` in the native file dialog `title` (after `field_key`, which puts the
        cursor where a path goes) and presses Return until the dialog closes: GTK's location
        bar may take the first Return for its completion, as a person sees before pressing it
        again."""
        chooser = wait.until(lambda d: h["native_windows"](title))[0]
        subprocess.run(["xdotool", "windowfocus", "--sync", chooser, "key", field_key], check=True, timeout=10)
        subprocess.run(["xdotool", "type", "--delay", "20", path], check=True, timeout=30)
        for _ in range(3):
            subprocess.run(["xdotool", "windowfocus", "--sync", chooser, "key", "Return"], check=True, timeout=10)
            try:
                WebDriverWait(driver, 3).until(lambda d: not h["native_windows"](title))
                return
            except TimeoutException:
                pass
        wait.until(lambda d: not h["native_windows"](title))

    def marked(label):
        """The marked lines of the definition `label` (Old definition, New definition)."""
        pre = driver.find_element(By.CSS_SELECTOR, f"pre[aria-label='{label}']")
        return [line.get_attribute("textContent") for line in pre.find_elements(By.CSS_SELECTOR, "div.changed")]

    def compare_with(dialog, option_xpath):
        """Picks the other side by its option and compares; returns the tally's text."""
        dialog.find_element(By.CSS_SELECTOR, "select[aria-label='The other side']").find_element(By.XPATH, option_xpath).click()
        dialog.find_element(By.XPATH, ".//button[text()='Diff']").click()
        return wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='status'][aria-label='Comparison']")).text

    @check
    def a_connection_is_compared_with_an_earlier_snapshot_and_with_its_saved_server():
        """Diff… on the demo's connection: an earlier build's snapshot (chosen in the native open dialog) gives breaking changes first, each a click from both definitions with the changed key marked; its own saved server gives none"""
        earlier = os.path.join(tempfile.mkdtemp(prefix="sonde-diff-"), "demo-earlier.snapshot.json")
        earlier_build(earlier)
        h["ensure_connected"]("Demo server")
        h["press_on_window"]("ctrl+5")
        wait.until(lambda d: d.find_element(By.XPATH, "//button[@role='tab'][@aria-selected='true'][text()='Server']"))
        wait.until(lambda d: d.find_element(By.XPATH, "//button[text()='Diff…']")).click()
        dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='dialog'][aria-label='Diff interfaces']"))
        other = Select(dialog.find_element(By.CSS_SELECTOR, "select[aria-label='The other side']"))
        other.select_by_value("choose-file")
        # The native open dialog: the path typed in its location bar, as a person types it.
        type_path(OPEN_TITLE, "ctrl+l", earlier)
        wait.until(lambda d: other.first_selected_option.text == earlier)
        dialog.find_element(By.XPATH, ".//button[text()='Diff']").click()
        tally = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='status'][aria-label='Comparison']")).text
        assert tally.endswith("2 breaking, 1 change, 0 additions."), tally
        assert tally.startswith(f"From {earlier} to Demo server · connection"), tally

        # Breaking first; the first change is shown at once, its changed key marked on the new side.
        headings = [e.text for e in dialog.find_elements(By.CSS_SELECTOR, ".diff-changes h3")]
        assert headings[0].startswith("Breaking") and headings[-1].startswith("Changes"), headings
        changes = dialog.find_elements(By.CSS_SELECTOR, "button.change")
        first = changes[0]
        assert first.text.startswith("tools/echo/inputSchema/properties/text: new required argument"), first.text
        assert first.get_attribute("aria-pressed") == "true"
        wait.until(lambda d: any('"text": {' in line for line in marked("New definition")))
        # The old side has no such argument: what is marked is where it would be.
        assert marked("Old definition")[0].strip() == '"properties": {}', marked("Old definition")
        shot("diff-earlier-snapshot")

        # The removed tool: its definition on the old side, none on the new.
        ghost = next(c for c in changes if c.text.startswith("tools/ghost:"))
        ghost.click()
        wait.until(lambda d: d.find_element(By.XPATH, "//*[@aria-label='Definition of tools/ghost']"))
        assert dialog.find_element(By.XPATH, ".//p[normalize-space(.)='Not in the new interface.']")
        assert any('"name": "ghost"' in line for line in marked("Old definition")), marked("Old definition")

        # Against its own saved server, started for the comparison and stopped after it.
        compare_with(dialog, ".//optgroup[@label='Saved servers, started for the diff']/option[text()='Demo server']")
        wait.until(lambda d: "No changes" in d.find_element(By.CSS_SELECTOR, "[role='status'][aria-label='Comparison']").text)
        dialog.find_element(By.XPATH, ".//button[text()='Close']").click()
        wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "[role='dialog'][aria-label='Diff interfaces']"))

    @check
    def a_recorded_session_is_replayed_against_a_later_build():
        """Replay against…: a CLI session of the fixture replayed against its next build (a saved server started for it) says which answer moved, the two side by side with the difference marked"""
        fixture = os.environ["SONDE_FIXTURE"]
        sonde = os.path.join(os.path.dirname(fixture), "sonde")
        ran = subprocess.run([sonde, "call", "echo", "text=Ann", "--", fixture], capture_output=True, text=True,
                             timeout=60)
        assert ran.returncode == 0, ran
        name = os.path.basename(next(l for l in ran.stderr.splitlines() if l.startswith("sonde: session log ")).split()[-1])
        if not h["saved"]("Echo v2"):
            h["add_server"]("Echo v2", command=f"{fixture} --echo-prefix v2:")
        # The session opened read-only (File → Open Session), then Replay against… on its banner.
        h["press_on_window"]("ctrl+o")
        chooser = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='dialog'][aria-label='Open session']"))
        wait.until(lambda d: chooser.find_element(By.XPATH, f".//li[@role='option'][@title='{name}']")).click()
        chooser.find_element(By.XPATH, ".//button[text()='Open']").click()
        wait.until(lambda d: d.find_element(By.XPATH, "//button[text()='Replay against…']")).click()
        dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='dialog'][aria-label='Replay a session']"))
        Select(dialog.find_element(By.CSS_SELECTOR, "select[aria-label='Saved server']")).select_by_visible_text("Echo v2")
        dialog.find_element(By.XPATH, ".//button[text()='Replay']").click()
        # A new server asks natively before its first run, as Connect does.
        h["answer_native"]("Run a new server?", "Return")
        status = wait.until(lambda d: d.find_element(By.XPATH, "//*[@role='status'][@aria-label='Replay'][starts-with(., 'Replayed')]"))
        assert status.text == "Replayed against Echo v2: 2 requests: 1 same, 1 differs.", status.text
        moved = dialog.find_element(By.XPATH, ".//button[contains(@class,'change')][contains(., 'tools/call echo')]")
        assert moved.text.startswith("differs"), moved.text
        moved.click()
        differences = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "ul[aria-label='Differences']"))
        assert differences.text == 'result.content[0].text: "Ann" → "v2:Ann"', differences.text
        assert any('"v2:Ann"' in line for line in marked("Now answer")), marked("Now answer")
        assert any('"Ann"' in line for line in marked("Recorded answer")), marked("Recorded answer")
        shot("replay-differs")
        dialog.find_element(By.XPATH, ".//button[text()='Close']").click()
        driver.find_element(By.XPATH, "//button[text()='Back to the live session']").click()

    @check
    def a_result_saved_as_a_test_passes_in_sonde_test():
        """Save as test on the demo's Add: its expectations filled from the result, saved in a new suite through the native save dialog, and sonde test runs it and passes"""
        suite = os.path.join(tempfile.mkdtemp(prefix="sonde-suite-"), "demo-tests.yaml")
        h["ensure_connected"]("Demo server")
        h["press_on_window"]("ctrl+1")
        h["call_tool"]("Add", ["2", "40"], "2 + 40 = 42")
        wait.until(lambda d: d.find_element(By.XPATH, "//button[text()='Save as test…']")).click()
        dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='dialog'][aria-label='Save as test']"))
        assert dialog.find_element(By.CSS_SELECTOR, "input[aria-label='Expected text']").get_attribute("value") == "2 + 40 = 42"
        structured = dialog.find_element(By.CSS_SELECTOR, "textarea[aria-label='Expected structured keys']")
        assert json.loads(structured.get_attribute("value")) == {"sum": 42}, structured.get_attribute("value")
        shot("save-as-test")
        dialog.find_element(By.XPATH, ".//button[text()='New suite…']").click()
        # The native save dialog: the whole path typed in its name field, as a person may.
        type_path("Save the test in a new suite", "ctrl+a", suite)
        saved = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='status'][aria-label='Test saved']"))
        assert saved.text == f'Added the test "add answers as it did" to {suite} (1 test): sonde test runs it.', saved.text
        # The suite runs from the CLI against the same server, and passes.
        sonde = os.path.join(os.path.dirname(os.environ["SONDE_FIXTURE"]), "sonde")
        ran = subprocess.run([sonde, "test", suite, "--", sonde, "demo-server"], capture_output=True, text=True, timeout=60)
        assert ran.returncode == 0, ran
        assert ran.stdout.startswith("pass  add answers as it did ("), ran.stdout
