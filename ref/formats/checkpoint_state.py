"""The ``checkpoint`` state file and the checkpoint-file helpers of
``tf.compat.v1.train`` (TF's API reference: generate_checkpoint_state_proto,
update_checkpoint_state, get_checkpoint_state, latest_checkpoint,
checkpoint_exists, get_checkpoint_mtimes, remove_checkpoint).

The state file is a text-format ``CheckpointState`` proto::

    model_checkpoint_path: "model.ckpt-2"
    all_model_checkpoint_paths: "model.ckpt-1"
    all_model_checkpoint_paths: "model.ckpt-2"

A V2 checkpoint ``P`` exists when ``P.index`` does; a V1 checkpoint is the file
``P`` itself, or for a sharded V1 save the files matching ``P`` when it ends in
``-?????-of-NNNNN``. Nowhere else is a prefix a pattern: ``*``, ``?`` and
``[`` in checkpoint names are escaped (``glob.escape``) wherever a prefix
becomes a pattern, so ``model[1]`` never matches, or deletes, ``model1``.

Untrusted state files: a damaged state file (unreadable, not a
``CheckpointState``) is logged as a warning naming it, so a restarted trainer
does not silently start from scratch; entries that point outside the
checkpoint directory are logged too, and :func:`remove_checkpoint_in` never
deletes outside the directory it is given.

:func:`publish_checkpoint` moves a checkpoint saved under a staging prefix
onto its final prefix while the state file names the staging copy (the
Saver's crash-safe overwrite of a fixed prefix).
"""
from __future__ import annotations

import glob as _glob
import os
import re
import shutil
import signal
import uuid
from ref import protos
from ref.platform import tf_logging

_log = tf_logging  # warnings where TF puts its own: the "tensorflow" logger


# SaverDef.CheckpointFormatVersion (saver.proto)
LEGACY, V1, V2 = 0, 1, 2


def _pb():
    return protos.checkpoint_state_pb2


def _text_format():
    return protos.text_format


def _get_matching_files(pattern: str) -> list[str]:
    return sorted(_glob.glob(pattern))


_V1_SHARDS = re.compile(r"-\?{5}-of-(?:\d{5}|\?{5})$")


def _v1_pattern(prefix: str) -> str:
    """The glob pattern of a V1 checkpoint: ``prefix`` escaped, except for a
    trailing ``-?????-of-NNNNN`` or ``-?????-of-?????`` shard pattern (sharded
    V1 saves; TF's saver tests restore from the latter)."""
    m = _V1_SHARDS.search(prefix)
    if m:
        return _glob.escape(prefix[:m.start()]) + m.group(0)
    return _glob.escape(prefix)


def _checkpoint_files(prefix: str, format_version: int) -> list[str]:
    """The existing files whose presence says checkpoint ``prefix`` exists."""
    if format_version == V2:
        index = prefix + ".index"
        return [index] if os.path.exists(index) else []
    return _get_matching_files(_v1_pattern(prefix))


def _checkpoint_filename(save_dir: str, latest_filename: str | None) -> str:
    return os.path.join(save_dir, latest_filename or "checkpoint")


def prefix_to_checkpoint_path(prefix: str, format_version: int = V2) -> str:
    """The file whose presence says a checkpoint exists: ``P.index`` (V2) or ``P`` (V1)."""
    return prefix + ".index" if format_version == V2 else prefix


def meta_graph_filename(checkpoint_filename: str, meta_graph_suffix: str = "meta") -> str:
    """``model.ckpt-3-00000-of-00002`` -> ``model.ckpt-3.meta``."""
    basename = re.sub(r"-[\d\?]+-of-\d+$", "", checkpoint_filename)
    return ".".join([basename, meta_graph_suffix])


