// Copy buttons (docs/dashboard.md, "Copy"): <button type="button" data-copy="#element-id"> copies that
// element's text; the button says "Copied" for a moment. Without script the text is still there to select.
(function () {
  "use strict";

  document.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-copy]");
    if (!button) {
      return;
    }
    var source = document.querySelector(button.getAttribute("data-copy"));
    if (!source || !navigator.clipboard) {
      return;
    }
    navigator.clipboard.writeText(source.textContent.trim()).then(function () {
      var label = button.textContent;
      button.textContent = "Copied";
      button.setAttribute("aria-live", "polite");
      setTimeout(function () { button.textContent = label; }, 1500);
    });
  });
})();
