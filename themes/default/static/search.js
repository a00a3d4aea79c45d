/* bough: the search box (bough_site/search/ builds what it reads).
   - Over http(s): Pagefind, one bundle per project (the module pagefind/shards.js
     lists them): the first one's pagefind.js is imported when the box is first used
     and the others are merged into it, so filters (project, source, model) and
     results span every project. Pagefind finds the candidates; the words are then
     looked for, whole, in what it indexed of each (see "exact words" below).
   - From file:// (or when Pagefind cannot load): search-index.js, a classic
     script added when first used, which sets window.BOUGH_SEARCH_INDEX to the
     names of its parts (search-index/<name>.js, a search shard's sessions each),
     classic scripts too, each filing its index under its name in
     window.BOUGH_SEARCH_PARTS: titles, prompts, replies, tool calls and the start
     of each error, merged here. The box says so.
   A query is words, each found whole (as `grep -w` would: "config" is not in
   "parse_config"), and "quoted phrases". Each result links to the session at the
   moment (prompt, reply or tool call) of its first match. Results are built with
   DOM methods and textContent only: no transcript text ever becomes markup.
   Nothing here runs until the box is used. */
(function () {
  "use strict";

  var MAX_RESULTS = 20;
  // Pagefind's pages read (each a request) to tell whole words from near ones.
  var MAX_CHECKED = 60;
  var BATCH = 8;
  // What an excerpt shows around its first match, in characters.
  var BEFORE = 90, AFTER = 170;
  // Ids of timeline moments: prompts, replies and tool calls ("r3-2": reply 3's
  // second block), sub-agents' included ("a-<agent>-r3").
  var MOMENT = /^(?:a-[A-Za-z0-9_-]+-)?[pr][0-9]+(?:-[0-9]+)?$/;
  var FILTERS = [["project", "All projects"], ["source", "All sources"], ["model", "All models"]];
  var OFFLINE_NOTE = "Offline, search covers titles, prompts, replies, tool calls and the start of " +
    "each error. What tools printed is searched when the site is served: run bough serve, " +
    "or publish it on any static host.";

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    if (text) node.textContent = text;
    return node;
  }

  function absolute(root, path) {
    return new URL(root + path, document.baseURI).href;
  }

  // --- the query: whole words and phrases ------------------------------------------

  var WORD_CHAR = /[\p{L}\p{N}\p{M}_]/u;

  function escapeRegExp(text) {
    return text.replace(/[.*+?^${}()|[\]\\\/]/g, "\\$&");
  }

  // "a b" → [{text: "a"}, {text: "b"}]; "\"a b\" c" → a phrase and a word.
  function parseQuery(query) {
    var terms = [];
    var re = /"([^"]*)"|(\S+)/g;
    for (var m = re.exec(query); m; m = re.exec(query)) {
      var text = (m[1] !== undefined ? m[1] : m[2]).trim().replace(/\s+/g, " ");
      if (text && !terms.some(function (t) { return t.text.toLowerCase() === text.toLowerCase(); })) {
        terms.push(term(text));
      }
    }
    return terms;
  }

  // A term matches where its text is, case aside, with no letter, digit or "_"
  // touching it on a side where it begins or ends with one; in a phrase, any
  // space stands for any run of spaces. ``loose`` drops that edge rule.
  function term(text) {
    var body = text.split(" ").map(escapeRegExp).join("\\s+");
    var head = WORD_CHAR.test(text.charAt(0)) ? "(?<![\\p{L}\\p{N}\\p{M}_])" : "";
    var tail = WORD_CHAR.test(text.charAt(text.length - 1)) ? "(?![\\p{L}\\p{N}\\p{M}_])" : "";
    return {
      text: text,
      words: text.split(" "),
      whole: new RegExp(head + body + tail, "giu"),
      loose: new RegExp(body, "giu")
    };
  }

  function matches(re, text) {
    re.lastIndex = 0;
    return re.test(text);
  }

  function count(re, text) {
    var n = 0;
    re.lastIndex = 0;
    for (var m = re.exec(text); m && n < 50; m = re.exec(text)) {
      n++;
      if (!m[0]) re.lastIndex++;
    }
    return n;
  }

  // Where the first match of any term begins, or -1.
  function firstMatch(terms, kind, text) {
    var first = -1;
    terms.forEach(function (t) {
      var re = t[kind];
      re.lastIndex = 0;
      var m = re.exec(text);
      if (m && (first < 0 || m.index < first)) first = m.index;
    });
    return first;
  }

  // A line or two around the first match, every match in it marked, cut at spaces.
  function excerpt(text, terms, kind) {
    var at = Math.max(0, firstMatch(terms, kind, text));
    var start = Math.max(0, at - BEFORE), end = Math.min(text.length, at + AFTER);
    if (start > 0) { var space = text.indexOf(" ", start); if (space >= 0 && space < at) start = space + 1; }
    if (end < text.length) { var last = text.lastIndexOf(" ", end); if (last > at) end = last; }
    var piece = text.slice(start, end);
    var spans = [];
    terms.forEach(function (t) {
      var re = t[kind];
      re.lastIndex = 0;
      for (var m = re.exec(piece); m; m = re.exec(piece)) {
        if (!m[0]) { re.lastIndex++; continue; }
        spans.push([m.index, m.index + m[0].length]);
      }
    });
    spans.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });
    var parts = [], pos = 0;
    if (start > 0) parts.push({ text: "…", mark: false });
    spans.forEach(function (span) {
      if (span[0] < pos) return;
      if (span[0] > pos) parts.push({ text: piece.slice(pos, span[0]), mark: false });
      parts.push({ text: piece.slice(span[0], span[1]), mark: true });
      pos = span[1];
    });
    if (pos < piece.length) parts.push({ text: piece.slice(pos), mark: false });
    if (end < text.length) parts.push({ text: "…", mark: false });
    return parts;
  }

  // --- Pagefind (http and https) ---------------------------------------------

  // baseUrl "/": result URLs relative to the site's root, whatever sub-path it is served under.
  var PAGEFIND_OPTIONS = { baseUrl: "/", excerptLength: 30 };

  function pagefind(root) {
    if (location.protocol === "file:") return Promise.reject(new Error("file://"));
    return import(absolute(root, "pagefind/shards.js")).then(function (listed) {
      var shards = listed.default || [];
      if (!shards.length) throw new Error("no Pagefind index");
      return import(absolute(root, shards[0] + "pagefind.js")).then(function (pf) {
        return Promise.resolve(pf.options ? pf.options(PAGEFIND_OPTIONS) : null).then(function () {
          // Merged indexes take their options here: pf.options sets only the first one's.
          return Promise.all(shards.slice(1).map(function (shard) {
            return pf.mergeIndex(absolute(root, shard), PAGEFIND_OPTIONS);
          }));
        }).then(function () { return pf; });
      });
    }).then(function (pf) {
      return pf.filters().then(function (available) {
        var lists = {};
        FILTERS.forEach(function (f) { lists[f[0]] = Object.keys((available || {})[f[0]] || {}).sort(); });
        return {
          name: "pagefind",
          filters: lists,
          search: function (query, chosen) { return searchPagefind(pf, root, query, chosen); }
        };
      });
    });
  }

  // The parts Pagefind also indexes a word under: split at anything but letters
  // and digits, at a lower-to-upper case step ("camelCase") and at the last
  // capital before a lower-case letter ("JSONParser"), and between letters and
  // digits; single characters left out.
  function parts(word) {
    return word.replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
      .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
      .replace(/(\p{L})(\p{N})|(\p{N})(\p{L})/gu, function (all, a, b, c, d) { return a ? a + " " + b : c + " " + d; })
      .split(/[^\p{L}\p{N}]+/u)
      .map(function (p) { return p.toLowerCase(); })
      .filter(function (p, i, all) { return p.length > 1 && all.indexOf(p) === i; });
  }

  // Pagefind searched for one word, exactly ("word" in quotes: no prefixes); its
  // results by page id.
  function exactly(pf, word, filters) {
    return pf.search("\"" + word.replace(/"/g, "") + "\"", { filters: filters }).then(function (found) {
      var pages = {};
      ((found && found.results) || []).forEach(function (r) { pages[r.id] = r; });
      return pages;
    });
  }

  function intersect(sets) {
    if (!sets.length) return {};
    var out = {};
    Object.keys(sets[0]).forEach(function (id) {
      if (sets.every(function (s) { return Object.prototype.hasOwnProperty.call(s, id); })) out[id] = sets[0][id];
    });
    return out;
  }

  // The pages that may hold a word: Pagefind's exact matches of the whole word,
  // and the pages holding all of its parts (a word inside a longer one:
  // "load_table" in "load_table(path)", "test_db.py" in "tests/test_db.py").
  // A part no page holds is no part Pagefind indexed: it narrows nothing.
  function candidatesOf(pf, word, filters) {
    var split = parts(word);
    return Promise.all([exactly(pf, word, filters)].concat(split.length > 1 ? split.map(function (p) {
      return exactly(pf, p, filters);
    }) : [])).then(function (found) {
      var whole = found[0];
      var known = found.slice(1).filter(function (s) { return Object.keys(s).length; });
      var inside = known.length ? intersect(known) : {};
      var out = {};
      Object.keys(inside).forEach(function (id) { out[id] = { result: inside[id], whole: 0 }; });
      Object.keys(whole).forEach(function (id) { out[id] = { result: whole[id], whole: 1 }; });
      return out;
    });
  }

  function searchPagefind(pf, root, query, chosen) {
    var terms = parseQuery(query);
    if (!terms.length) return Promise.resolve({ results: [], near: [], terms: terms });
    var filters = {};
    Object.keys(chosen).forEach(function (key) { if (chosen[key]) filters[key] = chosen[key]; });
    var words = [];
    terms.forEach(function (t) { t.words.forEach(function (w) { if (words.indexOf(w) < 0) words.push(w); }); });
    return Promise.all(words.map(function (w) { return candidatesOf(pf, w, filters); })).then(function (sets) {
      // Every word in the page; those that hold the whole words first, then by how often.
      var ids = Object.keys(intersect(sets));
      var ranked = ids.map(function (id) {
        var whole = 0, hits = 0;
        sets.forEach(function (s) { whole += s[id].whole; hits += (s[id].result.words || []).length; });
        return { id: id, result: sets[0][id].result, whole: whole, hits: hits };
      }).sort(function (a, b) { return (b.whole - a.whole) || (b.hits - a.hits) || (a.id < b.id ? -1 : 1); });
      ranked.forEach(function (c, i) { c.order = i; });
      return check(root, ranked, terms);
    }).then(function (found) {
      if (found.results.length || found.near.length) return found;
      // No page holds the words, not even inside longer ones: the pages with words
      // that begin with them (Pagefind's own search), as near matches. Its first
      // few only: in a shard without the word Pagefind offers pages holding pieces
      // of it ("wobble" for "wobbleshaft"), each a page of text to fetch for nothing.
      return pf.search(words.join(" "), { filters: filters }).then(function (loose) {
        var ranked = ((loose && loose.results) || []).slice(0, BATCH).map(function (r, i) {
          return { id: r.id, result: r, order: i };
        });
        return check(root, ranked, terms).then(function (again) {
          again.unchecked = found.unchecked;
          return again;
        });
      });
    });
  }

  // Read the candidates' indexed text, best first, until there are enough whole
  // matches: those, ranked by how often the words are in them; and the pages
  // that hold the words only inside longer ones (shown when nothing else is).
  function check(root, ranked, terms) {
    var results = [], near = [], seen = {}, checked = 0;
    function next() {
      if (results.length >= MAX_RESULTS || checked >= ranked.length || checked >= MAX_CHECKED) {
        return Promise.resolve();
      }
      var batch = ranked.slice(checked, Math.min(ranked.length, checked + BATCH, MAX_CHECKED));
      checked += batch.length;
      return Promise.all(batch.map(function (c) { return c.result.data(); })).then(function (pages) {
        pages.forEach(function (page, i) {
          var content = String(page.content || "");
          var key = sessionKey(page);
          if (terms.every(function (t) { return matches(t.whole, content); })) {
            if (seen[key]) return;
            seen[key] = true;
            var score = terms.reduce(function (sum, t) { return sum + count(t.whole, content); }, 0);
            results.push(fromPagefind(root, page, terms, "whole", score, batch[i]));
          } else if (terms.every(function (t) { return matches(t.loose, content); }) && !seen["~" + key]) {
            seen["~" + key] = true;
            near.push(fromPagefind(root, page, terms, "loose", 0, batch[i]));
          }
        });
        return next();
      });
    }
    return next().then(function () {
      results.sort(function (a, b) { return (b.score - a.score) || (a.order - b.order); });
      return {
        results: results.slice(0, MAX_RESULTS),
        near: near.slice(0, MAX_RESULTS),
        terms: terms,
        unchecked: ranked.length - checked,
        more: results.length >= MAX_RESULTS && checked < ranked.length
      };
    });
  }

  // A session split in several pages is one result: its parts share the title,
  // and their URLs differ by "-2", "-3"...
  function sessionKey(page) {
    return ((page.meta || {}).title || "") + "\u0000" + String(page.url || "").replace(/-[0-9]+\.html$/, ".html");
  }

  // The moment a result opens at: the last prompt, reply or tool call that starts
  // at or before the match (Pagefind counts words: the page's text split at spaces).
  function momentOf(page, at) {
    var content = String(page.content || "");
    var words = (content.slice(0, at).match(/\S+/g) || []).length;
    if (at > 0 && !/\s/.test(content.charAt(at - 1))) words -= 1;
    var best = null;
    (page.anchors || []).forEach(function (anchor) {
      if (!MOMENT.test(anchor.id || "")) return;
      if (anchor.location <= words && (!best || anchor.location >= best.location)) best = anchor;
    });
    return best ? best.id : "";
  }

  function fromPagefind(root, page, terms, kind, score, candidate) {
    var path = String(page.url || "").replace(/^\/+/, "");
    var content = String(page.content || "");
    var moment = momentOf(page, Math.max(0, firstMatch(terms, kind, content)));
    var meta = page.meta || {};
    var filters = page.filters || {};
    return {
      href: root + path + (moment ? "#" + moment : ""),
      title: meta.title || path,
      facts: [].concat(filters.project || [], filters.source || []),
      excerpt: excerpt(content, terms, kind),
      score: score,
      order: candidate.order || 0
    };
  }

  // --- the file:// index -------------------------------------------------------

  function fallback(root) {
    return script(root, "search-index.js", function () { return window.BOUGH_SEARCH_INDEX; })
      .then(function (index) {
        var names = index.parts || [];
        return Promise.all(names.map(function (name) {
          return script(root, "search-index/" + name + ".js", function () {
            return (window.BOUGH_SEARCH_PARTS || {})[name];
          });
        }));
      })
      .then(function (parts) { return local(root, parts); });
  }

  // A classic script added once; what it set (``loaded()``) once it has run.
  function script(root, path, loaded) {
    return new Promise(function (resolve, reject) {
      if (loaded()) return resolve(loaded());
      var tag = el("script", { src: absolute(root, path) });
      tag.onload = function () {
        if (loaded()) resolve(loaded());
        else reject(new Error(path + " did not load"));
      };
      tag.onerror = function () { reject(new Error(path + " is missing")); };
      document.head.appendChild(tag);
    });
  }

  function later(a, b) { return a > b ? -1 : a < b ? 1 : 0; }

  // The parts' sessions as one list, newest first (by day, then page), as search-index.js
  // held them before it was cut in parts; each part names its projects, sources and models.
  function local(root, parts) {
    // No prototype: a project may be named "__proto__".
    var seen = { project: Object.create(null), source: Object.create(null), model: Object.create(null) };
    var sessions = [];
    parts.forEach(function (index) {
      var names = { project: index.projects || [], source: index.sources || [], model: index.models || [] };
      Object.keys(names).forEach(function (kind) {
        names[kind].forEach(function (name) { seen[kind][name] = true; });
      });
      (index.sessions || []).forEach(function (s) {
        sessions.push({
          s: s,
          project: names.project[s.p],
          source: names.source[s.s],
          models: (s.m || []).map(function (m) { return names.model[m]; }),
          title: String(s.t || ""),
          items: (s.i || []).map(function (item) {
            // item[2]: the part of a split session page holding it (else the session's page)
            return { anchor: item[0], text: String(item[1] || ""), page: item[2] || "" };
          })
        });
      });
    });
    sessions.sort(function (a, b) {
      return later(String(a.s.d || ""), String(b.s.d || "")) || later(String(a.s.u || ""), String(b.s.u || ""));
    });
    return {
      name: "local",
      filters: { project: Object.keys(seen.project).sort(), source: Object.keys(seen.source).sort(), model: Object.keys(seen.model).sort() },
      search: function (query, chosen) {
        var terms = parseQuery(query);
        var found = { whole: [], loose: [] };
        if (terms.length) {
          sessions.forEach(function (session, order) {
            if (chosen.project && session.project !== chosen.project) return;
            if (chosen.source && session.source !== chosen.source) return;
            if (chosen.model && session.models.indexOf(chosen.model) < 0) return;
            ["whole", "loose"].some(function (kind) {
              var result = matchSession(session, terms, kind);
              if (result) { result.order = order; found[kind].push(result); }
              return result;
            });
          });
        }
        function shown(list, kind) {
          list.sort(function (a, b) { return (b.all - a.all) || (b.hits - a.hits) || (a.order - b.order); });
          return list.slice(0, MAX_RESULTS).map(function (r) {
            var s = r.session;
            return {
              href: root + (r.item && r.item.page ? r.item.page : s.s.u) + (r.item ? "#" + r.item.anchor : ""),
              title: s.title,
              facts: [s.project, s.source, s.s.d].filter(Boolean),
              excerpt: excerpt(r.item ? r.item.text : s.title, terms, kind)
            };
          });
        }
        return Promise.resolve({
          results: shown(found.whole, "whole"), near: shown(found.loose, "loose"), terms: terms,
          more: found.whole.length > MAX_RESULTS
        });
      }
    };
  }

  // Every term must be in the session (its title or an item); the result opens
  // at the first item holding them all, else the one holding most of them.
  function matchSession(session, terms, kind) {
    var hits = 0, best = null, bestTerms = 0;
    var seen = {};
    terms.forEach(function (t, i) { if (matches(t[kind], session.title)) seen[i] = true; });
    session.items.forEach(function (item) {
      var found = 0;
      terms.forEach(function (t, i) {
        var n = count(t[kind], item.text);
        if (n) { found++; hits += n; seen[i] = true; }
      });
      if (found > bestTerms) { best = item; bestTerms = found; }
    });
    for (var i = 0; i < terms.length; i++) if (!seen[i]) return null;
    return { session: session, item: best, hits: hits, all: bestTerms === terms.length ? 1 : 0 };
  }

  // --- the box -----------------------------------------------------------------------

  function start(box) {
    var root = (box.getAttribute("data-index") || "index.html").replace(/index\.html$/, "");
    var form = el("form", { "class": "search-form", role: "search" });
    var label = el("label", { "class": "visually-hidden", "for": "bough-search-input" }, "Search the sessions");
    var input = el("input", {
      id: "bough-search-input", type: "search", autocomplete: "off", spellcheck: "false",
      placeholder: "Search prompts, replies and tool calls"
    });
    var filterBox = el("div", { "class": "search-filter-box", hidden: "" });
    var status = el("p", { "class": "search-status", role: "status", "aria-live": "polite" });
    var note = el("p", { "class": "search-note", hidden: "" }, OFFLINE_NOTE);
    var list = el("ol", { "class": "search-results" });
    form.appendChild(label);
    form.appendChild(input);
    form.appendChild(filterBox);
    box.appendChild(form);
    box.appendChild(status);
    box.appendChild(note);
    box.appendChild(list);

    var selects = {};
    var backend = null;
    var asked = 0;
    var timer = null;

    function load() {
      if (!backend) {
        backend = pagefind(root).catch(function () { return fallback(root); });
        backend.then(function (b) {
          box.setAttribute("data-backend", b.name);
          showFilters(b.filters);
        }, function (err) {
          status.textContent = "Search is not available here (" + err.message + ").";
        });
      }
      return backend;
    }

    function showFilters(lists) {
      FILTERS.forEach(function (f) {
        var values = lists[f[0]] || [];
        if (values.length < 2) return;
        var select = el("select", { "aria-label": f[1].replace("All ", "Only these ") , "data-filter": f[0] });
        select.appendChild(el("option", { value: "" }, f[1]));
        values.forEach(function (v) { select.appendChild(el("option", { value: v }, v)); });
        select.addEventListener("change", run);
        selects[f[0]] = select;
        filterBox.appendChild(select);
      });
      if (Object.keys(selects).length) filterBox.hidden = false;
    }

    function chosen() {
      var out = {};
      Object.keys(selects).forEach(function (key) { if (selects[key].value) out[key] = selects[key].value; });
      return out;
    }

    function sessions(n) { return n + (n === 1 ? " session" : " sessions"); }

    function render(found, query, offline) {
      list.textContent = "";
      var shown = found.results.length ? found.results : found.near;
      shown.forEach(function (r) {
        var item = el("li", { "class": "search-result" + (found.results.length ? "" : " search-near") });
        var link = el("a", { href: r.href, "class": "search-title" }, r.title);
        item.appendChild(link);
        if (r.facts && r.facts.length) item.appendChild(el("span", { "class": "search-facts" }, r.facts.join(" · ")));
        var excerpt = el("p", { "class": "search-excerpt" });
        (r.excerpt || []).forEach(function (part) {
          excerpt.appendChild(part.mark ? el("mark", {}, part.text) : document.createTextNode(part.text));
        });
        item.appendChild(excerpt);
        list.appendChild(item);
      });
      var quoted = "“" + query + "”";
      var words = found.terms.length > 1 ? "these words" : "this word";
      if (found.results.length) {
        status.textContent = (found.more ? "The first " : "") + sessions(found.results.length) + " for " + quoted;
      } else if (found.near.length) {
        status.textContent = "No session holds " + quoted + " as written: " + sessions(found.near.length) +
          " with " + words + " inside longer ones.";
      } else {
        status.textContent = "No session matches " + quoted + (offline ? " in the offline index." : ".") +
          (found.unchecked > 0 ? " (Only the " + MAX_CHECKED + " likeliest sessions were read: " +
            "a filter narrows the search.)" : "");
      }
      box.setAttribute("data-found", found.results.length ? "whole" : found.near.length ? "near" : "none");
      note.hidden = !offline;
      note.classList.toggle("search-note-strong", offline && !found.results.length);
    }

    function run() {
      var query = input.value.trim();
      var ticket = ++asked;
      if (!query) {
        list.textContent = "";
        status.textContent = "";
        note.hidden = true;
        return;
      }
      load().then(function (b) {
        return b.search(query, chosen()).then(function (found) { return [b, found]; });
      }).then(function (done) {
        if (ticket === asked) render(done[1], query, done[0].name === "local");
      }, function (err) {
        if (ticket === asked) status.textContent = "Search failed: " + err.message;
      });
    }

    form.addEventListener("submit", function (event) { event.preventDefault(); run(); });
    input.addEventListener("focus", load);
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(run, 120);
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var box = document.querySelector("[data-bough-search]");
    if (box) start(box);
  });
})();
