// The approvals page: "Select all", the count of selected actions, and bulk
// buttons that wait for a selection. htmx redraws the list, so everything is
// looked up again on each change instead of being bound once.
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
  document.addEventListener("htmx:afterSettle", refresh);
  document.addEventListener("DOMContentLoaded", refresh);
})();
