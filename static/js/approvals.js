// The approvals page: "Select all", the count of selected actions, bulk
// buttons that wait for a selection, and Enter that decides nothing. htmx
// redraws the list, so everything is looked up again on each change instead
// of being bound once.
(function () {
  "use strict";

  function boxes() {
    return Array.from(document.querySelectorAll('input.select[form="bulk-decision"]'));
  }

  function refresh() {
    var all = boxes();
    var chosen = all.filter(function (box) { return box.checked; }).length;
    var selectAll = document.querySelector("[data-select-all]");
    if (selectAll) {
      selectAll.checked = all.length > 0 && chosen === all.length;
      selectAll.indeterminate = chosen > 0 && chosen < all.length;
    }
    var count = document.getElementById("selected-count");
    if (count) {
      count.textContent = chosen ? chosen + " selected" : "";
    }
    document.querySelectorAll("[data-needs-selection]").forEach(function (button) {
      button.disabled = chosen === 0;
    });
  }

  document.addEventListener("change", function (event) {
    if (event.target.matches("[data-select-all]")) {
      boxes().forEach(function (box) { box.checked = event.target.checked; });
    }
    refresh();
  });
  // Enter on a checkbox would submit its form through the first enabled button (the server would
  // refuse it, as it names no decision); here it does nothing at all.
  document.addEventListener("keydown", function (event) {
    var field = event.target;
    if (event.key === "Enter" && field.matches("input") && field.form && field.form.querySelector(".enter-guard")) {
      event.preventDefault();
    }
  });

  document.addEventListener("htmx:afterSettle", refresh);
  document.addEventListener("DOMContentLoaded", refresh);
})();
