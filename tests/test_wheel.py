"""The installed package works without the checkout: the default theme and the
bundled examples ship inside the wheel.

Builds a wheel from a copy of the sources (so nothing is written into the
checkout), installs it into a fresh virtual environment that sees the running
interpreter's packages for its dependencies (no network; from a venv too), and
runs that environment's
``bough build`` from a directory outside the checkout with an empty HOME.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from .helpers import REPO, be

# What a wheel is built from: the product, and beside it the generators and the
# benchmark, which must not be packaged (the wheel is checked for them).
SOURCES = ("pyproject.toml", "README.md", "bough_site", "themes", "corpus", "benchmarks")
THEME_FILES = ("templates/base.html", "templates/session.html", "static/bough.css", "static/bough.js")


def _run(args: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, check=False, capture_output=True, text=True, timeout=300, **kwargs)
    assert done.returncode == 0, f"{' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    src = work / "src"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in SOURCES:
        path = REPO / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=ignore)
        else:
            shutil.copy2(path, src / name)
    # pip builds it as any installer would: in an isolated environment, with the build backend pyproject.toml names.
    _run([sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "--wheel-dir", str(work / "dist"), "-q"])
    (built,) = (work / "dist").glob("bough-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("venv") / "venv"
    _run([sys.executable, "-m", "venv", str(root)])
    # The dependencies are the running interpreter's: its site directories, whether it is
    # a virtual environment or not (--system-site-packages would give a venv's *base*
    # interpreter's instead). A path listed in a .pth file is searched after the new
    # environment's own site-packages, and its own .pth files are not run, so an
    # editable bough there cannot shadow the wheel.
    purelib = Path(sysconfig.get_path("purelib", vars={"base": str(root), "platbase": str(root)}))
    (purelib / "_running_interpreter.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    # --force-reinstall: a bough the running interpreter has must not count as "already there".
    _run([str(root / "bin" / "python"), "-m", "pip", "install", "--no-deps", "--no-index", "--force-reinstall", "-q",
          str(wheel)])  # fmt: skip
    return root


def _clean_env(home: Path, venv: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(
        HOME=str(home),
        CLAUDE_CONFIG_DIR=str(home / ".claude"),
        CODEX_HOME=str(home / ".codex"),
        GEMINI_CLI_HOME=str(home),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        PATH=f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    return env


def test_wheel_ships_the_theme_and_examples(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in THEME_FILES:
        assert f"bough_site/themes/default/{name}" in names, f"{name} is not in the wheel"
    examples = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "bough_site" / "examples").rglob("*") if p.is_file())
    assert examples
    missing = [name for name in examples if name not in names]
    assert not missing, f"bundled examples missing from the wheel: {missing}"
    generators = sorted(name for name in names if name.startswith(("corpus/", "tests/", "benchmarks/")))
    assert not generators, f"test and benchmark code does not ship: {generators}"


def test_installed_bough_builds_the_examples_with_its_theme(venv: Path, tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "elsewhere"
    home.mkdir()
    work.mkdir()
    env = _clean_env(home, venv)
    where = _run(
        [str(venv / "bin" / "python"), "-c",
         "import bough_site, bough_site.render.env as e; print(bough_site.__file__); print(e.default_theme_dir())"],
        cwd=work, env=env,
    ).stdout.split("\n")  # fmt: skip
    site_packages = str(venv.resolve())
    assert Path(where[0]).resolve().is_relative_to(site_packages), f"bough_site came from {where[0]}, not the wheel"
    assert Path(where[1]).resolve().is_relative_to(site_packages), f"the theme came from {where[1]}, not the wheel"

    done = _run([str(venv / "bin" / "bough"), "build", "-o", "out", "-q"], cwd=work, env=env)
    assert "bundled examples" in done.stderr
    out = work / "out"
    index = (out / "index.html").read_text()
    css = sorted((out / "assets").glob("bough.*.css"))
    assert len(css) == 1 and css[0].read_bytes() == (REPO / "themes/default/static/bough.css").read_bytes()
    assert f'href="assets/{css[0].name}"' in index

    # The same site the checkout builds, byte for byte: nothing the site needs is left out of the wheel.
    installed = be.site_files(out)
    from_checkout = be.build_example_site(tmp_path / "checkout-site")
    assert be.stale_paths(from_checkout, installed) == []
