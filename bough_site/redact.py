"""Secrets out of every string, before anything is rendered or written.

Transcripts are full of secrets: ``.env`` files a tool read, tokens a command
echoed, ``Authorization`` headers inside exception text, private keys. Every
string taken from a transcript passes through :class:`Redactor` at the data
layer, so pages, sidecars, the search index, titles and file names all see the
redacted text.

How it works (the shape gitleaks uses, our own rules):

- A table of :class:`Rule`: a kind, a few cheap literal keywords, one compiled
  regex and which group of it is the secret. A rule's regex only runs when one
  of its keywords occurs in the string (checked with ``in``/``find``, on the
  lower-cased string for generic rules and on the string itself for provider
  prefixes); a string with no keyword at all comes back at once.
- The token shapes of ``redact_rules.SHAPES`` (a provider's prefix or signature,
  then the alphabet and length of each part: ``shpat_…``, ``dckr_pat_…``, Azure's
  ``…AzFu…``) are found the other way round: the string is cut into runs of 20 or
  more token characters (``_runs``, in C), and only those runs, joined into one
  text (``_Runs``), meet one trie of every prefix and one alternation of every
  signature; a hit is confirmed by its shape's own pattern. So a key pasted as
  prose is found by its look alone.
- A shape may stand right after "_" (``backup_<key>.txt``, ``mcp__<key>__query``) and
  before it where its format says where it ends; a letter or digit before a prefix still
  makes it none (docs/redaction.md, "Word joins"). A known vendor prefix (``Shape.vendor``:
  ``sntrys_``, ``ghp_`` …) that no shape confirms is still that vendor's key when a long
  random run follows it (``_loose_vendor_key``).
- Keys with no prefix at all (32 hex, 40 base64: ``redact_rules.CONTEXT_SHAPES``) count
  only in a sentence that names their provider (``_named_provider_keys``); the tokens are
  found first, from what the other searches made, and the names looked for around them.
- The fallback, over the same runs, for keys no shape names: ``prefixed-key`` (a
  vendor-like prefix and then 32 or more random letters and digits) and
  ``keyword-secret`` (a random token of 24 or more characters in the same sentence
  as key, token, secret, password …). Random is ``looks_random``: upper, lower and
  digits, frequent class changes, short lower-case runs, high entropy; so no git
  SHA, UUID, hash or CamelCase name qualifies, and agents' ids (``msg_``,
  ``toolu_``, ``call_`` …) are skipped. There is no entropy-only rule over the
  whole text: it would flag every base64 image.
- Before any keyword is looked up, each rule's ``needs`` (characters of which
  every match holds one: the ``=`` of ``NAME=value``, the ``-`` of ``sk-``)
  are checked with one single-character ``in`` each, far cheaper than a
  substring search per keyword; prose and logs with no ``=``, ``:`` or ``_``
  skip nearly every keyword that way. A rule that cannot match is never run,
  so this changes no output.
- Generic rules whose keywords are everywhere in code ("key", "token") run
  only on the lines where such a keyword is followed by their operator
  (``=``, ``:``), not over the whole string. A provider rule whose every match is
  a run of token characters (``Rule.in_runs``) looks its keywords up in the runs
  of a long string only; a rule whose matches start with one of a few characters
  (``Rule.starts``) is tried only where they are.
- A string's candidates are kept per process (``_FOUND``), a short string's
  result also per Redactor: files read again, a resumed session's copied history
  and repeated ids are searched once. Large patterns are compiled when first used.
- Every quantifier is bounded and none is nested, so a 5 MB base64 blob costs a
  few linear scans.
- Overlaps: a private key block beats everything inside it; provider rules (a
  known prefix or shape: ``ghp_…``, ``AKIA…``, JWTs …) beat generic ones; among
  generic ones URLs, headers and cookies beat ``NAME=value`` / ``name: "value"``
  (so ``{"Authorization": "Bearer x"}`` keeps its ``Bearer``); the fallback loses
  to everything. On a tie the older rules win over the shapes.
- ``value`` redacts the keys of a JSON object as well as its values: a key name comes
  back as it was, a secret used as a key becomes its label (docs/redaction.md, "Secrets
  used as keys").
- A secret becomes ``[redacted: KIND FINGERPRINT]``: FINGERPRINT is the first 8
  hex digits of HMAC-SHA256(key, secret). The same secret gets the same label
  wherever it appears; the label cannot be reversed (a keyed hash, so short
  passwords cannot be brute-forced from a published page). Only the secret part
  is replaced: ``Authorization: Bearer `` and ``API_KEY=`` stay.
- Generic rules skip what is plainly not a secret: ``$VAR``/``${VAR}``
  references, ``<token>``, ``changeme``, ``xxx``, ``your-api-key-here``, empty
  values, booleans, values holding one of our labels (so redacting twice
  changes nothing), and names that describe a secret rather than hold it
  (``PASSWORD_MIN_LENGTH``, ``TOKEN_URL``, ``MAX_TOKENS``, ``input_tokens``).
  Provider rules skip nothing: a placeholder that has a real key's exact shape
  is redacted (over-redacting is cheap, under-redacting is a leak).

Decisions worth knowing:

- ``user:pass@host`` and ``user:password@host`` (the documentation examples)
  survive; any other password in a URL is redacted, as are secret-named query
  parameters (``?access_token=``, ``&password=``, ``X-Amz-Signature=``) and the
  first field of ``curl -d``, also under the kind ``url-password`` (which covers
  the signatures of Azure SAS, AWS, Google Cloud Storage and CloudFront signed
  URLs). ``;Password=…`` / ``;Pwd=…`` in ADO.NET, ODBC and JDBC connection strings
  is ``connection-string``.
- ``curl -u user:password`` becomes ``auth-header`` (it is a Basic header);
  all-digit pairs such as ``-u 1000:1000`` (uid:gid) survive.
- A ``NAME=value`` assignment needs an upper-case NAME (shell, ``.env``,
  Dockerfile); lower-case ``token=token`` keyword arguments in code are not
  assignments of secrets. An unquoted value runs to the next white space.
  Quoted values in code (``password = "…"``, ``api_key: '…'``), YAML lines
  (``password: hunter2``) and CLI flags (``--api-key xyz``) are
  ``password-assignment``; comparisons (``token == "lambda"``) and annotations
  (``password: str``, ``api_key: SecretStr``) are not.
- An upper-case NAME whose last word is ``KEY`` (``ENCRYPTION_KEY=…``) counts as
  a secret name too; an all-digit value of a secret name is redacted.
- OpenAI's rule takes any ``sk-`` + 32 or more letters and digits, so other
  providers' keys of that shape (DeepSeek and the like) are ``openai-key``.
- A private key block with no END line is redacted to the end of the string.
- In a sensitive file (``file_text``) every value is redacted; a value that no
  provider rule names is ``sensitive-file`` (even ``DEBUG=true``).
- ``home``/``user`` (the --redact-paths option): the home path is replaced
  first (``/home/alice/x`` -> ``~/x``), then the user name wherever it is a
  whole word in the regex sense (letters, digits and ``_`` are word
  characters), so the mangled project name ``-home-alice-app`` becomes
  ``-home-~-app``, ``/home/alice-old`` becomes ``/home/~-old`` and
  ``alice@host`` becomes ``~@host``, but ``alice_x`` stays. The match is
  case-sensitive; a user name shorter than 2 characters is ignored. Labels are
  never touched by this replacement, and fingerprints are of the original text.
"""

from __future__ import annotations

import bisect
import collections
import functools
import hashlib
import hmac
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .redact_rules import CONTEXT_SHAPES, SHAPES, ContextShape, Shape

__all__ = ["RULES", "Redactor", "Rule", "is_sensitive_path"]

Span = tuple[int, int]

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
# What is not a secret: placeholders, references and descriptive names.
# --------------------------------------------------------------------------

_PLACEHOLDER_WORDS = frozenset(  # one string, split: easier to read and extend than a list literal
    """
    changeme change-me change_me changeit password passwd pass pwd secret secrets token tokens
    apikey api_key api-key key example sample dummy placeholder redacted hidden masked none null
    nil undefined true false yes no on off todo tbd fixme bearer basic digest string str int
    bool bytes number any optional required secretstr header headers default empty env plain
    login anonymous oauth oauth2 xoauth2 oauthbearer cram-md5 digest-md5 ntlm gssapi kerberos
    """.split()  # noqa: SIM905
)

