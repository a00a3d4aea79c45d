"""Search: the Pagefind index for hosted sites, and a compact index for ``file://``.

Hosted (http and https): Pagefind (the ``pagefind`` package with its ``bin``
extra) indexes the session pages after they are written, while the build
makes the index and project pages (``shards.start_shards``); a project new to OUT,
as soon as the first pass has written its pages, while the others still
render (``shards.EarlyShards``, with two workers or more). Only the conversation
is indexed (the element with ``data-pagefind-body``: the timeline, sub-agents
and tool calls included), and only what was said in it: each item's heading
(who, model, clock time), a tool call's status and the summaries that repeat a
block's first words are ``data-pagefind-ignore`` in the theme. What a tool
returned (``data-bough-output``) is indexed for its first ``--search-limit`` KB
of text, an error whole (``page_copy.outputs_as_text``). The session title is
``title``, with filters for project, source and model (``data-pagefind-filter``
in the page header).

Pagefind is told to index every page as a language it has no stemmer for
(``pagefind_run.INDEX_LANGUAGE``): a word is found as it is written. search.js asks it for
each word exactly (its whole, and its parts: "load_table" inside
"load_table(path)") and checks each candidate's indexed text for the words,
whole; docs/performance.md, Search, says why (merged shards, stemming, prefixes).

- One bundle per project, ``pagefind/<project id>/``, listed in
  ``pagefind/shards.js``; search.js loads the first and merges the others
  into it. A build runs Pagefind only for the projects whose session pages it
  rendered again (or that gained or lost pages) and keeps the other shards as
  they are (each shard's ``bough-shard.json`` names its pages, the budget and
  its files' digests), so an append re-indexes one project, and Pagefind's
  memory follows the largest project, not the site.
- Pagefind reads copies of the pages (``page_copy.pagefind_copy``): the content of
  every ``data-pagefind-ignore`` element and every preview removed, each tool's
  output as plain text within the budget, code without its highlighting, and
  before the body only what it reads there (``before_body_trimmed``), made by
  each run in a process of its own (``page_copier``) while the build goes on. The
  copies and the bundle Pagefind writes are scratch: in memory (``/dev/shm``)
  when there is room, not on disk.
- Each shard is made reproducible (``pagefind_format.canonical_bundle``: Pagefind numbers pages
  in the order the file system lists its scratch folder; bough numbers them in the
  order of their URLs) and written through the site writer like any file.

From ``file://`` a browser will not run Pagefind (no ``fetch``, no modules), so
the search box falls back to ``search-index.js`` (``offline``).

Both are made from redacted text only: session pages and the session models
(summaries) after redaction.

The modules, each importing only those above it:

- ``offline``: ``search-index.js``, and what it keeps of each session (``session_entries``).
- ``page_copy``: the copy of a page Pagefind reads.
- ``pagefind_format``: Pagefind's private file format, read and written again so
  bundles are reproducible (the one module that knows it; which Pagefind versions
  it supports).
- ``pagefind_run``: finding Pagefind and running it over a scratch copy of some pages.
- ``shards``: one bundle per project: which are kept, which are made (early or at the
  end), and ``shards.js``.

Nothing is re-exported here: a name is imported from the module that owns it.
"""
