"""Real-window checks of host compatibility (desktop.py runs them with its driver): a saved server
set to connect as ChatGPT opens with ChatGPT's initialize (on the wire), and the Diagnostics
panel's Hosts table judges each of the fixture's risky tools under every host: a dotted name
refused by ChatGPT's pattern, a long one by the name Claude Code and Cursor give it, the rest
taken, and what ChatGPT does not show.
"""
import os

from selenium.webdriver.common.by import By


def install(check, driver, wait, shot, h):
    """Registers the checks; `h` holds desktop.py's helpers by name."""

    def visible(xpath):
        return wait.until(lambda d: next((e for e in d.find_elements(By.XPATH, xpath) if e.is_displayed()), None))

    @check
    def a_server_connects_as_chatgpt_and_the_hosts_table_judges_each_tool():
        """Connect as ChatGPT: its initialize on the wire; the Hosts table: files.read refused by ChatGPT, a 70-character name by Claude Code, the rest taken, a second server's echo named alike"""
        if not h["saved"]("Risky"):
            h["add_server"]("Risky", command=f"{os.environ['SONDE_FIXTURE']} --tools 3 --risky-tools", host="ChatGPT")
        # A second server whose name differs only in case: Claude Code and Cursor name its echo as
        # they name Risky's.
        if not h["saved"]("risky"):
            h["add_server"]("risky", command=f"{os.environ['SONDE_FIXTURE']} --tools 1")
        h["ensure_connected"]("risky")
        h["ensure_connected"]("Risky")
        # On the wire: ChatGPT's clientInfo and protocol version, not Sonde's.
        h["set_filter"]("method:initialize dir:out")
        rows = wait.until(lambda d: d.find_elements(
            By.CSS_SELECTOR, "[role='grid'][aria-label='Wire log'] div[role='row'][data-seq]"))
        rows[-1].click()
        detail = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[aria-label='Entry detail']"))
        wait.until(lambda d: "openai-mcp" in detail.text)
        assert "2025-03-26" in detail.text, detail.text
        h["set_filter"]("")

        h["press_on_window"]("ctrl+8")
        wait.until(lambda d: d.find_element(By.XPATH, "//button[@role='tab'][@aria-selected='true'][text()='Diagnostics']"))
        visible("//section[@aria-label='Hosts']//button[text()='Check against the hosts']").click()
        table = visible("//table[@aria-label='Tools by host']")
        heads = [th.text for th in table.find_elements(By.XPATH, "./thead/tr/th")]
        assert heads == ["Tool", "ChatGPT", "Claude Code", "Claude Desktop", "Cursor", "VS Code"], heads

        def cell(tool, host):
            column = heads.index(host) + 1
            return table.find_element(By.XPATH, f"./tbody/tr[td[1]/code[text()='{tool}']]/td[{column}]")

        refused = cell("files.read", "ChatGPT")
        assert "bad" in refused.get_attribute("class"), refused.get_attribute("class")
        assert refused.text == "✗ name", refused.text
        assert cell("files.read", "VS Code").text == "✓"
        long = "a_tool_whose_name_runs_on_and_on_past_what_model_apis_accept_as_names"
        assert cell(long, "Claude Code").text == "✗ name, qualified name", cell(long, "Claude Code").text
        # Why, in the core's words, under the table.
        reasons = visible("//ul[@aria-label='Why hosts refuse tools']")
        assert "files.read in ChatGPT: ChatGPT accepts tool names matching ^[a-zA-Z0-9_-]{1,64}$" in reasons.text, reasons.text
        assert "Claude Code names it mcp__Risky__a_tool_whose" in reasons.text, reasons.text
        same = visible("//ul[@aria-label='Tools of other servers with the same name']")
        assert "echo here (mcp__Risky__echo) and echo of risky (mcp__risky__echo) are one name to Claude Code" in same.text, same.text
        assert cell("echo", "ChatGPT").text == "✓"
        shown = table.find_element(By.XPATH, "./tbody/tr[td[1][text()='Not shown']]")
        assert shown.find_elements(By.TAG_NAME, "td")[heads.index("VS Code")].text == "everything declared"
        driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", table)
        shot("hosts-table")
        # The next check finds the Tools panel, as a line opens on it.
        h["press_on_window"]("ctrl+1")
