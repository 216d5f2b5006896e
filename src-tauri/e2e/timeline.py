"""Real-window checks of the timeline and the latency table (issue 37); desktop.py runs them with
its driver. With two servers connected (the demo and a fixture whose echo answers late), the
timeline has a lane for each; a person zooms from the keyboard towards the one long request
until it fills the view and the fast ones have left it, hovers it for its method, outcome and
latency, and clicks it: the log selects that request. The latency table has a row for the slow
tool, and its row filters the log to that tool's calls.
"""
import os
import re

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

GUTTER = 150  # ui/src/timeline/draw.ts: the lanes' names, left of the plot
AXIS = 20


def tip_text(driver):
    """The timeline's tooltip as it reads now ("" when there is none), found again each time:
    it goes when the hover ends (the pointer off a span, the pane scrolled) and comes back as a
    new element, so one found before may be stale (make test failed once on that)."""
    try:
        tips = driver.find_elements(By.CSS_SELECTOR, ".timeline-tip")
        return tips[0].text if tips else ""
    except StaleElementReferenceException:
        return ""


def install(check, driver, wait, shot, h):
    """Registers the checks; `h` holds desktop.py's helpers by name."""

    def listed():
        """The requests in view, as the timeline lists them for keyboards and screen readers."""
        out = []
        for b in driver.find_elements(By.CSS_SELECTOR, "section.timeline ul[aria-label='Requests in view, longest first'] button"):
            out.append({
                "seq": int(b.get_attribute("data-seq")),
                "conn": int(b.get_attribute("data-conn")),
                "start": float(b.get_attribute("data-start")),
                "end": float(b.get_attribute("data-end")),
                "words": b.get_attribute("textContent"),
            })
        return out

    def window_of(canvas):
        return float(canvas.get_attribute("data-from")), float(canvas.get_attribute("data-to"))

    @check
    def the_timeline_finds_a_slow_call_by_zooming_and_selects_it_in_the_log():
        """The timeline has a lane per server; zooming from the keyboard finds the slow call among the fast ones; hovering names it with its latency; a click selects its request in the log; the latency table's row filters the log to that tool"""
        fixture = os.environ["SONDE_FIXTURE"]
        if not h["saved"]("Late echo"):
            h["add_server"]("Late echo", command=f"{fixture} --reply-delay-ms 900")
        h["ensure_connected"]("Demo server")
        h["press_on_window"]("ctrl+1")
        for a in ("1", "2", "3"):
            h["call_tool"]("Add", [a, "1"], f"{a} + 1 = {int(a) + 1}")
        h["ensure_connected"]("Late echo")
        h["press_on_window"]("ctrl+1")
        h["call_tool"]("echo", ["sluggish-reply"], "sluggish-reply")
        h["ensure_connected"]("Demo server")
        h["call_tool"]("Add", ["4", "1"], "4 + 1 = 5")

        driver.find_element(By.XPATH, "//button[@role='tab'][text()='Wire log']").click()
        h["set_filter"]("")
        driver.find_element(By.XPATH, "//button[text()='Timeline']").click()
        canvas = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "canvas.timeline-canvas"))
        # Both servers have a lane; the slow echo is in view among the fast calls (the list of
        # requests in view is longest first, so a long shared session cannot push it out).
        connections = lambda d: int(re.search(r"Timeline of (\d+) connections", canvas.get_attribute("aria-label")).group(1))
        wait.until(lambda d: connections(d) >= 2)
        slow = wait.until(lambda d: [r for r in listed() if "tools/call echo" in r["words"] and "result" in r["words"]])
        slow = max(slow, key=lambda r: r["end"] - r["start"])
        assert slow["end"] - slow["start"] >= 850, slow
        counted = lambda: int(re.search(r"(\d+) of \d+ requests in view",
                                        driver.find_element(By.CSS_SELECTOR, ".timeline-bar").text).group(1))
        before = counted()
        shot("timeline-whole")
        # Opened, it has room (its own height, the panels above giving some up at 1280×800), and
        # its controls and axis stay in view as its lanes scroll.
        pane = driver.find_element(By.CSS_SELECTOR, "section.timeline")
        assert pane.size["height"] >= 200, pane.size
        driver.execute_script("arguments[0].scrollTop = 60", pane)
        head_top, pane_top = driver.execute_script(
            "return [arguments[0].querySelector('.timeline-head').getBoundingClientRect().top,"
            " arguments[0].getBoundingClientRect().top]", pane)
        assert abs(head_top - pane_top) < 1, (head_top, pane_top)
        driver.execute_script("arguments[0].scrollTop = 0", pane)

        # Zoom as a keyboard user (Tab to the timeline, then keys): pan towards the slow call and
        # zoom in until it fills a quarter of the view or more, zooming out when the view has become narrower.
        driver.execute_script("arguments[0].focus()", canvas)
        start, end = slow["start"], slow["end"]
        for _ in range(60):
            lo, hi = window_of(canvas)
            width = hi - lo
            inside = lo <= start and end <= hi
            if inside and end - start >= width * 0.25:
                break
            centre = (start + end) / 2
            if width < (end - start) * 1.05:
                key = "-"
            # Outside the middle third, pan (a step is a quarter of the view, so it lands there).
            elif centre < lo + width * 0.35:
                key = Keys.ARROW_LEFT
            elif centre > lo + width * 0.65:
                key = Keys.ARROW_RIGHT
            elif inside:
                key = "+"
            else:
                # Zoomed in past one of its ends: a quarter's pan brings it whole into view.
                key = Keys.ARROW_LEFT if centre < lo + width / 2 else Keys.ARROW_RIGHT
            canvas.send_keys(key)
            # Each step is drawn before the next (the core answers the new window first). A pan
            # that the session's edge stops changes nothing: a person zooms in instead.
            try:
                WebDriverWait(driver, 3).until(lambda d: window_of(canvas) != (lo, hi))
            except TimeoutException:
                canvas.send_keys("+")
                wait.until(lambda d: window_of(canvas) != (lo, hi))
        lo, hi = window_of(canvas)
        assert lo <= slow["start"] and slow["end"] <= hi and slow["end"] - slow["start"] >= (hi - lo) * 0.25, (slow, lo, hi)
        # Zoomed in, the fast calls outside the slow one's time have left the view.
        wait.until(lambda d: [r for r in listed() if r["seq"] == slow["seq"]])
        assert counted() < before, (counted(), before)

        # Hover the slow call: the tooltip names it, with how it ended and after how long.
        plot = canvas.size["width"] - GUTTER
        x = GUTTER + ((slow["start"] + slow["end"]) / 2 - lo) / (hi - lo) * plot
        tip = None
        for y in range(AXIS + 4, canvas.size["height"], 5):
            # The pane scrolls when its lanes are taller than it: bring the point into view.
            driver.execute_script("const s = arguments[0].closest('section.timeline');"
                                  "s.scrollTop = Math.max(0, arguments[1] - s.clientHeight / 2);", canvas, y)
            # To the point in the viewport: an element's centre for WebDriver is that of its part
            # in view, which a tall, scrolled canvas does not share with its own.
            left, top = driver.execute_script(
                "const r = arguments[0].getBoundingClientRect(); return [r.left, r.top];", canvas)
            pointer = ActionBuilder(driver)
            pointer.pointer_action.move_to_location(int(left + x), int(top + y))
            pointer.perform()
            if "tools/call echo" in tip_text(driver):
                tip = wait.until(lambda d: "after" in tip_text(d) and tip_text(d))
                break
        assert tip, "no tooltip over the slow call"
        assert "result after" in tip, tip
        shot("timeline")

        # A click selects its request in the log.
        ActionChains(driver).click().perform()
        # The list scrolls the row into view as it selects it, so the row is read again until it holds.
        selected = lambda d: d.find_element(By.CSS_SELECTOR, "div[role='row'].selected").get_attribute("data-seq")
        WebDriverWait(driver, 10, ignored_exceptions=[StaleElementReferenceException]).until(
            lambda d: selected(d) == str(slow["seq"]))
        detail = driver.find_element(By.CSS_SELECTOR, "[aria-label='Entry detail']").text
        assert "tools/call" in detail and "Jump to response" in detail, detail

        # The latency table of the slow server's requests (the filter's): the slow tool's row,
        # whose click filters the log to its calls.
        # The slowest settled call of what the filter shows is one key away: S zooms to it and
        # selects it in the log, from the whole session (the server's calls: its opening may
        # have been slower on a loaded machine).
        h["set_filter"](f"conn:{slow['conn']} method:tools/call")
        driver.execute_script("arguments[0].focus()", canvas)
        canvas.send_keys("0")
        whole = wait.until(lambda d: (w := window_of(canvas)) and w[0] == 0 and w)
        # S goes to the slowest of what the view shows: once it shows the filter's calls only (on
        # a loaded machine the filter reaches the view after the keys, and another server's call
        # is slower).
        wait.until(lambda d: (rows := listed()) and all(r["conn"] == slow["conn"] for r in rows))
        canvas.send_keys("s")
        # The zoom is drawn over several frames: the window settles on the slow call.
        seen = []
        try:
            wait.until(lambda d: (w := window_of(canvas)) != whole and seen.append(w) is None
                       and w[0] <= slow["start"] and slow["end"] <= w[1])
        except TimeoutException:
            raise AssertionError(f"S did not zoom to the slowest call {slow}: the windows drawn {seen[-3:]}") from None
        WebDriverWait(driver, 10, ignored_exceptions=[StaleElementReferenceException]).until(
            lambda d: selected(d) == str(slow["seq"]))
        shot("timeline-slowest-call")
        h["set_filter"](f"conn:{slow['conn']}")
        driver.find_element(By.XPATH, "//button[text()='Latency']").click()
        row = wait.until(lambda d: d.find_element(By.XPATH, "//table[@class='latency-table']//tr[.//button[normalize-space(text())='echo']]"))
        # Its one call answered after the fixture's 900 ms: p50, p95 and max are that call's.
        cells = [c.text for c in row.find_elements(By.TAG_NAME, "td")]
        assert cells[1] == "1" and all(re.fullmatch(r"9\d\d ms", c) for c in cells[2:5]), cells
        # The picture: the timeline closed, so the table has its room, scrolled to the tool's row.
        toggle = driver.find_element(By.XPATH, "//button[text()='Timeline']")
        toggle.click()
        wait.until(lambda d: toggle.get_attribute("aria-pressed") == "false")
        echo = "//table[@class='latency-table']//tr[.//button[normalize-space(text())='echo']]"
        driver.execute_script("arguments[0].scrollIntoView({block: 'end'})", wait.until(lambda d: d.find_element(By.XPATH, echo)))
        shot("latency")
        toggle.click()
        wait.until(lambda d: toggle.get_attribute("aria-pressed") == "true")
        row = wait.until(lambda d: d.find_element(By.XPATH, echo))
        name = row.find_element(By.XPATH, ".//button")
        # The pane scrolls when the window is short: the row is brought into view, as a person scrolls to it.
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", name)
        name.click()
        grid = "[role='grid'][aria-label='Wire log']"
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, grid).get_attribute("data-filter") == "method:tools/call target:echo")
        rows = wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, f"{grid} div[role='row'][data-seq]")) >= 2
                          and d.find_elements(By.CSS_SELECTOR, f"{grid} div[role='row'][data-seq]"))
        summaries = [r.find_element(By.CSS_SELECTOR, ".c-sum").get_attribute("title") for r in rows]
        assert all("tools/call" in t and "echo" in t for t in summaries), summaries
        driver.find_element(By.XPATH, "//button[text()='Latency']").click()
        driver.find_element(By.XPATH, "//button[text()='Timeline']").click()
