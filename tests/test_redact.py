"""Tests for bough_site.redact: every kind of secret, the look-alikes that must survive, and the API.

Fake secrets are generated here with the right shape from a seeded RNG; none is a real key.
Every assertion compares exact strings.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random
import re
import string
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bough_site import redact
from bough_site.redact import Redactor
from bough_site.redact_files import is_sensitive_path
from bough_site.redact_table import RULES, Rule
from corpus.secrets import id_lookalikes

from .helpers import CODE, FILLER, PROSE

KEY = b"test-fingerprint-key"

_rng = random.Random(20261129)
ALNUM = string.ascii_letters + string.digits
B64URL = ALNUM + "-_"
B64 = ALNUM + "+/"
HEX = "0123456789abcdef"
B32 = string.ascii_uppercase + "234567"


def fake(alphabet: str, n: int) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def fp(secret: str, key: bytes = KEY) -> str:
    """The fingerprint computed independently of the module."""
    return hmac.new(key, secret.encode("utf-8"), hashlib.sha256).hexdigest()[:8]


def label(kind: str, secret: str) -> str:
    return f"[redacted: {kind} {fp(secret)}]"


def b64url_json(obj: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


# Fake secrets of each shape, generated once.
AWS_ID = "AKIA" + fake(B32, 16)
AWS_STS_ID = "ASIA" + fake(B32, 16)
AWS_DOCS_ID = "AKIAIOSFODNN7EXAMPLE"  # the key of the AWS documentation: redacted all the same
AWS_SECRET = fake(B64, 40)
GH_PAT = "ghp_" + fake(ALNUM, 36)
GH_OAUTH = "gho_" + fake(ALNUM, 36)
GH_FINE = "github_pat_" + fake(ALNUM, 22) + "_" + fake(ALNUM, 59)
GL_PAT = "glpat-" + fake(B64URL, 20)
SLACK_BOT = "xoxb-" + fake(string.digits, 12) + "-" + fake(string.digits, 13) + "-" + fake(ALNUM, 24)
SLACK_HOOK_PATH = "T" + fake(B32, 8) + "/B" + fake(B32, 10) + "/" + fake(ALNUM, 24)
STRIPE_LIVE = "sk_live_" + fake(ALNUM, 24)
STRIPE_RK_TEST = "rk_test_" + fake(ALNUM, 24)
STRIPE_WHSEC = "whsec_" + fake(ALNUM, 32)
OPENAI_PROJ = "sk-proj-" + fake(B64URL, 120)
OPENAI_SVC = "sk-svcacct-" + fake(B64URL, 60)
OPENAI_ADMIN = "sk-admin-" + fake(B64URL, 60)
OPENAI_OLD = "sk-" + fake(ALNUM, 20) + "T3BlbkFJ" + fake(ALNUM, 20)
OPENAI_PLAIN = "sk-" + fake(ALNUM, 48)
ANTHROPIC = "sk-ant-api03-" + fake(B64URL, 93) + "AA"
OPENROUTER = "sk-or-v1-" + fake(HEX, 64)
GOOGLE_KEY = "AIza" + fake(B64URL, 35)
GOOGLE_OAUTH = "GOCSPX-" + fake(B64URL, 28)
GOOGLE_ACCESS = "ya29." + fake(B64URL, 150)
NPM = "npm_" + fake(ALNUM, 36)
PYPI = "pypi-AgEIcHlwaS5vcmc" + fake(B64URL, 70)
HF = "hf_" + fake(string.ascii_letters, 34)
SENDGRID = "SG." + fake(B64URL, 22) + "." + fake(B64URL, 43)
TWILIO_SK = "SK" + fake(HEX, 32)
TWILIO_TOKEN = fake(HEX, 32)
DO_TOKEN = "dop_v1_" + fake(HEX, 64)
SUPABASE = "sbp_" + fake(HEX, 40)
TELEGRAM = fake("123456789", 10) + ":AA" + fake(B64URL, 33)
AZURE_KEY = fake(B64, 86) + "=="
JWT = (
    b64url_json({"alg": "HS256", "typ": "JWT"})
    + "."
    + b64url_json({"sub": "1234567890", "name": "Test User", "iat": 1516239022})
    + "."
    + fake(B64URL, 43)
)
PASSWORD = "Tr0ub4dor&" + fake(ALNUM, 6)
TOKEN = fake(ALNUM, 32)


# (kind, template, secret): the input is template with {} replaced by the secret; the
# expected output has the label there instead.
POSITIVES: list[tuple[str, str, str]] = [
    ("aws-access-key", "aws_access_key_id = {}", AWS_ID),
    ("aws-access-key", '"AccessKeyId": "{}",', AWS_STS_ID),
    ("aws-access-key", "export AWS_ACCESS_KEY_ID={}", AWS_DOCS_ID),
    ("aws-access-key", "https://bucket.s3.amazonaws.com/x?X-Amz-Credential={}%2F20240101", AWS_ID),
    ("aws-secret-key", "aws_secret_access_key = {}", AWS_SECRET),
    ("aws-secret-key", "AWS_SECRET_ACCESS_KEY={}", AWS_SECRET),
    ("aws-secret-key", '"SecretAccessKey": "{}",', AWS_SECRET),
    ("aws-secret-key", "AWS Secret Access Key [None]: {}", AWS_SECRET),
    ("github-token", "git clone https://x-access-token:{}@github.com/o/r.git", GH_PAT),
    ("github-token", "export GITHUB_TOKEN={}", GH_PAT),
    ("github-token", "curl -H 'Authorization: token {}' https://api.github.com", GH_OAUTH),
    ("github-token", "GH_TOKEN={}\n", GH_FINE),
    ("gitlab-token", "PRIVATE-TOKEN: {}", GL_PAT),
    ("slack-token", "SLACK_BOT_TOKEN={}", SLACK_BOT),
    ("slack-webhook", "curl -X POST https://hooks.slack.com/services/{} -d '{{}}'", SLACK_HOOK_PATH),
    ("stripe-key", "stripe.api_key = '{}'", STRIPE_LIVE),
    ("stripe-key", "restricted key {} for tests", STRIPE_RK_TEST),
    ("stripe-key", "STRIPE_WEBHOOK_SECRET={}", STRIPE_WHSEC),
    ("openai-key", "OPENAI_API_KEY={}", OPENAI_PROJ),
    ("openai-key", 'client = OpenAI(api_key="{}")', OPENAI_SVC),
    ("openai-key", "admin key: {}", OPENAI_ADMIN),
    ("openai-key", "old key {}.", OPENAI_OLD),
    ("openai-key", "openai.api_key = {}", OPENAI_PLAIN),
    ("anthropic-key", "x-api-key: {}", ANTHROPIC),
    ("anthropic-key", "ANTHROPIC_API_KEY={}", ANTHROPIC),
    ("openrouter-key", "Authorization: Bearer {}", OPENROUTER),
    ("google-api-key", "https://maps.googleapis.com/maps/api/js?key={}&callback=init", GOOGLE_KEY),
    ("google-oauth-secret", '"client_secret": "{}"', GOOGLE_OAUTH),
    ("google-oauth-secret", "$ gcloud auth print-access-token\n{}\n", GOOGLE_ACCESS),
    ("npm-token", "//registry.npmjs.org/:_authToken={}", NPM),
    ("pypi-token", "twine upload -u __token__ -p {} dist/*", PYPI),
    ("huggingface-token", "huggingface-cli login --token {}", HF),
    ("sendgrid-key", "SENDGRID_API_KEY={}", SENDGRID),
    ("twilio-key", "api key sid {} created", TWILIO_SK),
    ("twilio-key", "TWILIO_AUTH_TOKEN={}", TWILIO_TOKEN),
    ("twilio-key", 'twilio_client = Client(sid, auth_token="{}")', TWILIO_TOKEN),
    ("digitalocean-token", "doctl auth init -t {}", DO_TOKEN),
    ("supabase-token", "supabase login --token {}", SUPABASE),
    ("telegram-bot-token", "https://api.telegram.org/bot{}/getMe", TELEGRAM),
    (
        "azure-storage-key",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={};EndpointSuffix=core.windows.net",
        AZURE_KEY,
    ),
    ("jwt", "id_token={}", JWT),
    ("jwt", "Authorization: Bearer {}", JWT),
    ("jwt", '{{"access_token": "{}", "token_type": "Bearer"}}', JWT),
    ("url-password", "DATABASE_URL=postgres://app:{}@db.internal:5432/app", PASSWORD),
    ("url-password", "redis://:{}@cache:6379/0", TOKEN),
    ("url-password", "https://api.example.com/v1/items?access_token={}&page=2", TOKEN),
    ("url-password", "GET /callback?state=abc&client_secret={}", TOKEN),
    ("url-password", 'curl -d "password={}&user=bob" https://x', TOKEN),
    ("connection-string", "Server=db;Database=app;User Id=sa;Password={};", PASSWORD),
    ("auth-header", "Authorization: Bearer {}", TOKEN),
    ("auth-header", "authorization: basic {}", base64.b64encode(b"bob:" + TOKEN.encode()).decode()),
    ("auth-header", "Proxy-Authorization: Basic {}", fake(B64, 24)),
    ("auth-header", "X-Api-Key: {}", TOKEN),
    ("auth-header", 'headers = {{"X-Auth-Token": "{}"}}', TOKEN),
    ("auth-header", "requests.exceptions.HTTPError: 401 for url, headers {{'Authorization': 'Token {}'}}", TOKEN),
    ("auth-header", "curl -u bob:{} https://api.example.com", PASSWORD),
    ("cookie", "Set-Cookie: sessionid={}; Path=/; HttpOnly; Secure", TOKEN),
    ("env-secret", "API_KEY={}", TOKEN),
    ("env-secret", "export DB_PASSWORD='{}'", PASSWORD),
    ("env-secret", 'SECRET_KEY="{}"', TOKEN),
    ("env-secret", "MY_APP_TOKEN={} ./run.sh", TOKEN),
    ("env-secret", "DB_PASSWD={}", PASSWORD),
    ("env-secret", "SMTP_PWD={}", PASSWORD),
    ("env-secret", "MAPS_APIKEY={}", TOKEN),
    ("env-secret", "S3_ACCESS_KEY={}", TOKEN),
    ("env-secret", "JWT_PRIVATE_KEY={}", TOKEN),
    ("env-secret", "GOOGLE_CREDENTIALS={}", TOKEN),
    ("env-secret", "BASIC_AUTH={}", "bob:" + PASSWORD),
    ("env-secret", "ENCRYPTION_KEY={}", TOKEN),
    ("env-secret", "docker run -e REDIS_PASSWORD={} redis", PASSWORD),
    ("env-secret", "DB_PASSWORD={}", "12345678"),
    ("password-assignment", 'password = "{}"', PASSWORD),
    ("password-assignment", "api_key: '{}'", TOKEN),
    ("password-assignment", '    "client_secret": "{}",', TOKEN),
    ("password-assignment", 'cfg["auth_token"] = "{}"', TOKEN),
    ("password-assignment", 'const apiKey = "{}";', TOKEN),
    ("password-assignment", 'db_password := "{}"', PASSWORD),
    ("password-assignment", "'password' => '{}',", PASSWORD),
    ("password-assignment", 'api_key: str = "{}"', TOKEN),
    ("password-assignment", "login(user, password='{}')", PASSWORD),
    ("password-assignment", "database:\n  password: {}\n  host: db", PASSWORD),
    ("password-assignment", "mytool --api-key {} --verbose", TOKEN),
    ("password-assignment", "mytool --password={}", PASSWORD),
    ("password-assignment", "docker login -u bob -p {} registry.example.com", TOKEN),
    ("password-assignment", "sshpass -p '{}' ssh bob@host", PASSWORD),
    ("password-assignment", "mysql -u root -p{} app < dump.sql", TOKEN),
]


@pytest.mark.parametrize(
    ("kind", "template", "secret"), POSITIVES, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(POSITIVES)]
)
def test_each_kind_is_redacted(kind: str, template: str, secret: str) -> None:
    r = Redactor(KEY)
    assert r.text(template.format(secret)) == template.format(label(kind, secret))
    assert dict(r.counts) == {kind: 1}


def test_secrets_inside_long_text() -> None:
    """Every positive, one per line, among filler lines full of keywords: the same output as alone."""
    lines, expected = [], []
    for i, (kind, template, secret) in enumerate(POSITIVES):
        filler = FILLER[i % len(FILLER)]
        lines += [filler, template.format(secret)]
        expected += [filler, template.format(label(kind, secret))]
    r = Redactor(KEY)
    assert r.text("\n".join(lines)) == "\n".join(expected)
    assert sum(r.counts.values()) == len(POSITIVES)


def test_every_rule_kind_has_a_positive_case() -> None:
    kinds = {r.kind for r in RULES}
    covered = {k for k, _, _ in POSITIVES} | {"private-key"}  # PEM blocks have their own tests
    assert kinds - covered == set()


def test_cookie_header_each_value() -> None:
    a, b = fake(ALNUM, 20), fake(ALNUM, 20)
    r = Redactor(KEY)
    assert r.text(f"Cookie: session={a}; csrftoken={b}") == (
        f"Cookie: session={label('cookie', a)}; csrftoken={label('cookie', b)}"
    )
    assert r.counts == {"cookie": 2}


def test_curl_cookie_flag() -> None:
    r = Redactor(KEY)
    assert r.text(f"curl --cookie 'sid={TOKEN}' https://x") == f"curl --cookie 'sid={label('cookie', TOKEN)}' https://x"


# ---- private keys ----

PEM_BODY = "\n".join(fake(B64, 64) for _ in range(5))
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----"


def test_private_key_block_terminated() -> None:
    r = Redactor(KEY)
    text = f"Here is the key:\n{PEM}\nand some text after it."
    assert r.text(text) == f"Here is the key:\n{label('private-key', PEM)}\nand some text after it."
    assert r.counts == {"private-key": 1}


def test_private_key_block_truncated_runs_to_the_end() -> None:
    truncated = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}\n... (output truncated)"
    r = Redactor(KEY)
    assert r.text("cat ~/.ssh/id_ed25519\n" + truncated) == "cat ~/.ssh/id_ed25519\n" + label("private-key", truncated)


def test_private_key_variants_and_escaped_newlines() -> None:
    r = Redactor(KEY)
    enc = f"-----BEGIN ENCRYPTED PRIVATE KEY-----\n{PEM_BODY}\n-----END ENCRYPTED PRIVATE KEY-----"
    pgp = f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{PEM_BODY}\n-----END PGP PRIVATE KEY BLOCK-----"
    assert r.text(enc) == label("private-key", enc)
    assert r.text(pgp) == label("private-key", pgp)
    # A service-account JSON read as text keeps the PEM newlines as "\n" escapes.
    escaped = "-----BEGIN PRIVATE KEY-----\\n" + PEM_BODY.replace("\n", "\\n") + "\\n-----END PRIVATE KEY-----"
    assert r.text(f'"private_key": "{escaped}\\n",') == f'"private_key": "{label("private-key", escaped)}\\n",'


def test_private_key_block_beats_tokens_inside_it() -> None:
    block = f"-----BEGIN PRIVATE KEY-----\n{GH_PAT}\n{AWS_ID}\n-----END PRIVATE KEY-----"
    r = Redactor(KEY)
    assert r.text(block) == label("private-key", block)
    assert r.counts == {"private-key": 1}


def test_public_key_and_certificate_survive() -> None:
    r = Redactor(KEY)
    cert = f"-----BEGIN CERTIFICATE-----\n{PEM_BODY}\n-----END CERTIFICATE-----"
    pub = f"-----BEGIN PUBLIC KEY-----\n{PEM_BODY}\n-----END PUBLIC KEY-----"
    assert r.text(cert) == cert
    assert r.text(pub) == pub


# ---- look-alikes that must survive ----

SHA1 = hashlib.sha1(b"x").hexdigest()
SHA256 = hashlib.sha256(b"x").hexdigest()
UUID = str(uuid.UUID(int=_rng.getrandbits(128)))
IMAGE_B64 = base64.b64encode(random.Random(5).randbytes(300_000)).decode()

NEGATIVES: list[str] = [
    "",
    "password",
    "Please enter your password and token.",
    "the secret is that there is no secret",
    f"commit {SHA1}",
    f"git checkout {SHA1[:7]} && git show {SHA1[:12]}",
    f"sha256:{SHA256}",
    f"{SHA256}  dist/bough-0.1.0.tar.gz",
    f"request id {UUID}",
    IMAGE_B64,
    f"data:image/png;base64,{IMAGE_B64[:5000]}",
    "msg_01XFDUDYJgAACzvnptvVoYEL",
    "toolu_01A09q90qw90lq917835lq9",
    "req_011CSHoEeqs5C35K2UUqR7Fy",
    "call_Lx3Ya9v2bq1WnC8kPqR0sT5u",
    "PASSWORD_MIN_LENGTH=8",
    "TOKEN_URL=https://oauth2.googleapis.com/token",
    "AUTH_TYPE=oauth2 SECRET_NAME=prod/db TOKEN_TTL=3600 API_KEY_FILE=/run/secrets/api",
    "API_KEY=${API_KEY}",
    "export GITHUB_TOKEN=$GITHUB_TOKEN",
    'TOKEN="$(gh auth token)"',
    "Authorization: Bearer <token>",
    "Authorization: Bearer $TOKEN",
    "Authorization: Bearer ${ACCESS_TOKEN}",
    'headers = {"Authorization": f"Bearer {token}"}',
    'headers["Authorization"] = "Bearer " + token',
    "The Authorization header carries the token.",
    "PASSWORD=changeme",
    "SECRET_KEY=xxx",
    "API_KEY=your-api-key-here",
    'api_key = "YOUR_API_KEY"',
    'password = ""',
    "password: str",
    "api_key: Optional[str] = None",
    "def login(user: str, password: str) -> Token:",
    'if token == "lambda":',
    "token = tokenize(source)",
    "for key, value in items.items():",
    "sorted(rows, key=lambda r: r[0])",
    "requests.get(url, auth=auth, timeout=10)",
    "input_tokens: 123",
    '"usage": {"input_tokens": 123, "output_tokens": 45}',
    "MAX_TOKENS = 4096",
    "max_tokens=4096",
    "mytool --max-tokens 4096 --token-file ~/.tok",
    "echo $PW | docker login -u bob --password-stdin",
    "TOKENIZERS_PARALLELISM=false",
    "PWD=/tmp/project OLDPWD=/tmp",
    "GIT_AUTHOR_NAME=Alice",
    "author: 'Alice Example'",
    "AWS_REGION=us-east-1 AWS_PROFILE=dev",
    "aws s3 cp build/ s3://bucket/ --recursive",
    "docker run -u 1000:1000 image",
    "git push -u origin main",
    "docker run -p 8080:80 -v $PWD:/app image && mkdir -p build",
    "docker login -u bob -p $REGISTRY_PASSWORD registry.example.com",
    "mysql -u root -p app",
    "postgres://user:pass@host/db",
    "mysql://root:password@localhost/app",
    "https://example.com/search?q=token&page=2",
    "https://user:${DB_PASSWORD}@host/db",
    "if (a && b.key === c) { x = y ? z.key : w }",
    "UPPER_TASK_RISK_DISK = 'sk'",
    "pip install scikit-learn risk-free",
    "hf_hub_download(repo_id='x', filename='y')",
    "npm_config_cache=/tmp/npm",
    "eyJhbGciOiJIUzI1NiJ9 alone is only a header",
    "Cookie: none",
    "ssh-keygen -t ed25519 -C bob@example.com",
    "AccountKey=",
    "sk-proj- is the prefix of project keys",
]


# Look-alikes of keys for the token shapes and the fallback (redact_rules, tests/test_redact_shapes.py):
# ids, hashes and names that look random, in each placement, even next to secret words.
_rng7 = random.Random(7)


def _chars7(alphabet: str, n: int) -> str:
    return "".join(_rng7.choice(alphabet) for _ in range(n))


LOOKALIKES = id_lookalikes(_rng7) + [
    str(uuid.UUID(int=_rng7.getrandbits(128))).upper(),
    "019c8a70-dda7-7f33-98ea-f30553347322",  # a UUIDv7 (Codex session ids)
    "sha1-" + base64.b64encode(hashlib.sha1(_rng7.randbytes(20)).digest()).decode(),
    "toolu_vrtx_01" + _chars7(ALNUM, 22),
    "rs_" + _chars7(HEX, 48),
    "fc_" + _chars7(HEX, 48),
    "01ARZ3NDEKTSV4RRFFQ69G5FAV",  # a ULID
    "507f1f77bcf86cd799439011",  # a MongoDB ObjectId
    "v0.0.0-20260101120000-abcdef123456",  # a Go pseudo-version
    "/nix/store/" + _chars7("0123456789abcdfghijklmnpqrsvwxyz", 32) + "-python3-3.11.9",
    "api-7f9c6d5b8-x2k4p",  # a Kubernetes pod name
    "main.3f2a9c1b.chunk.js",
    "getUserAccountSettingsForOrganization2024",
    "TestParseHighTideWithTimezoneOffsets42",
    "arn:aws:iam::123456789012:role/DeployRole",
    "eyJhbGciOiJIUzI1NiJ9",
    base64.b64encode(_rng7.randbytes(600)).decode(),
]
LOOKALIKE_PLACEMENTS = [
    "the cache key is {} and the token count went up",
    "BUILD_REF={}",
    '{{"ref": "{}", "note": "not a secret, not a token"}}',
]
FALLBACK_NEGATIVES = [
    # A random token with no secret word in its sentence.
    "the build id is " + _chars7(ALNUM, 30) + " today",
    # The secret word ends the sentence before the token.
    "Rotate the key. " + _chars7(ALNUM, 30) + " is the build id",
    # Names, hashes and ids next to secret words.
    "the token refresh lives in getUserAccountSettingsForOrganization2024 now",
    "cache key " + hashlib.sha256(b"k").hexdigest(),
    "secret rotation job 0f8fad5b-d9cb-469f-a165-70867728950e finished",
    "token count for msg_01" + _chars7(ALNUM, 22) + " was 1200",
    "my_project_settings_module_with_a_very_long_name_2 holds the key",
    "vendor prefix but a low entropy run: acme_live_" + "ab" * 20,
    "vendor prefix but hex: build_" + hashlib.sha1(b"x").hexdigest(),
]
# Every look-alike in each placement (even next to secret words), and the fallback's near-misses.
NEGATIVES += [template.format(text) for text in LOOKALIKES for template in LOOKALIKE_PLACEMENTS] + FALLBACK_NEGATIVES


@pytest.mark.parametrize("text", NEGATIVES, ids=[f"neg-{i}" for i in range(len(NEGATIVES))])
def test_look_alikes_survive(text: str) -> None:
    r = Redactor(KEY)
    assert r.text(text) == text
    assert r.counts == {}


def test_five_megabyte_base64_passes_through() -> None:
    blob = base64.b64encode(random.Random(9).randbytes(3_750_000)).decode()
    assert len(blob) == 5_000_000
    assert Redactor(KEY).text(blob) == blob


# ---- overlaps, labels, determinism ----


def test_provider_beats_generic_on_overlap() -> None:
    r = Redactor(KEY)
    assert r.text(f"OPENAI_API_KEY={OPENAI_PROJ}") == f"OPENAI_API_KEY={label('openai-key', OPENAI_PROJ)}"
    assert r.text(f"Authorization: Bearer {GH_PAT}") == f"Authorization: Bearer {label('github-token', GH_PAT)}"
    assert r.counts == {"openai-key": 1, "github-token": 1}


def test_same_secret_same_label_different_secrets_different_labels() -> None:
    r = Redactor(KEY)
    out = r.text(f"export GITHUB_TOKEN={GH_PAT}\ngit push https://x:{GH_PAT}@github.com/o/r\nGH2={GH_OAUTH}")
    first, second = label("github-token", GH_PAT), label("github-token", GH_OAUTH)
    assert out == f"export GITHUB_TOKEN={first}\ngit push https://x:{first}@github.com/o/r\nGH2={second}"
    assert first != second
    # The same secret in another string, through another Redactor with the same key.
    assert Redactor(KEY).text(f"token {GH_PAT}") == f"token {first}"


def test_fingerprint_depends_on_key() -> None:
    a = Redactor(b"one").text(GH_PAT)
    b = Redactor(b"two").text(GH_PAT)
    assert a == f"[redacted: github-token {fp(GH_PAT, b'one')}]"
    assert b == f"[redacted: github-token {fp(GH_PAT, b'two')}]"
    assert a != b


def test_deterministic_and_idempotent() -> None:
    text = "\n".join(t.format(s) for _, t, s in POSITIVES)
    once = Redactor(KEY).text(text)
    assert once == Redactor(KEY).text(text)
    assert Redactor(KEY).text(once) == once


def test_multiline_string_with_several_kinds() -> None:
    text = f"# .env\nAPI_KEY={TOKEN}\nDEBUG=true\nDATABASE_URL=postgres://app:{PASSWORD}@db/app\n{PEM}\nSTRIPE={STRIPE_LIVE}\n"
    r = Redactor(KEY)
    assert r.text(text) == (
        f"# .env\nAPI_KEY={label('env-secret', TOKEN)}\nDEBUG=true\n"
        f"DATABASE_URL=postgres://app:{label('url-password', PASSWORD)}@db/app\n"
        f"{label('private-key', PEM)}\nSTRIPE={label('stripe-key', STRIPE_LIVE)}\n"
    )
    assert r.counts == {"env-secret": 1, "url-password": 1, "private-key": 1, "stripe-key": 1}


def test_counts_accumulate_by_kind() -> None:
    r = Redactor(KEY)
    r.text(f"{GH_PAT} {GH_OAUTH}")
    r.text(f"API_KEY={TOKEN}")
    r.text("nothing here")
    assert r.counts == {"github-token": 2, "env-secret": 1}


def test_repeated_strings_count_every_time() -> None:
    r = Redactor(KEY)
    short, long = f"API_KEY={TOKEN}", f"API_KEY={TOKEN}\n" + "x" * 500
    outputs = [r.text(short), r.text(short), r.text(long), r.text(long)]
    assert (
        outputs
        == [f"API_KEY={label('env-secret', TOKEN)}"] * 2 + [f"API_KEY={label('env-secret', TOKEN)}\n" + "x" * 500] * 2
    )
    assert r.counts == {"env-secret": 4}


# ---- value(), enabled=False, file_text(), paths ----


def test_value_deep_copies_and_redacts_keys_that_are_secrets() -> None:
    """Key names stay as they are; a secret used as a key (issue #35) becomes its label, in
    its place in the order."""
    record = {
        "type": "tool_result",
        "content": [{"type": "text", "text": f"API_KEY={TOKEN}"}, {"n": 3, "ok": True, "none": None}],
        "input": {"command": f"curl -H 'X-Api-Key: {TOKEN}' x", "nested": [[GH_PAT], ("t", 1.5)]},
        GH_PAT: "a key that is a secret",
        "api_key": {f"mcp__{GH_OAUTH}__query": 1},
        7: "a key that is no str",
    }
    r = Redactor(KEY)
    out = r.value(record)
    assert out == {
        "type": "tool_result",
        "content": [
            {"type": "text", "text": f"API_KEY={label('env-secret', TOKEN)}"},
            {"n": 3, "ok": True, "none": None},
        ],
        "input": {
            "command": f"curl -H 'X-Api-Key: {label('auth-header', TOKEN)}' x",
            "nested": [[label("github-token", GH_PAT)], ["t", 1.5]],
        },
        label("github-token", GH_PAT): "a key that is a secret",
        "api_key": {f"mcp__{label('github-token', GH_OAUTH)}__query": 1},
        7: "a key that is no str",
    }
    assert list(out) == ["type", "content", "input", label("github-token", GH_PAT), "api_key", 7]
    assert record["content"][0]["text"] == f"API_KEY={TOKEN}"  # the input is not modified
    assert GH_PAT in record
    assert out["content"][1] is not record["content"][1]
    assert r.counts == {"env-secret": 1, "auth-header": 1, "github-token": 3}


def test_value_scalars_and_deep_nesting() -> None:
    r = Redactor(KEY)
    assert r.value(42) == 42
    assert r.value(None) is None
    assert r.value(GH_PAT) == label("github-token", GH_PAT)
    deep: list = [GH_PAT]
    for _ in range(5000):
        deep = [deep]
    out = r.value(deep)
    for _ in range(5000):
        out = out[0]
    assert out == [label("github-token", GH_PAT)]


def test_disabled_passes_through() -> None:
    r = Redactor(KEY, enabled=False)
    text = f"API_KEY={TOKEN} {GH_PAT}\n{PEM}"
    assert r.text(text) == text
    assert r.value({"a": [text]}) == {"a": [text]}
    assert r.file_text(".env", "A=b\n") == "A=b\n"
    assert r.counts == {}


def test_disabled_still_replaces_paths() -> None:
    r = Redactor(KEY, enabled=False, home="/home/alice", user="alice")
    assert r.text(f"/home/alice/app API_KEY={TOKEN}") == f"~/app API_KEY={TOKEN}"


def test_file_text_env_redacts_every_value() -> None:
    env = (
        "# settings\n"
        "DEBUG=true\n"
        f"export DB_URL='postgres://app:{PASSWORD}@db/app'\n"
        f"OPENAI_API_KEY={OPENAI_PROJ}\n"
        "EMPTY=\n"
        'GREETING="hello world" # a comment\n'
    )
    r = Redactor(KEY)
    assert r.file_text("/home/bob/app/.env", env) == (
        "# settings\n"
        f"DEBUG={label('sensitive-file', 'true')}\n"
        f"export DB_URL='{label('sensitive-file', f'postgres://app:{PASSWORD}@db/app')}'\n"
        f"OPENAI_API_KEY={label('openai-key', OPENAI_PROJ)}\n"
        "EMPTY=\n"
        f'GREETING="{label("sensitive-file", "hello world")}" # a comment\n'
    )
    assert r.counts == {"sensitive-file": 3, "openai-key": 1}


def test_file_text_with_read_line_numbers() -> None:
    shown = f"     1\u2192PORT=3000\n     2\u2192SESSION_SECRET={TOKEN}\n"
    r = Redactor(KEY)
    assert r.file_text(".env.local", shown) == (
        f"     1\u2192PORT={label('sensitive-file', '3000')}\n"
        f"     2\u2192SESSION_SECRET={label('sensitive-file', TOKEN)}\n"
    )


def test_file_text_yaml_json_netrc_and_key_files() -> None:
    r = Redactor(KEY)
    creds = '{\n  "type": "service_account",\n  "nested": {\n    "n": 1\n  }\n}'
    assert r.file_text("gcp/credentials.json", creds) == (
        "{\n"
        f'  "type": "{label("sensitive-file", "service_account")}",\n'
        '  "nested": {\n'
        f'    "n": {label("sensitive-file", "1")}\n'
        "  }\n}"
    )
    netrc = f"machine api.github.com login bob password {GH_PAT}\n"
    assert r.file_text("/home/bob/.netrc", netrc) == (
        f"machine api.github.com login {label('sensitive-file', 'bob')} password {label('github-token', GH_PAT)}\n"
    )
    assert r.file_text("/home/bob/.ssh/id_rsa", PEM) == label("sensitive-file", PEM)
    assert r.file_text("certs/server.key", "anything") == label("sensitive-file", "anything")
    npmrc = f"//registry.npmjs.org/:_authToken={NPM}\nregistry=https://registry.npmjs.org/\n"
    assert r.file_text("/x/.npmrc", npmrc) == (
        f"//registry.npmjs.org/:_authToken={label('npm-token', NPM)}\n"
        f"registry={label('sensitive-file', 'https://registry.npmjs.org/')}\n"
    )


def test_file_text_is_idempotent_and_plain_files_use_text() -> None:
    r = Redactor(KEY)
    once = r.file_text(".env", f"A=1\nB={TOKEN}\n")
    assert r.file_text(".env", once) == once
    assert r.file_text("src/app.py", "A=1\nPASSWORD_MIN_LENGTH=8\n") == "A=1\nPASSWORD_MIN_LENGTH=8\n"
    assert r.file_text("src/app.py", f"API_KEY={TOKEN}") == f"API_KEY={label('env-secret', TOKEN)}"
    assert r.file_text(".env", "") == ""


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (".env", True),
        ("/app/.env.production", True),
        ("/app/.envrc", True),
        ("config/prod.env", True),
        ("/home/bob/.ssh/id_rsa", True),
        ("/home/bob/.ssh/id_ed25519.pub", True),
        ("C:\\Users\\bob\\.ssh\\id_ecdsa", True),
        ("certs/server.pem", True),
        ("certs/server.key", True),
        ("/home/bob/.npmrc", True),
        ("/home/bob/.pypirc", True),
        ("/home/bob/.netrc", True),
        ("/home/bob/.git-credentials", True),
        ("/home/bob/.aws/credentials", True),
        ("/home/bob/.docker/config.json", True),
        ("/home/bob/.claude/.credentials.json", True),
        ("/home/bob/.codex/auth.json", True),
        ("credentials.json", True),
        ("client_secret_123.apps.googleusercontent.com.json", True),
        ("secrets.yaml", True),
        ("", False),
        ("src/environment.py", False),
        ("src/env.py", False),
        ("README.md", False),
        ("keys.py", False),
        ("/home/bob/.ssh/known_hosts", False),
        ("docs/credentials.md", False),
        ("package.json", False),
    ],
)
def test_is_sensitive_path(path: str, expected: bool) -> None:
    assert is_sensitive_path(path) is expected


def test_home_and_user_replacement() -> None:
    r = Redactor(KEY, home="/home/alice", user="alice")
    assert r.text("cd /home/alice/app && ls /home/alice") == "cd ~/app && ls ~"
    assert r.text("/home/alicex/app /home/alice2") == "/home/alicex/app /home/alice2"
    # The user name is replaced wherever it is a whole word, so a sibling directory changes too.
    assert r.text("/home/alice-old/x") == "/home/~-old/x"
    assert r.text("~/.claude/projects/-home-alice-app/x.jsonl") == "~/.claude/projects/-home-~-app/x.jsonl"
    assert r.text("alice@laptop: whoami -> alice; alice_bot stays; malice stays") == (
        "~@laptop: whoami -> ~; alice_bot stays; malice stays"
    )
    # Labels are never rewritten, and the fingerprint is of the original secret.
    assert r.text(f"/home/alice/.env API_KEY={TOKEN}") == f"~/.env API_KEY={label('env-secret', TOKEN)}"


def test_home_with_trailing_slash_and_short_user() -> None:
    r = Redactor(KEY, home="/Users/bob/", user="b")
    assert r.text("/Users/bob/src b a") == "~/src b a"


# ---- properties ----


_PIECES = list("aAkKsS_-=:/.\"' \n$xyzTOKEN0123456789") + [
    "sk-",
    "API_KEY=",
    "token",
    "://",
    "@",
    "Bearer ",
    "password",
]


_LABEL = re.compile(r"\[redacted: ([a-z0-9-]+) ([0-9a-f]{8})\]")


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_PIECES), max_size=60).map("".join))
def test_redaction_only_replaces_spans_and_is_deterministic(s: str) -> None:
    r = Redactor(KEY)
    once = r.text(s)
    assert Redactor(KEY).text(s) == once
    # The text between labels comes from the input, in order; each label names a known kind.
    pos = 0
    for segment in _LABEL.split(once)[::3]:
        found = s.find(segment, pos)
        assert found >= pos
        pos = found + len(segment)
    kinds = [m.group(1) for m in _LABEL.finditer(once)]
    assert sorted(kinds) == sorted(r.counts.elements())
    assert set(kinds) <= {rule.kind for rule in RULES}


# ---- the fast path: gate characters and keyword lookups miss nothing ----

_cases_rng = random.Random(20261130)  # its own generator: the fakes above keep their values


def _fake(alphabet: str, n: int) -> str:
    return "".join(_cases_rng.choice(alphabet) for _ in range(n))


_SECRET = _fake(ALNUM, 24) + "9"  # ends in a digit: never a type name (api_key: SecretStr)

# A case for each keyword of each rule that POSITIVES do not reach alone (the only keyword of
# its rule in the text), so each keyword lookup is exercised by itself.
KEYWORD_CASES: list[tuple[str, str, str]] = [
    ("aws-access-key", "id {} here", "ABIA" + _fake(B32, 16)),
    ("aws-access-key", "id {} here", "ACCA" + _fake(B32, 16)),
    ("aws-access-key", "id {} here", "A3TX" + _fake(B32, 16)),
    ("slack-token", "app level {} here", "xapp-1-" + _fake(ALNUM, 30)),
    ("stripe-key", "prod {} here", "sk_prod_" + _fake(ALNUM, 24)),
    ("supabase-token", "new {} here", "sb_secret_" + _fake(B64URL, 40)),
    (
        "azure-storage-key",
        "Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey={}",
        _fake(B64, 43) + "=",
    ),
    ("url-password", "GET /cb?db_pwd={}&x=1", _SECRET),
    ("url-password", "GET /cb?x_auth={}&x=1", _SECRET),
    ("url-password", "GET /cb?sig={}&x=1", _SECRET),
    ("url-password", 'curl -d "client_secret={}&a=b" https://x', _SECRET),
    ("url-password", 'curl -d "access_token={}&a=b" https://x', _SECRET),
    ("url-password", 'curl -d "db_pwd={}&a=b" https://x', _SECRET),
    ("url-password", 'curl -d "api_key={}&a=b" https://x', _SECRET),
    ("url-password", 'curl -d "x_auth={}&a=b" https://x', _SECRET),
    ("url-password", 'curl -d "credential={}&a=b" https://x', _SECRET),
    ("auth-header", "X-Client-Secret: {}", _SECRET),
    ("connection-string", "Driver={{ODBC Driver 18}};Server=db;Uid=sa;Pwd={};", _SECRET),
    ("password-assignment", 'db_pwd = "{}"', _SECRET),
    ("password-assignment", 'x_auth = "{}"', _SECRET),
    ("password-assignment", 'credential = "{}"', _SECRET),
    ("password-assignment", "db:\n  secret: {}\n  host: h", _SECRET),
    ("password-assignment", "db:\n  db_pwd: {}\n  host: h", _SECRET),
    ("password-assignment", "db:\n  credential: {}\n  host: h", _SECRET),
    ("password-assignment", "mariadb -u root -p{} app", _SECRET),
    ("password-assignment", "mytool --client-secret {}", _SECRET),
    ("password-assignment", "mytool --db-pwd {}", _SECRET),
    ("password-assignment", "mytool --basic-auth {}", _SECRET),
    ("password-assignment", "mytool --credential {}", _SECRET),
]
ALL_CASES = POSITIVES + KEYWORD_CASES
_CASE_TEXTS = [t.format(s) for _, t, s in ALL_CASES] + [PEM]


def _holds(rule: Rule, keyword: str, text: str) -> bool:
    return keyword in (text if rule.case_sensitive else text.lower())


def test_every_keyword_of_every_rule_has_a_case() -> None:
    """Each keyword, the only one of its rule in some case text that the rule's regex matches."""
    for rule in RULES:
        for kw in rule.keywords:
            alone = [
                t
                for t in _CASE_TEXTS
                if _holds(rule, kw, t) and not any(_holds(rule, k, t) for k in rule.keywords if k != kw)
            ]
            assert any(rule.regex.search(t) for t in alone), (rule.kind, kw)


@pytest.mark.parametrize(("kind", "template", "secret"), KEYWORD_CASES, ids=[k for k, _, _ in KEYWORD_CASES])
def test_each_keyword_case_is_redacted(kind: str, template: str, secret: str) -> None:
    r = Redactor(KEY)
    assert r.text(template.format(secret)) == template.format(label(kind, secret))
    assert dict(r.counts) == {kind: 1}


@pytest.mark.parametrize("filler", [PROSE, CODE], ids=["prose", "code"])
@pytest.mark.parametrize(
    ("kind", "template", "secret"), ALL_CASES, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(ALL_CASES)]
)
def test_each_case_deep_inside_long_text(kind: str, template: str, secret: str, filler: str) -> None:
    """A secret alone in about 20 KB of text on either side: the gates and keywords are the case's own."""
    r = Redactor(KEY)
    text = f"{filler}\n{template.format(secret)}\n{filler}"
    assert r.text(text) == f"{filler}\n{template.format(label(kind, secret))}\n{filler}"
    assert dict(r.counts) == {kind: 1}


