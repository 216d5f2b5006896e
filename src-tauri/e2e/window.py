"""Real-window checks of the window as a server author uses it with two servers at once (issue
21): replies found through the core's pairing even when two connections use the same ids, a
jump that keeps the filter, connections told apart by name, and a call's result waiting on its
connection after the person switched away and back. desktop.py runs them with its driver.
"""
import re

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys


def install(check, driver, wait, shot, h):
    """Registers the checks; `h` holds desktop.py's helpers by name."""

    def visible(xpath):
        return wait.until(lambda d: next((e for e in d.find_elements(By.XPATH, xpath) if e.is_displayed()), None))

    def ready_cards(name):
        return driver.find_elements(By.XPATH, h["ready_status"](name))

    def conn_of(status):
        """The connection number a card's status belongs to (its card says `conn N`)."""
        card = status.find_element(By.XPATH, "./ancestor::li[1]")
        return int(card.find_element(By.CSS_SELECTOR, "span.conn").text.split()[-1])

    def select(status):
        status.click()
        wait.until(lambda d: "selected" in (status.find_element(By.XPATH, "./ancestor::li[1]").get_attribute("class") or ""))

    def fill(field, value):
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys(Keys.BACKSPACE)
        field.send_keys(value)
        wait.until(lambda d: field.get_attribute("value") == value)

    def start_slow(seconds):
        """Calls the demo's Slow task on the selected connection and returns at once."""
        h["press_on_window"]("ctrl+1")
        visible("//button[contains(@class,'tool')][.//strong[text()='Slow task']]").click()
        fill(visible("//div[contains(@class,'tool-call')]//input"), str(seconds))
        visible("//button[text()='Call']").click()
        visible("//button[text()='Calling…']")

    def two_fresh_demo_connections():
        """Two new connections to the demo server, opened the same way: their request ids
        advance in step. Returns their statuses, oldest first."""
        h["connect"]("Demo server")
        h["connect"]("Demo server")
        # Each lists what its panels show as it opens; both settle before anything is called.
        statuses = ready_cards("Demo server")[-2:]
        for status in statuses:
            select(status)
            visible("//button[contains(@class,'tool')][.//strong[text()='Echo']]")
        return statuses

    def sent_rows(tool):
        xpath = f"//div[@role='row'][.//span[@class='c-sum'][starts-with(text(),'tools/call #')][contains(concat(text(),' '),' {tool} ')]]"
        return driver.find_elements(By.XPATH, xpath)

    def id_of(row):
        # textContent: the column may be too narrow to show the whole summary.
        return re.search(r"#(\S+)", row.find_element(By.CSS_SELECTOR, ".c-sum").get_attribute("textContent")).group(1)

    @check
    def two_connections_with_the_same_ids_jump_to_their_own_replies():
        """two connections send a request with the same id; each jumps to its own reply, filter kept"""
        x, y = two_fresh_demo_connections()
        x_conn, y_conn = conn_of(x), conn_of(y)
        # x's call takes seconds; y's call with the same id is answered first.
        select(x)
        start_slow(4)
        select(y)
        h["call_tool"]("Echo", ["collide"], "collide")
        h["set_filter"]("method:tools/call dir:out")
        slow = wait.until(lambda d: sent_rows("slow")[-1:])[0]
        echo = wait.until(lambda d: sent_rows("echo")[-1:])[0]
        assert id_of(slow) == id_of(echo), f"the two calls did not collide: #{id_of(slow)} and #{id_of(echo)}"
        assert f"connection {x_conn}" in slow.find_element(By.CSS_SELECTOR, ".c-conn").get_attribute("title")
        slow.click()
        # The button comes once the reply is recorded (the slow call answers after 4 s).
        visible("//div[@aria-label='Entry detail']//button[text()='Jump to response']").click()
        # The detail is drawn anew for each entry: found again each time.
        detail = lambda: driver.find_element(By.CSS_SELECTOR, "[aria-label='Entry detail']")
        heading = lambda: detail().find_element(By.TAG_NAME, "strong").text
        call = id_of(slow)
        wait.until(lambda d: f"tools/call slow #{call} result" in heading())
        title = detail().find_element(By.CSS_SELECTOR, ".c-conn").get_attribute("title")
        assert f"connection {x_conn})" in title and f"connection {y_conn})" not in title, title
        assert "done after 4 s" in detail().text, detail().text
        # The jump kept the filter the person typed: the reply is shown beside it.
        box = driver.find_element(By.CSS_SELECTOR, "input[aria-label='Filter the log']")
        assert box.get_attribute("value") == "method:tools/call dir:out", box.get_attribute("value")
        visible("//p[@role='note'][contains(., 'the filtered list does not show it here')]")
        shot("log-jump-keeps-filter")
        # And back: the reply jumps to its own request.
        visible("//div[@aria-label='Entry detail']//button[text()='Jump to request']").click()
        wait.until(lambda d: heading() == f"> tools/call slow #{call}")

    @check
    def a_call_still_running_is_waiting_after_switching_away_and_back():
        """a call's result that arrives while another connection is shown waits on its connection"""
        x, y = ready_cards("Demo server")[-2:]
        select(x)
        start_slow(2)
        select(y)
        # y's own panel is shown: no result of x's call on it.
        visible("//button[contains(@class,'tool')][.//strong[text()='Echo']]")
        h["set_filter"]("method:tools/call dir:in")
        answered = f"//div[@role='row'][.//span[@class='c-sum'][starts-with(text(),'tools/call #')][contains(concat(text(),' '),' slow ')]][.//span[contains(@title,'connection {conn_of(x)})')]]"
        wait.until(lambda d: d.find_elements(By.XPATH, answered))
        select(x)
        result = visible("//*[@aria-label='Tool result']")
        assert "done after 2 s" in result.text, result.text
        visible("//div[contains(@class,'tool-call')]//h2[text()='Slow task']")
        shot("tools-result-kept")

    @check
    def two_servers_are_told_apart_by_name_in_the_log():
        """rows of two servers carry each server's name, and Connect again offers a second connection"""
        if not h["saved"]("Everything"):
            h["add_server"]("Everything", command=f"{h['everything']()} stdio")
        h["ensure_connected"]("Everything")
        h["ensure_connected"]("Demo server")
        h["set_filter"]("method:tools/list dir:out")
        names = lambda d: {e.text for e in d.find_elements(By.CSS_SELECTOR, ".rows .row .c-conn")}
        wait.until(lambda d: {"Demo server", "Everything"} <= names(d))
        shot("log-two-servers")
        # Connect on a server already connected says so, and opens nothing unless asked.
        before = len(ready_cards("Demo server"))
        visible("//ul[@class='servers']/li[.//div[text()='Demo server']]//button[text()='Connect']").click()
        offer = visible("//*[@role='alertdialog'][@aria-label='Already connected']")
        assert "Demo server is already connected" in offer.text, offer.text
        offer.find_element(By.XPATH, ".//button[text()='Cancel']").click()
        assert len(ready_cards("Demo server")) == before
        h["set_filter"]("")

    @check
    def edit_undo_and_redo_work_in_a_field():
        """Edit → Undo and Redo (Ctrl+Z, Ctrl+Shift+Z: the menu's own items on Linux) in the filter box"""
        box = visible("//input[@aria-label='Filter the log']")
        h["set_filter"]("")
        # Clearing a filter left by an earlier check is typing too: leaving the box ends that
        # typing, so what is typed next is an undo step of its own (WebKit merges a deletion
        # and the typing that follows it).
        driver.execute_script("arguments[0].blur()", box)
        box.click()
        box.send_keys("method:tools/list")
        wait.until(lambda d: box.get_attribute("value") == "method:tools/list")

        def becomes(text, after):
            try:
                wait.until(lambda d: box.get_attribute("value") == text)
            except TimeoutException:
                focus = driver.execute_script(
                    "return [document.hasFocus(), document.activeElement && document.activeElement.outerHTML.slice(0, 80)]")
                raise AssertionError(f"{after} left {box.get_attribute('value')!r}, not {text!r} (focus {focus})") from None

        h["press_on_window"]("ctrl+z")
        becomes("", "Undo")
        h["press_on_window"]("ctrl+shift+z")
        becomes("method:tools/list", "Redo")
        h["set_filter"]("")

