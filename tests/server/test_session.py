"""A person against agents (play/session.py): the rules the served page and the terminal
share, on concrete positions: undo back to the person's move, resign, forfeits and their
record, the start's checks, and a finished game that never changes."""

import pytest

import photocore
from photocore import Game, Move, records
from photocore.cli.play import Terminal
from photocore.errors import IllegalMoveError, RecordError
from photocore.play import specs
from photocore.play.player import Forfeit
from photocore.play.session import PERSON, BadRequest, NotNow, Session, start
from photocore.serve.auth import seat_of
from photocore.serve.store import Agents, Store

RANDOM, GREEDY = specs.parse("random"), specs.parse("greedy")


def moves(*texts):
    return [Move.parse(text) for text in texts]


def test_undo_takes_back_to_before_the_persons_last_move_across_the_agents_moves():
    session = Session(start(players=3), [None, RANDOM, GREEDY], "test")
    session.play("place a4")
    assert all(session.agent_plays(move) for move in moves("place d7", "place g1"))
    session.play("place d1")
    assert session.agent_to_move() == 1 and session.reply() == []
    assert session.agent_plays(Move.parse("place a5"))
    assert session.by == ["person", "agent", "agent", "person", "agent"]
    assert session.movers == [0, 1, 2, 0, 1] and session.reply() == [4]
    assert session.undo() == moves("place d1", "place a5")     # in the order played
    assert session.by == ["person", "agent", "agent"] and session.movers == [0, 1, 2]
    assert session.game.history == moves("place a4", "place d7", "place g1")
    assert session.game.current_player == 0 and session.reply() == [1, 2]
    assert session.undo() == moves("place a4", "place d7", "place g1")
    assert session.game.history == [] and not session.can_undo()
    with pytest.raises(NotNow, match="nothing to undo: no person has moved yet"):
        session.undo()


def test_the_moves_a_game_began_with_are_given_and_never_taken_back():
    game = start(players=2, moves=["place a4", "place d7"])
    session = Session(game, [None, RANDOM], "test")
    assert session.by == ["given", "given"] and session.movers == [0, 1]
    assert not session.can_undo()
    session.play("place g1")
    session.agent_plays(Move.parse("place d1"))
    assert session.undo() == moves("place g1", "place d1")
    assert session.by == ["given", "given"] and len(session.game.history) == 2


def test_resign_in_three_players_the_others_win():
    session = Session(start(players=3), [None, RANDOM, None], "test")
    session.play("place a4")
    # an agent's turn, two people: which one resigns must be said
    with pytest.raises(BadRequest, match="say which player resigns: one of 0, 2") as refused:
        session.resign()
    assert refused.value.field == "player"
    with pytest.raises(BadRequest, match=r"player 1 is not a person's seat \(people: 0, 2\)"):
        session.resign(1)
    assert session.forfeit is None and not session.over       # refusals change nothing
    assert session.resign(2) == 2
    assert session.over and session.winners() == (0, 1)
    assert session.forfeit == (2, "resigned", 1) and session.forfeit_text() == "resigned"
    assert session.metadata() == {"agents": [PERSON, "random", PERSON], "site": "test",
                                  "forfeit": {"seat": 2, "reason": "resigned", "ply": 1}}
    with pytest.raises(NotNow, match="cannot resign: the game is over: player 2 resigned"):
        session.resign(0)


def test_the_only_person_or_the_person_to_move_resigns_by_default():
    alone = Session(start(players=3), [RANDOM, None, GREEDY], "test")
    assert alone.resign() == 1 and alone.winners() == (0, 2)
    two = Session(start(players=2), [None, None], "test")
    two.play("place a4")
    assert two.resign() == 1 and two.winners() == (0,)


