"""Real-window checks of MCP Apps (issue 36); desktop.py runs them with its driver. The
basic-react example's app renders and calls its server; the basic-vanillajs example's app renders with the server's time, its button calls the server
through the bridge, its log message and link request are `app` entries in the wire log (the link
answered Cancel), and a theme switch reaches it. A hostile app (the fixture's) runs on an origin
that is not the window's, can reach neither the window's DOM nor its IPC, the network it did not
declare, the top window or a popup, and its flood is bounded, each refusal in the log, the window
usable after it. A broken app's resource is named for each fault.
"""
import json
import os
import re

from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z")
FRAME = "iframe[title^='App ']"


def install(check, driver, wait, shot, h):
    """Registers the checks; `h` holds desktop.py's helpers by name."""

    def open_app(server, command, tool):
        """Connects `server` (saved with `command` the first time), calls `tool` (by name) from
        the Tools panel and waits for its app's frame."""
        if not h["saved"](server):
            h["add_server"](server, command=command)
        h["ensure_connected"](server)
        h["press_on_window"]("ctrl+1")
        wait.until(lambda d: d.find_element(By.XPATH, f"//button[contains(@class,'tool')][.//*[text()='{tool}']]")).click()
        wait.until(lambda d: d.find_element(By.XPATH, "//button[text()='Call']")).click()
        return wait.until(lambda d: d.find_element(By.CSS_SELECTOR, FRAME))

    def in_frame(frame, fn):
        """Runs `fn` inside the app's frame (its own origin), then comes back to the window."""
        driver.switch_to.frame(frame)
        try:
            return fn()
        finally:
            driver.switch_to.default_content()

    def log_rows(filter_text):
        """The wire log's rows for `filter_text`, once there is one."""
        driver.find_element(By.XPATH, "//button[@role='tab'][text()='Wire log']").click()
        h["set_filter"](filter_text)
        return wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "div[role='row'].app"))

    @check
    def an_mcp_app_renders_calls_its_server_and_is_recorded():
        """The basic-vanillajs app renders with the server's time; Get Server Time calls the server through the bridge and the new time shows; its log message and open-link (answered Cancel) are app entries; a theme switch reaches it"""
        bin_dir = os.path.join(os.environ["SONDE_PEERS"], "apps/node_modules/.bin")
        frame = open_app("Basic app", f"{bin_dir}/mcp-server-basic-vanillajs --stdio", "Get Time")
        shown = driver.find_element(By.CSS_SELECTOR, "section.last-call").text
        called = ISO.findall(shown)
        assert called, shown

        def first_time():
            return wait.until(lambda d: ISO.fullmatch(d.find_element(By.ID, "server-time").text)).string

        first = in_frame(frame, first_time)
        assert first in called, (first, called)

        def button_time():
            driver.find_element(By.ID, "get-time-btn").click()
            return wait.until(lambda d: (t := d.find_element(By.ID, "server-time").text) != first and ISO.fullmatch(t) and t)

        second = in_frame(frame, button_time)
        assert second > first, (first, second)

        def log_and_link():
            field = driver.find_element(By.ID, "log-text")
            field.clear()
            field.send_keys("hello from the app")
            driver.find_element(By.ID, "send-log-btn").click()
            driver.find_element(By.ID, "open-link-btn").click()

        in_frame(frame, log_and_link)
        ask = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='alertdialog'][aria-label='Open the link?']"))
        assert "https://modelcontextprotocol.io/" in ask.text, ask.text
        ask.find_element(By.XPATH, ".//button[text()='Cancel']").click()

        # The app follows the window's theme while no theme is picked for it: told, and shown.
        def app_theme_is(label, value):
            wait.until(lambda d: Select(d.find_element(By.CSS_SELECTOR, "select[aria-label='App theme']"))
                       .first_selected_option.text == label)
            in_frame(frame, lambda: wait.until(
                lambda d: d.execute_script("return document.documentElement.getAttribute('data-theme')") == value))

        h["choose_theme"]("Light")
        app_theme_is("Light", "light")
        h["choose_theme"]("Dark")
        app_theme_is("Dark", "dark")
        # A theme switch reaches the app, as the SDK applies it to the document.
        theme = Select(driver.find_element(By.CSS_SELECTOR, "select[aria-label='App theme']"))
        for choice, value in (("Light", "light"), ("Dark", "dark")):
            theme.select_by_visible_text(choice)
            in_frame(frame, lambda: wait.until(
                lambda d: d.execute_script("return document.documentElement.getAttribute('data-theme')") == value))
        lines = driver.find_element(By.CSS_SELECTOR, "ul[aria-label='App messages']").text
        assert "info: hello from the app" in lines, lines
        shot("app-basic")

        # Fullscreen: the frame takes the window, and the app is told; Back inline returns it.
        Select(driver.find_element(By.CSS_SELECTOR, "select[aria-label='Display mode']")).select_by_visible_text("Fullscreen")
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, FRAME).rect["width"] > 1200)
        # Named, as a fullscreen app takes the whole window.
        heading = driver.find_element(By.CSS_SELECTOR, "section[aria-label='App'] h3").text
        assert heading.startswith("App of "), heading
        shot("app-fullscreen")
        driver.find_element(By.XPATH, "//button[text()='Back inline']").click()
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, FRAME).rect["width"] < 1000)

        # Each app message is in the wire log as an `app` entry, beside the frames it caused.
        assert log_rows("kind:app method:ui/open-link"), "no ui/open-link entry"
        # Its answer says the link was not opened: the person cancelled.
        assert log_rows('kind:app dir:out isError'), "the link's answer is not in the log"
        assert log_rows('kind:app method:notifications/message "hello from the app"'), "the app's log message"
        assert log_rows("kind:app method:tools/call"), "the app's tools/call is not recorded"
        # Two calls reached the server: the window's, and the app's through the bridge.
        h["set_filter"]("kind:message method:tools/call get-time")
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "div[role='row'].message")) == 2)
        # The app started once: typing in the window (the filter) never reloads its frame.
        h["set_filter"]("kind:app method:ui/initialize dir:in")
        assert len(wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "div[role='row'].app"))) == 1
        # Sonde's answer carries the method of the request it answers, as a server's does.
        h["set_filter"]("kind:app method:ui/initialize dir:out")
        assert len(wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "div[role='row'].app"))) == 1
        assert log_rows("kind:app method:ui/notifications/host-context-changed fullscreen"), "the app was not told"

        # Stopping the server tears the app down: its teardown is sent, and the pane says so.
        h["press_on_window"]("ctrl+1")
        driver.find_element(By.XPATH, "//ul[@class='connections']/li[.//span[text()='Basic app']]//button[text()='Stop']").click()
        wait.until(lambda d: d.find_element(By.XPATH, "//p[normalize-space(.)=\"The app was closed: the app's connection ended.\"]"))
        assert not driver.find_elements(By.CSS_SELECTOR, FRAME)
        assert log_rows("kind:app method:ui/resource-teardown"), "no teardown in the log"
        # It was delivered while the frame was there: the app answered it.
        assert log_rows("kind:app dir:in sonde-"), "the app did not answer its teardown"

    @check
    def the_react_example_app_renders_and_calls_its_server():
        """The basic-react example's app renders with the server's time, and its Get Server Time button calls the server through the bridge"""
        bin_dir = os.path.join(os.environ["SONDE_PEERS"], "apps/node_modules/.bin")
        frame = open_app("React app", f"{bin_dir}/mcp-server-basic-react --stdio", "Get Time")

        def times():
            shown = lambda d: d.find_element(By.XPATH, "//p[strong[text()='Server Time:']]/code").text
            first = wait.until(lambda d: ISO.fullmatch(shown(d)) and shown(d))
            driver.find_element(By.XPATH, "//button[text()='Get Server Time']").click()
            return first, wait.until(lambda d: (t := shown(d)) != first and ISO.fullmatch(t) and t)

        first, second = in_frame(frame, times)
        assert second > first, (first, second)
        shot("app-react")
        assert log_rows("kind:app method:tools/call"), "the app's tools/call is not recorded"

    @check
    def a_hostile_app_is_refused_everything_and_the_window_stays_usable():
        """A hostile app's origin is not the window's: it reads neither the window's DOM nor its Tauri globals, its forged IPC changes nothing, an undeclared origin, the top window and a popup are refused, a model-only tool is refused and an app-only one answers; its flood is bounded, every refusal in the log, the window usable"""
        h["choose_theme"]("Dark")
        settings = os.path.join(os.environ["XDG_CONFIG_HOME"], "sonde", "settings.json")
        fixture = os.environ["SONDE_FIXTURE"]
        frame = open_app("Hostile app", f"{fixture} --app hostile", "show_app")

        def tried():
            written = lambda d: d.find_element(By.ID, "results").text
            # Its flood (20,200 messages through the window's inbox) takes seconds on a loaded
            # machine; when it never ends, what it wrote says which step waits.
            try:
                text = WebDriverWait(driver, 90, ignored_exceptions=[StaleElementReferenceException]).until(
                    lambda d: (t := written(d)).endswith("done") and t)
            except TimeoutException:
                raise AssertionError(f"the hostile app did not finish within 90 s; it wrote: {written(driver)!r}")
            origin, internals = driver.execute_script("return [window.origin + ' ' + location.origin, typeof window.__TAURI_INTERNALS__]")
            return dict(line.split(": ", 1) for line in text.splitlines() if ": " in line), origin, internals

        results, origin, internals = in_frame(frame, tried)
        window_origin = driver.execute_script("return location.origin")
        # The page is served from the app's own scheme, and sandboxed to an opaque origin.
        assert origin == "null sonde-app://localhost" and window_origin == "tauri://localhost", (origin, window_origin)
        assert internals == "undefined", internals
        assert results["parent-dom"].startswith("refused"), results
        assert results["top-dom"].startswith("refused"), results
        assert results["tauri-globals"] == "undefined/undefined/undefined", results
        assert results["parent-tauri"].startswith("refused"), results
        assert results["ipc-fetch"].startswith("refused"), results
        assert results["fetch-undeclared"].startswith("refused"), results
        assert results["popup"].startswith("refused"), results
        assert results["navigate-top"].startswith("refused"), results
        assert results["call-model-only-tool"] == "refused -32602", results
        assert results["call-app-only-tool"] == "answered poll answered", results
        assert results["call-unlisted-tool"] == 'the server does not list a tool "nowhere"', results
        # A flood of requests: every one answered (pong, or refused as dropped), none left waiting.
        assert results["flood-requests"].startswith("200 of 200 answered"), results
        # The forged IPC message changed nothing: the theme is still the one chosen.
        with open(settings) as f:
            assert json.load(f).get("theme") == "dark", "a forged theme_set reached the core"
        assert driver.execute_script("return document.documentElement.dataset.theme") == "dark"
        assert driver.execute_script("return location.protocol") == "tauri:"

        # The refusals, said in the pane and recorded; the flood bounded and counted.
        # The shown pane's messages: another line's app pane stays mounted, hidden.
        def messages(d):
            return "\n".join(u.text for u in d.find_elements(By.CSS_SELECTOR, "ul[aria-label='App messages']") if u.is_displayed())

        lines = wait.until(lambda d: (t := messages(d)) and "dropped" in t and t)
        assert "connect-src refused https://undeclared.invalid" in lines, lines
        # Its uncaught error, with the line of the page it was thrown on (WebKit alone would say
        # "Script error." and no line).
        page = os.path.join(os.path.dirname(__file__), "..", "..", "crates", "sonde-fixture", "src", "apps", "hostile.html")
        with open(page) as f:
            thrown_at = next(n for n, text in enumerate(f, 1) if "thrown by the hostile app on purpose" in text)
        thrown = wait.until(lambda d: (t := messages(d)) and "thrown by the hostile app on purpose" in t and t)
        assert re.search(rf"sonde-app://localhost/\d+:{thrown_at}:\d+", thrown), thrown
        assert "Script error" not in thrown, thrown
        shot("app-hostile")
        listed = [u for u in driver.find_elements(By.CSS_SELECTOR, "ul[aria-label='App messages'] li:last-child") if u.is_displayed()][0]
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", listed)
        shot("app-error-with-line")
        assert log_rows("kind:app from the app dropped"), "the flood's dropped messages are not in the log"
        assert log_rows('kind:app "connect-src refused https://undeclared.invalid"'), "the refused fetch is not in the log"
        # The frame did not leave: its last act, sending itself elsewhere, was refused.
        assert in_frame(frame, lambda: driver.execute_script("return location.href")).startswith("sonde-app://localhost/")
        # Usable: the app-only tool is listed apart, and the panels still answer.
        h["press_on_window"]("ctrl+1")
        apart = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "section[aria-label='Tools only apps call']"))
        assert "poll" in apart.text and "secret" not in apart.text, apart.text
        ordinary = driver.find_element(By.CSS_SELECTOR, ".tool-scroll > ul").text
        assert "poll" not in ordinary and "secret" in ordinary, ordinary

    @check
    def a_broken_app_resource_is_named_for_each_fault():
        """A broken app's resource: the wrong MIME type, HTML that does not parse, a CSP key and a permission the extension does not know, and an origin that is not one, each named in the pane"""
        fixture = os.environ["SONDE_FIXTURE"]
        open_app("Broken app", f"{fixture} --app broken", "show_app")
        found = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "ul[aria-label='Problems with the app']"))
        rules = sorted({li.get_attribute("data-rule") for li in found.find_elements(By.TAG_NAME, "li")})
        assert rules == ["app-csp", "app-html", "app-mime", "app-permission"], (rules, found.text)
        assert "telepathy" in found.text and "scriptDomains" in found.text, found.text
