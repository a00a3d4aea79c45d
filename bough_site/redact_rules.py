"""The token shapes bough knows by their look alone (docs/redaction.md).

People paste keys into prompts as prose ("the deploy fails, I'm using shpat_…
from the dashboard") and agents echo them back. There the only clue is the
token's own shape, so this table lists the shapes providers publish: a literal
prefix (``shpat_``, ``dckr_pat_``, ``hvs.``) or a fixed signature inside the
key (Azure's identifiable keys), then the alphabet and length of each part.

Each :class:`Shape` is written once, as a list of parts, and both its regular
expression and the random samples the tests plant are made from that list, so
the two cannot drift apart. ``source`` says where the facts come from:

- ``gitleaks:<rule id>``: the rule of that id in gitleaks' default
  configuration (MIT), read as a reference;
- ``trufflehog:<detector>``: that TruffleHog detector (``pkg/detectors/``);
- ``microsoft:<name>``: Microsoft's published identifiable-key formats
  (the security-utilities patterns);
- ``docs:<what>``: the provider's own documentation or changelog.

The patterns are our own; none is copied. Shapes marked ``legacy`` are found by
the older provider rules of ``redact_table.RULES`` (kept as they were, with their
tests); they are listed here so that every shape bough knows has a source, a
family and the same three-placement test.

How they are matched (``redact.Redactor``, ``redact_shapes``): a string is first cut into runs of
token characters 20 or more long (one ``bytes.translate`` and a few ``find``s,
in C); only those runs, joined into one text, are searched, by one trie of every
prefix and one alternation of every signature, and a hit is confirmed by its
shape's own pattern. So a part is a literal or a class of token characters
(``redact_search._RUN_CHARS``: letters, digits and ``_-.+/=:~$!@%``), never a space or
a quote: tests/test_redact_found.py checks every pattern for it. Every quantifier
is bounded and none is nested, so each pattern is linear in its input.
"""

from __future__ import annotations

import random
import functools
import re
from dataclasses import dataclass

__all__ = ["CONTEXT_SHAPES", "FAMILIES", "SHAPES", "ContextShape", "Shape", "sample"]

# Character classes, written as regex class bodies ("-" always last).
HEX = "0-9a-f"
HEXU = "0-9A-F"
HEXA = "0-9a-fA-F"
DIG = "0-9"
ALNUM = "A-Za-z0-9"
LOWNUM = "a-z0-9"
UPNUM = "A-Z0-9"
ALPHA = "A-Za-z"
B64 = "A-Za-z0-9+/"
B64URL = "A-Za-z0-9_-"
WORD = "A-Za-z0-9_"

Part = str | tuple[str, int, int]  # a literal, or (class, least, most)

FAMILIES = {
    "ai": "AI APIs",
    "cloud": "cloud and hosting",
    "source": "source hosting",
    "ci": "CI/CD and developer tools",
    "registry": "package and container registries",
    "payments": "payments and commerce",
    "messaging": "messaging and email",
    "observability": "observability and product analytics",
    "database": "databases",
    "secrets": "secret managers and encryption",
    "iac": "infrastructure as code",
    "saas": "productivity and other SaaS APIs",
}


def c(cls: str, least: int, most: int | None = None) -> tuple[str, int, int]:
    """``least`` to ``most`` characters of the class ``cls`` (exactly ``least`` if no most)."""
    return (cls, least, least if most is None else most)


def uuid_parts(case: str = HEX) -> list[Part]:
    return [c(case, 8), "-", c(case, 4), "-", c(case, 4), "-", c(case, 4), "-", c(case, 12)]


@dataclass(frozen=True)
class Shape:
    """One token format: ``parts`` in order; the first is its literal prefix unless ``anchor`` is set.

    ``anchor``: for a shape with no literal prefix, a literal every match holds
    (Azure's ``AzFu``, Terraform's ``.atlasv1.``); only runs holding it are
    searched with this shape's pattern. ``keeps_prefix``: the redaction starts after the
    literal first part (a webhook URL keeps its host). ``lookalike``: text that must survive
    (default: the prefix and the first 6 characters of a sample's body, as
    documentation and truncated logs show a key).
    """

    kind: str
    family: str
    provider: str
    parts: tuple[Part, ...]
    source: str
    anchor: str | None = None
    legacy: bool = False
    keeps_prefix: bool = False
    lookalike: str | None = None

    @functools.cached_property
    def regex(self) -> re.Pattern[str]:
        """Compiled when first used: a build that redacts nothing (nothing changed)
        need not compile two hundred patterns."""
        return re.compile(self.pattern())

    @property
    def prefix(self) -> str:
        first = self.parts[0]
        return first if isinstance(first, str) and self.anchor is None else ""

    @property
    def longest(self) -> int:
        """The length of the longest text this shape matches."""
        return sum(len(p) if isinstance(p, str) else p[2] for p in self.parts)

    def pattern(self) -> str:
        """Not preceded by a letter or digit; the left check comes after the first character,
        so the engine can skip ahead to that character instead of trying every position."""
        first, rest = self.parts[0], self.parts[1:]
        if isinstance(first, str):
            head = re.escape(first[0]) + "(?<![A-Za-z0-9].)" + re.escape(first[1:])
        else:
            cls, least, most = first
            head = f"[{cls}](?<![A-Za-z0-9].)" + (_quant((cls, least - 1, most - 1)) if most > 1 else "")
        body = head + "".join(re.escape(p) if isinstance(p, str) else _quant(p) for p in rest)
        last = self.parts[-1]
        # Not followed by more of its last part, so a fixed-length body is not the head of a
        # longer word; "." (it ends sentences) and "_" (it joins words: backup_<key>_old.txt,
        # mcp__<key>__query) excepted (docs/redaction.md, "Word joins").
        extra = "" if isinstance(last, str) else _extra_chars(last[0]).replace(".", "").replace("_", "")
        return f"(?:{body})(?![A-Za-z0-9{extra}])"

    @property
    def vendor(self) -> str:
        """The vendor's part of the literal prefix (``sntrys_`` of ``sntrys_eyJpYXQiO``), for
        the loose check of redact_shapes.py: the prefix up to its last ``_``, ``-`` or ``.``; empty
        when that is shorter than 4 characters (``sk_``, ``hf_``: too common to tell a key
        by), an ordinary word (``key-``, ``api-``) or part of a URL or a ``$`` layout."""
        prefix = self.prefix
        cut = max(prefix.rfind("_"), prefix.rfind("-"), prefix.rfind("."))
        vendor = prefix[: cut + 1]
        if len(vendor) < 4 or vendor in _WORD_PREFIXES or any(ch in prefix for ch in "/:$"):
            return ""
        return vendor


# Literal prefixes that are ordinary words: a word and a random run is not that vendor's key.
_WORD_PREFIXES = frozenset({"key-", "api-", "API-", "sdk-", "pat.", "sat.", "secret_", "pubkey-"})


def _quant(part: tuple[str, int, int]) -> str:
    cls, least, most = part
    n = f"{{{least}}}" if least == most else f"{{{least},{most}}}"
    return f"[{cls}]{n}"


