"""``python -m ggp`` runs the command line."""

import sys

from ggp.cli import main

sys.exit(main())
