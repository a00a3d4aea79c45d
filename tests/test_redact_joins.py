"""Redaction at word joins and by context (issue #35, docs/redaction.md "Word joins", "Secrets
used as keys", "Keys told by their provider's name" and "A known vendor prefix").

- A token shape glued to a word by "_" (``backup_<key>.txt``, ``build/x_<key>/f``, an MCP
  tool's name ``mcp__<key>__query``) is found.
- A secret used as a key of a tool's input is redacted in the sidecar and on the page; key
  names that are no secret stay as they are.
- A provider's unprefixed key (Cloudflare's 40-character tokens, Datadog's 32 hex, AWS's 40
  base64 …) is found in a sentence that names the provider, and only there.
- A known vendor prefix followed by a long random run is that vendor's key even when the
  run is not the layout the vendor documents.

Every key is random characters in its format, put together here at run time; none is real.
"""

from __future__ import annotations

import base64
import hashlib
import random
import string
import time
from pathlib import Path

import orjson
import pytest

from bough_site.build import build
from bough_site.config import BuildConfig
from bough_site.redact import Redactor
from bough_site.redact_rules import SHAPES, Shape, sample

from .helpers import CWD, KEY, SESSION, deadline, leaks, prompt, reply, text, tool_result, tool_use, write_jsonl
from .helpers import random_chars as chars
from .helpers import redaction_label as label

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "_-"


def redact(s: str) -> str:
    return Redactor(KEY).text(s)


# ---- word joins -------------------------------------------------------------------------------

_rng = random.Random(20261235)
STRIPE = "sk_" + "live_" + chars(_rng, ALNUM, 24)
GOOGLE = "AI" + "za" + chars(_rng, B64URL, 35)
GITHUB = "gh" + "p_" + chars(_rng, ALNUM, 36)


@pytest.mark.parametrize(("template", "secret", "kind"), [
    ("cp backup_{}.txt /srv/", STRIPE, "stripe-key"),
    ("ls build/x_{}/f", GOOGLE, "google-api-key"),
    ("mcp__{}__query", GITHUB, "github-token"),
    ("{}_old and x_{}_new", GITHUB, "github-token"),
    ("GOOGLE_{}_KEY", GOOGLE, "google-api-key"),
])
def test_the_keys_of_the_issue_glued_by_underscores(template: str, secret: str, kind: str) -> None:
    """The three leaks measured at 9425abe, and the same keys with "_" on both sides."""
    r = Redactor(KEY)
    assert r.text(template.format(secret, secret)) == template.format(label(kind, secret), label(kind, secret))
    assert sum(r.counts.values()) == template.count("{}")


def _value(index: int) -> str:
    return sample(SHAPES[index], random.Random(3500 + index))


def _redacted(shape: Shape, value: str) -> str:
    keep = len(shape.prefix) if shape.keeps_prefix else 0
    return value[:keep] + label(shape.kind, value[keep:])


_IDS = [f"{i}-{s.kind}" for i, s in enumerate(SHAPES)]


@pytest.mark.parametrize("index", range(len(SHAPES)), ids=_IDS)
def test_every_shape_after_an_underscore(index: int) -> None:
    shape, value = SHAPES[index], _value(index)
    for template in ["backup_{} done", "mcp__{} done", "x_{}"]:
        r = Redactor(KEY)
        assert r.text(template.format(value)) == template.format(_redacted(shape, value))
        assert dict(r.counts) == {shape.kind: 1}


def _pinned(shape: Shape) -> bool:
    """Does the format say where the key ends when "_" follows it? Its last part is a literal,
    of a fixed length, or of an alphabet without "_"."""
    last = shape.parts[-1]
    return isinstance(last, str) or last[1] == last[2] or "_" not in last[0]


@pytest.mark.parametrize("index", range(len(SHAPES)), ids=_IDS)
def test_every_shape_before_an_underscore(index: int) -> None:
    """Where the format pins the end, the key alone is redacted and "__query" stays; where "_"
    may go on the key (a body of 35 to 38 base64url characters, the older rules' open-ended
    bodies), the label takes as much of "__query" as the format allows: nothing of the key is
    left either way, and what the label does not take stays."""
    shape, value = SHAPES[index], _value(index)
    r = Redactor(KEY)
    out = r.text(f"mcp__{value}__query")
    if _pinned(shape) and not shape.legacy:
        assert out == f"mcp__{_redacted(shape, value)}__query"
    else:
        tail = "__query"
        assert out in [f"mcp__{_redacted(shape, value + tail[:k])}{tail[k:]}" for k in range(len(tail) + 1)]
    assert dict(r.counts) == {shape.kind: 1}


