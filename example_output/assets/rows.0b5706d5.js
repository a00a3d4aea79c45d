/* bough: the rows of the index and project pages (table[data-bough-rows]).
   The tables are whole without this file; it adds:
   - sorting by a click on a column head (a button, so the keyboard has it too);
   - filters above the table: text, a date range, model and source;
   - arrow keys (and Home / End) to move from row to row.
   Sorting by the first date column, newest first, is the page's own order,
   months and all; any other order lists the rows without their months.
   Nothing here fetches anything. */
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

  function localDay(iso) {
    var moment = new Date(iso);
    if (isNaN(moment.getTime())) return "";
    function two(n) { return (n < 10 ? "0" : "") + n; }
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
    var self = this;
    this.heads.forEach(function (th, i) {
      if (i === index) th.setAttribute("aria-sort", direction);
      else th.removeAttribute("aria-sort");
    });
    if (index === this.dateColumn && direction === "descending") {
      // The page's own order: each row back in its month.
      this.rows.forEach(function (row, i) { self.homes[i].appendChild(row); });
      if (this.sorted) this.sorted.remove();
      this.sorted = null;
      this.table.classList.remove("sorted");
      this.filter();
      return;
    }
    var key = KEYS[this.heads[index].getAttribute("data-sort")] || KEYS.text;
    var sign = direction === "ascending" ? 1 : -1;
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
    this.filter();
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
    var models = this.values(this.modelsOf.bind(this));
    var sources = this.values(this.sourcesOf.bind(this));
    this.model = models.length > 1 ? choice("model", "Model", "All models", models) : null;
    this.source = sources.length > 1 ? choice("source", "Source", "All sources", sources) : null;
    if (this.model) { bar.appendChild(this.model); this.model = this.model.lastChild; }
    if (this.source) { bar.appendChild(this.source); this.source = this.source.lastChild; }
    this.count = make("span", { className: "row-count" });
    this.count.setAttribute("role", "status");
    bar.appendChild(this.count);
    this.table.parentNode.insertBefore(bar, this.table);
    [this.text, this.from, this.to, this.model, this.source].forEach(function (box) {
      if (box) box.addEventListener("input", function () { self.filter(); });
    });
    this.filter();
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
    this.count.textContent = shown === total ? total + " " + this.kind : shown + " of " + total + " " + this.kind;
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
