"""Themes: a user theme directory overrides or wraps the default one, safely."""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
import pytest

from bough_site import urls
from bough_site.errors import BoughError
from bough_site.render.env import default_theme_dir, make_env
from bough_site.render.pages import Renderer

from .helpers import EVIL, LINKS, make_site, parse

DEFAULT_TEMPLATES = default_theme_dir() / "templates"


def theme(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "mytheme"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def alpha_s1(renderer: Renderer) -> bytes:
    site = make_site()
    project = next(p for p in site.projects if p.id == "alpha")
    pages = dict(renderer.session_pages(project, project.sessions[0], LINKS))
    return pages[urls.session_html("alpha", "s1")]


def test_default_theme_found() -> None:
    assert (DEFAULT_TEMPLATES / "session.html").is_file()
    assert (default_theme_dir() / "static" / "bough.css").is_file()


def test_user_template_extends_default(tmp_path: Path) -> None:
    root = theme(
        tmp_path,
        {
            "templates/session.html": (
                '{% extends "default:session.html" %}\n'
                "{% block session_header %}{{ super() }}"
                '<p class="reviewed">Reviewed: {{ session.title }}</p>{% endblock %}\n'
            )
        },
    )
    tree = parse(alpha_s1(Renderer(root)))
    reviewed = tree.find_all("p", "reviewed")
    assert len(reviewed) == 1 and reviewed[0].all_text() == "Reviewed: Title " + EVIL  # escaped, as text
    # The rest of the default page is still there.
    assert tree.find_all("header", "session-header") and tree.find_all("div", "timeline")
    assert {"p1", "r1"} <= {n.attrs.get("id") for n in tree.iter()}


def test_compiled_templates_are_kept_and_a_changed_template_is_compiled_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    compiled = tmp_path / "compiled"
    root = theme(tmp_path, {"templates/index.html": '<p class="mine">one</p>\n'})
    renderer = Renderer(root, compiled=compiled)
    first, page = renderer.index_page(make_site()), alpha_s1(renderer)
    assert first == b'<p class="mine">one</p>\n' and len(list(compiled.iterdir())) > 10
    compiles: list[str] = []
    original = jinja2.Environment.compile
    monkeypatch.setattr(jinja2.Environment, "compile",
                        lambda env, source, name=None, *args, **kw: compiles.append(name) or original(
                            env, source, name, *args, **kw))
    again = Renderer(root, compiled=compiled)
    assert again.index_page(make_site()) == first and alpha_s1(again) == page
    assert compiles == []  # every template came from the cache
    (root / "templates" / "index.html").write_text('<p class="mine">two</p>\n', encoding="utf-8")
    assert Renderer(root, compiled=compiled).index_page(make_site()) == b'<p class="mine">two</p>\n'
    assert compiles == ["index.html"]  # Jinja compared the source: only the changed one


def test_user_index_replaces_default(tmp_path: Path) -> None:
    root = theme(
        tmp_path,
        {"templates/index.html": '<!DOCTYPE html><p class="mine">{{ site.projects|length }} projects</p>\n'},
    )
    html = Renderer(root).index_page(make_site()).decode()
    assert html == '<!DOCTYPE html><p class="mine">2 projects</p>\n'


def test_user_partial_changes_it_everywhere(tmp_path: Path) -> None:
    """Overriding one item template reaches prompts at the top and inside sub-agents."""
    root = theme(
        tmp_path,
        {"templates/items/prompt.html": '<section class="my-prompt" id="{{ prefix }}{{ item.anchor }}"></section>\n'},
    )
    tree = parse(alpha_s1(Renderer(root)))
    ids = [n.attrs["id"] for n in tree.find_all("section", "my-prompt")]
    assert "p1" in ids and any(i.startswith("a-") for i in ids)
    assert not tree.find_all("section", "prompt")


def test_user_base_wraps_every_page(tmp_path: Path) -> None:
    root = theme(
        tmp_path,
        {
            "templates/base.html": (
                '{% extends "default:base.html" %}'
                '{% block footer %}<span class="mine">hosted by us</span> · {{ super() }}{% endblock %}'
            )
        },
    )
    renderer = Renderer(root)
    for html in (renderer.index_page(make_site()), alpha_s1(renderer)):
        footer = parse(html).find_all("footer")[0]
        assert footer.find_all("span", "mine") and "made with bough" in footer.all_text()


def test_static_override_and_additions(tmp_path: Path) -> None:
    root = theme(
        tmp_path,
        {"static/bough.css": "body { color: red; }\n", "static/extra.css": "p {}\n", "static/logo.svg": "<svg/>"},
    )
    assets = dict(Renderer(root).assets())
    css = [data for name, data in assets.items() if name.startswith("assets/bough.") and name.endswith(".css")]
    assert css == [b"body { color: red; }\n"]
    assert any(name.startswith("assets/extra.") for name in assets)
    assert assets["assets/logo.svg"] == b"<svg/>"  # non-CSS/JS files keep their names
    assert any(name.startswith("assets/bough.") and name.endswith(".js") for name in assets)  # defaults remain


def test_template_can_link_a_theme_asset(tmp_path: Path) -> None:
    root = theme(
        tmp_path,
        {
            "static/extra.css": "p {}\n",
            "templates/base.html": (
                '{% extends "default:base.html" %}'
                '{% block head %}<link rel="stylesheet" href="{{ asset(\'extra.css\') }}">{% endblock %}'
            ),
        },
    )
    renderer = Renderer(root)
    extra = next(name for name, _ in renderer.assets() if name.startswith("assets/extra."))
    hrefs = [n.attrs.get("href") for n in parse(alpha_s1(renderer)).find_all("link")]
    assert "../../../" + extra in hrefs


def test_missing_asset_is_an_error(tmp_path: Path) -> None:
    root = theme(tmp_path, {"templates/index.html": "{{ asset('nope.css') }}"})
    with pytest.raises(jinja2.TemplateError):
        Renderer(root).index_page(make_site())


def test_strict_undefined_in_user_template(tmp_path: Path) -> None:
    root = theme(tmp_path, {"templates/index.html": "{{ sitee.projects }}"})
    with pytest.raises(jinja2.UndefinedError):
        Renderer(root).index_page(make_site())
    root2 = theme(tmp_path / "b", {"templates/index.html": "{{ site.projectz }}"})
    with pytest.raises(jinja2.UndefinedError):
        Renderer(root2).index_page(make_site())


def test_autoescape_whatever_the_template_name(tmp_path: Path) -> None:
    """autoescape=True, not select_autoescape: a .j2 or .txt include escapes too."""
    root = theme(
        tmp_path,
        {
            "templates/index.html": '{% include "bits.j2" %}',
            "templates/bits.j2": "{{ site.projects[1].name }}",
        },
    )
    html = Renderer(root).index_page(make_site()).decode()
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_theme_dir_must_exist_and_look_like_one(tmp_path: Path) -> None:
    with pytest.raises(BoughError):
        make_env(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(BoughError):
        make_env(tmp_path / "empty")


# --- what the default templates may not contain ------------------------------------------


def template_files() -> list[Path]:
    files = sorted(DEFAULT_TEMPLATES.rglob("*.html"))
    assert files
    return files


@pytest.mark.parametrize("path", template_files(), ids=lambda p: p.relative_to(DEFAULT_TEMPLATES).as_posix())
def test_templates_have_no_escape_hatches(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert not re.search(r"\|\s*safe\b", text), "|safe: our renderers return Markup already"
    assert "autoescape" not in text and "Markup(" not in text
    assert not re.search(r"\sstyle\s*=", text, re.IGNORECASE), "style attribute (CSP)"
    assert not re.search(r"<style\b", text, re.IGNORECASE), "<style> element (CSP)"
    assert not re.search(r"\son[a-z]+\s*=", text, re.IGNORECASE), "event handler attribute (CSP)"
    for tag in re.findall(r"<script\b[^>]*>", text, re.IGNORECASE):
        assert "src=" in tag, "inline script (CSP)"
    # Attributes are always quoted: an escaped value in an unquoted attribute still injects.
    for tag in re.findall(r"<[a-zA-Z][^<>]*>", text):
        outside_quotes = re.sub(r"\"[^\"]*\"|'[^']*'", '""', tag)
        assert not re.search(r"\s[a-zA-Z-]+=(?![\"'])", outside_quotes), f"unquoted attribute in {tag}"


def test_static_js_never_fetches() -> None:
    for path in (default_theme_dir() / "static").glob("*.js"):
        text = path.read_text(encoding="utf-8")
        assert "fetch(" not in text and "XMLHttpRequest" not in text and "innerHTML" not in text


# --- one template per tool ---------------------------------------------------------------


def tool_names(tree) -> list[str]:
    return [n.all_text() for n in tree.find_all("span", "tool-name")]


def test_a_theme_restyles_one_tool_only(tmp_path: Path) -> None:
    """tools/Bash.html changes Bash calls (in sub-agents too) and nothing else."""
    root = theme(
        tmp_path,
        {
            "templates/tools/Bash.html": (
                '{% extends "tools/default.html" %}'
                '{% block tool_head %}<div class="my-bash">$ {{ view.summary }}</div>{% endblock %}'
            )
        },
    )
    default_tree, mine_tree = parse(alpha_s1(Renderer())), parse(alpha_s1(Renderer(root)))
    default_names, mine_names = tool_names(default_tree), tool_names(mine_tree)
    bash = default_names.count("Bash")
    assert bash >= 2
    assert [n for n in default_names if n != "Bash"] == mine_names  # every other tool as before
    mine = [n.all_text() for n in mine_tree.find_all("div", "my-bash")]
    assert len(mine) == bash and "$ pytest -q " + EVIL in mine and "$ ls " + EVIL in mine  # ls: in a sub-agent
    # The rest of each Bash call (its result) is the default's.
    assert len(mine_tree.find_all("div", "tool-result")) == len(default_tree.find_all("div", "tool-result"))


def test_a_theme_can_add_a_template_for_a_tool_the_default_has_none_for(tmp_path: Path) -> None:
    root = theme(tmp_path, {"templates/tools/Glob.html": '<p class="my-glob">{{ view.summary }}</p>\n'})
    tree = parse(alpha_s1(Renderer(root)))
    assert [n.all_text() for n in tree.find_all("p", "my-glob")] == ["**/*.py"]
    assert "Glob" not in tool_names(tree)


def test_a_tool_name_that_is_not_a_file_name_gets_the_default(tmp_path: Path) -> None:
    renderer = Renderer()
    default = renderer.env.get_template("tools/default.html")
    for name in ("../item", "a/b", ".hidden", "", "x" * 101, None, "default:tools/Bash"):
        assert renderer.tool_template(name) is default
    assert renderer.tool_template("Bash").name == "tools/Bash.html"
    assert renderer.tool_template("mcp__github__x").name == "tools/default.html"


def test_every_default_tool_template_extends_the_generic_one() -> None:
    names = sorted(p.name for p in (DEFAULT_TEMPLATES / "tools").glob("*.html"))
    assert "default.html" in names and {"Bash.html", "TodoWrite.html", "apply_patch.html", "shell.html"} <= set(names)
    for name in names:
        if name != "default.html":
            text = (DEFAULT_TEMPLATES / "tools" / name).read_text(encoding="utf-8")
            assert re.search(r'\{% extends "tools/(default|shell)\.html" %\}', text), name


def test_a_theme_item_html_is_used_for_every_item(tmp_path: Path) -> None:
    root = theme(
        tmp_path,
        {"templates/item.html": '<div class="my-item" data-kind="{{ item.kind }}">{% include "default:item.html" %}</div>\n'},
    )
    tree = parse(alpha_s1(Renderer(root)))
    kinds = [n.attrs["data-kind"] for n in tree.find_all("div", "my-item")]
    assert kinds[:2] == ["prompt", "reply"] and "marker" in kinds
    assert tree.find_all("section", "prompt")  # the default item inside


def test_the_readme_documents_every_template_and_state_call() -> None:
    from bough_site.render.pages import PageState

    readme = (default_theme_dir() / "README.md").read_text(encoding="utf-8")
    for path in DEFAULT_TEMPLATES.rglob("*.html"):
        name = path.relative_to(DEFAULT_TEMPLATES).as_posix()
        if name.startswith("tools/") and name != "tools/default.html":
            continue  # one row for them all: tools/<name>.html
        assert f"`{name}`" in readme, name
    calls = [n for n in vars(PageState) if not n.startswith("_") and callable(getattr(PageState, n))]
    assert calls and all(f"`state.{n}(" in readme for n in calls), calls
    renderer = Renderer()
    for name in renderer.env.globals:
        if name not in ("range", "dict", "lipsum", "cycler", "joiner", "namespace"):  # Jinja's own
            assert f"`{name}" in readme, name


def test_an_imported_template_sees_the_importing_templates_own_globals(tmp_path: Path) -> None:
    """Jinja passes a template's own globals to what it imports by the names its
    context lists (``globals_keys``), which bough's context makes only when read."""
    root = theme(tmp_path, {
        "templates/greet.html": "{% macro hi() %}hello {{ who }}{% endmacro %}",
        "templates/page.html": '{% import "greet.html" as g %}{{ g.hi() }}',
    })
    page = make_env(root).get_template("page.html", globals={"who": "tree"})
    assert page.render() == "hello tree"
    assert page.new_context({}).globals_keys == set(page.globals) >= {"who"}