def test_an_agents_failure_forfeits_with_its_reason_and_ply_in_the_record():
    session = Session(start(players=2), [None, RANDOM], "photocore test")
    session.play("place a4")
    session.agent_fails(1, Forfeit("select() raised RuntimeError: out of cheese", "Traceback"))
    assert session.forfeit == (1, "select() raised RuntimeError: out of cheese", 1)
    assert session.over and session.winners() == (0,) and session.agent_to_move() is None
    assert session.forfeit_text() == "forfeited (select() raised RuntimeError: out of cheese)"
    rec = session.record()
    assert rec["moves"] == ["place a4"] and rec["result"] is None
    assert rec["metadata"] == {"agents": [PERSON, "random"], "site": "photocore test",
                               "forfeit": {"seat": 1, "ply": 1,
                                           "reason": "select() raised RuntimeError: out of cheese"}}
    assert records.from_record(rec).history == moves("place a4")     # verify accepts it
    for change in (lambda: session.play("place g1"), session.undo,
                   lambda: session.agent_fails(1, RuntimeError("again"))):
        with pytest.raises(NotNow, match="the game is over: player 1 forfeited"):
            change()
    assert session.forfeit[1].startswith("select()")


def test_an_illegal_move_or_any_error_forfeits_in_one_short_line():
    session = Session(start(players=2), [None, RANDOM], "test")
    session.play("place a4")
    assert not session.agent_plays(Move.parse("place a4"))     # occupied
    assert session.forfeit == (1, "illegal move place a4: a4 is occupied", 1)
    assert session.game.history == moves("place a4")
    other = Session(start(players=2), [RANDOM, None], "test")
    other.agent_fails(0, RuntimeError("line one\nline two" + "x" * 500))
    assert other.forfeit == (0, "RuntimeError: line one", 0)
    long = Session(start(players=2), [RANDOM, None], "test")
    long.agent_fails(0, ValueError("y" * 500))
    assert long.forfeit[1] == "ValueError: " + "y" * 288 and len(long.forfeit[1]) == 300
    empty = Session(start(players=2), [RANDOM, None], "test")
    empty.agent_fails(0, Forfeit(""))
    assert empty.forfeit == (0, "failed", 0)


def test_a_persons_move_is_refused_on_an_agents_turn_and_a_bad_move_changes_nothing():
    session = Session(start(players=2), [RANDOM, None], "test")
    with pytest.raises(NotNow, match=r"cannot play: it is player 0's turn \(random, to move\)"):
        session.play("place a4")
    session.agent_plays(Move.parse("place a4"))
    with pytest.raises(IllegalMoveError, match="a4 is occupied"):
        session.play("place a4")
    assert session.by == ["agent"] and session.movers == [0]


def played_to_its_end(session):
    """Plays `session` to its natural end, every seat choosing its first legal move."""
    while not session.over:
        first = session.game.legal_moves()[0]
        if session.agent_to_move() is None:
            session.play(first)
        else:
            session.agent_plays(first)
    return session


def test_a_game_at_its_end_never_changes():
    session = played_to_its_end(Session(start(players=2), [None, GREEDY], "test"))
    assert session.game.is_over and session.forfeit is None
    assert session.winners() == session.game.winners() and not session.can_undo()
    ended = (list(session.game.history), list(session.by))
    for what, change in [("undo", session.undo), ("resign", session.resign),
                         ("play", lambda: session.play("end"))]:
        with pytest.raises(NotNow, match=f"cannot {what}: the game is over$"):
            change()
    assert (session.game.history, session.by) == ended
    rec = session.record()
    assert rec["result"]["winners"] == list(session.game.winners())
    assert "forfeit" not in rec["metadata"]


def last_move_of_a_game():
    """The position before the last move of a whole game, the seat to make it, and the move."""
    game = played_to_its_end(Session(start(players=2), [None, GREEDY], "test")).game
    last = game.history[-1]
    game.undo()
    return game.position(), game.current_player, last