def generate_checkpoint_state_proto(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                                    all_model_checkpoint_timestamps=None, last_preserved_timestamp=None):
    """Generates a checkpoint state proto.

    ``model_checkpoint_path`` is appended to ``all_model_checkpoint_paths``
    unless it is already the last element. When ``save_dir`` is relative,
    relative paths are rewritten relative to ``save_dir``; absolute paths are
    kept. As TF, the path is appended to the caller's list itself.

    Raises:
      ValueError: if ``all_model_checkpoint_timestamps`` was provided but its
        length does not match ``all_model_checkpoint_paths``.
    """
    save_dir = os.fspath(save_dir)
    model_checkpoint_path = os.fspath(model_checkpoint_path)
    if all_model_checkpoint_paths is None:
        all_model_checkpoint_paths = []
    if not all_model_checkpoint_paths or os.fspath(all_model_checkpoint_paths[-1]) != model_checkpoint_path:
        all_model_checkpoint_paths.append(model_checkpoint_path)  # in the caller's list, as TF
    paths = [os.fspath(p) for p in all_model_checkpoint_paths]
    if all_model_checkpoint_timestamps and len(all_model_checkpoint_timestamps) != len(paths):
        raise ValueError("Checkpoint timestamps, if provided, must match checkpoint paths (got paths "
                         f"{paths} and timestamps {list(all_model_checkpoint_timestamps)})")
    if not os.path.isabs(save_dir):
        if not os.path.isabs(model_checkpoint_path):
            model_checkpoint_path = os.path.relpath(model_checkpoint_path, save_dir)
        paths = [p if os.path.isabs(p) else os.path.relpath(p, save_dir) for p in paths]
    return _pb().CheckpointState(
        model_checkpoint_path=model_checkpoint_path,
        all_model_checkpoint_paths=paths,
        all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
        last_preserved_timestamp=last_preserved_timestamp)


def atomic_write_string_to_file(filename: str, contents, fsync: bool = False) -> None:
    """Writes ``contents`` to a temporary file and renames it onto ``filename``."""
    data = contents.encode() if isinstance(contents, str) else bytes(contents)
    tmp = f"{filename}.tmp{uuid.uuid4().hex}"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            if fsync:
                f.flush()
                os.fsync(f.fileno())
        crash_point("atomic_rename")
        os.replace(tmp, filename)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                            latest_filename=None, all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None):
    """Updates the content of the 'checkpoint' file (written atomically).

    Raises:
      RuntimeError: if a model checkpoint path is the state file itself.
    """
    update_checkpoint_state_internal(
        save_dir, model_checkpoint_path, all_model_checkpoint_paths, latest_filename,
        save_relative_paths=False, all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
        last_preserved_timestamp=last_preserved_timestamp)


