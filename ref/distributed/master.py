"""``MasterService`` (placeholder): the real master is being written on another branch.

Only the constructor and the method names of the contract are here, so that
``ref.distributed.server`` imports; every RPC answers UnimplementedError.
"""
from __future__ import annotations

from ref.types import errors

__all__ = ["Master"]


class Master:
    """The MasterService of a task (not merged yet: every method raises UnimplementedError)."""

    def __init__(self, server_def, local_worker=None, connect_worker=None):
        self.server_def = server_def
        self.local_worker = local_worker
        self.connect_worker = connect_worker

    def _unimplemented(self, request, timeout=None):
        raise errors.UnimplementedError(None, None, "master not merged yet")

    CreateSession = ExtendSession = RunStep = CloseSession = ListDevices = Reset = _unimplemented
    PartialRunSetup = MakeCallable = RunCallable = ReleaseCallable = _unimplemented

    def close(self):
        pass
