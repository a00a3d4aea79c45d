"""The JSON sidecars: every file validates against its schema, paths resolve, bytes are stable."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from bough_site.build import build
from bough_site.config import BuildConfig
from corpus.claude import generate_claude_history

SCHEMAS = Path(__file__).resolve().parents[1] / "docs" / "schema"


def validator(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("history")
    generate_claude_history(root, seed=7)
    out = tmp_path_factory.mktemp("out") / "site"
    build(BuildConfig(sources=[root / "projects"], out=out), redaction_key=b"k")
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
