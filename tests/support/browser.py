"""A real headless Chromium for the HTML report's tests and its benchmark, driven by Playwright for
Python (in the ``test`` extra).

The browser is the machine's own: ``TOOL_EVAL_GATE_CHROMIUM`` when set, else the first of
``chromium`` (Debian's package, which ``.ci/run`` installs), ``chromium-browser``, ``google-chrome``
and ``google-chrome-stable`` on the ``PATH``; Playwright's own browser download is never needed. With
none, the tests fail and say how to install one: a browser test never skips itself.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Headless, no sandbox (CI containers run as root), and nothing of its own on the network.
ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)


class NoBrowser(RuntimeError):
    pass


def chromium_path() -> str:
    named = os.environ.get("TOOL_EVAL_GATE_CHROMIUM", "")
    if named:
        return named
    for name in NAMES:
        found = shutil.which(name)
        if found:
            return found
    raise NoBrowser(
        "the HTML report's browser tests need Chromium or Chrome: apt-get install chromium (Debian), "
        "or set TOOL_EVAL_GATE_CHROMIUM to a Chromium or Chrome executable"
    )


@contextmanager
def chromium() -> Iterator[Any]:
    """A launched headless Chromium (a Playwright ``Browser``), closed afterwards."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=list(ARGS))
        try:
            yield browser
        finally:
            browser.close()
