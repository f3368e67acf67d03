"""``tf.distributions``: Normal, Bernoulli, Categorical, Uniform, ... with
``kl_divergence`` and ``RegisterKL`` (TF 1.x's ``tf.compat.v1.distributions``)."""
from ref.graph_ops.distributions.distribution import (  # noqa: F401
    FULLY_REPARAMETERIZED, NOT_REPARAMETERIZED, Distribution, ReparameterizationType)
from ref.graph_ops.distributions.kullback_leibler import RegisterKL, kl_divergence  # noqa: F401
from ref.graph_ops.distributions.bernoulli import Bernoulli  # noqa: F401
from ref.graph_ops.distributions.beta import Beta  # noqa: F401
from ref.graph_ops.distributions.categorical import Categorical  # noqa: F401
from ref.graph_ops.distributions.dirichlet import Dirichlet  # noqa: F401
from ref.graph_ops.distributions.gamma import Exponential, Gamma  # noqa: F401
from ref.graph_ops.distributions.laplace import Laplace  # noqa: F401
from ref.graph_ops.distributions.multinomial import Multinomial  # noqa: F401
from ref.graph_ops.distributions.normal import Normal  # noqa: F401
from ref.graph_ops.distributions.student_t import StudentT  # noqa: F401
from ref.graph_ops.distributions.uniform import Uniform  # noqa: F401

from ref import _coverage  # noqa: E402

__all__ = ["Bernoulli", "Beta", "Categorical", "Dirichlet", "Distribution", "Exponential", "FULLY_REPARAMETERIZED",
           "Gamma", "Laplace", "Multinomial", "NOT_REPARAMETERIZED", "Normal", "RegisterKL", "ReparameterizationType",
           "StudentT", "Uniform",
           "kl_divergence"]


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.distributions", name)