# A value that refers to a secret instead of holding it, or is plainly fake.
_PLACEHOLDER_PATTERN = (
    r"""^(?:
        \$.*                                  # $VAR ${VAR} $(command)
      | %[\w(].*                              # %VAR% %s %(name)s
      | \{\{.*                                # {{ template }}
      | \{[\w.]*\}                            # {name} (format fields)
      | <[^<>]*>                              # <token>
      | .*\[redacted:.*                       # holds our own label: redaction is idempotent
      | \**redacted\**                        # ***REDACTED***
      | (?:your|my)[-_\ ](?:[a-z0-9]+[-_\ ]){0,4}(?:key|token|secret|password|passwd|pass|pwd|id|value)
        (?:[-_\ ]goes)?(?:[-_\ ]here)?       # your-api-key-here, YOUR_TOKEN (not my_dog_rex_2019)
      | .*[-_]here                            # insert-key-here
      | (.)\1*                                # xxx **** 0000
      | [x*._-]*x{3,}[x*._-]*                 # xxx-xxx, xxxx_xxxx
      | (?:process\.env|os\.environ|os\.getenv|getenv|env|self|this|settings|config)[.(\[].*
    )$"""
)


@functools.cache
def _placeholder_re() -> re.Pattern[str]:
    return re.compile(_PLACEHOLDER_PATTERN, re.IGNORECASE | re.VERBOSE | re.DOTALL)


def is_placeholder(value: str) -> bool:
    """True when a value found by a generic rule is not worth redacting."""
    v = value.strip()
    return not v or v.lower() in _PLACEHOLDER_WORDS or _placeholder_re().match(v) is not None


# Words in a name that say it describes a secret instead of holding one
# (PASSWORD_MIN_LENGTH, TOKEN_URL, MAX_TOKENS, input_tokens, AUTH_TYPE ...).
_NOT_SECRET_WORDS = frozenset(  # one string, split: easier to read and extend than a list literal
    """
    min max length len url uri urls endpoint endpoints host hostname port path paths file files
    filename dir directory folder ttl expiry expires expire expiration expired timeout lifetime
    age limit limits count counter size type kind enabled enable disabled disable required
    header name field label method mode provider algorithm alg retries retry input output budget
    version format scope scopes issuer audience strategy cost usage tokens prefix location
    region arn user username login email policy rotation backend class manager stdin env var ref pair
    helper cache valid validity regex pattern template hint level allowed public publishable
    primary sort partition foreign next page pagination continuation cursor
    """.split()  # noqa: SIM905
)

_WORD_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def _name_words(name: str) -> list[str]:
    """``NEXTAUTH_SECRET`` -> nextauth, secret; ``apiKeyId`` -> api, key, id."""
    return [w.lower() for w in _WORD_RE.findall(name)]


def is_secret_name(name: str, *, key_suffix: bool = False, query: bool = False) -> bool:
    """Does this variable, key or flag name hold a secret?

    Contains SECRET, TOKEN, PASSWORD, PASSWD, PASSPHRASE, PWD, CREDENTIAL,
    API_KEY/APIKEY, ACCESS_KEY, PRIVATE_KEY or the word AUTH (not AUTHOR),
    and no word from _NOT_SECRET_WORDS. ``key_suffix``: a last word KEY counts
    (upper-case env names). ``query``: KEY, SIG and SIGNATURE count (URLs).
    """
    words = _name_words(name)
    if not words or words in (["pwd"], ["oldpwd"]):  # the shell's working directory
        return False
    if any(w in _NOT_SECRET_WORDS or w.startswith("tokeniz") for w in words):
        return False
    for i, w in enumerate(words):
        if any(k in w for k in ("password", "passwd", "passphrase", "secret", "credential", "token")):
            return True
        if w.endswith("pwd") or w in ("apikey", "accesskey", "privatekey", "authkey"):
            return True
        if w.endswith("auth") or w == "authorization" or (w.startswith("auth") and not w.startswith("author")):
            return True
        if w == "key" and i > 0 and words[i - 1] in ("api", "access", "private"):
            return True
        if query and w in ("key", "sig", "signature"):
            return True
    return key_suffix and len(words) >= 2 and words[-1] == "key"


def _value_ok(m: re.Match[str], secret: str) -> bool:
    return not is_placeholder(secret)


_IDENTIFIER_RE = re.compile(r"[a-z_][a-z_]*(?:\.[a-z_]+)*")
_TYPE_NAME_RE = re.compile(r"[A-Z][A-Za-z_]*(?:\.[A-Za-z_]+)*")


def _header_ok(m: re.Match[str], secret: str) -> bool:
    # {'Authorization': auth, ...} and authorization=authorization) are code, not headers.
    after = m.string[m.end() : m.end() + 1]
    if after and after in ",)}" and _IDENTIFIER_RE.fullmatch(secret):
        return False
    return not is_placeholder(secret)


def _yaml_ok(m: re.Match[str], secret: str) -> bool:
    # "    api_key: SecretStr" is a class attribute's annotation, not a value.
    return _named_value_ok(m, secret) and _TYPE_NAME_RE.fullmatch(secret.strip()) is None


def _named_value_ok(m: re.Match[str], secret: str) -> bool:
    return is_secret_name(m.group("name")) and not is_placeholder(secret)


def _env_ok(m: re.Match[str], secret: str) -> bool:
    return is_secret_name(m.group("name"), key_suffix=True) and not is_placeholder(secret)


def _query_ok(m: re.Match[str], secret: str) -> bool:
    return is_secret_name(m.group("name"), query=True) and not is_placeholder(secret)


def _url_password_ok(m: re.Match[str], secret: str) -> bool:
    # "pass" and "password" are what documentation writes: user:pass@host.
    return secret.lower() not in ("pass", "password") and not is_placeholder(secret)


def _curl_user_ok(m: re.Match[str], secret: str) -> bool:
    # -u 1000:1000 is a uid:gid (docker), not a login.
    return not (secret.isdigit() and m.group("user").isdigit()) and not is_placeholder(secret)


_COOKIE_PAIR = re.compile(r"(?P<n>[^=;,\s]{1,200})=(?P<v>[^;\r\n]{0,4000})")
_COOKIE_ATTRS = frozenset(  # one string, split: easier to read and extend than a list literal
    """
    path domain expires max-age samesite secure httponly priority partitioned version comment
    """.split()  # noqa: SIM905
)


def _cookie_spans(m: re.Match[str]) -> list[Span]:
    """Each cookie's value in a Cookie / Set-Cookie header, not its attributes."""
    base = m.start("val")
    out: list[Span] = []
    for p in _COOKIE_PAIR.finditer(m.group("val")):
        value = p.group("v").rstrip()
        if p.group("n").lower() in _COOKIE_ATTRS or is_placeholder(value):
            continue
        start = base + p.start("v")
        out.append((start, start + len(value)))
    return out


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

_DENSE_HITS = 1000  # more keyword hits than this, one every 50 characters or closer: search the whole string
_BACK = 120  # how far before a keyword a windowed rule's match can start (name <= 81, plus "--data '" etc.)


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


# A short string is checked against all keywords at once (one regex call instead of one `in`
# per keyword: most transcript strings are ids, names and times of 20-40 characters).
_SHORT = 200


def _trie(words: list[str]) -> str:
    """One regex matching any of ``words``, factored by common prefixes (the engine then
    tests one character per branch instead of every word at every position)."""
    tree: dict[str, Any] = {}
    for w in words:
        node = tree
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        alts = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = "(?:" + "|".join(alts) + ")"
        return body + "?" if "" in node else body

    return build(tree)




@functools.cache
def _any_keyword() -> re.Pattern[str]:
    """Any keyword of any rule, lower-case (compiled when first used, like every large pattern here)."""
    return re.compile(_trie(sorted({k.lower() for r in RULES for k in r.keywords})))


