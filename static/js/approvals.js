// The approvals page: "Select all" on this page or every waiting action, the
// count of what is selected, bulk buttons that wait for a selection, Cancel on
// a batch confirmation, and Enter that decides nothing. htmx redraws the list,
// so everything is looked up again on each change instead of being bound once.
(function () {
  "use strict";

  function boxes() {
    return Array.from(document.querySelectorAll('input.select[form="bulk-decision"]'));
  }

  function refresh() {
    var all = boxes();
    var chosen = all.filter(function (box) { return box.checked; }).length;
    var everything = document.querySelector("[data-all-waiting]");
    var allWaiting = everything !== null && everything.checked;
    var selectAll = document.querySelector("[data-select-all]");
    if (selectAll) {
      selectAll.checked = all.length > 0 && chosen === all.length;
      selectAll.indeterminate = chosen > 0 && chosen < all.length;
    }
    var count = document.getElementById("selected-count");
    if (count) {
      if (allWaiting) {
        count.textContent = "All " + everything.dataset.allWaiting + " waiting actions selected";
      } else {
        count.textContent = chosen ? chosen + " selected" : "";
      }
    }
    document.querySelectorAll("[data-needs-selection]").forEach(function (button) {
      button.disabled = chosen === 0 && !allWaiting;
    });
  }

  document.addEventListener("change", function (event) {
    var everything = document.querySelector("[data-all-waiting]");
    if (event.target.matches("[data-select-all]")) {
      boxes().forEach(function (box) { box.checked = event.target.checked; });
      if (everything && !event.target.checked) { everything.checked = false; }
    } else if (event.target.matches("[data-all-waiting]")) {
      boxes().forEach(function (box) { box.checked = event.target.checked; });
    } else if (event.target.matches("input.select") && !event.target.checked && everything) {
      // Leaving one out is no longer "every waiting action".
      everything.checked = false;
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

  // Cancel on a batch confirmation: without JavaScript a link back to the list; here the list is still there.
  document.addEventListener("click", function (event) {
    var cancel = event.target.closest("[data-cancel-confirmation]");
    var region = document.getElementById("approval-confirmation");
    if (cancel && region && region.contains(cancel)) {
      event.preventDefault();
      region.replaceChildren();
    }
  });

  document.addEventListener("htmx:afterSettle", refresh);
  document.addEventListener("DOMContentLoaded", refresh);
})();
