"""The workbench page in Playwright, driving Debian's chromium through `executable_path`
(no browser download): a served page, the console errors it logs and the checks every
view must pass (no repeated id, nothing drawn outside its frame)."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path

import browser
from playwright.sync_api import Browser, ConsoleMessage, Page, sync_playwright
from web_server import serving

SHOTS = Path(tempfile.gettempdir()) / "irscore-serve-shots"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
READY = "document.body.dataset.ready === '1'"

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


class Workbench:
    """One page of a served workbench, with the console errors and uncaught exceptions
    it logged (`errors`)."""

    def __init__(self, page: Page, base: str) -> None:
        self.page, self.base = page, base
        self.errors: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(f"console: {message.text}")

    def open(self, query: str = "", tab: str = "data") -> None:
        """Load the page at ?query#tab and wait until it has started."""
        self.page.goto(f"{self.base}?{query}#{tab}")
        self.page.wait_for_function(READY)

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
