"""The ``irrun`` command line: :mod:`irrun.cli.main` dispatches to one module per sub-command
(``add_arguments(parser)`` and ``main(args) -> exit code``); :mod:`irrun.cli.common` holds what
several commands share."""
from .main import main

__all__ = ["main"]
