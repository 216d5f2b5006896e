"""Real-window checks of past sessions (desktop.py runs them with its driver): a session the
sonde CLI recorded is listed in File → Open Session, opened read-only and filtered, one the CLI
is still writing is followed live until the CLI ends, and a client's session through `sonde
proxy` (stdio, and HTTP with `--listen`) shows each frame as the client sends it; a session pinned in
Open Session is kept when File → Settings saves a budget of one session; the theme chosen there
colours the window.
"""
import http.server
import os
import socket
import subprocess
import threading

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait


def install(check, driver, wait, shot, h):
    """Registers the checks; `h` holds desktop.py's helpers by name."""

    def sonde_cli():
        """The sonde CLI built beside the fixture server."""
        return os.path.join(os.path.dirname(os.environ["SONDE_FIXTURE"]), "sonde")


    def session_of(stderr_line):
        """The session file a sonde CLI run names on stderr, or None for another line."""
        prefix = "sonde: session log "
        return os.path.basename(stderr_line.strip()[len(prefix):]) if stderr_line.startswith(prefix) else None


    def open_session(name):
        """File → Open Session (Ctrl+O), then the session `name` picked and opened from the keyboard.
        Returns the dialog's row for it as it was listed."""
        h["press_on_window"]("ctrl+o")
        dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='dialog'][aria-label='Open session']"))
        option = wait.until(lambda d: dialog.find_element(By.XPATH, f".//li[@role='option'][@title='{name}']"))
        # innerText: WebKitWebDriver's visible text leaves out the cells of a grid row that clip
        # their overflow.
        listed = option.get_attribute("innerText")
        option.click()
        dialog.find_element(By.CSS_SELECTOR, "[role='listbox']").send_keys(Keys.ENTER)
        wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "[role='dialog'][aria-label='Open session']"))
        return listed


    def past_banner():
        return wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='status'][aria-label='Past session']"))


    @check
    def a_past_cli_session_is_opened_and_filtered():
        """a past CLI session (sonde tools list on the fixture) is opened via File → Open Session and filtered"""
        fixture = os.environ["SONDE_FIXTURE"]
        # The real CLI, writing where this app keeps its sessions (the same XDG_DATA_HOME).
        run = subprocess.run([sonde_cli(), "tools", "list", "--", fixture, "--tools", "3"], capture_output=True,
                             text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        name = next(n for n in map(session_of, run.stderr.splitlines()) if n)
        listed = open_session(name)
        assert f"{fixture} --tools 3" in listed and "sonde" in listed, listed
        banner = past_banner()
        assert "read-only" in banner.text and "--tools 3" in banner.text, banner.text
        # The past session takes the whole height: the live panels (another session's) are away.
        assert not driver.find_element(By.CSS_SELECTOR, "section.top").is_displayed()
        assert not driver.find_elements(By.CSS_SELECTOR, "[role='separator'][aria-orientation='horizontal']")
        h["set_filter"]("method:tools/list")
        rows = "//div[@role='row'][.//span[@class='c-sum' and starts-with(text(), 'tools/list')]]"
        wait.until(lambda d: len(d.find_elements(By.XPATH, rows)) == 2)
        count = driver.find_element(By.CSS_SELECTOR, ".log-bar .count").text
        assert count.startswith("2 of "), count
        # The reply, as the CLI received it: the fixture's three tools.
        driver.find_element(By.XPATH, f"{rows}[.//span[@class='c-dir' and text()='<']]").click()
        detail = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, ".detail"))
        wait.until(lambda d: "filler_3" in detail.text)
        shot("past-session")
        driver.find_element(By.XPATH, "//button[text()='Back to the live session']").click()
        wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "[aria-label='Past session']"))
        assert driver.find_element(By.CSS_SELECTOR, "section.top").is_displayed()


    @check
    def a_session_the_cli_is_still_writing_is_followed_live():
        """a session the CLI is still writing is followed live in the window until the CLI ends"""
        fixture = os.environ["SONDE_FIXTURE"]
        # Eight progress updates, 600 ms apart: the call takes about five seconds.
        cli = subprocess.Popen([sonde_cli(), "call", "echo", "--args", '{"text": "live"}', "--", fixture,
                                "--progress-steps", "8", "--step-ms", "600"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            name = None
            while name is None:
                line = cli.stderr.readline()
                assert line, "the CLI ended without naming its session log"
                name = session_of(line)
            listed = open_session(name)
            assert "being written" in listed, listed
            banner = past_banner()
            assert "being written by another Sonde process" in banner.text, banner.text
            h["set_filter"]("method:notifications/progress")

            def progress_rows(d):
                """The rows shown, once they are all progress notifications (the filter applied)."""
                sums = [e.get_attribute("innerText") for e in d.find_elements(By.CSS_SELECTOR, ".rows .row .c-sum")]
                return len(sums) if sums and all(s.startswith("notifications/progress") for s in sums) else None

            # Some arrive while the window watches (the call is still under way), then all eight.
            seen = wait.until(progress_rows)
            assert seen < 8 or cli.poll() is None, "nothing was left to follow live"
            shot("live-session")
            wait.until(lambda d: progress_rows(d) == 8)
            assert cli.wait(timeout=30) == 0
            wait.until(lambda d: "read-only" in past_banner().text)
        finally:
            if cli.poll() is None:
                os.killpg(cli.pid, 9)
            cli.wait()

    @check
    def a_live_proxy_session_shows_a_clients_frame_within_a_second():
        """a client's session through sonde proxy is opened live: a frame the client sends shows within a second, marked sent, the client named"""
        import time
        fixture = os.environ["SONDE_FIXTURE"]
        # The client: this script, writing to the proxy's stdin as Claude Desktop would.
        # Its session is found as a person finds it, the newest in the folder: the proxy's
        # stderr is the client's, and Sonde writes nothing of its own there.
        folder = os.path.join(os.environ["XDG_DATA_HOME"], "sonde", "sessions")
        before = set(os.listdir(folder))
        proxy = subprocess.Popen([sonde_cli(), "proxy", "--", fixture], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            name = wait.until(lambda d: next(
                (f for f in sorted(os.listdir(folder)) if f.endswith(".jsonl") and f not in before), None))

            def say(frame):
                proxy.stdin.write(frame.encode() + b"\n")
                proxy.stdin.flush()

            say('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
                '"capabilities":{},"clientInfo":{"name":"e2e-client","version":"7"}}}')
            assert b'"id":1' in proxy.stdout.readline()
            say('{"jsonrpc":"2.0","method":"notifications/initialized"}')
            open_session(name)
            assert "being written by another Sonde process" in past_banner().text
            h["set_filter"]("method:tools/list")
            sent = time.monotonic()
            say('{"jsonrpc":"2.0","id":2,"method":"tools/list"}')
            row = "//div[@role='row'][.//span[@class='c-dir' and text()='>']][.//span[@class='c-sum' and starts-with(text(), 'tools/list')]]"
            WebDriverWait(driver, 1.0, poll_frequency=0.02).until(lambda d: d.find_elements(By.XPATH, row))
            print(f"     the client's tools/list was shown {time.monotonic() - sent:.2f} s after it was sent")
            assert b'"id":2' in proxy.stdout.readline()
            shot("live-proxy-session")
            h["set_filter"]("kind:note")
            wait.until(lambda d: d.find_elements(By.XPATH, "//div[@role='row']//span[contains(text(), 'the client is e2e-client 7')]"))
            proxy.stdin.close()
            assert proxy.wait(timeout=30) == 0
            wait.until(lambda d: "read-only" in past_banner().text)
        finally:
            if proxy.poll() is None:
                os.killpg(proxy.pid, 9)
            proxy.wait()
        driver.find_element(By.XPATH, "//button[text()='Back to the live session']").click()

    @check
    def a_live_http_proxy_session_shows_a_clients_request_within_a_second():
        """a client's session through sonde proxy --listen is opened live: its POSTed request shows within a second, marked sent, the client named"""
        import json
        import time
        import urllib.request
        server = subprocess.Popen([os.path.join(os.path.dirname(os.environ["SONDE_FIXTURE"]), "sonde-fixture-http")],
                                  stdout=subprocess.PIPE, text=True, start_new_session=True)
        proxy = None
        try:
            port = server.stdout.readline().split()[1]
            proxy = subprocess.Popen([sonde_cli(), "proxy", "--listen", "127.0.0.1:0", "--url", f"http://127.0.0.1:{port}/mcp"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True, start_new_session=True)
            name = url = None
            while url is None:
                line = proxy.stderr.readline()
                assert line, "the proxy ended before it listened"
                name = name or session_of(line)
                if line.startswith("sonde: point the client at "):
                    url = line.split()[5]

            def post(message, session=None):
                """POSTs one message as a Streamable HTTP client does; the response's session id."""
                headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
                if session:
                    headers["Mcp-Session-Id"] = session
                request = urllib.request.Request(url, data=json.dumps(message).encode(), headers=headers)
                with urllib.request.urlopen(request, timeout=30) as response:
                    response.read()
                    return response.headers.get("Mcp-Session-Id")

            session = post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "e2e-http-client", "version": "8"}}})
            post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
            open_session(name)
            assert "being written by another Sonde process" in past_banner().text
            h["set_filter"]("method:tools/list")
            sent = time.monotonic()
            post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, session)
            row = "//div[@role='row'][.//span[@class='c-dir' and text()='>']][.//span[@class='c-sum' and starts-with(text(), 'tools/list')]]"
            WebDriverWait(driver, 1.0, poll_frequency=0.02).until(lambda d: d.find_elements(By.XPATH, row))
            print(f"     the client's tools/list was shown {time.monotonic() - sent:.2f} s after it was POSTed")
            # Its reply too, and the exchange's HTTP entries: the POST and the response head.
            reply = "//div[@role='row'][.//span[@class='c-dir' and text()='<']][.//span[@class='c-sum' and starts-with(text(), 'tools/list')]]"
            wait.until(lambda d: d.find_elements(By.XPATH, reply))
            shot("live-http-proxy-session")
            h["set_filter"]("kind:note")
            wait.until(lambda d: d.find_elements(By.XPATH, "//div[@role='row']//span[contains(text(), 'the client is e2e-http-client 8')]"))
            proxy.terminate()
            assert proxy.wait(timeout=30) == 0
            wait.until(lambda d: "read-only" in past_banner().text)
        finally:
            for p in (proxy, server):
                if p is not None and p.poll() is None:
                    os.killpg(p.pid, 9)
                if p is not None:
                    p.wait()
        driver.find_element(By.XPATH, "//button[text()='Back to the live session']").click()

    @check
    def a_saved_server_shows_the_config_entry_a_client_needs():
        """Client… on a saved server shows the config entry each client needs to run it through sonde proxy"""
        card = "//ul[@class='servers']/li[.//div[text()='Demo server']]"
        wait.until(lambda d: d.find_element(By.XPATH, f"{card}//button[text()='Client…']")).click()
        dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='dialog'][aria-label='Use with a client']"))
        entry = wait.until(lambda d: dialog.find_element(By.CSS_SELECTOR, "pre[aria-label='Config entry']"))
        wait.until(lambda d: '"mcpServers"' in entry.text)
        said = entry.text
        assert '"proxy"' in said and '"Demo server"' in said and '"demo-server"' in said, said
        # VS Code's own shape: `servers`, with a type.
        dialog.find_element(By.TAG_NAME, "select").send_keys("VS Code")
        wait.until(lambda d: '"servers"' in entry.text and '"stdio"' in entry.text)
        shot("use-with-a-client")
        # Copy puts the entry on the clipboard: pasted into the log's filter box, it is there.
        said = entry.text
        dialog.find_element(By.XPATH, ".//button[text()='Copy']").click()
        wait.until(lambda d: dialog.find_element(By.XPATH, ".//*[@role='status'][text()='Copied.']"))
        dialog.find_element(By.XPATH, ".//button[text()='Close']").click()
        wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "[aria-label='Use with a client']"))
        box = driver.find_element(By.CSS_SELECTOR, "input[aria-label='Filter the log']")
        box.send_keys(Keys.CONTROL, "a")
        box.send_keys(Keys.CONTROL, "v")
        pasted = wait.until(lambda d: box.get_attribute("value"))
        assert " ".join(pasted.split()) == " ".join(said.split()), (pasted, said)
        h["set_filter"]("")


    @check
    def a_session_pinned_in_open_session_is_kept_by_a_budget_saved_in_settings():
        """P pins a session in Open Session (in its card) and another is opened; File → Settings asks before a budget of one session removes the oldest others, listing them, and keeps the pinned one and the one opened"""
        sessions = os.path.join(os.environ["XDG_DATA_HOME"], "sonde", "sessions")
        runs = [subprocess.run([sonde_cli(), "tools", "list", "--", os.environ["SONDE_FIXTURE"]], capture_output=True,
                               text=True, timeout=60) for _ in range(3)]
        names = [next(n for n in map(session_of, r.stderr.splitlines()) if n) for r in runs]
        h["press_on_window"]("ctrl+o")
        dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='dialog'][aria-label='Open session']"))
        option = wait.until(lambda d: dialog.find_element(By.XPATH, f".//li[@role='option'][@title='{names[0]}']"))
        option.click()
        dialog.find_element(By.CSS_SELECTOR, "[role='listbox']").send_keys("p")
        wait.until(lambda d: option.find_element(By.XPATH, ".//button[@aria-pressed='true'][text()='pinned']"))
        with open(os.path.join(sessions, names[0].replace(".jsonl", ".card.json"))) as f:
            assert '"pinned":true' in f.read(), "the pin is not in the card"
        # The second is opened (read in the log view), then the live session is back.
        dialog.find_element(By.XPATH, f".//li[@role='option'][@title='{names[1]}']").click()
        dialog.find_element(By.CSS_SELECTOR, "[role='listbox']").send_keys(Keys.ENTER)
        wait.until(lambda d: d.find_element(By.XPATH, "//button[text()='Back to the live session']")).click()
        # Ctrl+, is File → Settings.
        h["press_on_window"]("ctrl+comma")
        settings = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='dialog'][aria-label='Settings']"))
        folder = wait.until(lambda d: settings.find_element(By.CSS_SELECTOR, "[aria-label='Sessions folder']"))
        assert sessions in folder.text, folder.text
        keep = settings.find_element(By.XPATH, ".//label[contains(., 'Keep at most')]/input")
        keep.send_keys("1")
        shot("settings")
        settings.find_element(By.XPATH, ".//button[text()='Save']").click()
        # Save asks first: what would go is listed, the session opened is kept and said so, and
        # nothing has gone yet.
        ask = wait.until(lambda d: settings.find_element(By.CSS_SELECTOR, "[role='alertdialog'][aria-label='Remove sessions?']"))
        going = ask.find_element(By.CSS_SELECTOR, "ul[aria-label='Sessions to remove']").text
        assert names[2] in going and names[0] not in going and names[1] not in going, going
        kept = ask.find_element(By.CSS_SELECTOR, "[aria-label='Sessions kept']").text
        assert names[1] in kept and "opened or replayed in the last hour" in kept, kept
        # Checks before this one may have opened sessions too: each kept is named.
        in_use = kept.removeprefix("Kept, though older: ").split(" (opened")[0].split(", ")
        assert names[1] in in_use, in_use
        assert names[2] in os.listdir(sessions), "a session went before the yes"
        shot("settings-remove-sessions")
        ask.find_element(By.XPATH, ".//button[starts-with(text(), 'Remove ')]").click()
        notice = wait.until(lambda d: d.find_element(By.XPATH, "//*[@role='status'][starts-with(., 'Settings saved; Sonde removed the')]"))
        assert "to keep the sessions folder within 1 session and" in notice.text, notice.text
        said = ("kept 1 older session: it was opened or replayed in the last hour" if len(in_use) == 1 else
                f"kept {len(in_use)} older sessions: they were opened or replayed in the last hour")
        assert said in notice.text, notice.text
        left = os.listdir(sessions)
        assert names[0] in left, "the pinned session was removed"
        assert names[1] in left, "the session opened a moment ago was removed"
        assert names[2] not in left, "an unpinned past session was kept over a budget of one"
        # This window's own session, being written, stays too; and nothing else.
        assert sum(1 for f in left if f.endswith(".jsonl")) == 2 + len(in_use), (left, in_use)
        notice.find_element(By.XPATH, ".//button[text()='Dismiss']").click()
        # The default budget again, for the checks after this one: the field emptied and saved.
        h["press_on_window"]("ctrl+comma")
        settings = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='dialog'][aria-label='Settings']"))
        keep = wait.until(lambda d: settings.find_element(By.XPATH, ".//label[contains(., 'Keep at most')]/input"))
        assert keep.get_attribute("value") == "1", keep.get_attribute("value")
        keep.send_keys(Keys.BACKSPACE)
        settings.find_element(By.XPATH, ".//button[text()='Save']").click()
        saved = wait.until(lambda d: d.find_element(By.XPATH, "//*[@role='status'][starts-with(., 'Settings saved.')]"))
        # Dismissed, as a person would: it would sit above every later view.
        saved.find_element(By.XPATH, ".//button[text()='Dismiss']").click()
        wait.until(lambda d: not d.find_elements(By.XPATH, "//*[@role='status'][starts-with(., 'Settings saved.')]"))


    @check
    def settings_sends_spans_to_a_collector_and_says_how_it_goes():
        """File → Settings → Traces: a collector that is not there costs spans, said with why; a real one takes them as protobuf on /v1/traces and the count grows with each call; emptied, none are sent"""
        received = []

        class Collector(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                received.append((self.path, self.headers["Content-Type"], len(body)))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        collector = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Collector)
        threading.Thread(target=collector.serve_forever, daemon=True).start()
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            nobody = s.getsockname()[1]
        status = "//*[@role='status'][@aria-label='Spans']"

        def set_collector(url):
            h["press_on_window"]("ctrl+comma")
            settings = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='dialog'][aria-label='Settings']"))
            field = wait.until(lambda d: settings.find_element(By.XPATH, ".//label[contains(., 'Collector URL')]/input"))
            field.send_keys(Keys.CONTROL, "a")
            field.send_keys(Keys.BACKSPACE)
            if url:
                field.send_keys(url)
            settings.find_element(By.XPATH, ".//button[text()='Save']").click()
            saved = wait.until(lambda d: d.find_element(By.XPATH, "//*[@role='status'][starts-with(., 'Settings saved.')]"))
            saved.find_element(By.XPATH, ".//button[text()='Dismiss']").click()

        def said_until(words, picture=None):
            """Opens Settings and waits until the spans' status says `words` (it is looked at
            again each second); returns what it said, Settings closed (its picture taken first)."""
            h["press_on_window"]("ctrl+comma")
            settings = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='dialog'][aria-label='Settings']"))
            text = WebDriverWait(driver, 20).until(
                lambda d: (t := settings.find_element(By.XPATH, status).text) and words(t) and t)
            if picture:
                shot(picture)
            settings.find_element(By.XPATH, ".//button[text()='Cancel']").click()
            return text

        h["ensure_connected"]("Demo server")
        try:
            set_collector(f"http://127.0.0.1:{nobody}")
            h["call_tool"]("Echo", ["to nobody"], "to nobody")
            said = said_until(lambda t: "dropped" in t)
            assert said.startswith(f"Sending spans to http://127.0.0.1:{nobody}/v1/traces: 0 sent, "), said
            assert "(nothing answers there)" in said, said

            set_collector(f"http://127.0.0.1:{collector.server_port}")
            h["call_tool"]("Echo", ["to the collector"], "to the collector")
            first = said_until(lambda t: ": 0 sent" not in t and "sent" in t)
            sent = int(first.split(": ")[1].split(" sent")[0])
            assert received and all(r[0] == "/v1/traces" and r[1] == "application/x-protobuf" and r[2] > 0 for r in received), received
            h["call_tool"]("Echo", ["and again"], "and again")
            said_until(lambda t: int(t.split(": ")[1].split(" sent")[0]) > sent, "settings-traces")
        finally:
            set_collector("")
            collector.shutdown()
        assert said_until(lambda t: t.startswith("No spans are sent")) == "No spans are sent: name a collector to send them to."

    @check
    def a_server_saved_to_start_traces_gets_sondes_traceparent_on_each_request():
        """A server saved with "Start a trace for each request": its tools/call carries a traceparent in _meta marked sonde=own, seen in the wire log; the demo's calls carry none"""
        marked = 'method:tools/call dir:out "sonde=own"'
        grid = "[role='grid'][aria-label='Wire log'] div[role='row'][data-seq]"
        if not h["saved"]("Traced echo"):
            # Before it: the calls of every other check's servers, none of which traces.
            h["set_filter"](marked)
            assert not driver.find_elements(By.CSS_SELECTOR, grid), "a call of a server that does not trace is marked"
            # With an argument: a bare path is taken by Selenium for a file to upload.
            h["add_server"]("Traced echo", command=f"{os.environ['SONDE_FIXTURE']} --tools 1", trace=True)
        h["ensure_connected"]("Traced echo")
        h["press_on_window"]("ctrl+1")
        h["call_tool"]("echo", ["traced"], "traced")
        h["set_filter"](marked)
        row = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, grid))[-1]
        row.click()
        detail = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[aria-label='Entry detail']"))
        wait.until(lambda d: '"traceparent"' in detail.text and '"00-' in detail.text)

    @check
    def the_theme_chosen_in_settings_colours_the_window_and_is_kept():
        """File → Settings: Light makes the window light (its page and the settings file), System follows the desktop, Dark again"""
        choose = h["choose_theme"]

        def background():
            return driver.execute_script("return getComputedStyle(document.documentElement).backgroundColor")

        config = os.path.join(os.environ["XDG_CONFIG_HOME"], "sonde", "settings.json")
        choose("Light")
        wait.until(lambda d: d.execute_script("return document.documentElement.dataset.theme") == "light")
        assert background() == "rgb(244, 246, 249)", background()
        with open(config) as f:
            assert '"theme": "light"' in f.read()
        shot("theme-light")
        choose("System")
        wait.until(lambda d: d.execute_script("return document.documentElement.dataset.theme") == "system")
        choose("Dark")
        wait.until(lambda d: background() == "rgb(14, 23, 38)")
        shot("theme-dark")
