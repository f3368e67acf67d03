"""``tf.app``: ``run(main=None, argv=None)`` and ``flags``.

As TF's ``app.run`` (absl's ``app.run`` with a tolerant flag parser): parses
``argv`` (``sys.argv`` when None) with ``FLAGS(argv, known_only=True)``, so
flags nobody defined pass through to ``main``; ``--help``/``-?``/
``--helpshort``/``--helpfull`` print the main module's docstring and its
flags and exit with status 1 (as absl's do); a bad flag value raises (exit
status 1). Then
``sys.exit(main(remaining_argv))``: like TF, ``run`` never returns.
"""
from __future__ import annotations

import sys

from ref.platform import flags

__all__ = ["run", "flags"]

_HELP = ("--help", "-help", "-?", "--?", "--helpshort", "-helpshort", "--helpfull", "-helpfull")


def usage(stream=sys.stdout):
    """Prints the main module's docstring (or ``USAGE: prog [flags]``) and its flags, as absl's ``--help``."""
    doc = getattr(sys.modules.get("__main__"), "__doc__", None)
    program = sys.argv[0] if sys.argv else "program"
    text = (doc or f"\nUSAGE: {program} [flags]\n").rstrip()
    flags_help = flags.FLAGS.main_module_help()
    if flags_help.count("\n"):
        text += f"\nflags:\n\n{flags_help}"
    print(text + "\n\nTry --helpfull to get a list of all flags.", file=stream)


def run(main=None, argv=None):
    """Parses flags from ``argv`` then runs ``main(argv)`` and exits with its return value.

    ``main`` defaults to the ``main`` function of the ``__main__`` module. A bad
    flag value raises ``flags.IllegalFlagValueError`` out of ``run`` (exit
    status 1), as TF's ``app.run`` lets absl's error through.
    """
    main = main or sys.modules["__main__"].main
    argv = list(sys.argv if argv is None else argv)
    if any(a in _HELP for a in argv[1:]):
        usage()
        sys.exit(1)  # absl's help flags exit with status 1
    remaining = flags.FLAGS(argv, known_only=True)
    sys.exit(main(remaining))