def test_both_front_ends_refuse_undo_after_the_natural_end():
    position, seat, last = last_move_of_a_game()
    typed = iter([str(last), "undo", "moves"])
    # the terminal (it took the moves back before the session)
    seats = [None if p == seat else RANDOM for p in range(2)]
    terminal = Terminal(Session(start(position=position), seats, "test"),
                        {p: specs.load(RANDOM) for p in range(2) if p != seat}, seed=1,
                        hint_simulations=10, color=False, echo=(said := []).append,
                        read=lambda prompt: next(typed))
    with pytest.raises(StopIteration):
        terminal.run()
    assert terminal.session.game.is_over
    assert "cannot undo: the game is over" in said
    assert "none: the game is over" in said
    # the served game
    store = Store(Agents(["random"]))
    table, tokens = store.create(position=position, seats=[PERSON if p == seat else "random"
                                                           for p in range(2)])
    table.play(str(last), seat=seat_of(table.tokens, table.id, tokens[seat]))
    with pytest.raises(NotNow, match="cannot undo: the game is over"):
        table.undo(seat=seat)
    store.close()


@pytest.mark.parametrize("kwargs, field, message", [
    ({"players": 5}, "players", "players must be 2, 3 or 4, got 5"),
    ({"options": "x"}, "options", "options 'x': expected - or the letters of the rules"),
    ({"position": "garbage"}, "position", "position: players 'garbage': expected an integer"),
    ({"players": 3, "position": Game().position()}, "players",
     "players 3 disagrees with the position's 2: the game has 2 players"),
    ({"options": "sf", "position": Game().position()}, "options",
     "options 'sf' disagree with the position's '-'"),
    ({"options": photocore.Options.parse("f"), "position": Game(2, options="s").position()},
     "options", "options 'f' disagree with the position's 's'"),
    ({"players": 4, "position": records.to_record(Game(3))}, "players",
     "players 4 disagrees with the record's 3: the game has 3 players"),
    ({"moves": ["place a4", "place a4"]}, "moves[1]", "moves[1]: place a4: a4 is occupied"),
    ({"moves": ["fly"]}, "moves[0]", "moves[0]: 'fly': unknown move 'fly'"),
])
def test_the_start_is_checked_naming_the_input(kwargs, field, message):
    with pytest.raises(BadRequest) as refused:
        start(**kwargs)
    assert refused.value.field == field and str(refused.value).startswith(message)


def test_a_start_from_a_position_or_a_record():
    game = Game(3, options="fs")
    for text in ("place a4", "place d7", "place g1"):
        game.play(text)
    from_position = start(players=3, options="fs", position=game.position(), moves=["place d1"])
    assert not from_position.from_start and from_position.history == moves("place d1")
    from_record = start(options="sf", position=records.to_record(game))
    assert from_record.from_start and from_record.history == game.history
    with pytest.raises(RecordError, match="ply 2: illegal move place a4: a4 is occupied"):
        start(position=dict(records.to_record(game), moves=["place a4", "place a4"]))


def test_the_seats_name_every_player_and_one_person_at_least():
    with pytest.raises(BadRequest, match="seats must name 2 players, one per seat, got 3"):
        Session(start(players=2), [None, RANDOM, RANDOM], "test")
    with pytest.raises(BadRequest, match="at least one seat must be a 'person''s"):
        Session(start(players=2), [RANDOM, GREEDY], "test")


def test_a_record_holds_only_a_game_from_the_start():
    session = Session(start(position=start(moves=["place a4"]).position()), [RANDOM, None],
                      "test")
    assert session.by == [] and not session.game.from_start
    with pytest.raises(NotNow, match="a record holds a game from the start position"):
        session.record()


def test_a_copy_changes_apart():
    session = Session(start(players=2), [None, RANDOM], "test")
    session.play("place a4")
    copy = session.copy()
    session.undo()
    assert copy.game.history == moves("place a4") and copy.by == ["person"]
    assert session.game.history == [] and session.by == []


def test_an_agent_is_shown_and_recorded_by_the_name_it_announced_and_requested_by_label():
    named = specs.parse("py:random:Random")     # any spec: the label is what a request names
    session = Session(start(players=3), [None, named, GREEDY], "test",
                      announced={named.label: "Ada"})
    assert session.labels() == [PERSON, named.label, "greedy"]
    assert session.names() == [PERSON, "Ada", "greedy"]
    session.resign()
    assert session.metadata()["agents"] == [PERSON, "Ada", "greedy"]
    assert Session(start(players=2), [None, named], "test").names() == [PERSON, named.label]