def test_a_letter_or_digit_glued_before_a_prefix_is_still_no_key() -> None:
    """Only "_" (and characters no identifier holds) may stand before a shape: "tasksk_live_…"
    or base64 holding "AIza" is no key of those shapes."""
    body = chars(random.Random(5), HEX, 40)
    for text_ in ["task" + "pul-" + body, "9" + "pul-" + body, "x" + "sntryu_" + chars(random.Random(6), HEX, 64)]:
        assert redact(text_) == text_


# ---- secrets used as keys -------------------------------------------------------------------

_krng = random.Random(20261236)
KEY_TOKEN = "gh" + "o_" + chars(_krng, ALNUM, 36)
KEY_NPM = "np" + "m_" + chars(_krng, ALNUM, 36)
KEY_FILE = "gs" + "k_" + chars(_krng, ALNUM, 48)


def _history(root: Path) -> Path:
    records = [
        prompt("a0000000-0000-4000-8000-000000000001", "query the tracker and note it down"),
        reply("a0000000-0000-4000-8000-000000000002", "msg_01keys", [
            tool_use("toolu_01a", f"mcp__{GITHUB}__query",
                     **{"query": "open issues", KEY_TOKEN: {"scope": "repo", "limit": 5}}),
        ]),
        tool_result("a0000000-0000-4000-8000-000000000003", "toolu_01a", "[]",
                    detail={KEY_NPM: "a key of the result's detail", "total": 0}),
        reply("a0000000-0000-4000-8000-000000000004", "msg_02keys", [
            tool_use("toolu_01b", "Write", file_path=f"{CWD}/notes.txt", content="hello", **{KEY_FILE: "x"}),
        ]),
        tool_result("a0000000-0000-4000-8000-000000000005", "toolu_01b", "File created"),
        reply("a0000000-0000-4000-8000-000000000006", "msg_03keys", [text("Done.")]),
    ]
    write_jsonl(root / "projects" / CWD.replace("/", "-") / f"{SESSION}.jsonl", records)
    return root / "projects"


def _calls(sidecar: dict) -> list[dict]:
    return [block for item in sidecar["timeline"] if item["kind"] == "reply"
            for block in item["blocks"] if block["kind"] == "tool_call"]


def test_secrets_used_as_keys_are_redacted_in_the_sidecar_and_on_the_page(tmp_path: Path) -> None:
    out = tmp_path / "out"
    build(BuildConfig(sources=[_history(tmp_path)], out=out, archive=None, jobs=1), redaction_key=KEY)
    assert leaks(out, [GITHUB, KEY_TOKEN, KEY_NPM, KEY_FILE]) == []
    sidecar_path, = (out / "projects").glob("*/sessions/*.json")
    query, write = _calls(orjson.loads(sidecar_path.read_bytes()))
    assert query["name"] == f"mcp__{label('github-token', GITHUB)}__query"
    assert query["input"] == {"query": "open issues", label("github-token", KEY_TOKEN): {"scope": "repo", "limit": 5}}
    assert query["result"]["detail"] == {label("npm-token", KEY_NPM): "a key of the result's detail", "total": 0}
    assert write["input"] == {"file_path": f"{CWD}/notes.txt", "content": "hello", label("groq-key", KEY_FILE): "x"}
    page = b"".join(p.read_bytes() for p in (out / "projects").glob("*/sessions/*.html")).decode()
    # The page shows an MCP tool's input as JSON (a Write's as its file, a result's detail not at all).
    for shown in [label("github-token", GITHUB), label("github-token", KEY_TOKEN), "scope", "limit", "open issues"]:
        assert shown in page, shown


# ---- keys told by their provider's name -------------------------------------------------------

_crng = random.Random(20261237)


def _random(alphabet: str, n: int) -> str:
    """A draw that looks random to bough (about one draw in 60 of 24 or more characters does not)."""
    from bough_site.redact_shapes import looks_random

    while True:
        value = chars(_crng, alphabet, n)
        if looks_random(value, least=24):
            return value


def _hex(n: int) -> str:
    while True:
        value = chars(_crng, HEX, n)
        if not (value.isdigit() or value.isalpha()):
            return value


