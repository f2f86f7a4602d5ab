"""Headless Chromium driven through the DevTools protocol on a pipe: no library needed.

Chromium started with --remote-debugging-pipe reads protocol commands from its
file descriptor 3 and writes replies and events to 4, one JSON message each,
ended by a NUL byte. `Browser` opens one page, sets its window size, evaluates
JavaScript in it or in one of its frames, and takes screenshots: what the
report tests need to click through the Snakemake report like a reader.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Headless, and quiet on a closed network: without the background-networking flags
# Chromium keeps trying hosts it cannot reach.
HEADLESS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
FLAGS = (*HEADLESS, "--remote-debugging-pipe")


def find() -> str | None:
    """The first Chromium on the PATH, or None."""
    return next(filter(None, map(shutil.which, NAMES)), None)


class BrowserError(RuntimeError):
    """Chromium answered a command with an error, or stopped answering."""


class Browser:
    """One headless Chromium page, driven by DevTools commands (`send`)."""

    def __init__(self, executable: str, profile: Path, timeout: float = 60.0) -> None:
        commands_r, self._commands = os.pipe()
        self._replies, replies_w = os.pipe()

        def pipes_to_3_and_4() -> None:  # in the child, before exec
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (commands_r, replies_w)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self._process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=pipes_to_3_and_4,
            pass_fds=(3, 4),  # kept open past preexec_fn
        )
        os.close(commands_r)
        os.close(replies_w)
        self._buffer = b""
        self._serial = 0
        self._timeout = timeout
        self._session: str | None = None
        self.events: list[dict] = []  # the page's events of the kinds in `recorded`
        self.recorded: set[str] = set()
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        self._session = self.send("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]
        self.send("Page.enable")
        self.send("Runtime.enable")

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop this Chromium (only the process this object started)."""
        os.close(self._commands)
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        os.close(self._replies)

    def send(self, method: str, **params: Any) -> dict:
        """A command to the page (to the browser before a page is attached); its result."""
        self._serial += 1
        message: dict[str, Any] = {"id": self._serial, "method": method, "params": params}
        if self._session is not None:
            message["sessionId"] = self._session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._serial:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply and reply["method"] in self.recorded:
                self.events.append(reply)

    def _read(self) -> dict:
        deadline = time.monotonic() + self._timeout
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise BrowserError(f"Chromium sent nothing for {self._timeout:g} s")
            chunk = os.read(self._replies, 1 << 20)
            if not chunk:
                raise BrowserError("Chromium closed its pipe")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def window(self, width: int, height: int) -> None:
        """Show the page in a window of width x height CSS pixels."""
        self.send(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    def open(self, url: str) -> None:
        """Load `url` and wait until its scripts ran."""
        self.send("Page.navigate", url=url)
        self.wait_for("document.readyState === 'complete'")

    def evaluate(self, expression: str, frame: str | None = None) -> Any:
        """The JSON value of a JavaScript expression (awaited if a promise), in the page or
        in the frame with id `frame`."""
        params: dict[str, Any] = {"returnByValue": True, "awaitPromise": True}
        if frame is not None:
            world = self.send("Page.createIsolatedWorld", frameId=frame, worldName="check")
            params["contextId"] = world["executionContextId"]
        result = self.send("Runtime.evaluate", expression=expression, **params)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, condition: str, seconds: float = 20.0, frame: str | None = None) -> None:
        """Wait until a JavaScript condition holds."""
        deadline = time.monotonic() + seconds
        while not self.evaluate(f"Boolean({condition})", frame):
            if time.monotonic() > deadline:
                raise BrowserError(f"still not true after {seconds:g} s: {condition}")
            time.sleep(0.05)

    def frames(self) -> list[dict]:
        """The page's child frames: {id, url} each."""
        tree = self.send("Page.getFrameTree")["frameTree"]
        return [child["frame"] for child in tree.get("childFrames", [])]

    def allow_downloads(self, folder: Path) -> None:
        """Save what the page downloads into `folder`."""
        session, self._session = self._session, None  # a command to the browser itself
        try:
            self.send("Browser.setDownloadBehavior", behavior="allow", downloadPath=str(folder))
        finally:
            self._session = session

    def screenshot(self, path: Path) -> None:
        """The window as a PNG file."""
        data = self.send("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))


# What a reader must be able to see of one page: no element that scrolls sideways (the
# page itself included), and no text left or right of the window or above its top (at
# load, every scroll position is 0: text above the top can never be reached).
PROBLEMS_JS = """(() => {
  const problems = [];
  const width = window.innerWidth;
  const root = document.scrollingElement;
  if (root.scrollWidth > root.clientWidth + 1) {
    problems.push(`the page scrolls sideways (${root.scrollWidth} > ${root.clientWidth} px)`);
  }
  for (const element of document.body.querySelectorAll('*')) {
    const overflow = getComputedStyle(element).overflowX;
    if ((overflow === 'auto' || overflow === 'scroll')
        && element.scrollWidth > element.clientWidth + 1) {
      problems.push(`a ${element.tagName.toLowerCase()} scrolls sideways `
        + `(${element.scrollWidth} > ${element.clientWidth} px)`);
    }
  }
  const outside = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    if (!text) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const box of range.getClientRects()) {
      if (box.width > 0 && (box.left < -1 || box.right > width + 1 || box.top < -1)) {
        outside.push(`${text.slice(0, 40)} (${Math.round(box.left)}..${Math.round(box.right)}`
          + ` of ${width} px, top ${Math.round(box.top)})`);
        break;
      }
    }
  }
  if (outside.length) {
    problems.push(`${outside.length} texts outside the window: ${outside.slice(0, 3).join('; ')}`);
  }
  return problems;
})()"""
PANE = "div.grow.h-screen.overflow-auto"  # where the report shows the entry chosen
NAV_LINK = "[...document.querySelectorAll('nav a')].find(a => a.innerText.trim() === %s)"
SHOWN_JS = f"""(() => {{
  const pane = document.querySelector('{PANE}');
  const shown = pane && pane.querySelector('img, iframe');
  if (!shown) return null;
  const path = Object.keys(results).find(p => results[p].data_uri === shown.src);
  if (shown.tagName === 'IFRAME') return {{path, kind: 'html'}};
  return {{path, kind: 'image', complete: shown.complete, natural: shown.naturalWidth,
          width: shown.getBoundingClientRect().width}};
}})()"""


def walk_report(
    browser: Browser,
    report: Path,
    width: int,
    height: int,
    shots: Path,
    dpi: int = 150,
    readable_ppi: float = 82,
    start_only: bool = False,
) -> tuple[dict[str, list[str]], list[str], dict[str, list[str]]]:
    """Open every entry of the Snakemake report as a reader does (the category in the
    menu, the eye button of each row, each value of a toggle) in a window of width x
    height, check each page (PROBLEMS_JS; in an HTML entry also inside its frame) and
    take its screenshot into `shots`. Returns {entry: problems} (the start page as
    "start page", each entry as its path), the entries of the report never shown, and
    each category's rows as listed (their labels). `start_only`: the start page alone.

    A figure reads when it is shown at `readable_ppi` or more pixels per inch of the
    figure (PNG files are drawn at `dpi`, SVG files are 96 pixels per inch)."""
    shots.mkdir(parents=True, exist_ok=True)
    uri = report.resolve().as_uri()
    browser.window(width, height)
    browser.open(uri)
    browser.wait_for("document.querySelector('nav') !== null")
    browser.screenshot(shots / "start.png")
    found = {"start page": browser.evaluate(PROBLEMS_JS)}
    if start_only:
        return found, [], {}
    every = browser.evaluate("Object.keys(results)")
    listed: dict[str, list[str]] = {}
    for category in browser.evaluate("Object.keys(categories)"):
        toggle, toggles = 0, 1
        while toggle < toggles:  # each value of the category's toggle, if it has one
            browser.open(uri)
            browser.wait_for("document.querySelector('nav') !== null")
            browser.evaluate(f"{NAV_LINK % json.dumps(category)}.click()")
            browser.wait_for("document.querySelector('nav tbody tr') !== null")
            inputs = "document.querySelectorAll('nav fieldset input')"
            toggles = max(1, browser.evaluate(f"{inputs}.length"))
            if toggles > 1:
                browser.evaluate(f"{inputs}[{toggle}].click()")
            listed[category] = browser.evaluate(
                "[...document.querySelectorAll('nav tbody tr')]"
                ".map(row => row.innerText.replace(/\\s+/g, ' ').trim())"
            )
            for row in range(len(listed[category])):
                _show_row(browser, category, row, found, shots, dpi, readable_ppi)
            toggle += 1
    return found, sorted(set(every) - set(found)), listed


def _show_row(
    browser: Browser,
    category: str,
    row: int,
    found: dict[str, list[str]],
    shots: Path,
    dpi: int,
    readable_ppi: float,
) -> None:
    """Click the eye button of one row of the category's table; check what shows."""
    link = f"document.querySelectorAll('nav tbody tr')[{row}].querySelector('a')"
    label = browser.evaluate(
        f"document.querySelectorAll('nav tbody tr')[{row}].innerText.replace(/\\s+/g, ' ').trim()"
    )
    if browser.evaluate(f"{link}.getAttribute('href')") != "#":  # the report can only download it
        found[f"{category}: {label}"] = ["does not display: the report offers it as a download"]
        return
    before = browser.evaluate(SHOWN_JS)
    browser.evaluate(f"{link}.click()")
    browser.wait_for(
        f"(s => s !== null && s.path !== {json.dumps((before or {}).get('path'))}"
        f" && (s.kind === 'html' || s.complete))({SHOWN_JS})"
    )
    shown = browser.evaluate(SHOWN_JS)
    problems = browser.evaluate(PROBLEMS_JS)
    if shown["kind"] == "html":
        length = browser.evaluate(f"results[{json.dumps(shown['path'])}].data_uri.length")
        frame = wait_for_frame(browser, length)
        problems += [f"inside the page: {p}" for p in browser.evaluate(PROBLEMS_JS, frame)]
        if not browser.evaluate("document.body.innerText.trim().length", frame):
            problems.append("shows an empty page")
    elif not shown["natural"]:
        problems.append("a figure that does not display (it does not decode)")
    else:
        per_inch = dpi if shown["path"].endswith(".png") else 96
        ppi = shown["width"] / (shown["natural"] / per_inch)
        if ppi < readable_ppi:
            problems.append(
                f"a figure shown at {ppi:.0f} pixels per inch (readable: {readable_ppi:g})"
            )
    name = re.sub(r"[^\w.-]+", "_", f"{category}_{label}_{shown['path'].rsplit('.', 1)[-1]}")
    browser.screenshot(shots / f"{name}.png")
    found[shown["path"]] = problems


def wait_for_frame(browser: Browser, length: int | None = None) -> str:
    """The id of the report's one frame once its page has loaded (the page whose address
    is `length` characters long, when given: the frame just opened, not the one before)."""
    check = "document.readyState === 'complete'"
    if length is not None:
        check += f" && location.href.length === {length}"
    deadline = time.monotonic() + 20
    while True:
        frames = browser.frames()
        try:
            if frames and browser.evaluate(check, frames[0]["id"]):
                return frames[0]["id"]
        except BrowserError:  # the frame is still being replaced
            pass
        if time.monotonic() > deadline:
            raise BrowserError("the report's frame did not load")
        time.sleep(0.05)
