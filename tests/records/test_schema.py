"""The record schema (src/photocore/record.schema.json) states facts of the game as JSON
Schema: it is data, not code, so these tests hold each of them equal to photocore.facts;
and it names every metadata field photocore writes, which the records of every writer
show."""

import dataclasses

import jsonschema
import pytest

from photocore import Game, Limit, records, strictjson
from photocore.cli.options import SET_BY
from photocore.facts import LIGHT_CAP, OPTION_RULES, PLAYERS, TOKENS, Options
from photocore.play import harness, specs
from photocore.play.session import PERSON, Session
from photocore.run.driver import RECORD_FIELDS
from photocore.run.match import Match
from photocore.run.selfplay import Series
from photocore.run.train_data import DataSeries, Uniform
from photocore.serve.auth import seat_of
from photocore.serve.store import Agents, Store

SCHEMA = records.schema()
RESULT = SCHEMA["properties"]["result"]["properties"]


def test_the_options_are_the_rules_of_the_option_table():
    options = SCHEMA["properties"]["options"]
    names = [rule.name for rule in OPTION_RULES]
    assert list(options["properties"]) == names
    assert options["required"] == names
    assert all(kind == {"type": "boolean"} for kind in options["properties"].values())
    assert list(Options._fields) == names


def test_the_player_counts_are_the_games():
    assert SCHEMA["properties"]["players"]["enum"] == list(PLAYERS)
    branches = {b["if"]["properties"]["players"]["const"]: b["then"]["$ref"]
                for b in SCHEMA["allOf"]}
    assert list(branches) == list(PLAYERS)
    for players, ref in branches.items():
        seats = SCHEMA["$defs"][ref.removeprefix("#/$defs/")]["properties"]
        for field in ("scores", "tokens", "light"):
            count = seats["result"]["properties"][field]
            assert (count["minItems"], count["maxItems"]) == (players, players)
        assert seats["result"]["properties"]["winners"]["items"]["maximum"] == players - 1
        for field in ("agents", "specs"):
            count = seats["metadata"]["properties"][field]
            assert (count["minItems"], count["maxItems"]) == (players, players)
        forfeit = seats["metadata"]["properties"]["forfeit"]["properties"]["seat"]
        assert forfeit["maximum"] == players - 1


@pytest.mark.parametrize("bound,value", [
    ("minimum", min(min(stack) for stack in TOKENS)),
    ("maximum", max(max(stack) for stack in TOKENS)),
])
def test_token_values_are_those_of_the_stacks(bound, value):
    assert RESULT["tokens"]["items"]["items"][bound] == value


def test_light_is_capped_as_in_the_game():
    assert RESULT["light"]["items"]["maximum"] == LIGHT_CAP


# ---- the metadata photocore writes ------------------------------------------------------

METADATA = SCHEMA["properties"]["metadata"]["properties"]
VALIDATOR = jsonschema.validators.validator_for(SCHEMA)(SCHEMA)


def played_fully(players):
    """A Played with all it adds to a record's metadata: a forfeit and an engine's info."""
    played = harness.Played(players)
    played.forfeit = (1, "exited with status 2", "out of luck")
    played.info = {3: ["info depth 2"], 1: ["info depth 1"]}
    return played


def selfplay_lines():
    series = Series(2, agents=["greedy", "random"], seed=5)
    return [*series.batch(0, 2).lines,
            records.record_line(Game(), series.metadata(1, played_fully(2)))]


def match_lines():
    plan = Match(["greedy", "random"], games=2, seed=5, limit=Limit(simulations=3))
    return [*plan.batch(0, 2).lines,
            records.record_line(Game(), plan.metadata(1, played_fully(2)))]


def tournament_lines():
    plan = Match(["greedy", "random", "mcts:2"], games=1, pairings=[(0, 1), (0, 2), (1, 2)])
    return plan.batch(0, 2).lines


def training_lines():
    series = DataSeries(Uniform(2), games=1, simulations=2, per_search=1, records=True)
    return series.batch(0, 1).lines


def session_lines():
    session = Session(Game(), [None, specs.parse("random")], "test")
    session.resign()
    return [records.record_line(session.record())]


def serve_lines():
    store = Store(Agents(["random"]))
    try:
        table, tokens = store.create(seats=[PERSON, "random"])
        table.resign(seat=seat_of(table.tokens, table.id, tokens[0]))
        return [records.record_line(table.record())]
    finally:
        store.close()


@pytest.mark.parametrize("writer", [selfplay_lines, match_lines, tournament_lines,
                                    training_lines, session_lines, serve_lines])
def test_every_writer_s_metadata_is_named_in_the_schema(writer):
    lines = writer()
    assert lines
    for line in lines:
        rec = strictjson.loads(line)
        VALIDATOR.validate(rec)         # the schema read by another JSON Schema validator
        unknown = set(rec["metadata"]) - set(METADATA)
        assert not unknown, f"{writer.__name__} writes metadata the schema does not name"


def test_the_limit_a_record_holds_is_a_limit_s_fields():
    assert list(METADATA["limit"]["properties"]) == [f.name for f in dataclasses.fields(Limit)]


def test_one_table_names_the_option_of_every_field_a_resumed_run_checks():
    for plan in (Series(2), Match(["greedy", "random"], games=2)):
        assert set(plan.defining(1)) <= set(SET_BY)
        # what a resumed run checks is what the run writes
        written = strictjson.loads(plan.batch(1, 1).lines[0])
        for field, value in plan.defining(1).items():
            assert (written[field] if field in RECORD_FIELDS
                    else written["metadata"].get(field)) == value
