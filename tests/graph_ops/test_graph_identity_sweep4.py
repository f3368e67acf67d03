"""GraphDef identity rows from the fourth sweep of ref's TF1 builders: the
everyday builders TF1 programs call that the first three sweeps did not build
-- tf.image (resizes of every method, flips and random flips with a seed,
crops, standardization, adjustments, dtype conversion, codecs, bounding
boxes), tf.data in graph mode (slices/map/batch/shuffle/repeat/prefetch,
padded_batch, one-shot, initializable, reinitializable and feedable
iterators), tf.nn (transposed, separable, depthwise and atrous convolutions,
LRN, moments, normalization, partitioned embeddings with max_norm, sampled
losses, CTC, top_k, batch norms), tf.layers (conv1d/3d, separable, transposed,
pooling 1d/2d/3d, batch norm with renorm, virtual batches and constant
scale/offset, dense with regularizers and constraints), every tf.losses loss
under every reduction, tf.metrics (auc, at_k, thresholds, regression), rnn_cell
wrappers, string ops, sparse ops and tf.train's queue input functions -- with
``tf.gradients`` of a scalar of their float outputs, built under ref and under
TF 2.21's ``tf.compat.v1`` (TF1 behaviour) and compared node for node
(``_graphdef.py``: names, op types, attrs, data inputs in order, control
inputs as a set, creation order). A row still different is
``xfail(strict=True)`` naming why.
"""
import numpy as np
import pytest

from ref.graph_ops import nn_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph, fed_values, ref_and_tf_values, tf_v1


def _x(tf, shape=(None, 3), name="x", dtype=None):
    return tf.placeholder(dtype or tf.float32, None if shape is None else list(shape), name=name)


def _grad(tf, y, xs):
    return tf.gradients(tf.reduce_sum(y), xs)

# ---- tf.image
def img_resize_all_methods(tf):
    x = _x(tf, [None, 8, 8, 3])
    for m in [tf.image.ResizeMethod.BILINEAR, tf.image.ResizeMethod.NEAREST_NEIGHBOR,
              tf.image.ResizeMethod.BICUBIC, tf.image.ResizeMethod.AREA]:
        tf.image.resize_images(x, [4, 6], method=m)
    tf.image.resize_images(x, [16, 16], align_corners=True)
    tf.image.resize_images(x, [8, 8])

def img_resize_unknown_and_grad(tf):
    x = _x(tf, [None, None, None, 3])
    y = tf.image.resize_images(x, [5, 5]) + tf.image.resize_images(x, [5, 5], method=1)
    _grad(tf, y + tf.image.resize_images(x, [5, 5], method=2), [x])

def img_resize_single(tf):
    x = _x(tf, [8, 8, 3])
    tf.image.resize_images(x, [4, 4], preserve_aspect_ratio=True)
    tf.image.resize_bilinear(tf.expand_dims(x, 0), [3, 3], half_pixel_centers=True)
    tf.image.resize_nearest_neighbor(tf.expand_dims(x, 0), [3, 3])
    tf.image.resize_area(tf.expand_dims(x, 0), [3, 3])
    tf.image.resize_bicubic(tf.expand_dims(x, 0), [3, 3])

def img_flips(tf):
    x = _x(tf, [None, 4, 4, 3])
    y = _x(tf, [4, 4, 3], "y")
    tf.image.flip_left_right(x); tf.image.flip_up_down(x)
    tf.image.flip_left_right(y); tf.image.flip_up_down(y)
    tf.image.transpose_image(y); tf.image.rot90(y, 2); tf.image.rot90(x, 3)

def img_random_flips(tf):
    x = _x(tf, [None, 4, 4, 3])
    y = _x(tf, [4, 4, 3], "y")
    tf.image.random_flip_left_right(x, seed=3); tf.image.random_flip_up_down(x, seed=4)
    tf.image.random_flip_left_right(y, seed=5); tf.image.random_flip_up_down(y)

def img_crops(tf):
    x = _x(tf, [None, 8, 8, 3])
    y = _x(tf, [8, 8, 3], "y")
    tf.image.central_crop(y, 0.5); tf.image.central_crop(x, 0.75)
    tf.image.crop_to_bounding_box(x, 1, 2, 4, 4)
    tf.image.pad_to_bounding_box(y, 1, 1, 10, 10)
    tf.image.resize_image_with_crop_or_pad(y, 6, 10)
    tf.random_crop(y, [4, 4, 3], seed=2)
    tf.image.crop_and_resize(x, tf.constant([[0., 0., 1., 1.]]), tf.constant([0]), [3, 3])

def img_crop_grads(tf):
    x = _x(tf, [2, 8, 8, 3])
    y = tf.image.crop_to_bounding_box(x, 1, 2, 4, 4)
    z = tf.image.pad_to_bounding_box(x, 1, 1, 10, 10)
    w = tf.image.central_crop(x, 0.5)
    _grad(tf, tf.reduce_sum(y) + tf.reduce_sum(z) + tf.reduce_sum(w), [x])

def img_standardize_adjust(tf):
    x = _x(tf, [None, 4, 4, 3])
    tf.image.per_image_standardization(x)
    tf.image.adjust_brightness(x, 0.1); tf.image.adjust_contrast(x, 1.5)
    tf.image.adjust_saturation(x, 0.5); tf.image.adjust_hue(x, 0.2); tf.image.adjust_gamma(x, 2.0, 1.5)
    tf.image.rgb_to_grayscale(x); tf.image.grayscale_to_rgb(tf.image.rgb_to_grayscale(x))
    tf.image.rgb_to_hsv(x); tf.image.hsv_to_rgb(x); tf.image.rgb_to_yiq(x); tf.image.rgb_to_yuv(x)

def img_random_adjust(tf):
    x = _x(tf, [None, 4, 4, 3])
    tf.image.random_brightness(x, 0.2, seed=1); tf.image.random_contrast(x, 0.5, 1.5, seed=2)
    tf.image.random_saturation(x, 0.5, 1.5, seed=3); tf.image.random_hue(x, 0.1, seed=4)

