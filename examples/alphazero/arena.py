"""Many games at once between a searched network and a built-in agent, for evaluation.

All games share one photocore.Search, so the network sees the positions of every game
where it is to move in one batch; the built-in agent (random, greedy, mcts:N) plays the
other seats in C. Seats rotate: in game i the network sits in seat i % players.
"""

import numpy as np

import photocore
from photocore.play.settings import SearchSettings


def parse_opponent(text):
    """(kind, simulations) of `random`, `greedy`, `mcts` or `mcts:N` (a built-in agent's
    spec, photocore.play.specs)."""
    from photocore.play.specs import DEFAULT_SIMULATIONS, parse
    spec = parse(text)
    if not spec.builtin:
        raise ValueError(f"opponent {text!r}: the arena plays the built-in agents only "
                         "(random, greedy, mcts, mcts:N)")
    return spec.kind, spec.simulations or DEFAULT_SIMULATIONS   # unused by random, greedy


def builtin_matches(agent="mcts:1000", opponent="mcts:100", games=400, players=2, seed=0):
    """The same seating with a built-in agent in the network's place, played in C
    (photocore.play.play_games: in game i the agent sits in seat i % players):
    what a checkpoint's win rate is to be compared with. Returns {"games", "win_rate"}."""
    from photocore.play import play_games
    moves, offsets = play_games([parse_opponent(agent)] + [parse_opponent(opponent)]
                                * (players - 1), players, None, seed, 0, games)
    share = []
    for i in range(games):
        game = photocore.Game(players)
        for move in moves[offsets[i]:offsets[i + 1]].tolist():
            game.play(move)
        winners = game.winners()
        share.append(1 / len(winners) if i % players in winners else 0.0)
    return {"games": games, "win_rate": float(np.mean(share))}


def play_matches(evaluate, opponent="greedy", games=400, simulations=64, players=2, seed=0,
                 c_puct=SearchSettings.c_puct, in_flight=SearchSettings.in_flight,
                 rollout_weight=SearchSettings.rollout_weight, graph=SearchSettings.graph):
    """Plays `games` games of the searched network (its values mixed with random games' by
    `rollout_weight`, photocore.Search; over positions with `graph`) against `opponent` in
    the other seats; returns
    {"games", "win_rate" (the network's share of the wins, ties shared), "score"
    (its mean score), "opponent_score", "moves"}."""
    kind, budget = parse_opponent(opponent)
    boards = [photocore.Game(players) for _ in range(games)]
    seat = [i % players for i in range(games)]
    agents = [photocore.Agent(kind, seed=seed * 1_000_003 + i, simulations=budget)
              for i in range(games)]
    search = photocore.Search(boards, simulations, seed=seed, c_puct=c_puct,
                              dirichlet_fraction=0.0, in_flight=in_flight,
                              rollout_weight=rollout_weight, graph=graph)

    def play(moves):
        search.advance(moves)
        for board, move in zip(boards, moves.tolist()):
            if move >= 0:
                board.play(move)

    while True:
        # the others move, and the network's forced moves are played, until every game
        # still going waits for a searched move of the network
        while True:
            moves = np.full(games, -1, np.int64)
            for i, board in enumerate(boards):
                if board.is_over:
                    continue
                if board.current_player != seat[i]:
                    moves[i] = int(agents[i].select(board))
                elif len(board.legal_moves()) == 1:
                    moves[i] = int(board.legal_moves()[0])
            if (moves < 0).all():
                break
            play(moves)
        if all(board.is_over for board in boards):
            break
        search.run(evaluate)
        play(search.choose(temperature=0))

    share = [1 / len(b.winners()) if seat[i] in b.winners() else 0.0 for i, b in enumerate(boards)]
    scores = [b.scores() for b in boards]
    mine = [s[seat[i]] for i, s in enumerate(scores)]
    others = [np.mean([x for p, x in enumerate(s) if p != seat[i]]) for i, s in enumerate(scores)]
    return {"games": games, "win_rate": float(np.mean(share)), "score": float(np.mean(mine)),
            "opponent_score": float(np.mean(others)),
            "moves": int(sum(len(b.history) for b in boards))}
