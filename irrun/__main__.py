"""``python -m irrun``: the same as the ``irrun`` command."""
import sys

from .cli.main import main

sys.exit(main())