@pytest.mark.parametrize("filler", [PROSE, CODE, PROSE.upper(), CODE + PROSE], ids=["prose", "code", "upper", "both"])
def test_long_text_without_secrets_is_unchanged(filler: str) -> None:
    r = Redactor(KEY)
    assert r.text(filler) == filler
    assert r.counts == {}


@pytest.mark.parametrize("rule", RULES, ids=[f"{i}-{r.kind}" for i, r in enumerate(RULES)])
def test_rule_cannot_match_without_the_characters_it_needs(rule: Rule) -> None:
    """Rule.needs is what lets a string skip the rule, so no match may lack all of those characters."""
    matched = [t for t in _CASE_TEXTS + NEGATIVES + FILLER if rule.regex.search(t)]
    assert matched, "no case for this rule"
    assert rule.needs, "a rule names the characters it needs"
    strip = {ord(c): " " for c in rule.needs}
    for text in matched:
        assert rule.regex.search(text.translate(strip)) is None, text


_FAST_PIECES = sorted({k for rule in RULES for k in rule.keywords} | {c for rule in RULES for c in rule.needs})


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    st.lists(st.sampled_from(_PIECES + _FAST_PIECES + _CASE_TEXTS), max_size=40).map("".join),
    st.sampled_from(["", PROSE[:300], CODE[:3000]]),
)
def test_gates_change_no_output(s: str, pad: str) -> None:
    """The same output and counts as with every rule's gate open, short strings and long."""
    text = s + pad
    fast = Redactor(KEY)
    out = fast.text(text)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(redact, "_live_rules", lambda _s: (1 << len(RULES)) - 1)
        mp.setattr(redact, "_FOUND", {})  # what this process found in long strings, with the gates
        slow = Redactor(KEY)
        assert slow.text(text) == out
    assert slow.counts == fast.counts