# Sets of rules are bit masks (bit i: RULES[i]): a few int operations per string instead of set unions.
# (keyword, case-sensitive?, the rules it unlocks, whether all of them are Rule.in_runs): each
# distinct keyword is scanned once.
_KEYWORD_RULES: tuple[tuple[str, bool, int, bool], ...] = tuple(
    (kw, case, mask, all(RULES[i].in_runs for i in range(len(RULES)) if mask >> i & 1))
    for kw, case, mask in (
        (kw, case, sum(1 << i for i, r in enumerate(RULES) if kw in r.keywords and r.case_sensitive == case))
        for kw, case in sorted({(k, r.case_sensitive) for r in RULES for k in r.keywords})
    )
)
# Character -> the rules that need it (Rule.needs), and the rules that need nothing.
_GATES: tuple[tuple[str, int], ...] = tuple(
    (c, sum(1 << i for i, r in enumerate(RULES) if c in r.needs)) for c in sorted({c for r in RULES for c in r.needs})
)
_UNGATED = sum(1 << i for i, r in enumerate(RULES) if not r.needs)
# Literal -> the rules whose every match holds it (Rule.holds).
_HOLDS: tuple[tuple[str, int], ...] = tuple(
    (h, sum(1 << i for i, r in enumerate(RULES) if r.holds == h)) for h in sorted({r.holds for r in RULES if r.holds})
)


def _live_rules(s: str) -> int:
    """The rules that can match somewhere in s: those holding one of the characters they need
    (Rule.needs) and the literal they hold (Rule.holds)."""
    live = _UNGATED
    for char, rules in _GATES:
        if char in s:  # a single character: memchr, several times faster than a keyword's find
            live |= rules
    for literal, rules in _HOLDS:
        if live & rules and literal not in s:
            live &= ~rules
    return live


# Lower-case keywords that start with "-" ("-key", "-token", "-u" ...) and hold no other "-" are
# looked up together: the engine finds a pattern's literal first character as fast as str.find
# finds a keyword, then tries each of them there. No one of them can start inside another's
# match (their "-" is only at the start), so every place each one occurs is seen.
_DASH_KEYWORDS = tuple(sorted({k.lower() for r in RULES if not r.case_sensitive for k in r.keywords
                               if k.startswith("-") and "-" not in k[1:]}))


@functools.cache
def _dash_keywords_re() -> re.Pattern[str]:
    return re.compile(_trie(list(_DASH_KEYWORDS)))


# --------------------------------------------------------------------------
# Token shapes (redact_rules.SHAPES) and the fallback for unknown keys.
#
# A token is a run of token characters. The string is mapped to one byte per
# character (ASCII, anything else "?"), each byte to "a" (token character) or
# " " (any other), and runs of _RUN_MIN or more are found with bytes.find: all
# in C, a few milliseconds per megabyte. Only those runs (a few percent of a
# transcript's text) are searched by the prefix trie, the signatures and the
# fallback, which is what keeps the shapes cheap.
#
# The runs are joined, one space between two, into one text (_Runs), and each
# pattern searches that text once instead of each run on its own (a long listing
# has thousands of runs: a Python call per run and pattern cost more than the
# search). That finds the same matches as a search of each run in s
# (``finditer(s, lo, hi)``), because of what the patterns are made of: every
# character a pattern consumes is a token character and the space is none, so
# no match spans two runs; every lookahead and lookbehind asks for token
# characters (``(?<![A-Za-z0-9])``, ``(?![A-Za-z0-9_+/=-])``), and what stands
# beside a run, in s a character that is no token character or the string's
# end, in the joined text a space or its end, is never one; and no pattern uses
# ``$``, ``\b`` or a positive lookahead. tests/test_redact_shapes.py checks
# these facts for every pattern; tests/test_redact_same.py checks the output
# against the search run by run.
# --------------------------------------------------------------------------

_RUN_MIN = 20  # the shortest shape (SCW + 17) and the fallbacks' shortest token fit
_RULE_RUN_MIN = 15  # the shortest match of a Rule.in_runs rule (Slack's xoxb- and 10 more)
_RUN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.+/=:~$!@%")
_RUN_MAP = bytes(0x61 if chr(b) in _RUN_CHARS else 0x20 for b in range(256))


def _runs(s: str, least: int = _RUN_MIN) -> list[Span]:
    """The runs of token characters in s that are ``least`` long or longer."""
    mapped = s.encode("ascii", "replace").translate(_RUN_MAP)  # one byte per character: offsets match s
    needle = b"a" * least
    out: list[Span] = []
    pos = mapped.find(needle)
    while pos >= 0:  # pos is a run's first character: the run before it ended at a space
        end = mapped.find(b" ", pos + least)
        if end < 0:
            out.append((pos, len(mapped)))
            break
        out.append((pos, end))
        pos = mapped.find(needle, end)
    return out


class _Runs:
    """Runs of s (``spans``) joined into one ``text``, a space between two.

    A position q of the text is ``q + delta`` in s, delta from ``at(q)``.
    """

    __slots__ = ("_starts", "spans", "text")

    def __init__(self, s: str, spans: list[Span]) -> None:
        self.spans = spans
        self.text = s if spans == [(0, len(s))] else " ".join([s[lo:hi] for lo, hi in spans])
        self._starts: list[int] | None = None  # where each run starts in the text, once a match needs it

    def at(self, q: int) -> tuple[int, int]:
        """The run holding position q of the text, and what to add to q for its position in s."""
        starts = self._starts
        if starts is None:
            starts, pos = [], 0
            for lo, hi in self.spans:
                starts.append(pos)
                pos += hi - lo + 1
            self._starts = starts
        k = bisect.bisect_right(starts, q) - 1
        return k, self.spans[k][0] - starts[k]


_SHAPE_BASE = 10_000  # a shape's rule order: after every rule, so rules win ties
_PREFIXED_SHAPES = [(i, sh) for i, sh in enumerate(SHAPES) if not sh.legacy and sh.prefix]
_ANCHORED_SHAPES = [(i, sh) for i, sh in enumerate(SHAPES) if not sh.legacy and sh.anchor]


# Known vendor prefixes (Shape.vendor: sntrys_, ghp_, dp.st. …, of the older rules' shapes
# too) -> the kind and order of their first shape. A vendor prefix followed by a long random
# run is that vendor's key even when the run is not the layout the vendor documents
# (_loose_vendor_key). Each prefix names one kind (tests/test_redact_joins.py checks).
_VENDORS: dict[str, tuple[str, int]] = {}
# Vendor prefix -> the longer literal prefixes of its shapes (bedrock-api-key-YmVk…29t): text
# that holds one of them is that fixed text, not part of a random run.
_VENDOR_LITERALS: dict[str, list[str]] = collections.defaultdict(list)
for _i, _sh in enumerate(SHAPES):
    if _sh.vendor:
        _VENDORS.setdefault(_sh.vendor, (_sh.kind, _SHAPE_BASE + _i))
        if len(_sh.prefix) > len(_sh.vendor):
            _VENDOR_LITERALS[_sh.vendor].append(_sh.prefix)
for _v in _VENDOR_LITERALS:
    _VENDOR_LITERALS[_v].sort(key=len, reverse=True)
_VENDOR_BY_HEAD: dict[str, list[str]] = collections.defaultdict(list)
for _v in sorted(_VENDORS, key=lambda v: (-len(v), v)):  # longest first
    _VENDOR_BY_HEAD[_v[:2]].append(_v)
# The run after a vendor prefix is of base64 and base64url characters, 24 to 1024 of them;
# _BodyEnds finds where it ends from the places of the other characters.
_VENDOR_BODY_LEAST, _VENDOR_BODY_MOST = 24, 1024
_NOT_BODY_RE = re.compile(r"[^A-Za-z0-9+/=_-]")


@functools.cache
def _prefix_re() -> re.Pattern[str]:
    """One trie of every shape's prefix and every vendor prefix, not preceded by a letter or
    digit (an "_" may stand before: backup_<key>, mcp__<key>)."""
    return re.compile(r"(?<![A-Za-z0-9])" + _trie([sh.prefix for _, sh in _PREFIXED_SHAPES] + list(_VENDORS)))

