"""Read predstab's HTML with a real parser (:mod:`html.parser`): nesting, tables, no outside resource."""

from __future__ import annotations

from html.parser import HTMLParser

__all__ = ["parse", "_check_page"]

VOID = {"meta", "img", "br", "hr", "link", "input", "col"}


class _Tree(HTMLParser):
    """Checks nesting while parsing; keeps the text, the attributes and the tables' cells."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.tags, self.attrs, self.text = [], [], [], [], []
        self.tables, self._row, self._cell = [], None, None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += attrs
        if tag in VOID:
            return
        if tag in ("td", "th") and self.stack[-1:] != ["tr"]:
            self.errors.append(f"<{tag}> outside <tr>")
        if tag == "tr" and self.stack[-1:] not in (["thead"], ["tbody"]):
            self.errors.append("<tr> outside <thead>/<tbody>")
        if tag in ("thead", "tbody", "caption") and self.stack[-1:] != ["table"]:
            self.errors.append(f"<{tag}> outside <table>")
        self.stack.append(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()
        if tag in ("td", "th"):
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr":
            self.tables[-1].append(self._row)

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def parse(text):
    tree = _Tree()
    tree.feed(text)
    tree.close()
    return tree


def _check_page(text):
    tree = parse(text)
    assert not tree.errors, tree.errors[:5]
    assert not tree.stack, f"unclosed: {tree.stack}"
    assert "script" not in tree.tags and "iframe" not in tree.tags and "link" not in tree.tags
    for name, value in tree.attrs:
        if name in ("src", "href"):
            assert value.startswith(("data:", "#")), (name, value[:80])  # nothing fetched from outside
        assert not (name.startswith("on")), name  # no event handlers
    assert "http://" not in text and "https://" not in text
    assert all(len(row) == len(t[0]) for t in tree.tables for row in t), "ragged table"
    return tree
