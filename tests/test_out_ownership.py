"""OUT and its state are bough's (docs/safety.md S8): an OUT inside an AI agent's own
directory is refused before anything is written; a symlink in OUT's state folder
(``.bough-state``), or the folder being one, makes bough refuse OUT as it is, and
no file bough keeps in OUT is ever read or written through a link, nor waited on
when it is a FIFO; compiled templates are loaded back as code only from bough's
own files."""

from __future__ import annotations

import marshal
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import jinja2.bccache
import pytest

import bough_site
from bough_site.build import build
from bough_site.config import BuildConfig
from bough_site.errors import OutputError
from bough_site.render.env import make_env
from bough_site.write import SiteWriter, locked

from .helpers import KEY, SESSION, file_tree, prompt, reply, text, write_jsonl

# The checkout whose bough_site these tests import: the CLI they start must be the same,
# whatever folder it runs in.
CHECKOUT = Path(bough_site.__file__).resolve().parent.parent


def bough(*args: str, cwd: Path | None = None, timeout: float = 120, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bough_site.cli", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout, check=False,
                          env={**os.environ, "PYTHONPATH": str(CHECKOUT), **env})


def transcript(projects: Path, turns: int = 1) -> Path:
    records = []
    for turn in range(turns):
        records += [prompt(f"p{turn}", f"question {turn}"), reply(f"r{turn}", f"m{turn}", [text(f"answer {turn}")])]
    return write_jsonl(projects / "-home-ada-app" / f"{SESSION}.jsonl", records)