def img_standardize_grad(tf):
    x = _x(tf, [None, 4, 4, 3])
    y = tf.image.per_image_standardization(x) + tf.image.adjust_gamma(x, 2.0)
    _grad(tf, y + tf.image.adjust_brightness(x, 0.1) + tf.image.rgb_to_grayscale(x), [x])

def img_convert_dtype(tf):
    x = _x(tf, [None, 4, 4, 3])
    u = tf.placeholder(tf.uint8, [4, 4, 3], name="u")
    tf.image.convert_image_dtype(x, tf.uint8); tf.image.convert_image_dtype(x, tf.uint8, saturate=True)
    tf.image.convert_image_dtype(u, tf.float32); tf.image.convert_image_dtype(u, tf.int32)
    tf.image.convert_image_dtype(u, tf.uint16); tf.image.convert_image_dtype(x, tf.float64)
    tf.image.convert_image_dtype(x, tf.float32)

def img_codecs(tf):
    s = tf.placeholder(tf.string, [], name="s")
    u = tf.placeholder(tf.uint8, [4, 4, 3], name="u")
    tf.image.decode_png(s, channels=3); tf.image.decode_jpeg(s, channels=1, dct_method="INTEGER_ACCURATE")
    tf.image.decode_image(s, channels=3); tf.image.decode_gif(s); tf.image.decode_bmp(s)
    tf.image.encode_png(u); tf.image.encode_jpeg(u, quality=80, format="rgb")
    tf.image.decode_png(s, dtype=tf.uint16); tf.image.decode_image(s, expand_animations=False)

def img_sample_distorted(tf):
    b = tf.constant([[[0.1, 0.2, 0.5, 0.9]]])
    tf.image.sample_distorted_bounding_box([64, 64, 3], b, seed=3, min_object_covered=0.1,
                                           aspect_ratio_range=[0.75, 1.33], area_range=[0.05, 1.0],
                                           max_attempts=100, use_image_if_no_bounding_boxes=True)
    tf.image.sample_distorted_bounding_box(tf.constant([64, 64, 3]), b)
    tf.image.draw_bounding_boxes(_x(tf, [1, 8, 8, 3]), b)

def img_nms_and_misc(tf):
    boxes, scores = _x(tf, [None, 4], "boxes"), _x(tf, [None], "scores")
    tf.image.non_max_suppression(boxes, scores, 5, 0.5)
    tf.image.non_max_suppression(boxes, scores, 5, 0.5, score_threshold=0.1)
    tf.image.total_variation(_x(tf, [None, 4, 4, 3], "i"))
    tf.image.psnr(_x(tf, [None, 4, 4, 3], "a"), _x(tf, [None, 4, 4, 3], "b"), 1.0)
    tf.image.sobel_edges(_x(tf, [None, 4, 4, 3], "c"))

def img_resize_with_pad_and_crop(tf):
    x = _x(tf, [None, None, None, 3])
    tf.image.resize_image_with_crop_or_pad(x, 5, 5)
    tf.image.resize_image_with_pad(x, 6, 6, method=tf.image.ResizeMethod.NEAREST_NEIGHBOR)

# ---- tf.data
def data_slices_pipeline(tf):
    d = tf.data.Dataset.from_tensor_slices((np.zeros([10, 3], np.float32), np.arange(10)))
    d = d.shuffle(5, seed=3).repeat(2).map(lambda a, b: (a * 2.0, b + 1)).batch(4, drop_remainder=True).prefetch(2)
    tf.data.make_one_shot_iterator(d).get_next()

def data_padded_batch(tf):
    d = tf.data.Dataset.range(6).map(lambda v: tf.fill([v], v))
    d = d.padded_batch(2, padded_shapes=[None], padding_values=tf.constant(-1, tf.int64))
    d.make_one_shot_iterator().get_next()

def data_initializable(tf):
    x = _x(tf, [None, 3])
    d = tf.data.Dataset.from_tensor_slices(x).batch(2)
    it = tf.data.make_initializable_iterator(d)
    it.initializer; it.get_next()

def data_initializable_method(tf):
    x = _x(tf, [None], "x", tf.int64)
    it = tf.data.Dataset.from_tensor_slices(x).shuffle(4).repeat().make_initializable_iterator(shared_name="it")
    it.get_next(name="nxt")

def data_from_generator_free(tf):
    d = tf.data.Dataset.from_tensors(np.ones([2, 2], np.float32)).repeat(3)
    d = d.filter(lambda v: tf.reduce_sum(v) > 0).flat_map(lambda v: tf.data.Dataset.from_tensor_slices(v))
    d = d.take(4).skip(1).cache().batch(2)
    tf.data.make_one_shot_iterator(d).get_next()

def data_zip_concat(tf):
    a = tf.data.Dataset.range(4); b = tf.data.Dataset.range(4, 8)
    d = tf.data.Dataset.zip((a, b)).concatenate(tf.data.Dataset.zip((b, a))).window(2).flat_map(lambda x, y: tf.data.Dataset.zip((x.batch(2), y.batch(2))))
    tf.data.make_one_shot_iterator(d).get_next()

def data_map_parallel_dict(tf):
    d = tf.data.Dataset.from_tensor_slices({"a": np.zeros([4, 2], np.float32), "b": np.arange(4)})
    d = d.map(lambda e: {"a": e["a"] + 1.0, "b": e["b"] * 2}, num_parallel_calls=2).batch(2).unbatch().batch(3)
    tf.data.make_one_shot_iterator(d).get_next()

def data_reinitializable(tf):
    d1 = tf.data.Dataset.range(3); d2 = tf.data.Dataset.range(5)
    it = tf.data.Iterator.from_structure(tf.data.get_output_types(d1), tf.data.get_output_shapes(d1))
    it.make_initializer(d1); it.make_initializer(d2, name="second"); it.get_next()

def data_feedable(tf):
    h = tf.placeholder(tf.string, [], name="h")
    d = tf.data.Dataset.range(3)
    it = tf.data.Iterator.from_string_handle(h, tf.data.get_output_types(d), tf.data.get_output_shapes(d))
    it.get_next()
    tf.data.make_one_shot_iterator(d).string_handle()

