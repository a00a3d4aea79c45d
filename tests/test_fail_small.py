"""A failure costs what it started in, never the site (docs/safety.md S10, S11).

Values no page can draw (a time in year 9999 or year 1, a token count of
Infinity, 1e400 or 2^64) are made unknown where they are read, in all three
formats; a bug in bough while reading or rendering one session costs that
session's page (which says so), one project's page costs that page, and a
project Pagefind finds nothing to index in gets no bundle and no error.

The bugs are real ones: a theme whose template fails for one session or
project, and, for the readers (which have no known bug left to trigger), a
reader function replaced by one that raises for one file, as a fault injected.
"""

from __future__ import annotations

import json
import random
import shutil
import string
from pathlib import Path
from typing import Any

import jsonschema
import orjson
import pytest
from click.testing import CliRunner

from bough_site.build import BuildResult, build
from bough_site.cli import main
from bough_site.config import BuildConfig
from bough_site.readers.values import BAD_TIME, UNKNOWN_TOKENS
from bough_site.render.env import default_theme_dir
from bough_site.search.pagefind_run import PAGEFIND_DIR
from bough_site.search.shards import SHARDS_PATH

from .helpers import (
    AGENTS,
    KEY,
    REPO,
    agent_id,
    agent_records,
    agent_time,
    csp_problems,
    fixtures_dir,
    leaks,
    prompt,
    write_agent_session,
)

CWDS = {agent: f"/home/u/{agent}-project" for agent in AGENTS}


def history(root: Path, prompts: dict[str, list[list[str]]]) -> list[Path]:
    """Sessions of each agent (tags from 1, in their agents' order), each with its prompts."""
    sources: set[Path] = set()
    tag = 0
    for agent, sessions in prompts.items():
        for texts in sessions:
            tag += 1
            sources.add(write_agent_session(root, agent, tag, CWDS[agent], agent_records(agent, tag, CWDS[agent], texts)))
    return sorted(sources)


def run(sources: list[Path], out: Path, **options: Any) -> BuildResult:
    options.setdefault("jobs", 1)
    options.setdefault("search", False)
    return build(BuildConfig(sources=sources, out=out, archive=None, **options), redaction_key=KEY)


def session_page(out: Path, sid: str) -> str:
    pages = [p for p in out.glob("projects/*/sessions/*.html") if p.stem == sid]
    assert len(pages) == 1, sid
    return pages[0].read_text("utf-8")


def session_sidecar(out: Path, sid: str) -> dict[str, Any]:
    return orjson.loads(next(out.glob(f"projects/*/sessions/{sid}.json")).read_bytes())


def validate(out: Path) -> None:
    """Every sidecar holds to its schema; every page to the CSP."""
    schemas = {name: json.loads((REPO / "docs" / "schema" / f"{name}.schema.json").read_text())
               for name in ("site", "project", "session")}
    jsonschema.validate(orjson.loads((out / "index.json").read_bytes()), schemas["site"])
    for path in out.glob("projects/*/project.json"):
        jsonschema.validate(orjson.loads(path.read_bytes()), schemas["project"])
    for path in out.glob("projects/*/sessions/*.json"):
        jsonschema.validate(orjson.loads(path.read_bytes()), schemas["session"])
    assert [(p.name, c) for p in out.rglob("*.html") for c in csp_problems(p.read_text("utf-8"))] == []


# --- values no page can draw -----------------------------------------------------------------------


def _set_time(agent: str, record: dict[str, Any], value: Any) -> None:
    record["timestamp"] = value
    if agent == "codex" and record["type"] == "session_meta":
        record["payload"]["timestamp"] = value
    if agent == "gemini" and "startTime" in record:
        record["startTime"] = record["lastUpdated"] = value
    if agent == "copilot" and record["type"] == "session.start":
        record["data"]["startTime"] = value
    if agent == "qwen" and record.get("subtype") == "ui_telemetry":
        record["systemPayload"]["uiEvent"]["event.timestamp"] = value


