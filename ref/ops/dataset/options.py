"""``OptionsDataset``: the input's elements unchanged; the options it carries
(``serialized_options``, a ``dataset_options.proto`` ``Options``) tune TF's
runtime (threads, static optimizations), which ref's interpreter does not have."""
from __future__ import annotations

from ref.ops.dataset.base import DATASET_ATTRS, Dataset, check_dataset, dataset_shape
from ref.ops.registry import REQUIRED, register_op


class OptionsDS(Dataset):
    op_type = "OptionsDataset"

    def __init__(self, input_dataset, serialized_options):
        input_dataset = check_dataset(input_dataset)
        super().__init__(input_dataset.output_types, input_dataset.output_shapes)
        self.input, self.serialized_options = input_dataset, serialized_options

    def elements(self, env):
        yield from self.input.elements(env)


@register_op("OptionsDataset", inputs=("input_dataset",), outputs=("handle",),
             attrs={**DATASET_ATTRS, "serialized_options": REQUIRED}, shape=dataset_shape)
def options_dataset(input_dataset, serialized_options, output_types=None, output_shapes=None, metadata=""):
    """handle = ``input_dataset``, with ``serialized_options`` attached."""
    return OptionsDS(input_dataset, serialized_options)
