"""Fuzzing the whole build with mutated, real-shaped transcripts (hypothesis).

Each example takes a well-formed session and damages some of its lines (cut
short, a byte flipped, garbage spliced in, the shape of a field changed, two
lines run together, lines duplicated or blank ones added). Whatever the damage:
the build never raises, the marker text of every line left intact is in the
sidecars, and no ``<`` from the input reaches a page unescaped: each text holds
a tag ``<x-fuzz-N>`` that must never appear literally in HTML, while
``&lt;x-fuzz-N&gt;`` does for every intact line.
"""

from __future__ import annotations

import itertools
import random
import tempfile
from pathlib import Path
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bough_site.build import build, load_site
from bough_site.config import BuildConfig
from corpus.claude import generate_claude_history

from .helpers import KEY, prompt, reply, text, tool_result, tool_use

FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                derandomize=True)


def _uuid(i: int) -> str:
    # Far apart: one flipped byte can never turn one line's uuid into another's.
    return (f"{(i * 0x9E3779B1) & 0xFFFFFFFF:08x}-{i:04x}-4{i % 4096:03x}-8{(i * 7) % 4096:03x}-"
            f"{(i * 0x5851F42D4C957F2D) & 0xFFFFFFFFFFFF:012x}")


def base_session() -> list[tuple[bytes, str]]:
    """Lines of a session and the marker each shows: prompts, replies, tool calls and results."""
    lines: list[tuple[dict[str, Any], str]] = []
    for turn in range(6):
        n = len(lines)
        ask = f"FUZZ-{n:03d} <x-fuzz-{n}> please"
        lines.append((prompt(_uuid(n), ask), f"FUZZ-{n:03d}"))
        n += 1
        say = f"FUZZ-{n:03d} <x-fuzz-{n}> **done** `x < y`"
        call = f"toolu_fuzz{turn:02d}{_uuid(n)[:6]}"
        lines.append((reply(_uuid(n), f"msg_fuzz{turn:02d}{_uuid(n)[:6]}",
                            [text(say), tool_use(call, "Bash", command=f"echo <x-fuzz-{n}>")]), f"FUZZ-{n:03d}"))
        n += 1
        lines.append((tool_result(_uuid(n), call, f"FUZZ-{n:03d} <x-fuzz-{n}>\nline two"), f"FUZZ-{n:03d}"))
    return [(orjson.dumps(record), marker) for record, marker in lines]


def _shape(line: bytes, choice: int) -> bytes:
    """The same record with one field of another type or value (a format change)."""
    record = orjson.loads(line)
    message = record.get("message") or {}
    changes = (
        lambda: message.update(content=None),
        lambda: message.update(content=12),
        lambda: message.update(content={"type": "text", "text": "a dict"}),
        lambda: record.update(message="a string"),
        lambda: record.update(type="hologram"),
        lambda: record.pop("type"),
        lambda: record.update(timestamp="not a time"),
        lambda: record.update(parentUuid=record.get("uuid")),
        lambda: record.update(type=["user"]),
        lambda: message.update(content=[7, None, "bare", ["x"]]),
    )
    changes[choice % len(changes)]()
    return orjson.dumps(record)


@st.composite
def damage(draw: st.DrawFn, count: int) -> list[tuple[str, int, bytes]]:
    """For each line: what to do to it, a position, some bytes."""
    ops = st.sampled_from(["keep"] * 6 + ["cut", "flip", "splice", "shape", "join", "duplicate", "blank"])
    return [(draw(ops), draw(st.integers(0, 1 << 16)), draw(st.binary(min_size=1, max_size=8)))
            for _ in range(count)]


def mutate(lines: list[bytes], plan: list[tuple[str, int, bytes]]) -> tuple[bytes, set[int]]:
    """The damaged file, and the indexes of the lines it keeps intact."""
    out: list[bytes] = []
    intact: set[int] = set()
    joined = False
    for index, (line, (op, at, junk)) in enumerate(zip(lines, plan)):
        if joined:  # run into the line before: neither is intact
            out[-1] += line
            joined = False
            continue
        if op == "keep" or op == "duplicate" or op == "blank":
            out += [line] * (2 if op == "duplicate" else 1) + ([b"   "] if op == "blank" else [])
            intact.add(index)
        elif op == "cut":
            out.append(line[: at % len(line)])
        elif op == "flip":
            flipped = bytearray(line)
            flipped[at % len(line)] ^= junk[0] or 1
            out.append(bytes(flipped))
        elif op == "splice":
            out.append(line[: at % len(line)] + junk + line[at % len(line):])
        elif op == "shape":
            out.append(_shape(line, at))
        elif op == "join":
            out.append(line)
            joined = index + 1 < len(lines)
            if not joined:
                intact.add(index)
    return b"\n".join(out) + b"\n", intact