def _set_tokens(agent: str, record: dict[str, Any], value: Any) -> bool:
    """Put ``value`` in the record's input count, if it is a reply's; whether it was."""
    if agent == "claude" and record.get("type") == "assistant":
        record["message"]["usage"]["input_tokens"] = value
    elif agent == "codex" and record["payload"].get("type") == "token_count":
        record["payload"]["info"]["last_token_usage"]["input_tokens"] = value
        record["payload"]["info"]["total_token_usage"]["input_tokens"] = value
    elif agent == "gemini" and record.get("type") == "gemini":
        record["tokens"]["input"] = value
    elif agent == "copilot" and record["type"] == "assistant.message":
        record["data"]["outputTokens"] = value  # the one count a Copilot reply holds
    elif agent == "qwen" and record.get("subtype") == "ui_telemetry":
        record["systemPayload"]["uiEvent"]["input_token_count"] = value
    else:
        return False
    return True


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("stamp", ["9999-12-31T23:59:59.999Z", "0001-01-01T00:00:00.000Z", "0002-03-04T05:06:07Z"])
def test_a_time_no_page_can_draw_is_no_time(tmp_path: Path, agent: str, stamp: str) -> None:
    # Year 9999 crashed the timeline, year 1 the tokens chart and the weekly chart.
    records = agent_records(agent, 1, CWDS[agent], ["first ASK-ONE", "then ASK-TWO"])
    for record in records:
        _set_time(agent, record, stamp)
    source = write_agent_session(tmp_path, agent, 1, CWDS[agent], records)
    result = run([source], tmp_path / "out")
    assert result.sessions == 1 and result.stats["prompts"] == 2
    assert {w.reason for w in result.warnings} == {BAD_TIME}
    page = session_page(tmp_path / "out", agent_id(1))
    assert "ASK-ONE" in page and "ASK-TWO" in page
    assert session_sidecar(tmp_path / "out", agent_id(1))["started"] is None
    validate(tmp_path / "out")


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("count", [b"Infinity", b"-Infinity", b"NaN", b"1e400", b"18446744073709551616",
                                   b"1180591620717411303424", b"1e19", b"-5", b'"12"', b"true"])
def test_a_count_that_is_no_count_is_unknown(tmp_path: Path, agent: str, count: bytes) -> None:
    # Infinity and 1e400 crashed int(); 2^64 and beyond crashed orjson.dumps of the tally.
    records = agent_records(agent, 1, CWDS[agent], ["first ASK-ONE", "then ASK-TWO"])
    index = next(i for i, record in enumerate(records) if _set_tokens(agent, record, "PLANTED"))
    lines: list[Any] = [orjson.dumps(r).replace(b'"PLANTED"', count) for r in records]
    source = write_agent_session(tmp_path, agent, 1, CWDS[agent], lines)
    result = run([source], tmp_path / "out")
    assert result.sessions == 1 and result.stats["prompts"] == 2
    assert [(w.line, w.reason) for w in result.warnings if w.reason == UNKNOWN_TOKENS] == [(index + 1, UNKNOWN_TOKENS)]
    # The other reply is counted; the planted one is unknown, not zero and not a crash. (Codex's
    # totals are cumulative: the next total that can be read counts the lost call too, so the
    # session's tokens stay exact, and the two calls are one reply.)
    stats = result.stats
    if agent == "codex":
        assert (stats["replies"], stats["input_tokens"], stats["output_tokens"]) == (1, 10, 20)
    elif agent == "copilot":  # the output count was planted; the input is the shutdown record's, for both calls
        assert (stats["replies_with_unknown_tokens"], stats["input_tokens"], stats["output_tokens"]) == (1, 10, 10)
    else:
        assert (stats["replies_with_unknown_tokens"], stats["input_tokens"], stats["output_tokens"]) == (1, 5, 20)
    page = session_page(tmp_path / "out", agent_id(1))
    assert "ASK-ONE" in page and "ASK-TWO" in page
    validate(tmp_path / "out")


def test_the_cli_builds_every_bad_value_at_once_with_search_and_archive(tmp_path: Path) -> None:
    # The measured failures together, through the command line, search and archive on: exit 0.
    sources = []
    for tag, agent in enumerate(AGENTS, 1):
        records = agent_records(agent, tag, CWDS[agent], [f"ask {agent} ALPHA-{tag}", "and then"])
        _set_time(agent, records[0], "9999-12-31T23:59:59.999Z")
        _set_time(agent, records[-1], "0001-01-01T00:00:00.000Z")
        next(r for r in records if _set_tokens(agent, r, "PLANTED"))
        lines: list[Any] = [orjson.dumps(r).replace(b'"PLANTED"', b"Infinity") for r in records]
        sources.append(write_agent_session(tmp_path, agent, tag, CWDS[agent], lines))
    out = tmp_path / "site"
    done = CliRunner().invoke(main, ["build", *map(str, sources), "-o", str(out), "-q", "--archive",
                                     str(tmp_path / "archive")])
    assert done.exit_code == 0, done.output
    # Claude's, Gemini's, Copilot's and Qwen's replies are unknown; Codex's next total counts the lost call.
    assert "0 cache reads (and 4 replies whose tokens are unknown); estimated cost" in done.output
    for tag, agent in enumerate(AGENTS, 1):
        assert f"ALPHA-{tag}" in session_page(out, agent_id(tag))
    assert (out / SHARDS_PATH).is_file()
    validate(out)


