/* bough: small conveniences. Pages work without this file.
   - times shown in the reader's time zone (the UTC text stays in the title)
   - a click on a "#" self-link also copies the link
   - expand / collapse all on session pages
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

  function setAll(open) {
    var nodes = document.querySelectorAll(".timeline details");
    for (var i = 0; i < nodes.length; i++) nodes[i].open = open;
  }

  function toolbar() {
    var bar = document.querySelector("[data-bough-toolbar]");
    if (!bar) return;
    bar.hidden = false;
    var expand = bar.querySelector("[data-bough-expand]");
    var collapse = bar.querySelector("[data-bough-collapse]");
    if (expand) expand.addEventListener("click", function () { setAll(true); });
    if (collapse) collapse.addEventListener("click", function () { setAll(false); });
  }

  // A link to a reply inside a closed sub-agent would land on nothing visible.
  function revealTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id ? document.getElementById(id) : null;
    if (!target) return;
    for (var node = target.parentElement; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") node.open = true;
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