_BY_HEAD: dict[str, list[tuple[int, Shape]]] = collections.defaultdict(list)
for _i, _sh in _PREFIXED_SHAPES:
    _BY_HEAD[_sh.prefix[:2]].append((_SHAPE_BASE + _i, _sh))
_BY_ANCHOR: dict[str, list[tuple[int, Shape]]] = collections.defaultdict(list)
for _i, _sh in _ANCHORED_SHAPES:
    _BY_ANCHOR[_sh.anchor or ""].append((_SHAPE_BASE + _i, _sh))
_SHORT_ANCHORS = tuple(sorted(a for a in _BY_ANCHOR if len(a) < 3))
_LONG_ANCHOR_RE = re.compile("|".join(re.escape(a) for a in sorted(_BY_ANCHOR, key=lambda a: (-len(a), a)) if len(a) >= 3))
# How far from its signature a shape's match may reach: the longest such shape.
_ANCHOR_REACH = max(sh.longest for _, sh in _ANCHORED_SHAPES)
# A run longer than this is encoded data (base64, hex), not a pasted key: the fallback skips it.
_FALLBACK_MAX_RUN = 65536

# The fallback for keys no shape names, used only where a token looks like a key:
# - "prefixed-key": a vendor-like prefix (a word, "_" or "-", maybe a second word) and then a
#   random run of 32 or more letters and digits;
# - "keyword-secret": a random token of 24 or more characters in the same sentence as a word
#   such as key, token, secret or password (before it, or just after it).
# Random means: upper-case, lower-case and digits all present, the character class changing
# often, short runs of lower-case letters (CamelCase names have words) and a high Shannon
# entropy. Lower-case hex (git SHAs, digests, UUIDs) never qualifies, and known id prefixes
# (msg_, toolu_, call_ ...) are skipped.
_PREFIXED_KEY_RE = re.compile(
    r"(?<![A-Za-z0-9_.-])(?P<p>[A-Za-z][A-Za-z0-9]{1,11}[_-](?:[A-Za-z0-9]{1,11}[_-])?)"
    r"(?P<r>[A-Za-z0-9]{32,256})(?:[_-][A-Za-z0-9]{1,64})?(?![A-Za-z0-9_+/=-])"
)
# "keyword-secret" candidates: whole tokens of 24 to 256 letters, digits and _+/=-, and only
# those holding an upper-case letter, a lower-case letter and a digit (looks_random wants all
# three): most long names in code lack a digit or a capital, and three bounded lookaheads at
# a token's start cost less than a Python call per token.
_ALNUM_MAP = bytes(0x61 if chr(b).isascii() and chr(b).isalnum() else 0x20 for b in range(256))
_ALNUM_32 = b"a" * 32  # the shortest random part of a prefixed key (_PREFIXED_KEY_RE's "r")
_MIXED_TOKEN_RE = re.compile(
    r"(?<![A-Za-z0-9_+/=-])"
    r"(?=[A-Za-z_+/=-]{0,255}[0-9])(?=[a-z0-9_+/=-]{0,255}[A-Z])(?=[A-Z0-9_+/=-]{0,255}[a-z])"
    r"[A-Za-z0-9_+/=-]{24,256}(?![A-Za-z0-9_+/=-])"
)
_SECRET_WORD_RE = re.compile(
    r"(?<![a-z])(?:api[ _-]?keys?|keys?|tokens?|secrets?|passwords?|passwd|passphrase|credentials?|bearer)(?![a-z])"
)
_SENTENCE_END_RE = re.compile(r"[.!?](?:\s|$)|\n")
_KEYWORD_BEFORE = 80  # how far before a token its keyword may stand (same sentence)
_KEYWORD_AFTER = 40  # ... or after it ("Ab3… is my key")
# Ids that look random but are not secrets: Anthropic and OpenAI object ids, Stripe object ids,
# Subresource Integrity hashes.
_ID_PREFIXES = frozenset(  # one string, split: easier to read and extend than a list literal
    """
    msg toolu srvtoolu req call resp rs fc ws ig ctc mcp chatcmpl cmpl file batch msgbatch run thread
    asst step vs org proj user evt ch cus pi pm seti sub in ii price prod txn acct cs po tr src tok
    sha1 sha224 sha256 sha384 sha512 md5
    """.split()  # noqa: SIM905
)
_ID_HEAD_RE = re.compile(r"[_-]")
_LOWER_RUN_RE = re.compile("a+")
_CLASS_RUN_RE = re.compile("A+|a+|0+")
_CLASS_MAP = str.maketrans(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
    "A" * 26 + "a" * 26 + "0" * 10,
)
_ASCII_NOT_ALNUM = dict.fromkeys(c for c in range(128) if not chr(c).isalnum())  # str.translate deletes these


def looks_random(token: str, *, least: int) -> bool:
    """Does the letters-and-digits part of ``token`` (``least`` or more of them) look randomly drawn?"""
    if token.isascii():  # every token the fallback meets: one translate instead of a test per character
        alnum = token.translate(_ASCII_NOT_ALNUM)
    else:
        alnum = "".join(ch for ch in token if ch.isascii() and ch.isalnum())
    n = len(alnum)
    if n < least:
        return False
    classes = alnum.translate(_CLASS_MAP)
    if "A" not in classes or "a" not in classes or "0" not in classes:
        return False
    changes = len(_CLASS_RUN_RE.findall(classes)) - 1  # one fewer than the runs of one class
    if changes < 0.35 * (n - 1):  # random base62 changes class at about 60% of positions
        return False
    lower_runs = _LOWER_RUN_RE.findall(classes)
    if sum(map(len, lower_runs)) >= 3 * len(lower_runs):  # CamelCase words; random averages 1.7
        return False
    counts = collections.Counter(alnum)
    entropy = -sum(k / n * math.log2(k / n) for k in counts.values())
    return entropy >= min(4.0, 0.85 * math.log2(n))


def _is_id(token: str) -> bool:
    head = _ID_HEAD_RE.split(token, maxsplit=1)[0].lower()
    return head in _ID_PREFIXES


def _shape_candidates(s: str, scan: _Scan) -> list[_Candidate]:
    """Every span of a known token shape, and of the fallback, in the token runs of s."""
    out: list[_Candidate] = []
    runs = scan.joined(_RUN_MIN)
    if not runs.spans:
        return out
    _prefixed(runs, out)
    _anchored(s, runs, out)
    if len(runs.text) > _FALLBACK_MAX_RUN and any(hi - lo > _FALLBACK_MAX_RUN for lo, hi in runs.spans):
        runs = _Runs(s, [(lo, hi) for lo, hi in runs.spans if hi - lo <= _FALLBACK_MAX_RUN])
    mapped = runs.text.encode("ascii").translate(_ALNUM_MAP)  # the runs' letters and digits: "a", the rest " "
    stretch = _ALNUM_32 in mapped  # 32 letters and digits in a row: most texts have none
    if stretch:
        _prefixed_keys(runs, out)
    wide = _keyword_secrets(s, scan, runs, out)
    if stretch or wide:
        _named_provider_keys(s, runs, mapped, stretch, wide, out)
    return out


def _prefixed(runs: _Runs, out: list[_Candidate]) -> None:
    """The shapes told by their prefix: one trie of every prefix, each hit confirmed by its shape;
    where no shape confirms it, a vendor prefix followed by a long random run (_loose_vendor_key)."""
    text = runs.text
    ends: _BodyEnds | None = None
    for m in _prefix_re().finditer(text):
        q = m.start()
        found = False
        for order, shape in _BY_HEAD.get(text[q : q + 2], ()):
            if text.startswith(shape.prefix, q):
                hit = shape.regex.match(text, q)
                if hit:
                    found = True
                    delta = runs.at(q)[1]
                    out.append((TIER_PROVIDER, q + delta, hit.end() + delta, shape.kind, order))
        if not found and text[q : q + 2] in _VENDOR_BY_HEAD:
            k, delta = runs.at(q)
            lo, hi = runs.spans[k]
            if hi - lo > _FALLBACK_MAX_RUN:  # encoded data, as for the fallback
                continue
            ends = ends or _BodyEnds(text)
            loose = _loose_vendor_key(text, q, ends)
            if loose is not None:
                out.append((TIER_FALLBACK, q + delta, loose[0] + delta, loose[1], loose[2]))


