"""Real-window checks of the window's third pass (issue 53); desktop.py runs them with its driver.

The form keeps its values per tool; the call history lists a tool's calls on its line, and a call
in the wire log is put back in the form (Edit and send) or sent again as it was (Send again); two
calls of the history are compared side by side. The log's note that the selected entry is not in
the list is there exactly when the filter hides it, and clearing the filter keeps the selection in
view. Ten ended connections fold into one group, so the sidebar stays short.
"""
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

HISTORY = "section[aria-label='Call history']"
NOTE = "//p[@role='note'][contains(., 'the filtered list does not show it here')]"


def install(check, driver, wait, shot, h):
    # Other lines' panels stay mounted, hidden: only what is shown is the person's.
    def shown(by, what):
        return [e for e in driver.find_elements(by, what) if e.is_displayed()]

    def choose(title):
        button = wait.until(lambda d: shown(By.XPATH, f"//button[contains(@class,'tool')][.//strong[text()='{title}']]"))[0]
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
        button.click()

    def fields():
        return wait.until(lambda d: shown(By.CSS_SELECTOR, ".tool-call form input"))

    def retype(field, value):
        # Each call of send_keys lets go of its modifiers: Ctrl is not held over the value.
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys(Keys.BACKSPACE)
        field.send_keys(value)

    def history():
        return wait.until(lambda d: shown(By.CSS_SELECTOR, HISTORY))[0]

    def history_lines():
        # Read whole: the list may be below the pane's fold.
        return [li.get_attribute("textContent") for li in history().find_elements(By.CSS_SELECTOR, "li.call-entry")]

    grid = "[role='grid'][aria-label='Wire log'] div[role='row']"

    def newest_seq():
        """The newest seq the log lists now, whatever its filter: a call made after has a larger one."""
        return max((int(r.get_attribute("data-seq")) for r in driver.find_elements(By.CSS_SELECTOR, f"{grid}[data-seq]")), default=-1)

    def log_row_of(terms, seq=None, newer_than=-1):
        """Selects a tools/call request Sonde sent that `terms` (filter terms) keep: the one at
        `seq`, else the newest, once it is newer than `newer_than`; returns its detail and seq.
        On a loaded machine the list may not hold the newest call yet: it is waited for."""
        h["set_filter"](f"method:tools/call dir:out {terms}")
        if seq is None:
            row = wait.until(lambda d: (rows := d.find_elements(By.CSS_SELECTOR, f"{grid}[data-seq]"))
                             and int(rows[-1].get_attribute("data-seq")) > newer_than and rows[-1])
        else:
            row = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, f"{grid}[data-seq='{seq}']"))
        seq = row.get_attribute("data-seq")
        row.click()
        detail = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[aria-label='Entry detail']"))
        return detail, seq

    @check
    def the_form_keeps_its_values_per_tool_and_a_call_in_the_log_is_edited_and_sent_again():
        """The form keeps Add's values while another tool is chosen; the history lists its calls on the line; Edit and send on a call in the log puts its arguments back in the form; Send again sends it as it was; two calls of the history side by side"""
        h["ensure_connected"]("Demo server")
        h["press_on_window"]("ctrl+1")
        choose("Add")
        a, b = fields()[:2]
        for field, value in ((a, "20"), (b, "3")):
            retype(field, value)
        choose("Echo")
        choose("Add")
        kept = [f.get_attribute("value") for f in fields()[:2]]
        assert kept == ["20", "3"], kept
        before = newest_seq()
        shown(By.XPATH, "//button[text()='Call']")[0].click()
        wait.until(lambda d: shown(By.XPATH, "//*[contains(text(), '20 + 3 = 23')]"))
        wait.until(lambda d: any('{"a":20,"b":3}' in line for line in history_lines()))

        # Edit and send from the log: the call's arguments are back in Add's form, to change.
        detail, first = log_row_of("target:add", newer_than=before)
        wait.until(lambda d: detail.find_element(By.XPATH, ".//button[text()='Edit and send']")).click()
        wait.until(lambda d: [f.get_attribute("value") for f in fields()[:2]] == ["20", "3"])
        retype(fields()[1], "5")
        shown(By.XPATH, "//button[text()='Call']")[0].click()
        wait.until(lambda d: shown(By.XPATH, "//*[contains(text(), '20 + 5 = 25')]"))

        # Send again from the log: the first call (the one before the newest), as it was sent.
        detail, _ = log_row_of("target:add", seq=first)
        wait.until(lambda d: detail.find_element(By.XPATH, ".//button[text()='Send again']")).click()
        wait.until(lambda d: sum('{"a":20,"b":3}' in line for line in history_lines()) >= 2)
        lines = history_lines()
        assert '{"a":20,"b":3}' in lines[0] and "result" in lines[0], lines
        assert '{"a":20,"b":5}' in lines[1], lines

        # Two calls of the history, picked, side by side: they differ.
        boxes = history().find_elements(By.CSS_SELECTOR, "li.call-entry input[type='checkbox']")
        boxes[0].click()
        boxes[1].click()
        compared = wait.until(lambda d: history().find_element(By.CSS_SELECTOR, "[aria-label='Two calls compared']"))
        assert "The results differ" in compared.text, compared.text
        assert "25" in compared.text and "23" in compared.text, compared.text
        # The two results in view, as a person scrolls down to them.
        driver.execute_script("arguments[0].scrollIntoView({block: 'end'})", compared)
        wait.until(lambda d: d.execute_script(
            "const r = arguments[0].getBoundingClientRect(); return r.bottom <= innerHeight && r.bottom > 0", compared))
        shot("call-history-compared")

    @check
    def the_log_says_the_selection_is_hidden_exactly_when_the_filter_hides_it():
        """A selected entry the filter hides is said to be hidden; one the filter keeps is not; clearing the filter keeps the selection, in view"""
        h["ensure_connected"]("Demo server")
        h["press_on_window"]("ctrl+1")
        h["call_tool"]("Echo", ["kept in view"], "kept in view")
        _, seq = log_row_of("kept")
        grid = "[role='grid'][aria-label='Wire log']"
        selected = lambda d: d.find_element(By.CSS_SELECTOR, f"{grid} div[role='row'].selected").get_attribute("data-seq")
        assert not driver.find_elements(By.XPATH, NOTE), "the note while the list shows it"
        # A filter that hides it: said.
        h["set_filter"]("kind:lifecycle")
        wait.until(lambda d: d.find_element(By.XPATH, NOTE))
        # One that keeps it: not said, and it is selected in the new list.
        h["set_filter"]("method:tools/call")
        WebDriverWait(driver, 10, ignored_exceptions=[StaleElementReferenceException]).until(lambda d: selected(d) == seq)
        assert not driver.find_elements(By.XPATH, NOTE), "the note while the list shows it"
        # Cleared: the whole log, the selection kept and in view, nothing said.
        h["set_filter"]("")
        WebDriverWait(driver, 10, ignored_exceptions=[StaleElementReferenceException]).until(lambda d: selected(d) == seq)
        row = driver.find_element(By.CSS_SELECTOR, f"{grid} div[role='row'].selected")
        inside = driver.execute_script(
            "const r = arguments[0].getBoundingClientRect(), g = arguments[1].getBoundingClientRect();"
            "return r.top >= g.top && r.bottom <= g.bottom;", row, driver.find_element(By.CSS_SELECTOR, grid))
        assert inside, "the selection is out of view"
        assert not driver.find_elements(By.XPATH, NOTE), "the note with no filter"

    @check
    def ten_ended_connections_fold_into_one_group_and_the_sidebar_stays_short():
        """Ten connections that ended fold into one Ended (10) group, the sidebar stays short; expanded, each is a short card"""
        if not h["saved"]("Quick exit"):
            h["add_server"]("Quick exit", command="sh -c 'echo gone >&2; exit 1'")
        connect = "//li[.//div[text()='Quick exit']]//button[text()='Connect']"
        ended = "//button[contains(@class,'fold')][starts-with(normalize-space(.), '▸ Ended (') or starts-with(normalize-space(.), '▾ Ended (')]"
        count = lambda d: int(d.find_element(By.XPATH, ended).text.split("(")[1].split(")")[0]) if d.find_elements(By.XPATH, ended) else 0
        failed = "//ul[@class='connections']/li[.//span[text()='Quick exit']][.//div[@data-status='failed']]"
        # Every line that ended: those in the group, and the selected one, still a card of its own.
        total = lambda d: count(d) + len(d.find_elements(By.XPATH, failed))
        start = total(driver)
        for n in range(1, 11):
            wait.until(lambda d: d.find_element(By.XPATH, connect)).click()
            # Its first run is asked about natively: `until` answers as a person would.
            h["until"](lambda d: total(d) >= start + n)
        # Another line selected: every failed one is in the group, folded.
        h["ensure_connected"]("Demo server")
        wait.until(lambda d: count(d) >= start + 10)
        # Folded, the ten take one line: none has a card of its own (other checks' live lines may).
        live = driver.find_element(By.CSS_SELECTOR, "ul.connections:not(.ended)")
        assert not live.find_elements(By.XPATH, "./li[.//span[text()='Quick exit']]"), "an ended card outside the group"
        assert not driver.find_elements(By.CSS_SELECTOR, "ul.connections.ended"), "the group is not folded"
        header = driver.find_element(By.CSS_SELECTOR, "div.ended-group")
        assert header.size["height"] < 60, header.size
        shot("sidebar-ten-ended")
        driver.find_element(By.XPATH, ended).click()
        group = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "ul.connections.ended"))
        cards = group.find_elements(By.XPATH, "./li[.//span[text()='Quick exit']]")
        assert len(cards) >= 10, len(cards)
        heights = [c.size["height"] for c in cards]
        assert max(heights) < 140, heights
        assert not group.find_elements(By.TAG_NAME, "pre"), "a card carries its last words"
        # Cleared, the cards go; the sessions stay.
        driver.find_element(By.XPATH, "//div[@class='ended-group']//button[text()='Clear ended']").click()
        wait.until(lambda d: count(d) == 0)