def update_checkpoint_state_internal(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                                     latest_filename=None, save_relative_paths=False,
                                     all_model_checkpoint_timestamps=None, last_preserved_timestamp=None):
    """``update_checkpoint_state`` plus the Saver's ``save_relative_paths``:
    absolute paths under ``save_dir`` are written relative to it, so the
    directory can be moved."""
    save_dir = os.fspath(save_dir)
    model_checkpoint_path = os.fspath(model_checkpoint_path)
    filename = _checkpoint_filename(save_dir, latest_filename)
    if save_relative_paths:
        def rel(p):
            p = os.fspath(p)
            return os.path.relpath(p, save_dir) if os.path.isabs(p) else p
        model_checkpoint_path = rel(model_checkpoint_path)
        all_model_checkpoint_paths = [rel(p) for p in (all_model_checkpoint_paths or [])]
    ckpt = generate_checkpoint_state_proto(
        save_dir, model_checkpoint_path, all_model_checkpoint_paths=all_model_checkpoint_paths,
        all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
        last_preserved_timestamp=last_preserved_timestamp)
    if filename == ckpt.model_checkpoint_path:
        raise RuntimeError(f"Save path '{model_checkpoint_path}' conflicts with path used for checkpoint "
                           "state.  Please use a different save path.")
    atomic_write_string_to_file(filename, _text_format().MessageToString(ckpt))


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """Returns CheckpointState proto from the "checkpoint" file.

    Relative paths in the file are joined to ``checkpoint_dir``. Returns None
    when the file is missing or does not parse; raises ValueError when it
    parses but has no ``model_checkpoint_path``."""
    checkpoint_dir = os.fspath(checkpoint_dir)
    filename = _checkpoint_filename(checkpoint_dir, latest_filename)
    if not os.path.isfile(filename):
        return None
    try:
        with open(filename, "rb") as f:
            content = f.read().decode("utf-8")
        ckpt = _pb().CheckpointState()
        _text_format().Merge(content, ckpt)
    except (OSError, UnicodeDecodeError, _text_format().ParseError) as e:
        _log.warning("Checkpoint state file %s is damaged and is ignored (%s): no checkpoint will be found "
                     "in %s through it", filename, e, checkpoint_dir)
        return None
    if ckpt.model_checkpoint_path:
        recover_prefix(os.path.join(checkpoint_dir, ckpt.model_checkpoint_path))
    if not ckpt.model_checkpoint_path:
        _log.warning("Checkpoint state file %s names no model_checkpoint_path", filename)
        raise ValueError("Invalid checkpoint state loaded from " + checkpoint_dir)
    if not os.path.isabs(ckpt.model_checkpoint_path):
        ckpt.model_checkpoint_path = os.path.join(checkpoint_dir, ckpt.model_checkpoint_path)
    for i, p in enumerate(ckpt.all_model_checkpoint_paths):
        if not os.path.isabs(p):
            ckpt.all_model_checkpoint_paths[i] = os.path.join(checkpoint_dir, p)
    outside = [p for p in [ckpt.model_checkpoint_path, *ckpt.all_model_checkpoint_paths]
               if not is_inside(p, checkpoint_dir)]
    if outside:
        _log.warning("Checkpoint state file %s names checkpoints outside %s: %s; they are never deleted by "
                     "max_to_keep", filename, checkpoint_dir, ", ".join(sorted(set(outside))))
    return ckpt


def is_inside(checkpoint_prefix, directory) -> bool:
    """True when checkpoint ``checkpoint_prefix``'s files lie in ``directory``
    or below it (symbolic links and ``..`` resolved)."""
    parent = os.path.realpath(os.path.dirname(os.path.abspath(os.fspath(checkpoint_prefix))))
    root = os.path.realpath(os.path.abspath(os.fspath(directory) or "."))
    return parent == root or parent.startswith(root.rstrip(os.sep) + os.sep)


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """Finds the filename of latest saved checkpoint file: the state file's
    ``model_checkpoint_path`` if a V2 or V1 checkpoint exists there, else None."""
    ckpt = get_checkpoint_state(checkpoint_dir, latest_filename)
    if ckpt and ckpt.model_checkpoint_path:
        path = ckpt.model_checkpoint_path
        recover_prefix(path)
        if _checkpoint_files(path, V2) or _checkpoint_files(path, V1):
            return path
        _log.warning("Checkpoint state file %s names %s, which does not exist",
                     _checkpoint_filename(os.fspath(checkpoint_dir), latest_filename), path)
    return None


def checkpoint_exists(checkpoint_prefix) -> bool:
    """Checks whether a V1 or V2 checkpoint exists with the specified prefix."""
    checkpoint_prefix = os.fspath(checkpoint_prefix)
    recover_prefix(checkpoint_prefix)
    return bool(_checkpoint_files(checkpoint_prefix, V2) or _checkpoint_files(checkpoint_prefix, V1))


def get_checkpoint_mtimes(checkpoint_prefixes) -> list[float]:
    """Modification times (whole seconds since the Epoch, as TF returns them) of the
    checkpoints that exist, V2 index first, else the V1 file. Missing ones are
    skipped, so the result may be shorter than ``checkpoint_prefixes``."""
    mtimes = []
    for prefix in checkpoint_prefixes:
        prefix = os.fspath(prefix)
        for version in (V2, V1):
            names = _checkpoint_files(prefix, version)
            if names:
                # TF's POSIX stat keeps whole seconds (mtime_nsec = st_mtime * 1e9)
                mtimes.append(float(int(os.stat(names[0]).st_mtime)))
                break
    return mtimes


