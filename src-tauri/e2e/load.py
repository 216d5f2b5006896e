"""Real-window checks of Load test… (issue 56): a server that stalls once and fails every 40th call
is loaded from the Tools panel with the form's arguments; the chart draws each second as it closes,
the report shows the stall in the tail (the budget broken, in the core's words) and the errors by
kind; the run is kept, a second run (no stall now) is compared with it side by side.
"""
import os

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select


def install(check, driver, wait, shot, h):
    """Registers the checks; `h` holds desktop.py's helpers by name."""

    def visible(xpath, within=None):
        root = within or driver
        return wait.until(lambda d: next((e for e in root.find_elements(By.XPATH, xpath) if e.is_displayed()), None))

    def set_field(dialog, label, value):
        field = dialog.find_element(By.XPATH, f".//input[@aria-label='{label}']")
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys(Keys.BACKSPACE)
        field.send_keys(value)
        wait.until(lambda d: field.get_attribute("value") == value)

    def press(element):
        """Clicks `element` once it is in the middle of the dialog, clear of its sticky footer."""
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        wait.until(lambda d: element.is_displayed() and element.is_enabled())
        element.click()

    def run(dialog):
        press(dialog.find_element(By.XPATH, ".//button[text()='Start']"))
        # Live: a second is drawn while the run goes on, before its report.
        wait.until(lambda d: dialog.find_element(By.XPATH, ".//*[@aria-label='Load status']").text.startswith("Running: "))
        visible(".//*[name()='svg'][starts-with(@aria-label, '1 second;')]", dialog)
        assert not dialog.find_elements(By.XPATH, ".//*[@aria-label='Load report']")
        return visible(".//section[@aria-label='Load report']", dialog)

    @check
    def a_load_test_draws_the_run_live_and_its_report_shows_the_stall():
        """Load test… of a stalling server: each second drawn live, the stall in p99 (budget broken), errors by kind, a kept run compared with the next"""
        if not h["saved"]("Stalling"):
            h["add_server"]("Stalling", command=f"{os.environ['SONDE_FIXTURE']} --stall-on-call 60 --stall-ms 800 --error-every 40")
        h["ensure_connected"]("Stalling")
        h["press_on_window"]("ctrl+1")
        tool = visible("//button[contains(@class,'tool')][.//*[text()='echo']]")
        tool.click()
        message = visible("//div[@class='tool-call']//input[@name='text']")
        message.send_keys(Keys.CONTROL, "a")
        message.send_keys("call {{seq}}")
        visible("//div[@class='tool-call']//button[text()='Load test…']").click()
        dialog = visible("//div[@role='dialog'][@aria-label='Load test']")
        set_field(dialog, "Calls a second", "40")
        set_field(dialog, "Duration", "3")
        set_field(dialog, "Budget", "p99<100ms,errors<10%")
        report = run(dialog)
        budget = report.find_element(By.XPATH, ".//ul[@aria-label='Budget']").text
        # The 60th call waits 0.8 s and the calls due behind it wait with it: an open loop counts
        # each from when it was due, so the 99th percentile holds the stall.
        assert "p99<100ms broken: p99 was" in budget, budget
        assert "errors<10% held: errors were 2.500% (3 of 120)" in budget, budget
        assert "3 rpc -32603" in report.text, report.text
        p99 = report.find_element(By.XPATH, ".//table[@aria-label='Latency']/tbody/tr/td[3]").text
        assert p99.endswith(" ms") and float(p99.split()[0]) >= 500, p99
        chart = dialog.find_element(By.XPATH, ".//*[name()='svg'][@role='img']").get_attribute("aria-label")
        assert chart.startswith("3 seconds;") and chart.endswith("; 3 errors"), chart
        driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", dialog.find_element(By.TAG_NAME, "h2"))
        shot("load-test")
        press(dialog.find_element(By.XPATH, ".//button[text()='Keep this run']"))
        visible(".//button[text()='Kept']", dialog)
        # A second run: the server does not stall again, and the two are side by side.
        report = run(dialog)
        assert "p99<100ms held" in report.find_element(By.XPATH, ".//ul[@aria-label='Budget']").text
        compare = dialog.find_element(By.XPATH, ".//select[@aria-label='Compare with']")
        wait.until(lambda d: len(compare.find_elements(By.TAG_NAME, "option")) > 1)
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", compare)
        Select(compare).select_by_index(1)
        table = visible(".//table[@aria-label='Comparison']", dialog)
        row = table.find_element(By.XPATH, "./tbody/tr[th[text()='p99']]")
        cells = [td.text for td in row.find_elements(By.TAG_NAME, "td")]
        assert float(cells[2].rstrip("×")) < 0.5, cells
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", table)
        shot("load-compare")
        press(dialog.find_element(By.XPATH, ".//footer/button[text()='Close']"))
        wait.until(lambda d: not d.find_elements(By.XPATH, "//div[@role='dialog'][@aria-label='Load test']"))
        h["press_on_window"]("ctrl+1")
