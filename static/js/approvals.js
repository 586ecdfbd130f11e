// The approvals page: "Select all" on this page or every waiting action, the
// count of what is selected, bulk buttons that wait for a selection, Cancel on
// a batch confirmation, Enter that decides nothing, the keyboard shortcuts and
// the expiry countdowns (docs/dashboard.md, "The approvals inbox"). htmx redraws
// the list, so everything is looked up again on each change instead of being
// bound once.
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

  // Keyboard shortcuts: j/k focus the next/previous card, a presses its Approve button (the same form, the
  // same POST with its CSRF token, as a click), r focuses its comment box to write why before pressing
  // Reject, ? shows the list of shortcuts. None of them while a person types in a field.
  function cards() {
    return Array.from(document.querySelectorAll("#approval-list li.approval"));
  }

  function focusedCard() {
    return document.activeElement ? document.activeElement.closest("li.approval") : null;
  }

  function typing(target) {
    return target.isContentEditable ||
      target.matches("textarea, select, input:not([type=checkbox]):not([type=radio]):not([type=button]):not([type=submit])");
  }

  function move(step) {
    var all = cards();
    if (!all.length) {
      return;
    }
    var at = all.indexOf(focusedCard());
    var next = at === -1 ? (step > 0 ? 0 : all.length - 1) : Math.min(Math.max(at + step, 0), all.length - 1);
    all[next].focus();
  }

  function showShortcuts() {
    var dialog = document.getElementById("shortcuts");
    if (dialog && !dialog.open) {
      dialog.showModal();
    }
  }

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) {
      return;
    }
    if (document.querySelector("dialog[open]")) {
      return;
    }
    var card = focusedCard();
    if (event.key === "j" || event.key === "k") {
      move(event.key === "j" ? 1 : -1);
    } else if (event.key === "a" && card) {
      var approve = card.querySelector("form.approval-decision button[name=decision][value=approve]");
      // While a decision is on its way, the card in focus is about to change: a second press waits for it.
      if (!approve || document.querySelector("#approval-list form.htmx-request")) {
        return;
      }
      approve.click();
    } else if (event.key === "r" && card) {
      var comment = card.querySelector("form.approval-decision textarea[name=comment]");
      if (!comment || !card.querySelector("form.approval-decision button[name=decision][value=reject]")) {
        return;
      }
      comment.focus();
    } else if (event.key === "?") {
      showShortcuts();
    } else {
      return;
    }
    event.preventDefault();
  });

  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-shortcuts]")) {
      showShortcuts();
    }
  });

  // A decision takes its card away: the focus goes to the card that took its place, so j/k/a go on from there.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = event.target;
    if (form.matches("form.approval-decision")) {
      form.dataset.place = cards().indexOf(form.closest("li.approval"));
    }
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    var form = event.detail.requestConfig ? event.detail.requestConfig.elt : null;
    var all = cards();
    if (form && form.dataset.place !== undefined && all.length && !focusedCard()) {
      all[Math.min(Number(form.dataset.place), all.length - 1)].focus();
    }
  });

  // Expiry countdowns: the server wrote "(in 9 min)" beside the absolute time; this keeps it true.
  function countdown(milliseconds) {
    if (milliseconds <= 0) {
      return "expired";
    }
    var minutes = Math.ceil(milliseconds / 60000);
    if (minutes < 60) {
      return "in " + minutes + " min";
    }
    var hours = Math.floor(minutes / 60);
    if (hours < 24) {
      return "in " + hours + " h" + (minutes % 60 ? " " + (minutes % 60) + " min" : "");
    }
    return "in " + Math.floor(hours / 24) + " d" + (hours % 24 ? " " + (hours % 24) + " h" : "");
  }

  function tick() {
    document.querySelectorAll(".expiry").forEach(function (expiry) {
      var time = expiry.querySelector("time[datetime]");
      var shown = expiry.querySelector(".countdown");
      if (time && shown) {
        shown.textContent = "(" + countdown(new Date(time.getAttribute("datetime")) - Date.now()) + ")";
      }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-shortcuts]").forEach(function (button) { button.hidden = false; });
    tick();
    setInterval(tick, 15000);
  });
  document.addEventListener("htmx:afterSettle", tick);
  document.addEventListener("htmx:afterSettle", refresh);
  document.addEventListener("DOMContentLoaded", refresh);
})();
