/* bough: a session page read as a document. The page works without this file.
   - the previous and next session of the project, from its sessions.js
     (window.BOUGH_SESSIONS: [page, title, date], oldest first, pages relative
     to the project's folder; bough_site/publish.py)
   - the outline: open beside the timeline on wide screens, the prompt you are
     reading marked (aria-current), keys j / k to the next / previous prompt
   - find in this session (this part, on a split page): a match count,
     previous / next, and filters by kind (prompts, replies, tool calls, thinking)
   Pure DOM over the page's own text: works from file://, fetches nothing. */
(function () {
  "use strict";

  var WIDE = "(min-width: 64rem)"; // the outline is a column from here (bough.css, "session page")
  var MAX_MATCHES = 2000; // past this many, the count says "2000+" and only these are marked
  var KINDS = [["prompt", "Prompts"], ["reply", "Replies"], ["tool", "Tool calls"], ["thinking", "Thinking"]];
  // The nearest of these around a text says its kind: a reply inside a sub-agent is a
  // reply, though the sub-agent sits in a tool call. Anything else (commands, markers)
  // is looked in only while every kind is.
  var KIND_OF = ".thinking, .tool, .prompt, .reply";
  // Not looked in: the first lines of a long block repeat its whole (.preview), as
  // a thinking's summary repeats its first words; and
  // the labels, times and counts of item heads (all but a command's name and
  // arguments) say nothing of the conversation.
  var SKIP = ".preview, .thinking > summary, .item-head > :not(code), time, script, style, [hidden]";
  // A match never spans two of these: text is joined within one only.
  var BLOCKS = "p, li, pre, td, th, dt, dd, summary, h1, h2, h3, h4, h5, h6, blockquote, div, section, header, details";

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    for (var key in attrs) node.setAttribute(key, attrs[key]);
    if (text) node.textContent = text;
    return node;
  }

  function typing(target) {
    return target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  }

  // What hides a match: a closed <details>, or a reply bough.js folded (its own
  // button unfolds it, so its state stays right).
  function openAround(node) {
    for (var up = node.parentElement; up; up = up.parentElement) {
      if (up.tagName === "DETAILS" && !up.open) up.open = true;
      if (up.classList.contains("folded")) {
        var button = up.querySelector(":scope > .item-head > .fold");
        if (button) button.click(); else up.classList.remove("folded");
      }
    }
  }

  // --- the sessions before and after this one -----------------------------------------

  function neighbours() {
    var navs = document.querySelectorAll("nav.neighbours");
    var named = document.querySelector("[data-bough-neighbours]");
    var list = window.BOUGH_SESSIONS;
    if (!named || !Array.isArray(list)) return;
    var me = named.getAttribute("data-bough-neighbours");
    var at = -1;
    for (var i = 0; i < list.length; i++) if (list[i] && list[i][0] === me) at = i;
    if (at < 0) return;
    for (var n = 0; n < navs.length; n++) fill(navs[n], list[at - 1], list[at + 1]);
  }

  function fill(nav, before, after) {
    var home = nav.querySelector("a");
    if (!home) return;
    home.classList.add("neighbour-all");
    // The project's only session: nothing to go to but its list, which the bottom keeps.
    if (!before && !after) {
      if (nav.closest(".session-top")) nav.hidden = true;
      return;
    }
    // Pages are named relative to the project's folder: the project page's link resolves them.
    var base = home.href;
    nav.insertBefore(neighbour(before, base, "prev", "← Previous"), home);
    nav.insertBefore(neighbour(after, base, "next", "Next →"), home);
  }

  function neighbour(entry, base, side, label) {
    if (!entry) return el("span", { "class": "neighbour neighbour-" + side + " neighbour-none" },
      side === "prev" ? "The first session" : "The latest session");
    var link = el("a", { "class": "neighbour neighbour-" + side, href: new URL(entry[0], base).href });
    var date = entry[2] || "";
    link.appendChild(el("span", { "class": "neighbour-dir" },
      !date ? label : side === "prev" ? label + " · " + date : date + " · " + label));
    link.appendChild(el("span", { "class": "neighbour-title" }, entry[1] || "Untitled session"));
    link.title = entry[1] || "";
    return link;
  }

  // --- the outline --------------------------------------------------------------------

  function Outline(nav) {
    this.nav = nav;
    this.fold = nav.querySelector("details");
    this.links = Array.prototype.slice.call(nav.querySelectorAll("li > a"));
    // The prompts of this page, in order, each with its link.
    this.here = [];
    for (var i = 0; i < this.links.length; i++) {
      var href = this.links[i].getAttribute("href");
      var target = href.charAt(0) === "#" ? document.getElementById(href.slice(1)) : null;
      if (target) this.here.push({ link: this.links[i], target: target, index: i });
    }
    this.current = null;
  }

  Outline.prototype.start = function () {
    var self = this;
    var wide = window.matchMedia ? window.matchMedia(WIDE) : null;
    if (this.fold && wide) {
      var follow = function () { self.fold.open = wide.matches; };
      follow();
      if (wide.addEventListener) wide.addEventListener("change", follow);
    }
    // On a phone the list folds away again once a prompt is chosen.
    this.nav.addEventListener("click", function (event) {
      if (event.target.closest && event.target.closest("li > a") && wide && !wide.matches && self.fold) {
        self.fold.open = false;
      }
    });
    if (this.fold && this.links.length) {
      var keys = el("p", { "class": "outline-keys" });
      keys.appendChild(el("kbd", {}, "j"));
      keys.appendChild(document.createTextNode(" next prompt, "));
      keys.appendChild(el("kbd", {}, "k"));
      keys.appendChild(document.createTextNode(" previous, "));
      keys.appendChild(el("kbd", {}, "f"));
      keys.appendChild(document.createTextNode(" find"));
      this.fold.appendChild(keys);
    }
    if (!this.here.length) return;
    // Where you are changes when a prompt crosses the line a third of the way down;
    // the observer says when, and the marked prompt is then worked out from the
    // positions (a fast scroll can carry a prompt across without it ever showing).
    var update = function () { self.mark(self.at()); };
    if ("IntersectionObserver" in window) {
      var watch = new IntersectionObserver(update, { rootMargin: "0px 0px -66% 0px" });
      for (var i = 0; i < this.here.length; i++) watch.observe(this.here[i].target);
    }
    var pending = null;
    window.addEventListener("scroll", function () {
      if (pending === null) pending = setTimeout(function () { pending = null; update(); }, 120);
    }, { passive: true });
    update();
  };

  // The last prompt of this page whose top is above the line (a binary search);
  // above the first, the first (-1 only for j / k: before any prompt).
  Outline.prototype.at = function (strict) {
    var line = window.innerHeight / 3;
    var lo = 0, hi = this.here.length - 1, found = strict ? -1 : 0;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (this.here[mid].target.getBoundingClientRect().top <= line) { found = mid; lo = mid + 1; } else { hi = mid - 1; }
    }
    return found;
  };

  Outline.prototype.mark = function (position) {
    var entry = position >= 0 ? this.here[position] : null;
    if (entry === this.current) return;
    if (this.current) this.current.link.removeAttribute("aria-current");
    this.current = entry;
    if (!entry) return;
    entry.link.setAttribute("aria-current", "location");
    // Keep the marked entry in sight in the column, without moving the page.
    var box = this.nav.parentElement;
    if (box && box.scrollHeight > box.clientHeight) {
      var item = entry.link.getBoundingClientRect(), frame = box.getBoundingClientRect();
      if (item.top < frame.top || item.bottom > frame.bottom) {
        box.scrollTop += item.top - frame.top - box.clientHeight / 2;
      }
    }
  };

  // j / k: the next or previous prompt, from the one you are reading; past the
  // first or last of this page, the part that holds it.
  Outline.prototype.step = function (by) {
    if (!this.links.length) return;
    var position = this.at(true);
    var index;
    if (position < 0) {
      // Before this page's first prompt: it, or the one before it (on an earlier part).
      index = this.here.length ? this.here[0].index - (by > 0 ? 0 : 1) : (by > 0 ? 0 : -1);
    } else {
      var entry = this.here[position];
      var top = entry.target.getBoundingClientRect().top;
      // Reading a prompt scrolled a little past: k goes back to its start first.
      index = by < 0 && top < -8 ? entry.index : entry.index + by;
    }
    if (index < 0 || index >= this.links.length) return;
    var link = this.links[index];
    var href = link.getAttribute("href");
    if (href.charAt(0) !== "#") {
      window.location.href = link.href;
      return;
    }
    var target = document.getElementById(href.slice(1));
    if (!target) return;
    target.scrollIntoView({ block: "start" });
    if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
    target.focus({ preventScroll: true });
    if (history.replaceState) history.replaceState(null, "", href);
    this.mark(this.here.findIndex(function (e) { return e.target === target; }));
  };

  // --- find in this session -------------------------------------------------------------

  function Find(side, timeline, part) {
    this.timeline = timeline;
    this.marks = []; // per match, its <mark> elements (a match may cross elements)
    this.current = -1;
    this.timer = null;
    var where = part ? "this part" : "this session";
    var box = el("div", { "class": "find", role: "search", "aria-label": "Find in " + where });
    var row = el("div", { "class": "find-row" });
    this.input = el("input", { type: "search", placeholder: "Find in " + where, "aria-label": "Find in " + where,
      autocomplete: "off", spellcheck: "false" });
    this.count = el("span", { "class": "find-count", "aria-live": "polite" });
    this.prev = el("button", { type: "button", "class": "find-prev", "aria-label": "Previous match", title: "Previous match (Shift+Enter)" }, "↑");
    this.next = el("button", { type: "button", "class": "find-next", "aria-label": "Next match", title: "Next match (Enter)" }, "↓");
    row.appendChild(this.input);
    row.appendChild(this.count);
    row.appendChild(this.prev);
    row.appendChild(this.next);
    box.appendChild(row);
    var kinds = el("fieldset", { "class": "find-kinds" });
    kinds.appendChild(el("legend", { "class": "visually-hidden" }, "Look in"));
    this.boxes = {};
    this.labels = {};
    for (var i = 0; i < KINDS.length; i++) {
      var label = el("label", { "class": "find-kind" });
      var check = el("input", { type: "checkbox", value: KINDS[i][0] });
      check.checked = true;
      var name = el("span", {}, KINDS[i][1]);
      label.appendChild(check);
      label.appendChild(name);
      kinds.appendChild(label);
      this.boxes[KINDS[i][0]] = check;
      this.labels[KINDS[i][0]] = name;
    }
    box.appendChild(kinds);
    if (part) box.appendChild(el("p", { "class": "find-note" }, (part === "this" ? "This part" : "Part " + part) +
      ": the other parts are their own pages."));
    side.insertBefore(box, side.firstChild);
    this.box = box;
    this.bind();
  }

  Find.prototype.bind = function () {
    var self = this;
    this.input.addEventListener("input", function () {
      clearTimeout(self.timer);
      self.timer = setTimeout(function () { self.run(); }, 150);
    });
    this.input.addEventListener("keydown", function (event) {
      if (event.key === "Enter") {
        event.preventDefault();
        clearTimeout(self.timer);
        if (self.query !== self.input.value) self.run();
        self.go(event.shiftKey ? -1 : 1);
      } else if (event.key === "Escape") {
        if (self.input.value) { self.input.value = ""; self.run(); } else { self.input.blur(); }
      }
    });
    this.prev.addEventListener("click", function () { self.go(-1); });
    this.next.addEventListener("click", function () { self.go(1); });
    for (var kind in this.boxes) this.boxes[kind].addEventListener("change", function () { self.run(); });
  };

  Find.prototype.focus = function () {
    this.input.focus();
    this.input.select();
  };

  Find.prototype.clear = function () {
    var parents = [];
    for (var i = 0; i < this.marks.length; i++) {
      for (var j = 0; j < this.marks[i].length; j++) {
        var mark = this.marks[i][j];
        var parent = mark.parentNode;
        if (!parent) continue;
        parent.replaceChild(document.createTextNode(mark.textContent), mark);
        parents.push(parent);
      }
    }
    // Joined again, so the next search sees whole texts.
    for (var k = 0; k < parents.length; k++) parents[k].normalize();
    this.marks = [];
    this.current = -1;
  };

  // The texts to look in, with their kinds, joined per block: one string, and where each text starts in it.
  Find.prototype.texts = function () {
    var all = true, wanted = {};
    for (var kind in this.boxes) { wanted[kind] = this.boxes[kind].checked; all = all && wanted[kind]; }
    var walker = document.createTreeWalker(this.timeline, NodeFilter.SHOW_TEXT);
    var nodes = [], starts = [], kinds = [], pieces = [], length = 0, lastBlock = null;
    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
      var parent = node.parentElement;
      if (!parent || !node.data || parent.closest(SKIP)) continue;
      var around = parent.closest(KIND_OF);
      var what = !around ? "other" : around.classList.contains("thinking") ? "thinking"
        : around.classList.contains("tool") ? "tool" : around.classList.contains("prompt") ? "prompt" : "reply";
      if (what === "other" ? !all : !wanted[what]) { lastBlock = null; continue; }
      var block = parent.closest(BLOCKS);
      if (block !== lastBlock) { pieces.push("\n"); length += 1; lastBlock = block; }
      nodes.push(node);
      starts.push(length);
      kinds.push(what);
      pieces.push(node.data);
      length += node.data.length;
    }
    return { nodes: nodes, starts: starts, kinds: kinds, text: pieces.join("") };
  };

  Find.prototype.run = function () {
    var query = this.input.value;
    this.query = query;
    this.clear();
    this.box.classList.toggle("find-active", query.length > 0);
    var counts = { prompt: 0, reply: 0, tool: 0, thinking: 0, other: 0 };
    if (!query.trim()) { this.show(0, false, counts); return; }
    var found = this.texts();
    var pattern = new RegExp(query.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "gi");
    var ranges = [], more = false, match;
    while ((match = pattern.exec(found.text)) !== null) {
      if (ranges.length >= MAX_MATCHES) { more = true; break; }
      ranges.push([match.index, match.index + match[0].length]);
    }
    // Each match as pieces of texts: [text number, from, to].
    var byNode = {}, owners = [], first = 0;
    for (var r = 0; r < ranges.length; r++) {
      var start = ranges[r][0], end = ranges[r][1];
      while (first + 1 < found.starts.length && found.starts[first + 1] <= start) first++;
      counts[found.kinds[first]]++;
      for (var n = first; n < found.nodes.length && found.starts[n] < end; n++) {
        var from = Math.max(start, found.starts[n]) - found.starts[n];
        var to = Math.min(end, found.starts[n] + found.nodes[n].data.length) - found.starts[n];
        if (to > from) (byNode[n] = byNode[n] || []).push([from, to, r]);
      }
      owners.push([]);
    }
    // Marked from the last text's end back, so the offsets still to do stay right
    // and each match's marks come out in order.
    var keys = Object.keys(byNode).map(Number).sort(function (a, b) { return b - a; });
    for (var k = 0; k < keys.length; k++) {
      var node = found.nodes[keys[k]], list = byNode[keys[k]];
      for (var p = list.length - 1; p >= 0; p--) {
        var piece = list[p];
        node.splitText(piece[1]);
        var middle = node.splitText(piece[0]);
        var mark = el("mark", { "class": "find-hit" });
        middle.parentNode.replaceChild(mark, middle);
        mark.appendChild(middle);
        owners[piece[2]].unshift(mark);
      }
    }
    this.marks = owners;
    this.show(0, more, counts);
  };

  Find.prototype.show = function (position, more, counts) {
    var total = this.marks.length + (more ? "+" : "");
    var text = "";
    if (this.query && this.query.trim()) {
      if (!this.marks.length) text = "no match";
      else if (position) text = position + " of " + total;
      else text = total + (this.marks.length === 1 && !more ? " match" : " matches");
    }
    this.count.textContent = text;
    if (counts) {
      for (var kind in this.labels) {
        var name = KINDS.filter(function (k) { return k[0] === kind; })[0][1];
        this.labels[kind].textContent = counts[kind] ? name + " " + counts[kind] : name;
      }
      this.more = more;
    }
  };

  Find.prototype.go = function (by) {
    if (!this.marks.length) return;
    var old = this.marks[this.current];
    if (old) for (var i = 0; i < old.length; i++) old[i].classList.remove("find-current");
    this.current = this.current < 0 ? (by > 0 ? 0 : this.marks.length - 1)
      : (this.current + by + this.marks.length) % this.marks.length;
    var now = this.marks[this.current];
    for (var j = 0; j < now.length; j++) now[j].classList.add("find-current");
    openAround(now[0]);
    now[0].scrollIntoView({ block: "center" });
    this.show(this.current + 1, this.more, null);
  };

  // --- keys -------------------------------------------------------------------------------

  function keys(outline, find) {
    document.addEventListener("keydown", function (event) {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
      if (outline && (event.key === "j" || event.key === "k")) {
        event.preventDefault();
        outline.step(event.key === "j" ? 1 : -1);
      } else if (find && event.key === "f") {
        event.preventDefault();
        find.focus();
      }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    neighbours();
    var nav = document.querySelector("nav.outline");
    var outline = nav ? new Outline(nav) : null;
    if (outline) outline.start();
    var side = document.querySelector(".session-side");
    var timeline = document.querySelector(".timeline");
    var parts = document.querySelector("nav.parts");  // a split session: find looks in this part
    var part = parts ? (nav && nav.getAttribute("data-part")) || "this" : null;
    var find = side && timeline ? new Find(side, timeline, part) : null;
    keys(outline, find);
  });
})();
