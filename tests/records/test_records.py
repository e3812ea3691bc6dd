"""Game records (photocore.records, docs/records.md): round trips, files, errors, commands."""

import copy
import gzip
import json
import os
import random
import re
import select
import signal
import subprocess
import sys
import time

import jsonschema
import numpy as np
import pytest
from click.testing import CliRunner

import photocore
from photocore import npz, records
from photocore.cli import main
from photocore.facts import Options
from support import random_game

# the package's schema, by another validator than the one photocore reads records with
SCHEMA = jsonschema.validators.validator_for(records.schema())(records.schema())


# every player count and every combination of the options (their flags 0 .. 3)
GAMES = [random_game(seed, players=2 + seed % 3, options=Options.from_flags(seed % 4),
                     spare_end=True) for seed in range(8)]
UNFINISHED = random_game(99, players=3, options="-", moves=40, spare_end=True)


def rec_of(game, **metadata):
    return records.to_record(game, {"agents": [f"bot{p}" for p in range(game.players)],
                                    **metadata})


def write_lines(path, lines, newline_at_end=True):
    text = "\n".join(lines) + ("\n" if newline_at_end else "")
    path.write_text(text, encoding="utf-8")
    return path


def line_of(rec):
    return json.dumps(rec, separators=(",", ":"))


# ---- one record --------------------------------------------------------------------------

def test_to_record_fields_and_schema():
    game = GAMES[3]
    rec = rec_of(game, seed=3)
    assert list(rec) == list(records.FIELDS)
    assert rec["format"] == "photocore-game" and rec["version"] == 1
    assert rec["rules_version"] == photocore.RULES_VERSION
    assert rec["players"] == game.players
    assert list(rec["options"]) == list(Options._fields)
    assert Options(**rec["options"]) == game.options
    assert rec["moves"] == [str(m) for m in game.history]
    assert rec["result"] == {"scores": list(game.scores()), "winners": list(game.winners()),
                             "tokens": [list(game.tokens(p)) for p in range(game.players)],
                             "light": list(game.light)}
    assert rec["metadata"] == {"agents": ["bot0", "bot1", "bot2", "bot3"][:game.players],
                               "seed": 3}
    SCHEMA.validate(rec)


def test_unfinished_game_has_null_result_and_default_agents():
    rec = records.to_record(UNFINISHED)
    assert rec["result"] is None
    assert rec["metadata"] == {"agents": ["unknown"] * 3}
    SCHEMA.validate(rec)
    assert records.from_record(rec) == UNFINISHED


def test_to_record_needs_a_game_from_its_start():
    game = photocore.Game.from_position(GAMES[0].position())
    with pytest.raises(ValueError, match="start position"):
        records.to_record(game)


def test_to_record_checks_the_metadata():
    with pytest.raises(photocore.RecordError, match="metadata.agents"):
        records.to_record(GAMES[0], {"agents": ["only one"]})


def test_record_line_of_a_game_takes_its_metadata_and_checks_it():
    meta = {"agents": ["a", "b"], "seed": 3}
    line = records.record_line(GAMES[0], meta)
    assert json.loads(line) == records.to_record(GAMES[0], meta)
    assert line == records.record_line(records.to_record(GAMES[0], meta))
    with pytest.raises(photocore.RecordError, match="metadata.agents"):
        records.record_line(GAMES[0], {"agents": ["only one"]})
    with pytest.raises(TypeError, match="metadata goes with a Game"):
        records.record_line(records.to_record(GAMES[0]), meta)


@pytest.mark.parametrize("game", GAMES + [UNFINISHED])
def test_from_record_round_trip(game):
    back = records.from_record(rec_of(game))
    assert back == game
    assert back.history == game.history


def test_from_record_ply_gives_the_position_after_k_moves():
    game = GAMES[1]
    rec = rec_of(game)
    for ply in (0, 1, 17, len(rec["moves"]) - 1, len(rec["moves"])):
        expected = photocore.Game(game.players, options=game.options)
        for move in game.history[:ply]:
            expected.play(move)
        assert records.from_record(rec, ply=ply) == expected
    for bad in (-1, len(rec["moves"]) + 1, "3"):
        with pytest.raises(ValueError, match="ply must be"):
            records.from_record(rec, ply=bad)


def test_from_record_with_a_ply_skips_the_result_check():
    rec = rec_of(GAMES[0])
    rec["result"]["scores"][0] += 1
    records.from_record(rec, ply=len(rec["moves"]))
    with pytest.raises(photocore.RecordError, match="disagrees"):
        records.from_record(rec)


def test_positions_includes_the_start_and_every_ply():
    rec = rec_of(GAMES[2])
    games = list(records.positions(rec))
    assert len(games) == len(rec["moves"]) + 1
    assert games[0] == photocore.Game(rec["players"], options=Options(**rec["options"]))
    for ply in (0, 5, len(games) - 1):
        assert games[ply] == records.from_record(rec, ply=ply)
    assert games[-1].is_over
    games[0].play(games[0].legal_moves()[0])   # independent copies
    assert games[1] != games[0] or games[1].history != games[0].history
    assert games[2] == records.from_record(rec, ply=2)


def test_positions_without_history_are_the_same_positions():
    rec = rec_of(GAMES[2])
    bare = list(records.positions(rec, history=False))
    assert bare == list(records.positions(rec))
    assert all(game.history == [] and game.root() == game for game in bare)
    assert bare[3].key == records.from_record(rec, ply=3).key
    with pytest.raises(TypeError, match="history must be True or False"):
        next(records.positions(rec, history="no"))


