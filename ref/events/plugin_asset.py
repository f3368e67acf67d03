"""TensorBoard plugin assets: per-graph objects whose ``assets()`` a FileWriter
writes to ``<logdir>/plugins/<plugin_name>/`` when the graph is added, as TF's
``tensorflow.python.summary.plugin_asset``.

A graph keeps one instance per plugin in the collection
``__tensorboard_plugin_asset__<plugin_name>`` and the plugin names in
``__tensorboard_plugin_asset__``.
"""
from __future__ import annotations

import abc

from ref.framework.graph import get_default_graph

_PLUGIN_ASSET_PREFIX = "__tensorboard_plugin_asset__"

__all__ = ["PluginAsset", "get_plugin_asset", "get_all_plugin_assets"]


def get_plugin_asset(plugin_asset_cls, graph=None):
    """The graph's instance of ``plugin_asset_cls`` (created on first request).

    Raises:
      ValueError: if the class has no ``plugin_name``, or another class holds that name."""
    graph = graph or get_default_graph()
    if not plugin_asset_cls.plugin_name:
        raise ValueError("Class %s has no plugin_name" % plugin_asset_cls.__name__)
    name = _PLUGIN_ASSET_PREFIX + plugin_asset_cls.plugin_name
    held = graph.get_collection(name)
    if held:
        if len(held) != 1:
            raise ValueError("Collection for %s had %d items, expected 1" % (name, len(held)))
        if not isinstance(held[0], plugin_asset_cls):
            raise ValueError("Plugin name collision between classes %s and %s" %
                             (plugin_asset_cls.__name__, held[0].__class__.__name__))
        return held[0]
    instance = plugin_asset_cls()
    graph.add_to_collection(name, instance)
    graph.add_to_collection(_PLUGIN_ASSET_PREFIX, plugin_asset_cls.plugin_name)
    return instance


def get_all_plugin_assets(graph=None):
    """Every PluginAsset instance of ``graph``, in the order they were created."""
    graph = graph or get_default_graph()
    out = []
    for name in graph.get_collection(_PLUGIN_ASSET_PREFIX):
        held = graph.get_collection(_PLUGIN_ASSET_PREFIX + name)
        if len(held) != 1:
            raise ValueError("Collection for %s had %d items, expected 1" % (name, len(held)))
        out.append(held[0])
    return out


class PluginAsset(metaclass=abc.ABCMeta):
    """Assets of one TensorBoard plugin: set ``plugin_name``, implement ``assets()``
    (``{file name: contents}``)."""

    plugin_name = None

    @abc.abstractmethod
    def assets(self):
        """``{asset file name: contents (str or bytes)}``."""
        raise NotImplementedError()