# ---- tf.nn
def nn_conv2d_transpose(tf):
    x = _x(tf, [None, 4, 4, 3]); f = _x(tf, [3, 3, 2, 3], "f")
    y = tf.nn.conv2d_transpose(x, f, [2, 8, 8, 2], [1, 2, 2, 1])
    tf.nn.conv2d_transpose(x, f, tf.stack([tf.shape(x)[0], 8, 8, 2]), [1, 2, 2, 1], padding="SAME")
    _grad(tf, y, [x, f])

def nn_separable_depthwise(tf):
    x = _x(tf, [None, 6, 6, 3]); d = _x(tf, [3, 3, 3, 2], "d"); p = _x(tf, [1, 1, 6, 4], "p")
    y = tf.nn.separable_conv2d(x, d, p, [1, 1, 1, 1], "SAME")
    z = tf.nn.depthwise_conv2d(x, d, [1, 2, 2, 1], "VALID")
    w = tf.nn.depthwise_conv2d(x, d, [1, 1, 1, 1], "SAME", rate=[2, 2])
    _grad(tf, tf.reduce_sum(y) + tf.reduce_sum(z) + tf.reduce_sum(w), [x, d, p])

def nn_depthwise_rate_unknown_shapes(tf):  # TF's with_space_to_batch: Shape-read spatial dims, VALID rates
    x = _x(tf, [None, None, None, 3]); d = _x(tf, [3, 3, 3, 2], "d"); p = _x(tf, [1, 1, 6, 4], "p")
    y = tf.nn.depthwise_conv2d(x, d, [1, 1, 1, 1], "VALID", rate=[2, 3])
    z = tf.nn.separable_conv2d(x, d, p, [1, 1, 1, 1], "SAME", rate=[2, 2])
    u = tf.nn.depthwise_conv2d(_x(tf, [2, 7, 5, 3], "k"), d, [1, 1, 1, 1], "SAME", rate=[2, 2])
    _grad(tf, tf.reduce_sum(y) + tf.reduce_sum(z) + tf.reduce_sum(u), [x, d, p])


def nn_atrous(tf):
    x = _x(tf, [None, 8, 8, 3]); f = _x(tf, [3, 3, 3, 2], "f")
    y = tf.nn.atrous_conv2d(x, f, 2, "SAME") + tf.nn.atrous_conv2d(x, f, 1, "SAME")
    z = tf.nn.atrous_conv2d(y, tf.ones([3, 3, 2, 2]), 3, "VALID")
    tf.nn.convolution(x, f, "VALID", dilation_rate=[2, 2])
    _grad(tf, tf.reduce_sum(y) + tf.reduce_sum(z), [x, f])

def nn_lrn(tf):
    x = _x(tf, [None, 4, 4, 6])
    y = tf.nn.lrn(x, 2, 1.0, 1e-4, 0.75) + tf.nn.local_response_normalization(x)
    _grad(tf, y, [x])

def nn_moments(tf):
    x = _x(tf, [None, 4, 4, 3]); w = _x(tf, [None, 4, 4, 1], "w")
    m, v = tf.nn.moments(x, [0, 1, 2]); m2, v2 = tf.nn.moments(x, [1, 2], keep_dims=True)
    m3, v3 = tf.nn.weighted_moments(x, [0, 1, 2], w)
    m4, v4 = tf.nn.weighted_moments(x, [1], w, keep_dims=True)
    _grad(tf, tf.reduce_sum(m) + tf.reduce_sum(v) + tf.reduce_sum(m3) + tf.reduce_sum(v3) + tf.reduce_sum(v2) + tf.reduce_sum(v4), [x, w])

def nn_normalize(tf):
    x = _x(tf)
    y = tf.nn.l2_normalize(x, 1) + tf.nn.l2_normalize(x, [0, 1], epsilon=1e-3) + tf.math.l2_normalize(x, axis=-1)
    tf.nn.normalize_moments(tf.constant(4.0), tf.reduce_sum(x, 0), tf.reduce_sum(x * x, 0), None)
    tf.nn.batch_normalization(x, 0.5, 2.0, 0.1, 1.5, 1e-3)
    _grad(tf, y, [x])

def nn_embedding_partitions(tf):
    p = [tf.get_variable(f"p{i}", [3, 4]) for i in range(3)]
    i = _x(tf, [None], "i", tf.int64)
    y = tf.nn.embedding_lookup(p, i) + tf.nn.embedding_lookup(p, i, partition_strategy="div")
    z = tf.nn.embedding_lookup(p, i, max_norm=1.0)
    _grad(tf, tf.reduce_sum(y) + tf.reduce_sum(z), p)

def nn_embedding_sparse(tf):  # fed ids: TF's shape refiner would run a constant SparseTensor's Unique
    p = [tf.get_variable(f"p{i}", [3, 4]) for i in range(2)]
    idx = _x(tf, [None, 2], "idx", tf.int64)
    sp = tf.SparseTensor(idx, _x(tf, [None], "ids", tf.int64), [2, 2])
    w = tf.SparseTensor(idx, _x(tf, [None], "w"), [2, 2])
    y = tf.nn.embedding_lookup_sparse(p, sp, None, combiner="mean") + tf.nn.embedding_lookup_sparse(p, sp, w, combiner="sqrtn")
    tf.nn.safe_embedding_lookup_sparse(p, sp, w)
    _grad(tf, y, p)


def nn_sampled_softmax(tf):
    x = _x(tf, [None, 4]); w = tf.get_variable("w", [10, 4]); b = tf.get_variable("b", [10])
    lab = _x(tf, [None, 2], "lab", tf.int64)
    l = tf.nn.sampled_softmax_loss(w, b, lab, x, 3, 10, num_true=2, remove_accidental_hits=False, seed=4)
    l2 = tf.nn.nce_loss([w], b, lab, x, 3, 10, num_true=2, remove_accidental_hits=True)
    _grad(tf, l + l2, [x, w, b])