# --- a bug in bough while rendering one session -------------------------------------------------------


def trap_theme(root: Path, template: str, condition: str) -> Path:
    """A theme whose ``template`` is the default's, but fails (a variable that does
    not exist, under StrictUndefined) whenever ``condition`` holds."""
    theme = root / "theme"
    target = theme / "templates" / template
    target.parent.mkdir(parents=True, exist_ok=True)
    default = (default_theme_dir() / "templates" / template).read_text("utf-8")
    target.write_text(f"{{% if {condition} %}}{{{{ no_such_variable.at_all }}}}{{% endif %}}\n{default}", "utf-8")
    return theme


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_bug_rendering_one_session_costs_that_session_alone(tmp_path: Path, jobs: int) -> None:
    sources = history(tmp_path, {"claude": [["a fine ASK-ONE"], ["this one goes BOOM"]], "codex": [["fine ASK-THREE"]],
                                 "gemini": [["fine ASK-FOUR"]]})
    theme = trap_theme(tmp_path, "items/prompt.html", '"BOOM" in (item.content[0].text if item.content else "")')
    out = tmp_path / "out"
    result = run(sources, out, theme=theme, jobs=jobs)
    assert result.sessions == 4
    for tag, marker in ((1, "ASK-ONE"), (3, "ASK-THREE"), (4, "ASK-FOUR")):
        assert marker in session_page(out, agent_id(tag))
    page = session_page(out, agent_id(2))
    assert "bough could not show this session: it failed while trying to render it (UndefinedError" in page
    assert "BOOM" not in page.split("<main", 1)[-1].split("</h1>", 1)[-1]  # the timeline is the note alone
    [warning] = [w for w in result.warnings if "bough could not" in w.reason]
    assert warning.file.endswith(f"{agent_id(2)}.jsonl")
    assert warning.reason.startswith("bough could not render this session (UndefinedError: ")
    assert "please report it" in warning.reason
    # Its place in the site and its counts are kept: it was read.
    sidecar = session_sidecar(out, agent_id(2))
    assert sidecar["stats"]["prompts"] == 1 and sidecar["title"] == "this one goes BOOM"
    assert [item["kind"] for item in sidecar["timeline"]] == ["marker"]
    assert result.stats["prompts"] == 4
    validate(out)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_bug_in_what_a_session_shows_falls_back_to_a_bare_page_then_to_none(tmp_path: Path, jobs: int) -> None:
    # The bug lies in a fact the stand-in shows as well (its title): then its id alone is
    # shown; a bug in every page of one session leaves that session out; never the build.
    sources = history(tmp_path, {"claude": [["title goes BOOM"], ["fine ASK-TWO"], ["lost WHOLE"]]})
    theme = trap_theme(tmp_path, "session.html", f'"BOOM" in session.title or session.id == "{agent_id(3)}"')
    out = tmp_path / "out"
    result = run(sources, out, theme=theme, jobs=jobs)
    assert result.sessions == 2 and "ASK-TWO" in session_page(out, agent_id(2))
    bare = session_page(out, agent_id(1))
    assert "<h1>Session of 2026-03-01 10:00 UTC</h1>" in bare and "bough could not show this session" in bare
    assert "BOOM" not in bare
    assert not list(out.glob(f"projects/*/sessions/{agent_id(3)}.*"))
    said = sorted((w.file.rsplit("/", 1)[-1], w.reason.split(" (")[0].split(":")[0]) for w in result.warnings)
    assert said == [(f"{agent_id(1)}.jsonl", "bough could not render this session"),
                    (f"{agent_id(3)}.jsonl", "bough could not render this session"),
                    (f"{agent_id(3)}.jsonl", "bough could not show even a note for this session")]
    validate(out)


