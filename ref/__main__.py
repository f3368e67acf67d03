"""``python -m ref <command>``: the main job and the command-line tools.

    demo                train a small network end to end (the README's first command)
    events PATH...      print the contents of event files
    inspect-checkpoint  list (and print) the tensors of a checkpoint
    golden OP           write golden vectors for a kernel or optimizer
    check GOLDEN        compare an implementation against golden vectors
    server              run one task of a cluster (tf.train.Server) until SIGTERM
    cluster run|status  start a local cluster running a training script; ping a cluster's tasks
    warmup              compile the common Numba kernels into Numba's cache ahead of time
"""
from __future__ import annotations

import importlib
import os
import sys

from ref.types import errors

COMMANDS = {
    "demo": "ref.demo:main",
    "events": "ref.events.cli:main",
    "inspect-checkpoint": "ref.checkpoint.inspect:main",
    "golden": "ref.golden.cli:golden_main",
    "check": "ref.golden.cli:check_main",
    "server": "ref.distributed.launcher:server_main",
    "cluster": "ref.distributed.launcher:cluster_main",
    "warmup": "ref.ops.warmup:main",
}


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd not in COMMANDS:
        print(f"error: unknown command {cmd!r}; commands: {', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    module, func = COMMANDS[cmd].split(":")
    try:
        return int(getattr(importlib.import_module(module), func)(rest) or 0)
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except (OSError, errors.OpError, ValueError, LookupError) as e:
        # A user's file or argument the command did not anticipate: one line, not a
        # traceback (REF_TRACEBACK=1 shows it).
        if os.environ.get("REF_TRACEBACK"):
            raise
        message = getattr(e, "message", None) or (f"{e.filename}: {e.strerror}" if isinstance(e, OSError)
                                                  and e.filename and e.strerror else str(e))
        print(f"error: {' '.join(str(message).split())}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
