"""`photocore stats --plot`: the charts of many games (needs the plot extra, matplotlib)."""

import pathlib
import struct
import sys

import pytest
from click.testing import CliRunner

import photocore
from photocore import records
from photocore.cli import main

GOLDEN = pathlib.Path(__file__).resolve().parents[2] / "seeds" / "golden.jsonl"


def test_light_by_round_is_taken_when_each_round_begins():
    plots = pytest.importorskip("photocore.plots", reason="matplotlib is not installed")
    rec = records.read_game(GOLDEN, 7)               # fourth revolution: 24 rounds
    expected = {}
    for game in records.positions(rec):
        if game.phase == "play":
            expected.setdefault(game.round, game.light)
    light = plots.light_by_round(rec)
    assert len(light) == 24
    assert light == [expected[r] for r in range(1, 25)]
    # a record dict another writer made, its players a whole float (2.0), not yet checked
    assert plots.light_by_round(dict(rec, players=float(rec["players"]))) == light


@pytest.mark.slow
def test_stats_plot_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib is not installed")
    out = tmp_path / "golden.png"
    result = CliRunner().invoke(main, ["stats", str(GOLDEN), "--plot", str(out)])
    assert result.exit_code == 0, result.output
    assert f"{out}: charts written" in result.output
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1600, 500)
    assert len(data) > 50_000                        # three charts, not a blank canvas
    assert [p.name for p in tmp_path.iterdir()] == ["golden.png"]


def test_stats_plot_without_matplotlib(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "photocore.plots", None)   # import fails
    # from the module's dict: getattr would ask the package's __getattr__, which imports it
    monkeypatch.delitem(vars(photocore), "plots", raising=False)
    result = CliRunner().invoke(main, ["stats", str(GOLDEN), "--plot", str(tmp_path / "x.png")])
    assert result.exit_code == 1 and "pip install 'photocore[plot]'" in result.output
    assert not (tmp_path / "x.png").exists()


@pytest.mark.slow
def test_stats_plot_skips_games_with_an_illegal_move(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib is not installed")
    rec = records.read_game(GOLDEN, 1)
    bad = dict(rec, moves=rec["moves"][:10] + ["collect d4"] + rec["moves"][11:])
    games = tmp_path / "games.jsonl"
    photocore.write_games(games, [rec, bad])
    result = CliRunner().invoke(main, ["stats", str(games), "--plot", str(tmp_path / "p.png")])
    assert result.exit_code == 0, result.output
    assert "1 game (1 finished, 0 unfinished), 1 bad line skipped" in result.output


def test_the_speed_chart_of_the_docs_shows_every_text_whole():
    # docs/_ext/figures.py draws docs/speed.md's chart at each build of the site; its axis
    # label was centred past the figure's right edge, cut at "(time"
    pytest.importorskip("matplotlib")
    import importlib.util
    docs = GOLDEN.parent.parent / "docs"
    spec = importlib.util.spec_from_file_location("figures", docs / "_ext" / "figures.py")
    figures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(figures)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    figure = figures.speed_figure(figures.speed_ups(docs / "speed.md"))
    renderer = FigureCanvasAgg(figure).get_renderer()
    (axes,) = figure.axes
    texts = [axes.xaxis.label, *axes.get_yticklabels(), *axes.texts]
    assert axes.xaxis.label.get_text().endswith("(times, log scale)") and len(texts) > 10
    for text in texts:
        box = text.get_window_extent(renderer)
        assert figure.bbox.x0 <= box.x0 and box.x1 <= figure.bbox.x1, text.get_text()
        assert figure.bbox.y0 <= box.y0 and box.y1 <= figure.bbox.y1, text.get_text()