def nn_ctc_loss(tf):
    logits = _x(tf, [5, 2, 4], "logits")
    lab = tf.SparseTensor(tf.constant([[0, 0], [1, 0], [1, 1]], tf.int64), tf.constant([1, 2, 1]), [2, 2])
    seq = tf.constant([5, 4])
    l = tf.nn.ctc_loss(lab, logits, seq)
    tf.nn.ctc_greedy_decoder(logits, seq)
    tf.nn.ctc_beam_search_decoder(logits, seq, beam_width=3, top_paths=2)
    _grad(tf, l, [logits])

def nn_ctc_loss_v2(tf):
    logits = _x(tf, [2, 5, 4], "logits")
    lab = _x(tf, [2, 3], "lab", tf.int32)
    l = tf.nn.ctc_loss_v2(lab, logits, tf.constant([3, 2]), tf.constant([5, 4]), logits_time_major=False, blank_index=0)
    _grad(tf, l, [logits])

def nn_top_k_in_top_k(tf):
    x = _x(tf, [None, 5]); t = _x(tf, [None], "t", tf.int32)
    v, i = tf.nn.top_k(x, 2); tf.nn.top_k(x, tf.constant(3), sorted=False)
    tf.nn.in_top_k(x, t, 2); tf.math.in_top_k(x, t, 1)
    _grad(tf, v, [x])

def nn_batch_norm_global(tf):
    x = _x(tf, [None, 4, 4, 3]); m, v, b, g = [_x(tf, [3], n) for n in "mvbg"]
    y = tf.nn.batch_norm_with_global_normalization(x, m, v, b, g, 1e-3, True)
    y2 = tf.nn.batch_norm_with_global_normalization(x, m, v, b, g, 1e-3, False)
    _grad(tf, y + y2, [x, m, v, b, g])

def nn_fused_bn(tf):
    x = _x(tf, [None, 4, 4, 3]); s, o = _x(tf, [3], "s"), _x(tf, [3], "o")
    y, m, v = tf.nn.fused_batch_norm(x, s, o)
    y2 = tf.nn.fused_batch_norm(x, s, o, mean=m, variance=v, is_training=False)[0]
    h = tf.nn.fused_batch_norm(tf.cast(x, tf.float16), s, o, epsilon=0.01)[0]
    _grad(tf, y + y2 + tf.cast(h, tf.float32), [x, s, o])

def nn_pool_variants(tf):
    x = _x(tf, [2, 6, 6, 3])
    y = tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")[0]
    u = tf.nn.pool(x, [2, 2], "AVG", "SAME", strides=[2, 2])
    v = tf.nn.pool(x, [3, 3], "MAX", "VALID")
    _grad(tf, tf.reduce_sum(y) + tf.reduce_sum(u) + tf.reduce_sum(v), [x])

def nn_losses_misc(tf):
    x, t = _x(tf), _x(tf, name="t")
    l = tf.nn.sigmoid_cross_entropy_with_logits(labels=t, logits=x) + tf.nn.weighted_cross_entropy_with_logits(t, x, 2.0)
    l2 = tf.nn.softmax_cross_entropy_with_logits_v2(labels=t, logits=x, axis=0)
    l3 = tf.nn.log_poisson_loss(t, x, compute_full_loss=True)
    _grad(tf, tf.reduce_sum(l) + tf.reduce_sum(l2) + tf.reduce_sum(l3), [x, t])

def _gv(tf, y, x):
    _grad(tf, y, [x] + tf.trainable_variables())

# ---- tf.layers
def layers_conv1d_3d(tf):
    x = _x(tf, [None, 8, 3]); z = _x(tf, [None, 4, 4, 4, 2], "z")
    y = tf.layers.conv1d(x, 4, 3, strides=2, padding="same", dilation_rate=1, activation=tf.nn.relu)
    w = tf.layers.conv3d(z, 3, 2, padding="valid", use_bias=False)
    _grad(tf, tf.reduce_sum(y) + tf.reduce_sum(w), [x, z] + tf.trainable_variables())

def layers_conv1d_dilated(tf):
    x = _x(tf, [None, 8, 3])
    _gv(tf, tf.layers.conv1d(x, 2, 3, dilation_rate=2, name="dil"), x)

def layers_separable(tf):
    x = _x(tf, [None, 6, 6, 3]); s = _x(tf, [None, 8, 3], "s")
    y = tf.layers.separable_conv2d(x, 4, 3, depth_multiplier=2, padding="same")
    z = tf.layers.separable_conv1d(s, 4, 3)
    _grad(tf, tf.reduce_sum(y) + tf.reduce_sum(z), [x, s] + tf.trainable_variables())

def layers_separable_dilated(tf):
    x = _x(tf, [None, 9, 9, 3])
    y = tf.layers.separable_conv2d(x, 4, 3, dilation_rate=2, padding="same")
    _grad(tf, y, [x] + tf.trainable_variables())


def layers_conv_transpose(tf):
    x = _x(tf, [None, 4, 4, 3]); z = _x(tf, [None, 2, 2, 2, 3], "z")
    y = tf.layers.conv2d_transpose(x, 2, 3, strides=2, padding="same")
    w = tf.layers.conv3d_transpose(z, 2, 2, strides=(2, 2, 2), name="c3t")
    _grad(tf, tf.reduce_sum(y) + tf.reduce_sum(w), [x, z] + tf.trainable_variables())

def layers_conv3d_transpose_same_and_object(tf):
    z = _x(tf, [None, None, 3, 2, 3], "z")
    tf.layers.conv3d_transpose(z, 4, [3, 2, 3], strides=(1, 2, 2), padding="same", activation=tf.nn.relu, use_bias=False)
    layer = tf.layers.Conv3DTranspose(2, 2, name="obj")
    layer(z)
    _grad(tf, layer(z), [z] + layer.trainable_variables)


def layers_conv_transpose_valid(tf):
    x = _x(tf, [None, None, None, 3])
    _gv(tf, tf.layers.conv2d_transpose(x, 2, [3, 2], strides=(2, 1), padding="valid", activation=tf.nn.tanh), x)

