"""``tf.app``: ``run(main=None, argv=None)`` and ``flags``.

As TF's ``app.run`` (absl's ``app.run`` with a tolerant flag parser): parses
``argv`` (``sys.argv`` when None) with ``FLAGS(argv, known_only=True)``, so
flags nobody defined pass through to ``main``; ``--help``/``-h``/``-?``/
``--helpshort``/``--helpfull`` print the main module's docstring and the flags
and exit 0; a flag error prints ``FATAL Flags parsing error: ...`` to stderr
and exits 1. Then ``sys.exit(main(remaining_argv))``: like TF, ``run`` never
returns.
"""
from __future__ import annotations

import sys

from ref.platform import flags

__all__ = ["run", "flags"]

_HELP = ("--help", "-help", "-h", "-?", "--helpshort", "--helpfull")


def usage(stream=sys.stdout):
    """Prints the main module's docstring (or ``USAGE: prog [flags]``) and the flags."""
    doc = getattr(sys.modules.get("__main__"), "__doc__", None)
    program = sys.argv[0] if sys.argv else "program"
    print((doc or f"\nUSAGE: {program} [flags]\n").strip(), file=stream)
    if len(flags.FLAGS):
        print(f"\nflags:\n\n{flags.FLAGS.module_help()}", file=stream)


def run(main=None, argv=None):
    """Parses flags from ``argv`` then runs ``main(argv)`` and exits with its return value.

    ``main`` defaults to the ``main`` function of the ``__main__`` module.
    """
    main = main or sys.modules["__main__"].main
    argv = list(sys.argv if argv is None else argv)
    if any(a in _HELP for a in argv[1:]):
        usage()
        sys.exit(0)
    try:
        remaining = flags.FLAGS(argv, known_only=True)
    except flags.Error as e:
        print(f"FATAL Flags parsing error: {e}", file=sys.stderr)
        print("Pass --helpshort or --helpfull to see help on flags.", file=sys.stderr)
        sys.exit(1)
    sys.exit(main(remaining))
