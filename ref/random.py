"""``tf.random``: the random ops under their TF 1.13+ names."""
import types

from ref.framework.random_seed import get_seed, set_random_seed  # noqa: F401
from ref.graph_ops.random_ops import (categorical, multinomial, truncated_normal,  # noqa: F401
                                      random_gamma as gamma, random_normal as normal, random_poisson as poisson,
                                      random_shuffle as shuffle, random_uniform as uniform)
from ref.graph_ops.stateless_random_ops import (stateless_categorical, stateless_multinomial,  # noqa: F401
                                                stateless_random_normal as stateless_normal,
                                                stateless_random_uniform as stateless_uniform,
                                                stateless_random_gamma as stateless_gamma,
                                                stateless_random_poisson as stateless_poisson,
                                                stateless_truncated_normal, stateless_shuffle, split, fold_in)

from ref.graph_ops.stateful_random_ops import Generator, create_rng_state  # noqa: F401

__all__ = ["Generator", "create_rng_state", "normal", "uniform", "truncated_normal", "shuffle", "categorical", "multinomial", "gamma", "poisson",
           "set_random_seed", "get_seed", "stateless_uniform", "stateless_normal", "stateless_truncated_normal",
           "stateless_categorical", "stateless_multinomial", "stateless_gamma", "stateless_poisson", "split",
           "fold_in", "experimental"]

from ref.graph_ops.candidate_sampling_ops import (all_candidate_sampler, fixed_unigram_candidate_sampler,  # noqa: F401,E402,E501
                                                  learned_unigram_candidate_sampler, log_uniform_candidate_sampler,
                                                  uniform_candidate_sampler)

__all__ += ["all_candidate_sampler", "fixed_unigram_candidate_sampler", "learned_unigram_candidate_sampler",
            "log_uniform_candidate_sampler", "uniform_candidate_sampler"]

# tf.random.experimental: the stateless helpers under their TF 2.x names
experimental = types.SimpleNamespace(stateless_shuffle=stateless_shuffle, stateless_split=split,
                                     stateless_fold_in=fold_in, Generator=Generator,
                                     create_rng_state=create_rng_state)

from ref import _coverage  # noqa: E402


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.random", name)
