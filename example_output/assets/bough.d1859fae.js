/* bough: small conveniences. Pages work without this file.
   - times shown in the reader's time zone (the UTC text stays in the title)
   - a click on a "#" self-link also copies the link
   - expand / collapse all on session pages, a fold for each reply, and whether
     long lines wrap (remembered for the page)
   - opening the <details> around a linked moment
   - making code blocks that scroll sideways reachable by keyboard
   (the search box is search.js)
   Nothing here fetches anything. */
(function () {
  "use strict";

  var FORMATS = {
    time: { hour: "2-digit", minute: "2-digit", second: "2-digit" },
    date: { year: "numeric", month: "short", day: "numeric" },
    text: { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short" }
  };

  function localTimes() {
    var formatters = {};
    Object.keys(FORMATS).forEach(function (key) {
      try {
        formatters[key] = new Intl.DateTimeFormat(undefined, FORMATS[key]);
      } catch (e) {
        formatters[key] = null;
      }
    });
    var nodes = document.querySelectorAll("time[datetime]");
    for (var i = 0; i < nodes.length; i++) {
      var node = nodes[i];
      var moment = new Date(node.getAttribute("datetime"));
      var formatter = formatters[node.getAttribute("data-format")] || formatters.text;
      if (!formatter || isNaN(moment.getTime())) continue;
      node.textContent = formatter.format(moment);
    }
  }

  function copySelfLinks() {
    document.addEventListener("click", function (event) {
      var link = event.target.closest ? event.target.closest("a.self-link") : null;
      if (!link || !navigator.clipboard) return;
      var url = location.href.split("#")[0] + link.getAttribute("href");
      navigator.clipboard.writeText(url).then(function () {
        link.classList.add("copied");
        setTimeout(function () { link.classList.remove("copied"); }, 1500);
      }, function () { /* no clipboard permission: the link still navigates */ });
    });
  }

  // --- folding and wrapping (session pages) ---------------------------------
  // Tool calls are <details open> and replies have no fold of their own in the
  // HTML: without this script everything is unfolded. "Collapse all" closes
  // every <details> of the timeline and folds every reply's body under its
  // header, so a long session reads as a list of turns; "Expand all" opens
  // everything. The choice, and whether long lines wrap, are kept for the page
  // in localStorage, which file:// pages or a private window may refuse: then
  // they last until the page is left.
  var STORE_KEY = "bough:" + location.pathname;

  function remembered() {
    try {
      var value = JSON.parse(localStorage.getItem(STORE_KEY) || "{}");
      return value && typeof value === "object" ? value : {};
    } catch (e) {
      return {};
    }
  }

  function remember(key, value) {
    try {
      var state = remembered();
      state[key] = value;
      localStorage.setItem(STORE_KEY, JSON.stringify(state));
    } catch (e) { /* storage refused: the choice holds for this visit */ }
  }

  // What a folded reply shows beside its header: its first words, or the tools it ran.
  function foldNote(reply) {
    var head = reply.querySelector(":scope > .item-head");
    if (!head || head.querySelector(":scope > .fold-note")) return;
    var text = reply.querySelector(":scope > .md");
    var words = text ? text.textContent.replace(/\s+/g, " ").trim() : "";
    if (!words) {
      var names = reply.querySelectorAll(":scope > .tool .tool-name");
      var seen = [];
      for (var i = 0; i < names.length; i++) {
        if (seen.indexOf(names[i].textContent) < 0) seen.push(names[i].textContent);
      }
      words = seen.length ? names.length + (names.length === 1 ? " tool call: " : " tool calls: ") + seen.join(", ") : "";
    }
    if (!words) return;
    var note = document.createElement("span");
    note.className = "fold-note";
    note.textContent = words.length > 140 ? words.slice(0, 139) + "\u2026" : words;
    head.insertBefore(note, head.querySelector(":scope > .self-link"));
  }

  function foldReply(reply, folded) {
    reply.classList.toggle("folded", folded);
    var button = reply.querySelector(":scope > .item-head > .fold");
    if (button) button.setAttribute("aria-expanded", folded ? "false" : "true");
    if (folded) foldNote(reply);
  }

  // A button at the start of each reply's header folds its body away.
  function foldButtons() {
    var heads = document.querySelectorAll(".timeline .reply > .item-head");
    for (var i = 0; i < heads.length; i++) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "fold";
      button.setAttribute("aria-expanded", "true");
      button.setAttribute("aria-label", "Fold this reply");
      heads[i].insertBefore(button, heads[i].firstChild);
    }
    document.addEventListener("click", function (event) {
      var button = event.target.closest ? event.target.closest(".reply > .item-head > .fold") : null;
      if (button) foldReply(button.parentElement.parentElement, button.getAttribute("aria-expanded") === "true");
    });
  }

  function setAll(open) {
    var nodes = document.querySelectorAll(".timeline details");
    for (var i = 0; i < nodes.length; i++) nodes[i].open = open;
    var replies = document.querySelectorAll(".timeline .reply");
    for (var j = 0; j < replies.length; j++) foldReply(replies[j], !open);
  }

  function setWrap(button, wrap) {
    var timelines = document.querySelectorAll(".timeline");
    for (var i = 0; i < timelines.length; i++) timelines[i].classList.toggle("nowrap", !wrap);
    if (button) button.setAttribute("aria-pressed", wrap ? "true" : "false");
    if (!wrap) focusableScrollers(document);
  }

  function toolbar() {
    var bar = document.querySelector("[data-bough-toolbar]");
    if (!bar) return;
    bar.hidden = false;
    foldButtons();
    var state = remembered();
    if (state.fold === "collapsed" || state.fold === "expanded") setAll(state.fold === "expanded");
    var expand = bar.querySelector("[data-bough-expand]");
    var collapse = bar.querySelector("[data-bough-collapse]");
    var wrap = bar.querySelector("[data-bough-wrap]");
    if (state.wrap === false) setWrap(wrap, false);
    if (expand) expand.addEventListener("click", function () { setAll(true); remember("fold", "expanded"); });
    if (collapse) collapse.addEventListener("click", function () { setAll(false); remember("fold", "collapsed"); });
    if (wrap) {
      wrap.addEventListener("click", function () {
        var on = wrap.getAttribute("aria-pressed") !== "true";
        setWrap(wrap, on);
        remember("wrap", on);
      });
    }
  }

  // A link to a reply inside a closed sub-agent (or a folded reply) would land
  // on nothing visible.
  function revealTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id ? document.getElementById(id) : null;
    if (!target) return;
    for (var node = target; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") node.open = true;
      if (node.classList && node.classList.contains("folded")) foldReply(node, false);
    }
    target.scrollIntoView();
  }

  // A <pre> wider than its box scrolls; keyboard users need to focus it to scroll.
  // All reads first, then all writes, so the layout is computed once. Blocks
  // inside a closed <details> have no width yet: checked again when opened.
  function focusableScrollers(root) {
    var blocks = root.querySelectorAll("pre:not([tabindex])");
    var wide = [];
    for (var i = 0; i < blocks.length; i++) {
      if (blocks[i].scrollWidth > blocks[i].clientWidth) wide.push(blocks[i]);
    }
    for (var j = 0; j < wide.length; j++) wide[j].setAttribute("tabindex", "0");
  }

  // Deferred scripts (this one and Pagefind's) have all run by DOMContentLoaded.
  document.addEventListener("DOMContentLoaded", function () {
    localTimes();
    copySelfLinks();
    toolbar();
    revealTarget();
    focusableScrollers(document);
    // "toggle" does not bubble; listening in the capture phase sees every one.
    document.addEventListener("toggle", function (event) {
      if (event.target.open) focusableScrollers(event.target);
    }, true);
    window.addEventListener("hashchange", revealTarget);
  });
})();
