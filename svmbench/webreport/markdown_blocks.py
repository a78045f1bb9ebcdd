"""A Markdown document as a list of blocks: HTML text, or tables kept as cells (for sorting and
colouring). Parsed by markdown-it-py (CommonMark plus GitHub tables), not by hand."""

import itertools
import re
from dataclasses import dataclass, field

from markdown_it import MarkdownIt

_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")
CELLS_HEADING = "Cells (each re-runs from the shell)"  # renderers' list of commands: the site's
#                                                        own cell list replaces it


def slug(heading):
    """A heading's anchor as GitHub makes it (lower case, punctuation dropped, spaces to
    hyphens): pages link to headings the same way on GitHub and in the report site."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@dataclass
class Cell:
    html: str  # the cell rendered inline (bold, code, ...)
    text: str  # its plain text, for numbers and sorting


@dataclass
class TableBlock:
    header: list
    rows: list  # list of lists of Cell
    intro: str = ""  # plain text of the paragraph just above the table
    kind: str = "table"
    comparisons: dict = field(default_factory=dict)  # compare.annotate: (row, column) ->
    links: dict = field(default_factory=dict)  # (row, column) -> the cell's deviations entry


@dataclass
class TextBlock:
    html: str
    kind: str = "text"


def parse(markdown, resolve=None):
    """(title, blocks): the first level-1 heading's text and the document after it.

    ``resolve(target)`` maps each image source and link target to its address in the site, or
    None for a link that has none there (its text stays, the link goes)."""
    tokens = _MARKDOWN.parse(markdown)
    _heading_ids(tokens)
    if resolve is not None:
        _rewrite_targets(tokens, resolve)
    title, blocks, pending, last_paragraph = "", [], [], ""
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type == "heading_open" and token.tag == "h1" and not title:
            title = _plain(tokens[i + 1])
            i += 3
            continue
        if token.type == "paragraph_open" and _plain(tokens[i + 1]).startswith(CELLS_HEADING):
            i += 3
            if i < len(tokens) and tokens[i].type in ("code_block", "fence"):
                i += 1
            continue
        if token.type == "table_open":
            if pending:
                blocks.append(TextBlock(_MARKDOWN.renderer.render(pending, _MARKDOWN.options, {})))
                pending = []
            end = next(j for j in range(i, len(tokens)) if tokens[j].type == "table_close")
            blocks.append(_table(tokens[i:end + 1], last_paragraph))
            i = end + 1
            continue
        if token.type == "inline" and tokens[i - 1].type == "paragraph_open":
            last_paragraph = _plain(token)
        pending.append(token)
        i += 1
    if pending:
        blocks.append(TextBlock(_MARKDOWN.renderer.render(pending, _MARKDOWN.options, {})))
    return title, blocks


def _heading_ids(tokens):
    """Give every heading its GitHub anchor as id (a repeat gets -1, -2, ... as there)."""
    seen = {}
    for opening, inline in itertools.pairwise(tokens):
        if opening.type == "heading_open":
            anchor = slug(_plain(inline))
            count = seen.get(anchor, 0)
            seen[anchor] = count + 1
            opening.attrSet("id", anchor if not count else f"{anchor}-{count}")


def _rewrite_targets(tokens, resolve):
    for token in tokens:
        children = token.children or []
        for child in children:
            key = {"image": "src", "link_open": "href"}.get(child.type)
            if key is None:
                continue
            target = resolve(child.attrGet(key))
            if target is not None:
                child.attrSet(key, target)
            elif key == "href":
                child.attrs.pop("href")
        token.children = children or token.children


def _table(tokens, intro):
    rows, header, current, in_head = [], [], None, False
    for token in tokens:
        if token.type == "thead_open":
            in_head = True
        elif token.type == "thead_close":
            in_head = False
        elif token.type == "tr_open":
            current = []
        elif token.type == "tr_close":
            (header.extend(current) if in_head else rows.append(current))
        elif token.type == "inline":
            html = _MARKDOWN.renderer.renderInline(token.children, _MARKDOWN.options, {})
            current.append(Cell(html, _plain(token)))
    return TableBlock([cell.text for cell in header], rows, intro)


def _plain(inline):
    """The text of an inline token without markup (``**0.15**`` -> ``0.15``)."""
    return "".join(child.content for child in inline.children or []
                   if child.type in ("text", "code_inline", "softbreak")).strip()