def test_positions_checks_the_result_at_the_end():
    rec = rec_of(GAMES[2])
    rec["result"]["winners"] = [1] if rec["result"]["winners"] != [1] else [0]
    iterator = records.positions(rec)
    for _ in range(len(rec["moves"]) + 1):
        next(iterator)
    with pytest.raises(photocore.RecordError, match="winners"):
        next(iterator)


# ---- files -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["games.jsonl", "games.jsonl.gz"])
def test_write_and_read_games(tmp_path, name):
    path = tmp_path / name
    items = [GAMES[0], rec_of(GAMES[1], seed=1), UNFINISHED]  # Games and dicts alike
    assert photocore.write_games(path, items) == 3
    with open(path, "rb") as f:
        assert (f.read(2) == b"\x1f\x8b") == name.endswith(".gz")
    reader = photocore.read_games(path, verify=True)
    back = list(reader)
    assert back == [records.to_record(GAMES[0]), rec_of(GAMES[1], seed=1),
                    records.to_record(UNFINISHED)]
    assert (reader.games, reader.skipped, reader.line) == (3, 0, 3)
    assert reader.moves == sum(len(g.history) for g in (GAMES[0], GAMES[1], UNFINISHED))
    assert os.listdir(tmp_path) == [name]


def test_read_games_streams(tmp_path):
    path = photocore.write_games(tmp_path / "g.jsonl", GAMES) and tmp_path / "g.jsonl"
    reader = photocore.read_games(path)
    assert next(reader) == records.to_record(GAMES[0])
    assert (reader.games, reader.line) == (1, 1)


def test_blank_lines_are_ignored_and_games_keep_their_line(tmp_path):
    path = write_lines(tmp_path / "g.jsonl", [line_of(rec_of(GAMES[0])), "", "  ",
                                               line_of(rec_of(GAMES[1]))])
    reader = photocore.read_games(path)
    assert len(list(reader)) == 2 and reader.line == 4
    assert records.read_game(path, 4) == rec_of(GAMES[1])
    with pytest.raises(photocore.RecordError, match=r"g.jsonl:2: no game: the line is blank"):
        records.read_game(path, 2)
    with pytest.raises(photocore.RecordError,
                       match=r"g.jsonl:9: no game: the file's last game is on line 4"):
        records.read_game(path, 9)


def test_read_game_reads_only_its_line(tmp_path):
    path = write_lines(tmp_path / "g.jsonl", ["{bad", line_of(rec_of(GAMES[5]))])
    assert records.read_game(path, 2) == rec_of(GAMES[5])
    with pytest.raises(photocore.RecordError, match="g.jsonl:1: malformed JSON"):
        records.read_game(path, 1)


def failing_games(after):
    yield from GAMES[:after]
    raise RuntimeError("the producer died")


@pytest.mark.parametrize("name", ["g.jsonl", "g.jsonl.gz"])
def test_write_games_is_atomic(tmp_path, name):
    path = tmp_path / name
    with pytest.raises(RuntimeError, match="producer died"):
        photocore.write_games(path, failing_games(3))
    assert os.listdir(tmp_path) == []                 # neither the file nor a temporary one
    photocore.write_games(path, GAMES[:2])
    old = path.read_bytes()
    with pytest.raises(RuntimeError):
        photocore.write_games(path, failing_games(5))
    assert path.read_bytes() == old                   # the old content, whole
    bad = rec_of(GAMES[3])
    del bad["moves"]
    with pytest.raises(photocore.RecordError, match="missing field 'moves'"):
        photocore.write_games(path, [GAMES[0], bad])
    assert path.read_bytes() == old
    assert os.listdir(tmp_path) == [name]


# ---- errors -------------------------------------------------------------------------------

GOOD = rec_of(GAMES[0])


def changed(**changes):
    rec = copy.deepcopy(GOOD)
    for key, value in changes.items():
        if value is KeyError:
            del rec[key]
        else:
            rec[key] = value
    return line_of(rec)


def with_move(ply, text):
    rec = copy.deepcopy(GOOD)
    rec["moves"][ply - 1] = text
    return line_of(rec)


def with_result(**changes):
    rec = copy.deepcopy(GOOD)
    rec["result"].update(changes)
    return line_of(rec)


def forfeited(moves, **forfeit):
    """GOOD cut to its first `moves` moves (all of them: with its result), with a forfeit."""
    cut = moves < len(GOOD["moves"])
    return changed(moves=GOOD["moves"][:moves], result=None if cut else GOOD["result"],
                   metadata={"agents": ["a", "b"], "forfeit": forfeit})


# the bad lines that are not JSON as photocore reads it (strictjson.loads): no schema sees them
JSON_TEXT = ("malformed JSON", "NaN", "1e400 in an analysis", "-1e999 in metadata",
             "a 400-digit float", "a key twice", "a key twice deeper")
