"""The command-line tools' argument parser: a user mistake is one line.

``argparse`` prints the whole usage block before its message; ``python -m ref``
tools print ``error: <what is wrong> (see <prog> --help)`` on stderr instead,
and exit with status 2 (usage errors), as the issue tracker's first-hour
report asked.
"""
from __future__ import annotations

import argparse
import sys


class Parser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose usage errors are one line and exit 2."""

    def error(self, message):
        print(f"error: {' '.join(message.split())} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)
