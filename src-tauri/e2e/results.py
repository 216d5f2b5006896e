"""Real-window checks of what a server asks and what a call returns (issue 21, items 5 and 9;
desktop.py runs them with its driver): server-everything's elicitation form, taller than the
panel it is shown in, answered by a real mouse click on Accept in a 1280x800 window; a resource
link in a tool result opened in the Resources panel, which reads it; an embedded blob of text
decoded, with Save as...; and the annotations of a result's blocks. Each saves a screenshot.
"""
import subprocess

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

# A person can click an element where it is: inside the window, and nothing lies over its middle.
IN_VIEW = """const el = arguments[0], r = el.getBoundingClientRect();
    const inside = r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
    return inside && el.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2));"""


def install(check, driver, wait, shot, h):
    """Registers the checks; `h` holds desktop.py's helpers by name."""

    def everything_selected():
        if not h["saved"]("Everything"):
            h["add_server"]("Everything", command=f"{h['everything']()} stdio")
        h["ensure_connected"]("Everything")

    def visible(xpath):
        return wait.until(lambda d: next((e for e in d.find_elements(By.XPATH, xpath) if e.is_displayed()), None))

    def tools_panel():
        h["press_on_window"]("ctrl+1")
        visible("//button[@role='tab'][@aria-selected='true'][text()='Tools']")

    def choose_tool(name):
        """Picks a tool by its name in the Tools panel (the list is long: scrolled to first)."""
        tools_panel()
        tool = visible(f"//button[contains(@class,'tool')][.//code[text()='{name}']]")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", tool)
        tool.click()
        visible("//div[@class='tool-call']/header/h2")

    def fill(name, value):
        """Replaces a form field's text, as a person does (a default may be filled in already)."""
        field = visible(f"//div[@class='tool-call']//input[@name='{name}']")
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys(Keys.BACKSPACE)
        field.send_keys(value)
        wait.until(lambda d: field.get_attribute("value") == value)

    def call():
        visible("//div[@class='tool-call']//button[text()='Call']").click()
        return visible("//div[@class='tool-call']//*[@aria-label='Tool result']")

    def window_of(width, height):
        """The window at `width` x `height`, as a person sizes it; returns the page's inner size."""
        try:
            driver.set_window_rect(width=width, height=height)
        except WebDriverException:  # a driver without Set Window Rect: size it through X
            window = subprocess.run(["xdotool", "search", "--name", "^Sonde$"], capture_output=True, text=True,
                                    check=True).stdout.split()[0]
            subprocess.run(["xdotool", "windowsize", "--sync", window, str(width), str(height)], check=True)
        wait.until(lambda d: d.execute_script("return window.outerWidth") <= width
                   and d.execute_script("return window.outerHeight") <= height)
        return driver.execute_script("return [window.innerWidth, window.innerHeight]")

    @check
    def a_tall_elicitation_is_answered_by_clicking_accept():
        """server-everything's elicitation, taller than its panel at 1280x800: Accept stays in view and a click answers"""
        everything_selected()
        inner = window_of(1280, 800)
        assert inner[1] <= 800, f"the page is {inner[0]}x{inner[1]}"
        choose_tool("trigger-elicitation-request")
        visible("//div[@class='tool-call']//button[text()='Call']").click()
        dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='dialog'][aria-label='Server request']"))
        assert "Please provide inputs for the following fields:" in dialog.text, dialog.text
        # The form is taller than the panel it is shown in, which scrolls (else this proves nothing).
        scroll, client = driver.execute_script("return [arguments[0].scrollHeight, arguments[0].clientHeight]", dialog)
        assert scroll > client + 100, f"the form fits its panel ({scroll} / {client}): not a tall question"
        name = dialog.find_element(By.CSS_SELECTOR, "input[name='name']")
        name.send_keys("Ada Lovelace")
        wait.until(lambda d: name.get_attribute("value") == "Ada Lovelace")
        accept = dialog.find_element(By.XPATH, ".//button[text()='Accept']")
        # Typing in the first field leaves the panel at its top: Accept is in view all the same.
        assert driver.execute_script(IN_VIEW, accept), "Accept is out of view at the top of the form"
        # Halfway down the form too.
        driver.execute_script("arguments[0].scrollTo(0, arguments[0].scrollHeight / 2)", dialog)
        assert driver.execute_script(IN_VIEW, accept), "Accept is out of view halfway down the form"
        shot("tall-elicitation")
        # A real pointer click where the button is (W3C actions do not scroll an element into view).
        ActionChains(driver).move_to_element(accept).click().perform()
        visible("//*[@aria-label='Tool result']//pre[contains(text(),'User provided the requested information')]")
        visible("//*[@aria-label='Tool result']//pre[contains(text(),'- Name: Ada Lovelace')]")
        assert not driver.find_elements(By.CSS_SELECTOR, "[role='dialog'][aria-label='Server request']")

    @check
    def a_result_below_a_long_form_is_brought_into_view():
        """server-everything's get-sum in a short window (1280x500): the form fills its pane, and the result that lands below it is scrolled into view"""
        everything_selected()
        try:
            window_of(1280, 500)
            choose_tool("get-sum")
            fill("a", "2")
            fill("b", "40")
            result = call()
            shown = visible("//*[@aria-label='Tool result']//pre[contains(text(),'42')]")
            # The pane scrolls (form and result are taller than it), else this proves nothing.
            sizes = driver.execute_script(
                "const p = arguments[0].closest('.tool-call'); return [p.scrollHeight, p.clientHeight];", result)
            assert sizes[0] > sizes[1] + 20, f"the result's pane does not scroll ({sizes}): not a long form"
            wait.until(lambda d: d.execute_script(IN_VIEW, shown))
            shot("result-scrolled-into-view")
        finally:
            window_of(1280, 800)

    @check
    def an_image_result_is_shown_larger_with_its_type_and_size():
        """server-everything's get-tiny-image (a 20 px PNG): shown at 8x with its MIME type, pixels and bytes; 1x shows it as it is"""
        everything_selected()
        choose_tool("get-tiny-image")
        call()
        caption = visible("//*[@aria-label='Tool result']//figcaption[@aria-label='Image']")
        wait.until(lambda d: "20×20 px" in caption.text)
        assert caption.text.startswith("image/png · 20×20 px · "), caption.text
        image = driver.find_element(By.XPATH, "//*[@aria-label='Tool result']//figure//img")
        width = "return arguments[0].getBoundingClientRect().width"
        assert driver.execute_script(width, image) == 160, driver.execute_script(width, image)
        shot("image-result")
        caption.find_element(By.XPATH, ".//button[text()='1×']").click()
        wait.until(lambda d: d.execute_script(width, image) == 20)

    @check
    def a_resource_link_in_a_result_opens_in_the_resources_panel():
        """server-everything's resource links: Open in Resources shows the Resources panel, which reads the URI"""
        everything_selected()
        choose_tool("get-resource-links")
        fill("count", "3")
        result = call()
        uri = "demo://resource/dynamic/text/2"
        link = f"//*[@aria-label='Tool result']//*[@aria-label='Resource link {uri}']"
        assert "Resource 2: plaintext resource" in visible(link).text, result.text
        open_button = visible(f"{link}//button[text()='Open in Resources']")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", open_button)
        open_button.click()
        visible("//button[@role='tab'][@aria-selected='true'][text()='Resources']")
        linked = visible("//*[@aria-label='Linked resource']")
        assert f"Opened from a resource link in a tool result: {uri}" in linked.text, linked.text
        visible("//*[@aria-label='Linked resource']//*[@aria-label='Resource contents']"
                "//pre[contains(text(),'Resource 2: This is a plaintext resource')]")
        shot("resource-link-opened")
        tools_panel()
        # The result is still there, and its other links open too (a blob, read by the core).
        blob = "demo://resource/dynamic/blob/1"
        visible(f"//*[@aria-label='Resource link {blob}']//button[text()='Open in Resources']").click()
        visible(f"//*[@aria-label='Linked resource']//*[@aria-label='Resource contents']//code[text()='{blob}']")
        tools_panel()

    @check
    def structured_content_that_repeats_the_text_is_shown_once():
        """server-everything's structured weather: its text block holds the same JSON as structuredContent, so the JSON is shown once, with the outputSchema verdict"""
        everything_selected()
        choose_tool("get-structured-content")
        for select in driver.find_elements(By.XPATH, "//div[@class='tool-call']//select"):
            Select(select).select_by_index(len(Select(select).options) - 1)
        result = call()
        said = visible("//*[@aria-label='Tool result']//*[@aria-label='structuredContent']")
        assert said.text == "structuredContent repeats the text above, so it is not shown again.", said.text
        assert not result.find_elements(By.XPATH, ".//h4[text()='structuredContent']")
        visible("//*[@aria-label='Tool result']//p[contains(@class,'verdict')][contains(., 'matches the outputSchema')]")
        shot("structured-content-once")

    @check
    def an_embedded_blob_is_shown_by_its_type_and_annotations_are_shown():
        """server-everything's embedded blob of text is decoded with Save as...; a result's annotations are shown"""
        everything_selected()
        choose_tool("get-resource-reference")
        Select(visible("//div[@class='tool-call']//select[@name='resourceType']")).select_by_visible_text("Blob")
        fill("resourceId", "1")
        call()
        embedded = visible("//*[@aria-label='Embedded resource demo://resource/dynamic/blob/1']")
        wait.until(lambda d: "Resource 1: This is a base64 blob" in embedded.find_element(By.TAG_NAME, "pre").text)
        assert "decoded from its blob" in embedded.text, embedded.text
        embedded.find_element(By.XPATH, ".//button[text()='Save as…']")
        shot("embedded-blob")
        choose_tool("get-annotated-message")
        Select(visible("//div[@class='tool-call']//select[@name='messageType']")).select_by_visible_text("success")
        call()
        badges = visible("//*[@aria-label='Tool result']//*[@aria-label='Annotations']")
        wait.until(lambda d: "for user" in badges.text and "priority 0.7" in badges.text)
        shot("annotations")
