"""Reading event files: ``tf.train.summary_iterator``.

(TF's API reference, ``tf.compat.v1.train.summary_iterator``): "It
returns a Python iterator that yields Event protocol buffers", and the same
iterator may be iterated again to "Continuously check for new summary values"
of a file still being written. So :func:`summary_iterator` follows the file:
an incomplete trailing record (one the writer has not finished) ends a pass
quietly and is read on a later pass. A record whose CRC does not match raises
``DataLossError`` naming the file and the record's byte offset. Use
:func:`ref.formats.tfrecord.tf_record_iterator` (strict) when a truncated tail
should be an error too.
"""
from __future__ import annotations

import os

from ref.types import errors
from ref.formats.tfrecord import RecordFollower
from ref import protos


_MAX_EVENT_BYTES = (1 << 31) - 1
"""An Event is a protobuf message, and protobuf messages stay under 2 GiB: a
record header claiming more is corrupt, reported at once (nothing allocated)."""


class EventFileReader:
    """Iterator of ``Event`` protos from one event file (see the module docstring).

    ``strict=True`` reports an incomplete trailing record as DataLossError
    instead of waiting for the rest of it.
    """

    def __init__(self, path, strict=False):
        self.path = os.fspath(path)
        self._records = RecordFollower(self.path, strict=strict, max_record_bytes=_MAX_EVENT_BYTES)
        self._parse = protos.event_pb2.Event.FromString
        self._taken = 0       # records taken from the file
        self._pending = []    # records taken, not yet parsed (last one first)

    def __iter__(self):
        """A generator over the events not yet returned; iterating this reader
        again later continues where the last pass stopped."""
        pending, parse, follower = self._pending, self._parse, self._records
        while True:
            while pending:
                record = pending.pop()
                try:
                    event = parse(record)
                except Exception as e:   # a record with valid CRCs that is not an Event
                    raise self._not_an_event(e) from e
                yield event
            batch = follower.next_batch()
            if not batch:
                return
            self._taken += len(batch)
            batch.reverse()
            pending.extend(batch)

    def __next__(self):
        pending = self._pending
        if not pending:
            batch = self._records.next_batch()
            if not batch:
                raise StopIteration
            self._taken += len(batch)
            batch.reverse()
            pending.extend(batch)
        record = pending.pop()
        try:
            return self._parse(record)
        except Exception as e:
            raise self._not_an_event(e) from e

    def _not_an_event(self, e) -> errors.DataLossError:
        index = self._taken - len(self._pending) - 1
        return errors.DataLossError(None, None, f"record {index} (counting from 0) of {self.path} "
                                                f"is not an Event proto: {e}")

    def close(self):
        self._records.close()


def summary_iterator(path) -> EventFileReader:
    """An iterator for reading ``Event`` protocol buffers from an event file.

    ``path``: the path to an event file created by a SummaryWriter/FileWriter.
    Iterating it again later yields the events appended since.
    """
    return EventFileReader(path)


__all__ = ["summary_iterator", "EventFileReader"]
