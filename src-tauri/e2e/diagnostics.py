"""Real-window checks of protocol diagnostics (issue 14): a broken server's faults are marked on
their log rows with the rule, listed with the fix and the specification in the detail, and
`diag:error` in the filter finds them; the Diagnostics panel groups them by rule, and checks a
saved server up. desktop.py runs them with its driver.
"""
import os

from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def text_of(driver, css):
    """The text of the element `css` finds, found and read in one look; empty when it was drawn
    anew between the two (a stale element), so a wait looks again."""
    try:
        return driver.find_element(By.CSS_SELECTOR, css).text
    except (StaleElementReferenceException, NoSuchElementException):
        return ""


def install(check, driver, wait, shot, h):
    """Registers the check; `h` holds desktop.py's helpers by name."""

    @check
    def a_broken_servers_faults_are_marked_on_their_frames():
        """a banner on stdout and a result without its content array are findings: a badge on the row, the rule and fix in the detail, diag:error in the filter"""
        name = "Broken fixture"
        if not h["saved"](name):
            h["add_server"](name, command=f"{os.environ['SONDE_FIXTURE']} --banner listening --malformed-tools")
        h["connect"](name)
        h["call_tool"]("content_not_array", [], "The result is malformed")
        h["set_filter"]("diag:error")
        badge = "//div[@role='row']//span[contains(@class,'diag') and contains(@class,'error')][text()='result-shape']"
        wait.until(lambda d: d.find_element(By.XPATH, badge)).click()
        findings = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, ".detail [aria-label='Findings']"))
        said = findings.text
        assert "error result-shape: tools/call's result: `content` is an object, where CallToolResult requires an array" in said, said
        assert "MCP schema: CallToolResult.content" in said, said
        shot("finding-result-shape")
        # The banner is a warning: diag:error leaves it out, diag:warning finds both.
        assert not driver.find_elements(By.XPATH, "//div[@role='row']//span[text()='stdout-not-protocol']")
        h["set_filter"]("diag:warning")
        wait.until(lambda d: d.find_element(By.XPATH, "//div[@role='row']//span[contains(@class,'warning')][text()='stdout-not-protocol']"))
        # The rule a row shows is a filter value too, in any case: only that rule's frames.
        h["set_filter"]("DIAG:Stdout-Not-Protocol")
        wait.until(lambda d: d.find_element(By.XPATH, "//button[contains(@class,'chip')][contains(., 'diag:stdout-not-protocol')]"))
        wait.until(lambda d: d.find_element(By.XPATH, "//div[@role='row']//span[text()='stdout-not-protocol']"))
        assert not driver.find_elements(By.XPATH, "//div[@role='row']//span[text()='result-shape']")
        h["set_filter"]("")

    @check
    def the_diagnostics_panel_groups_findings_and_checks_a_saved_server_up():
        """the Diagnostics panel lists the broken server's findings by rule with counts, each frame one click from the log, and its check-up reports each check with its evidence"""
        name = "Broken fixture"
        if not h["saved"](name):
            h["add_server"](name, command=f"{os.environ['SONDE_FIXTURE']} --banner listening --malformed-tools")
        h["ensure_connected"](name)
        h["set_filter"]("")
        driver.find_element(By.XPATH, "//div[@role='tablist']/button[text()='Diagnostics']").click()
        # The list is drawn again as entries arrive: each look finds it afresh.
        group = "//ul[contains(@class,'rule-groups')]/li[.//span[text()='stdout-not-protocol']]"
        said = wait.until(lambda d: d.find_element(By.XPATH, group).get_attribute("textContent"))
        assert "warning × 1" in said, said
        # A frame's number shows it in the wire log, its finding in the detail.

        def first_frame_clicked(d):
            try:
                d.find_element(By.XPATH, f"{group}//*[contains(@class,'frames')]//button").click()
                return True
            except StaleElementReferenceException:
                return False

        wait.until(first_frame_clicked)
        # The detail is drawn anew once the entry's row is read: its text is read in one look.
        wait.until(lambda d: "stdout-not-protocol" in text_of(d, ".detail [aria-label='Findings']"))
        shot("diagnostics-panel")
        # The check-up runs the saved server on connections of its own and reports each check.
        driver.find_element(By.XPATH, f"//button[text()='Check up {name}']").click()
        WebDriverWait(driver, 60).until(lambda d: d.find_element(By.CSS_SELECTOR, "[aria-label='Check-up result']"))
        # Each row found afresh: the table is drawn again as the window's state moves on.
        row = lambda check: driver.find_element(
            By.XPATH, f"//table[contains(@class,'checks')]//tr[.//*[contains(@class,'id')][text()='{check}']]")
        status = lambda check: row(check).find_element(By.CSS_SELECTOR, ".status").text
        assert status("handshake") == "pass"
        assert status("tool-schemas") == "fail", row("tool-schemas").text
        assert "numeric_required" in row("tool-schemas").text
        # A MUST of the stdio transport: a fail, as sonde doctor says.
        assert status("stdout") == "fail"
        said = text_of(driver, "[aria-label='Check-up result']")
        assert "2 fail" in said, said
        # Its connections go by the saved server's name in the sidebar, as in the log, never
        # by their command line.
        sidebar = driver.find_element(By.CSS_SELECTOR, "ul.connections").text
        assert "sonde-fixture --banner" not in sidebar, sidebar
        shot("check-up")
        row("stdout").find_element(By.CSS_SELECTOR, "button.link").click()
        wait.until(lambda d: "listening" in d.find_element(By.CSS_SELECTOR, ".detail").text)

    @check
    def a_check_up_of_server_everything_sees_it_exit_when_stdin_closes():
        """server-everything checked up from the window (with the window's roots, elicitation and sampling): it exits within the stdin grace, and the check-up says so"""
        name = "Everything"
        if not h["saved"](name):
            h["add_server"](name, command=f"{h['everything']()} stdio")
        h["ensure_connected"](name)
        driver.find_element(By.XPATH, "//div[@role='tablist']/button[text()='Diagnostics']").click()
        wait.until(lambda d: d.find_element(By.XPATH, f"//button[text()='Check up {name}']")).click()
        WebDriverWait(driver, 60).until(lambda d: d.find_element(By.CSS_SELECTOR, "[aria-label='Check-up result']"))
        row = lambda check: driver.find_element(
            By.XPATH, f"//table[contains(@class,'checks')]//tr[.//*[contains(@class,'id')][text()='{check}']]")
        shutdown = row("shutdown").get_attribute("textContent")
        print("     shutdown:", shutdown)
        assert row("shutdown").find_element(By.CSS_SELECTOR, ".status").text == "pass", shutdown
        assert "within the grace" in shutdown, shutdown
