// Signing out leaves the page for good (docs/live-updates.md, "Signing out"). The Log out form starts a navigation
// that may pass through the IdP's end-session endpoint; a live update still in flight would be answered "log in
// again" (an HX-Redirect, historyhub/dashboard/access.py) and its navigation would cancel the sign-out's own,
// leaving the person signed in at the IdP. From the moment the form is sent, the page asks and applies nothing.
(function () {
  "use strict";

  var signingOut = false;

  document.addEventListener("submit", function (event) {
    if (event.target.matches("form[data-signs-out]")) {
      signingOut = true;
    }
  });

  ["htmx:beforeRequest", "htmx:beforeOnLoad"].forEach(function (name) {
    document.addEventListener(name, function (event) {
      if (signingOut) {
        event.preventDefault();
      }
    });
  });
})();
