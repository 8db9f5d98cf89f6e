"""Headless Chromium, for what only a browser renders: `hudi-log map -o x.png` (a screenshot of the SVG)
and the tests of `hudi-log view` pages (the DOM after the page's scripts ran, and screenshots).

Debian's ``chromium`` package, or the binary named by ``HUDI_LOG_CHROMIUM``. Each run gets a fresh
profile folder and every background service switched off, so nothing reaches the network.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--disable-extensions", "--mute-audio")


class ChromiumError(Exception):
    """Chromium is missing, or did not do what it was asked."""


def chromium_path() -> str | None:
    """The Chromium binary to run, or None when there is none."""
    named = os.environ.get("HUDI_LOG_CHROMIUM")
    if named:
        return named if os.access(named, os.X_OK) else None
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if found := shutil.which(name):
            return found
    return None


def _run(args: list[str], timeout: float) -> subprocess.CompletedProcess:
    binary = chromium_path()
    if binary is None:
        raise ChromiumError("no Chromium found (apt-get install chromium, or set HUDI_LOG_CHROMIUM)")
    with tempfile.TemporaryDirectory(prefix="hudi-log-chromium-") as profile:
        try:
            r = subprocess.run([binary, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True,
                               timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise ChromiumError(f"Chromium did not finish in {timeout:.0f} s") from None
    if r.returncode != 0:
        tail = r.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
        raise ChromiumError(f"Chromium exited with {r.returncode}: {' / '.join(tail)}")
    return r


def _url(path: str) -> str:
    return "file://" + os.path.abspath(path)


def screenshot(path: str, png: str, width: int, height: int, timeout: float = 120, fragment: str = "") -> None:
    """A PNG of the page or SVG at ``path`` (``fragment``: the URL's part after #) in a width x height
    window."""
    _run([f"--screenshot={os.path.abspath(png)}", f"--window-size={width},{height}",
          _url(path) + (f"#{fragment}" if fragment else "")], timeout)
    if not os.path.isfile(png) or os.path.getsize(png) == 0:
        raise ChromiumError(f"Chromium wrote no screenshot to {png}")


def dump_dom(path: str, timeout: float = 120, fragment: str = "") -> str:
    """The page's DOM, serialised after its scripts ran."""
    r = _run(["--dump-dom", _url(path) + (f"#{fragment}" if fragment else "")], timeout)
    return r.stdout.decode("utf-8", "replace")
