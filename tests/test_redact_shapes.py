"""Tests for the token shapes (bough_site.redact_rules.SHAPES), connection strings, signed
URLs, the fallback for unknown keys, and the linear time of every pattern.

Every shape gets a true positive in prose, in ``NAME=value`` and in JSON, and the
look-alike it must not take (docs/redaction.md). Values are random characters in each
shape's format, drawn from a seeded generator here; none is a real key.
"""

from __future__ import annotations

import random
import re
import string
import time

import pytest

from bough_site import redact_search, redact_shapes
from bough_site.redact import Redactor
from bough_site.redact_shapes import looks_random
from bough_site.redact_table import RULES, TIER_PROVIDER
from bough_site.redact_rules import FAMILIES, SHAPES, Shape, lookalike, sample

from .helpers import CODE, KEY, PROSE, deadline
from .helpers import random_chars as chars
from .helpers import redaction_label as label

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"


# Where people and agents put a key: pasted in a prompt, a NAME=value line, a JSON config.
# The names say nothing of a secret, so only the value's own shape can find it.
PLACEMENTS = [
    "the deploy fails, I'm using {} from the dashboard",
    "DEPLOY_SETTING={}",
    '{{"setting": "{}"}}',
]
_IDS = [f"{i}-{re.sub(r'[^a-z0-9]+', '-', s.provider.lower()).strip('-')}" for i, s in enumerate(SHAPES)]


def value_of(index: int) -> str:
    return sample(SHAPES[index], random.Random(1000 + index))


def redacted(shape: Shape, value: str) -> str:
    """The value as it must come out: its label (after the literal part a shape keeps)."""
    keep = len(shape.prefix) if shape.keeps_prefix else 0
    return value[:keep] + label(shape.kind, value[keep:])


# ---- the table ----------------------------------------------------------------------------------


def test_the_table_holds_150_shapes_or_more_each_with_a_source_and_family() -> None:
    assert len(SHAPES) >= 150
    assert len({s.provider for s in SHAPES}) == len(SHAPES)  # one entry per format
    for shape in SHAPES:
        assert shape.family in FAMILIES, shape.provider
        assert re.fullmatch(r"(gitleaks|trufflehog|microsoft|docs):\S.*", shape.source), shape.provider
        assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", shape.kind), shape.kind
        assert shape.prefix or shape.anchor, f"{shape.provider}: neither a prefix nor an anchor to find it by"
    assert {s.family for s in SHAPES} == set(FAMILIES)


def test_every_shape_kind_is_distinct_from_the_generic_kinds() -> None:
    generic = {r.kind for r in RULES if r.tier > TIER_PROVIDER}
    assert {s.kind for s in SHAPES} & generic == set()


@pytest.mark.parametrize("index", range(len(SHAPES)), ids=_IDS)
def test_each_sample_is_a_whole_match_of_its_own_pattern(index: int) -> None:
    shape = SHAPES[index]
    assert shape.regex.fullmatch(value_of(index)), shape.pattern()


@pytest.mark.parametrize("index", range(len(SHAPES)), ids=_IDS)
def test_each_shape_in_prose_env_and_json(index: int) -> None:
    shape, value = SHAPES[index], value_of(index)
    for template in PLACEMENTS:
        r = Redactor(KEY)
        assert r.text(template.format(value)) == template.format(redacted(shape, value))
        assert dict(r.counts) == {shape.kind: 1}


@pytest.mark.parametrize("index", range(len(SHAPES)), ids=_IDS)
def test_each_shape_lookalike_survives(index: int) -> None:
    text = lookalike(SHAPES[index], value_of(index))
    for template in PLACEMENTS:
        r = Redactor(KEY)
        assert r.text(template.format(text)) == template.format(text)
        assert r.counts == {}


def test_every_shape_one_per_line_inside_long_text() -> None:
    """All samples at once among prose and code: each found alone, with its own label."""
    lines, expected = [], []
    for index, shape in enumerate(SHAPES):
        filler = (PROSE if index % 2 else CODE)[:2000]
        value = value_of(index)
        lines += [filler, f"key {index}: {value}."]
        expected += [filler, f"key {index}: {redacted(shape, value)}."]
    r = Redactor(KEY)
    assert r.text("\n".join(lines)) == "\n".join(expected)
    assert sum(r.counts.values()) == len(SHAPES)


