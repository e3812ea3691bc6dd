"""The record schema (src/photocore/record.schema.json) states facts of the game as JSON
Schema: it is data, not code, so these tests hold each of them equal to photocore.facts."""

import pytest

from photocore import records
from photocore.facts import LIGHT_CAP, OPTION_RULES, PLAYERS, TOKENS, Options

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
        agents = seats["metadata"]["properties"]["agents"]
        assert (agents["minItems"], agents["maxItems"]) == (players, players)
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
