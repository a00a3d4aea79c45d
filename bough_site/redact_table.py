"""The rule table: each kind of secret a regex finds, with the keywords and characters that
gate it (:class:`Rule`, ``RULES``), and the tiers that settle overlaps.

Why a table: a rule is data (its keywords, pattern, tier, checks), so the search
(redact_search) can decide from the table alone which rules a string can wake, and the
tests can check every rule's gates against its positive cases.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .redact_names import (
    _cookie_spans,
    _curl_user_ok,
    _env_ok,
    _header_ok,
    _named_value_ok,
    _query_ok,
    _url_password_ok,
    _value_ok,
    _yaml_ok,
)

Span = tuple[int, int]
_Candidate = tuple[int, int, int, str, int]  # tier, start, end, kind, rule order

# Tiers for resolving overlaps: the lower tier wins.
TIER_BLOCK = 0  # private key blocks: everything inside goes with them
TIER_PROVIDER = 1  # a provider's own prefix or shape
TIER_GENERIC = 2  # URLs, headers, cookies, values of sensitive files: a secret's place, not its issuer
TIER_ASSIGN = 3  # NAME=value and name: "value": the loosest shape (a header in a dict is auth-header)
TIER_FALLBACK = 4  # unknown keys told by their randomness alone: anything more specific wins


@dataclass(frozen=True)
class Rule:
    """One kind of secret.

    ``keywords``: literals of which at least one must occur in the string before
    ``regex`` (``pattern`` compiled with ``flags``, on first use) runs, so each must
    be implied by every match of the regex. They are
    looked up in the lower-cased string, or in the string as it is when
    ``case_sensitive`` (provider prefixes: fewer chance hits in base64 data).
    ``groups`` names the regex groups holding the secret (the first that took
    part in a match is used). ``check`` can refuse a match (placeholders, names
    that are not secret); ``spans`` replaces the group logic for rules that yield
    several secrets per match (cookies).

    ``reach`` > 0 marks a rule whose every match lies on one line, starting at
    most _BACK characters before a keyword and ending at most ``reach`` after
    it: its regex then runs only on those stretches of the string instead of the
    whole of it (generic rules whose keywords, like "key" and "token", occur in
    most long code listings). ``near``, if given, must match at a keyword for
    that keyword to open a stretch (the name must be followed by "=" or ":"),
    which drops the keywords of prose and of base64 data cheaply.

    ``needs``: characters of which every match of ``regex`` holds at least one
    (the "=" of an assignment, the "-" of "sk-"). A string holding none of
    them skips the rule: its keywords are not looked up, its regex not run.
    One memchr-fast ``in`` per character costs far less than a substring
    search per keyword, and prose, listings and logs without "=", ":" or "_"
    skip most rules that way. The tests check each rule against its positive
    cases with these characters taken out.

    ``in_runs``: every match is _RULE_RUN_MIN (15) or more token characters
    (``_RUN_CHARS``) holding one of the keywords, so it lies inside a run of them:
    in a long string the keywords are then looked up in those runs only (a few
    percent of the text) instead of in all of it. The tests check each such
    pattern's characters and shortest match.

    ``holds``: a literal every match holds, rarer than the keywords (the
    ``-p`` of ``mysql -pSECRET``): a string without it skips the rule before
    any keyword is looked up, one scan instead of one per keyword.

    ``starts``: the characters every match starts with (the pattern's first
    item is a class of them). The regex is then tried only at those
    characters, found with ``str.find``, instead of scanning the whole string
    (the engine tests such a class at every character, some ten times slower);
    see _matches_starting.
    """

    kind: str
    keywords: tuple[str, ...]
    pattern: str
    groups: tuple[int | str, ...] = ("s",)
    tier: int = TIER_PROVIDER
    check: Callable[[re.Match[str], str], bool] | None = None
    spans: Callable[[re.Match[str]], list[Span]] | None = None
    case_sensitive: bool = False
    reach: int = 0
    near: re.Pattern[str] | None = None
    needs: str = ""
    in_runs: bool = False
    starts: str = ""
    holds: str = ""
    flags: int = 0

    @functools.cached_property
    def regex(self) -> re.Pattern[str]:
        """``pattern`` compiled, when first used: importing this module compiles no rule
        (a build where nothing changed redacts nothing)."""
        return re.compile(self.pattern, self.flags)

    def secret_spans(self, m: re.Match[str]) -> list[Span]:
        if self.spans is not None:
            return self.spans(m)
        for g in self.groups:
            if m.start(g) >= 0:
                if self.check is not None and not self.check(m, m.group(g)):
                    return []
                return [m.span(g)]
        return []


# --------------------------------------------------------------------------
# The rule table.
#
# Speed: Python's regex engine finds a pattern that starts with a literal
# ("eyJ", "SK") with a fast substring search, but tries every position of the
# string for a pattern that starts with a lookbehind or a character class,
# about 30 times slower. So patterns whose keywords can turn up by chance (in
# base64 data, in upper-case constants) start with their literal and put the
# left-boundary check right after it: SK(?<![A-Za-z0-9_]SK) means "SK, not
# preceded by a word character".
# --------------------------------------------------------------------------

_A = "0-9A-Za-z"  # alphanumerics
_B = "0-9A-Za-z_-"  # base64url


def _rule(kind: str, keywords: str, pattern: str, flags: int = 0, **kw: Any) -> Rule:
    return Rule(kind, tuple(keywords.split()), pattern, flags=flags, **kw)


def _provider(kind: str, keywords: str, pattern: str, flags: int = 0, **kw: Any) -> Rule:
    kw.setdefault("case_sensitive", True)
    return _rule(kind, keywords, pattern, flags, **kw)


def _lit(literal: str, boundary: str) -> str:
    """A literal that must not follow a character of the class ``boundary``, literal first."""
    esc = re.escape(literal)
    return f"{esc}(?<![{boundary}]{esc})"


# Keywords implied by every name is_secret_name() accepts (KEY also covers API_KEY, *_KEY;
# PASS covers PASSWORD, PASSWD, PASSPHRASE).
_NAME_KW = "secret token pass pwd key auth credential"
# Longest value a windowed assignment rule takes, plus name, annotation and quotes.
_NAME_REACH = 700
# What must follow a keyword (in the lower-cased text) for a windowed rule to look at its line:
# the rest of the name, then the rule's operator.
_ENV_NEAR = re.compile(r"[a-z0-9_]{0,80}=")
_QUERY_NEAR = re.compile(r"[\w\[\]-]{0,80}=(?!=)")
_ASSIGN_NEAR = re.compile(r"[\w.-]{0,80}[\"'\]]{0,2}[ \t]*(?::[^\n=]{0,45})?(?::=|=>|:|=(?!=))[ \t]*[\"']")
_YAML_NEAR = re.compile(r"[\w.-]{0,80}[\"']?[ \t]*:[ \t]")
_FLAG_NEAR = re.compile(r"[\w-]{0,60}(?:=|[ \t]+[^\s-])")

# A quoted or bare value, as the last groups of an assignment pattern.
_QUOTED_VALUE = r"""(?:"(?P<dq>[^"\r\n]{1,500})"|'(?P<sq>[^'\r\n]{1,500})')"""
_BARE_CHARS = r"""[^\s"'`]"""  # an unquoted value ends at white space (.env values hold & and ;)

