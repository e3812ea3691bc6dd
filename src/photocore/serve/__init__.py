"""Playing photocore: a person against any agent, in the browser (`photocore serve`) over a
JSON API (serve/app.py), with the games held in serve/games.py and hints from
serve/hints.py. docs/play.md describes it; `photocore play` (cli/play.py) is the terminal's
way to play."""
