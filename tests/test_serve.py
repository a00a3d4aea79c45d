"""``bough serve``: builds, serves OUT on 127.0.0.1 only, picks up an appended
transcript with --watch within a few seconds, reloads the open page then (in
Chromium), and stops cleanly on Ctrl-C."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import orjson
import pytest

from bough_site.build import build
from bough_site.config import BuildConfig
from bough_site.serve import LIVE_JS, SiteServer, is_watched, serve, stamp, watch_paths

from .helpers import CHROMIUM, LAUNCH_ARGS, SESSION, Watch, prompt, reply, require_browser, text, write_jsonl

READY = re.compile(r"Serving .* at (http://127\.0\.0\.1:(\d+)/)")
PICKUP_SECONDS = 5.0  # the issue asks for "within a couple of seconds"; this leaves room on a busy machine


def _history(root: Path) -> Path:
    project = root / "projects" / "-home-ada-src-app"
    write_jsonl(project / f"{SESSION}.jsonl", [
        prompt("u1", "first question about the loader"),
        reply("a1", "msg_1", [text("First answer.")]),
    ])
    return project / f"{SESSION}.jsonl"


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.read()


def _session_json(base: str, out: Path) -> dict:
    (path,) = out.glob("projects/*/sessions/*.json")
    return json.loads(_get(base + path.relative_to(out).as_posix()))


def _start_serving(command: list[str]) -> subprocess.Popen[str]:
    """`bough serve` in a child whose Ctrl-C is the default one, however pytest was
    started: a shell starting a command in the background (`.ci/run &`) has it
    ignore SIGINT, children inherit that, and the child would never stop."""
    return subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _read_until(stream, pattern: re.Pattern[str], seconds: float, seen: list[str]) -> re.Match[str]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        seen.append(line)
        match = pattern.search(line)
        if match:
            return match
    raise AssertionError(f"no match for {pattern.pattern!r} in:\n" + "".join(seen))


def test_serve_watch_picks_up_an_appended_turn_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    transcript = _history(tmp_path / "history")
    out = tmp_path / "site"
    command = [sys.executable, "-m", "bough_site.cli", "serve", str(tmp_path / "history" / "projects"),
               "-o", str(out), "--port", "0", "--watch", "--no-search", "--no-archive", "-q", "-j", "1"]
    process = _start_serving(command)
    seen: list[str] = []
    try:
        match = _read_until(process.stderr, READY, 60, seen)
        base = match.group(1)
        # Other lines (the "watching" note) must not block the pipe while we poll.
        threading.Thread(target=lambda: seen.extend(process.stderr), daemon=True).start()
        assert b"<!DOCTYPE html>" in _get(base + "index.html")
        assert _session_json(base, out)["stats"]["prompts"] == 1
        time.sleep(0.5)  # the watcher starts right after the server
        with transcript.open("ab") as handle:
            for record in (prompt("u2", "second question, appended while serving"),
                           reply("a2", "msg_2", [text("Second answer.")])):
                handle.write(orjson.dumps(record) + b"\n")
        appended = time.monotonic()
        while True:
            data = _session_json(base, out)
            if data["stats"]["prompts"] == 2:
                break
            assert time.monotonic() - appended < PICKUP_SECONDS, "".join(seen)
            time.sleep(0.1)
        took = time.monotonic() - appended
        assert any(item.get("kind") == "prompt" and "appended while serving" in json.dumps(item)
                   for item in data["timeline"])
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=20) == 0, "".join(seen)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    time.sleep(0.2)
    output = "".join(seen)
    assert "Stopped." in output and "Traceback" not in output, output
    assert took < PICKUP_SECONDS
    print(f"picked up in {took:.2f} s")
    with pytest.raises(OSError):
        _get(base + "index.html")  # the server is gone


def test_serve_binds_loopback_only_and_stops_on_request(tmp_path: Path) -> None:
    _history(tmp_path / "history")
    out = tmp_path / "site"
    stop = threading.Event()
    urls: list[str] = []
    config = BuildConfig(sources=[tmp_path / "history" / "projects"], out=out, search=False, archive=None, jobs=1)
    thread = threading.Thread(target=serve, kwargs={"config": config, "port": 0, "on_ready": urls.append,
                                                    "stop": stop}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not urls and time.monotonic() < deadline:
        time.sleep(0.05)
    assert urls and urls[0].startswith("http://127.0.0.1:")
    assert b"<!DOCTYPE html>" in _get(urls[0])
    stop.set()
    thread.join(timeout=10)
    assert not thread.is_alive()


def test_what_is_watched(tmp_path: Path) -> None:
    theme = tmp_path / "theme"
    (theme / "templates").mkdir(parents=True)
    source = tmp_path / "history"
    source.mkdir()
    config = BuildConfig(sources=[source, tmp_path / "not-yet"], theme=theme)
    assert watch_paths(config) == sorted([source.resolve(), theme.resolve()])
    assert is_watched(str(source / "p" / "s.jsonl"), theme)
    assert is_watched(str(source / "p" / "s" / "subagents" / "agent-a1.meta.json"), theme)
    assert not is_watched(str(source / "p" / "notes.txt"), theme)
    assert is_watched(str(theme / "templates" / "base.html"), theme)
    # Gemini CLI: sessions (.jsonl, legacy .json) and the files that name project directories.
    gemini = tmp_path / ".gemini" / "tmp" / "almanac"
    assert is_watched(str(gemini / "chats" / "session-2025-12-02T10-00-abc.json"), theme)
    assert is_watched(str(gemini / "chats" / "session-2025-12-02T10-00-abc.jsonl"), theme)
    assert is_watched(str(gemini / ".project_root"), theme)
    assert is_watched(str(tmp_path / ".gemini" / "projects.json"), theme)
    # A site built inside a watched folder: its own pages and sidecars are no change.
    out = source / "site"
    assert not is_watched(str(out / "projects" / "p" / "sessions" / "s.json"), theme, out)
    assert is_watched(str(source / "p" / "s.jsonl"), theme, out)


# --- live reload (--watch) -------------------------------------------------------------------


def test_a_live_server_adds_the_reload_script_to_pages_only(tmp_path: Path) -> None:
    out = tmp_path / "site"
    (out / "projects" / "p").mkdir(parents=True)
    page = out / "projects" / "p" / "index.html"
    page.write_bytes(b"<!DOCTYPE html><html><head><title>p</title></head><body>one</body></html>\n")
    (out / "data.json").write_bytes(b'{"a": "</head>"}')
    with SiteServer(out, 0, live=True) as server:
        served = _get(server.url + "projects/p/").decode()
        expected = (f'<script src="/__bough__/live.js" data-stamp="{stamp(page)}" '
                    'data-stamp-url="/__bough__/stamp?path=/projects/p/" defer></script>\n</head>')
        assert expected in served and served.endswith("<body>one</body></html>\n")
        assert _get(server.url + "projects/p/index.html").count(b"__bough__/live.js") == 1
        assert _get(server.url + "data.json") == b'{"a": "</head>"}'  # only pages
        assert _get(server.url + "__bough__/live.js") == LIVE_JS.read_bytes()
        assert _get(server.url + "__bough__/stamp?path=/projects/p/") == stamp(page).encode()
        assert _get(server.url + "__bough__/stamp?path=/projects/p/index.html") == stamp(page).encode()
        assert _get(server.url + "__bough__/stamp?path=/nowhere.html") == b""
        before = stamp(page)
        page.write_bytes(page.read_bytes().replace(b"one", b"two, longer"))
        assert _get(server.url + "__bough__/stamp?path=/projects/p/").decode() != before
    with SiteServer(out, 0) as server:  # without --watch nothing changes
        assert _get(server.url + "projects/p/index.html") == page.read_bytes()
        with pytest.raises(urllib.error.HTTPError):
            _get(server.url + "__bough__/live.js")


def test_the_reload_script_is_never_in_a_built_site(tmp_path: Path) -> None:
    _history(tmp_path / "history")
    out = tmp_path / "site"
    build(BuildConfig(sources=[tmp_path / "history" / "projects"], out=out, archive=None, jobs=1))
    written = [p for p in out.rglob("*") if p.is_file()]
    assert written and not [p for p in written if b"__bough__" in p.read_bytes() or p.name == "live.js"]


@pytest.mark.browser
def test_serve_watch_reloads_the_open_page_when_its_file_changes(tmp_path: Path) -> None:
    """In Chromium: a session page open from `bough serve --watch` shows a turn
    appended to its transcript, with no reload by the test, and no console error."""
    require_browser()
    from playwright.sync_api import sync_playwright

    transcript = _history(tmp_path / "history")
    out = tmp_path / "site"
    command = [sys.executable, "-m", "bough_site.cli", "serve", str(tmp_path / "history" / "projects"),
               "-o", str(out), "--port", "0", "--watch", "--no-archive", "-q", "-j", "1"]
    process = _start_serving(command)
    seen: list[str] = []
    try:
        base = _read_until(process.stderr, READY, 60, seen).group(1)
        threading.Thread(target=lambda: seen.extend(process.stderr), daemon=True).start()
        (session,) = out.glob("projects/*/sessions/*.html")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
            context = browser.new_context()
            watch = Watch()
            watch.attach(context)
            page = context.new_page()
            page.goto(base + session.relative_to(out).as_posix())
            assert page.locator(".prompt").count() == 1
            page.evaluate("window.__sameDocument = true")  # gone once the page reloads
            time.sleep(0.5)  # the watcher starts right after the server
            with transcript.open("ab") as handle:
                for record in (prompt("u2", "second question, appended while the page is open"),
                               reply("a2", "msg_2", [text("Second answer.")])):
                    handle.write(orjson.dumps(record) + b"\n")
            page.locator(".timeline").get_by_text("second question, appended while the page is open").wait_for(
                timeout=15_000)
            assert page.locator(".prompt").count() == 2
            assert page.evaluate("window.__sameDocument") is None  # the page reloaded itself
            context.close()
            browser.close()
        assert watch.problems == [], watch.problems
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=20)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()


# --- a rebuild that fails ----------------------------------------------------------------------


def _wait_for(condition, seconds: float, seen: list[str]) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "".join(seen)
        time.sleep(0.1)


def test_serve_watch_survives_a_rebuild_that_raises_and_recovers(tmp_path: Path) -> None:
    """A theme template that raises (ZeroDivisionError: not bough's own error) makes the
    rebuild fail: the terminal shows one block naming the error, the last good site is
    still served as it was, and once the template is fixed the next rebuild is served."""
    _history(tmp_path / "history")
    theme = tmp_path / "theme"
    (theme / "templates").mkdir(parents=True)
    out = tmp_path / "site"
    command = [sys.executable, "-m", "bough_site.cli", "serve", str(tmp_path / "history" / "projects"),
               "-o", str(out), "--theme", str(theme), "--port", "0", "--watch", "--no-search", "--no-archive",
               "-q", "-j", "1"]
    process = _start_serving(command)
    seen: list[str] = []
    try:
        base = _read_until(process.stderr, READY, 60, seen).group(1)
        threading.Thread(target=lambda: seen.extend(process.stderr), daemon=True).start()
        _wait_for(lambda: any(line.startswith("watching ") for line in seen), 10, seen)
        good_index = (out / "index.html").read_bytes()
        assert b"<title>Projects \xc2\xb7 bough</title>" in good_index
        template = theme / "templates" / "index.html"
        broken = '{% extends "default:index.html" %}{% block title %}{{ 1 // 0 }}{% endblock %}'
        # "watching" is said just before the watcher starts: a change made in between is
        # not seen, so the change is made again until a rebuild starts.
        deadline = time.monotonic() + 30
        while not any(line.startswith("changed: ") for line in seen):
            assert time.monotonic() < deadline, "".join(seen)
            template.write_text(broken)
            time.sleep(1.0)
        _wait_for(lambda: "error: the rebuild failed" in "".join(seen), 30, seen)
        output = "".join(seen)
        block = output[output.index("error: the rebuild failed"):].splitlines()[:3]
        assert block[0] == "error: the rebuild failed; the last good site stays served, still watching for changes"
        assert block[1].startswith("  ZeroDivisionError: integer division or modulo by zero (at ")
        assert block[2] == ("  (if a theme or input of yours did not cause this, it is a bug in bough: "
                            "please report it)")
        assert "Traceback" not in output and process.poll() is None
        assert (out / "index.html").read_bytes() == good_index  # the last good site, as it was
        served = _get(base + "index.html")
        assert b"<title>Projects \xc2\xb7 bough</title>" in served and b"__bough__/live.js" in served
        template.write_text('{% extends "default:index.html" %}{% block title %}Fixed \xb7 bough{% endblock %}')
        _wait_for(lambda: b"<title>Fixed \xc2\xb7 bough</title>" in _get(base + "index.html"), 30, seen)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=20) == 0, "".join(seen)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    time.sleep(0.2)
    output = "".join(seen)
    assert "error: the rebuild failed" in output, output
    assert "Stopped." in output and "Traceback" not in output, output


def test_a_failed_rebuild_is_one_block_naming_the_error() -> None:
    from bough_site.errors import OutputError
    from bough_site.serve import rebuild_failure

    assert rebuild_failure(OutputError("OUT is read-only: /srv/site")) == (
        "error: the rebuild failed; the last good site stays served, still watching for changes\n"
        "  OUT is read-only: /srv/site")
    try:
        {}["missing"]
    except KeyError as error:
        lines = rebuild_failure(error).splitlines()
    assert lines[0] == "error: the rebuild failed; the last good site stays served, still watching for changes"
    assert re.fullmatch(r"  KeyError: 'missing' \(at .*test_serve\.py:\d+\)", lines[1])
    assert lines[2].endswith("it is a bug in bough: please report it)") and len(lines) == 3
