"""Agent specs: one syntax for built-in, Python and engine agents, parsed without evaluating
anything; Python agents behind the harness, which turns their failures into forfeits."""

import sys
import textwrap

import pytest

import photocore
from photocore._kernel import stream_seed
from photocore.play import harness, specs
from photocore.play._agents import BUILTIN_AGENTS
from photocore.play.player import Forfeit
from photocore.play.specs import parse

AGENTS = textwrap.dedent('''
    import random

    class Seeded:
        """Records what the harness passes; plays the first legal move."""
        name = "seeded"

        def __init__(self, checkpoint="none", simulations=1, greedy=False, scale=1.0):
            self.options = (checkpoint, simulations, greedy, scale)
            self.seeds = []

        def reset(self, seed=None):
            self.seeds.append(seed)

        def select(self, game):
            return game.legal_moves()[0]

    class Returns:
        """Returns whatever it was told to, and spoils the copy it is given."""
        def __init__(self, what):
            self.what = what

        def select(self, game):
            game.play(game.legal_moves()[-1])        # the harness's game must not change
            return {"int": 0, "text": "place a4", "move": game.legal_moves()[0],
                    "none": None, "junk": "place z9", "float": 1.5}[self.what]

    class Raises:
        def __init__(self, at=3):
            self.at = at

        def select(self, game):
            if len(game.history) >= self.at:
                raise ZeroDivisionError("search went wrong")
            return random.choice(game.legal_moves().ids())

    class NoSelect:
        pass

    class TwoPlayers:
        """Plays 2-player games only, and says so when asked."""
        def __init__(self, broken=False):
            if broken:
                raise RuntimeError("no network to load")

        def check(self, game):
            if game.players != 2:
                raise ValueError(f"plays 2 players, the game has {game.players}")

        def select(self, game):
            return game.legal_moves()[0]
''')


@pytest.fixture
def agents_file(tmp_path):
    path = tmp_path / "my_agents.py"
    path.write_text(AGENTS)
    return path


def test_builtin_specs():
    assert parse("random").label == "random" and parse("random").builtin
    assert parse("mcts").simulations == 200 and parse("mcts").label == "mcts:200"
    assert parse(" MCTS:50 ").label == "mcts:50"
    for bad, reason in [("mcts:0", "budget"), ("mcts:x", "budget"), ("greedy:3", "only mcts"),
                        ("alphazero", "unknown agent"), ("py:nomodule", "py:module:Class"),
                        ("py:a b:C", "neither a module"), ("cmd:", "empty"),
                        ("cmd:'./x", "quote"), ("cmd:'./x'y", "only .options"),
                        ("cmd:./x?startup=3", None), ("cmd:'./x'?turbo=1", "unknown option"),
                        ("cmd:'./x'?startup=0", "startup"),
                        ("py:m:C?a=1&a=2", "twice"), ("py:m:C?1a=1", "key=value")]:
        if reason is None:
            assert parse(bad).argv == ("./x?startup=3",)   # unquoted: all of it is the command
            continue
        with pytest.raises(ValueError, match=reason):
            parse(bad)


def test_the_built_in_agents_are_the_registry_s():
    assert specs.BUILTIN_FORMS == ("random", "greedy", "mcts", "mcts:N")
    # the module's list of agents is the registry's, and so is the error naming them
    assert " | ".join(specs.BUILTIN_FORMS) in specs.__doc__
    assert f"default {specs.DEFAULT_SIMULATIONS})" in specs.__doc__
    with pytest.raises(ValueError) as unknown:
        parse("alphazero")
    assert all(form in str(unknown.value) for form in specs.BUILTIN_FORMS)
    for name, agent in BUILTIN_AGENTS.items():
        spec = parse(name)
        assert spec.builtin and spec.agent_kind is agent and spec.searches == agent.searches
        assert (f"{name}:N" in specs.BUILTIN_FORMS) == agent.budget
        assert spec.simulations == (specs.DEFAULT_SIMULATIONS if agent.budget else 0)
        assert spec.label == specs.load(spec).name
        if agent.budget:
            assert parse(f"{name}:7").label == f"{name}:7"
        else:
            with pytest.raises(ValueError, match=r"only mcts takes a budget \(mcts:SIMULATIONS\)"):
                parse(f"{name}:7")
    for other in ("py:m:C", "cmd:./engine"):   # played move by move: as slow as a search
        assert parse(other).agent_kind is None and parse(other).searches