class _BodyEnds:
    """Where the run of a vendor key's body characters that starts at a position of one text
    ends: at the next other character (a space between runs, a "."), found by bisection in
    their places, which are listed when first asked for. So a text with a vendor prefix every
    few characters ("ghp_ghp_…") costs a bisection per prefix, not a scan of the run after each."""

    __slots__ = ("_breaks", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._breaks: list[int] | None = None

    def __call__(self, start: int) -> int:
        if self._breaks is None:
            self._breaks = [m.start() for m in _NOT_BODY_RE.finditer(self._text)]
            self._breaks.append(len(self._text))
        return self._breaks[bisect.bisect_left(self._breaks, start)]


def _loose_vendor_key(text: str, q: int, ends: Callable[[int], int]) -> tuple[int, str, int] | None:
    """(end, kind, order) of a key at q that starts with a known vendor prefix and goes on with a
    random run of 24 to 1024 base64 or base64url characters (``ends``: where such a run from a
    position ends), or None.

    The longest vendor prefix at q decides; where the text goes on with the rest of a shape's
    literal prefix, the run starts after it. Lower-case hex never looks random, so a git SHA
    after a prefix-like word is no key; a key of the vendor's documented layout is its shape's
    (a candidate of a lower tier, which wins)."""
    for vendor in _VENDOR_BY_HEAD.get(text[q : q + 2], ()):
        if text.startswith(vendor, q):
            start = q + len(vendor)
            for literal in _VENDOR_LITERALS.get(vendor, ()):
                if text.startswith(literal, q):
                    start = q + len(literal)
                    break
            end = ends(start)
            if not _VENDOR_BODY_LEAST <= end - start <= _VENDOR_BODY_MOST:
                return None
            if not looks_random(text[start:end], least=_VENDOR_BODY_LEAST):
                return None
            kind, order = _VENDORS[vendor]
            return end, kind, order
    return None


def _anchored(s: str, runs: _Runs, out: list[_Candidate]) -> None:
    """The shapes told by a signature inside them.

    A signature of three characters or more is rare: its shapes are searched only around
    each occurrence, within its run (a 5 MB base64 blob holds a few by chance). Shorter ones
    ("." "-" "Q~") are everywhere: their shapes search every run (a match holds its
    signature, so a run without it has none).
    """
    text = runs.text
    windows: dict[tuple[int, str], list[Span]] = {}  # (run, signature) -> stretches of s
    for a in _LONG_ANCHOR_RE.finditer(text):
        k, delta = runs.at(a.start())
        lo, hi = runs.spans[k]
        start, end = max(lo, a.start() + delta - _ANCHOR_REACH), min(hi, a.end() + delta + _ANCHOR_REACH)
        spans = windows.setdefault((k, a.group()), [])
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    for (_, anchor), spans in windows.items():
        for order, shape in _BY_ANCHOR[anchor]:
            for a, b in spans:
                out.extend((TIER_PROVIDER, *h.span(), shape.kind, order) for h in shape.regex.finditer(s, a, b))
    for anchor in _SHORT_ANCHORS:
        if anchor in text:
            for order, shape in _BY_ANCHOR[anchor]:
                for h in shape.regex.finditer(text):
                    delta = runs.at(h.start())[1]
                    out.append((TIER_PROVIDER, h.start() + delta, h.end() + delta, shape.kind, order))


def _prefixed_keys(runs: _Runs, out: list[_Candidate]) -> None:
    """Unknown keys with a vendor-like prefix and a random body. (The body is 32 letters and
    digits in a row, which most texts do not hold: _shape_candidates calls this only where
    the runs, mapped by one translate, hold them.)"""
    for m in _PREFIXED_KEY_RE.finditer(runs.text):
        if not _is_id(m.group("p")) and looks_random(m.group("r"), least=32):
            delta = runs.at(m.start())[1]
            out.append((TIER_FALLBACK, m.start() + delta, m.end() + delta, "prefixed-key", _SHAPE_BASE + len(SHAPES)))


def _keyword_secrets(s: str, scan: _Scan, runs: _Runs, out: list[_Candidate]) -> list[Span]:
    """Random tokens in the same sentence as a secret word (key, token, password ...).

    A token counts when it is no known id, its run has a secret word near it (from
    _KEYWORD_BEFORE characters before the run to _KEYWORD_AFTER after it), it looks
    random and a secret word stands in its own sentence: the tests in that order,
    the cheap and selective ones first.

    Returns where the tokens of _WIDE_LEAST characters or more are in the runs' text: the
    only places a random key of _named_provider_keys' wide shapes can be.
    """
    near: dict[int, bool] = {}  # run -> a secret word near it
    wide: list[Span] = []
    n = len(s)
    for m in _MIXED_TOKEN_RE.finditer(runs.text):
        token = m.group()
        if len(token) >= _WIDE_LEAST:
            wide.append(m.span())
        if _is_id(token):
            continue
        k, delta = runs.at(m.start())
        low = scan.low
        if k not in near:
            lo, hi = runs.spans[k]
            near[k] = _SECRET_WORD_RE.search(low, max(0, lo - _KEYWORD_BEFORE), min(n, hi + _KEYWORD_AFTER)) is not None
        if not near[k] or not looks_random(token, least=24):
            continue
        if _same_sentence_keyword(low, m.start() + delta, m.end() + delta):
            out.append((TIER_FALLBACK, m.start() + delta, m.end() + delta, "keyword-secret", _SHAPE_BASE + len(SHAPES) + 1))
    return wide


def _same_sentence_keyword(low: str, a: int, b: int) -> bool:
    """A secret word before [a, b) (within _KEYWORD_BEFORE) or after it (within _KEYWORD_AFTER), no sentence end between."""
    start = max(0, a - _KEYWORD_BEFORE)
    for m in _SECRET_WORD_RE.finditer(low, start, a):
        if _SENTENCE_END_RE.search(low, m.end(), a) is None:
            return True
    after = _SECRET_WORD_RE.search(low, b, min(len(low), b + _KEYWORD_AFTER))
    return after is not None and _SENTENCE_END_RE.search(low, b, after.start()) is None


# --------------------------------------------------------------------------
# Keys told by their provider's name (redact_rules.CONTEXT_SHAPES): 32 hex, 40 base64 …
# in a sentence that names Datadog, AWS, Cloudflare … Such tokens are rare in the runs,
# provider names are not rare in text, and looking a name up in every string would cost
# more than all the shapes (a find per name, over every character): so the tokens are found
# first, from what the other searches already made, and the names looked for only in the
# sentence around each. Two ways, by the shape's alphabet:
# - "stretch" shapes (32 or 37 letters and digits, nothing of their alphabet beside them):
#   a whole stretch of letters and digits of that length, found in the runs mapped to "a"
#   and " " (the bytes _prefixed_keys needs) with bytes.find;
# - "wide" shapes (random base64 or base64url): inside a token _MIXED_TOKEN_RE found (every
#   random token holds upper-case, lower-case and digits), one 40 characters or longer.
# --------------------------------------------------------------------------

_CONTEXT_BASE = _SHAPE_BASE + len(SHAPES) + 2  # a context shape's order: after the fallback's
_PROVIDER_BEFORE = 120  # how far before a token its provider's name may stand (same sentence)
_PROVIDER_AFTER = 60  # ... or after it ("… is the datadog key")
_ALNUM_CLASS = "A-Za-z0-9"


def _is_stretch(shape: ContextShape) -> bool:
    """One class of letters and digits only, with none of them allowed beside it."""
    if shape.before != _ALNUM_CLASS or shape.after != _ALNUM_CLASS or len(shape.parts) != 1:
        return False
    part = shape.parts[0]
    return not isinstance(part, str) and not any(re.match(f"[{part[0]}]", chr(c)) for c in _ASCII_NOT_ALNUM)


_STRETCH_BY_LENGTH: dict[int, list[int]] = collections.defaultdict(list)  # length -> stretch shapes
_WIDE_SHAPES: list[int] = []  # the others: random, so made of all three classes (tests/test_redact_joins.py)
for _j, _ctx in enumerate(CONTEXT_SHAPES):
    (_STRETCH_BY_LENGTH[_ctx.length] if _is_stretch(_ctx) else _WIDE_SHAPES).append(_j)
_WIDE_LEAST = min(CONTEXT_SHAPES[j].length for j in _WIDE_SHAPES)


_PROVIDER_WORDS = sorted({w for shape in CONTEXT_SHAPES for w in shape.words})


@functools.cache
def _provider_re() -> re.Pattern[str]:
    """Any provider's name, not inside a word; a name may go on ("cloudflared", "datadoghq"),
    but a name of three letters ("aws") must end."""
    alternatives = "|".join(w + ("(?![a-z])" if len(w) <= 3 else "") for w in _PROVIDER_WORDS)
    return re.compile("(?<![a-z0-9])(?:" + alternatives + ")", re.IGNORECASE | re.ASCII)


def _named_provider_keys(s: str, runs: _Runs, mapped: bytes, stretch: bool, wide: list[Span],
                         out: list[_Candidate]) -> None:
    """The tokens of CONTEXT_SHAPES whose provider is named in their sentence. ``stretch``:
    the mapped runs hold 32 letters and digits in a row; ``wide``: the tokens of
    _MIXED_TOKEN_RE _WIDE_LEAST or more long (positions in the runs' text)."""
    text = runs.text
    hits: list[tuple[int, int, int]] = []  # (start, end in the runs' text, shape)
    if stretch:
        pos = mapped.find(_ALNUM_32)
        while pos >= 0:
            end = mapped.find(b" ", pos + 32)
            end = len(mapped) if end < 0 else end
            for j in _STRETCH_BY_LENGTH.get(end - pos, ()):
                if CONTEXT_SHAPES[j].regex.fullmatch(text, pos, end):
                    hits.append((pos, end, j))
            pos = mapped.find(_ALNUM_32, end)
    for q, e in wide:
        for j in _WIDE_SHAPES:
            hits.extend((h.start(), h.end(), j) for h in CONTEXT_SHAPES[j].regex.finditer(text, q, e))
    named: dict[tuple[int, int], set[str]] = {}  # a token's providers, for the shapes that share it
    for q, e, j in hits:
        delta = runs.at(q)[1]
        a, b = q + delta, e + delta
        if (a, b) not in named:
            named[a, b] = _providers_named(s, a, b)
        if _named_key(CONTEXT_SHAPES[j], s[a:b], named[a, b]):
            out.append((TIER_PROVIDER, a, b, CONTEXT_SHAPES[j].kind, _CONTEXT_BASE + j))


def _named_key(shape: ContextShape, token: str, names: set[str]) -> bool:
    """Is a token of ``shape``, whose sentence names ``names``, that provider's key?"""
    if names.isdisjoint(shape.words):
        return False
    if shape.random:
        return looks_random(token, least=24)
    digits = sum(ch.isdigit() for ch in token)
    return 0 < digits < sum(ch.isalnum() for ch in token)  # hex: a letter and a digit


def _providers_named(s: str, a: int, b: int) -> set[str]:
    """The providers' names in the sentence of s[a:b]: before it (within _PROVIDER_BEFORE) or after
    it (within _PROVIDER_AFTER), no sentence end between, lower-cased as CONTEXT_SHAPES name them."""
    start = max(0, a - _PROVIDER_BEFORE)
    around = s[start : b + _PROVIDER_AFTER].lower()
    if not any(word in around for word in _PROVIDER_WORDS):  # nearly always: a few finds, no regex
        return set()
    found = _provider_re()
    out: set[str] = set()
    for m in found.finditer(s, start, a):
        if _SENTENCE_END_RE.search(s, m.end(), a) is None:
            out.add(m.group().lower())
    for m in found.finditer(s, b, min(len(s), b + _PROVIDER_AFTER)):
        if _SENTENCE_END_RE.search(s, b, m.start()) is not None:
            break
        out.add(m.group().lower())
    return out


# --------------------------------------------------------------------------
# Files that are sensitive as a whole.
# --------------------------------------------------------------------------

# Whole text replaced: key material and one-line credential files.
_KEY_FILE_RE = re.compile(
    r"""(?:
        .*\.(?:pem|key|p12|pfx|jks|keystore|ppk|p8)
      | id_(?:rsa|dsa|ecdsa|ed25519)(?:[._-].*)?
      | \.pgpass | \.htpasswd | \.git-credentials | \.vault-token
    )""",
    re.IGNORECASE | re.VERBOSE,
)
# Every value replaced: KEY=value, key: value and JSON lines.
_VALUE_FILE_RE = re.compile(
    r"""(?:
        \.env(?:\..*)? | .*\.env | \.envrc
      | \.npmrc | \.pypirc | \.netrc | _netrc | \.yarnrc(?:\.yml)? | \.my\.cnf | \.s3cfg | \.boto
      | \.dockercfg | \.terraformrc | .*\.tfvars
      | .*credentials(?:\.json|\.toml|\.ya?ml)? | client_secret.*\.json | service[-_]account.*\.json
      | auth\.json | secrets?\.(?:json|ya?ml|toml|env|ini) | \.secrets?
    )""",
    re.IGNORECASE | re.VERBOSE,
)
# Files known by their directory.
_VALUE_FILE_TAILS = (".docker/config.json", ".kube/config", ".aws/config", ".config/gh/hosts.yml")


def _basename(path: str) -> str:
    return path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]


