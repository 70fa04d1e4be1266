// The dashboard's one script (issue #51 item 4): a Copy button beside each
// secret shown only once. Every page works without it; the buttons stay
// hidden until this runs, and say whether the copy worked in a live region.
(function () {
  "use strict";

  function copied(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    // Plain HTTP on a host other than localhost has no clipboard API: copy
    // the selection, as the browser's own Copy would.
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.className = "offscreen";
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      document.body.removeChild(area);
      if (ok) { resolve(); } else { reject(new Error("copy refused")); }
    });
  }

  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var name = button.getAttribute("data-copy");
    var source = document.getElementById(name);
    var status = document.getElementById(name + "-copied");
    if (!source || !status) { return; }
    button.hidden = false;
    button.addEventListener("click", function () {
      status.textContent = "";
      copied(source.textContent.trim()).then(function () {
        status.textContent = "Copied to the clipboard.";
      }, function () {
        status.textContent = "Could not copy: select the text and copy it yourself.";
      });
    });
  });
})();
