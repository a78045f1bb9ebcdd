// "copy" buttons put the command beside them on the clipboard; where the page may not use the
// clipboard (a file:// page in some browsers), the command is selected for Ctrl+C instead.
(function () {
  "use strict";
  function select(element) {
    var range = document.createRange();
    range.selectNodeContents(element);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
  document.querySelectorAll("button.copy").forEach(function (button) {
    button.addEventListener("click", function () {
      var command = button.parentElement.querySelector("code.command");
      select(command);
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(command.textContent).then(function () {
          button.textContent = "copied";
        }, function () { button.textContent = "selected"; });
      } else {
        button.textContent = "selected";
      }
    });
  });
})();
