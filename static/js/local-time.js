// Times in the viewer's own zone (docs/dashboard.md, "Times"). The server writes every time as
// <time datetime="…Z" data-local title="… UTC">2026-12-01 18:24 UTC</time>, readable without script;
// this shows it as "Dec 1, 18:24" in the browser's zone (with the year when it is not this year) and puts
// the full local time, its zone and the UTC time in the title. htmx swaps in new times: they are
// localised as they arrive.
(function () {
  "use strict";

  var thisYear = new Date().getFullYear();
  var short = { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23" };
  var withYear = Object.assign({ year: "numeric" }, short);
  var full = {
    year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit",
    hourCycle: "h23", timeZoneName: "short",
  };

  function localise(root) {
    root.querySelectorAll("time[data-local]:not([data-localised])").forEach(function (element) {
      var moment = new Date(element.getAttribute("datetime"));
      if (isNaN(moment.getTime())) {
        return;
      }
      var shown = moment.getFullYear() === thisYear ? short : withYear;
      // The prefix ("asked") is whatever precedes the UTC text the server wrote.
      var prefix = element.textContent.replace(/\d{4}-\d\d-\d\d \d\d:\d\d UTC$/, "");
      element.textContent = prefix + moment.toLocaleString(undefined, shown);
      element.title = moment.toLocaleString(undefined, full) + " (" + element.title + ")";
      element.setAttribute("data-localised", "");
    });
  }

  document.addEventListener("DOMContentLoaded", function () { localise(document); });
  document.addEventListener("htmx:load", function (event) { localise(event.target); });
})();
