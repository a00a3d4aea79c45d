"""A Claude Code history full of planted FAKE credentials, and the look-alikes that must survive.

``write_secret_zoo(root)`` writes ``root/projects/-home-dev-zoo/`` and returns a
:class:`Zoo`: ``secrets`` (value -> the kind it must be redacted as) and
``lookalikes`` (texts that must come through verbatim).

Every value is planted three ways, as people and agents put keys into a
transcript:

- pasted in a typed prompt, as prose ("the deploy fails, I'm using … from the
  dashboard");
- printed by ``env`` in a Bash tool result (``NAME=value`` among other variables);
- inside a JSON config file a Read tool result returns (Claude's numbered lines).

The values are every shape of ``bough_site.redact_rules.SHAPES`` (drawn from a
seed of their own: not the unit tests' values), keys of vendors bough does not
know (for the fallback), and passwords in connection strings and signed URLs.
Each is random characters in its format, built here at run time; none is a real
key. The same root always gets the same bytes.

And, planted their own ways (issue #35, docs/redaction.md "Word joins" and "Keys told
by their provider's name"):

- keys glued to words by ``_``: in a file name a command copies, in a path a Read
  reads, in an MCP tool's name, and used as keys of a tool's input;
- every shape of ``CONTEXT_SHAPES`` (a provider's key with no prefix: 32 hex, 40
  base64 …) in a sentence that names the provider: a prompt, ``NAME=value`` and a
  one-line JSON in a command's output;
- known vendor prefixes followed by a random run that is not the vendor's documented
  layout (``sntrys_`` and base64 without the JSON header …);
- and, among the look-alikes, sentences naming a provider beside a git SHA, a path or
  a name, and vendor prefixes before hex or words.
"""

from __future__ import annotations

import base64
import hashlib
import random
import string
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from bough_site.redact_shapes import looks_random
from bough_site.redact_rules import CONTEXT_SHAPES, SHAPES, lookalike, sample

_SEED = 20261215
_CWD = "/home/dev/zoo"
_NAMESPACE = uuid.UUID("0b5e1c3a-7d2f-4e8a-9c61-5f4d3b2a1e09")
ALNUM = string.ascii_letters + string.digits


@dataclass
class Zoo:
    projects: Path  # root/projects: the sources of a build
    secrets: dict[str, str] = field(default_factory=dict)  # planted value -> the kind it is redacted as
    lookalikes: list[str] = field(default_factory=list)  # texts that must survive verbatim


class _Session:
    """One session file: records chained by parentUuid, with times one second apart."""

    def __init__(self, name: str) -> None:
        self.id = str(uuid.uuid5(_NAMESPACE, name))
        self.records: list[dict[str, Any]] = []
        self.n = 0

    def _base(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.n += 1
        record = {
            "type": kind,
            "uuid": str(uuid.uuid5(_NAMESPACE, f"{self.id}-{self.n}")),
            "parentUuid": self.records[-1]["uuid"] if self.records else None,
            "sessionId": self.id,
            "cwd": _CWD,
            "version": "2.1.80",
            "gitBranch": "main",
            "isSidechain": False,
            "userType": "external",
            "timestamp": f"2026-12-15T10:{self.n // 60 % 60:02d}:{self.n % 60:02d}.000Z",
        }
        record.update(fields)
        self.records.append(record)
        return record

    def prompt(self, content: Any, **fields: Any) -> None:
        self._base("user", message={"role": "user", "content": content}, **fields)

    def tool(self, rng: random.Random, name: str, inputs: dict[str, Any], output: str, detail: Any = None) -> None:
        call_id = "toolu_01" + "".join(rng.choice(ALNUM) for _ in range(22))
        message = {
            "id": "msg_01" + "".join(rng.choice(ALNUM) for _ in range(22)),
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-4-6",
            "content": [{"type": "tool_use", "id": call_id, "name": name, "input": inputs}],
            "usage": {"input_tokens": 5, "output_tokens": 9},
        }
        self._base("assistant", message=message, requestId="req_011C" + "".join(rng.choice(ALNUM) for _ in range(20)))
        fields = {"toolUseResult": detail} if detail is not None else {}
        self.prompt([{"type": "tool_result", "tool_use_id": call_id, "content": output}], **fields)

    def write(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{self.id}.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in self.records))


def _plant(session: _Session, rng: random.Random, name: str, value: str, index: int) -> None:
    """One value three ways: a typed prompt, env output, a JSON config read."""
    session.prompt(f"the deploy fails, I'm using {value} from the dashboard")
    env = f"HOME=/home/dev\nLANG=C.UTF-8\n{name}={value}\nPATH=/usr/local/bin:/usr/bin:/bin\n"
    session.tool(rng, "Bash", {"command": "env", "description": "Show the environment"}, env,
                 detail={"stdout": env, "stderr": "", "interrupted": False})
    path = f"{_CWD}/config/service-{index}.json"
    config = orjson.dumps({"service": name.lower(), "region": "eu-west-1", "value": value},
                          option=orjson.OPT_INDENT_2).decode()
    shown = "".join(f"{n:>6}\u2192{line}\n" for n, line in enumerate(config.splitlines(), 1))
    session.tool(rng, "Read", {"file_path": path}, shown,
                 detail={"type": "text", "file": {"filePath": path, "content": config}})


