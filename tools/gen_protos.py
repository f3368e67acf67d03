"""Regenerate ``ref/protos/*_pb2.py`` from the ``.proto`` sources next to them.

    python tools/gen_protos.py             # rewrite the checked-in modules
    python tools/gen_protos.py --out DIR   # write DIR/ref/protos/*_pb2.py instead

Equivalent to ``python -m grpc_tools.protoc -I. --python_out=. ref/protos/*.proto``
run from the repository root. The generated code depends on the protoc version:
use the pinned ``grpcio-tools`` (see pyproject's ``test`` extra) so that the output
is byte-identical to the checked-in files (``tests/test_protos.py`` checks it).
"""

from __future__ import annotations

import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTO_DIR = ROOT / "ref" / "protos"


def proto_files() -> list[str]:
    """The ``.proto`` sources as protoc paths relative to the repository root."""
    return sorted(p.relative_to(ROOT).as_posix() for p in PROTO_DIR.glob("*.proto"))


def generate(out: pathlib.Path | str = ROOT) -> list[pathlib.Path]:
    """Compile every ``ref/protos/*.proto`` into ``out/ref/protos/*_pb2.py``.

    Returns the written paths; raises RuntimeError when protoc fails.
    """
    from importlib import resources

    from grpc_tools import protoc

    out = pathlib.Path(out)
    (out / "ref" / "protos").mkdir(parents=True, exist_ok=True)
    well_known = resources.files("grpc_tools") / "_proto"  # google/protobuf/*.proto
    files = proto_files()
    args = ["protoc", f"-I{ROOT}", f"-I{well_known}", f"--python_out={out}"]
    args += [str(ROOT / f) for f in files]
    if protoc.main(args) != 0:
        raise RuntimeError(f"protoc failed: {' '.join(args)}")
    return [out / f.replace(".proto", "_pb2.py") for f in files]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT),
                        help="root directory receiving ref/protos/*_pb2.py (default: the repository)")
    args = parser.parse_args(argv)
    for path in generate(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