# (bad line, does it need a replay (verify=True) to be found, message after "FILE:2: ")
BAD_LINES = {
    "malformed JSON": ('{"format": "photocore-game", "version": 1,,}', False,
                       r"malformed JSON: Expecting property name"),
    "NaN": (line_of(GOOD).replace('"players":2', '"players":NaN'), False,
            r"field 'players': NaN is not JSON"),
    # numbers Python's reader makes infinity; writing them back would give Infinity
    "1e400 in an analysis": (line_of(GOOD).replace('"metadata":{', '"metadata":{"loss":[0.0,1e400],'),
                             False, r"field 'metadata.loss\[1\]': 1e400 is not a finite number"),
    "-1e999 in metadata": (line_of(GOOD).replace('"metadata":{', '"metadata":{"note":-1e999,'),
                           False, r"field 'metadata.note': -1e999 is not a finite number"),
    "a 400-digit float": (line_of(GOOD).replace('"metadata":{', '"metadata":{"x":1' + "0" * 400 + '.5,'),
                          False, r"field 'metadata.x': 10+\.\.\. is not a finite number"),
    "a key twice": (line_of(GOOD).replace('"players":2', '"players":2,"players":3'), False,
                    r"field 'players' is written twice in one object"),
    "a key twice deeper": (line_of(GOOD).replace('"metadata":{', '"metadata":{"seed":1,"seed":1,'),
                           False, r"field 'metadata.seed' is written twice in one object"),
    "not an object": ("[1, 2, 3]", False, r"a record is a JSON object, not an array"),
    "missing field": (changed(moves=KeyError), False, r"missing field 'moves'"),
    "missing format": (changed(format=KeyError), False, r"missing field 'format'"),
    "wrong format": (changed(format="chess-game"), False,
                     r"field 'format' must be 'photocore-game', got 'chess-game'"),
    "unknown version": (changed(version=2), False,
                        r"unknown format version 2: this photocore reads version 1"),
    "version as text": (changed(version="1"), False, r"field 'version' must be 1, got '1'"),
    "players as text": (changed(players="2"), False,
                        r"field 'players' must be 2, 3 or 4, got '2'"),
    "players out of range": (changed(players=5), False, r"field 'players' must be 2, 3 or 4"),
    "unknown field": (changed(comment="hi"), False, r"unknown field 'comment'"),
    "unknown option": (changed(options={"fourth_revolution": False, "shade_blocks": False,
                                        "giant_trees": True}), False,
                       r"unknown field 'options.giant_trees' "
                       r"\(known: fourth_revolution, shade_blocks\)"),
    "missing option": (changed(options={"shade_blocks": False}), False,
                       r"missing field 'options.fourth_revolution'"),
    "option as number": (changed(options={"fourth_revolution": 0, "shade_blocks": False}),
                         False, r"field 'options.fourth_revolution' must be true or false"),
    "moves not a list": (changed(moves="place a4"), False,
                         r"field 'moves' must be an array, not a string"),
    "agents missing": (changed(metadata={"seed": 1}), False, r"missing field 'metadata.agents'"),
    "agents per seat": (changed(metadata={"agents": ["a", "b", "c"]}), False,
                        r"field 'metadata.agents' must hold 2 values, one per player, got 3"),
    "seed as text": (changed(metadata={"agents": ["a", "b"], "seed": "7"}), False,
                     r"field 'metadata.seed' must be an integer"),
    "result shape": (with_result(scores=[1]), False,
                     r"field 'result.scores' must hold 2 values, one per player, got 1"),
    "result field missing": (changed(result={"scores": [0, 0]}), False,
                             r"missing field 'result.winners'"),
    "token out of range": (with_result(tokens=[[14, 23], []]), False,
                           r"field 'result.tokens\[0\]\[1\]' must be at most 22, got 23"),
    "result not an object": (changed(result=[1, 2]), False,
                             r"field 'result' must be an object or null, not an array"),
    "winners repeated": (with_result(winners=[0, 0]), False,
                         r"field 'result.winners' must not repeat a value, got \[0, 0\]"),
    "empty rules version": (changed(rules_version=""), False,
                            r"field 'rules_version' must not be empty"),
    "winners out of range": (with_result(winners=[2]), False,
                             r"field 'result.winners\[0\]' must be at most 1, got 2"),
    "malformed move": (with_move(7, "grow d9"), False,
                       r"ply 7: malformed move 'grow d9': 'd9' is not a cell of the board"),
    "move not text": (with_move(3, 17), False, r"ply 3: malformed move: a number, not a string"),
    "illegal move": (with_move(5, "collect d4"), True, r"ply 5: illegal move collect d4: "),
    "wrong result": (with_result(scores=[GOOD["result"]["scores"][0] + 1,
                                         GOOD["result"]["scores"][1]]), True,
                     rf"ply {len(GOOD['moves'])}: the stored result disagrees with the replay: "
                     r"scores "),
    "result of an unfinished game": (changed(moves=GOOD["moves"][:-1]), True,
                                     rf"ply {len(GOOD['moves']) - 1}: the record has a result "
                                     r"but the game is not over"),
    "no result for a finished game": (changed(result=None), True,
                                      rf"ply {len(GOOD['moves'])}: the game is over after its "
                                      r"\d+ moves but the record's result is null"),
    "move after the end": (changed(moves=GOOD["moves"] + ["end"]), True,
                           rf"ply {len(GOOD['moves']) + 1}: illegal move end: the game is over"),
    "move after a resignation": (forfeited(5, seat=0, reason="resigned", ply=3), True,
                                 r"ply 4: a move after the forfeit: player 0 resigned after "
                                 r"move 3 \(metadata.forfeit\), and the record goes on to 5 moves"),
    "move after a forfeit at the start": (forfeited(1, seat=1, reason="crashed", ply=0), True,
                                          r"ply 1: a move after the forfeit: player 1 forfeited "
                                          r"before any move"),
    "forfeit past the moves": (forfeited(5, seat=0, reason="resigned", ply=9), True,
                               r"ply 5: metadata.forfeit.ply is 9, past the record's 5 moves"),
    "result after a forfeit": (forfeited(len(GOOD["moves"]), seat=1, reason="crashed"), True,
                               rf"ply {len(GOOD['moves'])}: the record has a result, but player 1 "
                               r"forfeited \(metadata.forfeit\): a forfeit ends the game"),
    "forfeit seat out of range": (forfeited(5, seat=2, reason="resigned"), False,
                                  r"field 'metadata.forfeit.seat' must be at most 1, got 2"),
    "forfeit without reason": (forfeited(5, seat=0), False,
                               r"missing field 'metadata.forfeit.reason'"),
    "forfeit ply as text": (forfeited(5, seat=0, reason="resigned", ply="5"), False,
                            r"field 'metadata.forfeit.ply' must be an integer"),
}


