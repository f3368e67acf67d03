"""Golden vectors for testing other implementations against ``ref``.

    >>> import ref.golden as golden
    >>> g = golden.generate("adam", steps=3, seed=0)   # Adam trajectories, float32
    >>> npz, manifest = g.save("golden/")               # doctest: +SKIP
    >>> report = golden.compare(g, actual)              # doctest: +SKIP

See docs/golden.md for the file format, the implementation protocols and the
diagnosis of formula variants.
"""
from ref.golden.compare import Report, compare
from ref.golden.generate import Golden, generate, load
from ref.golden.impl import run_impl
from ref.golden.variants import diagnose

__all__ = ["Golden", "Report", "compare", "diagnose", "generate", "load", "run_impl"]