def layers_pooling(tf):
    x = _x(tf, [None, 8, 3]); z = _x(tf, [None, 4, 4, 4, 2], "z"); i = _x(tf, [None, 4, 4, 2], "i")
    y = [tf.layers.max_pooling1d(x, 2, 2), tf.layers.average_pooling1d(x, 3, 1, padding="same"),
         tf.layers.max_pooling3d(z, 2, 2), tf.layers.average_pooling3d(z, 2, 1),
         tf.layers.max_pooling2d(i, 2, 2, data_format="channels_last"), tf.layers.average_pooling2d(i, 3, 2, padding="same")]
    _grad(tf, tf.add_n([tf.reduce_sum(t) for t in y]), [x, z, i])

def layers_bn_renorm(tf):
    x = _x(tf, [None, 3])
    y = tf.layers.batch_normalization(x, training=True, renorm=True, renorm_clipping={"rmax": 3.0, "rmin": 0.3, "dmax": 5.0}, renorm_momentum=0.9)
    _gv(tf, y, x)

def layers_bn_virtual(tf):
    x = _x(tf, [8, 4, 3])
    _gv(tf, tf.layers.batch_normalization(x, training=True, virtual_batch_size=2), x)

def layers_bn_adjust_and_frozen(tf):
    x = _x(tf, [None, 4, 4, 3]); t = tf.placeholder(tf.bool, [], name="t")
    y = tf.layers.batch_normalization(x, training=t, center=False, scale=False, fused=True)
    z = tf.layers.batch_normalization(x, training=False, beta_initializer=tf.ones_initializer(), fused=False)
    _grad(tf, y + z, [x] + tf.trainable_variables())

def layers_dense_regularized(tf):
    x = _x(tf, [None, 4])
    y = tf.layers.dense(x, 3, kernel_regularizer=lambda w: 0.1 * tf.nn.l2_loss(w), bias_regularizer=lambda b: tf.reduce_sum(tf.abs(b)),
                        activity_regularizer=lambda a: 0.01 * tf.reduce_sum(a * a),
                        kernel_constraint=lambda w: tf.clip_by_norm(w, 1.0), bias_constraint=lambda b: tf.clip_by_value(b, -1.0, 1.0))
    loss = tf.reduce_sum(y) + tf.add_n(tf.losses.get_regularization_losses())
    tf.losses.get_regularization_loss()
    tf.gradients(loss, [x] + tf.trainable_variables())

def layers_dense_3d_and_dropout(tf):
    x = _x(tf, [None, 5, 4])
    y = tf.layers.dense(x, 3, activation=tf.nn.elu, kernel_initializer=tf.glorot_normal_initializer(seed=1))
    z = tf.layers.dropout(y, 0.3, noise_shape=[None, 1, 3], seed=2, training=True)
    z = tf.layers.dropout(z, 0.5, noise_shape=[1, 1, 3], training=tf.placeholder(tf.bool, [], name="t"))
    f = tf.layers.flatten(z)
    _gv(tf, f, x)

def layers_conv_regularized(tf):
    x = _x(tf, [None, 6, 6, 3])
    y = tf.layers.conv2d(x, 2, 3, kernel_regularizer=lambda w: tf.reduce_sum(w * w),)
    tf.gradients(tf.reduce_sum(y) + tf.losses.get_regularization_loss(), [x] + tf.trainable_variables())

# ---- tf.losses with weights and reductions
_RED = ["NONE", "SUM", "SUM_OVER_BATCH_SIZE", "MEAN", "SUM_BY_NONZERO_WEIGHTS", "SUM_OVER_NONZERO_WEIGHTS"]

def _loss_rows(fn):
    def snippet(tf):
        l, p = _x(tf, name="labels"), _x(tf, name="predictions")
        w = _x(tf, [None, 1], "w")
        outs = []
        for r in _RED:
            outs.append(fn(tf, l, p, w, getattr(tf.losses.Reduction, r)))
        outs.append(fn(tf, l, p, 2.0, tf.losses.Reduction.MEAN))
        tf.gradients(tf.add_n([tf.reduce_sum(o) for o in outs]), [p, w])
    return snippet

LOSSES = {
    "absolute_difference": lambda tf, l, p, w, r: tf.losses.absolute_difference(l, p, w, reduction=r),
    "mean_squared_error": lambda tf, l, p, w, r: tf.losses.mean_squared_error(l, p, w, reduction=r),
    "huber": lambda tf, l, p, w, r: tf.losses.huber_loss(l, p, w, delta=0.5, reduction=r),
    "log_loss": lambda tf, l, p, w, r: tf.losses.log_loss(l, p, w, epsilon=1e-5, reduction=r),
    "hinge": lambda tf, l, p, w, r: tf.losses.hinge_loss(l, p, w, reduction=r),
    "cosine": lambda tf, l, p, w, r: tf.losses.cosine_distance(l, p, axis=1, weights=w, reduction=r),
    "sigmoid_ce": lambda tf, l, p, w, r: tf.losses.sigmoid_cross_entropy(l, p, w, label_smoothing=0.1, reduction=r),
    "softmax_ce": lambda tf, l, p, w, r: tf.losses.softmax_cross_entropy(l, p, tf.reshape(w, [-1]) if not isinstance(w, float) else w, label_smoothing=0.1, reduction=r),
    "mean_pairwise": lambda tf, l, p, w, r: tf.losses.mean_pairwise_squared_error(l, p, w),
}

def losses_sparse_softmax(tf):
    l = _x(tf, [None], "labels", tf.int32); p = _x(tf, [None, 4], "logits"); w = _x(tf, [None], "w")
    outs = [tf.losses.sparse_softmax_cross_entropy(l, p, w, reduction=getattr(tf.losses.Reduction, r)) for r in _RED]
    outs.append(tf.losses.sparse_softmax_cross_entropy(l, p, loss_collection=None))
    tf.gradients(tf.add_n([tf.reduce_sum(o) for o in outs]), [p, w])
    tf.losses.get_losses()

def losses_compute_weighted(tf):
    x = _x(tf); w = _x(tf, [None, 1], "w")
    tf.losses.compute_weighted_loss(x, w, reduction=tf.losses.Reduction.SUM_BY_NONZERO_WEIGHTS)
    tf.losses.compute_weighted_loss(x)
    tf.losses.add_loss(tf.reduce_sum(x)); tf.losses.get_total_loss()