def _extra_chars(cls: str) -> str:
    """The characters of a class beyond letters and digits (kept in class syntax: "-" last)."""
    out = "".join(ch for ch in _expand(cls) if not ch.isalnum())
    return out.replace("-", "") + ("-" if "-" in out else "")


def _expand(cls: str) -> str:
    """Every character of a class body such as ``A-Za-z0-9_-``."""
    out, i = [], 0
    while i < len(cls):
        if i + 2 < len(cls) and cls[i + 1] == "-":
            out.extend(chr(x) for x in range(ord(cls[i]), ord(cls[i + 2]) + 1))
            i += 3
        else:
            out.append(cls[i])
            i += 1
    return "".join(out)


def sample(shape: Shape | ContextShape, rng: random.Random) -> str:
    """A random value of this shape (never a real key: random characters in its format)."""
    out = []
    for part in shape.parts:
        if isinstance(part, str):
            out.append(part)
        else:
            cls, least, most = part
            chars = _expand(cls)
            n = rng.randint(least, min(most, least + 24))
            out.append("".join(rng.choice(chars) for _ in range(n)))
    return "".join(out)


def lookalike(shape: Shape, value: str) -> str:
    """Text this shape must not take: its prefix and a short body (or the shape's own look-alike)."""
    if shape.lookalike is not None:
        return shape.lookalike
    prefix = shape.prefix
    return prefix + value[len(prefix) : len(prefix) + 6]


def _s(kind: str, family: str, provider: str, parts: list[Part], source: str, **kw: object) -> Shape:
    return Shape(kind, family, provider, tuple(parts), source, **kw)  # type: ignore[arg-type]


# Azure's identifiable keys: random base64 with a fixed 4-character signature and a checksum tail.
def _azure64(signature: str, provider: str) -> Shape:
    # 64-byte keys: 88 characters, the signature at 76.
    return _s("azure-key", "cloud", provider, [c(B64, 76), signature, c(B64, 5), c("AQgw", 1), "=="],
              "microsoft:identifiable keys (64-byte)", anchor=signature,
              lookalike="Zm9v" * 21 + "YmE=")


def _azure32(signature: str, provider: str) -> Shape:
    # 32-byte keys: 44 characters, the signature at 33.
    return _s("azure-key", "cloud", provider, [c(B64, 33), signature, c("A-P", 1), c(B64, 5), "="],
              "microsoft:identifiable keys (32-byte)", anchor=signature,
              lookalike="Zm9v" * 10 + "YmE=")