def _delete_file_if_exists(filespec: str) -> None:
    for path in _get_matching_files(filespec):
        try:
            os.remove(path)
        except FileNotFoundError:
            pass


def remove_checkpoint(checkpoint_prefix, checkpoint_format_version=V2, meta_graph_suffix="meta") -> None:
    """Removes a checkpoint given by checkpoint_prefix: its meta graph file,
    then ``P.index`` and ``P.data-?????-of-?????`` (V2) or the file ``P`` (V1).
    ``P`` is never a pattern: ``*?[`` in it match only themselves.
    ``meta_graph_suffix=None`` leaves meta graphs alone (``CheckpointManager``'s
    sweep deletes only the bundle, as TF's does)."""
    checkpoint_prefix = os.fspath(checkpoint_prefix)
    if meta_graph_suffix is not None:
        _delete_file_if_exists(_glob.escape(meta_graph_filename(checkpoint_prefix, meta_graph_suffix)))
    if checkpoint_format_version == V2:
        _delete_file_if_exists(_glob.escape(checkpoint_prefix + ".index"))
        _delete_file_if_exists(_glob.escape(checkpoint_prefix) + ".data-?????-of-?????")
    else:
        _delete_file_if_exists(_v1_pattern(checkpoint_prefix))


def remove_checkpoint_in(directory, checkpoint_prefix, checkpoint_format_version=V2,
                         meta_graph_suffix="meta") -> bool:
    """:func:`remove_checkpoint`, confined: a checkpoint outside ``directory``
    (a state file entry such as ``../elsewhere/model``) is left alone with a
    warning. Returns whether it was removed."""
    if not is_inside(checkpoint_prefix, directory):
        _log.warning("Not deleting checkpoint %s: it is outside the checkpoint directory %s",
                     checkpoint_prefix, directory)
        return False
    remove_checkpoint(checkpoint_prefix, checkpoint_format_version, meta_graph_suffix)
    return True


def staging_prefix(checkpoint_prefix: str) -> str:
    """A fresh prefix to save under before :func:`publish_checkpoint`: the same
    base name in a new directory beside it, ``P.tempstate<hex>/model-3`` for
    ``P = dir/model-3`` (TF's temporary-file tag). The state file never names
    it."""
    return os.path.join(f"{checkpoint_prefix}.tempstate{uuid.uuid4().hex}", os.path.basename(checkpoint_prefix))


_COMMIT = "COMMITTED"  # in a staging directory: its checkpoint is complete; the names to publish


def _staged_files(staging: str, meta_graph_suffix: str) -> list[str]:
    """The files of checkpoint ``staging``: data shards, then the index, then the meta graph."""
    files = _get_matching_files(_glob.escape(staging) + ".data-?????-of-?????")
    files += [f for f in (staging + ".index", meta_graph_filename(staging, meta_graph_suffix))
              if os.path.exists(f)]
    return files


def crash_point(name: str) -> None:
    """A named step of a checkpoint write, for fault injection: the process
    SIGKILLs itself here when the environment variable ``REF_CRASH_AT`` is
    ``name`` (the first time) or ``name#n`` (the n-th time, from 1), or when
    ``crash_point.hook`` (a test's callable) is set and returns True for it."""
    hook = crash_point.hook
    spec = os.environ.get("REF_CRASH_AT")
    if hook is None and not spec:
        return
    counts = crash_point.counts
    counts[name] = counts.get(name, 0) + 1
    hit = hook is not None and hook(name)
    if spec:
        want, _, nth = spec.partition("#")
        hit = hit or (want == name and counts[name] == int(nth or 1))
    if hit:
        os.kill(os.getpid(), signal.SIGKILL)


crash_point.hook = None
crash_point.counts = {}


