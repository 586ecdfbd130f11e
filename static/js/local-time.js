// Times in the viewer's own zone (docs/dashboard.md, "Times"). The server writes every time as
// <time datetime="…Z" data-local title="…">2026-12-01 18:24 UTC</time>, readable without script; this shows it
// as "Dec 1, 18:24" (with the year when it is not this year) and puts the full time, the zone's name and the UTC
// time in the title. The zone is the one the person chose on their profile (data-zone, and the server's text
// already reads in it), else the browser's own; the title says which. htmx swaps in new times: they are
// localised as they arrive. Where recency matters (data-relative: the inbox, the sessions list) it reads
// "5 min ago" within a week, the full time on hover.
(function () {
  "use strict";

  var browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  var short = { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23" };
  var full = {
    year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit",
    hourCycle: "h23", timeZoneName: "short",
  };

  function inZone(options, zone) {
    return zone ? Object.assign({ timeZone: zone }, options) : options;
  }

  function yearOf(moment, zone) {
    return new Intl.DateTimeFormat("en", inZone({ year: "numeric" }, zone)).format(moment);
  }

  // "2026-12-01 18:24:00 UTC"
  function utcText(moment) {
    return moment.toISOString().slice(0, 19).replace("T", " ") + " UTC";
  }

  function localise(root) {
    root.querySelectorAll("time[data-local]:not([data-localised])").forEach(function (element) {
      var moment = new Date(element.getAttribute("datetime"));
      if (isNaN(moment.getTime())) {
        return;
      }
      var zone = element.getAttribute("data-zone") || "";
      var thisYear = yearOf(moment, zone) === yearOf(new Date(), zone);
      var shown = thisYear ? short : Object.assign({ year: "numeric" }, short);
      // The prefix ("asked") is whatever precedes the time the server wrote ("2026-12-01 18:24 UTC", or in the
      // chosen zone "2026-12-01 19:24 CET").
      var prefix = element.textContent.replace(/\d{4}-\d\d-\d\d \d\d:\d\d \S+$/, "");
      var whose = zone ? zone + ", the time zone on your profile" : browserZone + ", your browser's time zone";
      element.setAttribute("data-prefix", prefix);
      element.setAttribute("data-absolute", moment.toLocaleString(undefined, inZone(shown, zone)));
      element.title = moment.toLocaleString(undefined, inZone(full, zone)) + " · " + whose + " (" + utcText(moment) + ")";
      element.setAttribute("data-localised", "");
      show(element, Date.now());
    });
  }

  // "5 min ago" (or "in 5 min") within a week for a time marked data-relative, else the local time.
  function ago(moment, now) {
    var seconds = Math.round((now - moment) / 1000);
    var past = seconds >= 0;
    var size = Math.abs(seconds);
    var phrase;
    if (size < 60) {
      return past ? "just now" : "in under a minute";
    } else if (size < 3600) {
      phrase = Math.floor(size / 60) + " min";
    } else if (size < 86400) {
      phrase = Math.floor(size / 3600) + " h";
    } else if (size < 7 * 86400) {
      var days = Math.floor(size / 86400);
      phrase = days + (days === 1 ? " day" : " days");
    } else {
      return null;
    }
    return past ? phrase + " ago" : "in " + phrase;
  }

  function show(element, now) {
    var relative = element.hasAttribute("data-relative")
      ? ago(new Date(element.getAttribute("datetime")).getTime(), now)
      : null;
    element.textContent = element.getAttribute("data-prefix") + (relative || element.getAttribute("data-absolute"));
  }

  document.addEventListener("DOMContentLoaded", function () { localise(document); });
  // Relative times age as the page stays open.
  setInterval(function () {
    var now = Date.now();
    document.querySelectorAll("time[data-relative][data-localised]").forEach(function (element) { show(element, now); });
  }, 30000);
  document.addEventListener("htmx:load", function (event) { localise(event.target); });
})();