def _chars(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _unknown_keys(rng: random.Random) -> list[tuple[str, str, str]]:
    """(env name, value, kind) for keys of vendors no shape names, and credentials inside URLs."""
    out = [
        ("ACME_API_KEY", "acme_live_" + _chars(rng, ALNUM, 40), "prefixed-key"),
        ("ZEPHYR_TOKEN", "zph-" + _chars(rng, ALNUM, 48), "prefixed-key"),
        ("QUILL_KEY", "qk_" + _chars(rng, ALNUM, 36), "prefixed-key"),
    ]
    password = "Pw" + _chars(rng, ALNUM, 14) + "9"
    for scheme in ("mongodb+srv", "rediss", "amqps", "postgresql+asyncpg", "mysql", "sqlserver", "smtp"):
        out.append((f"{scheme.split('+')[0].upper()}_URL", f"{scheme}://app:{password}@db.internal:5432/main",
                    f"url-password:{password}"))
    sig = _chars(rng, ALNUM, 43) + "%3D"
    out.append(("BLOB_SAS_URL", f"https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&sp=r&se=2026-12-31&sig={sig}",
                f"url-password:{sig}"))
    amz = _chars(rng, "0123456789abcdef", 64)
    out.append(("PRESIGNED_URL", "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                f"&X-Amz-Date=20261215T000000Z&X-Amz-Expires=900&X-Amz-Signature={amz}", f"url-password:{amz}"))
    return out


def id_lookalikes(rng: random.Random) -> list[str]:
    """Ids, hashes and digests that look random and are not secrets: git SHAs, a UUID, sha256
    digests, a Subresource Integrity hash, Anthropic and OpenAI ids, Codex call ids."""
    blob = rng.randbytes(64)
    return [
        hashlib.sha1(blob).hexdigest(),
        hashlib.sha1(blob[1:]).hexdigest()[:7],
        str(uuid.UUID(int=rng.getrandbits(128))),
        hashlib.sha256(blob).hexdigest(),
        "sha256:" + hashlib.sha256(blob[2:]).hexdigest(),
        "sha512-" + base64.b64encode(hashlib.sha512(blob).digest()).decode(),
        "msg_01" + _chars(rng, ALNUM, 22),
        "toolu_01" + _chars(rng, ALNUM, 22),
        "req_011C" + _chars(rng, ALNUM, 20),
        "srvtoolu_01" + _chars(rng, ALNUM, 22),
        "call_" + _chars(rng, ALNUM, 24),
        "resp_" + _chars(rng, "0123456789abcdef", 48),
        "chatcmpl-" + _chars(rng, ALNUM, 29),
    ]


def _lookalikes(rng: random.Random) -> list[str]:
    """The ids and hashes, and each shape's own look-alike."""
    out = id_lookalikes(rng) + [lookalike(shape, sample(shape, rng)) for shape in SHAPES]
    return sorted(set(out))


def _shape_value(provider: str, rng: random.Random) -> tuple[str, str]:
    """(a value of the shape ``provider`` names, its kind)."""
    shape = next(s for s in SHAPES if s.provider == provider)
    return sample(shape, rng), shape.kind


def _plant_joins(zoo: Zoo, rng: random.Random) -> _Session:
    """Keys glued to words by "_" (a file name, a path, an MCP tool's name) and keys used as
    the keys of a tool's input (issue #35)."""
    session = _Session("zoo-joins")
    stripe, google, github, anthropic, npm = (
        _shape_value(provider, rng) for provider in ("Stripe live secret key", "Google API key (Maps, Gemini, Firebase web)",
                                                     "GitHub personal access token (classic)", "Anthropic API key",
                                                     "npm access token"))
    session.prompt("back the database up and query the tracker")
    session.tool(rng, "Bash", {"command": f"cp backup_{stripe[0]}.txt /srv/backups/"}, "")
    session.tool(rng, "Read", {"file_path": f"{_CWD}/build/x_{google[0]}/f"}, "     1\u2192ok\n")
    session.tool(rng, f"mcp__{github[0]}__query", {"query": "open issues", anthropic[0]: {"scope": "repo"}}, "[]")
    session.tool(rng, "mcp__tracker__search", {"filters": {npm[0]: ["open"]}, "limit": 5}, "[]",
                 detail={npm[0]: "the key is a key here too", "total": 0})
    for value, kind in (stripe, google, github, anthropic, npm):
        zoo.secrets[value] = kind
    return session


def _context_value(shape: Any, rng: random.Random) -> str:
    """A value of a CONTEXT_SHAPES shape that is what bough takes for one (random, or hex with a
    letter and a digit): a draw is redrawn until it is."""
    while True:
        value = sample(shape, rng)
        alnum = "".join(ch for ch in value if ch.isalnum())
        if looks_random(value, least=24) if shape.random else not (alnum.isdigit() or alnum.isalpha()):
            return value


def _plant_context(zoo: Zoo, rng: random.Random) -> _Session:
    """Every provider's unprefixed key in a sentence that names the provider, and keys of known
    vendors whose run is not their documented layout."""
    session = _Session("zoo-context")
    for index, shape in enumerate(CONTEXT_SHAPES):
        value, word = _context_value(shape, rng), shape.words[0]
        zoo.secrets[value] = shape.kind
        session.prompt(f"the {word} deploy fails, I'm using {value} from the dashboard")
        output = f"HOME=/home/dev\n{word.upper()}_SETTING={value}\n" + orjson.dumps({"provider": word, "value": value}).decode()
        session.tool(rng, "Bash", {"command": f"cat settings-{index}.txt"}, output)
    loose = [  # not the layout: base64 without the JSON header, 30 not 36 or 40, 40 letters not 32 hex
        ("SENTRY_SETTING", "sntrys_", ALNUM + "+/", 90, "sentry-token"),
        ("GH_SETTING", "ghp_", ALNUM, 30, "github-token"),
        ("DOPPLER_SETTING", "dp.st.", ALNUM, 30, "doppler-token"),
        ("SHOPIFY_SETTING", "shpat_", ALNUM, 40, "shopify-token"),
    ]
    for index, (name, prefix, alphabet, n, kind) in enumerate(loose, start=1000):
        value = prefix + _random_run(rng, alphabet, n)
        zoo.secrets[value] = kind
        _plant(session, rng, name, value, index)
    return session


def _random_run(rng: random.Random, alphabet: str, n: int) -> str:
    """n characters of the alphabet that look random to bough (about 1 draw in 60 does not)."""
    while True:
        run = _chars(rng, alphabet, n)
        if looks_random(run, least=24):
            return run


def _context_lookalikes(rng: random.Random) -> list[str]:
    """Sentences naming a provider beside what is no key (a git SHA, a path, a name, a digest),
    and vendor prefixes before hex or words: each must come through verbatim."""
    sha = hashlib.sha1(rng.randbytes(8)).hexdigest()
    return [
        f"the cloudflare worker was deployed from commit {sha}",
        "cloudflare_workers_deployment_config_v2 holds the routes",
        "aws s3 cp dist/ s3://my-bucket/releases/2026/12/15/build/ --recursive",
        f"the datadog agent image is sha256:{hashlib.sha256(rng.randbytes(8)).hexdigest()}",
        f"azure package integrity sha512-{base64.b64encode(hashlib.sha512(rng.randbytes(8)).digest()).decode()}",
        f"sntryu_{sha} is a git SHA after a vendor prefix",
        "ghp_token_pattern_matcher_for_classic_keys is a function name",
    ]


def write_secret_zoo(root: Path) -> Zoo:
    """Write the zoo under ``root/projects`` and say what must come of it."""
    rng = random.Random(_SEED)
    zoo = Zoo(Path(root) / "projects")
    folder = zoo.projects / _CWD.replace("/", "-")
    sessions: dict[str, _Session] = {}
    for index, shape in enumerate(SHAPES):
        value = sample(shape, rng)
        zoo.secrets[value[len(shape.prefix) :] if shape.keeps_prefix else value] = shape.kind  # a webhook's host is no secret
        session = sessions.setdefault(shape.family, _Session(f"zoo-{shape.family}"))
        _plant(session, rng, shape.kind.upper().replace("-", "_"), value, index)
    unknown = _Session("zoo-unknown")
    for index, (name, value, kind) in enumerate(_unknown_keys(rng), start=len(SHAPES)):
        kind, _, secret = kind.partition(":")
        zoo.secrets[secret or value] = kind
        _plant(unknown, rng, name, value, index)
    sessions["unknown"] = unknown
    sessions["joins"] = _plant_joins(zoo, rng)
    sessions["context"] = _plant_context(zoo, rng)
    look = _Session("zoo-lookalikes")
    zoo.lookalikes = _lookalikes(rng)
    for index, text in enumerate(zoo.lookalikes):
        look.prompt(f"the cache key is {text} and the token count went up")
        env = f"BUILD_REF={text}\nHOME=/home/dev\n"
        look.tool(rng, "Bash", {"command": "env"}, env)
        config = orjson.dumps({"ref": text}).decode()
        look.tool(rng, "Read", {"file_path": f"{_CWD}/refs/{index}.json"}, f"     1\u2192{config}\n")
    for text in _context_lookalikes(rng):  # sentences: each a prompt of its own
        look.prompt(text)
        zoo.lookalikes.append(text)
    sessions["lookalikes"] = look
    for session in sessions.values():
        session.write(folder)
    return zoo
