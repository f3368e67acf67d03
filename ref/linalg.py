"""``tf.linalg``: the linear-algebra functions under their tf.linalg names."""
from ref.graph_ops.linalg_ops import cholesky, eigh, eigvalsh, inv  # noqa: F401
from ref.graph_ops.linalg_ops import adjoint, einsum, matrix_transpose, qr, svd  # noqa: F401
from ref.graph_ops.linalg_ops import tensor_diag, tensor_diag_part  # noqa: F401
from ref.graph_ops.linalg_ops import eye, matrix_diag as diag, matrix_diag_part as diag_part, matrix_set_diag as set_diag  # noqa: F401
from ref.graph_ops.math_extras import norm  # noqa: F401
from ref.graph_ops.linalg_ops import matrix_band_part as band_part  # noqa: F401
from ref.graph_ops.linalg_ops import matrix_transpose as transpose  # noqa: F401
from ref.graph_ops.linalg_ops import matrix_triangular_solve as triangular_solve  # noqa: F401
from ref.graph_ops.math_ops import matmul  # noqa: F401
from ref.graph_ops.clip_ops import global_norm  # noqa: F401
from ref.graph_ops.math_ops import tensordot  # noqa: F401
from ref.graph_ops.math_trig import trace  # noqa: F401
from ref.graph_ops.linalg_solve_ops import cholesky_solve, cross, det, logdet, matvec, slogdet, solve  # noqa: F401
from ref.graph_ops.nn_ops import l2_normalize  # noqa: F401
from ref.graph_ops.linalg_matrix_functions import expm, logm, sqrtm  # noqa: F401
from ref.graph_ops.linalg_impl import (lstsq, lu, lu_matrix_inverse, lu_reconstruct, lu_solve, matrix_rank,  # noqa: F401
                                       normalize, pinv, tridiagonal_matmul, tridiagonal_solve)

from ref import _coverage  # noqa: E402


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.linalg", name)
