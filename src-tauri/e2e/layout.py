"""Real-window checks of the room to work at 1280x800 (issue 31, items 8 and 14; desktop.py runs
them with its driver): the full-width splitter between the panels and the log, dragged with the
mouse and moved from the keyboard, kept in the settings file; a server's question folded to its
header so the log gets its room, with what was typed kept; the era select of the server dialog
not clipped; and every panel in both themes, saved as screenshots.
"""
import json
import os
import re

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys


def install(check, driver, wait, shot, h):
    """Registers the checks; `h` holds desktop.py's helpers by name."""
    settings_file = os.path.join(os.environ["XDG_CONFIG_HOME"], "sonde", "settings.json")

    def layout():
        with open(settings_file) as f:
            return json.load(f).get("layout", {})

    def height(css):
        return driver.execute_script(f"return document.querySelector(\"{css}\").getBoundingClientRect().height")

    def splitter():
        return wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='separator'][aria-orientation='horizontal']"))

    def share():
        return int(splitter().get_attribute("aria-valuenow"))

    @check
    def the_splitter_is_dragged_kept_and_moved_from_the_keyboard():
        """the bar between the panels and the log: dragged 120 px down, the panels grow and the share is saved; arrows, Home, End and Enter move it"""
        h["ensure_connected"]("Demo server")
        bar = splitter()
        width = driver.execute_script("return arguments[0].getBoundingClientRect().width", bar)
        main = driver.execute_script("return document.querySelector('main').getBoundingClientRect().width")
        assert width >= main - 2, f"the splitter is {width} px of the main area's {main}: not full width"
        top, before = height("section.top"), share()
        ActionChains(driver).click_and_hold(bar).move_by_offset(0, 60).move_by_offset(0, 60).release().perform()
        wait.until(lambda d: height("section.top") >= top + 100)
        dragged = share()
        assert dragged > before, (before, dragged)
        wait.until(lambda d: round(layout().get("split", 0) * 100) == dragged)
        shot("splitter-dragged")
        # From the keyboard: focused, it moves by 5 % a key, to its bounds, and back to the default.
        bar.click()
        bar.send_keys(Keys.ARROW_UP)
        wait.until(lambda d: share() == dragged - 5)
        bar.send_keys(Keys.HOME)
        wait.until(lambda d: share() == 15)
        assert height("section.top") < top, "the panels did not shrink to their least share"
        bar.send_keys(Keys.END)
        wait.until(lambda d: share() == 85)
        wait.until(lambda d: layout().get("split") == 0.85)
        bar.send_keys(Keys.ENTER)
        wait.until(lambda d: share() == 56)
        wait.until(lambda d: layout().get("split") == 0.56)

    @check
    def a_question_folds_to_its_line_and_the_log_gets_its_room():
        """the demo's Greet asks a question: folded, the panel is one line and the log grows, what was typed is kept, the fold is saved"""
        h["ensure_connected"]("Demo server")
        h["press_on_window"]("ctrl+1")
        wait.until(lambda d: d.find_element(By.XPATH, "//button[contains(@class,'tool')][.//strong[text()='Greet']]")).click()
        wait.until(lambda d: d.find_element(By.XPATH, "//button[text()='Call']")).click()
        panel = "[role='dialog'][aria-label='Server request']"
        dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, panel))
        name = dialog.find_element(By.CSS_SELECTOR, "input[name='name']")
        name.send_keys(Keys.CONTROL, "a")
        name.send_keys("Lin")
        log_before = height("section.bottom")
        dialog.find_element(By.CSS_SELECTOR, "button.fold[aria-expanded='true']").click()
        wait.until(lambda d: not d.find_element(By.CSS_SELECTOR, f"{panel} input[name='name']").is_displayed())
        assert height(panel) < 60, f"the folded question is {height(panel)} px tall"
        gist = driver.find_element(By.CSS_SELECTOR, f"{panel} .gist").get_attribute("textContent")
        assert gist == "Who is calling?", gist
        wait.until(lambda d: height("section.bottom") > log_before + 40)
        wait.until(lambda d: layout().get("questionFolded") is True)
        shot("question-folded")
        driver.find_element(By.CSS_SELECTOR, f"{panel} button.fold[aria-expanded='false']").click()
        name = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, f"{panel} input[name='name']"))
        assert name.get_attribute("value") == "Lin", name.get_attribute("value")
        wait.until(lambda d: layout().get("questionFolded") is False)
        driver.find_element(By.CSS_SELECTOR, panel).find_element(By.XPATH, ".//button[text()='Accept']").click()
        wait.until(lambda d: d.find_element(By.XPATH, h["xpath_text"]("Hello, Lin!")))

    @check
    def the_era_choice_is_shown_whole_in_the_server_dialog():
        """New server: the era select is as wide as its longest choice"""
        driver.find_element(By.CSS_SELECTOR, "button[aria-label='Add a server']").click()
        dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "form.dialog"))
        try:
            select = dialog.find_element(By.XPATH, ".//label[starts-with(normalize-space(.), 'Protocol era')]/select")
            room, needed = driver.execute_script("""
                const s = arguments[0], cs = getComputedStyle(s), c = document.createElement('canvas').getContext('2d');
                c.font = cs.font;
                const widest = Math.max(...[...s.options].map(o => c.measureText(o.text).width));
                return [s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight), widest];""", select)
            assert room >= needed, f"the era select has {room} px for choices {needed} px wide"
            shot("server-dialog")
        finally:
            # Escape closes it, as a person leaves a dialog from the keyboard.
            dialog.find_element(By.XPATH, ".//label[contains(., 'Name')]/input").send_keys(Keys.ESCAPE)
            wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "form.dialog"))

    @check
    def every_panel_is_drawn_in_both_themes():
        """each panel of the demo server at 1280x800, in the light theme and the dark, saved as screenshots"""
        h["ensure_connected"]("Demo server")
        try:
            for theme in ("light", "dark"):
                h["choose_theme"](theme.capitalize())
                wait.until(lambda d: d.execute_script("return document.documentElement.dataset.theme") == theme)
                for n, panel in enumerate(["tools", "resources", "prompts", "skills", "server", "notifications", "tasks",
                                           "diagnostics"], start=1):
                    h["press_on_window"](f"ctrl+{n}")
                    wait.until(lambda d: d.find_element(
                        By.XPATH, "//div[@aria-label='Server panels']/button[@aria-selected='true']").text.lower() == panel)
                    # Each panel asks the server for its lists when first shown: drawn once they came.
                    shown = "//*[@role='tabpanel'][not(@hidden)]"
                    wait.until(lambda d: not d.find_elements(
                        By.XPATH, f"{shown}//p[contains(., 'Listing ') or normalize-space(.)='Reading…']"))
                    shot(f"panel-{panel}-{theme}")
        finally:
            h["choose_theme"]("Dark")

    def screen_pixel(x, y):
        """The colour of the X screen at (x, y), native popups included, as (r, g, b)."""
        out = h["subprocess"].run(["import", "-window", "root", "-crop", f"1x1+{x}+{y}", "-depth", "8", "txt:-"],
                                  capture_output=True, text=True, timeout=20).stdout
        return tuple(int(v) for v in re.search(r"\((\d+),(\d+),(\d+)", out.splitlines()[-1]).groups())

    @check
    def a_dropdowns_popup_follows_the_theme():
        """the era select's native popup, opened by a real click: dark in the dark theme, light in the light"""
        try:
            for theme, dark in (("Dark", True), ("Light", False)):
                h["choose_theme"](theme)
                driver.find_element(By.CSS_SELECTOR, "button[aria-label='Add a server']").click()
                dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "form.dialog"))
                select = dialog.find_element(By.XPATH, ".//label[starts-with(normalize-space(.), 'Protocol era')]/select")
                # Where the select is on the X screen: the page starts below the window's menu bar.
                x, width, bottom, left, top = driver.execute_script("""const r = arguments[0].getBoundingClientRect();
                    return [r.x, r.width, r.bottom, window.screenX,
                            window.screenY + window.outerHeight - window.innerHeight];""", select)
                h["subprocess"].run(["xdotool", "mousemove", str(int(left + x + 40)), str(int(top + bottom - 8)),
                                     "click", "1"], check=True, timeout=10)
                # The popup lists the three eras below the select, the chosen one highlighted;
                # the right end of the third row, past its words, is the popup's own background.
                row = (int(left + x + 6), int(top + bottom + 12))
                wait.until(lambda d: (lambda p: p[2] > p[0] + 60)(screen_pixel(*row)))
                r, g, b = screen_pixel(int(left + x + width - 12), row[1] + 46)
                h["subprocess"].run(["import", "-window", "root", os.path.join(os.environ["SONDE_SHOTS"],
                                                                                f"dropdown-{theme.lower()}.png")], timeout=20)
                h["subprocess"].run(["xdotool", "key", "Escape"], check=True, timeout=10)
                assert (r + g + b < 240) if dark else (r + g + b > 600), f"{theme}: the popup is rgb({r}, {g}, {b})"
                dialog.find_element(By.XPATH, ".//label[contains(., 'Name')]/input").send_keys(Keys.ESCAPE)
                wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "form.dialog"))
        except BaseException:
            # A popup or the dialog a failure left open would take every later check's clicks.
            h["subprocess"].run(["xdotool", "key", "Escape"], timeout=10)
            for form in driver.find_elements(By.CSS_SELECTOR, "form.dialog"):
                form.find_element(By.XPATH, ".//label[contains(., 'Name')]/input").send_keys(Keys.ESCAPE)
            raise
        finally:
            h["choose_theme"]("Dark")

