"""``tf.data`` (TF1 graph mode): datasets as variant tensors of TF's dataset
ops, their iterators, the file datasets and ``tf.data.experimental``."""
from ref.data.dataset_ops import AUTOTUNE, Dataset, DatasetV1, TensorSpec  # noqa: F401
from ref.data.iterator_ops import (Iterator, get_output_classes, get_output_shapes,  # noqa: F401
                                   get_output_types, make_initializable_iterator, make_one_shot_iterator)
from ref.data.options import Options  # noqa: F401
from ref.data.readers import FixedLengthRecordDataset, TextLineDataset, TFRecordDataset  # noqa: F401
from ref.data import experimental, generator  # noqa: F401  (generator: Dataset.from_generator)
from ref.data.experimental import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY  # noqa: F401,E402

DatasetV2 = Dataset