# (provider named, kind, value): the held-out shapes of the issue and the rest of the table.
NAMED = [
    ("cloudflare", "cloudflare-key", _random(B64URL, 40)),
    ("Cloudflare", "cloudflare-key", _hex(37)),
    ("datadog", "datadog-key", _hex(32)),
    ("Twilio", "twilio-key", _hex(32)),
    ("mistral", "mistral-key", _random(ALNUM, 32)),
    ("AWS", "aws-secret-key", _random(B64, 40)),
    ("Azure", "azure-storage-key", _random(B64, 86) + "=="),
]
_NAMED_IDS = [kind for _, kind, _ in NAMED]
NAMING = [
    "the {name} deploy fails, I'm using {value} from the dashboard",
    "{value} is the {name} key they gave us",
    "{upper}_SETTING={value}",
    '{{"provider": "{name}", "value": "{value}"}}',
    "# a name may go on ({name}d, {name}hq) and ends no sentence: {name}d key {value}",
]


@pytest.mark.parametrize(("name", "kind", "value"), NAMED, ids=_NAMED_IDS)
def test_an_unprefixed_key_in_a_sentence_naming_its_provider(name: str, kind: str, value: str) -> None:
    for template in NAMING:
        if "may go on" in template and kind == "aws-secret-key":
            continue  # "AWSd" is no name of AWS: a three-letter name must end
        given = template.format(name=name, upper=name.upper(), value=value)
        r = Redactor(KEY)
        assert r.text(given) == given.replace(value, label(kind, value))
        assert dict(r.counts) == {kind: 1}


@pytest.mark.parametrize(("name", "kind", "value"), NAMED, ids=_NAMED_IDS)
def test_the_same_key_without_its_provider_in_the_sentence_is_left(name: str, kind: str, value: str) -> None:
    for template in [
        "the deploy fails, I'm using {value} from the dashboard",
        "We moved to {name}. The build id is {value} today",
        "{name} " + "x" * 130 + " {value}",  # named too far before it
        "{value} " + "y" * 70 + " {name}",  # named too far after it
        "in un{name} the id is {value}",  # inside another word
        # A three-letter name that goes on is another word; a name glued after letters too.
        "the {name}d {name}hq id is {value}" if kind == "aws-secret-key" else "the x{name} id is {value}",
        "the {other} deploy fails, I'm using {value} from the dashboard",
    ]:
        other = "heroku" if kind != "twilio-key" else "sendgrid"
        given = template.format(name=name, value=value, other=other)
        assert redact(given) == given, template


def test_twilio_and_datadog_share_a_shape_and_the_name_decides() -> None:
    value = _hex(32)
    assert redact(f"twilio token {value}") == f"twilio token {label('twilio-key', value)}"
    assert redact(f"datadog: {value}") == f"datadog: {label('datadog-key', value)}"


# Of a shape's length and alphabet, beside a provider's name, and no key: a git SHA (40 hex),
# names and paths (not random), a package's digest (sha512- before it), all-digit or all-letter hex.
NAME_40 = "workers_deployment_configuration_prod_v2"
PATH_40 = "releases/2026/getUserAccountSettingsV2/x"
NAME_32 = "getUserAccountSettingsForOrgV202"
NOT_KEYS = [
    "the cloudflare worker was deployed from commit " + hashlib.sha1(b"w").hexdigest(),
    f"the cloudflare routes live in {NAME_40} now",
    "the datadog agent image is sha256:" + hashlib.sha256(b"d").hexdigest(),
    f"aws s3 cp dist/ s3:{PATH_40} --recursive",
    "azure package integrity sha512-" + base64.b64encode(hashlib.sha512(b"a").digest()).decode(),
    f"the mistral client calls {NAME_32} first",
    "datadog trace 00000000000000000000000000000001 and bytes ffffffffffffffffffffffffffffffff",
]


def test_the_look_alikes_have_the_shapes_length() -> None:
    assert (len(NAME_40), len(PATH_40), len(NAME_32)) == (40, 40, 32)


@pytest.mark.parametrize("text_", NOT_KEYS)
def test_what_is_no_key_stays_beside_a_providers_name(text_: str) -> None:
    assert redact(text_) == text_


def test_the_table_of_keys_told_by_their_provider() -> None:
    """Each is found the way redact_shapes.py says (a stretch of letters and digits, or a random token
    of all three classes), and each kind above is the table's."""
    from bough_site import redact_shapes
    from bough_site.redact_rules import CONTEXT_SHAPES

    assert {s.kind for s in CONTEXT_SHAPES} == {kind for _, kind, _ in NAMED}
    stretch = {j for js in redact_shapes._STRETCH_BY_LENGTH.values() for j in js}
    assert stretch | set(redact_shapes._WIDE_SHAPES) == set(range(len(CONTEXT_SHAPES)))
    assert stretch.isdisjoint(redact_shapes._WIDE_SHAPES)
    for j in redact_shapes._WIDE_SHAPES:
        assert CONTEXT_SHAPES[j].random and CONTEXT_SHAPES[j].length >= redact_shapes._WIDE_LEAST
    for shape in CONTEXT_SHAPES:
        value = sample(shape, random.Random(1))
        assert shape.regex.fullmatch(value), shape.provider
        assert len(value) == shape.length


