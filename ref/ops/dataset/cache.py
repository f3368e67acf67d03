"""``Dataset.cache(filename)``: TensorFlow's on-disk cache format.

The first complete walk writes every element into a tensor bundle (the V2
checkpoint format, :mod:`ref.formats.bundle`) at ``filename``: component
``j`` of element ``i`` under the key ``"%7d_%d" % (i, j)``, as TF's
CacheDataset names them, so TF reads a cache ref wrote and ref one TF
wrote. While a walk writes, ``filename + "_0.lockfile"`` (contents
``Created at: <seconds>``) marks the cache busy: a second writer fails with
TF's ``AlreadyExistsError``. The index appears only when the walk reaches the
end; a walk abandoned part-way (the iterator re-initialized, the session
closed) discards what it wrote and its lockfile, as TF does, so a truncated
cache is never read. Later walks, in any session, read the bundle.
"""
from __future__ import annotations

import os
import time

from ref.formats.bundle import BundleReader, BundleWriter, meta_filename
from ref.types import errors


def _key(i, j):
    return "%7d_%d" % (i, j)


def lockfile(filename):
    return f"{filename}_0.lockfile"


def read_elements(filename, n_components):
    reader = BundleReader(filename)
    i = 0
    while reader.contains(_key(i, 0)):
        yield tuple(reader.lookup(_key(i, j)) for j in range(n_components))
        i += 1


def write_elements(filename, elements, output_types):
    """Yields ``elements`` while writing them to the cache at ``filename``."""
    lock = lockfile(filename)
    if os.path.exists(lock):
        with open(lock) as f:
            contents = f.read()
        raise errors.AlreadyExistsError(
            None, None, f"There appears to be a concurrent caching iterator running - cache lockfile already "
                        f"exists ('{lock}'). If you are sure no other running TF computations are using this cache "
                        f"prefix, delete the lockfile and re-initialize the iterator. Lockfile contents: {contents}")
    directory = os.path.dirname(filename)
    if directory and not os.path.isdir(directory):
        raise errors.NotFoundError(None, None, f"Failed to create file {lock}: the directory {directory} does not "
                                               f"exist")
    with open(lock, "w") as f:
        f.write(f"Created at: {int(time.time())}")
    writer = BundleWriter(filename)
    done = False
    try:
        for i, elem in enumerate(elements):
            for j, (value, dtype) in enumerate(zip(elem, output_types)):
                writer.add(_key(i, j), value, dtype=dtype)
            yield elem
        writer.finish()
        done = True
    finally:
        if not done:
            writer.abandon()
        try:
            os.remove(lock)
        except FileNotFoundError:
            pass


def elements(filename, input_elements, output_types):
    """A walk over the cached dataset: read the cache if complete, else write it."""
    if os.path.exists(meta_filename(filename)):
        return read_elements(filename, len(output_types))
    return write_elements(filename, input_elements, output_types)
