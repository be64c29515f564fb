"""``python -m research.features > docs/research-features.md``: regenerate the documentation page."""

from research.features import markdown

print(markdown(), end="")
