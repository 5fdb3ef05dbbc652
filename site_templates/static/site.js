// Prematch site: local kickoff times, table filters and sorting, charts. Vanilla JS, no network.
"use strict";
document.documentElement.classList.add("js");

function localTimes() {
  var fmt = new Intl.DateTimeFormat(undefined, {
    year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short"
  });
  document.querySelectorAll("time.local").forEach(function (el) {
    var when = new Date(el.getAttribute("datetime"));
    if (!isNaN(when)) { el.textContent = fmt.format(when); }
  });
}

function matches(el, controls, exact) {
  var visible = true;
  controls.forEach(function (c) {
    var want = c.value.trim().toLowerCase();
    if (!want) { return; }
    var have = (el.dataset[c.name] || "").toLowerCase();
    if (!exact && !have) { return; }  // a finding not specific to this filter stays
    if (c.tagName === "INPUT" ? have.indexOf(want) < 0 : have !== want) { visible = false; }
  });
  return visible;
}

function rerank(table) {
  // Ranks are places by Brier among the rankable rows shown: a filter never leaves gaps (1, 5, 9).
  var rows = Array.prototype.filter.call(table.tBodies[0].rows, function (r) { return !r.hidden; });
  var ranked = rows.filter(function (r) { return r.dataset.rankable === "1"; });
  var brier = function (r) { var c = r.querySelector("[data-key=brier]"); return c ? parseFloat(c.dataset.value) : NaN; };
  ranked.sort(function (a, b) { return brier(a) - brier(b); });
  ranked.forEach(function (r, i) { var c = r.querySelector("td.rank"); c.textContent = String(i + 1); c.dataset.value = String(i + 1); });
}

function applyFilters(form) {
  var table = document.getElementById(form.dataset.table);
  if (!table) { return; }
  var controls = form.querySelectorAll("select[name], input[name]");
  var shown = 0, total = 0;
  table.querySelectorAll("tbody tr").forEach(function (row) {
    var visible = matches(row, controls, true);
    row.hidden = !visible;
    total += 1;
    if (visible) { shown += 1; }
  });
  if (table.classList.contains("board")) { rerank(table); }
  var count = form.querySelector(".count");
  if (count) { count.textContent = shown + " of " + total + " rows"; }
  var also = form.dataset.also ? document.getElementById(form.dataset.also) : null;
  if (also) {
    var any = false;
    also.querySelectorAll("li").forEach(function (li) { li.hidden = !matches(li, controls, false); any = any || !li.hidden; });
    var none = also.parentNode.querySelector(".none-shown");
    if (none) { none.hidden = any; }
  }
}

function setupColumns() {
  document.querySelectorAll("button.more-cols").forEach(function (button) {
    var table = document.getElementById(button.dataset.table);
    if (!table) { button.hidden = true; return; }
    button.addEventListener("click", function () {
      var all = table.classList.toggle("show-all");
      button.setAttribute("aria-expanded", all ? "true" : "false");
      button.textContent = all ? "Show fewer measures" : "Show all measures";
    });
  });
}

function setupFilters() {
  document.querySelectorAll("form.filters").forEach(function (form) {
    form.hidden = false;
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    form.querySelectorAll("select[name], input[name]").forEach(function (c) {
      c.addEventListener(c.tagName === "INPUT" ? "input" : "change", function () { applyFilters(form); });
    });
    form.querySelectorAll("select[data-navigate]").forEach(function (c) {
      c.addEventListener("change", function () { window.location.href = c.value; });
    });
    applyFilters(form);
  });
  document.querySelectorAll("nav.facet").forEach(function (nav) { nav.hidden = true; });
}

function sortValue(cell, numeric) {
  var raw = cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent;
  if (!numeric) { return raw.trim().toLowerCase(); }
  var n = parseFloat(raw);
  return isNaN(n) ? null : n;
}

function setupSorting() {
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("thead th[data-sort]").forEach(function (th, _) {
      th.tabIndex = 0;
      th.classList.add("sort");
      var activate = function () {
        var index = Array.prototype.indexOf.call(th.parentNode.children, th);
        var numeric = th.dataset.sort === "num";
        var asc = th.getAttribute("aria-sort") !== "ascending";
        table.querySelectorAll("thead th").forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = sortValue(a.cells[index], numeric), y = sortValue(b.cells[index], numeric);
          if (x === null && y === null) { return 0; }
          if (x === null) { return 1; }
          if (y === null) { return -1; }
          var d = x < y ? -1 : x > y ? 1 : 0;
          return asc ? d : -d;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      };
      th.addEventListener("click", function (e) { if (!e.target.closest("a")) { activate(); } });
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") { activate(); } });
    });
  });
}

function drawCharts() {
  var charts = document.querySelectorAll("div.chart[data-figure]");
  if (!charts.length) { return; }
  if (typeof Plotly === "undefined") {
    charts.forEach(function (d) { d.textContent = "The chart library did not load."; });
    return;
  }
  charts.forEach(function (div) {
    var source = document.getElementById(div.dataset.figure);
    var figure = JSON.parse(source.textContent);
    Plotly.newPlot(div, figure.data, figure.layout, {responsive: true, displaylogo: false});
  });
}

// The footer frames the per-build facts (build.html, one file for every page): the frame takes
// the height of what it shows, at load and when the width changes. Where the frame's document
// cannot be read (a site opened from file://), the stylesheet's height stays.
function fitBuildFacts() {
  document.querySelectorAll("iframe.build-facts").forEach(function (frame) {
    function fit() {
      var doc = null;
      try { doc = frame.contentDocument; } catch (e) { doc = null; }
      if (!doc || !doc.body || !doc.body.firstElementChild) { return; }
      frame.style.height = Math.ceil(doc.body.getBoundingClientRect().height) + 8 + "px";
    }
    frame.addEventListener("load", fit);
    window.addEventListener("resize", fit);
    fit();
  });
}

function scrollCues() {
  // A table wider than its frame scrolls sideways; the cue above it says so, and goes once the end is in view.
  document.querySelectorAll(".scroll, .tree-scroll").forEach(function (frame) {
    var cue = document.createElement("p");
    cue.className = "scroll-cue";
    cue.setAttribute("aria-hidden", "true");
    cue.textContent = "Scroll sideways for more →";
    frame.parentNode.insertBefore(cue, frame);
    function update() {
      var wide = frame.scrollWidth > frame.clientWidth + 1;
      frame.classList.toggle("overflows", wide);
      if (wide) { frame.tabIndex = 0; } else { frame.removeAttribute("tabindex"); }  // keyboard users scroll it too
      cue.hidden = !wide || frame.scrollLeft + frame.clientWidth >= frame.scrollWidth - 1;
    }
    frame.addEventListener("scroll", update, {passive: true});
    window.addEventListener("resize", update);
    update();
  });
}

document.addEventListener("DOMContentLoaded", function () {
  fitBuildFacts();
  localTimes();
  setupFilters();
  setupSorting();
  setupColumns();
  drawCharts();
  scrollCues();
});