def test_a_token_glued_to_letters_is_not_a_shape() -> None:
    """The boundaries: a prefix inside a longer word (base64 data, an identifier) is not a key,
    nor is a body longer than the format allows (a hex body: the fallback takes no hex either)."""
    value = value_of(next(i for i, s in enumerate(SHAPES) if s.provider == "Pulumi access token"))
    r = Redactor(KEY)
    assert r.text("x" + value) == "x" + value
    assert r.text(value + "0") == value + "0"
    assert r.counts == {}


# ---- connection strings and signed URLs ---------------------------------------------------------

_rng = random.Random(7)
PW = "Hx7" + chars(_rng, ALNUM, 13)
SIG = chars(_rng, ALNUM, 43) + "%3D"
AMZ = chars(_rng, HEX, 64)
STS = "IQoJb3JpZ2luX2VjE" + chars(_rng, ALNUM, 60)
CONNECTIONS: list[tuple[str, str, str]] = [
    ("url-password", "mongodb+srv://app:{}@cluster0.ab1cd.mongodb.net/prod?retryWrites=true", PW),
    ("url-password", "rediss://default:{}@cache.upstash.io:6379", PW),
    ("url-password", "redis://:{}@localhost:6379/0", PW),
    ("url-password", "amqps://worker:{}@rabbit.internal:5671/vhost", PW),
    ("url-password", "amqp://worker:{}@rabbit:5672", PW),
    ("url-password", "postgresql+asyncpg://app:{}@db:5432/app", PW),
    ("url-password", "postgres://app:{}@db.supabase.co:5432/postgres", PW),
    ("url-password", "mysql+pymysql://root:{}@127.0.0.1:3306/shop", PW),
    ("url-password", "mssql+pyodbc://sa:{}@sql:1433/app?driver=ODBC", PW),
    ("url-password", "jdbc:mysql://app:{}@db:3306/app", PW),
    ("url-password", "clickhouse://default:{}@ch:9000/default", PW),
    ("url-password", "nats://svc:{}@nats:4222", PW),
    ("url-password", "ldaps://cn=admin:{}@ldap.internal:636", PW),
    ("url-password", "smtp://mailer:{}@smtp.mailgun.org:587", PW),
    ("url-password", "sftp://deploy:{}@files.example.net/upload", PW),
    ("url-password", "git+https://ci:{}@git.example.com/org/repo.git", PW),
    ("url-password", "http://proxyuser:{}@proxy.corp:3128", PW),
    ("url-password", "jdbc:postgresql://db:5432/app?user=app&password={}&ssl=true", PW),
    ("connection-string", "Server=tcp:sql.database.windows.net,1433;Database=app;User ID=sa;Password={};Encrypt=True;", PW),
    ("connection-string", "Driver={{ODBC Driver 18 for SQL Server}};Server=db;UID=sa;PWD={};", PW),
    ("connection-string", "jdbc:sqlserver://db:1433;databaseName=app;user=sa;password={};", PW),
    ("url-password", "https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&sp=r&se=2026-12-31T00:00Z&sig={}", SIG),
    ("url-password", "BlobEndpoint=https://acct.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&sig={}", SIG),
    ("url-password", "https://b.s3.amazonaws.com/k.zip?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=900&X-Amz-Signature={}", AMZ),
    ("url-password", "https://b.s3.amazonaws.com/k.zip?X-Amz-Security-Token={}&X-Amz-Date=20261215T000000Z", STS),
    ("url-password", "https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Signature={}", AMZ),
    ("url-password", "https://d111111abcdef8.cloudfront.net/v.mp4?Expires=1767225600&Signature={}&Key-Pair-Id=K2JCJMDEHXQW5F", SIG),
    ("url-password", "https://b.s3.amazonaws.com/k?AWSAccessKeyId=x&Expires=1767225600&Signature={}", SIG),
]


