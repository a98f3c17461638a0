"""The Gomocup (piskvork) protocol both ways: play any Gomoku brain, and serve any agent as one.

Client: a brain (a ``pbrain-*`` engine, speaking the protocol on stdin and stdout) as an agent::

    bot = agents.make("gomocup:command=./pbrain-embryo,move_time=5")
    action = bot.act(envs.make_game("gomoku", size=15), state)

Server: ``serve(game, agent, infile, outfile)``, or from the shell ``arbiter pbrain --agent
mcts:seconds=5`` for piskvork, c-gomoku-cli or a referee.

One module per role, as in ``agents.gtp``:

* ``protocol``: the wire format both sides speak (commands, points ``x,y``, BOARD lines, rules,
  ABOUT) and ``WireError``;
* ``brain``: a brain process (``Brain``; the process side is ``agents.engine_process``, shared
  with GTP) and the errors of the client side;
* ``client``: ``GomocupAgent``, a brain as an agent (registered as ``gomocup``);
* ``clock``: the time a manager gives the brain (``INFO timeout_turn/timeout_match/time_left``);
* ``server``: the brain's commands and ``serve``;
* ``cli``: ``main``, the ``arbiter pbrain`` command line.
"""

from .brain import Brain, GomocupError, GomocupRefused, GomocupTimeout
from .cli import main
from .client import GomocupAgent
from .protocol import WireError
from .server import serve

__all__ = [
    "GomocupAgent",
    "Brain",
    "GomocupError",
    "GomocupRefused",
    "GomocupTimeout",
    "WireError",
    "serve",
    "main",
]
