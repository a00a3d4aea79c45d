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
import hashlib
import hmac
import re
from typing import Any

from .redact_files import _file_value_spans, _is_key_file, is_sensitive_path
from .redact_search import (
    _KEYWORD_RULES,
    _RULE_RUN_MIN,
    _RUN_MIN,
    _SHORT,
    _any_keyword,
    _live_rules,
    _matches_starting,
    _Scan,
)
from .redact_shapes import _shape_candidates
from .redact_table import RULES, TIER_BLOCK, TIER_GENERIC, TIER_PROVIDER, Span, _Candidate

__all__ = ["Redactor"]


# --------------------------------------------------------------------------
# The redactor.
# --------------------------------------------------------------------------

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