# ---- tf.metrics
def metrics_auc(tf):
    l = _x(tf, [None], "labels", tf.bool); p = _x(tf, [None], "p"); w = _x(tf, [None], "w")
    tf.metrics.auc(l, p, num_thresholds=20); tf.metrics.auc(l, p, w, curve="PR", summation_method="careful_interpolation", name="pr")
    tf.metrics.auc(l, p, summation_method="minoring", name="mino")

def metrics_at_k(tf):
    l = _x(tf, [None, 2], "labels", tf.int64); p = _x(tf, [None, 5], "p")
    tf.metrics.precision_at_k(l, p, 2); tf.metrics.recall_at_k(l, p, 3)
    tf.metrics.precision_at_k(l, p, 2, class_id=1, name="cls")
    tf.metrics.average_precision_at_k(l, p, 2)
    tf.metrics.precision_at_top_k(l, tf.nn.top_k(p, 2)[1])
    tf.metrics.recall_at_top_k(l, tf.nn.top_k(p, 2)[1])

def metrics_classification(tf):
    l = _x(tf, [None], "labels", tf.int64); p = _x(tf, [None], "p", tf.int64); w = _x(tf, [None], "w")
    tf.metrics.accuracy(l, p, w); tf.metrics.precision(l, p); tf.metrics.recall(l, p, w)
    tf.metrics.mean_per_class_accuracy(l, p, 3); tf.metrics.false_negatives(l, p); tf.metrics.true_positives(l, p, w)
    tf.metrics.mean_iou(l, p, 3, w)

def metrics_thresholds(tf):
    l = _x(tf, [None], "labels", tf.bool); p = _x(tf, [None], "p")
    tf.metrics.precision_at_thresholds(l, p, [0.3, 0.7]); tf.metrics.recall_at_thresholds(l, p, [0.5])
    tf.metrics.false_positives_at_thresholds(l, p, [0.5]); tf.metrics.true_negatives_at_thresholds(l, p, [0.2, 0.6])
    tf.metrics.sensitivity_at_specificity(l, p, 0.9); tf.metrics.specificity_at_sensitivity(l, p, 0.8, num_thresholds=50)

def metrics_regression(tf):
    l, p, w = _x(tf, name="labels"), _x(tf, name="p"), _x(tf, [None, 1], "w")
    tf.metrics.mean(p, w); tf.metrics.mean_absolute_error(l, p, w); tf.metrics.mean_squared_error(l, p)
    tf.metrics.root_mean_squared_error(l, p, w); tf.metrics.mean_relative_error(l, p, l + 1.0)
    tf.metrics.mean_cosine_distance(l, p, 1); tf.metrics.percentage_below(p, 0.5)

# ---- rnn_cell wrappers
def _rnn(tf, cell, x):
    y, s = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    _grad(tf, y, [x] + tf.trainable_variables())

def rnn_dropout_wrapper(tf):
    x = _x(tf, [2, 4, 3])
    c = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.BasicRNNCell(3), input_keep_prob=0.8, output_keep_prob=0.7, seed=3)
    _rnn(tf, c, x)

def rnn_residual_wrapper(tf):
    x = _x(tf, [2, 4, 3])
    _rnn(tf, tf.nn.rnn_cell.ResidualWrapper(tf.nn.rnn_cell.GRUCell(3)), x)

def rnn_multi_lstm(tf):
    x = _x(tf, [2, 4, 3])
    c = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(3, use_peepholes=True), tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.BasicLSTMCell(2), state_keep_prob=0.9, seed=1)])
    _rnn(tf, c, x)

def rnn_static_multi(tf):
    xs = [_x(tf, [None, 3], f"x{i}") for i in range(3)]
    c = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.ResidualWrapper(tf.nn.rnn_cell.BasicRNNCell(3)) for _ in range(2)])
    ys, _ = tf.nn.static_rnn(c, xs, dtype=tf.float32)
    _grad(tf, tf.add_n(ys), xs)

def rnn_device_wrapper_bidir(tf):
    x = _x(tf, [None, 4, 3])
    fw = tf.nn.rnn_cell.DeviceWrapper(tf.nn.rnn_cell.GRUCell(2), "/cpu:0")
    bw = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.LSTMCell(2), output_keep_prob=0.5, seed=2)
    (a, b), _ = tf.nn.bidirectional_dynamic_rnn(fw, bw, x, dtype=tf.float32)
    _grad(tf, a + b, [x])

# ---- strings
def strings_ops(tf):
    s = _x(tf, [None], "s", tf.string)
    tf.string_split(s, " "); tf.strings.split(s, sep=","); tf.substr(s, 0, 2); tf.strings.substr(s, 1, 3, unit="UTF8_CHAR")
    tf.string_join([s, s], separator="-"); tf.strings.length(s); tf.strings.upper(s)
    tf.strings.regex_replace(s, "a+", "b"); tf.strings.regex_full_match(s, "a.*"); tf.string_to_number(s)
    tf.strings.to_hash_bucket_fast(s, 10); tf.string_to_hash_bucket_strong(s, 10, [1, 2]); tf.reduce_join(s, 0)
    tf.as_string(tf.constant([1.5, 2.0]), precision=2); tf.strings.strip(s); tf.strings.format("{}", [s])
    tf.decode_base64(s); tf.encode_base64(s, pad=True); tf.strings.unicode_decode(s, "UTF-8")

def strings_split_sparse(tf):
    s = _x(tf, [None], "s", tf.string)
    sp = tf.string_split(s)
    tf.sparse.to_dense(sp, default_value="")
    tf.strings.split(s, result_type="SparseTensor")
    tf.string_split(s, "", skip_empty=False)

