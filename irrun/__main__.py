"""``python -m irrun``: the same as the ``irrun`` command."""
import sys

from .cli import main

sys.exit(main())
