"""Real-window checks of server-everything's protocol extensions (desktop.py runs them with its
driver): links a server asks the person to open (URL elicitation and -32042), shown with their
host and never opened unasked; and a call the server runs as a task, followed in the Tasks panel
to its report, with the question it asks on the way.
"""
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select


def install(check, driver, wait, shot, h):
    """Registers the checks; `h` holds desktop.py's helpers by name."""

    @check
    def a_link_a_server_asks_for_shows_its_host_and_is_not_opened_unasked():
        """server-everything asks for a link (URL elicitation, and -32042): the host stands out, nothing opens"""
        if not h["saved"]("Everything"):
            h["add_server"]("Everything", command=f"{h['everything']()} stdio")
        h["ensure_connected"]("Everything")
        tool = "//button[contains(@class,'tool')][.//code[text()='trigger-url-elicitation']]"
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", wait.until(lambda d: d.find_element(By.XPATH, tool)))
        driver.find_element(By.XPATH, tool).click()
        link = "https://sign-in.example.com/start?step=1"
        url = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, ".tool-call input[name='url']"))
        url.send_keys(link)
        wait.until(lambda d: url.get_attribute("value") == link)

        # The -32042 path first: the links come with the error, the host emphasised.
        Select(driver.find_element(By.CSS_SELECTOR, ".tool-call select[name='errorPath']")).select_by_visible_text("true")
        driver.find_element(By.XPATH, "//button[text()='Call']").click()
        required = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[aria-label='Links the server requires']"))
        host = required.find_element(By.CSS_SELECTOR, "strong.link-host")
        assert host.text == "modelcontextprotocol.io", host.text
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", required)
        shot("url-elicitation-required")

        # Sent again (the server asked for it): the request path's dialog shows the full URL.
        required.find_element(By.XPATH, ".//button[text()='Send the call again']").click()
        dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='dialog'][aria-label='Server request']"))
        full = dialog.find_element(By.CSS_SELECTOR, "[aria-label='The full URL']")
        assert full.text == link, full.text
        host = full.find_element(By.CSS_SELECTOR, "strong.link-host")
        assert host.text == "sign-in.example.com", host.text
        weight = driver.execute_script("return getComputedStyle(arguments[0]).fontWeight", host)
        assert int(weight) >= 700, f"the host is not emphasised: font-weight {weight}"
        assert "Please open the link to complete this action." in dialog.text, dialog.text
        shot("url-elicitation")
        # Declined without opening: the window records no open in the log, and the server hears it.
        dialog.find_element(By.XPATH, ".//button[text()='Decline']").click()
        wait.until(lambda d: d.find_element(By.XPATH, h["xpath_text"]("User declined to open the URL")))
        h["set_filter"]("kind:note opened")
        assert not driver.find_elements(By.XPATH, h["xpath_text"]("in the system browser")), "a link was opened"
        h["set_filter"]("")


    @check
    def a_task_runs_to_its_result_in_the_tasks_panel():
        """server-everything's research tool runs as a task: the Tasks panel follows it to its report, and asks its question"""
        if not h["saved"]("Everything"):
            h["add_server"]("Everything", command=f"{h['everything']()} stdio")
        h["ensure_connected"]("Everything")
        tab = "//div[@role='tablist'][@aria-label='Server panels']/button[text()='{}']"
        try:
            h["call_tool"]("simulate-research-query", ["tides"], "runs this call as task", by="code")
            task_id = driver.find_element(By.XPATH, "//p[contains(., 'runs this call as task')]/code").text
            driver.find_element(By.XPATH, tab.format("Tasks")).click()
            row = f"//ul[@aria-label='Tasks']//button[contains(@class,'task')][.//code[@title='{task_id}']]"
            wait.until(lambda d: d.find_element(By.XPATH, row)).click()
            detail = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, ".task-detail"))
            assert task_id in detail.text, detail.text
            # Still working when first seen (four one-second stages): its message says the stage.
            shot("task-working")
            wait.until(lambda d: d.find_element(By.CSS_SELECTOR, ".task-detail .task-status[data-status='completed']"))
            report = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, ".task-detail [aria-label='Tool result']"))
            assert "Research Report: tides" in report.text, report.text
            assert "Cancel task" not in detail.text, "an ended task offers Cancel"
            shot("task-completed")
            # The call's banner in the Tools panel says so too, not the status it was created with.
            driver.find_element(By.XPATH, tab.format("Tools")).click()
            wait.until(lambda d: d.find_element(By.XPATH, "//p[contains(., 'runs this call as task')][@data-task-status='completed']"))
            driver.find_element(By.XPATH, tab.format("Tasks")).click()
            # The wire log has the polls and the result that ended them.
            h["set_filter"](f"method:tasks/result dir:out {task_id}")
            wait.until(lambda d: d.find_element(By.XPATH, "//div[@role='row'][.//span[contains(text(),'tasks/result #')]]"))

            # An ambiguous topic: the task asks which reading is meant, in the question dialog.
            driver.find_element(By.XPATH, tab.format("Tools")).click()
            Select(driver.find_element(By.CSS_SELECTOR, ".tool-call select")).select_by_visible_text("true")
            driver.find_element(By.XPATH, "//button[text()='Call']").click()
            notice = "//p[contains(., 'runs this call as task')]/code"
            asking = wait.until(lambda d: (t := d.find_element(By.XPATH, notice).text) != task_id and t)
            driver.find_element(By.XPATH, tab.format("Tasks")).click()
            row = f"//ul[@aria-label='Tasks']//button[contains(@class,'task')][.//code[@title='{asking}']]"
            wait.until(lambda d: d.find_element(By.XPATH, row)).click()
            wait.until(lambda d: d.find_element(By.CSS_SELECTOR, ".task-detail .task-status[data-status='input_required']"))
            dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='dialog'][aria-label='Server request']"))
            assert "multiple interpretations" in dialog.text, dialog.text
            shot("task-question")
            Select(dialog.find_element(By.CSS_SELECTOR, "select")).select_by_visible_text("Historical perspective")
            dialog.find_element(By.XPATH, ".//button[text()='Accept']").click()
            wait.until(lambda d: d.find_element(By.CSS_SELECTOR, ".task-detail .task-status[data-status='completed']"))
            report = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, ".task-detail [aria-label='Tool result']"))
            assert "Research Report: tides (historical)" in report.text, report.text

            # A third, cancelled while it works (tasks/cancel): it ends cancelled, with no result,
            # and an ended task offers no Cancel.
            driver.find_element(By.XPATH, tab.format("Tools")).click()
            Select(driver.find_element(By.CSS_SELECTOR, ".tool-call select")).select_by_visible_text("false")
            driver.find_element(By.XPATH, "//button[text()='Call']").click()
            third = wait.until(lambda d: (t := d.find_element(By.XPATH, notice).text) not in (task_id, asking) and t)
            driver.find_element(By.XPATH, tab.format("Tasks")).click()
            row = f"//ul[@aria-label='Tasks']//button[contains(@class,'task')][.//code[@title='{third}']]"
            wait.until(lambda d: d.find_element(By.XPATH, row)).click()
            wait.until(lambda d: d.find_element(By.XPATH, "//div[contains(@class,'task-detail')]//button[text()='Cancel task']")).click()
            wait.until(lambda d: d.find_element(By.CSS_SELECTOR, ".task-detail .task-status[data-status='cancelled']"))
            detail = wait.until(lambda d: (e := d.find_element(By.CSS_SELECTOR, ".task-detail")) and
                                "Cancelled: the task has no result." in e.text and e)
            assert "Cancel task" not in detail.text, "an ended task offers Cancel"
            shot("task-cancelled")
        finally:
            driver.find_element(By.XPATH, tab.format("Tools")).click()
