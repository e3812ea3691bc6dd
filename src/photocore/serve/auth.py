"""Who a request acts for: each person's seat acts with its own token, a secret made when
the game is created and shown that once; only its hash is kept (Table.tokens, the
database). serve/app.py asks `seat_of` for every request that acts for a seat: without
its token a change is Forbidden. Reading a game needs only its id.

>>> tokens = new_tokens([0, 2])
>>> hashes = {seat: token_hash(token) for seat, token in tokens.items()}
>>> seat_of(hashes, "g1", tokens[2])
2
>>> seat_of(hashes, "g1", "a guess")
Traceback (most recent call last):
...
photocore.serve.auth.Forbidden: this token is no seat's of game g1: use your seat's link
"""

import hashlib
import hmac
import secrets
from collections.abc import Iterable, Mapping

__all__ = ["TOKEN_BYTES", "Forbidden", "new_tokens", "seat_of", "token_hash"]

TOKEN_BYTES = 18
"""Random bytes of a seat's token: 144 bits, 24 characters."""


class Forbidden(PermissionError):
    """The request acts for a seat without that seat's token."""


def new_tokens(seats: Iterable[int]) -> dict[int, str]:
    """A new token for each of `seats`."""
    return {seat: secrets.token_urlsafe(TOKEN_BYTES) for seat in seats}


def token_hash(token: str) -> bytes:
    """What is kept of a seat's token: its sha256 (the token is random, 144 bits: no
    salt or slow hash is needed)."""
    return hashlib.sha256(token.encode("utf-8", "replace")).digest()


def seat_of(tokens: Mapping[int, bytes], game_id: str, token: str | None) -> int:
    """The seat of game `game_id` whose token `token` is, among `tokens` (seat ->
    token_hash); Forbidden when it is none's. Every seat's hash is compared, in constant
    time: the answer's timing tells nothing."""
    if not token:
        raise Forbidden(f"acting for a seat of game {game_id} needs that seat's token "
                        "(Authorization: Bearer TOKEN; the seat's link holds it)")
    digest = token_hash(token[:200])
    found = None
    for seat, kept in tokens.items():
        if hmac.compare_digest(digest, kept):
            found = seat
    if found is None:
        raise Forbidden(f"this token is no seat's of game {game_id}: use your seat's link")
    return found
