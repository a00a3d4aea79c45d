/* bough serve --watch: reload the open page when a rebuild changed its file.
   Only `bough serve` sends this file (it adds the <script> to the pages it
   serves; bough build never writes it): its tag carries the page's stamp (its
   file's mtime and size when served), and this asks the server for the stamp
   again every second; a new one means the page was rebuilt. */
(function () {
  "use strict";

  var script = document.currentScript;
  var served = script ? script.getAttribute("data-stamp") : null;
  var url = script ? script.getAttribute("data-stamp-url") : null;
  if (!served || !url) return;
  var EVERY_MS = 1000;
  var RETRY_MS = 3000; // the server is gone (stopped, restarting): ask less often

  function ask() {
    fetch(url, { cache: "no-store" }).then(function (response) {
      return response.ok ? response.text() : "";
    }).then(function (stamp) {
      if (stamp && stamp !== served) {
        location.reload();
        return;
      }
      setTimeout(ask, EVERY_MS);
    }, function () {
      setTimeout(ask, RETRY_MS);
    });
  }

  setTimeout(ask, EVERY_MS);
})();
