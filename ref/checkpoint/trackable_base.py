"""The base classes of objects that checkpoints save (TF's ``trackable/base.py``
and ``trackable/resource.py``): ``Trackable`` and ``TrackableResource``.

A Trackable saves its own state one of two ways (TF's API notes on
``Trackable``): the TF2 way, ``_serialize_to_tensors()`` returning
``{local name: tensor}`` and ``_restore_from_tensors(tensors)`` taking the
same dict back; or the TF1 way, ``_gather_saveables_for_checkpoint()``
returning ``{local name: factory(name) -> SaveableObject}``. The base class
implements neither (its factories dict is empty);
``ref.checkpoint.saveable_object_util`` converts between the two.
"""
from __future__ import annotations

from ref.framework.graph import device

__all__ = ["Trackable", "CapturableResource", "TrackableResource"]


class Trackable:
    """An object with checkpointable state."""

    def _serialize_to_tensors(self):
        """``{local name: tensor (or {slice spec: tensor})}`` of this object's state."""
        raise NotImplementedError

    def _restore_from_tensors(self, restored_tensors):
        """Restores from the dict ``_serialize_to_tensors`` returned (values read back)."""
        raise NotImplementedError

    def _gather_saveables_for_checkpoint(self):
        """``{local name: SaveableObject factory}`` (TF1 Savers); none by default."""
        return {}


class CapturableResource(Trackable):
    """A resource whose handle is made on first use by ``_create_resource()`` on ``device``."""

    def __init__(self, device=""):
        self._resource_handle_value = None
        self._resource_device = device

    def _create_resource(self):
        """The resource handle tensor; subclasses define it."""
        raise NotImplementedError

    def _initialize(self):
        """Ops initializing the resource (none by default)."""

    def _destroy_resource(self):
        """Ops destroying the resource (none by default)."""

    @property
    def _resource_handle(self):
        return self._resource_handle_value

    @property
    def resource_handle(self):
        """The handle, created on first use."""
        if self._resource_handle_value is None:
            with device(self._resource_device):
                self._resource_handle_value = self._create_resource()
        return self._resource_handle_value


class TrackableResource(CapturableResource):
    """A CapturableResource checkpoints track (TF's ``tf.saved_model.experimental.TrackableResource``)."""
