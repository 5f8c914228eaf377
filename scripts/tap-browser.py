#!/usr/bin/env python3
"""Drives `sdrify tap`'s page in headless Chromium (Debian's, through playwright) for TapTests: holds keys at known
media times (the medium paused and sought, so each hold starts and ends at an exact time), saves, and closes the
page. Prints one JSON object: the page's cues and what saving answered.

    scripts/tap-browser.py URL HOLDS_JSON [SCREENSHOT.png]
                                               HOLDS_JSON: [[key, "down"|"up", seconds], ...] in order; a key
                                               "line:N" is the pointer held on line N of the list
With a screenshot path it also works the page's own controls as a person does and reports what they did ("ui"):
the size of the line shown while held, the play button, the seek bar's blocks (one per timed line; a click on one
goes to its start), the line timed last marked in the list; then it saves a screenshot of the page.
"""
import json
import sys

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright


def seek(page, seconds):
    page.evaluate(
        """(t) => new Promise((done) => { const m = document.querySelector('video, audio');
           if (Math.abs(m.currentTime - t) < 1e-6) return done(); m.addEventListener('seeked', done, { once: true }); m.currentTime = t; })""",
        seconds)


def controls(page, shot):
    """The page's own controls, used with the pointer."""
    ui = {}
    media = "document.querySelector('video, audio')"
    seek(page, 0.1)
    page.locator("#lines li").nth(0).hover()
    page.mouse.down()
    ui["held_font_px"] = page.evaluate("parseFloat(getComputedStyle(document.getElementById('showing')).fontSize)")
    ui["held_text"] = page.evaluate("document.getElementById('showing').textContent")
    page.mouse.up()  # no time passed: the line keeps the timing it has
    page.click("#play")
    page.wait_for_function(f"!{media}.paused")
    ui["playing_after_click"] = True
    # The page relabels its button on its next refresh, not in the click: under load that is after a read at once
    # (a CI run saw "Play" while playing). Given 2 s to happen; what it says then is what is reported.
    try:
        page.wait_for_function("document.getElementById('play').textContent.includes('Pause')", timeout=2000)
    except PlaywrightTimeout:
        pass
    ui["button_while_playing"] = page.evaluate("document.getElementById('play').textContent")
    page.click("#play")
    page.wait_for_function(f"{media}.paused")
    ui["paused_after_second_click"] = True
    ui["blocks"] = page.evaluate("document.querySelectorAll('#bar .cue').length")
    blocks = page.locator("#bar .cue")
    first = page.evaluate("Math.min(...window.tapState.cues.map((c) => c.start))")
    target = page.evaluate("[...document.querySelectorAll('#bar .cue')].findIndex((b) => +b.dataset.line === window.tapState.cues.find((c) => c.start === Math.min(...window.tapState.cues.map((x) => x.start))).line)")
    seek(page, 2.9)
    blocks.nth(target).click()
    page.wait_for_function(f"Math.abs({media}.currentTime - {first}) < 0.05")
    ui["block_click_goes_to"] = page.evaluate(f"{media}.currentTime")
    ui["first_cue_start"] = first
    box = page.locator("#bar").bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.75, box["y"] + 2)  # the bar's top edge, above the blocks
    page.wait_for_function(f"Math.abs({media}.currentTime / {media}.duration - 0.75) < 0.05")
    ui["bar_click_fraction"] = page.evaluate(f"{media}.currentTime / {media}.duration")
    page.wait_for_timeout(300)
    ui["clock_after_bar_click"] = page.evaluate("document.getElementById('clock').textContent")
    ui["time_at_screenshot"] = page.evaluate(f"{media}.currentTime")
    ui["last_marked"] = page.evaluate("[...document.querySelectorAll('#lines li')].findIndex((li) => li.classList.contains('last'))")
    ui["last_timed"] = page.evaluate("window.tapState.last")
    page.screenshot(path=shot)
    print(json.dumps(ui), file=sys.stderr)
    return ui


def main():
    url, holds = sys.argv[1], json.loads(sys.argv[2])
    shot = sys.argv[3] if len(sys.argv) > 3 else None
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--autoplay-policy=no-user-gesture-required"])
        page = browser.new_page()
        page.on("dialog", lambda d: d.dismiss())  # "replace it?" is answered no
        page.goto(url)
        page.wait_for_function("window.tapState && window.tapState.ready")
        page.wait_for_function("document.querySelector('video, audio').readyState >= 1")
        page.evaluate("document.querySelector('video, audio').pause()")
        for key, action, seconds in holds:
            seek(page, seconds)
            if key.startswith("line:"):  # the pointer on a line of the list
                if action == "down":
                    page.locator("#lines li").nth(int(key[5:])).hover()
                    page.mouse.down()
                else:
                    page.mouse.up()
            elif action == "down":
                page.keyboard.down(key)
            else:
                page.keyboard.up(key)
        cues = page.evaluate("window.tapState.cues")
        ui = controls(page, shot) if shot else None
        saved = page.evaluate("window.tapSave(false)")
        again = page.evaluate("window.tapSave(false)")  # the file exists now: kept, as the dialog said no
        page.close(run_before_unload=True)
        browser.close()
    print(json.dumps({"cues": cues, "saved": saved, "again": again, "ui": ui}))


if __name__ == "__main__":
    main()