def test_a_bug_reading_one_file_costs_that_file_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Every reader's unit fails when it meets a file whose name holds the planted id:
    # a Codex or Gemini unit is then read file by file, and only that file is lost.
    bad = {agent_id(2), agent_id(4), agent_id(6)}
    sources = history(tmp_path, {"claude": [["fine ASK-ONE"], ["lost"]], "codex": [["fine ASK-THREE"], ["lost"]],
                                 "gemini": [["fine ASK-FIVE"], ["lost"]]})
    from bough_site.readers import claude, codex, gemini

    def planted(real: Any, paths_of: Any) -> Any:
        def reader(*args: Any, **kwargs: Any) -> Any:
            if any(b in str(path) or b[:8] in str(path) for path in paths_of(args) for b in bad):
                raise RuntimeError("a planted bug")
            return real(*args, **kwargs)
        return reader

    monkeypatch.setattr(claude, "read_claude_session", planted(claude.read_claude_session, lambda a: [a[0].main]))
    monkeypatch.setattr(codex, "read_codex_sessions", planted(codex.read_codex_sessions, lambda a: a[0]))
    monkeypatch.setattr(gemini, "read_gemini_sessions", planted(gemini.read_gemini_sessions, lambda a: a[0]))
    out = tmp_path / "out"
    result = run(sources, out)
    assert result.sessions == 6
    for tag, marker in ((1, "ASK-ONE"), (3, "ASK-THREE"), (5, "ASK-FIVE")):
        assert marker in session_page(out, agent_id(tag))
    lost = sorted(w.file for w in result.warnings if "bough could not read this session (RuntimeError" in w.reason)
    assert len(lost) == 3 and all(any(b[:8] in name for b in bad) for name in lost)
    by_id = {s.id: (project.cwd, s) for project in result.site.projects for s in project.sessions}
    for tag in (2, 4):  # Claude and Codex name their directory in their first lines
        cwd, stand_in = by_id[agent_id(tag)]
        assert cwd == CWDS["claude" if tag == 2 else "codex"] and stand_in.started == "2026-03-01T10:00:00.000Z"
        assert "it failed while trying to read it (RuntimeError: a planted bug)" in session_page(out, agent_id(tag))
    gemini_page = [p for p in out.glob("projects/*/sessions/*.html") if agent_id(6)[:8] in p.stem]
    assert len(gemini_page) == 1 and "it failed while trying to read it" in gemini_page[0].read_text("utf-8")
    validate(out)


# --- a bug in bough while making one project's page ---------------------------------------------------


def test_a_bug_in_a_projects_page_costs_that_part_of_it(tmp_path: Path) -> None:
    sources = history(tmp_path, {"claude": [["fine ASK-ONE"]], "codex": [["fine ASK-TWO"]]})
    # A bug in the part that shows what was built (work), for one project.
    theme = trap_theme(tmp_path, "project_work.html", 'project.name == "codex-project" and not work.empty')
    out = tmp_path / "out"
    result = run(sources, out, theme=theme)
    pages = {p.parent.name: p.read_text("utf-8") for p in out.glob("projects/*/index.html")}
    assert len(pages) == 2
    codex_page = next(text for name, text in pages.items() if "codex" in name)
    claude_page = next(text for name, text in pages.items() if "claude" in name)
    assert 'id="built-title"' in claude_page and 'id="built-title"' not in codex_page
    assert agent_id(2) in codex_page  # its sessions are still listed
    [warning] = [w for w in result.warnings if "bough could not" in w.reason]
    assert warning.reason.startswith("bough could not render what its agents built (UndefinedError")
    assert "please report it" in warning.reason and warning.file.endswith("index.html")
    # The warning is on the index too, and the next build makes the page again.
    assert "what its agents built" in (out / "index.html").read_text("utf-8")
    again = run(sources, out, theme=theme)
    assert [w.reason[:40] for w in again.warnings if "bough could not" in w.reason] == [warning.reason[:40]]
    validate(out)


def test_a_project_page_that_cannot_be_made_at_all_costs_that_page(tmp_path: Path) -> None:
    sources = history(tmp_path, {"claude": [["fine ASK-ONE"]], "codex": [["fine ASK-TWO"]]})
    theme = trap_theme(tmp_path, "project.html", 'project.name == "codex-project"')
    out = tmp_path / "out"
    result = run(sources, out, theme=theme)
    assert result.sessions == 2 and len(list(out.glob("projects/*/index.html"))) == 1
    assert len(list(out.glob("projects/*/project.json"))) == 2
    assert "ASK-TWO" in session_page(out, agent_id(2))
    reasons = [w.reason for w in result.warnings if "bough could not" in w.reason]
    assert [r.split(" (")[0] for r in reasons] == ["bough could not render its page",
                                                   "bough could not render what its agents built"]
    validate(out)


