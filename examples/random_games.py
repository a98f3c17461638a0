"""Play one game between two random agents on each of the five games and print the final boards.

Usage::

    python examples/random_games.py [--seed 0]
"""

import argparse

import agents
import envs


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="seeds the deal and both agents")
    args = parser.parse_args(argv)
    for name in envs.GAMES:
        game = envs.make_game(name)
        state = game.initial_state(seed=args.seed)
        players = [agents.make("random", seed=args.seed + seat) for seat in range(game.num_players)]
        moves = []
        while not game.is_terminal(state):
            action = players[game.current_player(state)].act(game, state)
            moves.append(game.action_to_str(state, action))
            state = game.apply(state, action)
        print(f"== {name}: {len(moves)} plies, returns {game.returns(state).tolist()}")
        print(game.to_text(state))


if __name__ == "__main__":
    main()
