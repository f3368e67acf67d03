"""``tf.image``'s geometry (TF1): flips, quarter turns, transposes, crops and
pads, built as TF's ``image_ops_impl`` builds them, checks included.

Every function first checks its image's shape the way TF does: what the
static shape already proves raises ``ValueError`` at once or adds nothing;
what only the run can tell becomes an ``Assert`` op the result depends on.
The image then passes through an ``Identity`` named ``control_dependency``
(``with_dependencies``) even when no check was needed, as in TF -- those
nodes count toward the op ids that seed later random ops. With an unknown
rank, a flip or turn becomes a ``cond`` on ``rank == 3``.
"""
from __future__ import annotations

from ref.framework.graph import name_scope
from ref.framework.op_def_library import convert_to_tensor
from ref.framework.tensor_util import constant_value
from ref.framework.tensor import Tensor
from ref.graph_ops import array_ops, check_ops, control_flow_case, control_flow_ops, math_ops, random_ops
from ref.graph_ops import stateless_random_ops
from ref.graph_ops.logging_ops import Assert
from ref.graph_ops.variables import Variable
from ref.types import dtypes
from ref.types.shapes import dimension_value

__all__ = ["flip_left_right", "flip_up_down", "random_flip_left_right", "random_flip_up_down", "rot90",
           "transpose_image", "transpose", "central_crop", "crop_to_bounding_box", "pad_to_bounding_box",
           "resize_image_with_crop_or_pad"]


# -- TF's shape checks ------------------------------------------------------------------

def _is_tensor(x):
    return isinstance(x, (Tensor, Variable))


def assert_or_raise(cond, ex_type, msg):
    """[an Assert op] for a tensor condition; for a Python one, [] or ``ex_type(msg)``."""
    if _is_tensor(cond):
        return [Assert(cond, [msg])]
    if not cond:
        raise ex_type(msg)
    return []


def image_dimensions(image, rank):
    """The ``rank`` dimensions of ``image``: Python ints where static, else scalar tensors."""
    if image.shape.is_fully_defined():
        return image.shape.as_list()
    static = image.shape.with_rank(rank).as_list()
    dynamic = array_ops.unstack(array_ops.shape(image), rank)
    return [s if s is not None else d for s, d in zip(static, dynamic)]


def check_at_least_3d_image(image, require_static=True):
    """[] when ``image``'s inner three dimensions are known (and > 0), else its run-time checks."""
    try:
        shape = image.shape.with_rank(3) if image.shape.ndims is None else image.shape.with_rank_at_least(3)
    except ValueError:
        raise ValueError(f"'image' (shape {image.shape}) must be at least three-dimensional.") from None
    if require_static and not shape.is_fully_defined():
        raise ValueError("'image' must be fully defined.")
    if any(d == 0 for d in shape.as_list()[-3:]):
        raise ValueError(f"inner 3 dims of 'image.shape' must be > 0: {shape}")
    if shape[-3:].is_fully_defined():
        return []
    return [check_ops.assert_positive(array_ops.shape(image)[-3:], ["inner 3 dims of 'image.shape' must be > 0."]),
            check_ops.assert_greater_equal(array_ops.rank(image), 3,
                                           message="'image' must be at least three-dimensional.")]


def assert_at_least_3d_image(image):
    return control_flow_ops.with_dependencies(check_at_least_3d_image(image, require_static=False), image)


def check_3d_image(image, require_static=True):
    try:
        shape = image.shape.with_rank(3)
    except ValueError:
        raise ValueError(f"'image' (shape {image.shape}) must be three-dimensional.") from None
    if require_static and not shape.is_fully_defined():
        raise ValueError(f"'image' (shape {shape}) must be fully defined.")
    if any(d == 0 for d in shape.as_list()):
        raise ValueError(f"all dims of 'image.shape' must be > 0: {shape}")
    if shape.is_fully_defined():
        return []
    return [check_ops.assert_positive(array_ops.shape(image), ["all dims of 'image.shape' must be > 0."])]


def assert_3d_image(image):
    return control_flow_ops.with_dependencies(check_3d_image(image, require_static=False), image)


def check_grayscale_image(image, require_static=True):
    try:
        shape = image.shape.with_rank(2) if image.shape.ndims is None else image.shape.with_rank_at_least(2)
    except ValueError:
        raise ValueError(f"A grayscale image (shape {image.shape}) must be at least two-dimensional.") from None
    if require_static and not shape.is_fully_defined():
        raise ValueError("'image' must be fully defined.")
    if shape.is_fully_defined():
        if dimension_value(shape[-1]) != 1:
            raise ValueError("Last dimension of a grayscale image should be size 1.")
        return []
    return [check_ops.assert_equal(array_ops.shape(image)[-1], 1,
                                   message="Last dimension of a grayscale image should be size 1."),
            check_ops.assert_greater_equal(array_ops.rank(image), 3,
                                           message="A grayscale image must be at least two-dimensional.")]


