"""Reading a generated report page in tests: its links, images, scripts, text and tables.

Pages are parsed with the standard library's HTML parser, so tests check what a browser would
see (unescaped text, each table's rows and their attributes) rather than the markup's
spelling.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path


@dataclass
class Row:
    attrs: dict[str, str]
    cells: list[str] = field(default_factory=list)
    #: Each cell's attributes, in the order of `cells`.
    cell_attrs: list[dict[str, str]] = field(default_factory=list)
    #: The href of each link in the row, in order.
    links: list[str] = field(default_factory=list)


class Page(HTMLParser):
    """The images, links, scripts, style sheets, text and tables (by id) of one page."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self.images: list[str] = []
        self.links: list[str] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self.text: list[str] = []
        self.tables: dict[str, list[Row]] = {}
        self.ids: set[str] = set()
        self._tables: list[list[Row]] = []
        self._cell: list[str] | None = None
        self.source = path.read_text(encoding="utf-8")
        self.feed(self.source)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        if "id" in found:
            self.ids.add(found["id"])
        if tag == "img" and found.get("src"):
            self.images.append(found["src"])
        if tag == "a" and found.get("href"):
            self.links.append(found["href"])
            if self._tables and self._tables[-1]:
                self._tables[-1][-1].links.append(found["href"])
        if tag == "script" and found.get("src"):
            self.scripts.append(found["src"])
        if tag == "link" and found.get("rel") == "stylesheet":
            self.styles.append(found["href"])
        if tag == "br" and self._cell is not None:
            self._cell.append(" ")
        if tag == "table":
            rows: list[Row] = []
            self._tables.append(rows)
            if "id" in found:
                self.tables[found["id"]] = rows
        elif tag == "tr" and self._tables:
            self._tables[-1].append(Row(found))
        elif tag in ("td", "th") and self._tables and self._tables[-1]:
            self._cell = []
            self._tables[-1][-1].cell_attrs.append(found)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._tables:
            self._tables[-1][-1].cells.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "table" and self._tables:
            self._tables.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)

    def words(self) -> str:
        """The page's text as one string, white space collapsed."""
        return " ".join(" ".join(self.text).split())

    def body_rows(self, table: str) -> list[Row]:
        """A table's rows after its header row."""
        return self.tables[table][1:]