RULES: tuple[Rule, ...] = (
    # Private keys: the whole block, to its END line or to the end of the text.
    _provider(
        "private-key",
        "-----BEGIN",
        r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        r".*?(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|\Z)",
        re.DOTALL,
        groups=(0,),
        tier=TIER_BLOCK,
        needs="-",
    ),
    # AWS access key ids; the docs' ...EXAMPLE key is redacted too.
    _provider(
        "aws-access-key",
        "AKIA ASIA ABIA ACCA A3T",
        rf"(?P<s>{_lit('A', _A)}(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])[A-Z2-7]{{16}})(?![{_A}])",
        needs="A",
        in_runs=True,
    ),
    # AWS secret keys: 40 base64 characters are everywhere, so only next to aws + secret/key,
    # or as the SecretAccessKey of an STS / credentials JSON.
    _provider(
        "aws-secret-key",
        "aws",
        r"(?:aws|AWS|Aws)[^\n]{0,40}?(?:secret|Secret|SECRET|key|Key|KEY)"
        r"[^\n]{0,40}?[:=][ \t]*[\"']?(?<![A-Za-z0-9/+])(?P<s>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        reach=200,
        case_sensitive=False,
        needs=":=",
    ),
    _provider(
        "aws-secret-key",
        "ecretAccessKey",
        r"[Ss]ecretAccessKey[\"']?[ \t]*[:=][ \t]*[\"']?(?P<s>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        needs=":=",
    ),
    _provider(
        "github-token",
        "gh",
        rf"(?P<s>{_lit('gh', _A)}[pousr]_[{_A}]{{36,251}})(?![{_A}])",
        needs="_",
        in_runs=True,
    ),
    _provider(
        "github-token",
        "github_pat_",
        rf"(?P<s>{_lit('github_pat_', _A)}[{_A}_]{{22,255}})(?![{_A}])",
        needs="_",
        in_runs=True,
    ),
    _provider(
        "gitlab-token",
        "gl",
        rf"(?P<s>{_lit('gl', _A)}(?:pat|dt|rt|ptt|cbt|oas)-[{_B}]{{20,300}}(?:\.[{_B}]{{1,300}}){{0,3}})",
        needs="-",
        in_runs=True,
    ),
    _provider(
        "slack-webhook",
        "hooks.slack.com",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9+/_-]{20,300})",
        needs="/",
        in_runs=True,
    ),
    _provider(
        "slack-token",
        "xox xapp-",
        rf"(?P<s>{_lit('x', _A)}(?:ox[abposre](?:\.xox[a-z])?|app-[0-9])-[{_A}-]{{10,300}})",
        needs="-",
        in_runs=True,
    ),
    _provider(
        "stripe-key",
        "k_live_ k_test_ k_prod_ whsec_",
        rf"(?<![{_A}])(?P<s>[sr]k_(?:live|test|prod)_[{_A}]{{10,250}}|whsec_[{_A}+/=]{{20,250}})",
        needs="_",
        in_runs=True,
    ),
    # sk-ant-… and sk-or-… come before openai-key, which wins ties on a plain sk-….
    _provider(
        "anthropic-key",
        "sk-",
        rf"(?P<s>{_lit('sk-', _A + '-')}ant-[a-z]{{2,10}}[0-9]{{0,3}}-[{_B}]{{20,300}})",
        needs="-",
        in_runs=True,
    ),
    _provider(
        "openrouter-key",
        "sk-",
        rf"(?P<s>{_lit('sk-', _A + '-')}or-v[0-9]-[0-9a-f]{{64}})(?![{_A}])",
        needs="-",
        in_runs=True,
    ),
    _provider(
        "openai-key",
        "sk-",
        rf"(?P<s>{_lit('sk-', _A + '-')}(?:(?:proj|svcacct|admin|None)-[{_B}]{{20,300}}"
        rf"|[{_B}]{{0,150}}T3BlbkFJ[{_B}]{{10,150}}"
        rf"|[{_A}]{{32,200}}(?![{_A}-])))",
        needs="-",
        in_runs=True,
    ),
    _provider(
        "google-api-key",
        "AIza",
        rf"(?P<s>{_lit('AIza', _A + '-')}[{_B}]{{35}})(?![{_A}-])",
        needs="A",
        in_runs=True,
    ),
    _provider(
        "google-oauth-secret",
        "GOCSPX-",
        rf"(?P<s>{_lit('GOCSPX-', _A + '-')}[{_B}]{{28}})(?![{_A}-])",
        needs="-",
        in_runs=True,
    ),
    # Google OAuth access tokens, as gcloud auth print-access-token prints them.
    _provider(
        "google-oauth-secret",
        "ya29.",
        rf"(?P<s>{_lit('ya29.', _A + '-')}[{_B}]{{20,2000}})",
        needs=".",
        in_runs=True,
    ),
    _provider(
        "npm-token",
        "npm_",
        rf"(?P<s>{_lit('npm_', _A)}[{_A}]{{36}})(?![{_A}])",
        needs="_",
        in_runs=True,
    ),
    # pypi.org and test.pypi.org macaroons: "pypi-" + base64 of a header naming the index.
    _provider(
        "pypi-token",
        "pypi-AgE",
        rf"(?P<s>{_lit('pypi-AgE', _A)}[{_B}]{{50,2000}})",
        needs="-",
        in_runs=True,
    ),
    _provider(
        "huggingface-token",
        "hf_",
        rf"(?P<s>{_lit('hf_', _A)}[{_A}]{{34,40}})(?![{_A}])",
        needs="_",
        in_runs=True,
    ),
    _provider(
        "sendgrid-key",
        "SG.",
        rf"(?P<s>{_lit('SG.', _A)}[{_B}]{{22}}\.[{_B}]{{43}})(?![{_A}-])",
        needs=".",
        in_runs=True,
    ),
    # Twilio API key SIDs: SK + 32 hex on their own (hex hashes never hold an upper-case SK) ...
    _provider(
        "twilio-key",
        "SK",
        rf"(?P<s>{_lit('SK', _A)}[0-9a-f]{{32}})(?![{_A}])",
        needs="S",
        in_runs=True,
    ),
    # ... and auth tokens: any 32 hex assigned next to the word twilio.
    _provider(
        "twilio-key",
        "twilio",
        r"(?:twilio|TWILIO|Twilio)[^\n]{0,40}?(?i:token|secret|key|auth)[^\n]{0,30}?[:=][ \t]*[\"']?"
        r"(?P<s>[0-9a-f]{32})(?![0-9A-Za-z])",
        reach=200,
        case_sensitive=False,
        needs=":=",
    ),
    _provider(
        "digitalocean-token",
        "_v1_",
        r"(?<![0-9A-Za-z])(?P<s>do[opr]_v1_[0-9a-f]{64})(?![0-9A-Za-z])",
        needs="_",
        in_runs=True,
    ),
    _provider(
        "supabase-token",
        "sbp_ sb_secret_",
        rf"(?<![{_A}])(?P<s>sbp_[0-9a-f]{{40}}|sb_secret_[{_B}]{{20,100}})(?![{_A}])",
        needs="_",
        in_runs=True,
    ),
    _provider(
        "telegram-bot-token",
        ":AA",
        rf"(?<![0-9])(?P<s>[0-9]{{8,10}}:AA[{_B}]{{33}})(?![{_A}-])",
        needs=":",
        in_runs=True,
    ),
    _provider(
        "azure-storage-key",
        "AccountKey= SharedAccessKey=",
        r"(?:AccountKey|SharedAccessKey)=(?P<s>[A-Za-z0-9+/]{40,88}={0,2})",
        needs="=",
        in_runs=True,
    ),
    # JWT: header and payload are base64url JSON objects ("eyJ" is the encoding of '{"').
    _provider(
        "jwt",
        "eyJ",
        rf"(?P<s>{_lit('eyJ', _A + '-')}[{_B}]{{5,4000}}\.eyJ[{_B}]{{5,8000}}\.[{_B}]{{0,4000}})",
        needs=".",
        in_runs=True,
    ),
    # ---- generic rules: the shape of a secret, not who issued it ----
    _rule(
        "url-password",
        "://",
        r"://(?P<user>[^\s:/?#@\"'<>]{0,200}):(?P<s>[^\s/?#@\"'<>]{1,300})@",
        tier=TIER_GENERIC,
        check=_url_password_ok,
        needs="@",
    ),
    # Secret-named query parameters: ?access_token=… &password=… (not JS's && or ==).
    # Every match starts with ? or &: the regex runs only where those are (Rule.starts).
    _rule(
        "url-password",
        _NAME_KW + " sig",
        r"[?&](?<!&&)(?!&)(?P<name>[A-Za-z_][\w\[\]-]{0,80})=(?P<s>[^=&#\s\"'<>`(){};][^&#\s\"'<>`(){};]{0,1999})",
        tier=TIER_GENERIC,
        check=_query_ok,
        needs="?&",
        starts="?&",
    ),
    # ... and the first field of curl form data: -d "password=…&…".
    _rule(
        "url-password",
        _NAME_KW,
        r"(?<![\w-])(?:-d|--data(?:-raw|-urlencode|-binary)?|-F|--form)[ \t=]+[\"']?"
        r"(?P<name>[A-Za-z_][\w\[\]-]{0,80})=(?P<s>[^=&#\s\"'<>`(){};][^&#\s\"'<>`(){};]{0,1999})",
        tier=TIER_GENERIC,
        check=_query_ok,
        reach=2200,
        near=_QUERY_NEAR,
        needs="=",
    ),
    # ADO.NET / ODBC / JDBC connection strings: Server=db;User Id=sa;Password=…; (Pwd= too).
    _rule(
        "connection-string",
        "password pwd",
        r"(?i);[ \t]*(?:password|pwd)[ \t]*=[ \t]*(?P<s>[^;'\"\r\n{}]{1,300})",
        tier=TIER_GENERIC,
        check=_value_ok,
        needs=";",
    ),
    _rule(
        "auth-header",
        "authorization -key -token -secret",
        r"(?i)(?<![\w-])(?:(?:proxy-)?authorization|x-api-key|api-key|x-auth-token|x-access-token|x-goog-api-key"
        r"|ocp-apim-subscription-key|private-token|x-[a-z0-9-]{1,40}-(?:token|key|secret))[\"']?[ \t]*[:=][ \t]*[\"']?"
        r"(?:(?:bearer|basic|token|digest|apikey|api-key|key|sso-key|aws4-hmac-sha256)[ \t]+)?"
        r"(?P<s>[A-Za-z0-9._~+/=:@!%*-]{3,4000})",
        tier=TIER_GENERIC,
        check=_header_ok,
        reach=4200,
        near=re.compile(r"[\w-]{0,40}[\"']?[ \t]*[:=]"),
        needs=":=",
    ),
    # curl -u user:password / --user user:password: a Basic Authorization header in the making.
    _rule(
        "auth-header",
        "-u",
        r"(?<![\w-])(?:-u|--user)[ \t]+[\"']?(?P<user>[^\s:\"'$-][^\s:\"']{0,99}):(?P<s>[^\s\"']{1,300})",
        tier=TIER_GENERIC,
        check=_curl_user_ok,
        reach=_NAME_REACH,
        near=re.compile(r"-u(?:ser)?[ \t]"),
        needs=":",
    ),
    _rule(
        "cookie",
        "cookie",
        r"(?i)(?<![\w-])(?:(?:set-)?cookie[\"']?[ \t]*:|--cookie[ \t=])[ \t]*[\"']?(?P<val>[^\r\n\"']{1,8000})",
        tier=TIER_GENERIC,
        spans=_cookie_spans,
        reach=8200,
        near=re.compile(r"cookie(?:[\"']?[ \t]*:|[ \t=])"),
        needs=":-",
    ),
    # Shell / .env / Dockerfile: NAME=value with an upper-case NAME (export NAME=… too).
    _rule(
        "env-secret",
        _NAME_KW,
        rf"(?<![\w$.{{/-])(?P<name>[A-Z_][A-Z0-9_]{{0,80}})=(?:{_QUOTED_VALUE}|(?P<bare>{_BARE_CHARS}{{1,500}}))",
        groups=("dq", "sq", "bare"),
        tier=TIER_ASSIGN,
        check=_env_ok,
        reach=_NAME_REACH,
        near=_ENV_NEAR,
        needs="=",
    ),
    # Code: password = "…", api_key: '…', "token": "…", cfg["secret"] = "…", key: str = "…".
    # Comparisons (token == "lambda") are left alone: parsers are full of them.
    _rule(
        "password-assignment",
        _NAME_KW,
        r"(?<![\w.-])(?P<name>[A-Za-z_@$][\w.-]{0,80})[\"']?\]?[ \t]*"
        r"(?::[ \t]*[A-Za-z_][\w\[\]|., ]{0,40}?[ \t]*)?"  # an optional type annotation
        rf"(?::=|=>|:|=(?!=))[ \t]*{_QUOTED_VALUE}",
        groups=("dq", "sq"),
        tier=TIER_ASSIGN,
        check=_named_value_ok,
        reach=_NAME_REACH,
        near=_ASSIGN_NEAR,
        needs=":=",
    ),
    # YAML and "Label: value" lines: password: hunter2
    _rule(
        "password-assignment",
        _NAME_KW,
        r"(?m)^[ \t]*(?:-[ \t]+)?[\"']?(?P<name>[A-Za-z_][\w.-]{0,80})[\"']?[ \t]*:[ \t]+"
        r"(?P<s>[^\s\"'#{}\[\]()|,;&<>*!%@`=$][^\n#\"'\[\](){}=;<>$,|]{0,499}?)[ \t\r]*(?:#[^\n]*)?$",
        tier=TIER_ASSIGN,
        check=_yaml_ok,
        reach=_NAME_REACH,
        near=_YAML_NEAR,
        needs=":",
    ),
    # -p PASSWORD after a login command (docker/helm/podman login, sshpass), and mysql -pPASSWORD.
    _rule(
        "password-assignment",
        "login sshpass",
        r"(?:\blogin|\bsshpass)\b[^\n|;&]{0,200}?[ \t]-p[ \t]+"
        rf"(?:{_QUOTED_VALUE}|(?P<bare>[^\s\"'`;&|<>-]{_BARE_CHARS}{{0,299}}))",
        groups=("dq", "sq", "bare"),
        tier=TIER_ASSIGN,
        check=_value_ok,
        reach=_NAME_REACH,
        near=re.compile(r"(?:login|sshpass)\b[^\n|;&]{0,200}?[ \t]-p[ \t]"),
        needs="-",
        holds="-p",
    ),
    _rule(
        "password-assignment",
        "mysql mariadb",
        r"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]{0,200}?[ \t]-p(?P<s>[^\s\"'`;&|<>-][^\s\"'`;&|<>]{0,299})",
        tier=TIER_ASSIGN,
        check=_value_ok,
        reach=_NAME_REACH,
        needs="-",
        holds="-p",
    ),
    # Command-line flags: --api-key xyz, --password=xyz.
    _rule(
        "password-assignment",
        _NAME_KW,
        rf"--(?<![\w-]--)(?P<name>[A-Za-z][\w-]{{0,60}})(?:=|[ \t]+)"
        rf"(?:{_QUOTED_VALUE}|(?P<bare>[^\s\"'`;&|<>-]{_BARE_CHARS}{{0,499}}))",
        groups=("dq", "sq", "bare"),
        tier=TIER_ASSIGN,
        check=_named_value_ok,
        reach=_NAME_REACH,
        near=_FLAG_NEAR,
        needs="-",
    ),
)