def assert_grayscale_image(image):
    return control_flow_ops.with_dependencies(check_grayscale_image(image, require_static=False), image)


def _by_rank(image, f_rank3, f_rank4):
    """``f_rank3()`` or ``f_rank4()`` by ``image``'s static rank; a cond on ``rank == 3`` when unknown."""
    nd = image.shape.ndims
    if nd is None:
        return control_flow_ops.cond(math_ops.equal(array_ops.rank(image), 3), f_rank3, f_rank4)
    if nd == 3:
        return f_rank3()
    if nd == 4:
        return f_rank4()
    raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")


# -- flips, quarter turns, transposes ------------------------------------------------

def _fix_flip_shape(image, result):
    shape = image.shape
    result.set_shape([None, None, None] if shape.ndims is None else shape)
    return result


def _flip(image, flip_index, scope_name):
    with name_scope(None, scope_name, [image]):
        image = assert_at_least_3d_image(convert_to_tensor(image, name="image"))
        return _by_rank(image, lambda: _fix_flip_shape(image, array_ops.reverse(image, [flip_index])),
                        lambda: array_ops.reverse(image, [flip_index + 1]))


def flip_left_right(image):
    """``image`` mirrored left to right (the width axis)."""
    return _flip(image, 1, "flip_left_right")


def flip_up_down(image):
    """``image`` mirrored top to bottom (the height axis)."""
    return _flip(image, 0, "flip_up_down")


def _random_flip(image, flip_index, random_func, scope_name):
    with name_scope(None, scope_name, [image]) as scope:
        image = assert_at_least_3d_image(convert_to_tensor(image, name="image"))

        def f_rank3():  # one draw: flip with probability 1/2
            uniform = random_func([])
            mirror = math_ops.less(uniform, .5)
            result = control_flow_ops.cond(mirror, lambda: array_ops.reverse(image, [flip_index]),
                                           lambda: image, name=scope)
            return _fix_flip_shape(image, result)

        def f_rank4():  # one draw per image: flips = round(u), out = flips * flipped + (1 - flips) * image
            batch = array_ops.shape(image)[0]
            uniform = random_func([batch])
            flips = math_ops.cast(math_ops.round(array_ops.reshape(uniform, [batch, 1, 1, 1])), image.dtype)
            return flips * array_ops.reverse(image, [flip_index + 1]) + (1 - flips) * image
        return _by_rank(image, f_rank3, f_rank4)


def _stateful_uniform(seed):
    return lambda shape: random_ops.random_uniform(shape, 0, 1.0, seed=seed)


def _stateless_uniform(seed):
    return lambda shape: stateless_random_ops.stateless_random_uniform(shape, seed, 0, 1.0)


def random_flip_left_right(image, seed=None):
    return _random_flip(image, 1, _stateful_uniform(seed), "random_flip_left_right")


def random_flip_up_down(image, seed=None):
    return _random_flip(image, 0, _stateful_uniform(seed), "random_flip_up_down")


def stateless_random_flip_left_right(image, seed):
    """``image`` (or each image of a batch) mirrored left to right with
    probability 1/2, drawn from the ``[2]`` ``seed`` (TF 2's ``tf.image`` name;
    not in ``tf.compat.v1.image``)."""
    return _random_flip(image, 1, _stateless_uniform(seed), "stateless_random_flip_left_right")


def stateless_random_flip_up_down(image, seed):
    """``image`` (or each image of a batch) mirrored top to bottom with probability 1/2, from ``seed``."""
    return _random_flip(image, 0, _stateless_uniform(seed), "stateless_random_flip_up_down")


def _rot90_cases(image, k, scope, axes, perm):
    h, w = axes
    cases = [(math_ops.equal(k, 1), lambda: array_ops.transpose(array_ops.reverse(image, [w]), perm)),
             (math_ops.equal(k, 2), lambda: array_ops.reverse(image, [h, w])),
             (math_ops.equal(k, 3), lambda: array_ops.reverse(array_ops.transpose(image, perm), [w]))]
    return control_flow_case.case(cases, default=lambda: image, exclusive=True, name=scope)


def _rot90_3d(image, k, scope):
    result = _rot90_cases(image, k, scope, (0, 1), [1, 0, 2])
    result.set_shape([None, None, image.shape[2]])
    return result


def _rot90_4d(images, k, scope):
    result = _rot90_cases(images, k, scope, (1, 2), [0, 2, 1, 3])
    shape = result.shape
    result.set_shape([shape[0], None, None, shape[3]])
    return result


