"""python -m ref COMMAND [--help]: the main job and the command-line tools.

commands:
  demo                train a small network end to end (the README's first command)
  events PATH...      print the contents of event files
  inspect-checkpoint  list (and print) the tensors of a checkpoint
  golden NAME         write golden vectors for a kernel or optimizer
  check GOLDEN        compare an implementation against golden vectors
  server              run one task of a cluster (tf.train.Server) until SIGTERM
  cluster run|status  start a local cluster running a training script; ping a cluster's tasks
  warmup              compile the common Numba kernels into Numba's cache ahead of time

options:
  -h, --help          show this message
  --version           show the version of ref and of the TensorFlow it follows

python -m ref COMMAND --help describes each command's options. Exit status:
0 success, 1 failure (check: over budget), 2 usage error.
"""
from __future__ import annotations

import importlib
import os
import sys

import ref
from ref.types import errors

DISTRIBUTION = "ref-tf1"
"""The name ``ref`` is installed under (``pip install ref-tf1``); ``ref`` on the
package index is an unrelated project. The import name is ``ref``."""

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

NEEDS = {
    # command: (module it imports, the package that provides it, the extra that installs it)
    "server": ("grpc", "grpcio", "distributed"),
    "cluster": ("grpc", "grpcio", "distributed"),
}
"""Optional dependencies a command cannot start without: checked before it starts,
so a missing one is one line naming the extra, never a traceback from a task."""


def install_hint(extra: str) -> str:
    """``pip install 'ref-tf1[EXTRA]'``."""
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def _version() -> str:
    return f"{DISTRIBUTION} {ref.__version__} (import ref; TensorFlow {ref.VERSION}'s 1.x API)"


def _missing(cmd, rest):
    if cmd not in NEEDS or any(a in ("-h", "--help") for a in rest):
        return None
    module, package, extra = NEEDS[cmd]
    try:
        importlib.import_module(module)
    except ImportError:
        return f"python -m ref {cmd} needs {package}: {install_hint(extra)}"
    return None


def _dispatch(argv) -> int:
    if not argv:
        print(f"error: no command given; commands: {', '.join(COMMANDS)} (see python -m ref --help)",
              file=sys.stderr)
        return 2
    if argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if argv[0] == "--version":
        print(_version())
        return 0
    cmd, rest = argv[0], argv[1:]
    if cmd not in COMMANDS:
        print(f"error: unknown command {cmd!r}; commands: {', '.join(COMMANDS)} (see python -m ref --help)",
              file=sys.stderr)
        return 2
    missing = _missing(cmd, rest)
    if missing:
        print(f"error: {missing}", file=sys.stderr)
        return 1
    module, func = COMMANDS[cmd].split(":")
    try:
        return int(getattr(importlib.import_module(module), func)(rest) or 0)
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        raise
    except (OSError, errors.OpError, ValueError, LookupError) as e:
        # A user's file or argument the command did not anticipate: one line, not a
        # traceback (REF_TRACEBACK=1 shows it).
        if os.environ.get("REF_TRACEBACK"):
            raise
        message = getattr(e, "message", None) or (f"{e.filename}: {e.strerror}" if isinstance(e, OSError)
                                                  and e.filename and e.strerror else str(e))
        print(f"error: {' '.join(str(message).split())}", file=sys.stderr)
        return 1
    except ImportError as e:
        if "pip install" not in str(e) or os.environ.get("REF_TRACEBACK"):
            raise
        print(f"error: {' '.join(str(e).split())}", file=sys.stderr)
        return 1


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        status = _dispatch(argv)
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        # The reader went away (``python -m ref ... | head``): end quietly, as a
        # Unix tool does. Python would report the flush at exit too: point stdout
        # at /dev/null first.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