def _html_and_sidecars(out: Path) -> tuple[str, bytes]:
    html = "".join(p.read_text("utf-8") for p in out.rglob("*.html"))
    data = b"".join(p.read_bytes() for p in out.rglob("*.json"))
    return html, data


BASE = base_session()
# bough's archive knows a file by its label: every example gets names of its own,
# so no example reads a copy another one left there.
_EXAMPLE = itertools.count()


@FUZZ
@given(damage(len(BASE)))
def test_damaged_transcripts_never_break_the_build(plan: list[tuple[str, int, bytes]]) -> None:
    content, intact = mutate([line for line, _ in BASE], plan)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "projects" / f"-fuzz-{next(_EXAMPLE)}" / "f0220000-0000-4000-8000-000000000001.jsonl"
        source.parent.mkdir(parents=True)
        source.write_bytes(content)
        out = Path(tmp) / "out"
        result = build(BuildConfig(sources=[source.parent.parent], out=out), redaction_key=KEY)
        html, data = _html_and_sidecars(out)
    assert result.site.projects
    assert [BASE[i][1] for i in sorted(intact) if BASE[i][1].encode() not in data] == []
    assert "<x-fuzz" not in html
    assert [i for i in sorted(intact) if f"&lt;x-fuzz-{i}&gt;" not in html] == []


def test_the_mutations_do_damage() -> None:
    # A fuzz test whose mutations changed nothing would pass for nothing.
    lines = [line for line, _ in BASE]
    plans = {op: [(op, 5, b"\xff")] + [("keep", 0, b"x")] * (len(lines) - 1)
             for op in ("cut", "flip", "splice", "shape", "join")}
    for op, plan in plans.items():
        content, intact = mutate(lines, plan)
        assert content != b"\n".join(lines) + b"\n", op
        assert 0 not in intact, op
    assert mutate(lines, [("duplicate", 0, b"x")] * len(lines))[0].count(lines[0]) == 2


# --- a generated history, its lines cut and flipped --------------------------------------


def _generated() -> dict[str, bytes]:
    with tempfile.TemporaryDirectory() as tmp:
        generate_claude_history(Path(tmp), seed=3, projects=1, sessions_per_project=2, turns_per_session=3)
        root = Path(tmp) / "projects"
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


GENERATED = _generated()
# The largest main transcript: the one the examples damage.
TARGET = max((k for k in GENERATED if k.count("/") == 1 and not k.split("/")[1].startswith("agent-")),
             key=lambda k: len(GENERATED[k]))


def _chain_uuid(line: bytes) -> str | None:
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    if isinstance(record, dict) and record.get("type") in ("user", "assistant", "system"):
        uuid = record.get("uuid")
        return uuid if isinstance(uuid, str) and uuid else None
    return None


@FUZZ
@given(st.data())
def test_a_damaged_generated_history_keeps_every_intact_record(data: st.DataObject) -> None:
    lines = GENERATED[TARGET].split(b"\n")[:-1]
    count = data.draw(st.integers(1, 6))
    rng = random.Random(data.draw(st.integers(0, 1 << 30)))
    plan = [("keep", 0, b"x")] * len(lines)
    for index in rng.sample(range(len(lines)), min(count, len(lines))):
        plan[index] = (rng.choice(["cut", "flip", "splice", "join"]), rng.randrange(1 << 16),
                       bytes([rng.randrange(256)]))
    content, intact = mutate(lines, plan)
    wanted = {u for i in intact if (u := _chain_uuid(lines[i]))}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "projects"
        example = next(_EXAMPLE)
        for relpath, original in GENERATED.items():
            path = root / f"{relpath.replace('/', f'-{example}/', 1)}"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content if relpath == TARGET else original)
        site = load_site(BuildConfig(sources=[root]), redaction_key=KEY)
    [session] = [s for p in site.projects for s in p.sessions if s.id == Path(TARGET).stem]
    assert wanted and wanted <= session.tally.records