def test_a_bug_in_the_index_chart_costs_the_chart(tmp_path: Path) -> None:
    sources = history(tmp_path, {"claude": [["fine ASK-ONE"]], "codex": [["fine ASK-TWO"]]})
    out = tmp_path / "out"
    result = run(sources, out, theme=trap_theme(tmp_path, "index.html", "chart"))
    index = (out / "index.html").read_text("utf-8")
    assert 'class="activity"' not in index and "its activity chart" in index
    assert "claude-project" in index and "codex-project" in index  # every project still listed
    [warning] = [w for w in result.warnings if "bough could not" in w.reason]
    assert warning.file == "index.html" and warning.reason.startswith("bough could not render its activity chart (")
    validate(out)


# --- Pagefind and a project with nothing to index ------------------------------------------------------


def test_a_project_with_no_word_to_index_gets_no_bundle_and_no_error(tmp_path: Path) -> None:
    # A session of one prompt of punctuation alone (Pagefind failed the whole site on it).
    lonely = prompt(agent_id(1), "?!?! ... ---", sessionId=agent_id(1), cwd=CWDS["claude"])
    sources = [write_agent_session(tmp_path, "claude", 1, CWDS["claude"], [lonely]),
               *history(tmp_path, {"codex": [["a real ASK-TWO"]]})]
    out = tmp_path / "out"
    result = run(sources, out, search=True)
    assert result.sessions == 2 and not [w for w in result.warnings]
    bundles = sorted(p.name for p in (out / PAGEFIND_DIR).iterdir() if p.is_dir())
    assert len(bundles) == 1 and "codex" in bundles[0]
    shards = (out / SHARDS_PATH).read_text("utf-8")
    assert f"{PAGEFIND_DIR}/{bundles[0]}/" in shards and "claude" not in shards


def test_the_usage_only_fixture_builds_with_search(tmp_path: Path) -> None:
    # A real transcript of one usage line (ccusage's test data): no words at all.
    fixture = fixtures_dir("claude") / "ccusage__usage-only-costUSD__chat-alpha.jsonl"
    folder = tmp_path / "projects" / "-home-u-alpha"
    folder.mkdir(parents=True)
    shutil.copy(fixture, folder / fixture.name)
    done = CliRunner().invoke(main, ["build", str(folder), "-o", str(tmp_path / "out"), "-q", "--no-archive"])
    assert done.exit_code == 0, done.output
    assert "Pagefind" not in done.output
    assert (tmp_path / "out" / "index.html").is_file()


# --- a hostile history of our own: odd values in new places, secrets in odd places ------------------


def _fake(rng: random.Random, prefix: str, alphabet: str, size: int) -> str:
    """A FAKE key of a provider's shape, made at run time: no key-shaped string sits in this file."""
    return prefix + "".join(rng.choice(alphabet) for _ in range(size))


