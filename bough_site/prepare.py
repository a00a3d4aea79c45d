"""What a session read from its transcript becomes before anything shows it: the
one road both a build's workers (jobs.py) and a plain read (build.load_site) take.

Redaction comes first, so what is told of the session (what it built, what the
file:// search keeps of it) is made from the redacted timeline. Ids are redacted
too (a file name can hold a secret): a session's key, slug and everything stored
are made from the redacted session."""

from __future__ import annotations

from .model import Session
from .pricing import PriceTable, price_session, unprice_session
from .redact import Redactor
from .scrub import scrub_session
from .search.offline import session_entries
from .work import summarize_work


def prepare(session: Session, redactor: Redactor, prices: PriceTable | None = None) -> Session:
    """``session`` priced (with a price table: pricing.py; before redaction, which may
    touch a model's name), redacted, then its commits and changed files told and its
    offline search entries made."""
    if prices is not None:
        price_session(session, prices)
    else:
        unprice_session(session)  # --no-cost: not even what the transcripts recorded
    scrub_session(session, redactor)
    summarize_work(session)
    session.search_items = session_entries(session)
    return session