# ---- a known vendor prefix and a random run ---------------------------------------------------

LOOSE = [
    # Sentry org tokens are base64 of a JSON header; this one is not.
    ("sntrys_" + _random(B64, 90), "sentry-token"),
    ("ghp_" + _random(ALNUM, 30), "github-token"),  # 30, not 36
    ("dp.st." + _random(ALNUM, 30), "doppler-token"),  # 30, not 40 to 44
    ("shpat_" + _random(ALNUM, 40), "shopify-token"),  # letters and digits, not 32 hex
    ("glsa_" + _random(B64URL, 50), "grafana-token"),
    ("sk-ant-api03-" + _random(B64URL, 60), "anthropic-key"),
]


@pytest.mark.parametrize(("value", "kind"), LOOSE, ids=[k for _, k in LOOSE])
def test_a_vendor_prefix_and_a_random_run_is_that_vendors_key(value: str, kind: str) -> None:
    for template in ["the deploy fails, I'm using {} from the dashboard", "DEPLOY_SETTING={}", '{{"setting": "{}"}}',
                     "mcp__{}__query" if "+" not in value and "/" not in value else "x_{} done"]:
        r = Redactor(KEY)
        out = r.text(template.format(value))
        if template == "mcp__{}__query":  # "_" may belong to the run: the label takes "__query" too
            assert out == f"mcp__{label(kind, value + '__query')}"
        else:
            assert out == template.format(label(kind, value))
        assert dict(r.counts) == {kind: 1}


@pytest.mark.parametrize("text_", [
    "sntryu_" + hashlib.sha1(b"s").hexdigest() + " is a SHA after a vendor prefix",  # hex is never random
    "ghp_token_pattern_matcher_for_classic_keys is a function",
    "shpat_" + "ab" * 20,
    "dp.st.DopplerServiceTokenParserTests2024x",
    "sntrys_" + "eyJpYXQiO" + "short",
    "key-" + "Zx8Qw2Er5Ty7Ui9Op1As3Df6",  # a word is no vendor prefix (32 would be prefixed-key's)
])
def test_a_vendor_prefix_before_what_is_not_random_is_left(text_: str) -> None:
    assert redact(text_) == text_


def test_each_vendor_prefix_names_one_kind() -> None:
    from bough_site import redact_shapes

    kinds: dict[str, set[str]] = {}
    for shape in SHAPES:
        if shape.vendor:
            kinds.setdefault(shape.vendor, set()).add(shape.kind)
    assert {v: k for v, k in kinds.items() if len(k) > 1} == {}
    assert set(redact_shapes._VENDORS) == set(kinds)
    assert {"sntrys_", "ghp_", "dp.st.", "shpat_", "github_pat_", "sk-ant-api03-"} <= set(kinds)
    assert {"sk_", "hf_", "key-", "api-", "secret_", "access_"}.isdisjoint(kinds)


def test_vendor_prefixes_over_and_over_stay_linear() -> None:
    """A vendor prefix every few characters ("ghp_ghp_…", a run of 64 KB, the longest the loose
    check reads, and one of 1 MB it skips as encoded data): a bisection per prefix, not a scan of
    the run after each (redact_shapes._BodyEnds). Quadratic, the 64 KB runs took seconds each."""
    from bough_site import redact_shapes

    slowest, worst = 0.0, ""
    vendors = sorted(redact_shapes._VENDORS)
    with deadline(600):
        for vendor in vendors:
            texts = [vendor * (65_000 // len(vendor)), (vendor + "aZ9" * 300 + ".") * 70]
            if vendor in (vendors[0], "ghp_", "dp.st."):
                texts.append(vendor * (1_000_000 // len(vendor)))
            for given in texts:
                # CPU time, not the wall clock: a machine busy with other work must not fail it.
                started = time.process_time()
                Redactor(KEY).text(given)
                took = (time.process_time() - started) * 64_000 / len(given)  # per 64 KB
                if took > slowest:
                    slowest, worst = took, f"{vendor} {len(given)}"
    assert slowest < 0.5, worst