def test_a_hostile_history_of_our_own_keeps_every_prompt_and_publishes_no_secret(tmp_path: Path) -> None:
    rng = random.Random(35)
    upper, alnum = string.ascii_uppercase + "234567", string.ascii_letters + string.digits
    github, aws = _fake(rng, "gh" + "p_", alnum, 36), _fake(rng, "AK" + "IA", upper, 16)
    stripe, gitlab = _fake(rng, "sk_" + "live_", alnum, 28), _fake(rng, "glp" + "at-", alnum, 20)
    secrets = [github, aws, stripe, gitlab]
    sources = set()
    # Claude Code: a secret as a key of a tool's input and glued into a command; a cache count
    # of 1e300, a tool result from year 3001, a version that is a list; a sub-agent file whose
    # name holds a key, and a project directory whose name holds one.
    cwd = f"/home/u/keys_{aws}/app"
    claude = agent_records("claude", 1, cwd, ["claude HOSTILE-ONE", "and on"])
    claude[1]["message"]["content"].append({"type": "tool_use", "id": "toolu_x", "name": "Deploy",
                                            "input": {github: "the token itself is the key", "n": 1}})
    claude[1]["message"]["content"][1]["input"]["command"] = f"export backup_{stripe}_old=1 && ls"
    claude[1]["message"]["usage"]["cache_read_input_tokens"] = 1e300
    claude[2]["timestamp"] = "3001-01-01T00:00:00.000Z"
    claude[3]["version"] = ["2.1", None]
    folder = write_agent_session(tmp_path, "claude", 1, cwd, claude) / ("-" + cwd.strip("/").replace("/", "-"))
    sources.add(folder.parent)
    agent = folder / agent_id(1) / "subagents" / f"agent-{gitlab}.jsonl"
    agent.parent.mkdir(parents=True)
    agent.write_bytes(orjson.dumps({**claude[0], "isSidechain": True, "agentId": f"x_{gitlab}", "uuid": "sub-1"}) + b"\n")
    # Codex: a count given as text, a model that is a number, a 2 MB output that ends in a key,
    # and a key in a line the lenient parser reads (it holds Infinity).
    codex = agent_records("codex", 2, CWDS["codex"], ["codex HOSTILE-TWO", "and on"])
    codex[1]["payload"]["model"] = 12
    codex[6]["payload"]["info"]["last_token_usage"]["cached_input_tokens"] = "Infinity"
    codex[5]["payload"]["output"] = "x" * (2 << 20) + f" token={github}"
    lines: list[Any] = [orjson.dumps(r) for r in codex]
    lines.insert(3, orjson.dumps({"timestamp": agent_time(1), "type": "response_item", "payload": {
        "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": f"key {stripe} n=PLANTED"}]}})
        .replace(b'"PLANTED"', b"Infinity"))
    sources.add(write_agent_session(tmp_path, "codex", 2, CWDS["codex"], lines))
    # Gemini CLI: negative thoughts, a tool call from no possible time, a key glued into a
    # thought's subject, a prompt of emoji alone.
    gemini = agent_records("gemini", 3, CWDS["gemini"], ["gemini HOSTILE-THREE", "\U0001f600\U0001f680"])
    gemini[2]["tokens"]["thoughts"] = -7
    gemini[2]["toolCalls"][0]["timestamp"] = "0000-00-00T00:00:00Z"
    gemini[2]["thoughts"] = [{"subject": f"x_{gitlab}", "description": "looking"}]
    sources.add(write_agent_session(tmp_path, "gemini", 3, CWDS["gemini"], gemini))
    out = tmp_path / "site"
    done = CliRunner().invoke(main, ["build", *map(str, sorted(sources)), "-o", str(out), "--archive",
                                     str(tmp_path / "archive")])
    assert done.exit_code == 0, done.output
    assert "bough could not" not in done.output
    pages = "".join(p.read_text("utf-8") for p in out.glob("projects/*/sessions/*.html"))
    assert all(marker in pages for marker in ("HOSTILE-ONE", "HOSTILE-TWO", "HOSTILE-THREE", "\U0001f600\U0001f680"))
    assert leaks(out, secrets) == []
    assert (out / SHARDS_PATH).read_text("utf-8").count(f"{PAGEFIND_DIR}/") == 3
    # Kept raw: three sessions, the sub-agent and Gemini CLI's projects.json.
    assert len(list((tmp_path / "archive").rglob("*.gz"))) == 5
    validate(out)


def test_a_bug_reading_a_later_agents_session_costs_that_session_alone(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # A Layout's agent (Copilot CLI: a unit per session folder) read through the registry:
    # the failing session is a stand-in named by its folder (its file is events.jsonl).
    from bough_site.discover import EXAMPLES
    from bough_site.kinds import COPILOT
    from bough_site.readers import registry

    home = tmp_path / ".copilot"
    shutil.copytree(EXAMPLES / "copilot", home)
    bad, good = "cd450ec1-4c78-45b7-a0cf-2bd502b96978", "768e6269-1d57-4c0c-ae4b-11d51820b1d0"
    real = registry.READERS[COPILOT]

    def reader(unit: Any, warn: Any, inherit: Any) -> Any:
        if any(bad in path for path in unit.paths):
            raise RuntimeError("a planted bug")
        return real(unit, warn, inherit)

    monkeypatch.setitem(registry.READERS, COPILOT, reader)
    out = tmp_path / "out"
    result = run([home], out)
    assert result.sessions == 2
    assert "it failed while trying to read it (RuntimeError: a planted bug)" in session_page(out, bad)
    assert "bough could not" not in session_page(out, good)
    [lost] = [w for w in result.warnings if "bough could not read this session (RuntimeError" in w.reason]
    assert lost.file == f"session-state/{bad}/events.jsonl"
    validate(out)
