"""``python -m ref <command>``: the main job and the command-line tools.

    demo                train a small network end to end (the README's first command)
    events PATH...      print the contents of event files
    inspect-checkpoint  list (and print) the tensors of a checkpoint
    golden OP           write golden vectors for a kernel or optimizer
    check GOLDEN        compare an implementation against golden vectors
"""
from __future__ import annotations

import importlib
import sys

COMMANDS = {
    "demo": "ref.demo:main",
    "events": "ref.events.cli:main",
    "inspect-checkpoint": "ref.checkpoint.inspect:main",
    "golden": "ref.golden.cli:golden_main",
    "check": "ref.golden.cli:check_main",
}


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd not in COMMANDS:
        print(f"unknown command {cmd!r}; commands: {', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    module, func = COMMANDS[cmd].split(":")
    return int(getattr(importlib.import_module(module), func)(rest) or 0)


if __name__ == "__main__":
    sys.exit(main())
