"""Real-window checks of OAuth (issue 12; desktop.py runs them with its driver): a saved HTTP
server protected by the Python SDK's resource-server support, with tokens from a real
authorization server (oauth2-mock-server). Connect shows the flow's steps as the core reports
them; the browser step is driven by the test, which reads the URL the window shows and follows
it as a browser would (Python's urllib), landing on Sonde's loopback listener; the connection
becomes ready, a tool answers, and the credential is listed and forgotten in Authorizations. A
refusal comes the way an authorization server sends one: the redirect with `error=access_denied`.
"""
import os
import subprocess
import urllib.parse
import urllib.request

from selenium.webdriver.common.by import By

HERE = os.path.dirname(os.path.abspath(__file__))


def install(check, driver, wait, shot, h):
    """Registers the checks; `h` holds desktop.py's helpers by name."""
    peers = os.environ["SONDE_PEERS"]
    servers = []

    def start(args, cwd=None):
        process = subprocess.Popen(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   start_new_session=True, text=True)
        servers.append(process)
        return process

    def protected_server():
        """The authorization server and the protected MCP server; the MCP server's URL."""
        script = os.path.join(peers, "oauth", "oauth_as.mjs")
        auth = start([os.path.join(peers, "node22/node_modules/.bin/node"), script], cwd=os.path.dirname(script))
        issuer = auth.stdout.readline().split()[1]
        port = h["free_port"]()
        start([os.path.join(peers, "py/bin/python"),
               os.path.join(HERE, "../../tests/peers/py_oauth_server.py"), str(port), issuer])
        h["wait_listening"](port)
        return f"http://127.0.0.1:{port}/mcp"

    def stop_servers():
        for process in servers:
            try:
                os.killpg(process.pid, 9)
            except ProcessLookupError:
                pass
            process.wait()
        servers.clear()

    @check
    def an_oauth_server_is_authorized_in_steps_and_its_credential_forgotten():
        """an OAuth-protected server: Connect shows the flow's steps, the browser step (driven by the test) authorizes it, a tool answers, and Authorizations forgets its credential"""
        try:
            url = protected_server()
            name = "Protected"
            assert not h["saved"](name), "a server named Protected was saved before this check"
            add_protected(name, url)
            wait.until(lambda d: d.find_element(By.XPATH, f"//li[.//div[text()='{name}']]//button[text()='Connect']")).click()

            # The flow, as the core reports it: discovery and registration done, authorization
            # waiting at the URL the window shows.
            link = wait.until(lambda d: next((e for e in d.find_elements(By.CSS_SELECTOR, "[data-testid='auth-url']")
                                              if e.is_displayed()), None))
            steps = "//ol[@aria-label='Authorization steps']/li"
            wait.until(lambda d: d.find_elements(By.XPATH, f"{steps}[@data-step='discovery'][@data-state='done']"))
            wait.until(lambda d: d.find_elements(By.XPATH, f"{steps}[@data-step='authorization'][@data-state='running']"))
            card = f"//ul[@class='connections']/li[.//span[text()='{name}']]"
            wait.until(lambda d: "authorizing" in d.find_element(By.XPATH, card).text)
            shot("oauth-waiting-for-the-browser", show=driver.find_element(By.XPATH, card))
            authorize_url = link.text.strip()
            assert authorize_url.startswith("http://localhost:") and "code_challenge_method=S256" in authorize_url, authorize_url
            # Copy link puts the whole URL on the clipboard, for a browser of the person's choosing.
            flow = f"{card}//section[@aria-label='Authorization']"
            driver.find_element(By.XPATH, f"{flow}//button[text()='Copy link']").click()
            said = wait.until(lambda d: d.find_element(By.XPATH, f"{flow}//*[text()='Link copied.' or starts-with(text(),'The link could not')]"))
            assert said.text == "Link copied.", said.text
            # Pasted as a person pastes it (Ctrl+V, through X), into the log's filter box.
            box = driver.find_element(By.CSS_SELECTOR, "input[aria-label='Filter the log']")
            driver.execute_script("arguments[0].focus()", box)
            h["press_on_window"]("ctrl+v")
            wait.until(lambda d: box.get_attribute("value") == authorize_url)
            h["set_filter"]("")

            # The person's browser: the authorization server redirects to Sonde's listener.
            page = urllib.request.urlopen(authorize_url, timeout=30).read().decode()
            assert "You can close this window" in page, page

            wait.until(lambda d: d.find_elements(By.XPATH, h["ready_status"](name)))
            wait.until(lambda d: d.find_elements(By.XPATH, f"{steps}[@data-step='token'][@data-state='done']"))
            shot("oauth-authorized")
            # An HTTP connection has no pid: its card is selected as it opens; a click keeps it so.
            wait.until(lambda d: d.find_element(By.XPATH, h["ready_status"](name))).click()
            h["call_tool"]("add", ["2", "3"], "5.0")

            # The wire log holds the flow's exchanges with their secrets redacted.
            h["set_filter"]("authorization · token")
            wait.until(lambda d: d.find_elements(By.XPATH, "//div[@role='row']"))
            h["set_filter"]("")

            # The flow, once done, folds to one line without its URL, and opens from the keyboard.
            folded = f"{card}//details[contains(@class,'auth-flow')]"
            summary = wait.until(lambda d: d.find_element(By.XPATH, f"{folded}/summary"))
            assert summary.text.startswith("Authorized for"), summary.text
            assert not [e for e in driver.find_elements(By.XPATH, f"{card}//*[@data-testid='auth-url']") if e.is_displayed()]
            driver.execute_script("arguments[0].focus()", summary)
            h["press_on_window"]("Return")
            token = wait.until(lambda d: d.find_element(By.XPATH, f"{folded}//li[@data-step='token'][@data-state='done']"))
            assert token.is_displayed(), "the folded flow did not open"

            # Authorizations lists the credential (never its token) and forgets it.
            forget_credential(url)
            shot("oauth-authorizations-empty")
        finally:
            stop_servers()

    def add_protected(name, url):
        """Saves the server with the client registered beforehand (this authorization server has no
        dynamic registration), through the Add dialog's OAuth client fields."""
        driver.find_element(By.CSS_SELECTOR, "button[aria-label='Add a server']").click()
        dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "form.dialog"))
        dialog.find_element(By.XPATH, ".//label[contains(., 'Name')]/input").send_keys(name)
        dialog.find_element(By.XPATH, ".//label[contains(., 'URL (HTTP)')]/input").click()
        dialog.find_element(By.XPATH, ".//label[contains(., 'URL')]/input[@class='mono']").send_keys(url)
        dialog.find_element(By.XPATH, ".//details[contains(@class,'oauth-fields')]/summary").click()
        dialog.find_element(By.XPATH, ".//label[normalize-space(text()[1])='Client ID']/input").send_keys("sonde-window")
        dialog.find_element(By.XPATH, ".//button[text()='Save']").click()
        wait.until(lambda d: h["saved"](name))

    def authorizations():
        driver.find_element(By.XPATH, "//button[normalize-space()='Authorizations…']").click()
        return wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='dialog'][aria-label='Authorizations']"))

    def forget_credential(url):
        dialog = authorizations()
        row = wait.until(lambda d: dialog.find_element(By.XPATH, f".//li[.//*[text()='{url}']]"))
        # What the credential is, never its token: the issuer, the client, its scopes, when it
        # expires and whether it can be refreshed.
        for said in ("sonde-window", "expires in", "refreshable"):
            assert said in row.text, row.text
        shot("oauth-authorizations")
        row.find_element(By.XPATH, ".//button[text()='Forget']").click()
        wait.until(lambda d: not dialog.find_elements(By.XPATH, f".//li[.//*[text()='{url}']]"))
        wait.until(lambda d: "Sonde holds no authorizations." in dialog.text)
        forget_all = dialog.find_element(By.XPATH, ".//button[normalize-space()='Forget all…']")
        assert not forget_all.is_enabled(), "Forget all is offered with nothing to forget"
        dialog.find_element(By.XPATH, ".//button[text()='Close']").click()

    def waiting_at(name):
        """Connects `name` and waits until its flow waits for the browser; the URL it shows."""
        wait.until(lambda d: d.find_element(By.XPATH, f"//li[.//div[text()='{name}']]//button[text()='Connect']")).click()
        card = f"(//ul[@class='connections']/li[.//span[text()='{name}']])[last()]"
        link = wait.until(lambda d: next((e for e in d.find_elements(By.XPATH, f"{card}//*[@data-testid='auth-url']")
                                          if e.is_displayed()), None))
        return card, link.text.strip()

    @check
    def a_refused_authorization_fails_and_forget_all_asks_first():
        """an OAuth server's authorization refused by its server fails its step with the reason and the connection with it; authorized, Forget all asks first, keeps the credential on Escape, and forgets it when confirmed, by keyboard"""
        try:
            url = protected_server()
            name = "Refused"
            add_protected(name, url)
            card, authorize_url = waiting_at(name)
            # The authorization server's refusal, as it sends one: back to Sonde's listener with
            # the error and the state it was given.
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(authorize_url).query)
            refusal = urllib.parse.urlencode({"error": "access_denied", "error_description": "the person declined",
                                              "state": query["state"][0]})
            try:
                urllib.request.urlopen(f"{query['redirect_uri'][0]}?{refusal}", timeout=30).read()
            except urllib.error.HTTPError:
                pass  # the listener may answer the refusal with an error status; the window says the rest
            flow = f"{card}//section[@aria-label='Authorization']"
            step = wait.until(lambda d: d.find_element(By.XPATH, f"{flow}//li[@data-step='authorization'][@data-state='failed']"))
            assert "access_denied: the person declined" in step.text, step.text
            wait.until(lambda d: d.find_element(By.XPATH, f"{card}//*[@data-status='failed']"))
            assert not [e for e in driver.find_elements(By.XPATH, f"{card}//*[@data-testid='auth-url']") if e.is_displayed()]
            shot("oauth-refused")

            # Authorized this time; Forget all in Authorizations, by keyboard.
            card, authorize_url = waiting_at(name)
            assert "You can close this window" in urllib.request.urlopen(authorize_url, timeout=30).read().decode()
            wait.until(lambda d: d.find_elements(By.XPATH, h["ready_status"](name)))
            dialog = authorizations()
            row = f".//li[.//*[text()='{url}']]"
            wait.until(lambda d: dialog.find_element(By.XPATH, row))
            # Close has the focus; Shift+Tab reaches Forget all.
            h["press_on_window"]("shift+Tab")
            focused = lambda: driver.execute_script("return document.activeElement.textContent")
            assert focused() == "Forget all…", focused()
            h["press_on_window"]("Return")
            confirm = wait.until(lambda d: dialog.find_element(By.CSS_SELECTOR, "[role='alertdialog'][aria-label='Forget all authorizations']"))
            assert "Forget all 1 authorizations?" in confirm.text, confirm.text
            # Escape answers the confirmation, not the dialog; the credential stays.
            h["press_on_window"]("Escape")
            wait.until(lambda d: not dialog.find_elements(By.CSS_SELECTOR, "[role='alertdialog']"))
            assert dialog.find_elements(By.XPATH, row), "Escape forgot the credential"
            h["press_on_window"]("Return")
            wait.until(lambda d: dialog.find_element(By.CSS_SELECTOR, "[role='alertdialog']"))
            # The safe answer has the focus; Shift+Tab reaches Forget all.
            h["press_on_window"]("shift+Tab")
            h["press_on_window"]("Return")
            wait.until(lambda d: "Sonde holds no authorizations." in dialog.text)
            dialog.find_element(By.XPATH, ".//button[text()='Close']").click()
        finally:
            stop_servers()
