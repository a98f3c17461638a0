"""``python -m agents.gomocup``: the ``arbiter pbrain`` command (``agents.gomocup.cli``)."""

import sys

from .cli import main

sys.exit(main())
