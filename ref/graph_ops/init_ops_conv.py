"""Orthogonal initializers for convolution kernels (TF's ``init_ops``
``ConvolutionDeltaOrthogonal`` and ``ConvolutionOrthogonal1D/2D/3D``; Xiao et
al., "Dynamical Isometry and a Mean Field Theory of CNNs", 2018).

* **Delta orthogonal**: a ``[k.., cin, cout]`` kernel, zero but at the spatial
  centre ``(k - 1) // 2`` of each axis, which holds the first ``cin`` rows of
  a random ``cout x cout`` orthogonal matrix times ``gain``.
* **Orthogonal N-D** (N = 1, 2, 3; equal kernel sizes ``k``): start from the
  block ``B[e] = prod_i (P_i if e_i == 0 else I - P_i)`` (3-D: the reverse) over ``e`` in
  ``{0, 1}^N`` for N random symmetric projections ``P_i = C C^T`` (``C`` an
  orthogonal matrix with random columns zeroed); convolve ``k - 2`` further
  such blocks in (``R[i] = sum_{a + b = i} M1[a] M2[b]``); every entry is then
  left-multiplied by the first ``cin`` rows of an orthogonal matrix. Each random
  draw moves a set seed on by one, as TF's.

Orthogonal matrices: QR of a normal matrix, columns signed by ``diag(R)``.
"""
from __future__ import annotations

import itertools

from ref.types import dtypes
from ref.framework.op_def_library import apply_op
from ref.graph_ops import array_ops, math_ops
from ref.graph_ops.init_ops import Initializer, _assert_float_dtype, _shape_list, random_normal
from ref.graph_ops.linalg_ops import diag_part, matrix_diag, matrix_transpose

__all__ = ["ConvolutionDeltaOrthogonal", "ConvolutionOrthogonal", "ConvolutionOrthogonal1D",
           "ConvolutionOrthogonal2D", "ConvolutionOrthogonal3D", "convolutional_delta_orthogonal",
           "convolutional_orthogonal_1d", "convolutional_orthogonal_2d", "convolutional_orthogonal_3d"]


def _signed_q(a):
    q, r = apply_op("Qr", input=a, full_matrices=False)
    return q * math_ops.sign(diag_part(r))


def _check_filters(shape):
    if shape[-2] > shape[-1]:
        raise ValueError(f"In_filters, specified by shape[-2]={shape[-2]} cannot be greater than out_filters, "
                         f"specified by shape[-1]={shape[-1]}.")


