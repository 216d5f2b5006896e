"""Real-window checks of the native confirmations (issue 13): a saved server's new or changed
launch is shown in a system dialog before it runs, outside the webview, and Cancel runs nothing;
an import is shown the same way before anything is saved; Export asks where to write in the
native save dialog, which asks before replacing a file. desktop.py runs them with its driver.

The dialogs are GTK windows, not part of the page: they are found by their X window titles
(xdotool) and answered from the keyboard, as a person would.
"""
import os

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys


def install(check, driver, wait, shot, h):
    """Registers the checks; `h` holds desktop.py's helpers by name."""
    fixture = os.environ["SONDE_FIXTURE"]

    def screen(name):
        """The whole X screen, native dialogs included (a WebDriver screenshot is the page only)."""
        shots = os.environ.get("SONDE_SHOTS", "")
        if shots:
            h["subprocess"].run(["import", "-window", "root", os.path.join(shots, f"{name}.png")], timeout=20)

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
        dialog.find_element(By.XPATH, ".//button[text()='Add variable']").click()
        dialog.find_elements(By.CSS_SELECTOR, "input[aria-label='Variable']")[-1].send_keys("NODE_OPTIONS")
        dialog.find_elements(By.CSS_SELECTOR, "input[aria-label='Value']")[-1].send_keys("--trace-warnings")
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

        def import_dialog():
            driver.find_element(By.XPATH, "//aside//button[text()='Import']").click()
            form = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "form.dialog[aria-label='Import servers']"))
            area = form.find_element(By.TAG_NAME, "textarea")
            area.send_keys(Keys.CONTROL, "a")
            area.send_keys(text)
            form.find_element(By.XPATH, ".//button[text()='Import']").click()
            return form

        form = import_dialog()
        wait.until(lambda d: h["native_windows"]("Import 1 server(s)?"))
        screen("confirm-import")
        h["answer_native"]("Import 1 server(s)?", "Escape")
        wait.until(lambda d: "nothing was imported: the import was not confirmed" in form.text)
        assert not h["saved"](name), "an import that was not confirmed saved a server"
        form.find_element(By.XPATH, ".//button[text()='Cancel']").click()

        import_dialog()
        h["answer_native"]("Import 1 server(s)?", "Return")
        wait.until(lambda d: h["saved"](name))
        # Seen and confirmed at import: its first run asks nothing more.
        connect_button(name).click()
        wait.until(lambda d: ready(name))
        assert not any(h["native_windows"](t) for t in h["RUN_TITLES"])

    @check
    def export_asks_where_natively_and_before_replacing_a_file():
        """Export writes where the native save dialog says, and asks before replacing a file (Cancel keeps it)"""
        h["ensure_connected"]("Demo server")
        # The chooser opens in the person's download directory (read from the XDG user dirs
        # when it opens): here, one of the test's own.
        downloads = os.path.join(os.environ["XDG_CONFIG_HOME"], "..", "downloads")
        os.makedirs(downloads, exist_ok=True)
        with open(os.path.join(os.environ["XDG_CONFIG_HOME"], "user-dirs.dirs"), "w") as f:
            f.write(f'XDG_DOWNLOAD_DIR="{os.path.abspath(downloads)}"\n')
        path = os.path.join(os.path.abspath(downloads), "sonde-session.jsonl")
        if os.path.exists(path):
            os.remove(path)
        title = "Export the log as JSONL"

        def windows():
            found = h["subprocess"].run(["xdotool", "search", "--onlyvisible", "--name", ".*"],
                                        capture_output=True, text=True, timeout=10)
            # GTK keeps a 1×1 helper window beside each dialog: only windows a person sees count.
            def seen(w):
                geometry = h["subprocess"].run(["xdotool", "getwindowgeometry", w],
                                               capture_output=True, text=True, timeout=10).stdout
                return "Geometry: 1x1" not in geometry
            return {w for w in found.stdout.split() if seen(w)}

        def save():
            """Export, then Save in the chooser as it opens (its name and folder as offered).
            Returns the chooser and the windows there were once it was open."""
            driver.find_element(By.XPATH, "//button[text()='Export']").click()
            window = wait.until(lambda d: h["native_windows"](title))[0]
            opened = windows()
            h["subprocess"].run(["xdotool", "windowfocus", "--sync", window, "key", "Return"], check=True, timeout=10)
            return window, opened

        save()
        said = "//p[@role='status'][starts-with(normalize-space(.), 'Wrote ')]"
        note = wait.until(lambda d: d.find_element(By.XPATH, said))
        assert note.text.endswith(f" entries to {path} Dismiss"), note.text
        note.find_element(By.XPATH, ".//button[text()='Dismiss']").click()
        written = os.path.getmtime(path)
        with open(path) as f:
            assert '"kind"' in f.readline()
        assert os.stat(path).st_mode & 0o777 == 0o600, oct(os.stat(path).st_mode)

        # The same name again: GTK asks before replacing the file, in a window of its own over
        # the chooser. Escape there, then in the chooser: nothing is written.
        chooser, opened = save()
        asked = wait.until(lambda d: windows() - opened)
        screen("export-replace-question")
        h["subprocess"].run(["xdotool", "windowfocus", "--sync", sorted(asked)[0], "key", "Escape"], check=True, timeout=10)
        wait.until(lambda d: not (windows() - opened))
        assert h["native_windows"](title) == [chooser], "Cancel in the question leaves the chooser open"
        h["answer_native"](title, "Escape")
        assert os.path.getmtime(path) == written, "the file was replaced though the person said no"
        assert not driver.find_elements(By.XPATH, said), "a cancelled export said it wrote"