@pytest.mark.parametrize(("kind", "template", "secret"), CONNECTIONS, ids=[t.split(":")[0] + f"-{i}" for i, (_, t, _) in enumerate(CONNECTIONS)])
def test_passwords_in_connection_strings_and_signatures_in_signed_urls(kind: str, template: str, secret: str) -> None:
    for placement in PLACEMENTS:
        text = placement.format(template.format(secret))
        r = Redactor(KEY)
        assert r.text(text) == placement.format(template.format(label(kind, secret)))
        assert dict(r.counts) == {kind: 1}


def test_connection_strings_leave_placeholders_and_code_alone() -> None:
    r = Redactor(KEY)
    for text in ["Server=db;User Id=sa;Password=;", "Server=db;Password=${DB_PASSWORD};", "login(user, password=pw)",
                 "Server=db;Password=<password>;", "postgres://user:password@localhost/db"]:
        assert r.text(text) == text
    assert r.counts == {}


# ---- the fallback for keys no shape names --------------------------------------------------------

_frng = random.Random(11)
UNKNOWN_PREFIXED = [
    "acme_live_" + chars(_frng, ALNUM, 40),
    "zph-" + chars(_frng, ALNUM, 48),
    "qk_" + chars(_frng, ALNUM, 36),
    "Orbit-sk-" + chars(_frng, ALNUM, 64),
]


@pytest.mark.parametrize("token", UNKNOWN_PREFIXED)
def test_an_unknown_vendor_prefix_and_a_random_run_is_a_key(token: str) -> None:
    for template in PLACEMENTS:
        r = Redactor(KEY)
        assert r.text(template.format(token)) == template.format(label("prefixed-key", token))


# Random tokens written out (a draw can be unlucky: about 1 in 60 random 24-character tokens has
# CamelCase-like runs of lower-case letters and is left alone; see test_looks_random_...).
KEYWORD_SENTENCES = [
    ("my new staging key is {} so use that", "q7Rk2XbT9mWz4LpN8vYc3HsJ"),
    ("Here's the token: {}.", "Zx8Qw2Er5Ty7Ui9Op1As3Df6Gh4Jk0Lz"),
    ("{} is the secret they gave us", "b4N9xK2mQ7rT1vW8yZ3cF6hJ"),
    ("set the webhook password to {} please", "Pq3Xr7Ks1Nd9Wf2Hb6Lm4Tz8Vc5"),
    ("the API key ({}) stopped working", "mR4/tY8+kP2qW6zX9cV3bN7jH5gF1dS0aL/eU8iO4="),
]


@pytest.mark.parametrize(("template", "token"), KEYWORD_SENTENCES)
def test_a_random_token_in_a_sentence_about_a_key_is_a_secret(template: str, token: str) -> None:
    r = Redactor(KEY)
    assert r.text(template.format(token)) == template.format(label("keyword-secret", token))
    assert r.counts == {"keyword-secret": 1}


def test_a_password_in_prose_with_no_shape_is_not_found() -> None:
    """What is not covered (docs/redaction.md): a plain password typed in prose."""
    text = "I changed the db password to correcthorsebatterystaple yesterday"
    assert Redactor(KEY).text(text) == text


def test_looks_random_on_random_tokens_and_on_names() -> None:
    rng = random.Random(3)
    draws = [chars(rng, ALNUM, 32) for _ in range(400)]
    mixed = [d for d in draws if re.search("[A-Z]", d) and re.search("[a-z]", d) and re.search("[0-9]", d)]
    assert sum(looks_random(d, least=32) for d in mixed) >= 0.97 * len(mixed)
    names = ["getUserAccountSettingsForOrganization2024", "HTTPServerConfigurationBuilderV2Factory",
             "aaaaBBBBccccDDDD1111eeeeFFFF2222", "Test1Test2Test3Test4Test5Test6Test7",
             "TestParseHighTideWithTimezoneOffsets42", "K8sPodDisruptionBudgetV1Beta1Spec",
             "IsNullOrWhiteSpaceAsync4Tests"]
    assert [n for n in names if looks_random(n, least=24)] == []


