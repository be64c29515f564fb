"""Find the documentation's text wherever it lives: README.md (the quick start and the tour) or a page
of the site under docs/.  Tests that run an example or check a table find it by its marker or its
heading, so a section can move between pages without its test following it by hand."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: README.md first, then every page of the site, in a stable order.
FILES: tuple[Path, ...] = (ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")))
#: Each file's text, keyed by its path relative to the repository.
TEXTS: dict[str, str] = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in FILES}
#: All of it, for a test that only asks whether a sentence is said somewhere.
ALL = "\n\n".join(TEXTS.values())


def section(title: str) -> str:
    """The text under the heading ``title`` (any level), up to the next heading of its level or above
    (a ``#`` line inside a code block is a comment, not a heading)."""
    for text in TEXTS.values():
        lines, fenced, level, taken = text.split("\n"), False, 0, []
        for line in lines:
            heading = None if fenced else re.match(r"(#+) (.*)", line)
            if line.startswith("```"):
                fenced = not fenced
            if level and heading and len(heading.group(1)) <= level:
                break
            if level:
                taken.append(line)
            elif heading and heading.group(2) == title:
                level = len(heading.group(1))
        if level:
            return "\n".join(taken) + "\n"
    raise AssertionError(f"no heading {title!r} in README.md or docs/")


def block(marker: str, lang: str = "sh") -> str:
    """The ``lang`` code block that follows ``<!-- marker: ... -->`` in the README or a page."""
    for text in TEXTS.values():
        found = re.search(rf"<!-- {re.escape(marker)}:[^>]*-->\n```{lang}\n(.*?)\n```", text, re.S)
        if found:
            return found.group(1)
    raise AssertionError(f"no {marker} block in README.md or docs/")


def where(marker: str) -> str:
    """The file (relative to the repository) that holds ``<!-- marker: ... -->``."""
    for name, text in TEXTS.items():
        if f"<!-- {marker}:" in text:
            return name
    raise AssertionError(f"no {marker} block in README.md or docs/")
