"""Game records: the JSON format of docs/records.md (its definition: record.schema.json in this
package), files of them, and replay.

A record keeps a game as its moves from the start position; positions and results follow by
replaying them through the engine, which is also how a record is checked. The modules by
concern: `format` (the schema and its fields), `analysis` (a record's metadata.analysis),
`build` (one record from a Game, checked), `replay`, `read` and `writer` (files of them);
their names are the package's.
"""

from photocore.records.analysis import ANALYSIS_VERSIONS, check_analysis
from photocore.records.build import check_record, result_of, to_record
from photocore.records.format import FIELDS, FORMAT, RECORD_VERSION, RESULT_FIELDS, Record, schema
from photocore.records.read import (
    GameReader,
    OnError,
    capped_lines,
    is_compressed,
    read_game,
    read_games,
    read_past,
    too_long,
)
from photocore.records.replay import from_record, positions
from photocore.records.writer import RecordWriter, kept_lines, record_line, write_games

__all__ = [
    "FORMAT", "RECORD_VERSION", "Record", "to_record", "result_of", "check_record", "schema",
    "FIELDS", "RESULT_FIELDS", "ANALYSIS_VERSIONS", "check_analysis", "from_record", "positions",
    "OnError", "read_games", "GameReader", "read_game", "capped_lines", "read_past", "too_long",
    "write_games", "RecordWriter", "kept_lines", "record_line", "is_compressed"
]
