"""Real-window checks of the Skills panel (desktop.py runs them with its driver): the fixture's
skills server (`--skills`) listed page by page, a skill's SKILL.md rendered beside its
frontmatter and verified, its directory read from the server, every file verified at once, a
link in SKILL.md opening the file it names, and a tampered file caught: a ✗ with both digests,
its content held back until asked for and then marked, the finding on its reply in the wire log.
"""
import os

from selenium.webdriver.common.by import By


def install(check, driver, wait, shot, h):
    """Registers the checks; `h` holds desktop.py's helpers by name."""

    def visible(xpath):
        return wait.until(lambda d: next((e for e in d.find_elements(By.XPATH, xpath) if e.is_displayed()), None))

    def skill(name):
        visible(f"//ul[@aria-label='Skills']//button[.//strong[text()='{name}']]").click()
        return visible(f"//section[@aria-label='File SKILL.md']")

    @check
    def a_skills_server_s_skills_are_read_and_verified_and_tampering_is_caught():
        """the fixture's skills: SKILL.md rendered and verified, a directory read, every file verified, a tampered file caught with both digests"""
        if not h["saved"]("Skills"):
            h["add_server"]("Skills", command=f"{os.environ['SONDE_FIXTURE']} --skills")
        h["ensure_connected"]("Skills")
        h["press_on_window"]("ctrl+4")
        wait.until(lambda d: d.find_element(By.XPATH, "//button[@role='tab'][@aria-selected='true'][text()='Skills']"))
        # Four pages of one skill each, listed whole; no file read until one is chosen.
        for name in ("refunds", "pdf", "sizes", "notes"):
            visible(f"//ul[@aria-label='Skills']//button/strong[text()='{name}']")
        visible("//ul[@aria-label='Skills']//code[text()='skill://acme/billing/refunds/SKILL.md']")

        # refunds: SKILL.md verified and rendered, its frontmatter beside it.
        md = skill("refunds")
        visible("//ul[@aria-label='Verification'][contains(@class,'ok')]/li[starts-with(., '✓ Verified')]")
        visible("//article[@aria-label='SKILL.md rendered']/h1[text()='Refunds']")
        visible("//aside[@aria-label='Frontmatter']//dt[text()='metadata']")
        # The directory is the server's (directoryRead): scripts/ opened, then every file verified.
        visible("//nav[@aria-label='Skill files']//button[contains(., 'scripts/')]").click()
        visible("//nav[@aria-label='Skill files']//button[contains(., 'refund.sh')]")
        visible("//button[text()='Verify all files']").click()
        visible("//nav[@aria-label='Skill files']//p[@role='status'][starts-with(text(), '✓ 3 of 3 verified')]")
        assert md.is_displayed()

        # pdf: its SKILL.md links to reference.md, which was tampered with.
        skill("pdf")
        visible("//article[@aria-label='SKILL.md rendered']//button[text()='the reference']").click()
        tampered = visible("//section[@aria-label='File reference.md']")
        verdict = visible("//ul[@aria-label='Verification'][contains(@class,'bad')]/li[starts-with(., '✗ Digest mismatch')]")
        digests = [c.text for c in verdict.find_elements(By.TAG_NAME, "code")]
        assert len(digests) == 2 and digests[0] != digests[1] and all(d.startswith("sha256:") for d in digests), digests
        # Held back until asked for, then marked as unverified.
        assert "FILL" not in tampered.text, tampered.text
        visible("//nav[@aria-label='Skill files']//button[contains(., 'reference.md')]/span[contains(@class,'bad')][text()='✗']")
        tampered.find_element(By.XPATH, ".//button[text()='Show the unverified content']").click()
        visible("//section[@aria-label='File reference.md']//p[contains(@class,'unverified')]")
        visible("//section[@aria-label='File reference.md']//pre[contains(text(), 'Use pdftk to FILL forms.')]")
        shot("panel-skills")

        # The finding is on the reply that showed it, in the wire log.
        h["set_filter"]("diag:skill-file-unverified")
        wait.until(lambda d: d.find_element(By.XPATH, "//div[@role='row']//span[contains(@class,'error')][text()='skill-file-unverified']"))
        h["set_filter"]("")
        # The next check finds the Tools panel, as a line opens on it.
        h["press_on_window"]("ctrl+1")
