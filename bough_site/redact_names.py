"""What is not a secret: placeholders, references and names that describe a secret
rather than hold it; the checks the generic rules (redact_table) run on what they match.

Generic rules match a secret's place (``NAME=value``, a header, a query parameter), not its
look, so they need these to skip ``$VAR``, ``<token>``, ``changeme``, ``PASSWORD_MIN_LENGTH``.
"""

from __future__ import annotations

import functools
import re

Span = tuple[int, int]


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
