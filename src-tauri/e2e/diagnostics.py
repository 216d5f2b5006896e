"""Real-window check of protocol findings (issue 14, its first rules): a broken server's faults
are marked on their log rows with the rule, listed with the fix and the specification in the
detail, and `diag:error` in the filter finds them. desktop.py runs it with its driver.
"""
import os

from selenium.webdriver.common.by import By


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
        h["set_filter"]("")
