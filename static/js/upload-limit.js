// A file larger than the server takes is refused before it is sent (templates/dashboard/data.html): the server
// answers a body over HISTORYHUB_MAX_BODY_BYTES before any page could say why, so the page says it here first.
// Without script the server's own check still refuses it.
(function () {
  "use strict";

  function megabytes(size) {
    return (size / (1024 * 1024)).toFixed(1) + " MB";
  }

  function check(input) {
    var limit = Number(input.getAttribute("data-max-bytes"));
    var file = input.files && input.files[0];
    if (file && file.size > limit) {
      input.setCustomValidity(
        "The file is " + megabytes(file.size) + "; the page takes at most " + megabytes(limit) +
        ". Import larger files with manage.py import."
      );
    } else {
      input.setCustomValidity("");
    }
    input.reportValidity();
  }

  document.addEventListener("change", function (event) {
    if (event.target.matches && event.target.matches("input[type=file][data-max-bytes]")) {
      check(event.target);
    }
  });
})();