class ConvolutionDeltaOrthogonal(Initializer):
    """A kernel of rank 3 to 5, orthogonal at its spatial centre, zero elsewhere."""

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        self.gain = gain
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))
        self.seed = seed

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtypes.as_dtype(self.dtype if dtype is None else dtype)
        shape = _shape_list(shape)
        if len(shape) < 3 or len(shape) > 5:
            raise ValueError("The tensor to initialize, specified by argument `shape` must be at least "
                             f"three-dimensional and at most five-dimensional. Received shape={shape}")
        _check_filters(shape)
        q = _signed_q(random_normal([shape[-1], shape[-1]], dtype=dtype, seed=self.seed))
        q = q[:shape[-2], :]
        q *= math_ops.cast(self.gain, dtype=dtype)
        centre = [[(k - 1) // 2 for k in shape[:-2]]]
        return array_ops.scatter_nd(centre, array_ops.expand_dims(q, 0), shape)

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


class ConvolutionOrthogonal(Initializer):
    """Base of the N-D orthogonal convolution initializers (module docstring)."""

    rank = None  # spatial dimensions
    _projection_bit = 0  # the block index of P (the other holds I - P)

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        self.gain = gain
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))
        self.seed = seed

    def __call__(self, shape, dtype=None, partition_info=None):
        if self.rank is None:
            raise NotImplementedError
        dtype = dtypes.as_dtype(self.dtype if dtype is None else dtype)
        shape = _shape_list(shape)
        n = self.rank
        if len(shape) != n + 2:
            words = {1: "three", 2: "four", 3: "five"}[n]
            raise ValueError(f"The tensor to initialize, specified by argument `shape` must be {words}-dimensional. "
                             f"Received shape={shape}")
        _check_filters(shape)
        if len(set(shape[:n])) != 1:
            raise ValueError(f"Kernel sizes, specified by {', '.join(f'shape[{i}]={shape[i]}' for i in range(n))} "
                             "must be equal.")
        kernel = self._orthogonal_kernel(shape[0], shape[-2], shape[-1])
        kernel *= math_ops.cast(self.gain, dtype=dtype)
        return kernel

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}

    def _next_seed(self):
        if self.seed:
            self.seed += 1

    def _orthogonal_matrix(self, n):
        a = random_normal([n, n], dtype=self.dtype, seed=self.seed)
        self._next_seed()
        return _signed_q(a)

    def _symmetric_projection(self, n):
        q = self._orthogonal_matrix(n)
        mask = math_ops.cast(random_normal([n], seed=self.seed) > 0, self.dtype)
        self._next_seed()
        c = math_ops.multiply(q, mask)
        return math_ops.matmul(c, matrix_transpose(c))

    def _block(self, n):
        projections = [self._symmetric_projection(n) for _ in range(self.rank)]
        eye = _eye(n, self.dtype)
        block = {}
        for e in itertools.product((0, 1), repeat=self.rank):
            factors = [p if bit == self._projection_bit else eye - p for bit, p in zip(e, projections)]
            acc = factors[0]
            for f in factors[1:]:
                acc = math_ops.matmul(acc, f)
            block[e] = acc
        return block

    def _convolve(self, m1, m2, n):
        k = round(len(m1) ** (1 / self.rank))
        size = k + 1
        out = {}
        for idx in itertools.product(range(size), repeat=self.rank):
            acc = array_ops.zeros([n, n], self.dtype)
            for a in itertools.product(*[range(min(k, i + 1)) for i in idx]):
                b = tuple(i - j for i, j in zip(idx, a))
                if all(x < 2 for x in b):
                    acc += math_ops.matmul(m1[a], m2[b])
            out[idx] = acc
        return out

    def _orthogonal_kernel(self, ksize, cin, cout):
        if cin > cout:
            raise ValueError(f"The number of input channels (cin={cin}) cannot exceed the number of output "
                             f"channels (cout={cout}).")
        orth = self._orthogonal_matrix(cout)[0:cin, :]
        if ksize == 1:
            out = orth
            for _ in range(self.rank):
                out = array_ops.expand_dims(out, 0)
            return out
        p = self._block(cout)
        for _ in range(ksize - 2):
            p = self._convolve(p, self._block(cout), cout)
        p = {idx: math_ops.matmul(orth, m) for idx, m in p.items()}

        def nest(prefix):
            if len(prefix) == self.rank:
                return p[prefix]
            return array_ops.stack([nest(prefix + (i,)) for i in range(ksize)])
        return nest(())


def _eye(n, dtype):
    return matrix_diag(array_ops.ones([n], dtype))


class ConvolutionOrthogonal1D(ConvolutionOrthogonal):
    """A ``[k, cin, cout]`` orthogonal convolution kernel."""
    rank = 1


class ConvolutionOrthogonal2D(ConvolutionOrthogonal):
    """A ``[k, k, cin, cout]`` orthogonal convolution kernel."""
    rank = 2


class ConvolutionOrthogonal3D(ConvolutionOrthogonal):
    """A ``[k, k, k, cin, cout]`` orthogonal convolution kernel (TF's 3-D block
    puts ``I - P`` at index 0 and ``P`` at 1, the 1-D/2-D ones the reverse)."""
    rank = 3
    _projection_bit = 1


convolutional_delta_orthogonal = ConvolutionDeltaOrthogonal
convolutional_orthogonal_1d = ConvolutionOrthogonal1D
convolutional_orthogonal_2d = ConvolutionOrthogonal2D
convolutional_orthogonal_3d = ConvolutionOrthogonal3D
