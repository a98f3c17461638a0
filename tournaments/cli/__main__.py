"""``python -m tournaments.cli`` runs the ``arbiter`` command (as the tests and the GTP and Gomocup
engine configurations spell it, with no installed script needed)."""

import sys

from . import main

sys.exit(main())