def rot90(image, k=1, name=None):
    """``image`` turned counter-clockwise by ``k`` quarter turns (``k`` may be a tensor):
    TF's ``case`` over k mod 4 in {1, 2, 3}, the image itself by default."""
    with name_scope(name, "rot90", [image, k]) as scope:
        image = assert_at_least_3d_image(convert_to_tensor(image, name="image"))
        k = convert_to_tensor(k, dtype=dtypes.int32, name="k")
        k.shape.assert_has_rank(0)
        k = k % 4  # math_ops.mod: FloorMod under a "mod" scope
        return _by_rank(image, lambda: _rot90_3d(image, k, scope), lambda: _rot90_4d(image, k, scope))


def transpose(image, name=None):
    """``image`` with height and width swapped."""
    with name_scope(name, "transpose", [image]):
        image = assert_at_least_3d_image(convert_to_tensor(image, name="image"))
        return _by_rank(image, lambda: array_ops.transpose(image, [1, 0, 2], name=name),
                        lambda: array_ops.transpose(image, [0, 2, 1, 3], name=name))


transpose_image = transpose  # TF1's name


# -- crops and pads -----------------------------------------------------------------------

def as_batch(image):
    """(image as a 4-D batch, whether it was one): a 3-D or unknown-rank image gains axis 0."""
    nd = image.shape.ndims
    if nd == 4:
        return image, True
    if nd == 3:
        return array_ops.expand_dims(image, 0), False
    if nd is None:
        image = array_ops.expand_dims(image, 0)
        image.set_shape([None] * 4)
        return image, False
    raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")


def unbatch(image, is_batch):
    return image if is_batch else array_ops.squeeze(image, axis=[0])


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """``image`` zero-padded to ``target_height x target_width``, placed at the offsets."""
    return pad_to_bounding_box_internal(image, offset_height, offset_width, target_height, target_width, True)


