"""GTP both ways: play through an external engine, and serve any Arbiter agent to GTP tools.

Both sides play every two-player game (Go, Othello, Gomoku, Lines of Action), each in its own
notation (the wire forms are in ``protocol``).

Client: an external engine as an agent (Go through GNU Go, Othello through GRhino)::

    bot = agents.make("gtp", command=["/usr/games/gnugo", "--mode", "gtp", "--level", "1",
                                      "--chinese-rules", "--capture-all-dead", "--positional-superko"])
    action = bot.act(game, state)

Server: ``serve(game, agent, infile, outfile)``, or from the shell ``arbiter gtp --game go --size
9 --agent mcts:simulations=5000`` for GoGui, Sabaki or a referee.

One module per role, each with its own docstring:

* ``protocol``: the wire format both sides speak (command lines, responses, colours, vertices,
  numbers, the bounds on what is read) and ``Refusal``, a ``?`` answer;
* ``engine``: an engine process (``GTPEngine``) and the errors of the client side;
* ``client``: ``GTPAgent``, an engine as an agent (registered as ``gtp``);
* ``session``: the server's game (rules, position, any colour to move, undo, the clock);
* ``clock``: the controller's clock (``time_settings``, ``time_left``);
* ``records``: ``loadsgf``, an SGF record read safely and replayed into the session;
* ``server``: the commands and ``serve``;
* ``cli``: ``main``, the ``arbiter gtp`` command line.

What a game supports is asked of the game (``Game.board_size``, ``komi``, ``pass_action``,
``margin``; ``GameSpec.gtp`` and ``placement``), and what an agent can be held to by a clock is
asked of the agent (``Agent.time_option``, ``clock_options``).
"""

from .cli import main
from .client import GTPAgent
from .clock import CLOCK_MARGIN, MIN_MOVE_SECONDS
from .engine import GTPEngine, GTPEngineError, GTPResigned, GTPSyncError, GTPTimeout
from .loadsgf import MAX_RECORD_BYTES
from .protocol import COLOURS, MAX_LINE
from .server import COMMANDS, serve

__all__ = [
    "GTPAgent",
    "GTPEngine",
    "GTPEngineError",
    "GTPTimeout",
    "GTPResigned",
    "GTPSyncError",
    "serve",
    "main",
    "COMMANDS",
    "COLOURS",
    "MAX_LINE",
    "MAX_RECORD_BYTES",
    "MIN_MOVE_SECONDS",
    "CLOCK_MARGIN",
]