SHAPES: tuple[Shape, ...] = (
    # ---- already found by redact_table.RULES (kept as they were) ----
    _s("aws-access-key", "cloud", "AWS access key id", ["AKIA", c("A-Z2-7", 16)], "docs:AWS IAM identifiers", legacy=True),
    _s("aws-access-key", "cloud", "AWS temporary (STS) key id", ["ASIA", c("A-Z2-7", 16)], "docs:AWS IAM identifiers", legacy=True),
    _s("aws-access-key", "cloud", "AWS key id (ABIA)", ["ABIA", c("A-Z2-7", 16)], "gitleaks:aws-access-token", legacy=True),
    _s("aws-access-key", "cloud", "AWS key id (ACCA)", ["ACCA", c("A-Z2-7", 16)], "gitleaks:aws-access-token", legacy=True),
    _s("github-token", "source", "GitHub personal access token (classic)", ["ghp_", c(ALNUM, 36)], "docs:GitHub token formats", legacy=True),
    _s("github-token", "source", "GitHub OAuth token", ["gho_", c(ALNUM, 36)], "docs:GitHub token formats", legacy=True),
    _s("github-token", "source", "GitHub user-to-server token", ["ghu_", c(ALNUM, 36)], "docs:GitHub token formats", legacy=True),
    _s("github-token", "source", "GitHub server-to-server token", ["ghs_", c(ALNUM, 36)], "docs:GitHub token formats", legacy=True),
    _s("github-token", "source", "GitHub refresh token", ["ghr_", c(ALNUM, 36)], "docs:GitHub token formats", legacy=True),
    _s("github-token", "source", "GitHub fine-grained token", ["github_pat_", c(ALNUM, 22), "_", c(ALNUM, 59)], "gitleaks:github-fine-grained-pat", legacy=True),
    _s("gitlab-token", "source", "GitLab personal access token", ["glpat-", c(B64URL, 20)], "gitleaks:gitlab-pat", legacy=True),
    _s("gitlab-token", "source", "GitLab deploy token", ["gldt-", c(B64URL, 20)], "gitleaks:gitlab-deploy-token", legacy=True),
    _s("gitlab-token", "source", "GitLab runner token", ["glrt-", c(B64URL, 20)], "gitleaks:gitlab-runner-authentication-token", legacy=True),
    _s("gitlab-token", "source", "GitLab pipeline trigger token", ["glptt-", c(HEX, 40)], "gitleaks:gitlab-ptt", legacy=True),
    _s("gitlab-token", "source", "GitLab CI job token", ["glcbt-", c(ALNUM, 2), "_", c(B64URL, 20)], "gitleaks:gitlab-cicd-job-token", legacy=True),
    _s("gitlab-token", "source", "GitLab OAuth application secret", ["gloas-", c(B64URL, 64)], "gitleaks:gitlab-oauth-app-secret", legacy=True),
    _s("slack-token", "messaging", "Slack bot token", ["xoxb-", c(DIG, 12), "-", c(DIG, 13), "-", c(ALNUM, 24)], "gitleaks:slack-bot-token", legacy=True),
    _s("slack-token", "messaging", "Slack user token", ["xoxp-", c(DIG, 12), "-", c(DIG, 12), "-", c(DIG, 13), "-", c(HEX, 32)], "gitleaks:slack-user-token", legacy=True),
    _s("slack-token", "messaging", "Slack workspace token", ["xoxa-2-", c(ALNUM, 40)], "gitleaks:slack-legacy-workspace-token", legacy=True),
    _s("slack-token", "messaging", "Slack refresh token", ["xoxr-", c(ALNUM, 40)], "gitleaks:slack-legacy-workspace-token", legacy=True),
    _s("slack-token", "messaging", "Slack configuration token", ["xoxe-1-", c(UPNUM, 146)], "gitleaks:slack-config-refresh-token", legacy=True),
    _s("slack-token", "messaging", "Slack app-level token", ["xapp-1-", c(UPNUM, 11), "-", c(DIG, 13), "-", c(HEX, 64)], "gitleaks:slack-app-token", legacy=True),
    _s("slack-webhook", "messaging", "Slack incoming webhook", ["https://hooks.slack.com/services/", "T", c(UPNUM, 10), "/B", c(UPNUM, 10), "/", c(ALNUM, 24)], "gitleaks:slack-webhook-url", legacy=True, keeps_prefix=True, lookalike="https://hooks.slack.com/services/"),
    _s("stripe-key", "payments", "Stripe live secret key", ["sk_live_", c(ALNUM, 24, 99)], "gitleaks:stripe-access-token", legacy=True),
    _s("stripe-key", "payments", "Stripe test secret key", ["sk_test_", c(ALNUM, 24, 99)], "gitleaks:stripe-access-token", legacy=True),
    _s("stripe-key", "payments", "Stripe live restricted key", ["rk_live_", c(ALNUM, 24, 99)], "gitleaks:stripe-access-token", legacy=True),
    _s("stripe-key", "payments", "Stripe test restricted key", ["rk_test_", c(ALNUM, 24, 99)], "gitleaks:stripe-access-token", legacy=True),
    _s("stripe-key", "payments", "Stripe webhook signing secret", ["whsec_", c(ALNUM, 32)], "docs:Stripe webhook signatures", legacy=True),
    _s("anthropic-key", "ai", "Anthropic API key", ["sk-ant-api03-", c(B64URL, 93), "AA"], "gitleaks:anthropic-api-key", legacy=True),
    _s("anthropic-key", "ai", "Anthropic admin key", ["sk-ant-admin01-", c(B64URL, 93), "AA"], "gitleaks:anthropic-admin-api-key", legacy=True),
    _s("anthropic-key", "ai", "Claude Code OAuth token", ["sk-ant-oat01-", c(B64URL, 95)], "gitleaks:claude-code-oauth-token", legacy=True),
    _s("openrouter-key", "ai", "OpenRouter API key", ["sk-or-v1-", c(HEX, 64)], "trufflehog:openrouter", legacy=True),
    _s("openai-key", "ai", "OpenAI project key", ["sk-proj-", c(B64URL, 74), "T3BlbkFJ", c(B64URL, 74)], "gitleaks:openai-api-key", legacy=True),
    _s("openai-key", "ai", "OpenAI service-account key", ["sk-svcacct-", c(B64URL, 58), "T3BlbkFJ", c(B64URL, 58)], "gitleaks:openai-api-key", legacy=True),
    _s("openai-key", "ai", "OpenAI admin key", ["sk-admin-", c(B64URL, 58), "T3BlbkFJ", c(B64URL, 58)], "gitleaks:openai-api-key", legacy=True),
    _s("openai-key", "ai", "OpenAI user key (2023)", ["sk-", c(ALNUM, 20), "T3BlbkFJ", c(ALNUM, 20)], "gitleaks:openai-api-key", legacy=True),
    _s("openai-key", "ai", "DeepSeek API key", ["sk-", c(HEX, 32)], "docs:DeepSeek API keys (sk- and 32 hex)", legacy=True),
    _s("google-api-key", "cloud", "Google API key (Maps, Gemini, Firebase web)", ["AIza", c(B64URL, 35)], "gitleaks:gcp-api-key", legacy=True),
    _s("google-oauth-secret", "cloud", "Google OAuth client secret", ["GOCSPX-", c(B64URL, 28)], "docs:Google OAuth client secrets", legacy=True),
    _s("google-oauth-secret", "cloud", "Google OAuth access token", ["ya29.", c(B64URL, 150, 200)], "docs:Google OAuth 2.0 access tokens", legacy=True),
    _s("npm-token", "registry", "npm access token", ["npm_", c(ALNUM, 36)], "gitleaks:npm-access-token", legacy=True),
    _s("pypi-token", "registry", "PyPI API token", ["pypi-AgEIcHlwaS5vcmc", c(B64URL, 70, 200)], "gitleaks:pypi-upload-token", legacy=True),
    _s("huggingface-token", "ai", "Hugging Face access token", ["hf_", c(ALPHA, 34)], "gitleaks:huggingface-access-token", legacy=True),
    _s("sendgrid-key", "messaging", "SendGrid API key", ["SG.", c(B64URL, 22), ".", c(B64URL, 43)], "gitleaks:sendgrid-api-token", legacy=True),
    _s("twilio-key", "messaging", "Twilio API key SID", ["SK", c(HEX, 32)], "gitleaks:twilio-api-key", legacy=True),
    _s("digitalocean-token", "cloud", "DigitalOcean personal token", ["dop_v1_", c(HEX, 64)], "gitleaks:digitalocean-pat", legacy=True),
    _s("digitalocean-token", "cloud", "DigitalOcean OAuth token", ["doo_v1_", c(HEX, 64)], "gitleaks:digitalocean-access-token", legacy=True),
    _s("digitalocean-token", "cloud", "DigitalOcean refresh token", ["dor_v1_", c(HEX, 64)], "gitleaks:digitalocean-refresh-token", legacy=True),
    _s("supabase-token", "database", "Supabase personal token", ["sbp_", c(HEX, 40)], "docs:Supabase CLI access tokens", legacy=True),
    _s("supabase-token", "database", "Supabase secret API key", ["sb_secret_", c(B64URL, 32)], "docs:Supabase API keys", legacy=True),
    _s("telegram-bot-token", "messaging", "Telegram bot token", [c("1-9", 1), c(DIG, 9), ":AA", c(B64URL, 33)], "gitleaks:telegram-bot-api-token", legacy=True, anchor=":AA", lookalike="1234567890:AAshort"),
    # ---- AI APIs ----
    _s("groq-key", "ai", "Groq API key", ["gsk_", c(ALNUM, 48)], "gitleaks:groq-api-key"),
    _s("xai-key", "ai", "xAI API key", ["xai-", c(ALNUM, 80)], "trufflehog:xai"),
    _s("perplexity-key", "ai", "Perplexity API key", ["pplx-", c(ALNUM, 48)], "gitleaks:perplexity-api-key"),
    _s("replicate-token", "ai", "Replicate API token", ["r8_", c(B64URL, 37)], "trufflehog:replicate"),
    _s("huggingface-token", "ai", "Hugging Face organization token", ["api_org_", c(ALPHA, 34)], "gitleaks:huggingface-organization-api-token"),
    _s("langsmith-key", "ai", "LangSmith personal access token", ["lsv2_pt_", c(LOWNUM, 32), "_", c(LOWNUM, 10)], "gitleaks:langsmith-api-key"),
    _s("langsmith-key", "ai", "LangSmith service key", ["lsv2_sk_", c(LOWNUM, 32), "_", c(LOWNUM, 10)], "gitleaks:langsmith-api-key"),
    _s("pinecone-key", "ai", "Pinecone API key", ["pcsk_", c(ALNUM, 5, 6), "_", c(ALNUM, 63)], "trufflehog:pinecone"),
    _s("wandb-key", "ai", "Weights & Biases API key (v1)", ["wandb_v1_", c(ALNUM, 27), "_", c(ALNUM, 49)], "trufflehog:wandb"),
    _s("elevenlabs-key", "ai", "ElevenLabs API key", ["sk_", c(HEX, 48)], "trufflehog:elevenlabs"),
    _s("firecrawl-key", "ai", "Firecrawl API key", ["fc-", c(HEX, 32)], "trufflehog:firecrawl"),
    _s("tavily-key", "ai", "Tavily API key", ["tvly-", c(ALNUM, 32)], "trufflehog:tavily"),
    _s("langfuse-key", "ai", "Langfuse secret key", ["sk-lf-", *uuid_parts()], "docs:Langfuse API keys (sk-lf- and a UUID)"),
    _s("nvidia-key", "ai", "NVIDIA API catalog key", ["nvapi-", c(B64URL, 64)], "docs:NVIDIA API catalog keys (nvapi-)"),
    _s("aws-bedrock-key", "ai", "Amazon Bedrock long-term API key", ["ABSK", c(B64, 109, 269)], "gitleaks:aws-amazon-bedrock-api-key-long-lived"),
    _s("aws-bedrock-key", "ai", "Amazon Bedrock short-term API key", ["bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t", c(B64, 40, 2000)], "gitleaks:aws-amazon-bedrock-api-key-short-lived"),
    # ---- cloud and hosting ----
    _s("alibaba-key", "cloud", "Alibaba Cloud AccessKey ID", ["LTAI", c(ALNUM, 20)], "gitleaks:alibaba-access-key-id"),
    _s("tencent-key", "cloud", "Tencent Cloud SecretId", ["AKID", c(ALNUM, 32)], "trufflehog:tencentcloud"),
    _s("scaleway-key", "cloud", "Scaleway access key", ["SCW", c(UPNUM, 17)], "docs:Scaleway API keys (SCW and 17 characters)"),
    _s("heroku-key", "cloud", "Heroku API key (2024 format)", ["HRKU-AA", c(B64URL, 58)], "gitleaks:heroku-api-key-v2"),
    _s("vercel-token", "cloud", "Vercel personal access token", ["vcp_", c(ALNUM, 24, 60)], "docs:Vercel changelog, new token formats"),
    _s("vercel-token", "cloud", "Vercel integration token", ["vci_", c(ALNUM, 24, 60)], "docs:Vercel changelog, new token formats"),
    _s("vercel-token", "cloud", "Vercel app access token", ["vca_", c(ALNUM, 24, 60)], "docs:Vercel changelog, new token formats"),
    _s("vercel-token", "cloud", "Vercel app refresh token", ["vcr_", c(ALNUM, 24, 60)], "docs:Vercel changelog, new token formats"),
    _s("vercel-token", "cloud", "Vercel API key", ["vck_", c(ALNUM, 24, 60)], "docs:Vercel changelog, new token formats"),
    _s("netlify-token", "cloud", "Netlify personal access token", ["nfp_", c(WORD, 36)], "trufflehog:netlify (v2)"),
    _s("render-key", "cloud", "Render API key", ["rnd_", c(ALNUM, 32)], "docs:Render API keys (rnd_)"),
    _s("flyio-token", "cloud", "Fly.io access token", ["fo1_", c(B64URL, 43)], "gitleaks:flyio-access-token"),
    _s("flyio-token", "cloud", "Fly.io macaroon (fm1r)", ["fm1r_", c(B64, 100, 4000)], "gitleaks:flyio-access-token"),
    _s("flyio-token", "cloud", "Fly.io macaroon (fm1a)", ["fm1a_", c(B64, 100, 4000)], "gitleaks:flyio-access-token"),
    _s("flyio-token", "cloud", "Fly.io macaroon (fm2)", ["fm2_", c(B64, 100, 4000)], "gitleaks:flyio-access-token"),
    _s("tailscale-key", "cloud", "Tailscale auth key", ["tskey-auth-", c(ALNUM, 10, 24), "-", c(ALNUM, 16, 64)], "docs:Tailscale key prefixes (tskey-auth-)"),
    _s("tailscale-key", "cloud", "Tailscale API access token", ["tskey-api-", c(ALNUM, 10, 24), "-", c(ALNUM, 16, 64)], "docs:Tailscale key prefixes (tskey-api-)"),
    _s("tailscale-key", "cloud", "Tailscale OAuth client secret", ["tskey-client-", c(ALNUM, 10, 24), "-", c(ALNUM, 16, 64)], "docs:Tailscale key prefixes (tskey-client-)"),
    _s("tailscale-key", "cloud", "Tailscale SCIM token", ["tskey-scim-", c(ALNUM, 10, 24), "-", c(ALNUM, 16, 64)], "docs:Tailscale key prefixes (tskey-scim-)"),
    _s("tailscale-key", "cloud", "Tailscale webhook secret", ["tskey-webhook-", c(ALNUM, 10, 24), "-", c(ALNUM, 16, 64)], "docs:Tailscale key prefixes (tskey-webhook-)"),
    _s("cloudflare-key", "cloud", "Cloudflare global API key (cfk_)", ["cfk_", c(ALNUM, 40), c(HEX, 8)], "trufflehog:cloudflareglobalapikey"),
    _s("cloudflare-key", "cloud", "Cloudflare user API token (cfut_)", ["cfut_", c(ALNUM, 40, 60)], "docs:Cloudflare API token prefixes"),
    _s("cloudflare-key", "cloud", "Cloudflare account API token (cfat_)", ["cfat_", c(ALNUM, 40, 60)], "docs:Cloudflare API token prefixes"),
    _s("cloudflare-key", "cloud", "Cloudflare Origin CA key", ["v1.0-", c(HEX, 24), "-", c(HEX, 146)], "gitleaks:cloudflare-origin-ca-key"),
    _s("supabase-token", "database", "Supabase OAuth access token", ["sbp_oauth_", c(HEX, 40)], "docs:Supabase CLI access tokens"),
    _s("supabase-token", "database", "Supabase access token (v0)", ["sbp_v0_", c(HEX, 40)], "docs:Supabase CLI access tokens"),
    _s("neon-key", "database", "Neon API key", ["napi_", c(LOWNUM, 64)], "docs:Neon API keys (napi_)"),
    _s("openshift-token", "cloud", "OpenShift user token", ["sha256~", c(B64URL, 43)], "gitleaks:openshift-user-token"),
    _s("google-oauth-secret", "cloud", "Google OAuth refresh token", ["1//0", c(B64URL, 60, 200)], "docs:Google OAuth 2.0 refresh tokens (1//)"),
    _s("firebase-key", "cloud", "Firebase Cloud Messaging server key", ["AAAA", c(B64URL, 7), ":APA91b", c(B64URL, 134)], "docs:Firebase Cloud Messaging legacy server keys"),
    _s("yandex-key", "cloud", "Yandex Cloud API key", ["AQVN", c(B64URL, 35, 38)], "gitleaks:yandex-api-key"),
    _s("azure-ad-secret", "cloud", "Microsoft Entra ID (Azure AD) client secret", [c("A-Za-z0-9_~.", 3), c(DIG, 1), "Q~", c("A-Za-z0-9_~.", 31, 34)], "gitleaks:azure-ad-client-secret", anchor="Q~", lookalike="abc8Q~short"),
    _azure64("+ASt", "Azure Storage account key (identifiable)"),
    _azure64("ACDb", "Azure Cosmos DB key (identifiable)"),
    _azure64("APIM", "Azure API Management key (identifiable)"),
    _azure64("+ABa", "Azure Batch key (identifiable)"),
    _azure64("+AMC", "Azure ML web service key (identifiable)"),
    _azure32("+ASb", "Azure Service Bus key (identifiable)"),
    _azure32("+AEh", "Azure Event Hubs key (identifiable)"),
    _azure32("+ARm", "Azure Relay key (identifiable)"),
    _azure32("AIoT", "Azure IoT Hub key (identifiable)"),
    _azure32("AZEG", "Azure Event Grid key (identifiable)"),
    _s("azure-key", "cloud", "Azure Functions key (identifiable)", [c(B64URL, 44), "AzFu", c(B64URL, 5), c("AQgw", 1), "=="], "microsoft:identifiable keys (Functions)", anchor="AzFu", lookalike="Zm9v" * 13 + "YmE="),
    _s("azure-key", "cloud", "Azure AI Search key (identifiable)", [c(ALNUM, 42), "AzSe", c("A-D", 1), c(ALNUM, 5)], "microsoft:identifiable keys (Search)", anchor="AzSe", lookalike="Zm9v" * 13),
    _s("azure-key", "cloud", "Azure Container Registry key (identifiable)", [c(B64, 42), "+ACR", c("A-D", 1), c(B64, 5)], "microsoft:identifiable keys (Container Registry)", anchor="+ACR", lookalike="Zm9v" * 13),
    _s("azure-key", "cloud", "Azure Cache for Redis key (identifiable)", [c(ALNUM, 33), "AzCa", c("A-P", 1), c(ALNUM, 5), "="], "microsoft:identifiable keys (Cache for Redis)", anchor="AzCa", lookalike="Zm9v" * 10 + "YmE="),
    # ---- source hosting ----
    _s("gitlab-token", "source", "GitLab feed token", ["glft-", c(B64URL, 20)], "gitleaks:gitlab-feed-token"),
    _s("gitlab-token", "source", "GitLab incoming mail token", ["glimt-", c(B64URL, 25)], "gitleaks:gitlab-incoming-mail-token"),
    _s("gitlab-token", "source", "GitLab Kubernetes agent token", ["glagent-", c(B64URL, 50)], "gitleaks:gitlab-kubernetes-agent-token"),
    _s("gitlab-token", "source", "GitLab SCIM token", ["glsoat-", c(B64URL, 20)], "gitleaks:gitlab-scim-token"),
    _s("gitlab-token", "source", "GitLab feature flag client token", ["glffct-", c(B64URL, 20)], "gitleaks:gitlab-feature-flag-client-token"),
    _s("gitlab-token", "source", "GitLab runner registration token", ["GR1348941", c(B64URL, 20)], "gitleaks:gitlab-rrt"),
    _s("atlassian-token", "source", "Atlassian API token (Jira, Confluence, Bitbucket)", ["ATATT3", c("A-Za-z0-9_=-", 186)], "gitleaks:atlassian-api-token"),
    _s("atlassian-token", "source", "Atlassian organization admin key", ["ATCTT3xFfG", c("A-Za-z0-9+/_-", 100, 300), "=", c(ALNUM, 8)], "trufflehog:atlassian (v2)"),
    _s("bitbucket-token", "source", "Bitbucket Data Center HTTP access token", ["BBDC-", c("A-Za-z0-9+/@_-", 40, 50)], "trufflehog:bitbucketdatacenter"),
    _s("sourcegraph-token", "source", "Sourcegraph access token", ["sgp_", c(HEXA, 16), "_", c(HEXA, 40)], "gitleaks:sourcegraph-access-token"),
    _s("sourcegraph-token", "source", "Sourcegraph local access token", ["sgp_local_", c(HEXA, 40)], "gitleaks:sourcegraph-access-token"),
    _s("sourcegraph-token", "source", "Sourcegraph access token (2022)", ["sgp_", c(HEXA, 40)], "gitleaks:sourcegraph-access-token"),
    _s("sourcegraph-token", "source", "Sourcegraph Cody gateway token", ["slk_", c(HEX, 64)], "trufflehog:sourcegraphcody"),
    # ---- CI/CD and developer tools ----
    _s("circleci-token", "ci", "CircleCI personal API token", ["CCIPAT_", c(ALNUM, 22), "_", c(HEXA, 40)], "docs:CircleCI changelog, new API token format"),
    _s("circleci-token", "ci", "CircleCI project API token", ["CCIPRJ_", c(ALNUM, 22), "_", c(HEXA, 40)], "docs:CircleCI changelog, new API token format"),
    _s("buildkite-token", "ci", "Buildkite user API token", ["bkua_", c(LOWNUM, 40)], "trufflehog:buildkite (v2)"),
    _s("sonar-token", "ci", "SonarQube user token", ["squ_", c(HEX, 40)], "docs:SonarQube token types (squ_, sqp_, sqa_)"),
    _s("sonar-token", "ci", "SonarQube project analysis token", ["sqp_", c(HEX, 40)], "docs:SonarQube token types (squ_, sqp_, sqa_)"),
    _s("sonar-token", "ci", "SonarQube global analysis token", ["sqa_", c(HEX, 40)], "docs:SonarQube token types (squ_, sqp_, sqa_)"),
    _s("octopus-key", "ci", "Octopus Deploy API key", ["API-", c(UPNUM, 26)], "gitleaks:octopus-deploy-api-key"),
    _s("harness-token", "ci", "Harness personal access token", ["pat.", c(B64URL, 22), ".", c(ALNUM, 24), ".", c(ALNUM, 20)], "gitleaks:harness-api-key"),
    _s("harness-token", "ci", "Harness service account token", ["sat.", c(B64URL, 22), ".", c(ALNUM, 24), ".", c(ALNUM, 20)], "gitleaks:harness-api-key"),
    _s("infracost-key", "ci", "Infracost API key", ["ico-", c(ALNUM, 32)], "gitleaks:infracost-api-token"),
    _s("scalingo-token", "cloud", "Scalingo API token", ["tk-us-", c(B64URL, 48)], "gitleaks:scalingo-api-token"),
    _s("jfrog-token", "registry", "JFrog Artifactory API key", ["AKCp", c(ALNUM, 69)], "gitleaks:artifactory-api-key"),
    _s("jfrog-token", "registry", "JFrog Artifactory reference token", ["cmVmdGtu", c(ALNUM, 56)], "trufflehog:artifactoryreferencetoken"),
    _s("prefect-key", "ci", "Prefect API key", ["pnu_", c(ALNUM, 36)], "gitleaks:prefect-api-token"),
    _s("readme-key", "ci", "ReadMe API key", ["rdme_", c(LOWNUM, 70)], "gitleaks:readme-api-token"),
    _s("definednetworking-token", "ci", "Defined Networking API token", ["dnkey-", c("a-z0-9=_-", 26), "-", c("a-z0-9=_-", 52)], "gitleaks:defined-networking-api-token"),
    _s("postman-key", "ci", "Postman API key", ["PMAK-", c(HEX, 24), "-", c(HEX, 34)], "gitleaks:postman-api-token"),
    # ---- package and container registries ----
    _s("rubygems-key", "registry", "RubyGems API key", ["rubygems_", c(HEX, 48)], "gitleaks:rubygems-api-token"),
    _s("nuget-key", "registry", "NuGet API key", ["oy2", c("a-p", 1), c(LOWNUM, 15), c("aq", 1), c(LOWNUM, 11), c("eu", 1), c("bdfhjlnprtvxz357", 1), c("a-p", 1), c(LOWNUM, 11), c("aeimquy4", 1)], "microsoft:identifiable keys (NuGet)"),
    _s("crates-token", "registry", "crates.io API token", ["cio", c(ALNUM, 32)], "docs:crates.io API tokens (cio)"),
    _s("clojars-token", "registry", "Clojars deploy token", ["CLOJARS_", c(ALNUM, 60)], "gitleaks:clojars-api-token"),
    _s("dockerhub-token", "registry", "Docker Hub personal access token", ["dckr_pat_", c(B64URL, 27)], "trufflehog:dockerhub (v2)"),
    _s("dockerhub-token", "registry", "Docker Hub organization access token", ["dckr_oat_", c(B64URL, 32)], "trufflehog:dockerhub (v2)"),
    # ---- payments and commerce ----
    _s("square-token", "payments", "Square access token", ["EAAA", c(B64URL, 60)], "gitleaks:square-access-token"),
    _s("square-token", "payments", "Square access token (sq0atp)", ["sq0atp-", c(B64URL, 22)], "gitleaks:square-access-token"),
    _s("square-token", "payments", "Square application secret", ["sq0csp-", c(B64URL, 43)], "docs:Square application credentials (sq0csp-)"),
    _s("braintree-token", "payments", "Braintree production access token", ["access_token$production$", c(LOWNUM, 16), "$", c(HEX, 32)], "gitleaks:braintree-access-token"),
    _s("braintree-token", "payments", "Braintree sandbox access token", ["access_token$sandbox$", c(LOWNUM, 16), "$", c(HEX, 32)], "gitleaks:braintree-access-token"),
    _s("flutterwave-key", "payments", "Flutterwave live secret key", ["FLWSECK-", c(LOWNUM, 32), "-X"], "trufflehog:flutterwave"),
    _s("flutterwave-key", "payments", "Flutterwave test secret key", ["FLWSECK_TEST-", c("a-h0-9", 32), "-X"], "gitleaks:flutterwave-secret-key"),
    _s("duffel-token", "payments", "Duffel live API token", ["duffel_live_", c("A-Za-z0-9_=-", 43)], "gitleaks:duffel-api-token"),
    _s("duffel-token", "payments", "Duffel test API token", ["duffel_test_", c("A-Za-z0-9_=-", 43)], "gitleaks:duffel-api-token"),
    _s("easypost-key", "payments", "EasyPost production API key", ["EZAK", c(ALNUM, 54)], "gitleaks:easypost-api-token"),
    _s("easypost-key", "payments", "EasyPost test API key", ["EZTK", c(ALNUM, 54)], "gitleaks:easypost-test-api-token"),
    _s("shippo-token", "payments", "Shippo live API token", ["shippo_live_", c(HEX, 40)], "gitleaks:shippo-api-token"),
    _s("shippo-token", "payments", "Shippo test API token", ["shippo_test_", c(HEX, 40)], "gitleaks:shippo-api-token"),
    _s("plaid-token", "payments", "Plaid production access token", ["access-production-", *uuid_parts()], "gitleaks:plaid-api-token"),
    _s("plaid-token", "payments", "Plaid sandbox access token", ["access-sandbox-", *uuid_parts()], "gitleaks:plaid-api-token"),
    _s("ramp-key", "payments", "Ramp API client secret", ["ramp_sec_", c(ALNUM, 48)], "trufflehog:ramp"),
    _s("shopify-token", "payments", "Shopify access token", ["shpat_", c(HEXA, 32)], "gitleaks:shopify-access-token"),
    _s("shopify-token", "payments", "Shopify custom app token", ["shpca_", c(HEXA, 32)], "gitleaks:shopify-custom-access-token"),
    _s("shopify-token", "payments", "Shopify private app token", ["shppa_", c(HEXA, 32)], "gitleaks:shopify-private-app-access-token"),
    _s("shopify-token", "payments", "Shopify shared secret", ["shpss_", c(HEXA, 32)], "gitleaks:shopify-shared-secret"),
    # ---- messaging and email ----
    _s("discord-token", "messaging", "Discord bot token", [c("MNO", 1), c(B64URL, 23, 25), ".", c(B64URL, 6), ".", c(B64URL, 27, 38)], "docs:Discord bot tokens (base64 user id, timestamp, HMAC)", anchor=".", lookalike="MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ"),
    _s("discord-webhook", "messaging", "Discord webhook URL", ["discord.com/api/webhooks/", c(DIG, 17, 20), "/", c(B64URL, 68)], "docs:Discord webhooks", lookalike="discord.com/api/webhooks/"),
    _s("discord-webhook", "messaging", "Discord webhook URL (discordapp.com)", ["discordapp.com/api/webhooks/", c(DIG, 17, 20), "/", c(B64URL, 68)], "docs:Discord webhooks", lookalike="discordapp.com/api/webhooks/"),
    _s("mailgun-key", "messaging", "Mailgun private API key", ["key-", c(HEX, 32)], "gitleaks:mailgun-private-api-token"),
    _s("mailgun-key", "messaging", "Mailgun public validation key", ["pubkey-", c(HEX, 32)], "gitleaks:mailgun-pub-key"),
    _s("mailgun-key", "messaging", "Mailgun API / webhook signing key", [c(HEX, 32), "-", c(HEX, 8), "-", c(HEX, 8)], "gitleaks:mailgun-signing-key", anchor="-", lookalike="0123456789abcdef-01234567-89abcdef"),
    _s("mailchimp-key", "messaging", "Mailchimp API key", [c(HEX, 32), "-us", c(DIG, 1, 2)], "gitleaks:mailchimp-api-key", anchor="-us", lookalike="0123456789abcdef-us12"),
    _s("brevo-key", "messaging", "Brevo (Sendinblue) API key", ["xkeysib-", c(HEX, 64), "-", c(ALNUM, 16)], "gitleaks:sendinblue-api-token"),
    _s("brevo-key", "messaging", "Brevo (Sendinblue) SMTP key", ["xsmtpsib-", c(HEX, 64), "-", c(ALNUM, 16)], "docs:Brevo SMTP keys (xsmtpsib-)"),
    _s("resend-key", "messaging", "Resend API key", ["re_", c(ALNUM, 8), "_", c(ALNUM, 24)], "docs:Resend API keys (re_)"),
    # ---- observability and product analytics ----
    _s("sentry-token", "observability", "Sentry organization auth token", ["sntrys_eyJpYXQiO", c(B64, 60, 300), "_", c(B64, 43)], "gitleaks:sentry-org-token"),
    _s("sentry-token", "observability", "Sentry user auth token", ["sntryu_", c(HEX, 64)], "gitleaks:sentry-user-token"),
    _s("grafana-token", "observability", "Grafana Cloud API token", ["glc_", c(B64, 32, 400)], "gitleaks:grafana-cloud-api-token"),
    _s("grafana-token", "observability", "Grafana service account token", ["glsa_", c(ALNUM, 32), "_", c(HEXA, 8)], "gitleaks:grafana-service-account-token"),
    _s("grafana-token", "observability", "Grafana API key (legacy)", ["eyJrIjoi", c(ALNUM, 70, 400)], "gitleaks:grafana-api-key"),
    _s("newrelic-key", "observability", "New Relic user API key", ["NRAK-", c(UPNUM, 27)], "gitleaks:new-relic-user-api-key"),
    _s("newrelic-key", "observability", "New Relic insert key", ["NRII-", c(B64URL, 32)], "gitleaks:new-relic-insert-key"),
    _s("newrelic-key", "observability", "New Relic Insights query key", ["NRIQ-", c(B64URL, 25, 32)], "trufflehog:newrelicpersonalapikey"),
    _s("newrelic-key", "observability", "New Relic browser key", ["NRJS-", c(HEX, 19)], "gitleaks:new-relic-browser-api-token"),
    _s("newrelic-key", "observability", "New Relic license key", [c(HEX, 36), "NRAL"], "docs:New Relic license keys (40 characters ending NRAL)", anchor="NRAL", lookalike="0123456789abcdefNRAL"),
    _s("dynatrace-token", "observability", "Dynatrace API token", ["dt0c01.", c(UPNUM, 24), ".", c(UPNUM, 64)], "gitleaks:dynatrace-api-token"),
    _s("axiom-token", "observability", "Axiom API token", ["xaat-", *uuid_parts()], "docs:Axiom API tokens (xaat-)"),
    _s("axiom-token", "observability", "Axiom personal token", ["xapt-", *uuid_parts()], "docs:Axiom personal tokens (xapt-)"),
    _s("posthog-key", "observability", "PostHog personal API key", ["phx_", c(WORD, 43, 48)], "trufflehog:posthog"),
    _s("rootly-key", "observability", "Rootly API key", ["rootly_", c(HEX, 64)], "trufflehog:rootly"),
    _s("launchdarkly-key", "observability", "LaunchDarkly access token", ["api-", *uuid_parts()], "docs:LaunchDarkly API access tokens (api-)"),
    _s("launchdarkly-key", "observability", "LaunchDarkly server SDK key", ["sdk-", *uuid_parts()], "docs:LaunchDarkly SDK keys (sdk-)"),
    # ---- databases ----
    _s("planetscale-token", "database", "PlanetScale service token", ["pscale_tkn_", c("A-Za-z0-9_=-", 32, 64)], "gitleaks:planetscale-api-token"),
    _s("planetscale-token", "database", "PlanetScale OAuth token", ["pscale_oauth_", c("A-Za-z0-9_=-", 32, 64)], "gitleaks:planetscale-oauth-token"),
    _s("planetscale-token", "database", "PlanetScale password", ["pscale_pw_", c("A-Za-z0-9_=-", 32, 64)], "gitleaks:planetscale-password"),
    _s("databricks-token", "database", "Databricks personal access token", ["dapi", c(HEX, 32)], "gitleaks:databricks-api-token"),
    _s("databricks-token", "database", "Databricks OAuth secret", ["dose", c(HEX, 32)], "docs:Databricks service principal OAuth secrets (dose)"),
    # ---- secret managers and encryption ----
    _s("vault-token", "secrets", "HashiCorp Vault service token", ["hvs.", c(B64URL, 90, 120)], "gitleaks:vault-service-token"),
    _s("vault-token", "secrets", "HashiCorp Vault batch token", ["hvb.", c(B64URL, 138, 300)], "gitleaks:vault-batch-token"),
    _s("doppler-token", "secrets", "Doppler personal token", ["dp.pt.", c(ALNUM, 40, 44)], "docs:Doppler auth token formats"),
    _s("doppler-token", "secrets", "Doppler service token", ["dp.st.", c(ALNUM, 40, 44)], "docs:Doppler auth token formats"),
    _s("doppler-token", "secrets", "Doppler service token with environment", ["dp.st.", c("a-z0-9_-", 2, 35), ".", c(ALNUM, 40, 44)], "docs:Doppler auth token formats"),
    _s("doppler-token", "secrets", "Doppler CLI token", ["dp.ct.", c(ALNUM, 40, 44)], "docs:Doppler auth token formats"),
    _s("doppler-token", "secrets", "Doppler service account token", ["dp.sa.", c(ALNUM, 40, 44)], "docs:Doppler auth token formats"),
    _s("doppler-token", "secrets", "Doppler SCIM token", ["dp.scim.", c(ALNUM, 40, 44)], "docs:Doppler auth token formats"),
    _s("doppler-token", "secrets", "Doppler audit token", ["dp.audit.", c(ALNUM, 40, 44)], "docs:Doppler auth token formats"),
    _s("onepassword-token", "secrets", "1Password service account token", ["ops_eyJ", c(B64, 250, 1000)], "gitleaks:1password-service-account-token"),
    _s("onepassword-token", "secrets", "1Password account secret key", ["A3-", c(UPNUM, 6), "-", c(UPNUM, 11), "-", c(UPNUM, 5), "-", c(UPNUM, 5), "-", c(UPNUM, 5)], "gitleaks:1password-secret-key"),
    _s("age-key", "secrets", "age secret key", ["AGE-SECRET-KEY-1", c("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)], "gitleaks:age-secret-key"),
    # ---- infrastructure as code ----
    _s("terraform-token", "iac", "Terraform Cloud / HCP Terraform token", [c(ALNUM, 14), ".atlasv1.", c("A-Za-z0-9_=-", 60, 70)], "gitleaks:hashicorp-tf-api-token", anchor=".atlasv1.", lookalike="abcdefghijklmn.atlasv1.short"),
    _s("pulumi-token", "iac", "Pulumi access token", ["pul-", c(HEX, 40)], "gitleaks:pulumi-api-token"),
    # ---- productivity and other SaaS APIs ----
    _s("linear-key", "saas", "Linear personal API key", ["lin_api_", c(ALNUM, 40)], "gitleaks:linear-api-key"),
    _s("linear-key", "saas", "Linear OAuth access token", ["lin_oauth_", c(HEX, 64)], "docs:Linear OAuth tokens (lin_oauth_)"),
    _s("notion-token", "saas", "Notion integration token", ["ntn_", c(DIG, 11), c(ALNUM, 35)], "gitleaks:notion-api-token"),
    _s("notion-token", "saas", "Notion internal integration secret (legacy)", ["secret_", c(ALNUM, 43)], "docs:Notion internal integration secrets (secret_)"),
    _s("airtable-token", "saas", "Airtable personal access token", ["pat", c(ALNUM, 14), ".", c(HEX, 64)], "trufflehog:airtablepersonalaccesstoken"),
    _s("figma-token", "saas", "Figma personal access token", ["figd_", c(B64URL, 40)], "trufflehog:figmapersonalaccesstoken (v2)"),
    _s("contentful-token", "saas", "Contentful personal access token", ["CFPAT-", c(B64URL, 43)], "trufflehog:contentfulpersonalaccesstoken"),
    _s("typeform-token", "saas", "Typeform personal access token", ["tfp_", c("A-Za-z0-9_=-", 59)], "gitleaks:typeform-api-token"),
    _s("frameio-token", "saas", "Frame.io developer token", ["fio-u-", c("A-Za-z0-9_=-", 64)], "gitleaks:frameio-api-token"),
    _s("dropbox-token", "saas", "Dropbox short-lived access token", ["sl.", c("A-Za-z0-9_=-", 135, 1400)], "gitleaks:dropbox-short-lived-api-token"),
    _s("hubspot-token", "saas", "HubSpot private app token (NA)", ["pat-na1-", *uuid_parts()], "trufflehog:hubspot_apikey (v2)"),
    _s("hubspot-token", "saas", "HubSpot private app token (EU)", ["pat-eu1-", *uuid_parts()], "trufflehog:hubspot_apikey (v2)"),
    _s("clickup-token", "saas", "ClickUp personal API token", ["pk_", c(DIG, 6, 10), "_", c(UPNUM, 32)], "docs:ClickUp personal API tokens (pk_)"),
    _s("apify-token", "saas", "Apify API token", ["apify_api_", c(ALNUM, 36)], "trufflehog:apify"),
    _s("adobe-secret", "saas", "Adobe client secret", ["p8e-", c(ALNUM, 32)], "gitleaks:adobe-client-secret"),
    _s("mapbox-token", "saas", "Mapbox secret token", ["sk.eyJ", c(B64URL, 60, 200), ".", c(B64URL, 22)], "docs:Mapbox access tokens (sk. secret scope)"),
    _s("maxmind-key", "saas", "MaxMind license key", [c(ALNUM, 6), "_", c(ALNUM, 29), "_mmk"], "gitleaks:maxmind-license-key", anchor="_mmk", lookalike="abcdef_short_mmk"),
    _s("settlemint-token", "saas", "SettleMint application access token", ["sm_aat_", c(ALNUM, 16)], "gitleaks:settlemint-application-access-token"),
    _s("settlemint-token", "saas", "SettleMint personal access token", ["sm_pat_", c(ALNUM, 16)], "gitleaks:settlemint-personal-access-token"),
    _s("settlemint-token", "saas", "SettleMint service access token", ["sm_sat_", c(ALNUM, 16)], "gitleaks:settlemint-service-access-token"),
    _s("facebook-token", "saas", "Meta (Facebook) page access token", ["EAAC", c(ALNUM, 100, 300)], "gitleaks:facebook-page-access-token"),
    _s("facebook-token", "saas", "Meta (Facebook) access token (EAAM)", ["EAAM", c(ALNUM, 100, 300)], "gitleaks:facebook-page-access-token"),
    _s("twitter-token", "saas", "X (Twitter) app bearer token", ["AAAAAAAAAAAAAAAAAAAAA", c(ALNUM, 80, 100)], "gitleaks:twitter-bearer-token"),
    _s("salesforce-token", "saas", "Salesforce access token", ["00D", c(ALNUM, 12, 15), "!", c("A-Za-z0-9._", 96)], "trufflehog:salesforce"),
)


# ---- told by their provider's name ------------------------------------------------------------
#
# Some providers' keys have no prefix or signature at all: 32 hex (Datadog, Twilio), 40
# base64 (AWS). Alone they look like hashes and ids, so they are keys only in a sentence that
# names the provider ("the cloudflare deploy fails, I'm using … from the dashboard"). These
# shapes are the unprefixed ones bough's older rules already knew next to a NAME=
# (aws-secret-key, Twilio's auth tokens, Azure's AccountKey=) and those docs/redaction.md
# listed as not covered (Datadog, Mistral, Azure), with Cloudflare's keys from before cfut_.
# Not Heroku's older keys: a UUID, which its own logs print as request ids, and which is in
# nearly every string of a transcript (looking at each cost more than all of these).
# Each is either 32 or 37 letters and digits ("stretch") or random base64 (redact_shapes.py,
# "Keys told by their provider's name", searches them that way).


@dataclass(frozen=True)
class ContextShape:
    """A provider's unprefixed token: ``parts`` as in :class:`Shape`, found only in the same
    sentence as one of ``words`` (lower-case names of the provider; a name may go on,
    "cloudflared", "datadoghq", but not start inside a word).

    ``before``/``after``: class bodies of the characters that may not stand right before or
    right after the token (a longer run of its alphabet is something else). ``random``: the
    token must look randomly drawn (``redact_shapes.looks_random``), which spares names, paths and
    git SHAs; the hex shapes (``random=False``) must hold a letter and a digit instead.
    """

    kind: str
    family: str
    provider: str
    words: tuple[str, ...]
    parts: tuple[Part, ...]
    source: str
    before: str
    after: str
    random: bool = True

    @functools.cached_property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self.pattern())

    @property
    def length(self) -> int:
        """Every part has a fixed length, so every match has this one."""
        return sum(len(p) if isinstance(p, str) else p[1] for p in self.parts)

    def pattern(self) -> str:
        body = "".join(re.escape(p) if isinstance(p, str) else _quant(p) for p in self.parts)
        return f"(?<![{self.before}])(?:{body})(?![{self.after}])"


def _ctx(named: tuple[str, str, str], words: str, parts: list[Part], source: str, edge: str,
         after: str | None = None, random: bool = True) -> ContextShape:
    """A row of CONTEXT_SHAPES: ``named`` is its kind, family and provider."""
    return ContextShape(*named, tuple(words.split()), tuple(parts), source, edge,
                        edge if after is None else after, random)


CONTEXT_SHAPES: tuple[ContextShape, ...] = (
    _ctx(("cloudflare-key", "cloud", "Cloudflare API token (40 characters, before cfut_)"), "cloudflare",
         [c(B64URL, 40)], "gitleaks:cloudflare-api-key", B64URL),
    _ctx(("cloudflare-key", "cloud", "Cloudflare global API key (37 hex)"), "cloudflare",
         [c(HEX, 37)], "gitleaks:cloudflare-global-api-key", ALNUM, random=False),
    _ctx(("datadog-key", "observability", "Datadog API key (32 hex)"), "datadog",
         [c(HEX, 32)], "docs:Datadog API and application keys", ALNUM, random=False),
    _ctx(("twilio-key", "messaging", "Twilio auth token (32 hex)"), "twilio",
         [c(HEX, 32)], "trufflehog:twilio", ALNUM, random=False),
    _ctx(("mistral-key", "ai", "Mistral API key (32 letters and digits)"), "mistral",
         [c(ALNUM, 32)], "trufflehog:mistral", ALNUM),
    # "=" may stand before (AWS_SECRET=…): base64 pads only at its end.
    _ctx(("aws-secret-key", "cloud", "AWS secret access key (40 base64)"), "aws",
         [c(B64, 40)], "docs:AWS IAM access keys", B64, after=B64 + "="),
    # "-" may not stand before: sha512-… (Subresource Integrity in lock files) is 88 base64 too.
    _ctx(("azure-storage-key", "cloud", "Azure storage account key (88 base64)"), "azure",
         [c(B64, 86), "=="], "docs:Azure storage account access keys", B64 + "-", after=B64 + "="),
)