def test_python_and_command_specs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = parse("py:bots/mine.py:Bot?checkpoint=runs/ckpt.pt&simulations=64&greedy=true"
                 "&scale=0.5&tag='007'&nothing=none&label=\"a&b\"")
    assert spec.kind == "py" and spec.cls == "Bot"
    assert spec.target == str(tmp_path / "bots" / "mine.py")      # absolute: workers find it
    assert dict(spec.options) == {"checkpoint": "runs/ckpt.pt", "simulations": 64,
                                  "greedy": True, "scale": 0.5, "tag": "007",
                                  "nothing": None, "label": "a&b"}
    assert spec.label == spec.text
    module = parse("py:my.package.agents:Searcher")
    assert module.target == "my.package.agents" and module.cwd == str(tmp_path)
    engine = parse("cmd:\"./engine --depth 3 'two words'\"?startup=2.5")
    assert engine.argv == ("./engine", "--depth", "3", "two words")
    assert dict(engine.options) == {"startup": 2.5}
    assert parse("cmd:./engine").argv == ("./engine",)


def test_split_keeps_quoted_commas_and_labels_are_unique():
    assert specs.split("greedy, mcts:5 ,cmd:'./e --a,b',py:m:C?x='1,2'") == [
        "greedy", "mcts:5", "cmd:'./e --a,b'", "py:m:C?x='1,2'"]
    with pytest.raises(ValueError, match="empty"):
        specs.split("greedy,,random")
    with pytest.raises(ValueError, match="quote"):
        specs.split("cmd:'./e")
    assert specs.labels([parse("greedy"), parse("mcts"), parse("greedy")]) == [
        "greedy", "mcts:200", "greedy#2"]


def test_python_agent_from_a_file_gets_options_and_seeds(agents_file):
    player = specs.load(f"py:{agents_file}:Seeded?checkpoint=c.pt&simulations=8&scale=2")
    assert player.name == "seeded"
    assert player.agent.options == ("c.pt", 8, False, 2)
    game = photocore.Game()
    played = harness.play_game(game, [player, specs.load("random")], seeds=[11, 12])
    assert game.is_over and played.forfeit is None
    assert player.agent.seeds == [11]


def test_python_agent_from_a_module_found_from_the_working_folder(agents_file, monkeypatch):
    monkeypatch.chdir(agents_file.parent)
    spec = parse("py:my_agents:Seeded")
    monkeypatch.chdir("/")
    try:
        player = spec.load()
        assert player.select(photocore.Game()) == photocore.Move(0)
    finally:
        sys.modules.pop("my_agents", None)
        if str(agents_file.parent) in sys.path:
            sys.path.remove(str(agents_file.parent))


@pytest.mark.parametrize("what,move", [("int", "place a4"), ("text", "place a4"),
                                       ("move", "place a4")])
def test_a_move_may_be_a_move_an_id_or_text_and_the_game_is_not_touched(agents_file, what,
                                                                        move):
    player = specs.load(f"py:{agents_file}:Returns?what={what}")
    game = photocore.Game()
    assert player.select(game) == photocore.Move.parse(move)
    assert game.history == []                  # it played on a copy


@pytest.mark.parametrize("what,reason", [("none", "returned None, not a Move"),
                                         ("float", "returned 1.5"),
                                         ("junk", "malformed move")])
