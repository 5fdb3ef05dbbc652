// Prematch site: local kickoff times, table filters and sorting, charts. Vanilla JS, no network.
"use strict";

function localTimes() {
  var fmt = new Intl.DateTimeFormat(undefined, {
    year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short"
  });
  document.querySelectorAll("time.local").forEach(function (el) {
    var when = new Date(el.getAttribute("datetime"));
    if (!isNaN(when)) { el.textContent = fmt.format(when); }
  });
}

function applyFilters(form) {
  var table = document.getElementById(form.dataset.table);
  if (!table) { return; }
  var controls = form.querySelectorAll("select[name], input[name]");
  var shown = 0, total = 0;
  table.querySelectorAll("tbody tr").forEach(function (row) {
    var visible = true;
    controls.forEach(function (c) {
      var want = c.value.trim().toLowerCase();
      if (!want) { return; }
      var have = (row.dataset[c.name] || "").toLowerCase();
      if (c.tagName === "INPUT" ? have.indexOf(want) < 0 : have !== want) { visible = false; }
    });
    row.hidden = !visible;
    total += 1;
    if (visible) { shown += 1; }
  });
  var count = form.querySelector(".count");
  if (count) { count.textContent = shown + " of " + total + " rows"; }
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
      th.addEventListener("click", activate);
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

document.addEventListener("DOMContentLoaded", function () {
  localTimes();
  setupFilters();
  setupSorting();
  drawCharts();
});
