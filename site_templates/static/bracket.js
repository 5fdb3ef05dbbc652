// The bracket page's overlay selector: show the realised bracket, or lay a forecast's bracket over it.
// Each forecast's overlay is a small JSON file beside the page (its option's data-src, written by
// builder/site/bracket.py as a BracketOverlay), fetched the first time it is chosen: the page weighs
// the same however many forecasts there are. The marks are those the legend above the tree explains.
"use strict";
// A match's head (label and slot rules) is cut to the box's width; a tap or click on it (but on its
// link), or Enter on its rules button, shows it whole. The button carries the state for assistive tech;
// the link and the button sit side by side, never one inside the other.
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll(".slot .head").forEach(function (head) {
    var button = head.querySelector("button.rules");
    head.addEventListener("click", function (e) {
      if (e.target.closest("a")) { return; }
      var open = head.parentNode.classList.toggle("open");
      if (button) { button.setAttribute("aria-expanded", open ? "true" : "false"); }
    });
  });
});
document.addEventListener("DOMContentLoaded", function () {
  var select = document.getElementById("bracket-overlay");
  if (!select) { return; }
  var status = document.getElementById("bracket-overlay-status");
  var loaded = {};
  select.form.hidden = false;

  function mark(parent, text, title, cls) {
    var span = document.createElement("span");
    span.title = title;
    if (cls) { span.className = cls; }
    span.textContent = text;
    parent.appendChild(document.createTextNode(" "));
    parent.appendChild(span);
  }
  function team(t) {
    var el = document.createElement("div");
    el.className = "team" + (t.advances ? " won" : "") + (t.hit === true ? " hit" : t.hit === false ? " miss" : "");
    el.textContent = t.name;
    if (t.hit === true) { mark(el, "✓", "plays this match"); }
    else if (t.hit === false) { mark(el, "✗", "does not play this match"); }
    if (t.advance_hit === true) { mark(el, "→✓", "advanced, as forecast", "adv"); }
    else if (t.advance_hit === false) { mark(el, "→✗", "forecast to advance, went out", "adv"); }
    return el;
  }
  function layer(key, slot) {
    var el = document.createElement("div");
    el.className = "layer pred" + (slot.pairing_hit === true ? " pair-hit" : slot.pairing_hit === false ? " pair-miss" : "");
    el.dataset.layer = key;
    el.appendChild(team(slot.home));
    el.appendChild(team(slot.away));
    return el;
  }
  // Show one layer in every slot: "real", or the forecast ``key`` whose overlay is ``slots``.
  function draw(key, slots) {
    var byMatch = {};
    slots.forEach(function (s) { byMatch[s.match] = s; });
    document.querySelectorAll(".slot .layer.pred").forEach(function (el) { el.remove(); });
    document.querySelectorAll(".slot").forEach(function (slot) {
      slot.querySelector('.layer[data-layer="real"]').hidden = key !== "real";
      var predicted = byMatch[slot.dataset.match];
      if (key !== "real" && predicted) { slot.querySelector(".box").appendChild(layer(key, predicted)); }
    });
  }
  function show() {
    var key = select.value;
    status.textContent = "";
    if (key === "real") { draw(key, []); return; }
    if (loaded[key]) { draw(key, loaded[key]); return; }
    status.textContent = "Loading…";
    fetch(select.selectedOptions[0].dataset.src)
      .then(function (response) {
        if (!response.ok) { throw new Error(response.status + " " + response.statusText); }
        return response.json();
      })
      .then(function (overlay) {
        loaded[key] = overlay.slots;
        if (select.value === key) { status.textContent = ""; draw(key, overlay.slots); }
      })
      .catch(function (error) {
        if (select.value === key) {
          status.textContent = "This forecast's bracket could not be loaded (" + error.message + ").";
          draw("real", []);
        }
      });
  }
  select.addEventListener("change", show);
  show();
});