@pytest.mark.parametrize("case", list(BAD_LINES))
def test_a_bad_record_raises_naming_file_line_and_ply(tmp_path, case):
    bad, needs_replay, message = BAD_LINES[case]
    path = write_lines(tmp_path / "games.jsonl", [line_of(GOOD), bad, line_of(GOOD)])
    reader = photocore.read_games(path, verify=True)
    with pytest.raises(photocore.RecordError,
                       match="^" + re.escape(str(path)) + ":2: " + message) as info:
        list(reader)
    assert (info.value.path, info.value.line) == (str(path), 2)
    assert reader.games == 1
    if not needs_replay:
        with pytest.raises(photocore.RecordError, match=message):
            list(photocore.read_games(path))
        return
    assert len(list(photocore.read_games(path))) == 3    # sound in form; only a replay tells
    assert info.value.ply is not None


@pytest.mark.parametrize("case", list(BAD_LINES))
def test_skip_passes_over_a_bad_record_and_counts_it(tmp_path, case):
    bad, _, message = BAD_LINES[case]
    path = write_lines(tmp_path / "games.jsonl", [line_of(GOOD), bad, line_of(GOOD)])
    reader = photocore.read_games(path, on_error="skip", verify=True)
    assert list(reader) == [GOOD, GOOD]
    assert (reader.games, reader.skipped) == (2, 1)
    assert [e.line for e in reader.errors] == [2]
    assert str(reader.errors[0]).startswith(f"{path}:2: ")


@pytest.mark.parametrize("case", [c for c, (_, replay, _) in BAD_LINES.items()
                                  if not replay and c not in JSON_TEXT])
def test_the_schema_rejects_what_the_reader_rejects(case):
    bad = json.loads(BAD_LINES[case][0])
    # the move notation is the rules' (docs/rules.md section 9), not the record format's
    assert SCHEMA.is_valid(bad) == (case == "malformed move")
    with pytest.raises(photocore.RecordError):
        records.check_record(bad)


def test_the_schema_ships_in_the_package_and_is_valid():
    schema = records.schema()
    jsonschema.validators.validator_for(schema).check_schema(schema)
    assert list(schema["properties"]) == list(records.FIELDS)
    assert "docs/rules.md" in schema["properties"]["moves"]["description"]


def test_integers_written_as_whole_floats_read_as_json_schema_says():
    rec = json.loads(line_of(GOOD).replace('"players":2', '"players":2.0'))
    assert rec["players"] == 2.0 and SCHEMA.is_valid(rec)
    assert records.from_record(rec) == records.from_record(GOOD)


def with_whole_floats(rec):
    """`rec` as another writer may put it: its integers as whole floats (2.0)."""
    rec = copy.deepcopy(rec)
    rec["players"] = float(rec["players"])
    result = rec["result"]
    for name in ("scores", "winners", "light"):
        result[name] = [float(x) for x in result[name]]
    result["tokens"] = [[float(x) for x in taken] for taken in result["tokens"]]
    rec["metadata"]["seed"] = 7.0
    return rec


def test_whole_floats_where_the_schema_says_integer_become_ints():
    rec = json.loads(line_of(with_whole_floats(GOOD)))
    assert records.check_record(rec) == records.check_record(copy.deepcopy(GOOD))
    expected = copy.deepcopy(GOOD)
    expected["metadata"]["seed"] = 7
    assert line_of(rec) == line_of(expected)         # ints again, as photocore writes them
    # an analysis of a later version is data: nothing in it changes, whatever it holds
    later = {"version": 3, "seed": 2.5, "player": "any", "values": [1.0]}
    rec["metadata"]["analysis"] = copy.deepcopy(later)
    records.check_record(rec)
    assert line_of(rec["metadata"]["analysis"]) == line_of(later)


def test_every_command_reads_whole_floats_as_verify_does(tmp_path):
    floats = write_lines(tmp_path / "floats.jsonl", [line_of(with_whole_floats(GOOD))])
    ints = write_lines(tmp_path / "ints.jsonl", [line_of(GOOD)])
    commands = {"verify": [], "stats": [], "show": [], "replay": ["--html", ".html"],
                "export": ["--npz", ".npz"]}
    for command, options in commands.items():
        got = [invoke(command, path, *options[:1], *(path.with_suffix(o) for o in options[1:]))
               for path in (floats, ints)]
        assert [r.exit_code for r in got] == [0, 0], got[0].output
        # the same output, but for the file's name and verify's speed
        said = [re.sub(r"\(.* moves/s\)", "", r.output) for r in got]
        assert said[0].replace("floats", "ints") == said[1], command
    exported = [npz.load(tmp_path / f"{name}.npz") for name in ("floats", "ints")]
    assert all(np.array_equal(exported[0][k], exported[1][k]) for k in npz.ARRAYS)


def test_the_fast_check_and_the_whole_schema_agree():
    # upper-case moves take the slow path (the notation parser), the same ids come out
    rec = copy.deepcopy(GOOD)
    rec["moves"] = [m.upper() for m in rec["moves"]]
    assert records.check_record(rec) == records.check_record(GOOD)
    for players in (2, 3, 4):   # one agent too many, found by each player count's branch
        rec = rec_of(GAMES[players - 2])
        rec["metadata"]["agents"].append("extra")
        with pytest.raises(photocore.RecordError, match=f"must hold {players} values"):
            records.check_record(rec)