def commit_staging(staging: str, meta_graph_suffix: str = "meta", fsync: bool = False) -> None:
    """Marks complete checkpoint ``staging`` as committed to its final prefix:
    from here on a crash is finished forward by :func:`recover_prefix`."""
    names = [os.path.basename(f) for f in _staged_files(staging, meta_graph_suffix)]
    crash_point("commit_staging")
    atomic_write_string_to_file(os.path.join(os.path.dirname(staging), _COMMIT), "\n".join(names) + "\n",
                                fsync=fsync)
    if fsync:
        fsync_dir(staging)


def publish_checkpoint(staging: str, final: str, meta_graph_suffix: str = "meta", fsync: bool = False) -> None:
    """Gives committed checkpoint ``staging``'s files the names of ``final``:
    each file is hard-linked (copied where links are not supported) to a
    temporary name and renamed onto its final name, data shards first, the
    index, then the meta graph. ``staging`` stays complete throughout, so a
    crash part way is finished by :func:`recover_prefix`."""
    _publish(os.path.dirname(staging), [os.path.basename(f) for f in _staged_files(staging, meta_graph_suffix)],
             final, fsync)


def _publish(staging_dir, names, final, fsync):
    base = os.path.basename(final)
    for name in names:
        src = os.path.join(staging_dir, name)
        dst = final + name[len(base):]
        tmp = f"{dst}.tempstate{uuid.uuid4().hex}"
        crash_point("publish_file")
        try:
            try:
                os.link(src, tmp)
            except FileNotFoundError:
                continue  # published and discarded by another process meanwhile
            except OSError:
                shutil.copyfile(src, tmp)
            crash_point("publish_rename")
            os.replace(tmp, dst)
        except BaseException:
            try:
                os.remove(tmp)
            except OSError:
                pass
            raise
    if fsync:
        fsync_dir(final)


def discard_staging(staging: str, meta_graph_suffix: str = "meta") -> None:
    """Deletes a published staging checkpoint: its commit mark first, then its
    files and its directory."""
    directory = os.path.dirname(staging)
    crash_point("discard_staging")
    for f in [os.path.join(directory, _COMMIT)] + _staged_files(staging, meta_graph_suffix):
        try:
            os.remove(f)
        except FileNotFoundError:
            pass
    try:
        os.rmdir(directory)
    except OSError:
        pass


def recover_prefix(checkpoint_prefix: str) -> None:
    """Finishes a publish of ``checkpoint_prefix`` that a crash interrupted:
    each committed staging directory ``P.tempstate<hex>`` is published onto
    ``P`` again (idempotent) and discarded. Uncommitted staging directories
    are left alone (a save still writing, or one that died before its commit:
    ``P`` is still the old checkpoint either way)."""
    checkpoint_prefix = os.fspath(checkpoint_prefix)
    for directory in _get_matching_files(_glob.escape(checkpoint_prefix) + ".tempstate*"):
        mark = os.path.join(directory, _COMMIT)
        try:
            with open(mark) as f:
                names = [n for n in f.read().split("\n") if n]
        except (FileNotFoundError, NotADirectoryError):
            continue
        _publish(directory, names, checkpoint_prefix, fsync=False)
        for name in [_COMMIT] + names:
            try:
                os.remove(os.path.join(directory, name))
            except FileNotFoundError:
                pass
        try:
            os.rmdir(directory)
        except OSError:
            pass


def fsync_dir(path: str) -> None:
    """Flushes the directory entry of ``path`` (a rename or a new file in it) to disk."""
    try:
        fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


__all__ = ["generate_checkpoint_state_proto", "update_checkpoint_state", "update_checkpoint_state_internal",
           "get_checkpoint_state", "latest_checkpoint", "checkpoint_exists", "get_checkpoint_mtimes",
           "remove_checkpoint", "meta_graph_filename", "atomic_write_string_to_file", "remove_checkpoint_in",
           "is_inside", "staging_prefix", "commit_staging", "publish_checkpoint", "discard_staging",
           "recover_prefix", "crash_point", "fsync_dir"]
