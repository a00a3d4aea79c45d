/* bough: the search box (bough_site/search.py builds what it reads).
   - Over http(s): Pagefind, one bundle per project (the module pagefind/shards.js
     lists them): the first one's pagefind.js is imported when the box is first used
     and the others are merged into it, so filters (project, source, model) and
     results span every project, ranked together.
   - From file:// (or when Pagefind cannot load): search-index.js, a classic
     script added when first used, which sets window.BOUGH_SEARCH_INDEX.
   Each result links to the session at the matching moment (page#anchor).
   Results are built with DOM methods and textContent only: no transcript text
   ever becomes markup. Nothing here runs until the box is used. */
(function () {
  "use strict";

  var MAX_RESULTS = 20;
  // Ids of timeline items: prompts and replies, sub-agents' included ("a-<agent>-r3").
  var MOMENT = /^(?:a-[A-Za-z0-9_-]+-)?[pr][0-9]+$/;
  var FILTERS = [["project", "All projects"], ["source", "All sources"], ["model", "All models"]];

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    if (text) node.textContent = text;
    return node;
  }

  function absolute(root, path) {
    return new URL(root + path, document.baseURI).href;
  }

  // --- Pagefind (http and https) ---------------------------------------------

  // baseUrl "/": result URLs relative to the site's root, whatever sub-path it is served under.
  var PAGEFIND_OPTIONS = { baseUrl: "/", excerptLength: 24 };

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
          search: function (query, chosen) {
            var filters = {};
            Object.keys(chosen).forEach(function (key) { if (chosen[key]) filters[key] = chosen[key]; });
            // Pagefind searches every merged index and sorts all results by score.
            return pf.search(query, { filters: filters }).then(function (found) {
              if (!found || !found.results) return [];
              return Promise.all(found.results.slice(0, MAX_RESULTS).map(function (r) { return r.data(); }));
            }).then(function (pages) {
              return pages.map(function (page) { return fromPagefind(root, page); });
            });
          }
        };
      });
    });
  }

  // The moment a result opens at: the last prompt or reply starting before the first match.
  function momentOf(page) {
    var first = (page.locations && page.locations.length) ? Math.min.apply(null, page.locations) : 0;
    var best = null;
    (page.anchors || []).forEach(function (anchor) {
      if (!MOMENT.test(anchor.id || "")) return;
      if (anchor.location <= first && (!best || anchor.location >= best.location)) best = anchor;
    });
    return best ? best.id : "";
  }

  // Pagefind's excerpt marks matches with <mark> and escapes the rest: it is
  // split on the marks and unescaped by hand, never parsed as HTML.
  var NAMED = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'", nbsp: "\u00a0" };

  function unescape(text) {
    return text.replace(/&(#[xX][0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, function (whole, name) {
      if (name.charAt(0) !== "#") return Object.prototype.hasOwnProperty.call(NAMED, name) ? NAMED[name] : whole;
      var code = name.charAt(1) === "x" || name.charAt(1) === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    });
  }

  function excerptParts(html) {
    return String(html || "").split(/(<mark>[\s\S]*?<\/mark>)/).map(function (part) {
      var marked = /^<mark>[\s\S]*<\/mark>$/.test(part);
      return { text: unescape(marked ? part.slice(6, -7) : part), mark: marked };
    });
  }

  function fromPagefind(root, page) {
    var path = String(page.url || "").replace(/^\/+/, "");
    var moment = momentOf(page);
    var meta = page.meta || {};
    var filters = page.filters || {};
    return {
      href: root + path + (moment ? "#" + moment : ""),
      title: meta.title || path,
      facts: [].concat(filters.project || [], filters.source || []),
      excerpt: excerptParts(page.excerpt)
    };
  }

  // --- the file:// index -------------------------------------------------------

  function fallback(root) {
    return new Promise(function (resolve, reject) {
      if (window.BOUGH_SEARCH_INDEX) return resolve(window.BOUGH_SEARCH_INDEX);
      var script = el("script", { src: absolute(root, "search-index.js") });
      script.onload = function () {
        if (window.BOUGH_SEARCH_INDEX) resolve(window.BOUGH_SEARCH_INDEX);
        else reject(new Error("search-index.js did not load"));
      };
      script.onerror = function () { reject(new Error("search-index.js is missing")); };
      document.head.appendChild(script);
    }).then(function (index) { return local(root, index); });
  }

  function local(root, index) {
    var names = { project: index.projects || [], source: index.sources || [], model: index.models || [] };
    var sessions = (index.sessions || []).map(function (s) {
      return {
        s: s,
        project: names.project[s.p],
        source: names.source[s.s],
        models: (s.m || []).map(function (m) { return names.model[m]; }),
        title: String(s.t || ""),
        lowerTitle: String(s.t || "").toLowerCase(),
        items: (s.i || []).map(function (item) {
          // item[2]: the part of a split session page holding it (else the session's page)
          return { anchor: item[0], text: String(item[1] || ""), lower: String(item[1] || "").toLowerCase(),
                   page: item[2] || "" };
        })
      };
    });
    return {
      name: "local",
      filters: { project: names.project.slice().sort(), source: names.source.slice().sort(), model: names.model.slice().sort() },
      search: function (query, chosen) {
        var terms = query.toLowerCase().split(/\s+/).filter(Boolean);
        var scored = [];
        sessions.forEach(function (session, order) {
          if (chosen.project && session.project !== chosen.project) return;
          if (chosen.source && session.source !== chosen.source) return;
          if (chosen.model && session.models.indexOf(chosen.model) < 0) return;
          var result = match(session, terms);
          if (result) { result.order = order; scored.push(result); }
        });
        scored.sort(function (a, b) {
          return (b.whole - a.whole) || (b.hits - a.hits) || (a.order - b.order);
        });
        return Promise.resolve(scored.slice(0, MAX_RESULTS).map(function (r) {
          var s = r.session;
          return {
            href: root + (r.item && r.item.page ? r.item.page : s.s.u) + (r.item ? "#" + r.item.anchor : ""),
            title: s.title,
            facts: [s.project, s.source, s.s.d].filter(Boolean),
            excerpt: snippet(r.item ? r.item.text : s.title, terms)
          };
        }));
      }
    };
  }

  function count(text, term) {
    var n = 0;
    for (var at = text.indexOf(term); at >= 0; at = text.indexOf(term, at + term.length)) n++;
    return n;
  }

  // Every term must occur in the session; the result opens at the first item
  // holding them all, else the one holding most of them.
  function match(session, terms) {
    if (!terms.length) return null;
    var hits = 0, best = null, bestTerms = 0, whole = 0;
    var seen = {};
    terms.forEach(function (t) { if (session.lowerTitle.indexOf(t) >= 0) seen[t] = true; });
    session.items.forEach(function (item) {
      var found = 0;
      terms.forEach(function (t) {
        var n = count(item.lower, t);
        if (n) { found++; hits += n; seen[t] = true; }
      });
      if (found > bestTerms) { best = item; bestTerms = found; }
    });
    for (var i = 0; i < terms.length; i++) if (!seen[terms[i]]) return null;
    if (bestTerms === terms.length) whole = 1;
    return { session: session, item: best, hits: hits, whole: whole };
  }

  function snippet(text, terms) {
    var lower = text.toLowerCase();
    var at = -1;
    terms.forEach(function (t) { var i = lower.indexOf(t); if (i >= 0 && (at < 0 || i < at)) at = i; });
    var start = Math.max(0, at - 60);
    var piece = (start > 0 ? "…" : "") + text.slice(start, start + 200) + (start + 200 < text.length ? "…" : "");
    var parts = [];
    var lowPiece = piece.toLowerCase();
    var pos = 0;
    while (pos < piece.length) {
      var next = -1, len = 0;
      terms.forEach(function (t) {
        var i = lowPiece.indexOf(t, pos);
        if (i >= 0 && (next < 0 || i < next)) { next = i; len = t.length; }
      });
      if (next < 0) { parts.push({ text: piece.slice(pos), mark: false }); break; }
      if (next > pos) parts.push({ text: piece.slice(pos, next), mark: false });
      parts.push({ text: piece.slice(next, next + len), mark: true });
      pos = next + len;
    }
    return parts;
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
    var list = el("ol", { "class": "search-results" });
    form.appendChild(label);
    form.appendChild(input);
    form.appendChild(filterBox);
    box.appendChild(form);
    box.appendChild(status);
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

    function render(results, query) {
      list.textContent = "";
      results.forEach(function (r) {
        var item = el("li", { "class": "search-result" });
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
      status.textContent = results.length ? (results.length === MAX_RESULTS ? "The first " : "") +
        results.length + (results.length === 1 ? " session" : " sessions") + " for “" + query + "”"
        : "No session matches “" + query + "”.";
    }

    function run() {
      var query = input.value.trim();
      var ticket = ++asked;
      if (!query) {
        list.textContent = "";
        status.textContent = "";
        return;
      }
      load().then(function (b) {
        return b.search(query, chosen());
      }).then(function (results) {
        if (ticket === asked) render(results, query);
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
