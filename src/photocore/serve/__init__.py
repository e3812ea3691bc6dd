"""Serving photocore: a person against any agent, in the browser (`photocore serve`) over a
JSON API (serve/app.py), with the games held in serve/store.py, each a serve/table.py Table
over play/session.py's rules, and hints from play/hints.py (docs/play.md; `photocore
play`, cli/play.py, is the terminal's way to play); and the analysis server for tools,
JSON-line queries answered (serve/queries.py, `photocore analyze --serve`,
docs/analysis.md)."""

__all__ = []
