"""Real-window checks of OAuth (issue 12; desktop.py runs them with its driver): a saved HTTP
server protected by the Python SDK's resource-server support, with tokens from a real
authorization server (oauth2-mock-server). Connect shows the flow's steps as the core reports
them; the browser step is driven by the test, which reads the URL the window shows and follows
it as a browser would (Python's urllib), landing on Sonde's loopback listener; the connection
becomes ready, a tool answers, and the credential is listed and forgotten in Authorizations.
"""
import os
import subprocess
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
            shot("oauth-waiting-for-the-browser")
            authorize_url = link.text.strip()
            assert authorize_url.startswith("http://localhost:") and "code_challenge_method=S256" in authorize_url, authorize_url

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

    def forget_credential(url):
        driver.find_element(By.XPATH, "//button[normalize-space()='Authorizations…']").click()
        dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='dialog'][aria-label='Authorizations']"))
        row = wait.until(lambda d: dialog.find_element(By.XPATH, f".//li[.//*[text()='{url}']]"))
        shot("oauth-authorizations")
        row.find_element(By.XPATH, ".//button[text()='Forget']").click()
        wait.until(lambda d: not dialog.find_elements(By.XPATH, f".//li[.//*[text()='{url}']]"))
        dialog.find_element(By.XPATH, ".//button[text()='Close']").click()
