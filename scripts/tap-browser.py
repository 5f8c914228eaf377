#!/usr/bin/env python3
"""Drives `sdrify tap`'s page in headless Chromium (Debian's, through playwright) for TapTests: holds keys at known
media times (the medium paused and sought, so each hold starts and ends at an exact time), saves, and closes the
page. Prints one JSON object: the page's cues and what saving answered.

    scripts/tap-browser.py URL HOLDS_JSON      HOLDS_JSON: [[key, "down"|"up", seconds], ...] in order; a key
                                               "line:N" is the pointer held on line N of the list
"""
import json
import sys

from playwright.sync_api import sync_playwright


def main():
    url, holds = sys.argv[1], json.loads(sys.argv[2])
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--autoplay-policy=no-user-gesture-required"])
        page = browser.new_page()
        page.on("dialog", lambda d: d.dismiss())  # "replace it?" is answered no
        page.goto(url)
        page.wait_for_function("window.tapState && window.tapState.ready")
        page.wait_for_function("document.querySelector('video, audio').readyState >= 1")
        page.evaluate("document.querySelector('video, audio').pause()")
        for key, action, seconds in holds:
            page.evaluate(
                """(t) => new Promise((done) => { const m = document.querySelector('video, audio');
                   if (Math.abs(m.currentTime - t) < 1e-6) return done(); m.addEventListener('seeked', done, { once: true }); m.currentTime = t; })""",
                seconds)
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
        saved = page.evaluate("window.tapSave(false)")
        again = page.evaluate("window.tapSave(false)")  # the file exists now: kept, as the dialog said no
        page.close(run_before_unload=True)
        browser.close()
    print(json.dumps({"cues": cues, "saved": saved, "again": again}))


if __name__ == "__main__":
    main()
