/* Sortable and filterable tables of the report, without a framework or the network.
 *
 * Every <table class="sortable"> sorts by a column when its header is clicked (again: the
 * other way). A cell's data-sort value is what it sorts by when present (numbers as numbers),
 * else its text; cells with no value (an empty data-sort, a dash) stay last either way.
 * A table with data-filters="<form id>" shows only the rows that match every control of that
 * form: a control named "q" matches the row's text, any other control named N matches the
 * row's data-N attribute exactly, or any of its values separated by "|" ("" matches every
 * row). Filtered rows get the hidden attribute, which the replay player reads to know the
 * list's visible games.
 *
 * The page's address can set the filters: team-x.html#layout=smallClassic&depth=2 (the
 * index's heat map links there). A "game" key is the player's and is left to it.
 */
(function () {
  "use strict";

  function sortValue(cell) {
    if (!cell) return "";
    var raw = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent;
    var text = raw.trim();
    var number = Number(text);
    return text !== "" && !isNaN(number) ? number : text.toLowerCase();
  }

  /** A cell with no value: an empty data-sort, or the dash the pages show for none. */
  function missing(key) {
    return key === "" || key === "\u2013";
  }

  function compare(a, b) {
    var aNumber = typeof a === "number", bNumber = typeof b === "number";
    if (aNumber && bNumber) return a - b;
    if (aNumber !== bNumber) return aNumber ? -1 : 1; /* numbers before dashes and words */
    return a < b ? -1 : a > b ? 1 : 0;
  }

  function bodyRows(table) {
    var body = table.tBodies[0];
    return body ? Array.prototype.slice.call(body.rows) : [];
  }

  function sortBy(table, header) {
    var headers = Array.prototype.slice.call(header.parentNode.cells);
    var column = headers.indexOf(header);
    var descending = header.getAttribute("aria-sort") === "ascending";
    headers.forEach(function (h) { h.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", descending ? "descending" : "ascending");
    var rows = bodyRows(table).map(function (row, index) {
      return { row: row, key: sortValue(row.cells[column]), index: index };
    });
    rows.sort(function (x, y) {
      /* Missing values last both ways: "highest first" shows the highest, not the dashes. */
      var gap = Number(missing(x.key)) - Number(missing(y.key));
      if (gap) return gap;
      var order = compare(x.key, y.key);
      if (descending) order = -order;
      return order || x.index - y.index;
    });
    var body = table.tBodies[0];
    rows.forEach(function (item) { body.appendChild(item.row); });
    table.dispatchEvent(new CustomEvent("tablechange", { bubbles: true }));
  }

  function applyFilters(table, form) {
    var controls = Array.prototype.slice.call(form.elements).filter(function (c) {
      return c.name;
    });
    var shown = 0, rows = bodyRows(table);
    rows.forEach(function (row) {
      var keep = controls.every(function (control) {
        var wanted = control.value.trim();
        if (wanted === "") return true;
        if (control.name === "q") {
          return row.textContent.toLowerCase().indexOf(wanted.toLowerCase()) >= 0;
        }
        var value = row.getAttribute("data-" + control.name) || "";
        return wanted.split("|").indexOf(value) >= 0;
      });
      row.hidden = !keep;
      if (keep) shown += 1;
    });
    var count = document.getElementById(form.id + "-count");
    if (count) count.textContent = shown + " of " + rows.length + " shown";
    table.dispatchEvent(new CustomEvent("tablechange", { bubbles: true }));
  }

  function filtersFromAddress(form) {
    var params = new URLSearchParams(window.location.hash.replace(/^#/, ""));
    var changed = false;
    Array.prototype.slice.call(form.elements).forEach(function (control) {
      if (!control.name || !params.has(control.name)) return;
      var value = params.get(control.name);
      if (control.tagName === "SELECT") {
        var known = Array.prototype.slice.call(control.options).some(function (o) {
          return o.value === value;
        });
        if (!known) return;
      }
      control.value = value;
      changed = true;
    });
    return changed;
  }

  function setUp() {
    Array.prototype.slice.call(document.querySelectorAll("table.sortable")).forEach(
      function (table) {
        var head = table.tHead;
        if (!head || !head.rows.length) return;
        Array.prototype.slice.call(head.rows[head.rows.length - 1].cells).forEach(
          function (header) {
            header.tabIndex = 0;
            header.title = header.title || "Sort by this column";
            header.addEventListener("click", function () { sortBy(table, header); });
            header.addEventListener("keydown", function (event) {
              if (event.key === "Enter") sortBy(table, header);
            });
          });
      });
    Array.prototype.slice.call(document.querySelectorAll("table[data-filters]")).forEach(
      function (table) {
        var form = document.getElementById(table.getAttribute("data-filters"));
        if (!form) return;
        form.addEventListener("input", function () { applyFilters(table, form); });
        form.addEventListener("change", function () { applyFilters(table, form); });
        form.addEventListener("submit", function (event) { event.preventDefault(); });
        var reveal = function () {
          // A link asked for these games: show the list, not the top of the page.
          if (form.scrollIntoView) form.scrollIntoView({ block: "start" });
        };
        var fromAddress = filtersFromAddress(form);
        applyFilters(table, form);
        if (fromAddress) reveal();
        window.addEventListener("hashchange", function () {
          if (filtersFromAddress(form)) {
            applyFilters(table, form);
            reveal();
          }
        });
        // The same link again changes no address (no hashchange): filter and reveal anyway.
        document.addEventListener("click", function (event) {
          var link = event.target && event.target.closest ? event.target.closest("a[href]") : null;
          if (!link || link.getAttribute("href") !== window.location.hash) return;
          if (filtersFromAddress(form)) {
            applyFilters(table, form);
            reveal();
          }
        });
      });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