def pad_to_bounding_box_internal(image, offset_height, offset_width, target_height, target_width, check_dims):
    with name_scope(None, "pad_to_bounding_box", [image]):
        image, is_batch = as_batch(convert_to_tensor(image, name="image"))
        batch, height, width, depth = image_dimensions(image, rank=4)
        after_padding_width = target_width - offset_width - width
        after_padding_height = target_height - offset_height - height
        if check_dims:
            checks = check_at_least_3d_image(image, require_static=False)
            checks += assert_or_raise(offset_height >= 0, ValueError, "offset_height must be >= 0")
            checks += assert_or_raise(offset_width >= 0, ValueError, "offset_width must be >= 0")
            checks += assert_or_raise(after_padding_width >= 0, ValueError, "width must be <= target - offset")
            checks += assert_or_raise(after_padding_height >= 0, ValueError, "height must be <= target - offset")
            image = control_flow_ops.with_dependencies(checks, image)
        paddings = array_ops.reshape(array_ops.stack([0, 0, offset_height, after_padding_height, offset_width,
                                                      after_padding_width, 0, 0]), [4, 2])
        padded = array_ops.pad(image, paddings)
        padded.set_shape([None if _is_tensor(i) else i for i in (batch, target_height, target_width, depth)])
        return unbatch(padded, is_batch)


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The ``target_height x target_width`` window of ``image`` at the offsets."""
    with name_scope(None, "crop_to_bounding_box", [image]):
        image, is_batch = as_batch(convert_to_tensor(image, name="image"))
        checks = check_at_least_3d_image(image, require_static=False)
        batch, height, width, depth = image_dimensions(image, rank=4)
        checks += assert_or_raise(offset_width >= 0, ValueError, "offset_width must be >= 0.")
        checks += assert_or_raise(offset_height >= 0, ValueError, "offset_height must be >= 0.")
        checks += assert_or_raise(target_width > 0, ValueError, "target_width must be > 0.")
        checks += assert_or_raise(target_height > 0, ValueError, "target_height must be > 0.")
        checks += assert_or_raise(width >= (target_width + offset_width), ValueError, "width must be >= target + offset.")
        checks += assert_or_raise(height >= (target_height + offset_height), ValueError,
                          "height must be >= target + offset.")
        image = control_flow_ops.with_dependencies(checks, image)
        cropped = array_ops.slice(image, array_ops.stack([0, offset_height, offset_width, 0]),
                                  array_ops.stack([array_ops.shape(image)[0], target_height, target_width,
                                                   array_ops.shape(image)[3]]))
        cropped.set_shape([None if _is_tensor(i) else i for i in (batch, target_height, target_width, depth)])
        return unbatch(cropped, is_batch)


def max_of(x, y):
    return math_ops.maximum(x, y) if _is_tensor(x) or _is_tensor(y) else max(x, y)


def min_of(x, y):
    return math_ops.minimum(x, y) if _is_tensor(x) or _is_tensor(y) else min(x, y)


def equal_of(x, y):
    return math_ops.equal(x, y) if _is_tensor(x) or _is_tensor(y) else x == y


def resize_image_with_crop_or_pad(image, target_height, target_width):
    """``image`` centre-cropped and/or zero-padded to ``target_height x target_width``."""
    with name_scope(None, "resize_image_with_crop_or_pad", [image]):
        image, is_batch = as_batch(convert_to_tensor(image, name="image"))
        checks = check_at_least_3d_image(image, require_static=False)
        checks += assert_or_raise(target_width > 0, ValueError, "target_width must be > 0.")
        checks += assert_or_raise(target_height > 0, ValueError, "target_height must be > 0.")
        image = control_flow_ops.with_dependencies(checks, image)
        if _is_tensor(target_height):
            target_height = control_flow_ops.with_dependencies(checks, target_height)
        if _is_tensor(target_width):
            target_width = control_flow_ops.with_dependencies(checks, target_width)
        _, height, width, _ = image_dimensions(image, rank=4)
        width_diff = target_width - width
        offset_crop_width = max_of(-width_diff // 2, 0)
        offset_pad_width = max_of(width_diff // 2, 0)
        height_diff = target_height - height
        offset_crop_height = max_of(-height_diff // 2, 0)
        offset_pad_height = max_of(height_diff // 2, 0)
        cropped = crop_to_bounding_box(image, offset_crop_height, offset_crop_width,
                                       min_of(target_height, height), min_of(target_width, width))
        resized = pad_to_bounding_box(cropped, offset_pad_height, offset_pad_width, target_height, target_width)
        if resized.shape.ndims is None:
            raise ValueError("resized contains no shape.")
        _, resized_height, resized_width, _ = image_dimensions(resized, rank=4)
        checks = assert_or_raise(equal_of(resized_height, target_height), ValueError, "resized height is not correct.")
        checks += assert_or_raise(equal_of(resized_width, target_width), ValueError, "resized width is not correct.")
        resized = control_flow_ops.with_dependencies(checks, resized)
        return unbatch(resized, is_batch)


def central_crop(image, central_fraction):
    """The central ``central_fraction`` (in (0, 1]) of ``image``'s height and width;
    start = int((side - side * fraction) / 2), in float64 when computed at run time."""
    with name_scope(None, "central_crop", [image]):
        image = convert_to_tensor(image, name="image")
        fraction = constant_value(central_fraction) if _is_tensor(central_fraction) else central_fraction
        if fraction is not None:
            if fraction <= 0.0 or fraction > 1.0:
                raise ValueError("central_fraction must be within (0, 1]")
            if fraction == 1.0:
                return image
        else:
            checks = assert_or_raise(math_ops.logical_or(central_fraction > 0.0, central_fraction <= 1.0), ValueError,
                             "central_fraction must be within (0, 1]")
            image = control_flow_ops.with_dependencies(checks, image)
        assert_at_least_3d_image(image)  # built and left unused, as TF does
        rank = image.shape.ndims
        if rank not in (3, 4):
            raise ValueError(f"`image` should either be a Tensor with rank = 3 or rank = 4. Had rank = {rank}.")

        def get_dim(idx):
            static = image.shape.dims[idx].value
            return (static, False) if static is not None else (array_ops.shape(image)[idx], True)
        first = 0 if rank == 3 else 1
        img_h, dynamic_h = get_dim(first)
        img_w, dynamic_w = get_dim(first + 1)
        img_d = image.shape[first + 2]
        starts = []
        for side, dynamic in ((img_h, dynamic_h or fraction is None), (img_w, dynamic_w or fraction is None)):
            if dynamic:
                sd = math_ops.cast(side, dtypes.float64)
                starts.append(math_ops.cast((sd - sd * math_ops.cast(central_fraction, dtypes.float64)) / 2,
                                            dtypes.int32))
            else:
                starts.append(int((float(side) - float(side) * fraction) / 2))
        dynamic_h, dynamic_w = dynamic_h or fraction is None, dynamic_w or fraction is None
        bbox_h_size = img_h - starts[0] * 2
        bbox_w_size = img_w - starts[1] * 2
        if rank == 3:
            begin = array_ops.stack([starts[0], starts[1], 0])
            size = array_ops.stack([bbox_h_size, bbox_w_size, -1])
        else:
            begin = array_ops.stack([0, starts[0], starts[1], 0])
            size = array_ops.stack([-1, bbox_h_size, bbox_w_size, -1])
        image_out = array_ops.slice(image, begin, size)
        inner = [None if dynamic_h else bbox_h_size, None if dynamic_w else bbox_w_size, img_d]
        image_out.set_shape(inner if rank == 3 else [image.shape[0]] + inner)
        return image_out

