"""The workbench page in Playwright, driving Debian's chromium through `executable_path`
(no browser download): a served page, the console errors it logs and the checks every
view must pass (no repeated id, nothing drawn outside its frame)."""

from __future__ import annotations

import contextlib
import json
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import browser
from playwright.sync_api import Browser, ConsoleMessage, Page, Request, sync_playwright
from web_server import serving

SHOTS = Path(tempfile.gettempdir()) / "irscore-serve-shots"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
READY = "document.body.dataset.ready === '1'"
# Each tab by its link's label, in the page's order.
TABS = {
    "data": "Data",
    "metrics": "Metrics",
    "curves": "P-R curve",
    "ranking": "One ranking",
    "compare": "Compare",
    "queries": "Per query",
    "interleave": "Interleaving",
    "playground": "Playground",
    "learn": "Definitions",
}
# What each tab shows once its job is done (or, without a job, once it is drawn).
SHOWN = {
    "data": "#command:not(:empty)",
    "metrics": "#means tbody tr",
    "ranking": "#finals li",
    "compare": "#tests tbody tr",
    "interleave": "#verdict dd",
    "curves": "#pr-average svg",
    "queries": "#vs-chart svg",
    "playground": "#pg-measures tbody tr",
    "learn": "#learn-controls tbody tr",
}

# Every id that occurs more than once in the document.
REPEATED_IDS_JS = """(() => {
  const seen = {};
  for (const e of document.querySelectorAll('[id]')) seen[e.id] = (seen[e.id] || 0) + 1;
  return Object.keys(seen).filter(id => seen[id] > 1);
})()"""

# Each visible chart's marks that leave its frame: for every <svg> shown, the elements
# drawn in it (but the svg itself) whose box is not inside the svg's box (1 px slack).
OUTSIDE_FRAME_JS = """(() => {
  const out = [];
  for (const svg of document.querySelectorAll('svg')) {
    const frame = svg.getBoundingClientRect();
    if (!frame.width || !frame.height || svg.closest('[hidden]')) continue;
    for (const mark of svg.querySelectorAll('*')) {
      const box = mark.getBoundingClientRect();
      if (!box.width && !box.height) continue;
      if (box.left < frame.left - 1 || box.right > frame.right + 1
          || box.top < frame.top - 1 || box.bottom > frame.bottom + 1) {
        const where = svg.id || svg.parentElement.id || svg.parentElement.className;
        out.push(`${where}: <${mark.tagName}> ${(mark.textContent || '').slice(0, 20)}`);
      }
    }
  }
  return out;
})()"""


@contextlib.contextmanager
def chromium() -> Iterator[Browser]:
    """Debian's chromium, headless, started by Playwright."""
    executable = browser.find()
    if executable is None:
        raise RuntimeError("no chromium on the PATH (apt-get install chromium)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()


# No job of any tab runs: app.js's `running` holds one entry per tab while its job runs.
IDLE_JS = "typeof running === 'undefined' || Object.values(running).every(r => !r)"


class Workbench:
    """One page of a served workbench, with the console errors and uncaught exceptions
    it logged (`errors`) and every request it made (`requests`: method and address)."""

    def __init__(self, page: Page, base: str) -> None:
        self.page, self.base = page, base
        self.errors: list[str] = []
        self.requests: list[tuple[str, str]] = []
        self._open_requests = 0
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))
        page.on("request", self._request)
        page.on("requestfinished", self._request_ended)
        page.on("requestfailed", self._request_ended)

    def _request(self, request: Request) -> None:
        self.requests.append((request.method, request.url))
        self._open_requests += 1

    def _request_ended(self, _: Request) -> None:
        self._open_requests -= 1

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(f"console: {message.text}")

    def open(self, query: str = "", tab: str = "data") -> None:
        """Load the page at ?query#tab and wait until it has started."""
        self.page.goto(f"{self.base}?{query}#{tab}")
        self.wait(READY)

    def wait(self, condition: str, seconds: float = 20) -> None:
        """Wait until a JavaScript condition holds in the page. (Polled from here: the
        page's Content Security Policy forbids the string evaluation wait_for_function
        does in the page.)"""
        deadline = time.monotonic() + seconds
        while not self.page.evaluate(f"Boolean({condition})"):
            if time.monotonic() > deadline:
                raise TimeoutError(f"still not true after {seconds:g} s: {condition}")
            self.page.wait_for_timeout(50)

    def text(self, selector: str) -> str:
        """The text shown by the first element that matches `selector`."""
        return self.page.evaluate(f"document.querySelector({json.dumps(selector)}).innerText")

    def value(self, element: str) -> str:
        """The value of the element with id `element`, even when its tab is hidden."""
        return self.page.evaluate(f"document.getElementById({json.dumps(element)}).value")

    def shared_link(self) -> str:
        """Click Share and return the link it writes: the button's handler writes it only
        after awaiting the link, so the field is emptied first and waited on."""
        self.page.evaluate("document.getElementById('share-url').value = ''")
        self.page.click("#share")
        self.wait("document.getElementById('share-url').value !== ''")
        return self.value("share-url")

    def type_into(self, element: str, value: str) -> None:
        """Set a field as typing does (an input event after the value, then a change),
        even when its tab is hidden."""
        self.page.evaluate(
            "([id, value]) => { const e = document.getElementById(id); e.value = value;"
            " e.dispatchEvent(new Event('input')); e.dispatchEvent(new Event('change')); }",
            [element, value],
        )

    def settle(self, seconds: float = 120) -> None:
        """Wait until the page's work is done: past the typing pause (350 ms), no request
        open and no tab's job running, twice in a row 100 ms apart."""
        self.page.wait_for_timeout(400)
        deadline, quiet = time.monotonic() + seconds, 0
        while quiet < 2:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the page still works after {seconds:g} s")
            idle = self._open_requests == 0 and self.page.evaluate(IDLE_JS)
            quiet = quiet + 1 if idle else 0
            self.page.wait_for_timeout(100)

    def size(self, viewport: dict[str, int]) -> None:
        """Show the page at another window size (DESKTOP, PHONE)."""
        self.page.set_viewport_size(viewport)

    def repeated_ids(self) -> list[str]:
        return self.page.evaluate(REPEATED_IDS_JS)

    def outside_frames(self) -> list[str]:
        return self.page.evaluate(OUTSIDE_FRAME_JS)

    def shot(self, name: str) -> Path:
        """A full-page screenshot under SHOTS, for a person to look at."""
        SHOTS.mkdir(exist_ok=True)
        path = SHOTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path


@contextlib.contextmanager
def workbench(*args: str, size: dict[str, int] = DESKTOP) -> Iterator[Workbench]:
    """A server started with `args` and one page of it in chromium at `size`."""
    with serving(*args) as (url, _), chromium() as launched:
        context = launched.new_context(viewport=size)
        try:
            yield Workbench(context.new_page(), url)
        finally:
            context.close()