def everything(root: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and folder (None) under root, links not followed."""
    found: dict[str, bytes | None] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            found[path.relative_to(root).as_posix()] = path.read_bytes() if path.is_file() and \
                not path.is_symlink() else None
    return found


# --------------------------------------------------------------------------- OUT inside an agent's home


def refusal(out: str, real: Path, home: Path) -> str:
    named = f"{out} ({real})" if out != str(real) else out
    return (f"bough: the output directory {named} is inside {home}, an AI agent's own directory; "
            "bough never writes there: choose an output directory elsewhere (-o)")


@pytest.mark.parametrize("case", ["cd-claude", "codex", "gemini", "claude-config-dir", "default-beside-config",
                                  "codex-home", "link-to-codex", "the-home-itself"])
def test_out_inside_an_agents_home_is_refused_and_nothing_is_written(isolated_home: Path, tmp_path: Path,
                                                                     case: str) -> None:
    home = isolated_home
    claude, codex, gemini = home / ".claude", home / ".codex", home / ".gemini"
    for folder in (claude / "projects", codex / "sessions", gemini / "tmp"):
        folder.mkdir(parents=True)
    transcript(claude / "projects")
    env: dict[str, str] = {}
    cwd = None
    if case == "cd-claude":  # the issue's: `cd ~/.claude && bough build` wrote ~/.claude/site
        cwd, out, agent = claude, "site", claude
    elif case == "codex":
        out, agent = str(codex / "site"), codex
    elif case == "gemini":
        out, agent = str(gemini / "site"), gemini
    elif case == "claude-config-dir":
        config = tmp_path / "claude-config"
        (config / "projects").mkdir(parents=True)
        env["CLAUDE_CONFIG_DIR"] = str(config)
        out, agent = str(config / "pages"), config
    elif case == "default-beside-config":  # ~/.claude is Claude Code's without the variable too
        env["CLAUDE_CONFIG_DIR"] = str(tmp_path / "claude-config")
        out, agent = str(claude / "site"), claude
    elif case == "codex-home":
        env["CODEX_HOME"] = str(tmp_path / "codex-home")
        (tmp_path / "codex-home").mkdir()
        out, agent = str(tmp_path / "codex-home" / "site"), tmp_path / "codex-home"
    elif case == "link-to-codex":  # resolved paths are compared
        (tmp_path / "link").symlink_to(codex, target_is_directory=True)
        out, agent = str(tmp_path / "link" / "site"), codex
    else:
        out, agent = str(claude), claude
    before, outside = everything(home), everything(tmp_path)
    done = bough("build", "-o", out, "-q", cwd=cwd, **env)
    real = (cwd / out if cwd else Path(out)).resolve()
    assert (done.returncode, done.stderr.splitlines()) == (1, [refusal(out, real, agent)])
    assert everything(home) == before  # not OUT, nor the archive (under ~/.local/share), nor a key
    assert everything(tmp_path) == outside


def test_serve_refuses_an_out_inside_an_agents_home(isolated_home: Path) -> None:
    out = isolated_home / ".gemini" / "site"
    done = bough("serve", "-o", str(out), "--port", "0", "--no-archive", timeout=60)
    assert (done.returncode, done.stderr.splitlines()) == (1, [refusal(str(out), out, isolated_home / ".gemini")])
    assert not (isolated_home / ".gemini").exists()


def test_the_library_refuses_it_too(isolated_home: Path, tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    transcript(projects)
    out = isolated_home / ".codex" / "site"
    message = refusal(str(out), out, isolated_home / ".codex").removeprefix("bough: ")
    with pytest.raises(OutputError) as raised:
        build(BuildConfig(sources=[projects], out=out, archive=None, search=False, jobs=1), redaction_key=KEY)
    assert str(raised.value) == message
    for opening in (lambda: SiteWriter(out).__enter__(), lambda: locked(out).__enter__()):
        with pytest.raises(OutputError) as raised:
            opening()
        assert str(raised.value) == message
    assert not (isolated_home / ".codex").exists()


def test_an_out_beside_an_agents_home_is_not_inside_it(isolated_home: Path, tmp_path: Path) -> None:
    # Paths, not strings: ~/.claude-site starts with "~/.claude" and is not inside it.
    transcript(tmp_path / "projects")
    done = bough("build", str(tmp_path / "projects"), "-o", str(isolated_home / ".claude-site"), "-q",
                 "--no-archive", "--no-search")
    assert done.returncode == 0, done.stderr
    assert (isolated_home / ".claude-site" / "index.html").is_file()


# --------------------------------------------------------------------------- links in OUT's state


@pytest.fixture
def site(tmp_path: Path) -> tuple[Path, Path]:
    """A site built once (its transcript, OUT), with every kind of state there is."""
    projects = tmp_path / "projects"
    transcript(projects)
    out = tmp_path / "out"
    build(BuildConfig(sources=[projects], out=out, archive=None, search=False, jobs=1), redaction_key=KEY)
    state = out / ".bough-state"
    assert {p.relative_to(state).as_posix() for p in state.rglob("*") if not p.name.startswith("__jinja2_")} == {
        "blocks", "blocks/blocks.sqlite", "rates.json", "state.sqlite", "templates"}
    assert len(list((state / "templates").glob("__jinja2_*.cache"))) > 10
    return projects, out


def rebuild(projects: Path, out: Path) -> subprocess.CompletedProcess:
    """A build with something to render (a turn more), so the templates are loaded."""
    transcript(projects, turns=2)
    return bough("build", str(projects), "-o", str(out), "-q", "--no-archive", "--no-search", "-j", "1", timeout=60)


def linked(out: Path, entry: str) -> str:
    path = out.resolve() / entry
    return (f"bough: {path} is a symlink: bough keeps its state there and never follows a link or opens anything "
            f"it did not make in it, so the output directory {out} is not bough's to use as it is; "
            f"remove {path} (nothing in bough's state is needed: it is made again) and build again")


@pytest.mark.parametrize("entry", [".bough-state", ".bough-state/templates", ".bough-state/blocks",
                                   ".bough-state/state.sqlite", ".bough-state/blocks/blocks.sqlite",
                                   ".bough-state/templates/CACHE", ".bough-state/rates.json"])
def test_a_link_in_outs_state_is_refused_and_never_followed(site: tuple[Path, Path], tmp_path: Path,
                                                              entry: str) -> None:
    projects, out = site
    if entry.endswith("CACHE"):
        entry = sorted((out / ".bough-state" / "templates").iterdir())[0].relative_to(out).as_posix()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    moved = elsewhere / Path(entry).name
    shutil.move(out / entry, moved)
    (out / entry).symlink_to(moved, target_is_directory=moved.is_dir())
    there = everything(elsewhere)
    done = rebuild(projects, out)
    assert (done.returncode, done.stderr.splitlines()) == (1, [linked(out, entry)])
    assert everything(elsewhere) == there
    (out / entry).unlink()  # as the message says: then the next build works
    assert rebuild(projects, out).returncode == 0


def crafted_cache(genuine: bytes, ran: Path) -> bytes:
    """A compiled template that passes Jinja's checks (its source's checksum) and,
    when loaded, runs code of our own instead: it creates ``ran``."""
    header = jinja2.bccache.bc_magic
    checksum = pickle.loads(genuine[len(header):])  # a file this test's build wrote
    code = compile(f"open({str(ran)!r}, 'w').close()", "<planted>", "exec")
    return header + pickle.dumps(checksum, 2) + marshal.dumps(code)


def test_compiled_templates_behind_a_link_are_never_run(site: tuple[Path, Path], tmp_path: Path) -> None:
    projects, out = site
    templates = out / ".bough-state" / "templates"
    planted, ran = tmp_path / "planted", tmp_path / "ran"
    planted.mkdir()
    for cache in templates.iterdir():
        (planted / cache.name).write_bytes(crafted_cache(cache.read_bytes(), ran))
    shutil.rmtree(templates)
    templates.symlink_to(planted, target_is_directory=True)
    there = everything(planted)
    done = rebuild(projects, out)
    assert (done.returncode, done.stderr.splitlines()) == (1, [linked(out, ".bough-state/templates")])
    assert not ran.exists()
    assert everything(planted) == there


def probe_theme(root: Path) -> Path:
    """A theme with one small template of its own, to compile and run alone."""
    (root / "templates").mkdir(parents=True)
    (root / "templates" / "probe.html").write_text("<p>{{ who }}</p>\n")
    return root


def test_a_compiled_template_file_that_is_a_link_is_neither_run_nor_written_through(tmp_path: Path) -> None:
    # What the build meets if a link appears after OUT was checked: the cache itself never follows one.
    theme = probe_theme(tmp_path / "theme")
    folder = tmp_path / "out" / ".bough-state" / "templates"
    folder.mkdir(parents=True)
    make_env(theme, compiled=folder).get_template("probe.html")
    (cache,) = folder.iterdir()
    ran, planted = tmp_path / "ran", tmp_path / "planted"
    planted.write_bytes(crafted_cache(cache.read_bytes(), ran))
    cache.unlink()
    cache.symlink_to(planted)
    assert make_env(theme, compiled=folder).get_template("probe.html").render(who="ada") == "<p>ada</p>\n"
    assert not ran.exists()
    assert cache.is_file() and not cache.is_symlink()  # replaced by the compiled code, by renaming
    assert planted.read_bytes() == crafted_cache(cache.read_bytes(), ran)


def test_a_state_folder_behind_a_link_gets_no_compiled_templates(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / ".bough-state").symlink_to(elsewhere, target_is_directory=True)
    env = make_env(probe_theme(tmp_path / "theme"), compiled=tmp_path / "out" / ".bough-state" / "templates")
    assert env.get_template("probe.html").render(who="ada") == "<p>ada</p>\n"
    assert list(elsewhere.iterdir()) == []


def test_a_damaged_compiled_template_is_compiled_again(tmp_path: Path) -> None:
    theme = probe_theme(tmp_path / "theme")
    folder = tmp_path / "templates"
    folder.mkdir()
    make_env(theme, compiled=folder).get_template("probe.html")
    (cache,) = folder.iterdir()
    cache.write_bytes(jinja2.bccache.bc_magic + b"not a pickle")  # Jinja's own cache unpickled this
    assert make_env(theme, compiled=folder).get_template("probe.html").render(who="ada") == "<p>ada</p>\n"


@pytest.mark.parametrize("entry", [".bough-manifest.json", ".bough-manifest.sqlite", ".bough-quick"])
def test_outs_own_files_as_fifos_are_not_waited_on(site: tuple[Path, Path], entry: str) -> None:
    projects, out = site
    (out / entry).unlink()
    os.mkfifo(out / entry)
    done = rebuild(projects, out)  # a FIFO opened to read or write would wait for ever
    assert done.returncode == 0, done.stderr
    assert (out / ".bough-manifest.json").is_file()  # the manifest is written again, as a file


def test_a_fifo_in_outs_state_is_refused(site: tuple[Path, Path]) -> None:
    projects, out = site
    state = out.resolve() / ".bough-state" / "state.sqlite"
    state.unlink()
    os.mkfifo(state)
    done = rebuild(projects, out)
    assert done.returncode == 1
    assert done.stderr.startswith(f"bough: {state} is neither a plain file nor a folder: "), done.stderr


@pytest.mark.parametrize(("entry", "refused"), [(".bough-manifest.json", False), (".bough-manifest.sqlite", False),
                                                 (".bough-quick", False), (".bough-site", True), (".bough-lock", True)])
def test_outs_own_files_are_never_written_through_a_link(site: tuple[Path, Path], tmp_path: Path,
                                                          entry: str, refused: bool) -> None:
    projects, out = site
    target = tmp_path / "target"
    shutil.move(out / entry, target)
    (out / entry).symlink_to(target)
    there = target.read_bytes()
    done = rebuild(projects, out)
    assert done.returncode == (1 if refused else 0), done.stderr
    assert target.read_bytes() == there
    if not refused:
        assert file_tree(out, site_only=True) != {}
