"""The ``irrun`` command line: :mod:`irrun.cli.main` dispatches to one module per sub-command
(``add_arguments(parser)`` and ``main(args) -> exit code``). What several commands share with
the library (``--input`` files, ``--output`` files) is in :mod:`irrun.io.inputs` and
:mod:`irrun.io.outputs`, so that ``irrun.distributed`` never imports the command line."""
from .main import main

__all__ = ["main"]
