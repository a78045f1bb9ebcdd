// Sort a table of class "sortable" by the column whose header button is clicked: numbers
// numerically (a cell's data-value, else its text), text alphabetically, empty cells last;
// a second click reverses. The header's aria-sort says the current order.
(function () {
  "use strict";
  var NUMBER = /^[-+\u2212]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?/i;

  function key(cell) {
    var text = (cell.getAttribute("data-value") || cell.textContent || "").trim();
    var cleaned = text.replace(/\*/g, "").replace("\u2212", "-");
    var match = cleaned.match(NUMBER);
    return match ? { number: parseFloat(match[0]), text: text } : { number: null, text: text };
  }

  function compare(a, b) {
    if (a.text === "" || b.text === "") { return (a.text === "") - (b.text === ""); }
    if (a.number !== null && b.number !== null) { return a.number - b.number; }
    if (a.number !== null) { return -1; }
    if (b.number !== null) { return 1; }
    return a.text.localeCompare(b.text);
  }

  function sortBy(table, header, column) {
    var descending = header.getAttribute("aria-sort") === "ascending";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var keyed = rows.map(function (row, index) {
      return { row: row, key: key(row.cells[column] || row.cells[0]), index: index };
    });
    keyed.sort(function (a, b) {
      var order = compare(a.key, b.key);
      if (descending && a.key.text !== "" && b.key.text !== "") { order = -order; }
      return order || a.index - b.index;
    });
    keyed.forEach(function (item) { body.appendChild(item.row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) {
      cell.setAttribute("aria-sort", "none");
    });
    header.setAttribute("aria-sort", descending ? "descending" : "ascending");
  }

  document.querySelectorAll("table.sortable").forEach(function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, column) {
      var button = header.querySelector("button");
      if (button) { button.addEventListener("click", function () { sortBy(table, header, column); }); }
    });
  });
})();
