"""``python -m ref events PATH [PATH...]``: print the events in event files.

Each event is printed as in the seed's example loop (``summary_iterator``,
"Print selected summary values"): its step and wall time, then one line per
summary value with its tag and content (``simple_value``, a histogram's
count/min/max/sum, an image's size, an audio clip's length, a tensor's dtype
and shape). A directory stands for the ``events.out.tfevents.*`` files in it
and in its subdirectories (runs, as TensorBoard finds them). Reading is
strict: a corrupt or truncated record is reported once, on stderr, with the
file and byte offset, and the exit status is 1 (2 when a path does not exist).
"""
from __future__ import annotations

import argparse
import os
import sys

from ref.types import cli, dtypes, errors
from ref.protos import event_pb2
from ref.formats.event_reader import EventFileReader


def _event_files(path: str) -> list:
    """The event files under ``path`` (recursively, sorted), or ``[path]`` for a file."""
    if not os.path.isdir(path):
        return [path]
    found = []
    for root, dirs, files in os.walk(path):
        dirs.sort()
        found += sorted(os.path.join(root, f) for f in files if "tfevents" in f)
    return found


def _dtype_name(enum: int) -> str:
    try:
        return dtypes.as_dtype(enum).name
    except (TypeError, ValueError, KeyError):
        return f"DataType({enum})"


def _value_line(v) -> str:
    kind = v.WhichOneof("value")
    name = v.tag or v.node_name
    if kind == "simple_value":
        return f"  {name}: simple_value={v.simple_value!r}"
    if kind == "histo":
        h = v.histo
        return (f"  {name}: histo num={h.num:g} min={h.min!r} max={h.max!r} sum={h.sum!r} "
                f"sum_squares={h.sum_squares!r} buckets={len(h.bucket)}")
    if kind == "image":
        i = v.image
        return (f"  {name}: image {i.height}x{i.width}x{i.colorspace} "
                f"({len(i.encoded_image_string)} bytes PNG)")
    if kind == "audio":
        a = v.audio
        return (f"  {name}: audio {a.length_frames} frames x {a.num_channels} channels "
                f"at {a.sample_rate:g} Hz ({a.content_type}, {len(a.encoded_audio_string)} bytes)")
    if kind == "tensor":
        t = v.tensor
        dims = ",".join(str(d.size) for d in t.tensor_shape.dim)
        plugin = v.metadata.plugin_data.plugin_name
        shown = f" {list(t.string_val)!r}" if t.string_val else ""
        return f"  {name}: tensor dtype={_dtype_name(t.dtype)} shape=[{dims}]" + (f" plugin={plugin}" if plugin else "") + shown
    if kind == "obsolete_old_style_histogram":
        return f"  {name}: old-style histogram"
    return f"  {name}: (no value)"


def format_event(e) -> list:
    """The printed lines for one Event."""
    head = f"step={e.step} wall_time={e.wall_time:.6f}"
    what = e.WhichOneof("what")
    if what == "summary":
        return [f"{head} summary ({len(e.summary.value)} values)"] + [_value_line(v) for v in e.summary.value]
    if what == "file_version":
        return [f"{head} file_version={e.file_version}"]
    if what in ("graph_def", "meta_graph_def"):
        return [f"{head} {what} ({len(getattr(e, what))} bytes)"]
    if what == "session_log":
        s = e.session_log
        line = f"{head} session_log status={event_pb2.SessionLog.SessionStatus.Name(s.status)}"
        if s.checkpoint_path:
            line += f" checkpoint_path={s.checkpoint_path}"
        if s.msg:
            line += f" msg={s.msg!r}"
        return [line]
    if what == "tagged_run_metadata":
        t = e.tagged_run_metadata
        return [f"{head} tagged_run_metadata tag={t.tag} ({len(t.run_metadata)} bytes)"]
    if what == "log_message":
        return [f"{head} log_message level={e.log_message.level} {e.log_message.message!r}"]
    return [f"{head} (empty event)"]


def main(argv=None, out=None) -> int:
    """Prints every event of the given files; returns the exit status."""
    out = out or sys.stdout
    parser = cli.Parser(prog="python -m ref events",
                                     description="Print the events in TensorFlow event files.")
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="event file, or log directory (searched recursively)")
    args = parser.parse_args(argv)
    status = 0
    for given in args.paths:
        if not os.path.exists(given):
            print(f"error: {given}: no such file or directory", file=sys.stderr)
            status = max(status, 2)
            continue
        files = _event_files(given)
        if not files:
            print(f"error: {given}: no event files (events.out.tfevents.*) in it or below it", file=sys.stderr)
            status = max(status, 1)
        for path in files:
            print(f"== {path}", file=out)
            n = 0
            try:
                for event in EventFileReader(path, strict=True):
                    for line in format_event(event):
                        print(line, file=out)
                    n += 1
            except (errors.DataLossError, OSError) as e:
                message = getattr(e, "message", None) or f"{path}: {e.strerror or e}"
                print(f"error: {message} (after {n} events)", file=sys.stderr)
                status = max(status, 1)
                continue
            print(f"({n} events)", file=out)
    return status


if __name__ == "__main__":
    sys.exit(main())
