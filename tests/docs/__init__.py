"""The documentation: README.md and the site's pages (docs/), and what they name in the code."""
