"""``python -m agents.gomocup``: the ``arbiter pbrain`` command (``agents.gomocup.cli``)."""

import sys

from .cli import main

if __name__ == "__main__":  # importing the module (a package walk) must not start a brain
    sys.exit(main())
