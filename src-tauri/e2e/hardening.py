"""Real-window checks of issue 13, hardening: a saved server's new or changed
launch is shown in a system dialog before it runs, outside the webview, and Cancel runs nothing;
an import is shown the same way before anything is saved; Export asks where to write in the
native save dialog, which asks before replacing a file; and a session that used a bearer token,
a URL password, a token query parameter and a secret env value leaves none of them in any file
Sonde wrote. desktop.py runs them with its driver.

The dialogs are GTK windows, not part of the page: they are found by their X window titles
(xdotool) and answered from the keyboard, as a person would.
"""
import json
import os
import re

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait
from selenium.common.exceptions import TimeoutException


def install(check, driver, wait, shot, h):
    """Registers the checks; `h` holds desktop.py's helpers by name."""
    fixture = os.environ["SONDE_FIXTURE"]

    def screen(name):
        """The whole X screen, native dialogs included (a WebDriver screenshot is the page only)."""
        shots = os.environ.get("SONDE_SHOTS", "")
        if shots:
            h["subprocess"].run(["import", "-window", "root", os.path.join(shots, f"{name}.png")], timeout=20)

    def add_variable(dialog, key, value):
        """Adds an environment variable in the Edit dialog. A click that lands while the dialog
        still takes in the saved server is lost: it is made again until the row is there."""
        def row(d):
            keys = dialog.find_elements(By.CSS_SELECTOR, "input[aria-label='Variable']")
            if not keys:
                dialog.find_element(By.XPATH, ".//button[text()='Add variable']").click()
            return keys
        wait.until(row)[-1].send_keys(key)
        dialog.find_elements(By.CSS_SELECTOR, "input[aria-label='Value']")[-1].send_keys(value)

    def connect_button(name):
        return wait.until(lambda d: d.find_element(By.XPATH, f"//li[.//div[text()='{name}']]//button[text()='Connect']"))

    def ready(name):
        return driver.find_elements(By.XPATH, h["ready_status"](name))

    @check
    def a_changed_command_is_confirmed_natively_before_it_runs():
        """a new server asks natively before its first run (Cancel runs nothing), a changed one asks again with what changed, an unchanged one never asks"""
        name = "Confirm me"
        marker = os.path.join(os.environ["SONDE_SHOTS"] or "/tmp", "confirm-me-ran")
        if os.path.exists(marker):
            os.remove(marker)
        h["add_server"](name, command=f"sh -c 'touch {marker}; exec {fixture}'")

        # First run: asked in a system dialog; Escape cancels and nothing runs.
        connect_button(name).click()
        wait.until(lambda d: h["native_windows"]("Run a new server?"))
        screen("confirm-new-server")
        h["answer_native"]("Run a new server?", "Escape")
        wait.until(lambda d: d.find_element(By.XPATH, h["xpath_text"](f"{name} was not started: running it was not confirmed")))
        assert not os.path.exists(marker), "the command ran though it was not confirmed"
        assert not ready(name)

        # Asked again; Run starts it.
        connect_button(name).click()
        h["answer_native"]("Run a new server?", "Return")
        wait.until(lambda d: ready(name))
        assert os.path.exists(marker), "Run did not run it"

        # Changed (a loader variable added): asked again, as a changed server.
        driver.find_element(By.XPATH, f"//ul[@class='servers']/li[.//div[text()='{name}']]//button[text()='Edit']").click()
        dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "form.dialog[aria-label='Edit server']"))
        add_variable(dialog, "NODE_OPTIONS", "--trace-warnings")
        dialog.find_element(By.XPATH, ".//button[text()='Save']").click()
        wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "form.dialog"))
        before = len(ready(name))
        connect_button(name).click()
        for button in driver.find_elements(By.XPATH, "//*[@role='alertdialog'][@aria-label='Already connected']//button[text()='Open a second connection']"):
            button.click()
        wait.until(lambda d: h["native_windows"]("Run a changed server?"))
        screen("confirm-changed-server")
        h["answer_native"]("Run a changed server?", "Return")
        wait.until(lambda d: len(ready(name)) > before)

        # Unchanged since it last ran: no question, straight to ready.
        before = len(ready(name))
        connect_button(name).click()
        wait.until(lambda d: d.find_elements(By.XPATH, "//*[@role='alertdialog'][@aria-label='Already connected']//button[text()='Open a second connection']"))[0].click()
        wait.until(lambda d: len(ready(name)) > before)
        assert not any(h["native_windows"](t) for t in h["RUN_TITLES"]), "an unchanged launch was asked about"

    @check
    def an_import_is_shown_natively_before_anything_is_saved():
        """Import shows every entry in a system dialog; Cancel saves nothing, Import saves them and they run without asking again"""
        name = "Imported fixture"
        text = '{"mcpServers": {"%s": {"command": "%s", "env": {"LD_PRELOAD": ""}}}}' % (name, fixture)

        # Seven entries, as a person's Claude Desktop config may hold: the confirmation lists
        # each in a line or two and fits the screen (it was 792 px tall for seven).
        others = {
            "weather": {"command": "node", "args": ["weather.js"], "env": {"API_KEY": "x"}},
            "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
            "time": {"command": "uvx", "args": ["mcp-server-time"]},
            "fetch": {"command": "python3", "args": ["-m", "mcp_server_fetch"]},
            "memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "cwd": "/srv"},
            "remote": {"url": "https://example.com/mcp"},
        }
        seven = json.dumps({"mcpServers": {name: {"command": fixture, "env": {"LD_PRELOAD": ""}}, **others}})

        def import_dialog(text=text):
            driver.find_element(By.XPATH, "//aside//button[text()='Import']").click()
            form = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "form.dialog[aria-label='Import servers']"))
            area = form.find_element(By.TAG_NAME, "textarea")
            area.send_keys(Keys.CONTROL, "a")
            area.send_keys(text)
            form.find_element(By.XPATH, ".//button[text()='Import']").click()
            return form

        form = import_dialog(seven)
        found = wait.until(lambda d: h["native_windows"]("Import 7 servers?"))
        screen("confirm-import")

        def height(window):
            geometry = h["subprocess"].run(["xdotool", "getwindowgeometry", window], capture_output=True,
                                           text=True, timeout=10).stdout
            return int(re.search(r"Geometry: \d+x(\d+)", geometry).group(1))
        # GTK keeps a 1×1 helper window of the same title beside the dialog: the tallest is it.
        tallest = max(height(w) for w in found)
        assert 100 < tallest <= 520, f"the confirmation of seven entries is {tallest} px tall"
        h["answer_native"]("Import 7 servers?", "Escape")
        wait.until(lambda d: "nothing was imported: the import was not confirmed" in form.text)
        assert not h["saved"]("weather"), "an import that was not confirmed saved a server"
        form.find_element(By.XPATH, ".//button[text()='Cancel']").click()

        form = import_dialog()
        wait.until(lambda d: h["native_windows"]("Import 1 server?"))
        h["answer_native"]("Import 1 server?", "Escape")
        wait.until(lambda d: "nothing was imported: the import was not confirmed" in form.text)
        assert not h["saved"](name), "an import that was not confirmed saved a server"
        form.find_element(By.XPATH, ".//button[text()='Cancel']").click()

        import_dialog()
        h["answer_native"]("Import 1 server?", "Return")
        wait.until(lambda d: h["saved"](name))
        # The notice says what was imported, until dismissed (it would sit above every later view).
        notice = wait.until(lambda d: d.find_element(By.XPATH, "//*[starts-with(normalize-space(.), 'Imported 1 server')][.//button[text()='Dismiss']]"))
        notice.find_element(By.XPATH, ".//button[text()='Dismiss']").click()
        wait.until(lambda d: not d.find_elements(By.XPATH, "//*[starts-with(normalize-space(.), 'Imported 1 server')][.//button[text()='Dismiss']]"))
        # Seen and confirmed at import: its first run asks nothing more.
        connect_button(name).click()
        wait.until(lambda d: ready(name))
        assert not any(h["native_windows"](t) for t in h["RUN_TITLES"])

    export_title = "Export the log as JSONL"

    def windows():
        """The X windows a person sees (GTK keeps a 1×1 helper window beside each dialog)."""
        found = h["subprocess"].run(["xdotool", "search", "--onlyvisible", "--name", ".*"],
                                    capture_output=True, text=True, timeout=10)

        def seen(w):
            geometry = h["subprocess"].run(["xdotool", "getwindowgeometry", w],
                                           capture_output=True, text=True, timeout=10).stdout
            return "Geometry: 1x1" not in geometry
        return {w for w in found.stdout.split() if seen(w)}

    def downloads():
        """The person's download directory, where the chooser opens (read from the XDG user dirs
        when it opens): here, one of the test's own. Returns where an export of the live session
        lands by default: under the session's own name, the app's session file (named for its
        start and the app's pid)."""
        folder = os.path.abspath(os.path.join(os.environ["XDG_CONFIG_HOME"], "..", "downloads"))
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(os.environ["XDG_CONFIG_HOME"], "user-dirs.dirs"), "w") as f:
            f.write(f'XDG_DOWNLOAD_DIR="{folder}"\n')
        pid = h["our_app"]()
        sessions = os.path.join(os.environ["XDG_DATA_HOME"], "sonde", "sessions")
        [own] = [f for f in os.listdir(sessions) if f.endswith(f"-{pid}.jsonl")]
        return os.path.join(folder, own)

    def save(format="JSONL", title=export_title):
        """Export in `format` (the menu item's first word), then Save in the chooser as it opens
        (its name and folder as offered). Returns the chooser and the windows there were once it
        was open."""
        driver.find_element(By.XPATH, "//summary[text()='Export']").click()
        driver.find_element(By.XPATH, f"//button[@role='menuitem'][starts-with(., '{format}')]").click()
        window = wait.until(lambda d: h["native_windows"](title))[0]
        opened = windows()
        h["subprocess"].run(["xdotool", "windowfocus", "--sync", window, "key", "Return"], check=True, timeout=10)
        return window, opened

    wrote = "//p[@role='status'][starts-with(normalize-space(.), 'Wrote ')]"

    def exported(path):
        """Waits for the window to say the export was written to `path`, and dismisses that."""
        note = wait.until(lambda d: d.find_element(By.XPATH, wrote))
        assert note.text.endswith(f" entries to {path} Dismiss"), note.text
        note.find_element(By.XPATH, ".//button[text()='Dismiss']").click()

    @check
    def export_asks_where_natively_and_before_replacing_a_file():
        """Export writes where the native save dialog says, and asks before replacing a file (Cancel keeps it)"""
        h["ensure_connected"]("Demo server")
        path = downloads()
        if os.path.exists(path):
            os.remove(path)
        save()
        exported(path)
        written = os.path.getmtime(path)
        with open(path) as f:
            assert '"kind"' in f.readline()
        assert os.stat(path).st_mode & 0o777 == 0o600, oct(os.stat(path).st_mode)

        # The same name again: GTK asks before replacing the file, in a window of its own over
        # the chooser. Escape there, then in the chooser: nothing is written.
        chooser, opened = save()
        asked = wait.until(lambda d: windows() - opened)
        screen("export-replace-question")
        # A key sent as GTK maps the question, before it takes input, is lost (make test failed
        # on that twice, the question not yet drawn): Escape again while it is still there.
        for _ in range(5):
            h["subprocess"].run(["xdotool", "windowfocus", "--sync", sorted(asked)[0], "key", "Escape"], timeout=10)
            try:
                WebDriverWait(driver, 3).until(lambda d: not (windows() - opened))
                break
            except TimeoutException:
                asked = windows() - opened or asked
        wait.until(lambda d: not (windows() - opened))
        assert h["native_windows"](export_title) == [chooser], "Cancel in the question leaves the chooser open"
        h["answer_native"](export_title, "Escape")
        assert os.path.getmtime(path) == written, "the file was replaced though the person said no"
        assert not driver.find_elements(By.XPATH, wrote), "a cancelled export said it wrote"

    @check
    def export_writes_the_requests_as_otlp_spans():
        """Export → OTLP/JSON writes the session's requests as OpenTelemetry spans, in the .otlp.json file the dialog offers, and says how many"""
        h["ensure_connected"]("Demo server")
        h["call_tool"]("Echo", ["as a span"], "as a span")
        path = downloads()[: -len(".jsonl")] + ".otlp.json"
        if os.path.exists(path):
            os.remove(path)
        save("OTLP", "Export the log as OTLP")
        note = wait.until(lambda d: d.find_element(By.XPATH, wrote))
        assert note.text.endswith(f" spans to {path} Dismiss"), note.text
        count = int(note.text.split()[1])
        note.find_element(By.XPATH, ".//button[text()='Dismiss']").click()
        with open(path) as f:
            spans = [s for r in json.load(f)["resourceSpans"] for ss in r["scopeSpans"] for s in ss["spans"]]
        assert len(spans) == count, (len(spans), count)
        echo = [s for s in spans if s["name"].startswith("tools/call ")
                and any(a["key"] == "gen_ai.tool.name" for a in s["attributes"])]
        assert echo, [s["name"] for s in spans]
        assert os.stat(path).st_mode & 0o777 == 0o600, oct(os.stat(path).st_mode)

    @check
    def no_secret_reaches_the_session_log_an_export_or_the_trace_file():
        """a session with a bearer token, a URL password, a token query parameter and a secret env value: none is in the session log, an export, the trace file or launches.json"""
        secrets = {"URLPASS-e2e-31", "QTOKEN-e2e-32", "BEARER-e2e-33", "ENVSECRET-e2e-34"}
        http = h["subprocess"].Popen([fixture + "-http"], stdout=h["subprocess"].PIPE, text=True)
        try:
            port = http.stdout.readline().split()[1]
            url = f"http://alice:URLPASS-e2e-31@127.0.0.1:{port}/mcp?access_token=QTOKEN-e2e-32&page=1"
            h["add_server"]("Secret HTTP", url=url, header=("Authorization", "Bearer BEARER-e2e-33"))
            h["connect"]("Secret HTTP")
            h["call_tool"]("echo", ["over http"], "over http")

            # (A bare existing path would be taken by selenium as a file to upload: an argument follows.)
            h["add_server"]("Secret env", command=f"{fixture} --tools 1")
            driver.find_element(By.XPATH, "//ul[@class='servers']/li[.//div[text()='Secret env']]//button[text()='Edit']").click()
            dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "form.dialog[aria-label='Edit server']"))
            add_variable(dialog, "SONDE_E2E_SECRET", "ENVSECRET-e2e-34")
            dialog.find_element(By.XPATH, ".//button[text()='Save']").click()
            wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "form.dialog"))
            h["connect"]("Secret env")
            h["call_tool"]("echo", ["over stdio"], "over stdio")
        finally:
            http.kill()
            http.wait()

        path = downloads()
        if os.path.exists(path):
            os.remove(path)
        save()
        exported(path)
        data = os.path.join(os.environ["XDG_DATA_HOME"], "sonde")
        sessions = [os.path.join(data, "sessions", n) for n in os.listdir(os.path.join(data, "sessions"))]
        files = sessions + [path, os.path.join(data, "sonde-desktop.log"),
                            os.path.join(os.environ["XDG_CONFIG_HOME"], "sonde", "launches.json")]
        for name in files:
            with open(name, encoding="utf-8", errors="replace") as f:
                text = f.read()
            found = [s for s in secrets if s in text]
            assert not found, f"{found} in {name}"
            print(f"     {os.path.basename(name)}: {len(text)} bytes, none of the four secrets, "
                  f"{text.count('[redacted]')} [redacted]")
        with open(path) as f:
            export = f.read()
        # The export is of the session that used them: both servers and the redacted URL are in it.
        assert "Secret HTTP" in export and "Secret env" in export, "the export is of another session"
        assert "alice:[redacted]@127.0.0.1" in export and "access_token=[redacted]" in export
        assert "page=1" in export, "what is not secret stays"

    @check
    def the_window_plays_data_audio():
        """the CSP lets an audio result (a data: URL) load and play in the window"""
        import base64, io, math, wave
        samples = bytes(128 + int(100 * math.sin(2 * math.pi * 440 * i / 8000)) for i in range(1600))
        buffer = io.BytesIO()
        with wave.open(buffer, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(1)
            w.setframerate(8000)
            w.writeframes(samples)
        wav = base64.b64encode(buffer.getvalue()).decode()
        # An audio result is shown as an <audio> with a data: URL (ResultView); a CSP without
        # media-src data: refuses it (error 4), and the person hears nothing.
        outcome = driver.execute_async_script("""
            const [wav, done] = [arguments[0], arguments[arguments.length - 1]];
            const a = new Audio('data:audio/wav;base64,' + wav);
            a.onloadedmetadata = () => done('loaded ' + a.duration.toFixed(2) + ' s');
            a.onerror = () => done('error ' + (a.error && a.error.code));
            a.load();
        """, wav)
        assert outcome == "loaded 0.20 s", outcome
