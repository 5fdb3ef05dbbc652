// The bracket page's overlay selector: show one layer (the realised bracket, or a forecast's) in every slot.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  var select = document.getElementById("bracket-overlay");
  if (!select) { return; }
  select.form.hidden = false;
  function show() {
    document.querySelectorAll(".slot .layer").forEach(function (el) {
      el.hidden = el.dataset.layer !== select.value;
    });
  }
  select.addEventListener("change", show);
  show();
});
