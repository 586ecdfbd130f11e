// The number of actions waiting for a person in the tab's title, "(3) Approvals · HistoryHub", so a person
// sees it from another tab; it follows the navigation's count (#inbox-count) as htmx refreshes it.
(function () {
  "use strict";

  var base = document.title.replace(/^\(\d+\) /, "");

  function follow() {
    var count = document.getElementById("inbox-count");
    var waiting = count ? parseInt(count.textContent, 10) : 0;
    document.title = waiting > 0 ? "(" + waiting + ") " + base : base;
  }

  document.addEventListener("DOMContentLoaded", follow);
  document.addEventListener("htmx:afterSettle", follow);
})();
