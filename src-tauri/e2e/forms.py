"""Real-window checks of the forms (issue 21, items 2, 3 and 8; desktop.py runs them with its
driver): raw JSON typed with a nested field the form has no place for comes back as typed and is
in the bytes sent; a blank and a hexadecimal number are refused by their fields and nothing is
sent (the demo's Add, then server-everything's get-sum); server-everything's elicitation form
with its defaults, titled and multi-select choices and formats. Each saves a screenshot.
"""
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select


def install(check, driver, wait, shot, h):
    """Registers the checks; `h` holds desktop.py's helpers by name."""

    def everything_selected():
        if not h["saved"]("Everything"):
            h["add_server"]("Everything", command=f"{h['everything']()} stdio")
        h["ensure_connected"]("Everything")

    # The tool form's area, however many classes it gains.
    call = "//div[contains(concat(' ', normalize-space(@class), ' '), ' tool-call ')]"

    def visible(xpath):
        return wait.until(lambda d: next((e for e in d.find_elements(By.XPATH, xpath) if e.is_displayed()), None))

    def tool(by, name):
        """Chooses a tool in the Tools panel by its title (`by="strong"`) or name (`by="code"`)."""
        driver.find_element(By.XPATH, "//div[@role='tablist'][@aria-label='Server panels']/button[text()='Tools']").click()
        button = wait.until(lambda d: d.find_element(By.XPATH, f"//button[contains(@class,'tool')][.//{by}[text()='{name}']]"))
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
        button.click()
        wait.until(lambda d: d.find_element(By.XPATH, f"{call}/header/h2[text()='{name}']")
                   if by == "strong" else d.find_element(By.CSS_SELECTOR, ".tool-call form"))

    def retype(field, text):
        """Replaces a field's text as a person would (clear() does not always reach React's onChange
        in WebKitGTK), and waits until the field holds it."""
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys(Keys.BACKSPACE)
        if text:
            field.send_keys(text)
        wait.until(lambda d: field.get_attribute("value") == text)

    def problem_of(field):
        """The note a field's aria-describedby points at that says what is wrong with it."""
        ids = (field.get_attribute("aria-describedby") or "").split()
        notes = [driver.find_element(By.ID, i) for i in ids]
        problems = [n for n in notes if "error" in (n.get_attribute("class") or "").split()]
        return problems[0].get_attribute("textContent") if problems else None

    def sent_bytes(terms, needle):
        """The bytes of the newest sent message the filter `terms` matches, once the detail shows
        them (they hold `needle`), without whitespace: the comparison is about content."""
        h["set_filter"](f"dir:out {terms}")
        rows = wait.until(lambda d: d.find_elements(By.XPATH, "//div[@role='row'][.//span[@class='c-dir' and text()='>']]"))
        rows[-1].click()
        raw = wait.until(lambda d: (t := d.find_element(By.CSS_SELECTOR, ".detail pre.raw").get_attribute("textContent"))
                         and needle in t and t)
        return "".join(raw.split())

    def calls_sent():
        """How many tools/call requests the log holds, as the core counts the filter's matches."""
        h["set_filter"]("method:tools/call dir:out")
        count = wait.until(lambda d: (t := d.find_element(By.CSS_SELECTOR, "span.count").text)
                           and " of " in t and "counting" not in t and t)
        return int(count.split(" of ")[0])

    @check
    def raw_json_through_the_form_keeps_a_nested_field_and_sends_it():
        """Raw JSON → Form → Raw JSON keeps a nested field the form has no place for, says so, and sends it"""
        h["ensure_connected"]("Demo server")
        tool("strong", "Echo")
        visible(f"{call}//button[text()='Raw JSON']").click()
        raw = visible("//textarea[@aria-label='Arguments as JSON']")
        # Spaced and written as no serializer would (WebKitWebDriver types no newline into a text area).
        typed = '{"text": "round trip",   "extra": {"nested": {"kept": true, "n": 1.50}}}'
        retype(raw, typed)
        visible(f"{call}//button[text()='Form']").click()
        note = visible("//*[@role='note'][@aria-label='Kept from the JSON']")
        assert 'extra = {"nested":{"kept":true,"n":1.5}}' in note.text, note.text
        text = visible(f"{call}//input[@name='text']")
        assert text.get_attribute("value") == "round trip", text.get_attribute("value")
        shot("form-kept-from-json")
        # Back in Raw JSON with nothing changed: the text exactly as typed ("1.50" included).
        visible(f"{call}//button[text()='Raw JSON']").click()
        raw = visible("//textarea[@aria-label='Arguments as JSON']")
        assert raw.get_attribute("value") == typed, repr(raw.get_attribute("value"))
        visible(f"{call}//button[text()='Form']").click()
        visible(f"{call}//button[text()='Call']").click()
        visible("//*[@aria-label='Tool result'][contains(., 'round trip')]")
        sent = sent_bytes("method:tools/call kept", "kept")
        assert '"extra":{"nested":{"kept":true,"n":1.5}}' in sent, sent
        assert '"text":"roundtrip"' in sent, sent
        h["set_filter"]("")

    def refuse_blank_and_hex(tool_by, tool_name, answer):
        """Fills `a` with a space and `b` with 0x10: both refused by their fields, nothing sent;
        then 1 and 16 are sent once, and the server answers `answer`."""
        before = calls_sent()
        tool(tool_by, tool_name)
        a = visible(f"{call}//input[@name='a']")
        b = visible(f"{call}//input[@name='b']")
        retype(a, " ")
        retype(b, "0x10")
        visible(f"{call}//button[text()='Call']").click()
        wait.until(lambda d: a.get_attribute("aria-invalid") == "true" and b.get_attribute("aria-invalid") == "true")
        assert problem_of(a) == "a is blank: type a number, or empty the field to leave it out", problem_of(a)
        assert problem_of(b) == 'b is "0x10", not a JSON number: write it in decimal digits (16)', problem_of(b)
        alert = visible(f"{call}//*[@role='alert'][starts-with(., 'Not sent:')]")
        assert "0x10" in alert.text, alert.text
        shot(f"form-numbers-refused-{tool_name}")
        retype(a, "1")
        retype(b, "16")
        wait.until(lambda d: a.get_attribute("aria-invalid") is None and b.get_attribute("aria-invalid") is None)
        h["press_enter"](b)
        visible(f"//*[@aria-label='Tool result'][contains(., '{answer}')]")
        # Exactly one call went: the refused Call sent nothing (it would be in the log before this one).
        after = calls_sent()
        assert after == before + 1, f"{after - before} tools/call requests sent, not 1"
        sent = sent_bytes("method:tools/call", '"b":16')
        assert '"arguments":{"a":1,"b":16}' in sent, sent
        h["set_filter"]("")

    @check
    def a_blank_and_a_hex_number_are_refused_by_their_fields():
        """the demo's Add: a blank and a hex number are refused by their fields and not sent"""
        h["ensure_connected"]("Demo server")
        refuse_blank_and_hex("strong", "Add", "1 + 16 = 17")

    @check
    def get_sum_refuses_a_blank_and_a_hex_number():
        """server-everything's get-sum: a blank and a hex number are refused by their fields and not sent"""
        everything_selected()
        refuse_blank_and_hex("code", "get-sum", "The sum of 1 and 16 is 17.")

    @check
    def an_elicitation_form_with_defaults_choices_and_formats():
        """server-everything's elicitation form: defaults filled, titles shown, choices as checkboxes, formats checked"""
        everything_selected()
        tool("code", "trigger-elicitation-request")
        visible(f"{call}//button[text()='Call']").click()
        dialog = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "[role='dialog'][aria-label='Server request']"))

        def field(name):
            return dialog.find_element(By.CSS_SELECTOR, f"[name='{name}']")

        def box(label):
            return dialog.find_element(By.XPATH, f".//label[normalize-space(.)='{label}']/input[@type='checkbox']")

        assert field("firstLine").get_attribute("value") == "It was a dark and stormy night."
        assert field("integer").get_attribute("value") == "42"
        assert Select(field("titledSingleSelectEnum")).first_selected_option.text == "Superman"
        assert Select(field("legacyTitledEnum")).first_selected_option.text == "Cats"
        assert box("Guitar").is_selected() and not box("Piano").is_selected()
        assert box("Tuna").is_selected() and not box("Salmon").is_selected()
        # textContent, not text: the words count wherever the dialog's scrolling leaves them.
        words = dialog.get_attribute("textContent")
        assert "default: Superman" in words and "default: Guitar" in words and "default: Tuna" in words, words
        retype(field("name"), "Ada Lovelace")
        retype(field("email"), "ada")
        retype(field("birthdate"), "1815-02-30")
        h["press_enter"](field("name"))
        wait.until(lambda d: field("email").get_attribute("aria-invalid") == "true")
        assert problem_of(field("email")) == 'email is "ada", not an email address (like name@example.com)'
        assert problem_of(field("birthdate")) == 'birthdate is "1815-02-30", not a date: 1815-02 has no day 30'
        shot("elicitation-form-problems")
        retype(field("email"), "ada@example.com")
        retype(field("birthdate"), "1815-12-10")
        # Space toggles a checkbox, as a person at the keyboard does.
        for label in ("Piano", "Salmon"):
            box(label).send_keys(Keys.SPACE)
            wait.until(lambda d: box(label).is_selected())
        Select(field("titledSingleSelectEnum")).select_by_visible_text("Wonder Woman")
        h["press_enter"](field("name"))
        wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "[role='dialog'][aria-label='Server request']"))
        result = visible("//*[@aria-label='Tool result'][contains(., 'Email: ada@example.com')]")
        assert "Birthdate: 1815-12-10" in result.text, result.text
        # The answer as sent: consts for titled choices, the checked boxes in the schema's order.
        sent = sent_bytes("fish-2", "fish-2")
        for part in ('"untitledMultipleSelectEnum":["Guitar","Piano"]', '"titledMultipleSelectEnum":["fish-1","fish-2"]',
                     '"titledSingleSelectEnum":"hero-3"', '"legacyTitledEnum":"pet-1"', '"integer":42'):
            assert part in sent, f"{part} not in {sent}"
        h["set_filter"]("")
