"""The one Markdown writer of scripts/reports/: a document is a list of blocks (a heading, a
paragraph, a list, a code block, a table, a chart, a comment), written with one blank line between
blocks. `query` is the section every report has: an optional sentence, the query in a ```sql block
and what psql printed for it in a plain ``` block. A `slot` is a place in the document filled
later (a paragraph whose figures come from a query that runs after the section above it).

Figures in prose come from the run: pass them in (f-strings of query results or of the report's
inputs); scripts/tests/reports-check.py fails on a figure typed into a report's prose.
"""
import os


class Doc:
    def __init__(self):
        self.blocks = []

    # --- blocks ----------------------------------------------------------------------------------
    def heading(self, level, text):
        self.blocks.append("#" * level + " " + text)
        return self

    def h1(self, text):
        return self.heading(1, text)

    def h2(self, text):
        return self.heading(2, text)

    def h3(self, text):
        return self.heading(3, text)

    def para(self, *lines):
        """A paragraph; several strings are its lines (kept as written: Markdown joins them)."""
        text = "\n".join(line for line in lines if line is not None)
        if text.strip():
            self.blocks.append(text)
        return self

    def bullets(self, *items):
        items = [i for i in items if i]
        if items:
            self.blocks.append("\n".join("- " + i.replace("\n", "\n  ") for i in items))
        return self

    def code(self, text, lang=""):
        """A fenced block, `text` as it is (a query, a command, a program's output)."""
        self.blocks.append(f"```{lang}\n{text.rstrip()}\n```" if text.strip() else f"```{lang}\n```")
        return self

    def indented(self, text):
        """An indented code block (four spaces), as the reports' one-line calls are shown."""
        self.blocks.append("\n".join("    " + line if line else "" for line in text.rstrip().split("\n")))
        return self

    def query(self, shown, text=None):
        """The section of a query: `text` (if any), then the query and what psql printed for it;
        `shown` is Psql.show's (query, printed)."""
        sql, printed = shown
        self.para(text)
        self.code(sql, "sql")
        self.code(printed)
        return self

    def table(self, headers, rows, align=None):
        """A Markdown table. align: one letter per column, l (default) or r."""
        align = align or "l" * len(headers)
        rule = ["---:" if a == "r" else "---" for a in align]
        lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(rule) + "|"]
        for r in rows:
            cells = ["" if v is None else str(v).replace("|", "\\|").replace("\n", " ") for v in r]
            lines.append("| " + " | ".join(cells) + " |")
        self.blocks.append("\n".join(lines))
        return self

    def chart(self, alt, target):
        """A chart, linked relative to the document (img/NAME.png or .svg)."""
        self.blocks.append(f"![{alt}]({target})")
        return self

    def comment(self, text):
        self.blocks.append(f"<!-- {text} -->")
        return self

    def slot(self):
        """A document within this one, at this place, to be filled later."""
        sub = Doc()
        self.blocks.append(sub)
        return sub

    def extend(self, other):
        self.blocks.append(other)
        return self

    # --- output ----------------------------------------------------------------------------------
    def render(self):
        parts = []
        for b in self.blocks:
            text = b.render().rstrip("\n") if isinstance(b, Doc) else b
            if text:
                parts.append(text)
        return "\n\n".join(parts) + "\n" if parts else ""

    def write(self, path):
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(self.render())
        os.replace(tmp, path)
        return path