def test_truncated_last_line(tmp_path):
    full = line_of(GOOD)
    path = write_lines(tmp_path / "g.jsonl", [full, full, full[:len(full) // 2]],
                       newline_at_end=False)
    with pytest.raises(photocore.RecordError, match=r"g.jsonl:3: truncated last line"):
        list(photocore.read_games(path))
    reader = photocore.read_games(path, on_error="skip")
    assert len(list(reader)) == 2 and reader.skipped == 1 and reader.errors[0].line == 3


def test_a_last_line_without_newline_that_is_whole_is_read(tmp_path):
    path = write_lines(tmp_path / "g.jsonl", [line_of(GOOD)] * 2, newline_at_end=False)
    assert len(list(photocore.read_games(path))) == 2


def test_skip_counts_several_bad_lines(tmp_path):
    good = line_of(GOOD)
    path = write_lines(tmp_path / "g.jsonl", [good, "{", good, changed(version=3), good,
                                              with_move(2, "buy seed"), good[:40]],
                       newline_at_end=False)
    reader = photocore.read_games(path, on_error="skip", verify=True)
    assert len(list(reader)) == 3
    assert reader.skipped == 4
    assert [e.line for e in reader.errors] == [2, 4, 6, 7]
    assert [e.ply for e in reader.errors] == [None, None, 2, None]


def test_on_error_must_be_raise_or_skip(tmp_path):
    with pytest.raises(ValueError, match="on_error"):
        photocore.read_games(tmp_path / "x.jsonl", on_error="ignore")


def test_a_cut_gzip_stream_keeps_the_lines_before_it(tmp_path):
    path = tmp_path / "g.jsonl.gz"
    photocore.write_games(path, GAMES)
    data = path.read_bytes()
    path.write_bytes(data[:len(data) * 3 // 4])
    with pytest.raises(photocore.RecordError,
                       match=r"g.jsonl.gz:\d+: the compressed stream is damaged"):
        list(photocore.read_games(path))
    reader = photocore.read_games(path, on_error="skip")
    games = list(reader)
    assert 1 <= len(games) < len(GAMES)
    assert games == [records.to_record(g) for g in GAMES[:len(games)]]
    assert reader.skipped == 0 and reader.damaged is reader.errors[-1]
    assert reader.damaged.reason.startswith("the compressed stream")


def test_a_file_is_read_and_appended_to_as_what_it_holds_whatever_its_name(tmp_path):
    path = write_lines(tmp_path / "g.jsonl.gz", [line_of(GOOD)])     # plain, named .gz
    assert list(photocore.read_games(path)) == [GOOD]
    with photocore.RecordWriter(path) as out:
        out.write(GAMES[1])
    assert path.read_bytes().startswith(b"{")                       # still plain
    assert list(photocore.read_games(path)) == [GOOD, records.to_record(GAMES[1])]
    packed = tmp_path / "g.jsonl"                                   # gzip, named .jsonl
    photocore.write_games(tmp_path / "packed.jsonl.gz", [GOOD])
    os.replace(tmp_path / "packed.jsonl.gz", packed)
    with photocore.RecordWriter(packed) as out:
        out.write(GAMES[1])
    assert list(photocore.read_games(packed)) == [GOOD, records.to_record(GAMES[1])]


def test_junk_is_a_malformed_line_not_a_damaged_stream(tmp_path):
    path = tmp_path / "g.jsonl.gz"
    path.write_bytes(b"\x00\x01 not gzip, not JSON\n")
    reader = photocore.read_games(path, on_error="skip")
    assert list(reader) == [] and reader.damaged is None and reader.skipped == 1
    assert "malformed JSON" in str(reader.errors[0])


def test_record_error_message_and_pickling():
    import pickle
    error = photocore.RecordError("bad", "f.jsonl", 3, 7)
    assert str(error) == "f.jsonl:3: ply 7: bad"
    assert str(pickle.loads(pickle.dumps(error))) == str(error)
    assert str(photocore.RecordError("bad", ply=2)) == "ply 2: bad"
    assert str(photocore.RecordError("bad", line=4)) == "line 4: bad"
    assert isinstance(error, ValueError)


def test_a_number_json_cannot_hold_is_never_written(tmp_path):
    rec = rec_of(GAMES[0], agents=["a", "b"], note=float("inf"))
    with pytest.raises(photocore.RecordError, match=r"field 'metadata.note' is inf: JSON holds "
                                                    "finite numbers only"):
        records.record_line(rec)
    path = tmp_path / "g.jsonl"
    with pytest.raises(photocore.RecordError, match="metadata.note"):
        photocore.write_games(path, [GAMES[1], rec])
    assert not path.exists()
    with photocore.RecordWriter(path) as out, pytest.raises(photocore.RecordError):
        out.write(rec)
    assert path.read_bytes() == b""


def test_a_record_with_1e400_is_refused_everywhere_and_repair_drops_it(tmp_path):
    good, bad = line_of(GOOD), line_of(GOOD).replace('"metadata":{', '"metadata":{"note":1e400,')
    path = write_lines(tmp_path / "g.jsonl", [good, bad, good[:50]], newline_at_end=False)
    result = invoke("verify", path)
    assert result.exit_code == 1
    assert f"{path}:2: field 'metadata.note': 1e400 is not a finite number" in result.output
    assert "2 problems" in result.output
    result = invoke("stats", path)
    assert result.exit_code == 0 and "inf" not in result.output
    result = invoke("analyze", path, "--agent", "mcts:2", "--out", tmp_path / "a.jsonl")
    assert result.exit_code == 1 and "1e400 is not a finite number" in result.output
    assert not (tmp_path / "a.jsonl").exists()
    result = invoke("repair", path)
    assert result.exit_code == 0, result.output
    assert path.read_bytes() == good.encode() + b"\n"        # what is kept reads back
    assert invoke("verify", path).exit_code == 0


# ---- RecordWriter --------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["s.jsonl", "s.jsonl.gz"])
def test_record_writer_appends_whole_lines(tmp_path, name):
    path = tmp_path / name
    with photocore.RecordWriter(path) as out:
        out.write(GAMES[0])
        out.write(rec_of(GAMES[1]))
        assert out.count == 2
        # every written game can be read while the writer is open: the file is whole
        # after every write, a gzip stream with its end
        reader = photocore.read_games(path, on_error="skip")
        assert len(list(reader)) == 2 and reader.errors == []
        if name.endswith(".gz"):
            assert gzip.decompress(path.read_bytes()).count(b"\n") == 2
    with photocore.RecordWriter(path) as out:
        out.write(GAMES[2])
    assert list(photocore.read_games(path)) == [records.to_record(GAMES[0]), rec_of(GAMES[1]),
                                                records.to_record(GAMES[2])]
    with photocore.RecordWriter(path, append=False) as out:
        out.write(GAMES[3])
    assert len(list(photocore.read_games(path))) == 1


def test_record_writer_cuts_a_truncated_line_before_appending(tmp_path):
    path = tmp_path / "s.jsonl"
    full = line_of(GOOD)
    write_lines(path, [full, full[:100]], newline_at_end=False)
    with pytest.warns(UserWarning, match="cut off a truncated last line"):
        out = photocore.RecordWriter(path)
    with out:
        out.write(GAMES[1])
    assert list(photocore.read_games(path)) == [GOOD, records.to_record(GAMES[1])]


def test_record_writer_keeps_a_whole_last_line_without_newline(tmp_path):
    path = write_lines(tmp_path / "s.jsonl", [line_of(GOOD)], newline_at_end=False)
    with photocore.RecordWriter(path) as out:
        out.write(GAMES[1])
    assert list(photocore.read_games(path)) == [GOOD, records.to_record(GAMES[1])]


def test_record_writer_refuses_to_append_to_a_cut_gzip(tmp_path):
    path = tmp_path / "s.jsonl.gz"
    photocore.write_games(path, GAMES)
    path.write_bytes(path.read_bytes()[:-30])
    with pytest.raises(photocore.RecordError, match="cannot append"):
        photocore.RecordWriter(path)


@pytest.mark.parametrize("name", ["selfplay.jsonl", "selfplay.jsonl.gz"])
@pytest.mark.slow
def test_a_killed_writer_leaves_at_most_one_bad_last_line(tmp_path, name):
    path = tmp_path / name
    script = (
        "import os, random, sys, photocore\n"
        "rng, parent = random.Random(0), os.getppid()\n"
        "with photocore.RecordWriter(sys.argv[1]) as out:\n"
        # bounded, and ending with its parent: never an orphan filling the disk
        "    for n in range(1, 20001):\n"
        "        if os.getppid() != parent:\n"
        "            break\n"
        "        g = photocore.Game(2)\n"
        "        while not g.is_over:\n"
        "            g.play(rng.choice(g.legal_moves()))\n"
        "        out.write(g)\n"
        "        if n == 50:\n"
        "            print(flush=True)\n")
    process = subprocess.Popen([sys.executable, "-c", script, str(path)], stdout=subprocess.PIPE)
    try:
        assert select.select([process.stdout], [], [], 60)[0], "50 games in a minute"
        process.stdout.readline()
        time.sleep(0.05)                # killed while writing on, mid-write or between
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
        process.stdout.close()
    reader = photocore.read_games(path, on_error="skip", verify=True)
    assert reader.games == 0 and len(list(reader)) >= 50
    assert reader.skipped + (reader.damaged is not None) <= 1
    if reader.errors:
        assert reader.errors[0].reason.startswith(
            "the compressed stream" if name.endswith(".gz") else "truncated last line")


# ---- npz export ------------------------------------------------------------------------------

def test_npz_round_trip(tmp_path):
    recs = [rec_of(g) for g in GAMES] + [records.to_record(UNFINISHED)]
    path = tmp_path / "g.npz"
    assert npz.write(path, recs) == len(recs)
    arrays = npz.load(path)
    assert arrays["moves"].dtype == np.uint16 and arrays["offsets"].dtype == np.int64
    assert arrays["offsets"].tolist()[-1] == sum(len(r["moves"]) for r in recs)
    first = arrays["moves"][arrays["offsets"][0]:arrays["offsets"][1]].tolist()
    assert first == [int(m) for m in GAMES[0].history]
    assert arrays["players"].tolist() == [r["players"] for r in recs]
    assert arrays["options"].tolist() == [r["options"]["fourth_revolution"]
                                          + 2 * r["options"]["shade_blocks"] for r in recs]
    assert arrays["scores"].shape == (len(recs), 4)
    assert arrays["scores"][-1].tolist() == [-1] * 4 and arrays["winners"][-1] == 0
    assert arrays["scores"][0].tolist() == list(GAMES[0].scores()) + [-1] * (4 - GAMES[0].players)
    assert arrays["winners"][0] == sum(1 << p for p in GAMES[0].winners())
    assert str(arrays["rules_version"]) == photocore.RULES_VERSION
    back = list(npz.read_records(path))
    assert back == recs                    # moves, results and agents; nothing else was there
    assert list(npz.read_records(arrays)) == recs


def test_npz_errors(tmp_path):
    recs = [rec_of(g) for g in GAMES[:2]]
    other = copy.deepcopy(recs[1])
    other["rules_version"] = "0"
    with pytest.raises(photocore.RecordError, match="mix rules versions 0, 1"):
        npz.write(tmp_path / "x.npz", [recs[0], other])
    assert os.listdir(tmp_path) == []
    npz.write(tmp_path / "g.npz", recs)
    arrays = npz.load(tmp_path / "g.npz")
    np.savez(tmp_path / "bad.npz", **{**arrays, "moves": arrays["moves"].astype(np.int32)})
    with pytest.raises(photocore.RecordError, match="bad.npz: array 'moves' must be uint16"):
        npz.load(tmp_path / "bad.npz")
    np.savez(tmp_path / "bad.npz", **{k: v for k, v in arrays.items() if k != "offsets"})
    with pytest.raises(photocore.RecordError, match="missing array 'offsets'"):
        npz.load(tmp_path / "bad.npz")
    arrays["scores"][1, 0] += 1
    with pytest.raises(photocore.RecordError, match=r"^line 2: exported scores"):
        list(npz.read_records(arrays))
    arrays["scores"][1, 0] -= 1
    arrays["moves"][arrays["offsets"][1] + 4] = 889   # `end` in the middle of setup
    with pytest.raises(photocore.RecordError, match=r"^line 2: ply 5: illegal move end"):
        list(npz.read_records(arrays))


# ---- commands ---------------------------------------------------------------------------------

def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def games_file(tmp_path):
    path = tmp_path / "games.jsonl"
    photocore.write_games(path, [rec_of(g) for g in GAMES[:4]])
    return path


def test_verify_a_good_file(games_file, tmp_path):
    gz = tmp_path / "more.jsonl.gz"
    photocore.write_games(gz, GAMES[4:])
    result = invoke("verify", games_file, gz)
    moves = sum(len(g.history) for g in GAMES)
    assert result.exit_code == 0, result.output
    assert re.search(rf"^2 files, 8 games, {moves:,} moves replayed, 0 problems "
                     r"\([\d,]+ moves/s\)$", result.output, re.M)


def test_verify_reports_each_problem_and_fails(tmp_path):
    path = write_lines(tmp_path / "g.jsonl", [line_of(GOOD), with_move(5, "collect d4"),
                                              with_result(light=[0, 0]), "{"])
    result = invoke("verify", path)
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].startswith(f"{path}:2: ply 5: illegal move collect d4")
    assert lines[1].startswith(f"{path}:3: ply {len(GOOD['moves'])}: the stored result disagrees")
    assert "light [0, 0] stored" in lines[1]
    assert lines[2].startswith(f"{path}:4: malformed JSON")
    assert lines[3].startswith("1 file, 4 games, ") and " 3 problems " in lines[3]


def test_a_forfeit_ends_the_record(tmp_path):
    """metadata.forfeit (photocore serve, play and match write it) stops the game: a record
    that ends there replays, one whose moves go on after it does not."""
    good = json.loads(forfeited(5, seat=1, reason="resigned", ply=5))
    assert records.from_record(good).history == records.from_record(GOOD, ply=5).history
    assert len(list(records.positions(good))) == 6
    old = json.loads(forfeited(5, seat=1, reason="exited with status 3"))   # no ply: as before
    assert len(records.from_record(old).history) == 5
    bad = json.loads(forfeited(6, seat=1, reason="resigned", ply=5))
    assert records.from_record(bad, ply=5).history == records.from_record(good).history
    for replay in (records.from_record, lambda rec: next(records.positions(rec))):
        with pytest.raises(photocore.RecordError, match="a move after the forfeit") as info:
            replay(bad)
        assert info.value.ply == 6
    path = write_lines(tmp_path / "g.jsonl", [line_of(good), line_of(bad)])
    result = invoke("verify", path)
    assert result.exit_code == 1
    assert result.output.startswith(f"{path}:2: ply 6: a move after the forfeit: player 1 "
                                    "resigned after move 5 (metadata.forfeit)")


def test_verify_needs_existing_files(tmp_path):
    result = invoke("verify", tmp_path / "none.jsonl")
    assert result.exit_code == 2 and "does not exist" in result.output


def test_show_draws_a_position(games_file):
    result = invoke("show", games_file, "--game", 2, "--ply", 9)
    assert result.exit_code == 0, result.output
    rec = rec_of(GAMES[1])
    assert result.output.startswith(f"{games_file}, game on line 2: {rec['players']} players, "
                                    f"{len(rec['moves'])} moves; after ply 9, last move "
                                    f"{rec['moves'][8]}\n")
    assert photocore.render.text(records.from_record(rec, ply=9)) in result.output
    assert "\x1b[" not in result.output
    coloured = invoke("show", games_file, "--color")
    assert "\x1b[" in coloured.output
    assert "game over" in coloured.output       # the end of the game by default


def test_show_refuses_what_is_not_there(games_file):
    result = invoke("show", games_file, "--ply", 10_000)
    assert result.exit_code == 2 and "has" in result.output and "moves" in result.output
    result = invoke("show", games_file, "--game", 9)
    assert result.exit_code == 1
    assert f"{games_file}:9: no game: the file's last game is on line 4" in result.output


def test_stats_counts_and_rates(tmp_path):
    path = tmp_path / "g.jsonl"
    recs = [rec_of(g) for g in GAMES] + [records.to_record(UNFINISHED)]
    recs[0]["metadata"]["agents"] = ["alpha", "beta"]
    photocore.write_games(path, recs)
    write_lines(path, path.read_text().splitlines() + ["{"])
    result = invoke("stats", path)
    assert result.exit_code == 0, result.output
    out = result.output
    lengths = [len(r["moves"]) for r in recs]
    assert "1 file: 9 games (8 finished, 1 unfinished), 1 bad line skipped" in out
    assert (f"length: {sum(lengths) / 9:.1f} moves on average (shortest {min(lengths)}, "
            f"longest {max(lengths)})") in out
    assert "players: 2: 3 games, 3: 4 games, 4: 2 games" in out
    two = [r for r in recs if r["players"] == 2 and r["result"]]
    seat0 = sum(r["result"]["scores"][0] for r in two) / len(two)
    wins0 = sum(0 in r["result"]["winners"] for r in two) / len(two)
    assert f"2 players, {len(two)} finished games:" in out
    assert f"  0     {seat0:10.2f}  {wins0:5.1%}" in out
    alpha = 0 in recs[0]["result"]["winners"]
    assert f"  alpha               1  {alpha:5.1%}" in out
    assert "options: fourth revolution: " in out


def test_stats_of_a_file_that_holds_no_game_is_an_error(tmp_path, games_file):
    # a README or random bytes: exit status 1 and one line, nothing summed up (an empty
    # file is 0 games: tests/cli/test_cli.py)
    text = write_lines(tmp_path / "README.md", ["# Title", "", "Some words."])
    noise = tmp_path / "noise.bin"
    noise.write_bytes(random.Random(0).randbytes(3000))
    for path, why in [(text, "2 bad lines"), (noise, "bad line")]:
        for files in ([path], [games_file, path]):
            result = invoke("stats", *files)
            assert result.exit_code == 1, result.output
            lines = result.output.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith(f"Error: {path} holds no game: "), \
                result.output
            assert why in lines[0]


def test_export_and_back(games_file, tmp_path):
    out = tmp_path / "g.npz"
    result = invoke("export", games_file, "--npz", out)
    assert result.exit_code == 0, result.output
    moves = sum(len(g.history) for g in GAMES[:4])
    assert result.output.startswith(f"{out}: 4 games, {moves:,} moves, ")
    assert list(npz.read_records(out)) == list(photocore.read_games(games_file))


def test_export_stops_at_a_bad_game_unless_told_to_skip(tmp_path):
    path = write_lines(tmp_path / "g.jsonl",
                       [line_of(GOOD), with_move(5, "collect d4"), line_of(GOOD)])
    out = tmp_path / "g.npz"
    result = invoke("export", path, "--npz", out)
    assert result.exit_code == 1 and f"{path}:2: ply 5: illegal move" in result.output
    assert not out.exists() and sorted(os.listdir(tmp_path)) == ["g.jsonl"]
    result = invoke("export", path, "--npz", out, "--skip-bad")
    assert result.exit_code == 0
    assert f"skipped {path}:2: ply 5" in result.output
    assert len(npz.load(out)["players"]) == 2


@pytest.mark.parametrize("command", ["verify", "show", "stats", "export"])
def test_help(command):
    result = invoke(command, "--help")
    assert result.exit_code == 0
    assert ".jsonl" in result.output
    top = invoke("--help")
    assert command in top.output


# ---- text rendering ----------------------------------------------------------------------------

def test_the_plain_drawing():
    game = photocore.Game.from_position(
        "2 s 1 0 0 0 d5 d4:1:1,d5:0:2,e2:0:0 5/1200/4432/- 5/2210/4432/- 0579")
    text = photocore.render.text(game)
    assert "\x1b[" not in text
    rows = {line.split()[0]: line for line in text.splitlines() if line[:5].strip() in ("", "SUN")
            and line.split() and line.split()[0][:1] in "abcdefg" and len(line.split()[0]) == 2}
    # sun 0, shadows W: the medium d5 covers d4 (shading the small) and d3; the small d4, d3
    assert rows["d1"].split() == ["d1", ".", ".", ":", "1S~", "*0M", ".", ".", "d7", "SUN"]
    assert rows["e1"].split() == ["e1", ".", "0o", ".", ".", ".", ".", "e6"]
    assert text.splitlines()[0] == ("round 1 of 18, sun 0 (E corner: shadows fall W), first "
                                    "player 0, player 0 to move")
    assert "options: shade blocks" in text
    assert ("> player 0  light 5   available 1o 2S 0M 0L   player board 4o 4S 3M 2L   "
            "tokens -   score 1") in text
    assert "o seed, S small, M medium, L large" in text


@pytest.mark.parametrize("sun,where", [(0, "right of d7"), (1, "below g4"), (2, "below g1"),
                                       (3, "left of d1"), (4, "above a4"), (5, "above a7")])
def test_the_sun_stands_at_its_corner(sun, where):
    game = photocore.Game.from_position(
        f"2 - {sun + 1} {sun} {sun % 2} {sun % 2} - - 0/2210/4432/- 0/2210/4432/- 0579")
    lines = photocore.render.text(game).splitlines()
    board = lines[2:11]
    sun_line = next(i for i, line in enumerate(board) if "SUN" in line)
    column = board[sun_line].index("SUN")
    a4, a7 = board[1].index("a4") + 3 + 9 + 1, board[1].rindex("a7")
    expected = {0: (4, None), 1: (8, ">"), 2: (8, "<"), 3: (4, 0), 4: (0, "<"), 5: (0, ">")}[sun]
    assert sun_line == expected[0], where
    if expected[1] == "<":
        assert column < a4, where
    elif expected[1] == ">":
        assert column >= a7 - 2, where
    elif expected[1] == 0:
        assert column == 0, where
    else:
        assert board[sun_line].rstrip().endswith("d7  SUN")


def test_colour_only_when_asked():
    game = GAMES[0]
    coloured = photocore.render.text(game, color=True)
    assert "\x1b[31m0" in coloured and "\x1b[1;33mSUN" in coloured
    assert re.sub(r"\x1b\[[\d;]*m", "", coloured) == photocore.render.text(game)


def test_setup_and_game_over_lines():
    assert photocore.render.text(photocore.Game(3)).splitlines()[0] == \
        "setup: player 0 places a small tree on the outer ring"
    over = photocore.Game.from_position(
        "2 - 18 5 1 - - d4:0:1,d5:1:0,d6:1:1,e4:0:0 0/1210/4432/19 6/1210/4432/17 0469")
    text = photocore.render.text(over)
    assert "game over after round 18 of 18" in text
    assert text.splitlines()[0].endswith("players 0 and 1 win")
    assert text.count("winner") == 2