def _is_key_file(path: str) -> bool:
    return _KEY_FILE_RE.fullmatch(_basename(path)) is not None


def is_sensitive_path(path: str) -> bool:
    """True for a file whose contents are secret as a whole (``.env``, keys, credentials)."""
    if not path:
        return False
    norm = path.replace("\\", "/").rstrip("/").lower()
    name = _basename(norm)
    return (
        _KEY_FILE_RE.fullmatch(name) is not None
        or _VALUE_FILE_RE.fullmatch(name) is not None
        or any(norm == t or norm.endswith("/" + t) for t in _VALUE_FILE_TAILS)
    )


# A line as a tool showed it: an optional "   12→" or "12<tab>" line number (Claude's Read),
# indentation, an optional "export " or "- ", then the rest.
_FILE_LINE_RE = re.compile(r"^(?:[ \t]*[0-9]{1,9}(?:\u2192|\t))?[ \t]*(?:export[ \t]+|-[ \t]+)?")
_COLON_SEP_RE = re.compile(r":(?=[ \t]|$)")
_NETRC_RE = re.compile(r"\b(?:password|login|account)[ \t]+(?P<s>\S{1,500})")


def _value_span(line: str, start: int) -> Span | None:
    """The value of one ``KEY=value`` / ``key: value`` / ``"key": "value",`` line body."""
    if start >= len(line) or line[start] in "#;[":
        return None
    eq = line.find("=", start)
    colon = _COLON_SEP_RE.search(line, start)
    seps = [p for p in (eq, colon.start() if colon else -1) if p >= 0]
    if not seps:
        return None
    a, b = min(seps) + 1, len(line)
    while a < b and line[a] in " \t":
        a += 1
    while b > a and line[b - 1] in " \t\r,":
        b -= 1
    quote = line[a] if a < b and line[a] in "\"'" else ""
    close = line.find(quote, a + 1, b) if quote else -1
    if close > a:  # "value" or 'value', maybe followed by a comment
        a, b = a + 1, close
    elif line.find(" #", a, b) >= 0:  # unquoted value with a trailing comment
        b = line.find(" #", a, b)
    value = line[a:b]
    if not value or value[0] in "{[" or value == "null":  # empty, JSON structure, [redacted: …] labels
        return None
    return a, b


def _file_value_spans(path: str, s: str) -> list[Span]:
    """The value of every assignment line in a sensitive file."""
    netrc = _basename(path).lower() in (".netrc", "_netrc")
    out: list[Span] = []
    pos = 0
    for line in s.splitlines(keepends=True):
        if netrc:
            out.extend((pos + m.start("s"), pos + m.end("s")) for m in _NETRC_RE.finditer(line))
        else:
            body = _FILE_LINE_RE.match(line)
            span = _value_span(line.rstrip("\r\n"), body.end() if body else 0)
            if span:
                out.append((pos + span[0], pos + span[1]))
        pos += len(line)
    return out


