// judgegraph report: sort and filter the items table. Reads data-* attributes only and never
// writes HTML, so user text in the page stays text.
(function () {
  "use strict";
  var table = document.getElementById("items-table");
  if (!table) { return; }
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var failedOnly = document.getElementById("failed-only");
  var below = document.getElementById("below");
  var belowMetric = document.getElementById("below-metric");
  var rubric = document.getElementById("rubric");
  var shown = document.getElementById("shown");

  function attr(row, key) { return row.getAttribute("data-" + key); }

  function metricIndex(row, name) {
    for (var i = 0; row.hasAttribute("data-metric-" + i); i++) {
      if (attr(row, "metric-" + i) === name) { return i; }
    }
    return -1;
  }

  function visible(row) {
    if (failedOnly.checked && attr(row, "status") !== "failed") { return false; }
    if (rubric.value && attr(row, "rubric").split(", ").indexOf(rubric.value) < 0) { return false; }
    if (below.value !== "") {
      var limit = parseFloat(below.value);
      var index = metricIndex(row, belowMetric.value);
      var raw = index < 0 ? "" : attr(row, "m-" + index);
      if (raw === "" || !(parseFloat(raw) < limit)) { return false; }
    }
    return true;
  }

  function apply() {
    var count = 0;
    rows.forEach(function (row) {
      var show = visible(row);
      row.hidden = !show;
      var detail = document.getElementById("item-" + attr(row, "item"));
      if (detail) { detail.hidden = !show; }
      if (show) { count++; }
    });
    shown.textContent = count + " shown";
  }

  function sortBy(th) {
    var key = th.getAttribute("data-sort");
    var descending = th.classList.contains("sorted-asc");
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) {
      cell.classList.remove("sorted-asc", "sorted-desc");
    });
    th.classList.add(descending ? "sorted-desc" : "sorted-asc");
    rows.sort(function (a, b) {
      var x = attr(a, key), y = attr(b, key);
      if (x === "" && y === "") { return 0; }
      if (x === "") { return 1; }
      if (y === "") { return -1; }
      var nx = Number(x), ny = Number(y);
      var order = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y, undefined, {numeric: true});
      return descending ? -order : order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }

  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
    if (th.hasAttribute("data-sort")) { th.addEventListener("click", function () { sortBy(th); }); }
  });
  [failedOnly, below, belowMetric, rubric].forEach(function (control) {
    control.addEventListener("input", apply);
    control.addEventListener("change", apply);
  });
  document.getElementById("filters").addEventListener("submit", function (event) { event.preventDefault(); });

  function openFromHash() {
    var target = location.hash && document.getElementById(location.hash.slice(1));
    if (target && target.tagName === "DETAILS") { target.open = true; }
  }
  window.addEventListener("hashchange", openFromHash);
  openFromHash();
  document.body.setAttribute("data-report-ready", "1");
}());