# ---- sparse
def sparse_ops(tf):
    i = _x(tf, [None, 2], "i", tf.int64); v = _x(tf, [None], "v"); sh = tf.constant([4, 5], tf.int64)
    sp = tf.SparseTensor(i, v, sh)
    d = _x(tf, [5, 3], "d")
    y = tf.sparse_tensor_dense_matmul(sp, d) + tf.sparse.sparse_dense_matmul(sp, d, adjoint_a=False)
    r = tf.sparse_reduce_sum(sp, 1) 
    tf.sparse_reduce_sum_sparse(sp, 0)
    t = tf.sparse_transpose(sp); tf.sparse_reorder(sp); tf.sparse_reshape(sp, [20]); tf.sparse.slice(sp, [0, 0], [2, 2])
    a = tf.sparse_add(sp, sp); tf.sparse_add(sp, tf.ones([4, 5])); tf.sparse_softmax(sp); tf.sparse_maximum(sp, sp)
    tf.sparse_concat(1, [sp, sp]); tf.sparse_fill_empty_rows(sp, 0.0); tf.sparse_retain(sp, tf.greater(v, 0.0))
    tf.sparse_to_indicator(tf.SparseTensor(i, tf.cast(v, tf.int64), sh), 10); tf.sparse.expand_dims(sp, 0)
    tf.sparse_split(sp_input=sp, num_split=2, axis=1); tf.sparse_tensor_to_dense(sp); tf.sparse.to_dense(sp, validate_indices=False)
    tf.sparse_placeholder(tf.float32, name="sp")
    _grad(tf, tf.reduce_sum(y) + tf.reduce_sum(r) + tf.reduce_sum(a.values) + tf.reduce_sum(t.values), [v, d])

def sparse_reduce_sum_unknown_shape(tf):  # reduced_shape's DynamicStitch when the dense shape is fed
    sp = tf.sparse_placeholder(tf.float32, name="sp")
    _grad(tf, tf.sparse_reduce_sum(sp, 1) + tf.sparse_reduce_sum(sp, -1, keepdims=True), [sp.values])


def sparse_to_dense_and_segment(tf):
    i = _x(tf, [None], "i", tf.int32); v = _x(tf, [None], "v")
    tf.sparse_to_dense(i, [10], v, 0.0, validate_indices=False)
    x = _x(tf, [None, 3], "x"); seg = _x(tf, [None], "seg", tf.int32)
    y = tf.sparse_segment_sum(x, i, seg) + tf.sparse_segment_mean(x, i, seg) + tf.sparse_segment_sqrt_n(x, i, seg)
    z = tf.segment_max(x, seg) + tf.segment_min(x, seg) + tf.segment_mean(x, seg)
    _grad(tf, tf.reduce_sum(y) + tf.reduce_sum(z), [x])

# ---- tf.train input pipelines
def train_string_input_producer(tf):
    q = tf.train.string_input_producer(["a", "b"], num_epochs=2, shuffle=True, seed=3)
    r = tf.TextLineReader(skip_header_lines=1); k, v = r.read(q)
    tf.train.shuffle_batch([k, v], 4, 20, 5, num_threads=2, seed=1, allow_smaller_final_batch=True)

def train_batch_join(tf):
    a = _x(tf, [3], "a"); b = _x(tf, [3], "b")
    tf.train.batch_join([[a], [b]], 4); tf.train.shuffle_batch_join([[a, tf.constant(1)], [b, tf.constant(2)]], 2, 10, 2, seed=3)
    tf.train.batch([a], 2, dynamic_pad=True, num_threads=2, capacity=8); tf.train.maybe_batch([b], tf.constant(True), 2)

def train_slice_input_producer(tf):
    a = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3)); b = tf.constant(np.arange(4))
    x, y = tf.train.slice_input_producer([a, b], num_epochs=3, shuffle=True, seed=2)
    tf.train.batch([x, y], 2)
    tf.train.range_input_producer(10, shuffle=False); tf.train.input_producer(tf.constant([1., 2.]), element_shape=[])
    tf.train.limit_epochs(tf.constant([1, 2]), 2)

def train_fixed_length_reader(tf):
    q = tf.train.string_input_producer(["f"], shuffle=False)
    k, v = tf.FixedLengthRecordReader(8, header_bytes=2).read(q)
    tf.decode_raw(v, tf.uint8); tf.TFRecordReader().read_up_to(q, 3); tf.WholeFileReader().read(q)
    tf.train.match_filenames_once("*.txt")

def nn_conv1d_transpose_and_conv1d(tf):
    x = _x(tf, [None, 6, 3]); f = _x(tf, [3, 2, 3], "f"); g = _x(tf, [3, 3, 2], "g")
    y = tf.nn.conv1d_transpose(x, f, [2, 12, 2], 2, padding="SAME")
    z = tf.nn.conv1d(x, g, 1, "VALID")
    _grad(tf, tf.reduce_sum(y) + tf.reduce_sum(z), [x, f, g])