# --------------------------------------------------------------------------
# The redactor.
# --------------------------------------------------------------------------

_Candidate = tuple[int, int, int, str, int]  # tier, start, end, kind, rule order
_MEMO_SIZE = 50_000  # short strings remembered per Redactor (ids, paths and names repeat)


class Redactor:
    """Replace secrets in transcript strings with ``[redacted: KIND FINGERPRINT]``.

    ``key``: secret bytes for the keyed fingerprint (HMAC-SHA256).
    ``enabled``: when False, secrets are left alone (home/user replacement still applies).
    ``home``/``user``: when given, the home directory path and then the user name
    (as a whole word) are replaced with ``~`` in every string (--redact-paths).
    ``counts``: kind -> number of replacements made so far.
    """

    def __init__(self, key: bytes, *, enabled: bool = True, home: str | None = None, user: str | None = None) -> None:
        self._key = bytes(key)
        self.enabled = enabled
        self.counts: collections.Counter[str] = collections.Counter()
        self._fingerprints: dict[str, str] = {}
        self._memo: dict[str, tuple[str, tuple[str, ...]]] = {}  # short string -> (output, kinds replaced)
        # (literal, pattern) pairs for --redact-paths, applied in order: the home path, then the user name.
        self._path_subs: list[tuple[str, re.Pattern[str]]] = []
        home = (home or "").rstrip("/\\")
        if home:
            self._path_subs.append((home, re.compile(re.escape(home) + r"(?![\w-])")))
        if user and len(user) >= 2:
            self._path_subs.append((user, re.compile(r"(?<!\w)" + re.escape(user) + r"(?!\w)")))

    # ---- public ----

    def text(self, s: str) -> str:
        """Redact one string."""
        if not s:
            return s
        if len(s) > _SHORT:
            return self._apply(s, self._find(s) if self.enabled else [])
        # Short strings repeat a lot (ids, paths, names): remember what became of them.
        hit = self._memo.get(s)
        if hit is None:
            hit = self._replace(s, self._find(s) if self.enabled else [])
            if len(self._memo) < _MEMO_SIZE:
                self._memo[s] = hit
        if hit[1]:  # Counter.update is slow even with nothing to add, and most strings add nothing
            self.counts.update(hit[1])
        return hit[0]

    def value(self, v: Any) -> Any:
        """A copy of a JSON-like value with every str value and every str dict key redacted.

        A key is redacted as any string is: a key name ("command", "api_key") comes back as
        it was, a secret used as a key (an MCP server's input keyed by a token) becomes its
        label. Two keys that become the same string keep one of their values. Iterative,
        so nesting as deep as any JSON parser allows cannot hit the recursion limit. Tuples
        come back as lists (JSON has none).
        """
        if isinstance(v, str):
            return self.text(v)
        if not isinstance(v, (dict, list, tuple)):
            return v
        text = self.text
        holder: list[Any] = [None]
        stack: list[tuple[Any, Any, Any]] = [(v, holder, 0)]
        while stack:
            src, parent, slot = stack.pop()
            out: Any
            if isinstance(src, dict):
                out = {}
                items: Any = src.items()
            else:
                out = [None] * len(src)
                items = enumerate(src)
            parent[slot] = out
            for k, item in items:
                if isinstance(k, str):  # a dict's key (a list's are ints)
                    k = text(k)
                if isinstance(item, str):
                    out[k] = text(item)
                elif isinstance(item, (dict, list, tuple)):
                    out[k] = None  # its place in the order; filled when it comes off the stack
                    stack.append((item, out, k))
                else:
                    out[k] = item
        return holder[0]

    def file_text(self, path: str, s: str) -> str:
        """Text of a file a tool read or wrote.

        Like text(); for a sensitive file (is_sensitive_path) every value of a
        ``KEY=value`` / ``key: value`` line is redacted as well (``sensitive-file``
        unless a more specific rule names it), and key files (``*.pem``,
        ``*.key``, ``id_rsa*`` …) are replaced whole.
        """
        if not s or not self.enabled or not is_sensitive_path(path):
            return self.text(s)
        if _is_key_file(path):
            return self._apply(s, [(TIER_BLOCK, 0, len(s), "sensitive-file", -1)])
        spans = self._find(s)
        spans.extend((TIER_GENERIC, a, b, "sensitive-file", len(RULES)) for a, b in _file_value_spans(path, s))
        return self._apply(s, spans)

    def fingerprint(self, secret: str) -> str:
        """First 8 hex digits of HMAC-SHA256(key, secret)."""
        fp = self._fingerprints.get(secret)
        if fp is None:
            data = secret.encode("utf-8", "surrogatepass")
            fp = hmac.new(self._key, data, hashlib.sha256).hexdigest()[:8]
            if len(secret) <= 1024 and len(self._fingerprints) < 65536:
                self._fingerprints[secret] = fp
        return fp

    # ---- internals ----

    def _find(self, s: str) -> list[_Candidate]:
        """Every candidate secret span: the rules' (``RULES``) and the token shapes' (``SHAPES``).

        They are kept in this process (_FOUND): a file read twice, a resumed session's
        copy of its parent's history, the ids and names every session repeats are
        searched once.
        """
        found = _FOUND.get(s)
        if found is None:
            found = tuple(self._search(s))
            _remember(s, found)
        return list(found)

    def _search(self, s: str) -> list[_Candidate]:
        scan = _Scan(s)
        found = self._rule_candidates(s, scan)
        if len(s) >= _RUN_MIN:
            found.extend(_shape_candidates(s, scan))
        return found

    def _rule_candidates(self, s: str, scan: _Scan) -> list[_Candidate]:
        """Every candidate secret span from the rules whose keywords occur in s.

        Only rules that can match s at all (_live_rules) count: the others would
        find nothing, so leaving them out changes no output and saves their keywords' scans.
        """
        if len(s) <= _SHORT and _any_keyword().search(scan.low) is None:  # rejects more short strings than the gates
            return []
        live = _live_rules(s)
        if not live:
            return []
        wanted = 0
        long = len(s) > _SHORT
        runs: str | None = None
        for kw, case, rules, in_runs in _KEYWORD_RULES:
            # Look a keyword up only when it could unlock a live rule not unlocked yet.
            if not rules & live & ~wanted:
                continue
            if in_runs and long:
                # Its rules' matches lie in token runs (Rule.in_runs): look it up in those only.
                if runs is None:
                    runs = scan.joined(_RULE_RUN_MIN).text
                found = kw in runs
            else:
                found = scan.occurs(kw, case)
            if found:
                wanted |= rules
        wanted &= live
        found: list[_Candidate] = []
        for i, rule in enumerate(RULES):
            if not wanted >> i & 1:
                continue
            if rule.reach:
                matches: Any = (m for lo, hi in scan.windows(rule) for m in rule.regex.finditer(s, lo, hi))
            elif rule.starts:
                matches = _matches_starting(rule.regex, s, rule.starts)
            else:
                matches = rule.regex.finditer(s)
            for m in matches:
                for a, b in rule.secret_spans(m):
                    if b > a:
                        found.append((rule.tier, a, b, rule.kind, i))
        return found

    def _apply(self, s: str, candidates: list[_Candidate]) -> str:
        """Replace the winning spans and count them."""
        out, kinds = self._replace(s, candidates)
        if kinds:
            self.counts.update(kinds)
        return out

    def _replace(self, s: str, candidates: list[_Candidate]) -> tuple[str, tuple[str, ...]]:
        """The text with the winning spans replaced and home/user rewritten between them; the kinds replaced."""
        chosen = _resolve(candidates, s)
        if not chosen and not self._path_subs:
            return s, ()
        parts: list[str] = []
        pos = 0
        for a, b, kind in chosen:
            parts.append(self._paths(s[pos:a]))
            parts.append(f"[redacted: {kind} {self.fingerprint(s[a:b])}]")
            pos = b
        parts.append(self._paths(s[pos:]))
        return "".join(parts), tuple(kind for _, _, kind in chosen)

    def _paths(self, seg: str) -> str:
        for literal, pattern in self._path_subs:
            if literal in seg:
                seg = pattern.sub("~", seg)
        return seg


