/* bough: the rows of the index and project pages (table[data-bough-rows]).
   The tables are whole without this file; it adds:
   - sorting by a click on a column head (a button, so the keyboard has it too);
   - filters above the table: text, a date range, model and source;
   - arrow keys (and Home / End) to move from row to row.
   Sorting by the first date column, newest first, is the page's own order,
   months and all; any other order lists the rows without their months.
   A big project's pages (render/months.py) each hold some of its sessions; their
   table names the project's rows.js (data-rows: every session's row as data,
   bough.rows/2 in docs/sidecars.md). Sorting or filtering there loads it, as a
   script so that it works from file:// too, and sorts and filters every session
   of the project; back to the page's own order with no filter, the page shows its
   own rows again. The rows made from it are built with textContent, never as
   HTML: titles come from transcripts. Nothing else is loaded. */
(function () {
  "use strict";

  // Sort keys by the column's data-sort: text, date (a <time>), num (a <data> or the text), value (data-v).
  var KEYS = {
    // Leading marks (a `code` span's backtick, a quote) aside.
    text: function (cell) { return cell.textContent.trim().replace(/^[^\p{L}\p{N}]+/u, ""); },
    date: function (cell) {
      var time = cell.querySelector("time[datetime]");
      return time ? time.getAttribute("datetime") : "";
    },
    num: function (cell) {
      var data = cell.querySelector("data[value]");
      var n = parseFloat(data ? data.value : cell.textContent.replace(/[^0-9.\-]/g, ""));
      return isNaN(n) ? -1 : n;
    },
    value: function (cell) {
      var n = parseFloat(cell.getAttribute("data-v"));
      return isNaN(n) ? -1 : n;
    }
  };

  // Titles A to Z as a reader expects them: case and accents aside, numbers by value.
  var COLLATOR = new Intl.Collator(undefined, { sensitivity: "base", numeric: true });

  function compare(a, b) {
    if (typeof a === "string" && typeof b === "string") return COLLATOR.compare(a, b);
    return a < b ? -1 : a > b ? 1 : 0;
  }

  function two(n) { return (n < 10 ? "0" : "") + n; }

  function localDay(iso) {
    var moment = new Date(iso);
    if (isNaN(moment.getTime())) return "";
    return moment.getFullYear() + "-" + two(moment.getMonth() + 1) + "-" + two(moment.getDate());
  }

  function Rows(table) {
    this.table = table;
    this.kind = table.getAttribute("data-bough-rows") || "rows";
    this.rows = Array.prototype.slice.call(table.querySelectorAll("tbody > tr:not(.month-head)"));
    this.homes = this.rows.map(function (row) { return row.parentNode; });
    this.heads = Array.prototype.slice.call(table.querySelectorAll("thead th[data-sort]"));
    this.dateColumn = this.heads.findIndex(function (th) { return th.getAttribute("data-sort") === "date"; });
    this.sorted = null; // a tbody holding the rows in another order than the page's
    this.sort = null; // [column, direction] when not the page's own order
    // A big project's page: its own rows, and (once loaded) all the project's.
    this.src = table.getAttribute("data-rows");
    this.own = { rows: this.rows, homes: this.homes, bodies: Array.prototype.slice.call(table.tBodies) };
    this.set = this.own;
    this.all = null;
    this.loading = false;
    this.failed = false;
    this.sortButtons();
    this.filters();
    this.keyboard();
  }

  Rows.prototype.cell = function (row, index) {
    return row.children[index];
  };

  // --- sorting ---------------------------------------------------------------------

  Rows.prototype.sortButtons = function () {
    var self = this;
    this.heads.forEach(function (th, index) {
      var button = make("button", { type: "button" });
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      button.addEventListener("click", function () {
        var kind = th.getAttribute("data-sort");
        var now = th.getAttribute("aria-sort");
        var first = kind === "text" ? "ascending" : "descending";
        var other = first === "ascending" ? "descending" : "ascending";
        self.sortBy(index, now === first ? other : first);
      });
    });
  };

  Rows.prototype.sortBy = function (index, direction) {
    this.heads.forEach(function (th, i) {
      if (i === index) th.setAttribute("aria-sort", direction);
      else th.removeAttribute("aria-sort");
    });
    // Newest first by the date column is the page's own order, months and all.
    this.sort = index === this.dateColumn && direction === "descending" ? null : [index, direction];
    this.update();
  };

  // The rows in the order chosen (the current set's: this page's or the project's).
  Rows.prototype.arrange = function () {
    var self = this;
    if (!this.sort) {
      // The page's own order: each row back in its month.
      this.rows.forEach(function (row, i) { self.homes[i].appendChild(row); });
      if (this.sorted) this.sorted.remove();
      this.sorted = null;
      this.table.classList.remove("sorted");
      return;
    }
    var index = this.sort[0];
    var key = KEYS[this.heads[index].getAttribute("data-sort")] || KEYS.text;
    var sign = this.sort[1] === "ascending" ? 1 : -1;
    var keyed = this.rows.map(function (row, i) { return [key(self.cell(row, index)), i, row]; });
    keyed.sort(function (a, b) {
      return sign * compare(a[0], b[0]) || a[1] - b[1]; // among equals, the page's order
    });
    if (!this.sorted) {
      this.sorted = make("tbody", { className: "sorted-rows" });
      this.table.appendChild(this.sorted);
    }
    var sorted = this.sorted;
    keyed.forEach(function (entry) { sorted.appendChild(entry[2]); });
    this.table.classList.add("sorted");
  };

  // After a new order or filter: the project's rows when a big project's page is
  // sorted or filtered (loaded the first time), the page's own otherwise.
  Rows.prototype.update = function () {
    var whole = !!this.src && !this.failed && (this.sort !== null || this.filtering());
    if (whole && !this.all) this.load();
    this.use(whole && this.all ? this.all : this.own);
    this.arrange();
    this.filter();
  };

  Rows.prototype.use = function (set) {
    if (set === this.set) return;
    var self = this;
    this.rows.forEach(function (row, i) { self.homes[i].appendChild(row); });
    if (this.sorted) this.sorted.remove();
    this.sorted = null;
    this.set.bodies.forEach(function (body) { body.remove(); });
    set.bodies.forEach(function (body) { self.table.appendChild(body); });
    this.set = set;
    this.rows = set.rows;
    this.homes = set.homes;
  };

  // --- a big project's rows (its rows.js) --------------------------------------------

  Rows.prototype.load = function () {
    if (!this.src || this.all || this.loading || this.failed) return;
    this.loading = true;
    var self = this;
    function done() {
      self.loading = false;
      var data = window.BOUGH_ROWS;
      if (!data || data.schema !== "bough.rows/2") { fail(); return; }
      self.all = self.build(data);
      self.choices();
      self.update();
    }
    function fail() {
      self.loading = false;
      self.failed = true;
      self.update();
    }
    if (window.BOUGH_ROWS) { done(); return; }
    var script = make("script", { src: this.src });
    script.addEventListener("load", done);
    script.addEventListener("error", fail);
    document.head.appendChild(script);
    this.filter();
  };

  // Formats as the server writes them (bough_site/render/formats.py: num, compact,
  // duration; the time as bough.js shows it, in the reader's zone).
  function fmt(n) { return typeof n === "number" ? n.toLocaleString("en-US") : "0"; }

  function compact(n) {
    if (typeof n !== "number") return "0";
    var sizes = [[1e9, "B"], [1e6, "M"], [1e3, "k"]];
    for (var i = 0; i < sizes.length; i++) {
      if (Math.abs(n) < sizes[i][0]) continue;
      var x = n / sizes[i][0];
      var text = x.toFixed(1);
      var t = x * 10;
      if (t - Math.floor(t) === 0.5 && Math.floor(t) % 2 === 0) text = (Math.floor(t) / 10).toFixed(1); // Python rounds half to even
      return text.replace(/\.0$/, "") + sizes[i][1];
    }
    return String(n);
  }

  function lasted(s) {
    if (typeof s !== "number" || s < 0) return "";
    if (s < 60) return s + " s";
    var minutes = Math.floor(s / 60);
    if (minutes < 60) return minutes + " min";
    var hours = Math.floor(minutes / 60);
    if (hours < 48) return hours + " h " + two(minutes % 60) + " min";
    return Math.floor(hours / 24) + " d " + (hours % 24) + " h";
  }

  var SHOWN = null;
  try {
    SHOWN = new Intl.DateTimeFormat(undefined, { year: "numeric", month: "short", day: "numeric",
      hour: "2-digit", minute: "2-digit", timeZoneName: "short" });
  } catch (e) { SHOWN = null; }

  function plural(n, word) { return fmt(n) + " " + word + (n === 1 ? "" : "s"); }

  // One session's row, as session_row.html writes it.
  function sessionRow(r, base, sources, at) {
    var several = sources.length > 1;
    var source = sources[r[2]] || "";
    var row = make("tr", {});
    if (several) row.setAttribute("data-source", source);
    var title = make("td", { className: "title" });
    title.appendChild(make("a", { href: base + r[0], textContent: r[1] }));
    function badge(text, className) {
      title.appendChild(document.createTextNode(" "));
      return title.appendChild(make("span", { className: className || "badge", textContent: text }));
    }
    if (several) badge(source);
    if (r[8]) badge("fork");
    if (r[9]) badge("kept by bough", "badge badge-kept").title = "original deleted; kept by bough since " + r[9];
    row.appendChild(title);
    var started = make("td", {});
    if (r[3]) {
      var utc = r[3].slice(0, 10) + " " + r[3].slice(11, 16) + " UTC";
      var time = make("time", { dateTime: r[3], title: utc, textContent: utc });
      time.setAttribute("data-format", "text");
      var moment = new Date(r[3]);
      if (SHOWN && !isNaN(moment.getTime())) time.textContent = SHOWN.format(moment);
      started.appendChild(time);
    }
    row.appendChild(started);
    var length = make("td", { className: "d", textContent: lasted(r[4]) });
    length.setAttribute("data-v", String(r[4]));
    row.appendChild(length);
    var models = make("td", { className: "models" });
    (r[5] || []).forEach(function (name, i) {
      if (i) models.appendChild(document.createTextNode(" "));
      models.appendChild(make("span", { className: "model-name", textContent: name }));
    });
    row.appendChild(models);
    row.appendChild(make("td", { className: "n", textContent: fmt(r[6]) }));
    var tokens = make("td", { className: "n" });
    tokens.appendChild(make("data", { value: String(r[7]), textContent: compact(r[7]) }));
    row.appendChild(tokens);
    if (at.cost >= 0) {
      // As session_row.html writes it (macros.html cost_total).
      var cost = make("td", { className: "n" });
      var usd = r[at.cost];
      if (usd === null && r[at.unpriced]) {
        cost.appendChild(make("span", { className: "unknown", textContent: "unknown",
          title: "unknown (" + plural(r[at.unpriced], "call") + " of unknown price): a model the price table does not know, a local model, or unknown tokens" }));
      } else if (typeof usd === "number") {
        var text = money(usd);
        var unpriced = r[at.unpriced] || 0;
        if (unpriced) text += " + " + plural(unpriced, "call") + " of unknown price";
        cost.appendChild(make("data", { value: String(usd), textContent: money(usd), title: text }));
        if (unpriced) {
          cost.appendChild(make("span", { className: "unknown", textContent: "+",
            title: text + ": calls of a model the price table does not know, a local model, or unknown tokens" }));
        }
      }
      row.appendChild(cost);
    }
    return row;
  }

  // formats.py money: $1,234 · $12.40 · $0.0034.
  function money(v) {
    if (typeof v !== "number" || isNaN(v)) return "";
    if (v >= 1000) return "$" + Math.round(v).toLocaleString("en-US");
    if (v >= 0.01 || v === 0) return "$" + v.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    return "$" + v.toFixed(4);
  }

  // Every session of the project, in months as its pages show them.
  Rows.prototype.build = function (data) {
    var base = this.src.replace(/[^\/]*$/, ""); // rows.js is in the project's folder
    var columns = this.heads.length;
    var named = data.columns || [];
    // The cost cells only where the page has the column (not with --no-cost).
    var where = { cost: columns > 6 ? named.indexOf("cost") : -1, unpriced: named.indexOf("unpriced") };
    var set = { rows: [], homes: [], bodies: [] };
    var at = 0;
    data.months.forEach(function (month) {
      var body = make("tbody", { className: "month" });
      var head = make("tr", { className: "month-head" });
      var th = make("th", { scope: "rowgroup", colSpan: columns });
      th.appendChild(make("a", { href: base + month[3], textContent: month[1] }));
      th.appendChild(document.createTextNode(" "));
      th.appendChild(make("span", { className: "count", textContent: plural(month[2], "session") }));
      head.appendChild(th);
      body.appendChild(head);
      for (var i = 0; i < month[2] && at < data.rows.length; i++, at++) {
        var row = sessionRow(data.rows[at], base, data.sources, where);
        body.appendChild(row);
        set.rows.push(row);
        set.homes.push(body);
      }
      set.bodies.push(body);
    });
    return set;
  };

  // --- filtering ---------------------------------------------------------------------

  Rows.prototype.modelsOf = function (row) {
    var cell = row.querySelector("td.models");
    return cell ? cell.textContent.trim().split(/\s+/) : [];
  };

  Rows.prototype.sourcesOf = function (row) {
    return (row.getAttribute("data-source") || "").split(",");
  };

  // An element with its properties (className, type, name, textContent …).
  function make(tag, props) {
    return Object.assign(document.createElement(tag), props);
  }

  function labelled(text, control) {
    var label = make("label", { textContent: text + " " });
    label.appendChild(control);
    return label;
  }

  // Named by aria-label: a wrapping label's name would take in the chosen option's text.
  function choice(name, label, all, values) {
    var box = make("select", { name: name });
    box.setAttribute("aria-label", label);
    box.add(new Option(all, ""));
    values.forEach(function (value) { box.add(new Option(value, value)); });
    return labelled(label, box);
  }

  Rows.prototype.values = function (read) {
    var seen = {};
    this.rows.forEach(function (row) {
      read(row).forEach(function (value) { if (value) seen[value] = true; });
    });
    return Object.keys(seen).sort();
  };

  // The filters go above the table; like the search box, they are made here,
  // so a page holds no form control that would do nothing without this file.
  Rows.prototype.filters = function () {
    var self = this;
    var bar = make("div", { className: "row-filters" });
    bar.setAttribute("role", "search");
    bar.setAttribute("aria-label", "Filter the " + this.kind);
    this.text = make("input", { type: "search", name: "q", placeholder: "Words in a title, path or model" });
    this.from = make("input", { type: "date", name: "from" });
    this.to = make("input", { type: "date", name: "to" });
    bar.appendChild(labelled("Filter " + this.kind, this.text));
    bar.appendChild(labelled("From", this.from));
    bar.appendChild(labelled("To", this.to));
    this.count = make("span", { className: "row-count" });
    this.count.setAttribute("role", "status");
    bar.appendChild(this.count);
    this.bar = bar;
    this.model = this.source = null;
    this.choices();
    this.table.parentNode.insertBefore(bar, this.table);
    [this.text, this.from, this.to].forEach(function (box) {
      box.addEventListener("input", function () { self.update(); });
    });
    bar.addEventListener("change", function (event) {
      if (event.target.tagName === "SELECT") self.update();
    });
    // A big project's rows load as soon as a filter is reached, to be there when used.
    if (this.src) bar.addEventListener("focusin", function () { self.load(); });
    this.filter();
  };

  // The model and source boxes, from the rows at hand; again once a big
  // project's rows are loaded (its other pages may have other models): a box
  // then gets the new values in place, keeping focus and what was chosen.
  Rows.prototype.choices = function () {
    var self = this;
    [["model", "Model", "All models", this.modelsOf], ["source", "Source", "All sources", this.sourcesOf]]
      .forEach(function (spec) {
        var name = spec[0];
        var values = self.values(spec[3].bind(self));
        var box = self[name];
        if (!box) {
          if (values.length < 2) return;
          var label = choice(name, spec[1], spec[2], values);
          self.bar.insertBefore(label, self.count);
          self[name] = label.lastChild;
          return;
        }
        var chosen = box.value;
        while (box.options.length > 1) box.remove(1);
        values.forEach(function (value) { box.add(new Option(value, value)); });
        box.value = values.indexOf(chosen) >= 0 ? chosen : "";
      });
  };

  Rows.prototype.filtering = function () {
    return !!(this.text.value.trim() || this.from.value || this.to.value ||
      (this.model && this.model.value) || (this.source && this.source.value));
  };

  Rows.prototype.span = function (row) {
    // A session: the day it started. A project: from its first session to its last.
    var time = this.dateColumn >= 0 ? this.cell(row, this.dateColumn).querySelector("time[datetime]") : null;
    var last = time ? localDay(time.getAttribute("datetime")) : "";
    var from = row.getAttribute("data-from");
    return [from ? localDay(from) : last, last];
  };

  Rows.prototype.matches = function (row, words, from, to, model, source) {
    if (words.length) {
      var text = row.textContent.toLowerCase();
      for (var i = 0; i < words.length; i++) if (text.indexOf(words[i]) < 0) return false;
    }
    if (from || to) {
      var span = this.span(row);
      if (!span[1]) return false;
      if (from && span[1] < from) return false;
      if (to && span[0] > to) return false;
    }
    if (model && this.modelsOf(row).indexOf(model) < 0) return false;
    if (source && this.sourcesOf(row).indexOf(source) < 0) return false;
    return true;
  };

  Rows.prototype.filter = function () {
    var words = this.text.value.toLowerCase().split(/\s+/).filter(Boolean);
    var from = this.from.value;
    var to = this.to.value;
    var model = this.model ? this.model.value : "";
    var source = this.source ? this.source.value : "";
    var shown = 0;
    var self = this;
    this.rows.forEach(function (row) {
      var keep = self.matches(row, words, from, to, model, source);
      row.classList.toggle("filtered-out", !keep);
      if (keep) shown++;
    });
    var months = this.table.querySelectorAll("tbody.month");
    for (var i = 0; i < months.length; i++) {
      var any = months[i].querySelector("tr:not(.month-head):not(.filtered-out)");
      months[i].classList.toggle("empty-month", !any);
    }
    var total = this.rows.length;
    var counted = shown === total ? fmt(total) + " " + this.kind : fmt(shown) + " of " + fmt(total) + " " + this.kind;
    if (this.src && this.set === this.own) {
      // A big project's page, showing its own rows: say so, and why when it must.
      counted += this.loading ? " on this page; loading the project's …"
        : this.failed ? " on this page (the project's other pages could not be loaded: sorted and filtered here only)"
        : " on this page";
    }
    this.count.textContent = counted;
    this.count.classList.toggle("loading", this.loading);
  };

  // --- the keyboard ------------------------------------------------------------------

  Rows.prototype.visible = function () {
    return Array.prototype.slice.call(this.table.querySelectorAll("tbody > tr:not(.month-head)"))
      .filter(function (row) { return !row.classList.contains("filtered-out"); });
  };

  Rows.prototype.keyboard = function () {
    var self = this;
    this.table.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      var row = event.target.closest ? event.target.closest("tbody > tr") : null;
      if (!row) return;
      var rows = self.visible();
      var at = rows.indexOf(row);
      var next = null;
      if (event.key === "ArrowDown") next = rows[at + 1];
      else if (event.key === "ArrowUp") next = rows[at - 1];
      else if (event.key === "Home") next = rows[0];
      else if (event.key === "End") next = rows[rows.length - 1];
      else return;
      event.preventDefault();
      var link = next ? next.querySelector("a[href]") : null;
      if (link) link.focus();
    });
  };

  document.addEventListener("DOMContentLoaded", function () {
    var tables = document.querySelectorAll("table[data-bough-rows]");
    for (var i = 0; i < tables.length; i++) new Rows(tables[i]);
  });
})();
