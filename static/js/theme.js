// The light/dark toggle (docs/dashboard.md, "Theme"): auto (the system's), light, dark, in turn. The choice is
// a cookie, so the server renders <html data-theme> with the next page and no page flashes the other theme.
(function () {
  "use strict";

  var ORDER = ["auto", "light", "dark"];
  var YEAR = 365 * 24 * 3600;

  function current() {
    return document.documentElement.getAttribute("data-theme") || "auto";
  }

  function apply(theme) {
    if (theme === "auto") {
      document.documentElement.removeAttribute("data-theme");
      document.cookie = "theme=; path=/; max-age=0; SameSite=Lax";
    } else {
      document.documentElement.setAttribute("data-theme", theme);
      document.cookie = "theme=" + theme + "; path=/; max-age=" + YEAR + "; SameSite=Lax";
    }
    document.querySelectorAll("[data-theme-toggle]").forEach(function (button) {
      button.textContent = "Theme: " + theme;
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-theme-toggle]").forEach(function (button) {
      button.hidden = false;
      button.addEventListener("click", function () {
        apply(ORDER[(ORDER.indexOf(current()) + 1) % ORDER.length]);
      });
    });
  });
})();