# ---- linear time on hostile input ----------------------------------------------------------------

_N = 20_000
_GENERIC = ["key ", "token: ", "sk-", "_", "=", "://", "-----BEGIN"]


def _hostile_inputs(literals: list[str], body: str) -> list[str]:
    """Long strings built to make a backtracking pattern blow up: literals repeated, a literal
    followed by an endless body, near-misses one after another, no white space anywhere."""
    out = []
    for lit in literals:
        out += [
            lit * (_N // max(1, len(lit))),
            lit + body * (_N // len(body)),
            (lit + body * 3 + "!") * (_N // (len(lit) + 3 * len(body) + 1)),
            (lit + "=" + body * 4 + ":") * (_N // (len(lit) + 4 * len(body) + 2)),
        ]
    return out


def _patterns() -> list[tuple[re.Pattern[str], list[str]]]:
    """Every pattern with the literals it is built around (a rule's keywords, a shape's prefix
    or signature); the shared patterns (trie, signatures, fallback) meet every literal."""
    out: list[tuple[re.Pattern[str], list[str]]] = [(s.regex, [s.prefix or s.anchor or ""]) for s in SHAPES]
    out += [(r.regex, list(r.keywords)) for r in RULES]
    every = sorted({s.prefix or s.anchor or "" for s in SHAPES} | {k for r in RULES for k in r.keywords})
    out += [(p, every) for p in (redact_shapes._prefix_re(), redact_shapes._LONG_ANCHOR_RE, redact_shapes._PREFIXED_KEY_RE,
                                 redact_shapes._MIXED_TOKEN_RE, redact_shapes._SECRET_WORD_RE, redact_search._any_keyword())]
    return out


def test_every_pattern_stays_linear_on_hostile_input() -> None:
    """Every shape, every rule and the fallback over long adversarial strings: a catastrophic
    backtrack on 20 KB takes minutes, a linear pass about a millisecond; the budget is far above."""
    slowest, worst = 0.0, ""
    with deadline(900):
        for pattern, literals in _patterns():
            texts = _hostile_inputs([lit for lit in literals if lit] + _GENERIC, "aZ9_-")
            texts += _hostile_inputs(_GENERIC, "Ab3+/=")
            for text in texts:
                # CPU time, not the wall clock: a machine busy with other work must not fail it.
                start = time.process_time()
                for _ in pattern.finditer(text):
                    pass
                took = time.process_time() - start
                if took > slowest:
                    slowest, worst = took, pattern.pattern[:60]
    assert slowest < 1.0, worst


def test_the_redactor_stays_linear_on_hostile_input() -> None:
    literals = sorted({s.prefix or s.anchor or "" for s in SHAPES} | {k for r in RULES for k in r.keywords})
    r = Redactor(KEY)
    slowest = 0.0
    with deadline(900):
        for lit in literals:
            for text in _hostile_inputs([lit], "aZ9_-")[1:3]:
                start = time.process_time()
                r.text(text)
                slowest = max(slowest, time.process_time() - start)
    assert slowest < 1.0


def test_runs_are_found_in_any_text() -> None:
    s = "é " + "a" * 19 + " 日本 " + "b" * 20 + "\ud800" + "c/d:e" * 5
    assert redact_search._runs(s) == [(25, 45), (46, 71)]
    assert redact_search._runs("x" * 19) == []
    assert redact_search._runs("") == []


# ---- the docs say what the table holds -----------------------------------------------------------


def test_docs_list_every_shape_and_count_them_by_family() -> None:
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[1] / "docs" / "redaction.md").read_text("utf-8")
    assert f"**{len(SHAPES)} token shapes" in docs
    for family, name in FAMILIES.items():
        shapes = [s for s in SHAPES if s.family == family]
        row = next(line for line in docs.splitlines() if line.startswith(f"| {name}"))
        assert row.endswith(f"| {len(shapes)} | {len({s.kind for s in shapes})} |"), row
    missing = [s.provider for s in SHAPES if f"| {s.provider} | `{s.kind}` |" not in docs]
    assert missing == []
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")
    assert f"{len(SHAPES)} token shapes" in readme