def _matches_starting(regex: re.Pattern[str], s: str, chars: str) -> Iterable[re.Match[str]]:
    """What ``regex.finditer(s)`` finds, for a pattern whose every match starts with one of ``chars``.

    finditer takes the leftmost match, then the leftmost one from its end on, and so on;
    here the candidates are the positions of those characters, taken in order, each one
    before the end of the last match skipped. ``match(s, p)`` sees s before p as a search
    does (lookbehinds), and no match is empty, so the matches are the same. Where the
    characters are dense (one in 64 or more), one finditer is cheaper than a call at each.
    """
    limit = len(s) >> 6
    points: list[int] = []
    for char in chars:
        p = s.find(char)
        while p >= 0:
            points.append(p)
            if len(points) > limit:
                return regex.finditer(s)
            p = s.find(char, p + 1)
    points.sort()
    out: list[re.Match[str]] = []
    end = 0
    for p in points:
        if p >= end:
            m = regex.match(s, p)
            if m:
                out.append(m)
                end = m.end()
    return out


_FOUND: dict[str, tuple[_Candidate, ...]] = {}  # string -> its candidates (Redactor._find)
_FOUND_BUDGET = 16 << 20  # characters of strings kept in _FOUND per process
_found_chars = 0


def _remember(s: str, found: tuple[_Candidate, ...]) -> None:
    global _found_chars
    if _found_chars + len(s) > _FOUND_BUDGET:
        _FOUND.clear()
        _found_chars = 0
    _FOUND[s] = found
    _found_chars += len(s)


class _Scan:
    """Keyword lookups in one string, shared by the rules that use the same keywords."""

    def __init__(self, s: str) -> None:
        self.s = s
        self._low: str | None = None
        self._first: dict[tuple[str, bool], int] = {}  # first position, -1 if absent; only keywords looked up
        self._hits: dict[tuple[str, bool], list[int]] = {}
        self._sorted: dict[tuple[tuple[str, ...], bool], list[int]] = {}
        self._runs: tuple[int, list[Span]] | None = None  # (least, the runs of s that long or longer)
        self._joined: dict[int, _Runs] = {}

    def joined(self, least: int) -> _Runs:
        """The token runs of s that are ``least`` characters long or longer, joined."""
        if least not in self._joined:
            if self._runs is None or self._runs[0] > least:
                self._runs = (least, _runs(self.s, least))
            known, spans = self._runs
            if known < least:
                spans = [(lo, hi) for lo, hi in spans if hi - lo >= least]
            self._joined[least] = _Runs(self.s, spans)
        return self._joined[least]

    @property
    def low(self) -> str:
        """s lower-cased, on first use: a long string whose live rules all look at s itself never pays for it."""
        if self._low is None:
            self._low = self.s.lower()
        return self._low

    def occurs(self, kw: str, case: bool) -> bool:
        if not case and kw in _DASH_KEYWORDS:
            if (kw, case) not in self._first:
                self._dash_keywords()
            return self._first[kw, case] >= 0
        p = self._first[kw, case] = (self.s if case else self._low or self.low).find(kw)
        return p >= 0

    def _dash_keywords(self) -> None:
        """The first place of each of _DASH_KEYWORDS in the lower-cased string (-1: nowhere), in one search."""
        first = dict.fromkeys(_DASH_KEYWORDS, -1)
        missing = len(first)
        for m in _dash_keywords_re().finditer(self.low):
            for kw in _DASH_KEYWORDS:  # the longest keyword at a place, and those it starts with
                if first[kw] < 0 and m.group().startswith(kw):
                    first[kw] = m.start()
                    missing -= 1
            if not missing:
                break
        for kw, p in first.items():
            self._first[kw, False] = p

    def hits(self, kw: str, case: bool) -> list[int]:
        """Every position of a keyword (in s, or in its lower-cased copy)."""
        key = (kw, case)
        if key not in self._hits:
            hay = self.s if case else self.low
            out: list[int] = []
            # occurs() was skipped for a keyword whose rules another keyword had already unlocked.
            p = self._first[key] if key in self._first else hay.find(kw)
            while p >= 0:
                out.append(p)
                p = hay.find(kw, p + 1)
            self._hits[key] = out
        return self._hits[key]

    def _sorted_hits(self, keywords: tuple[str, ...], case: bool) -> list[int]:
        """Every position of any of ``keywords``, in order (shared by the rules that have the same)."""
        key = (keywords, case)
        if key not in self._sorted:
            self._sorted[key] = sorted(p for kw in keywords for p in self.hits(kw, case))
        return self._sorted[key]

    def windows(self, rule: Rule) -> list[Span]:
        """The stretches of s a windowed rule must search: around each keyword, within its line.

        Each stretch runs from the start of the keyword's line (at most _BACK
        characters back) to the end of the line (at most ``rule.reach``
        characters on). A keyword opens a stretch only where ``rule.near``
        matches at it. Overlapping stretches are merged, so no match is found twice.
        """
        s, near = self.s, rule.near
        hay = s if rule.case_sensitive else self.low
        raw = self._sorted_hits(rule.keywords, rule.case_sensitive)
        if len(raw) > _DENSE_HITS and len(raw) * 50 > len(s):
            # Keywords every few characters (hostile or generated text): one pass of the
            # regex over the whole string is cheaper than a check at every keyword.
            return [(0, len(s))]
        return _stretches(s, raw if near is None else [p for p in raw if near.match(hay, p)], rule.reach)


def _stretches(s: str, hits: list[int], reach: int) -> list[Span]:
    """Around each of ``hits`` (in order), its line from at most _BACK characters back to
    at most ``reach`` on; overlapping stretches merged, so no match is found twice."""
    out: list[Span] = []
    n = len(s)
    for p in hits:
        if out and p < out[-1][1]:  # inside the previous stretch: only its end can grow
            nl = s.find("\n", out[-1][1], p + reach)
            out[-1] = (out[-1][0], max(out[-1][1], nl if nl >= 0 else min(n, p + reach)))
            continue
        nl = s.rfind("\n", max(0, p - _BACK), p)
        lo = nl + 1 if nl >= 0 else max(0, p - _BACK)
        nl = s.find("\n", p, p + reach)
        hi = nl if nl >= 0 else min(n, p + reach)
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _resolve(candidates: list[_Candidate], s: str) -> list[tuple[int, int, str]]:
    """Non-overlapping spans, in text order.

    Candidates are taken lower tier first, then longer, then earlier, then in
    table order. A candidate that overlaps spans already taken keeps the pieces
    outside them that hold 3 letters or digits or more when it is a provider
    shape (what is left of a known secret is still secret) or when a private key
    block cut into it (a value running into "-----BEGIN"). A generic candidate
    overlapped by a provider key is dropped: what is left of it is context, like
    the "Bearer " of a header value or the tail of a query value.
    """
    if not candidates:
        return []
    if len(candidates) == 1:
        _, a, b, kind, _ = candidates[0]
        return [(a, b, kind)]
    taken: list[tuple[int, int, str, int]] = []  # (start, end, kind, tier), sorted, never overlapping
    for tier, a, b, kind, _ in sorted(candidates, key=lambda c: (c[0], c[1] - c[2], c[1], c[4])):
        i = bisect.bisect_left(taken, (a,))
        if i > 0 and taken[i - 1][1] > a:  # the span before this one reaches into it
            i -= 1
        pieces: list[Span] = []
        cut_by_block = False
        pos = a
        while i < len(taken) and taken[i][0] < b:
            if taken[i][0] > pos:
                pieces.append((pos, taken[i][0]))
            pos = max(pos, taken[i][1])
            cut_by_block = cut_by_block or taken[i][3] == TIER_BLOCK
            i += 1
        if pos < b:
            pieces.append((pos, b))
        if pieces == [(a, b)]:
            bisect.insort(taken, (a, b, kind, tier))
        elif tier <= TIER_PROVIDER or cut_by_block:
            for pa, pb in pieces:
                if sum(ch.isalnum() for ch in s[pa:pb]) >= 3:
                    bisect.insort(taken, (pa, pb, kind, tier))
    return [(a, b, kind) for a, b, kind, _ in taken]
