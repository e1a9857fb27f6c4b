(function () {
  function key(cell) {
    var raw = cell.getAttribute("data-value");
    var text = raw === null ? cell.textContent.trim() : raw;
    var number = parseFloat(text);
    return isNaN(number) ? { n: false, v: text.toLowerCase() } : { n: true, v: number };
  }
  function compare(a, b) {
    if (a.n && b.n) { return a.v - b.v; }
    if (a.n !== b.n) { return a.n ? -1 : 1; }
    return a.v < b.v ? -1 : (a.v > b.v ? 1 : 0);
  }
  var tables = document.querySelectorAll("table.sortable");
  Array.prototype.forEach.call(tables, function (table) {
    var headers = table.querySelectorAll("thead th");
    Array.prototype.forEach.call(headers, function (th, column) {
      th.setAttribute("tabindex", "0");
      function sort() {
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(headers, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        rows.sort(function (r1, r2) {
          var order = compare(key(r1.cells[column]), key(r2.cells[column]));
          return ascending ? order : -order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); sort(); }
      });
    });
  });
})();
