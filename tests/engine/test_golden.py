"""The golden games of seeds/golden.jsonl replay exactly, in the engine and the reference.

A failure here means a game now plays differently: if the rules changed on purpose,
regenerate with seeds/make_golden.py and bump photocore.RULES_VERSION (say why in the commit).
"""

import pathlib
import zlib

import pytest
from photoref import ReferenceGame

import photocore
from photocore import Options, records
from photocore.facts import OPTIONS, PLAYERS

GOLDEN = pathlib.Path(__file__).resolve().parents[2] / "seeds" / "golden.jsonl"
GAMES = list(photocore.read_games(GOLDEN))


def game_id(rec):
    options = "".join(k[0] for k, on in rec["options"].items() if on) or "-"
    return f"seed{rec['metadata']['seed']}-{rec['players']}p-{options}"


def test_golden_games_cover_every_configuration():
    configs = [(r["players"], Options(**r["options"])) for r in GAMES]
    expected = [(players, options) for players in PLAYERS for options in OPTIONS]
    assert set(configs) == set(expected)
    assert all(configs.count(c) == 3 for c in expected)
    assert all(r["result"] is not None for r in GAMES)


def test_golden_games_are_of_this_rules_version():
    assert {r["rules_version"] for r in GAMES} == {photocore.RULES_VERSION}, \
        "regenerate seeds/golden.jsonl (seeds/make_golden.py) when the rules version changes"


@pytest.mark.parametrize("rec", GAMES, ids=game_id)
def test_checksums_and_result(rec):
    checksums = rec["metadata"]["checksums"]
    assert len(checksums) == len(rec["moves"])
    games = records.positions(rec)   # raises at the end if the stored result disagrees
    next(games)
    for ply, (game, expected) in enumerate(zip(games, checksums, strict=True), 1):
        assert zlib.crc32(game.position().encode()) == expected, \
            f"{game_id(rec)}: position after ply {ply} ({rec['moves'][ply - 1]}) differs"
    final = records.from_record(rec)
    assert final.is_over
    assert records.result_of(final) == rec["result"]


@pytest.mark.parametrize("rec", GAMES, ids=game_id)
def test_reference_agrees_move_by_move(rec):
    game = photocore.Game(rec["players"], options=Options(**rec["options"]))
    ref = ReferenceGame(rec["players"], **rec["options"])     # a flag per rule
    for ply, move in enumerate(rec["moves"], 1):
        assert [str(m) for m in game.legal_moves()] == ref.legal_moves(), \
            f"{game_id(rec)}: legal moves before ply {ply}"
        game.play(move)
        ref.play(move)
    assert ref.is_over and ref.legal_moves() == []
    assert list(ref.scores()) == rec["result"]["scores"]
    assert list(ref.winners()) == rec["result"]["winners"]
    assert [list(ref.tokens(p)) for p in range(ref.players)] == rec["result"]["tokens"]
    assert list(ref.light) == rec["result"]["light"]
