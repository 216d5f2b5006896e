"""Real-window checks of the server panels beyond tools (desktop.py runs them with its driver):
server-everything's resources, a template completed and read, a subscription's update, a prompt
with arguments completed from the server, the server's details, its log level and ping, and
the notifications that follow. Each saves a screenshot of its panel.
"""
import os

from selenium.webdriver.common.by import By


def install(check, driver, wait, shot, h):
    """Registers the checks; `h` holds desktop.py's helpers by name."""

    def everything_selected():
        if not h["saved"]("Everything"):
            h["add_server"]("Everything", command=f"{h['everything']()} stdio")
        h["ensure_connected"]("Everything")

    def panel(key, name):
        """Shows a panel by its menu accelerator, as a person does."""
        h["press_on_window"](f"ctrl+{key}")
        wait.until(lambda d: d.find_element(By.XPATH, f"//button[@role='tab'][@aria-selected='true'][text()='{name}']"))

    def visible(xpath):
        return wait.until(lambda d: next((e for e in d.find_elements(By.XPATH, xpath) if e.is_displayed()), None))

    def suggestion(name, value):
        return visible(f"//ul[@role='listbox'][@aria-label='Suggestions for {name}']/li[text()='{value}']")

    def tool_panel_call(name):
        panel(1, "Tools")
        visible(f"//button[contains(@class,'tool')][.//code[text()='{name}']]").click()
        visible("//button[text()='Call']").click()
        visible("//*[@aria-label='Tool result']")

    @check
    def resources_read_a_template_and_a_subscription():
        """server-everything's resources: a document read, a template completed and read, an update"""
        everything_selected()
        panel(2, "Resources")
        visible("//ul[@aria-label='Resources']//button[.//code[contains(text(),'static/document/architecture.md')]]").click()
        visible("//button[text()='Read']").click()
        visible("//*[@aria-label='Resource contents']//pre[contains(text(),'Architecture')]")
        visible("//ul[@aria-label='Resource templates']//button[.//code[text()='demo://resource/dynamic/text/{resourceId}']]").click()
        field = visible("//input[@role='combobox']")
        field.send_keys("4")
        suggestion("resourceId", "4").click()
        visible("//*[@aria-label='Expanded URI']/code[text()='demo://resource/dynamic/text/4']")
        h["press_enter"](field)
        visible("//*[@aria-label='Resource contents']//code[text()='demo://resource/dynamic/text/4']")
        visible("//label[contains(., 'Subscribe to updates')]/input").click()
        visible("//*[@aria-label='Subscription'][contains(text(),'subscribed')]")
        # server-everything sends updates for subscribed URIs once this tool turns them on.
        tool_panel_call("toggle-subscriber-updates")
        panel(2, "Resources")
        visible("//ul[@aria-label='Updates']/li[contains(., 'notifications/resources/updated')]")
        shot("panel-resources")
        tool_panel_call("toggle-subscriber-updates")
        panel(2, "Resources")
        visible("//label[contains(., 'Subscribe to updates')]/input").click()
        visible("//*[@aria-label='Subscription'][contains(text(),'not subscribed')]")

    @check
    def a_2026_subscription_outlives_the_request_timeout():
        """the demo's clock, subscribed over 2026-07-28 with a 1.5 s request timeout, ticks on five timeouts later"""
        name = "Demo (1.5 s timeout)"
        if not h["saved"](name):
            sonde = os.path.join(os.path.dirname(os.environ["SONDE_FIXTURE"]), "sonde")
            h["add_server"](name, command=f"{sonde} demo-server", graces={"Request timeout": "1500"})
        h["ensure_connected"](name)
        panel(2, "Resources")
        visible("//ul[@aria-label='Resources']//button[.//code[text()='demo://clock']]").click()
        visible("//button[text()='Read']").click()
        visible("//label[contains(., 'Subscribe to updates')]/input").click()
        visible("//*[@aria-label='Subscription'][contains(text(),'the server acknowledged it')]")
        # The clock ticks every 2 s: four updates take more than five request timeouts, and
        # the listen request lives on, only its acknowledgement bounded by the timeout.
        wait.until(lambda d: len(d.find_elements(By.XPATH, "//ul[@aria-label='Updates']/li")) >= 4)
        state = visible("//*[@aria-label='Subscription']").text
        assert state.startswith("subscribed"), state
        shot("subscription-outlives-timeout")
        visible("//label[contains(., 'Subscribe to updates')]/input").click()
        visible("//*[@aria-label='Subscription'][starts-with(text(),'not subscribed')]")
        h["set_filter"]("got no acknowledgement")
        assert not driver.find_elements(By.XPATH, "//div[@role='row']"), "the listen timed out"
        h["set_filter"]("")
        # Stopped and removed from the list, so the checks after this one find the window as they expect.
        card = f"//ul[@class='connections']/li[.//span[text()='{name}']]"
        driver.find_element(By.XPATH, f"{card}//button[text()='Stop']").click()
        wait.until(lambda d: d.find_element(By.XPATH, f"{card}//button[text()='Remove']")).click()
        wait.until(lambda d: not d.find_elements(By.XPATH, card))
        panel(1, "Tools")

    @check
    def a_prompt_with_arguments_completed_from_the_server():
        """a prompt's arguments completed by server-everything in context, then its messages"""
        everything_selected()
        panel(3, "Prompts")
        visible("//ul[@aria-label='Prompts']//button[.//code[text()='completable-prompt']]").click()
        department = visible("//label[.//span[contains(text(),'department')]]/input")
        department.send_keys("En")
        suggestion("department", "Engineering").click()
        name = visible("//label[.//span[contains(text(),'name')]]/input")
        name.send_keys("B")
        # Bob is an engineer: the suggestion depends on the department already chosen.
        suggestion("name", "Bob").click()
        h["press_enter"](name)
        visible("//*[@aria-label='Prompt messages']//pre[contains(text(),'Bob')]")
        shot("panel-prompts")

    @check
    def server_details_log_level_ping_and_notifications():
        """server details, a log level then server log messages in Notifications, and ping"""
        everything_selected()
        panel(5, "Server")
        visible("//ul[@aria-label='Capabilities']/li[starts-with(text(),'resources')]")
        select = visible("//select[@aria-label='Server log level']")
        select.find_element(By.XPATH, "./option[@value='debug']").click()
        wait.until(lambda d: select.get_attribute("value") == "debug")
        visible("//button[text()='Ping']").click()
        visible("//*[@aria-label='Round trip'][contains(text(),'ping answered in')]")
        shot("panel-server")
        tool_panel_call("toggle-simulated-logging")
        panel(6, "Notifications")
        # One at once, then one every 5 s; the 30 s wait covers it.
        visible("//ul[@aria-label='Notifications']/li[contains(@class,'kind-log')]/span[contains(@class,'level')]")
        shot("panel-notifications")
        tool_panel_call("toggle-simulated-logging")
