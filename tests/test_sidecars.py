"""The JSON sidecars: every file validates against its schema, paths resolve, bytes are stable."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from bough_site.build import build
from bough_site.config import BuildConfig
from corpus.claude import generate_claude_history
from corpus.gemini import generate_gemini_history

SCHEMAS = Path(__file__).resolve().parents[1] / "docs" / "schema"


def validator(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture(scope="module", params=["claude", "gemini"])
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site built from a generated history: Claude Code's, or Gemini CLI's (whose
    sidecars hold the gemini-cli source, warning markers and removed items)."""
    root = tmp_path_factory.mktemp("history")
    if request.param == "claude":
        generate_claude_history(root, seed=7)
        source = root / "projects"
    else:
        generate_gemini_history(root / ".gemini", seed=7)
        source = root / ".gemini"
    out = tmp_path_factory.mktemp("out") / "site"
    build(BuildConfig(sources=[source], out=out), redaction_key=b"k")
    return out


def load(path: Path) -> dict:
    raw = path.read_bytes()
    assert raw.endswith(b"\n")
    return json.loads(raw)


def test_every_sidecar_validates(built: Path) -> None:
    index = load(built / "index.json")
    validator("site").validate(index)
    assert index["projects"], "the corpus has projects"
    sessions = 0
    for project in index["projects"]:
        data = load(built / project["json"])
        validator("project").validate(data)
        assert (built / project["html"]).is_file()
        for summary in data["sessions"]:
            assert (built / summary["html"]).is_file()
            session = load(built / summary["json"])
            validator("session").validate(session)
            assert session["stats"] == summary["stats"]
            assert session["project"] == project["id"]
            sessions += 1
    assert index["stats"]["sessions"] == sessions
    assert index["stats"]["projects"] == len(index["projects"])


def test_sidecar_keys_are_sorted(built: Path) -> None:
    raw = (built / "index.json").read_text()
    data = json.loads(raw)
    assert raw == json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_project_stats_are_at_least_each_sessions(built: Path) -> None:
    index = load(built / "index.json")
    for project in index["projects"]:
        data = load(built / project["json"])
        for key in ("records", "replies", "prompts", "tool_calls"):
            assert data["stats"][key] >= max(s["stats"][key] for s in data["sessions"])
            assert data["stats"][key] <= sum(s["stats"][key] for s in data["sessions"])


def test_the_schemas_name_every_source_bough_reads() -> None:
    from bough_site.model import SOURCE_LABELS

    root = Path(__file__).resolve().parents[1] / "docs" / "schema"
    session = json.loads((root / "session.schema.json").read_text())
    project = json.loads((root / "project.schema.json").read_text())
    listed = project["properties"]["sessions"]["items"]["properties"]["source"]["enum"]
    assert sorted(session["properties"]["source"]["enum"]) == sorted(listed) == sorted(SOURCE_LABELS)