def nn_dilation2d_and_erosion(tf):
    x = _x(tf, [None, 6, 6, 3]); f = _x(tf, [2, 2, 3], "f")
    y = tf.nn.dilation2d(x, f, [1, 1, 1, 1], [1, 1, 1, 1], "SAME")
    z = tf.nn.erosion2d(x, f, [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
    _grad(tf, tf.reduce_sum(y) + tf.reduce_sum(z), [x, f])
def img_resize_aspect_grad(tf):
    x = _x(tf, [2, 8, 6, 3])
    y = tf.image.resize_images(x, [4, 4], preserve_aspect_ratio=True, method=tf.image.ResizeMethod.BICUBIC)
    _grad(tf, y, [x])
def data_padded_batch_dict(tf):
    d = tf.data.Dataset.range(5).map(lambda v: {"a": tf.fill([v], 1.0), "b": v})
    d = d.padded_batch(2, padded_shapes={"a": [6], "b": []}).repeat(2)
    tf.data.make_one_shot_iterator(d).get_next()
def nn_softmax_family_grad(tf):
    x = _x(tf, [None, 4])
    y = tf.nn.softmax(x, axis=0) + tf.nn.log_softmax(x) + tf.nn.softplus(x) + tf.nn.softsign(x) + tf.nn.relu6(x) + tf.nn.leaky_relu(x, 0.1) + tf.nn.selu(x) + tf.nn.crelu(x)[:, :4]
    _grad(tf, y, [x])
def sparse_softmax_and_slice_grad(tf):
    i = _x(tf, [None, 2], "i", tf.int64); v = _x(tf, [None], "v")
    sp = tf.SparseTensor(i, v, tf.constant([4, 5], tf.int64))
    a = tf.sparse_softmax(sp); b = tf.sparse.slice(sp, [0, 0], [2, 3]); c = tf.sparse_add(sp, tf.sparse_reorder(sp))
    _grad(tf, tf.reduce_sum(a.values) + tf.reduce_sum(b.values) + tf.reduce_sum(c.values), [v])


NOT_YET = {
    "nn_ctc_loss_v2": "ctc_loss_v2 on dense labels: TF builds ctc_loss_dense's forward-backward graph; "
                      "ref converts the labels to sparse and calls CTCLoss",
}

ROWS = {k: v for k, v in list(globals().items())
        if callable(v) and not k.startswith("_") and k.split("_")[0] in
        ("img", "data", "nn", "layers", "losses", "metrics", "rnn", "strings", "sparse", "train")}
ROWS.update({f"losses_{k}": _loss_rows(f) for k, f in LOSSES.items()})


@pytest.mark.parametrize("snippet", [
    pytest.param(f, id=name, marks=[pytest.mark.xfail(reason=NOT_YET[name], strict=True)] if name in NOT_YET else [])
    for name, f in ROWS.items()])
def test_graph_is_tensorflows(snippet):
    assert_same_graph(snippet)


# -- values of what ref now builds differently ------------------------------------------

def _dilated_depthwise(tf):
    rng = np.random.default_rng(5)
    x = tf.placeholder(tf.float32, [None, None, None, 3], name="x")
    d = tf.constant(rng.standard_normal([3, 3, 3, 2]).astype(np.float32))
    p = tf.constant(rng.standard_normal([1, 1, 6, 4]).astype(np.float32))
    y = [tf.nn.depthwise_conv2d(x, d, [1, 1, 1, 1], "VALID", rate=[2, 3]),
         tf.nn.separable_conv2d(x, d, p, [1, 1, 1, 1], "SAME", rate=[2, 2]),
         tf.nn.depthwise_conv2d(x, d, [1, 1, 1, 1], "SAME", rate=[3, 2])]
    return y + tf.gradients(tf.add_n([tf.reduce_sum(t * t) for t in y]), [x]), {
        x: rng.standard_normal([2, 9, 7, 3]).astype(np.float32)}


def _activity_regularizer(tf):  # the loss divided by the batch size, as TF's Keras-based layers
    x = tf.placeholder_with_default(np.arange(20, dtype=np.float32).reshape(5, 4) / 7.0, [None, 4])
    tf.layers.dense(x, 3, kernel_initializer=tf.constant_initializer(0.5),
                    activity_regularizer=lambda a: 0.01 * tf.reduce_sum(a * a))
    return tf.losses.get_regularization_loss()


def _sparse_reduce_sum_grad(tf):
    sp = tf.sparse_placeholder(tf.float32, name="sp")
    w = tf.constant(np.arange(1, 13, dtype=np.float32).reshape(3, 4))
    y = tf.reduce_sum(tf.sparse_reduce_sum(sp, 1) * w[:, 0]) + tf.reduce_sum(tf.sparse_reduce_sum(sp, -2, keepdims=True) * w[0])
    value = tf.SparseTensorValue([[0, 1], [1, 3], [2, 0], [2, 2]], np.array([1., 2., 3., 4.], np.float32), [3, 4])
    return tf.gradients(y, [sp.values]), {sp: value}


def _noise_shape_dropout_keeps_whole_rows(tf):  # rate 1 - tiny: every kept row is kept whole, per the noise shape
    x = tf.placeholder(tf.float32, [None, 5, 3], name="x")
    y = tf.layers.dropout(x, 0.5, noise_shape=[None, 1, 3], seed=7, training=True)
    kept = tf.cast(tf.not_equal(y, 0.0), tf.float32)
    return tf.reduce_max(kept, 1) - tf.reduce_min(kept, 1), {x: np.ones([4, 5, 3], np.float32)}


def _conv3d_transpose_layer(tf):
    rng = np.random.default_rng(6)
    z = tf.placeholder_with_default(rng.standard_normal([2, 2, 3, 2, 3]).astype(np.float32), [None, None, 3, 2, 3])
    k = tf.constant_initializer(rng.standard_normal([3, 2, 3, 4, 3]).astype(np.float32))
    y = tf.layers.conv3d_transpose(z, 4, [3, 2, 3], strides=(2, 1, 2), kernel_initializer=k,
                                   bias_initializer=tf.constant_initializer(0.25))
    return [y, tf.gradients(tf.reduce_sum(y * y), [z])[0]]


def test_conv3d_transpose_layer_values_are_tensorflows():
    got, want = ref_and_tf_values(_conv3d_transpose_layer)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)


def _padded_batch_of_dicts(tf):
    d = tf.data.Dataset.range(5).map(lambda v: {"a": tf.fill([v], 1.5), "b": v})
    return tf.data.make_one_shot_iterator(d.padded_batch(2, padded_shapes={"a": [6], "b": []})).get_next()


def test_padded_batch_of_dicts_is_tensorflows():  # padded_shapes given as a dict, flattened by key
    got, want = ref_and_tf_values(_padded_batch_of_dicts)
    assert sorted(got) == sorted(want)
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])


def test_activity_regularizer_loss_is_tensorflows():
    got, want = ref_and_tf_values(_activity_regularizer)
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("snippet", [_dilated_depthwise, _sparse_reduce_sum_grad, _noise_shape_dropout_keeps_whole_rows],
                         ids=["dilated_depthwise_and_separable", "sparse_reduce_sum_grad",
                              "dropout_noise_shape_from_input"])
def test_values_are_tensorflows(snippet):
    import ref
    got, want = fed_values(ref, snippet), fed_values(tf_v1(), snippet)
    for g, w in zip(got if isinstance(got, list) else [got], want if isinstance(want, list) else [want]):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)