def test_anything_else_forfeits(agents_file, what, reason):
    player = specs.load(f"py:{agents_file}:Returns?what='{what}'")     # quoted: text, not None
    with pytest.raises(Forfeit, match=reason):
        player.select(photocore.Game())


def test_a_raising_agent_loses_its_game_with_the_traceback(agents_file):
    raiser = specs.load(f"py:{agents_file}:Raises?at=5")
    game = photocore.Game()
    played = harness.play_game(game, [specs.load("greedy"), raiser], seeds=[1, 2])
    seat, reason, detail = played.forfeit
    assert seat == 1 and not game.is_over and len(game.history) >= 5
    assert reason == "select() raised ZeroDivisionError: search went wrong"
    assert "Traceback" in detail and "ZeroDivisionError" in detail
    assert played.winners(game) == (0,)
    assert played.metadata() == {"forfeit": {"seat": 1, "reason": reason}}


def test_an_illegal_move_loses_the_game(agents_file):
    # "place a4" twice: the second time the cell is taken
    player = specs.load(f"py:{agents_file}:Returns?what=text")
    game = photocore.Game()
    played = harness.play_game(game, [player, player])
    assert played.forfeit[:2] == (1, "illegal move place a4: a4 is occupied")
    assert [str(m) for m in game.history] == ["place a4"]


def test_check_fails_early_on_what_would_fail_every_game(agents_file, tmp_path):
    with pytest.raises(ValueError, match="does not take these options"):
        parse(f"py:{agents_file}:Seeded?depth=3").check()
    with pytest.raises(ValueError, match="has no Missing"):
        parse(f"py:{agents_file}:Missing").check()
    with pytest.raises(ValueError, match="cannot import"):
        parse(f"py:{tmp_path / 'absent.py'}:Bot").check()
    with pytest.raises(ValueError, match="cannot import no_such_module"):
        parse("py:no_such_module:Bot").check()
    with pytest.raises(TypeError, match="no select"):
        parse(f"py:{agents_file}:NoSelect").load()
    with pytest.raises(ValueError, match="cannot start"):
        parse(f"cmd:{tmp_path / 'no-engine'}").check()
    parse(f"py:{agents_file}:Seeded?checkpoint=x").check()     # fine


def test_check_asks_an_agent_whether_it_plays_such_games(agents_file):
    # given the run's game, check() makes the agent and asks its check(game): an agent that
    # cannot play that many players (or those options) is refused before the first game
    two = parse(f"py:{agents_file}:TwoPlayers")
    two.check()
    two.check(photocore.Game(2))
    with pytest.raises(ValueError) as refused:
        two.check(photocore.Game(3))
    assert str(refused.value) == (f"agent 'py:{agents_file}:TwoPlayers': ValueError: plays 2 "
                                  "players, the game has 3")
    with pytest.raises(ValueError, match="TwoPlayers.broken=true': RuntimeError: no network"):
        parse(f"py:{agents_file}:TwoPlayers?broken=true").check(photocore.Game(2))
    parse(f"py:{agents_file}:Raises").check(photocore.Game(3))    # nothing to ask it


def test_seeds_depend_on_the_run_the_game_and_the_agent_only():
    assert harness.seed_for(7, 3, 1) == harness.seed_for(7, 3, 1)
    assert len({harness.seed_for(7, g, a) for g in range(50) for a in range(4)}) == 200
    assert 0 <= harness.seed_for(-1, 0, 0) < 2 ** 64


def test_an_agents_seed_is_the_kernels_stream_of_its_games_seed():
    # one derivation, the kernel's (game_seed): stream `agent` of stream `game` of the seed
    for seed, game, agent in ((7, 3, 1), (0, 0, 0), (-1, 12, 3)):
        assert harness.seed_for(seed, game, agent) == stream_seed(stream_seed(seed, game), agent)


def test_players_are_kept_per_process_and_seat_copy():
    spec = parse("greedy")
    assert harness.player(spec, 0) is harness.player(spec, 0)
    assert harness.player(spec, 0) is not harness.player(spec, 1)


