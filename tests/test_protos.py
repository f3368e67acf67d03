"""ref/protos: regeneration, descriptor equality with TensorFlow, wire round trips.

TensorFlow's own descriptors are the oracle: every message and enum of ours must
have TF's field names, numbers, types and repeatedness, recursively. Only the
fields listed in ``OMITTED`` may be missing (the config.proto subset).
"""

import importlib
import importlib.util
import os
import pathlib
import subprocess
import sys
import types

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTO_DIR = ROOT / "ref" / "protos"

# our module -> TensorFlow's module defining the same messages (all ship with TF 2.21)
TF_MODULES = {
    "types_pb2": "tensorflow.core.framework.types_pb2",
    "tensor_shape_pb2": "tensorflow.core.framework.tensor_shape_pb2",
    "resource_handle_pb2": "tensorflow.core.framework.resource_handle_pb2",
    "tensor_pb2": "tensorflow.core.framework.tensor_pb2",
    "attr_value_pb2": "tensorflow.core.framework.attr_value_pb2",
    "full_type_pb2": "tensorflow.core.framework.full_type_pb2",
    "node_def_pb2": "tensorflow.core.framework.node_def_pb2",
    "op_def_pb2": "tensorflow.core.framework.op_def_pb2",
    "function_pb2": "tensorflow.core.framework.function_pb2",
    "versions_pb2": "tensorflow.core.framework.versions_pb2",
    "graph_debug_info_pb2": "tensorflow.core.framework.graph_debug_info_pb2",
    "graph_pb2": "tensorflow.core.framework.graph_pb2",
    "tensor_slice_pb2": "tensorflow.core.framework.tensor_slice_pb2",
    "tensor_bundle_pb2": "tensorflow.core.protobuf.tensor_bundle_pb2",
    "histogram_pb2": "tensorflow.compiler.xla.tsl.protobuf.histogram_pb2",
    "summary_pb2": "tensorflow.core.framework.summary_pb2",
    "event_pb2": "tensorflow.core.util.event_pb2",
    "saved_tensor_slices_pb2": "tensorflow.core.util.saved_tensor_slice_pb2",
    "checkpoint_state_pb2": "tensorflow.python.training.checkpoint_state_pb2",
    "trackable_object_graph_pb2": "tensorflow.core.protobuf.trackable_object_graph_pb2",
    "variable_pb2": "tensorflow.core.framework.variable_pb2",
    "saver_pb2": "tensorflow.core.protobuf.saver_pb2",
    "error_codes_pb2": "tensorflow.compiler.xla.tsl.protobuf.error_codes_pb2",
    "queue_runner_pb2": "tensorflow.core.protobuf.queue_runner_pb2",
    "control_flow_pb2": "tensorflow.core.protobuf.control_flow_pb2",
    "struct_pb2": "tensorflow.core.protobuf.struct_pb2",
    "feature_pb2": "tensorflow.core.example.feature_pb2",
    "example_pb2": "tensorflow.core.example.example_pb2",
    "saved_object_graph_pb2": "tensorflow.core.protobuf.saved_object_graph_pb2",
    "meta_graph_pb2": "tensorflow.core.protobuf.meta_graph_pb2",
    "saved_model_pb2": "tensorflow.core.protobuf.saved_model_pb2",
    "allocation_description_pb2": "tensorflow.core.framework.allocation_description_pb2",
    "tensor_description_pb2": "tensorflow.core.framework.tensor_description_pb2",
    "step_stats_pb2": "tensorflow.core.framework.step_stats_pb2",
    "cost_graph_pb2": "tensorflow.core.framework.cost_graph_pb2",
    "config_pb2": "tensorflow.core.protobuf.config_pb2",
    "rewriter_config_pb2": "tensorflow.core.protobuf.rewriter_config_pb2",
    "cluster_pb2": "tensorflow.core.protobuf.cluster_pb2",
    "device_filters_pb2": "tensorflow.core.protobuf.device_filters_pb2",
    "tensorflow_server_pb2": "tensorflow.core.protobuf.tensorflow_server_pb2",
    "named_tensor_pb2": "tensorflow.core.protobuf.named_tensor_pb2",
    "device_attributes_pb2": "tensorflow.core.framework.device_attributes_pb2",
    "debug_pb2": "tensorflow.core.protobuf.debug_pb2",
}

# TF ships no Python module for the distributed runtime's messages (master.proto and
# worker.proto exist only inside libtensorflow_cc), so they are checked against TF
# 2.21's field numbers as listed in ../shared/DISTRIBUTED.md section 1.2.
WIRE_ONLY = {
    "master": {
        "CreateSessionRequest": {"graph_def": 1, "config": 2, "target": 3},
        "CreateSessionResponse": {"session_handle": 1, "graph_version": 2},
        "ExtendSessionRequest": {"session_handle": 1, "graph_def": 2, "current_graph_version": 3},
        "ExtendSessionResponse": {"new_graph_version": 4},
        "RunStepRequest": {"session_handle": 1, "feed": 2, "fetch": 3, "target": 4, "options": 5,
                           "partial_run_handle": 6, "store_errors_in_response_body": 7, "request_id": 8},
        "RunStepResponse": {"tensor": 1, "metadata": 2, "status_code": 3, "status_error_message": 4},
        "PartialRunSetupRequest": {"session_handle": 1, "feed": 2, "fetch": 3, "target": 4, "request_id": 5},
        "PartialRunSetupResponse": {"partial_run_handle": 1},
        "CloseSessionRequest": {"session_handle": 1},
        "CloseSessionResponse": {},
        "ResetRequest": {"container": 1, "device_filters": 2},
        "ResetResponse": {},
        "ListDevicesRequest": {"session_handle": 1},
        "ListDevicesResponse": {"local_device": 1, "remote_device": 2},
        "MakeCallableRequest": {"session_handle": 1, "options": 2, "request_id": 3},
        "MakeCallableResponse": {"handle": 1},
        "RunCallableRequest": {"session_handle": 1, "handle": 2, "feed": 3, "request_id": 4},
        "RunCallableResponse": {"fetch": 1, "metadata": 2},
        "ReleaseCallableRequest": {"session_handle": 1, "handle": 2},
        "ReleaseCallableResponse": {},
    },
    "worker": {
        "GetStatusRequest": {},
        "GetStatusResponse": {"device_attributes": 1},
        "CreateWorkerSessionRequest": {"session_handle": 1, "server_def": 2, "isolate_session_state": 3,
                                       "cluster_device_attributes": 4, "master_task": 5,
                                       "master_incarnation": 6},
        "CreateWorkerSessionResponse": {},
        "DeleteWorkerSessionRequest": {"session_handle": 1},
        "DeleteWorkerSessionResponse": {},
        "RegisterGraphRequest": {"session_handle": 1, "create_worker_session_called": 6, "graph_def": 2,
                                 "has_control_flow": 3, "graph_options": 4, "debug_options": 5,
                                 "collective_graph_key": 7, "config_proto": 8},
        "RegisterGraphResponse": {"graph_handle": 1},
        "DeregisterGraphRequest": {"session_handle": 2, "create_worker_session_called": 3, "graph_handle": 1},
        "DeregisterGraphResponse": {},
        "CleanupAllRequest": {"container": 1},
        "CleanupAllResponse": {},
        "ExecutorOpts": {"record_costs": 1, "record_timeline": 3, "record_partition_graphs": 4,
                         "report_tensor_allocations_upon_oom": 5},
        "RunGraphRequest": {"session_handle": 8, "create_worker_session_called": 10, "graph_handle": 1,
                            "step_id": 2, "exec_opts": 5, "send": 3, "recv_key": 4, "is_partial": 6,
                            "is_last_partial_run": 7, "store_errors_in_response_body": 9, "request_id": 11},
        "RunGraphResponse": {"recv": 1, "step_stats": 2, "cost_graph": 3, "partition_graph": 4,
                             "status_code": 5, "status_error_message": 6},
        "CleanupGraphRequest": {"step_id": 1},
        "CleanupGraphResponse": {},
        "RecvTensorRequest": {"step_id": 1, "rendezvous_key": 2, "dma_ok": 3, "client_locality": 4,
                              "server_locality": 5, "transport_options": 6, "request_id": 7},
        "RecvTensorResponse": {"tensor": 1, "is_dead": 2, "send_start_micros": 3, "transport_options": 4,
                               "require_ack": 5},
        "MarkRecvFinishedRequest": {"request_id": 1},
        "MarkRecvFinishedResponse": {},
        "LoggingRequest": {"enable_rpc_logging": 1, "disable_rpc_logging": 4, "clear": 2, "fetch_step_id": 3},
        "LabeledStepStats": {"step_id": 1, "step_stats": 2},
        "LoggingResponse": {"step": 1},
        "TraceOpts": {"duration": 1, "use_step_profiler": 2, "use_kernel_profiler": 3,
                      "use_extended_profiler": 4, "use_gpu_profiler": 5, "use_sample_profiler": 6},
        "TracingRequest": {"options": 1},
        "TracingResponse": {},
    },
}

# The only allowed differences: TF fields left out of our config.proto subset
# (message -> omitted field numbers). step_stats and cost_graph are complete.
OMITTED = {
    "ref_tf.RewriterConfig": {300, 301},  # the VerifierConfigs
    "ref_tf.ConfigProto.Experimental": {23},  # coordination_config
}

# Messages our config.proto declares that TF keeps in another file.
ELSEWHERE = {"RPCOptions": "tensorflow.compiler.xla.tsl.protobuf.rpc_options_pb2"}

OUR_MODULES = sorted(p.stem for p in PROTO_DIR.glob("*.proto"))


def _ours(name):
    return importlib.import_module(f"ref.protos.{name}_pb2")


def _tf_module(our_module):
    pytest.importorskip("tensorflow")
    return importlib.import_module(TF_MODULES[our_module])


def _tf_name(full_name):
    assert full_name.startswith("ref_tf."), full_name
    return "tensorflow." + full_name[len("ref_tf."):]


# --------------------------------------------------------------------------- (1)


def _load_generator():
    spec = importlib.util.spec_from_file_location("gen_protos", ROOT / "tools" / "gen_protos.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory):
    pytest.importorskip("grpc_tools")
    out = tmp_path_factory.mktemp("protos")
    # In a fresh process: protoc's in-process compiler can crash once TensorFlow's
    # own protobuf runtime is loaded in the same interpreter.
    subprocess.run([sys.executable, str(ROOT / "tools" / "gen_protos.py"), "--out", str(out)], check=True,
                   stdout=subprocess.DEVNULL)
    return out / "ref" / "protos"


def test_every_proto_has_generated_code(regenerated):
    ours = sorted(p.name for p in PROTO_DIR.glob("*_pb2.py"))
    fresh = sorted(p.name for p in regenerated.glob("*_pb2.py"))
    assert fresh == ours == sorted(f"{m}_pb2.py" for m in OUR_MODULES)


@pytest.mark.parametrize("name", OUR_MODULES)
def test_regeneration_is_byte_identical(regenerated, name):
    checked_in = (PROTO_DIR / f"{name}_pb2.py").read_bytes()
    fresh = (regenerated / f"{name}_pb2.py").read_bytes()
    assert fresh == checked_in, (
        f"{name}_pb2.py is stale or was generated by another protoc: "
        "run `python tools/gen_protos.py` with the pinned grpcio-tools==1.85.1")


# --------------------------------------------------------------------------- (2)


def _compare_enum(ours, theirs):
    assert _tf_name(ours.full_name) == theirs.full_name
    assert [(v.name, v.number) for v in ours.values] == [(v.name, v.number) for v in theirs.values]


def _compare_message(ours, theirs, seen):
    if ours.full_name in seen:
        return
    seen.add(ours.full_name)
    where = ours.full_name
    if where.startswith("google.protobuf."):  # well-known types are shared, not mirrored
        assert theirs.full_name == where
        return
    assert _tf_name(where) == theirs.full_name
    assert ours.GetOptions().map_entry == theirs.GetOptions().map_entry, where
    omitted = OMITTED.get(where, set())
    assert {f.number for f in theirs.fields} - {f.number for f in ours.fields} == omitted, where
    for f in ours.fields:
        g = theirs.fields_by_number.get(f.number)
        assert g is not None, f"{where}.{f.name}: no field {f.number} in TF"
        assert (f.name, f.type, f.is_repeated, f.is_required, f.has_presence, f.is_packed) == (
            g.name, g.type, g.is_repeated, g.is_required, g.has_presence, g.is_packed), f"{where}.{f.name}"
        assert (f.containing_oneof and f.containing_oneof.name) == (
            g.containing_oneof and g.containing_oneof.name), f"{where}.{f.name}"
        if f.message_type is not None:
            _compare_message(f.message_type, g.message_type, seen)
        if f.enum_type is not None:
            _compare_enum(f.enum_type, g.enum_type)
    assert sorted(n.name for n in ours.nested_types) == sorted(n.name for n in theirs.nested_types), where
    for n in ours.nested_types:
        _compare_message(n, theirs.nested_types_by_name[n.name], seen)
    assert sorted(e.name for e in ours.enum_types) == sorted(e.name for e in theirs.enum_types), where
    for e in ours.enum_types:
        _compare_enum(e, theirs.enum_types_by_name[e.name])


@pytest.mark.parametrize("name", sorted(WIRE_ONLY))
def test_wire_only_messages_have_tf_field_numbers(name):
    ours = _ours(name).DESCRIPTOR
    assert ours.package == "ref_tf"
    assert set(ours.message_types_by_name) == set(WIRE_ONLY[name])
    for message, fields in WIRE_ONLY[name].items():
        got = {f.name: f.number for f in ours.message_types_by_name[message].fields}
        assert got == fields, message


@pytest.mark.parametrize("name", [n for n in OUR_MODULES if n not in WIRE_ONLY])
def test_descriptors_match_tensorflow(name):
    ours = _ours(name).DESCRIPTOR
    theirs = _tf_module(f"{name}_pb2").DESCRIPTOR
    assert ours.name == f"ref/protos/{name}.proto"
    assert ours.package == theirs.package.replace("tensorflow", "ref_tf", 1)
    for enum in ours.enum_types_by_name.values():
        _compare_enum(enum, theirs.enum_types_by_name[enum.name])
    if name != "config":  # config.proto: a subset of TF's top-level messages
        assert set(ours.message_types_by_name) == set(theirs.message_types_by_name)
        assert set(ours.enum_types_by_name) == set(theirs.enum_types_by_name)
    seen = set()
    for message in ours.message_types_by_name.values():
        if message.name in ELSEWHERE:
            other = importlib.import_module(ELSEWHERE[message.name]).DESCRIPTOR
            _compare_message(message, other.message_types_by_name[message.name], seen)
            continue
        _compare_message(message, theirs.message_types_by_name[message.name], seen)


def test_omitted_fields_exist_in_tensorflow():
    """The subset table names real TF fields and our messages that do exist."""
    pytest.importorskip("tensorflow")
    from google.protobuf import descriptor_pool

    pool = descriptor_pool.Default()
    _tf_module("config_pb2")
    for ours, numbers in OMITTED.items():
        ours_desc = pool.FindMessageTypeByName(ours)
        theirs = pool.FindMessageTypeByName(_tf_name(ours))
        assert numbers <= set(theirs.fields_by_number)
        assert not numbers & set(ours_desc.fields_by_number)


# --------------------------------------------------------------------------- (3)


def _graph_def(m):
    g = m.graph_pb2.GraphDef()
    g.versions.producer = 1882
    g.versions.min_consumer = 12
    g.versions.bad_consumers.extend([3, 7])
    c = g.node.add(name="a/Const", op="Const", device="/device:CPU:0")
    c.attr["dtype"].type = m.types_pb2.DT_FLOAT
    value = c.attr["value"].tensor
    value.dtype = m.types_pb2.DT_FLOAT
    value.tensor_shape.dim.add(size=2)
    value.tensor_content = b"\x00\x00\x80?\x00\x00\x00@"
    c.experimental_debug_info.original_node_names.append("orig")
    v = g.node.add(name="w", op="VariableV2")
    v.attr["shape"].shape.dim.add(size=-1)
    v.attr["shape"].shape.dim.add(size=3, name="cols")
    v.attr["dtype"].type = m.types_pb2.DT_FLOAT_REF
    v.attr["container"].s = b""
    v.attr["ints"].list.i.extend([1, -2, 3])
    v.attr["fn"].func.name = "f"
    v.attr["fn"].func.attr["T"].type = m.types_pb2.DT_INT64
    a = g.node.add(name="add", op="AddV2", input=["a/Const", "w", "^init"])
    a.attr["T"].type = m.types_pb2.DT_FLOAT
    f = g.library.function.add()
    f.signature.name = "f"
    f.signature.input_arg.add(name="x", type_attr="T")
    f.signature.output_arg.add(name="y", type=m.types_pb2.DT_HALF)
    f.signature.attr.add(name="T", type="type")
    f.ret["y"] = "x"
    f.node_def.add(name="id", op="Identity", input=["x"])
    g.library.gradient.add(function_name="f", gradient_func="f_grad")
    return g


def _event(m):
    e = m.event_pb2.Event(wall_time=1.5e9, step=42)
    s = e.summary
    s.value.add(tag="loss", simple_value=0.25)
    h = s.value.add(tag="hist").histo
    h.min, h.max, h.num, h.sum, h.sum_squares = -1.0, 2.0, 3.0, 1.5, 5.0
    h.bucket_limit.extend([0.0, 1.0, 1.7976931348623157e308])
    h.bucket.extend([1.0, 1.0, 1.0])
    img = s.value.add(tag="img").image
    img.height, img.width, img.colorspace, img.encoded_image_string = 2, 3, 3, b"\x89PNG"
    t = s.value.add(tag="text", node_name="n")
    t.metadata.plugin_data.plugin_name = "text"
    t.metadata.plugin_data.content = b"\x08\x01"
    t.metadata.data_class = m.summary_pb2.DATA_CLASS_TENSOR
    t.tensor.dtype = m.types_pb2.DT_STRING
    t.tensor.string_val.append(b"hello")
    return e


def _event_session_log(m):
    e = m.event_pb2.Event(wall_time=2.0, step=7)
    e.session_log.status = m.event_pb2.SessionLog.CHECKPOINT
    e.session_log.checkpoint_path = "/tmp/model.ckpt-7"
    e.source_metadata.writer = "ref"
    return e


def _event_file_version(m):
    return m.event_pb2.Event(wall_time=1.0, file_version="brain.Event:2")


def _bundle_entry(m):
    b = m.tensor_bundle_pb2.BundleEntryProto(dtype=m.types_pb2.DT_DOUBLE, shard_id=1,
                                             offset=4096, size=48, crc32c=0xDEADBEEF)
    b.shape.dim.add(size=2)
    b.shape.dim.add(size=3)
    sl = b.slices.add()
    sl.extent.add(start=0, length=1)
    sl.extent.add()
    return b


def _bundle_header(m):
    h = m.tensor_bundle_pb2.BundleHeaderProto(num_shards=2)
    h.endianness = m.tensor_bundle_pb2.BundleHeaderProto.BIG
    h.version.producer = 1
    return h


def _meta_graph_def(m):
    mg = m.meta_graph_pb2.MetaGraphDef()
    info = mg.meta_info_def
    info.meta_graph_version = "v1"
    info.tags.append("serve")
    info.tensorflow_version = "2.21.0"
    info.stripped_op_list.op.add(name="Const").output_arg.add(name="output", type_attr="dtype")
    mg.graph_def.CopyFrom(_graph_def(m))
    sd = mg.saver_def
    sd.filename_tensor_name = "save/Const:0"
    sd.save_tensor_name = "save/control_dependency:0"
    sd.restore_op_name = "save/restore_all"
    sd.max_to_keep = 5
    sd.sharded = True
    sd.keep_checkpoint_every_n_hours = 10000.0
    sd.version = m.saver_pb2.SaverDef.V2
    cols = mg.collection_def
    cols["variables"].bytes_list.value.append(b"\n\x03w:0")
    cols["train_op"].node_list.value.append("train")
    cols["global_step"].int64_list.value.extend([0, -1, 2**40])
    cols["floats"].float_list.value.extend([0.5, -2.0])
    any_value = cols["anys"].any_list.value.add()
    any_value.type_url = "type.googleapis.com/x.Y"
    any_value.value = b"\x08\x01"
    sig = mg.signature_def["serving_default"]
    sig.method_name = "tensorflow/serving/predict"
    x = sig.inputs["x"]
    x.name, x.dtype = "x:0", m.types_pb2.DT_FLOAT
    x.tensor_shape.unknown_rank = True
    y = sig.outputs["y"].coo_sparse
    y.values_tensor_name, y.indices_tensor_name, y.dense_shape_tensor_name = "v:0", "i:0", "s:0"
    mg.asset_file_def.add(filename="vocab.txt").tensor_info.name = "asset:0"
    mg.object_graph_def.nodes.add().children.add(node_id=1, local_name="w")
    return mg


def _saved_tensor_slices(m):
    s = m.saved_tensor_slices_pb2.SavedTensorSlices()
    meta = s.meta.tensor.add(name="w", type=m.types_pb2.DT_FLOAT)
    meta.shape.dim.add(size=4)
    meta.slice.add().extent.add(start=0, length=2)
    s.meta.versions.producer = 1
    s.data.name = "w"
    s.data.slice.extent.add(start=0, length=2)
    s.data.data.dtype = m.types_pb2.DT_FLOAT
    s.data.data.float_val.extend([1.0, 2.0])
    return s


def _checkpoint_state(m):
    return m.checkpoint_state_pb2.CheckpointState(
        model_checkpoint_path="model.ckpt-2",
        all_model_checkpoint_paths=["model.ckpt-1", "model.ckpt-2"],
        all_model_checkpoint_timestamps=[1.0, 2.0], last_preserved_timestamp=0.5)


def _trackable_object_graph(m):
    g = m.trackable_object_graph_pb2.TrackableObjectGraph()
    root = g.nodes.add()
    root.children.add(node_id=1, local_name="v")
    v = g.nodes.add()
    v.attributes.add(name="VARIABLE_VALUE", full_name="v", checkpoint_key="v/.ATTRIBUTES/VARIABLE_VALUE")
    v.slot_variables.add(original_variable_node_id=1, slot_name="m", slot_variable_node_id=2)
    return g


def _variable_def(m):
    v = m.variable_pb2.VariableDef(variable_name="w:0", initializer_name="w/Assign",
                                   snapshot_name="w/read:0", initial_value_name="zeros:0",
                                   trainable=True)
    v.synchronization = m.variable_pb2.VARIABLE_SYNCHRONIZATION_ON_READ
    v.aggregation = m.variable_pb2.VARIABLE_AGGREGATION_MEAN
    v.save_slice_info_def.full_name = "w"
    v.save_slice_info_def.full_shape.extend([4, 3])
    return v


def _queue_runner(m):
    q = m.queue_runner_pb2.QueueRunnerDef(queue_name="fifo", enqueue_op_name=["enq"],
                                          close_op_name="close", cancel_op_name="cancel")
    q.queue_closed_exception_types.append(m.error_codes_pb2.OUT_OF_RANGE)
    return q


def _run_metadata(m):
    r = m.config_pb2.RunMetadata()
    dev = r.step_stats.dev_stats.add(device="/cpu:0")
    node = dev.node_stats.add(node_name="add", all_start_micros=5, op_end_rel_micros=3)
    node.output.add(slot=0).tensor_description.dtype = m.types_pb2.DT_FLOAT
    r.cost_graph.node.add(name="add", id=1, compute_cost=3)
    r.partition_graphs.add().node.add(name="p", op="NoOp")
    return r


def _config(m):
    c = m.config_pb2.ConfigProto(intra_op_parallelism_threads=2, allow_soft_placement=True)
    c.device_count["CPU"] = 1
    c.gpu_options.allow_growth = True
    c.graph_options.optimizer_options.opt_level = m.config_pb2.OptimizerOptions.L0
    c.experimental.use_tfrt = True
    return c


def _run_options(m):
    return m.config_pb2.RunOptions(trace_level=m.config_pb2.RunOptions.FULL_TRACE, timeout_in_ms=100)


def _distributed_config(m):
    c = m.config_pb2.ConfigProto(operation_timeout_in_ms=3000, isolate_session_state=True)
    c.device_filters.extend(["/job:ps", "/job:worker/task:1"])
    job = c.cluster_def.job.add(name="ps")
    job.tasks[0] = "127.0.0.1:2222"
    c.rpc_options.use_rpc_for_inprocess_master = True
    c.rpc_options.num_channels_per_target = 2
    return c


def _debug_run_options(m):
    r = m.config_pb2.RunOptions(timeout_in_ms=5)
    w = r.debug_options.debug_tensor_watch_opts.add(node_name="w", output_slot=0)
    w.debug_ops.append("DebugIdentity")
    return r


def _callable_options(m):
    c = m.config_pb2.CallableOptions(feed=["x:0"], fetch=["loss:0"], target=["train"])
    c.tensor_connection.add(from_tensor="a:0", to_tensor="b:0")
    c.feed_devices["x:0"] = "/job:worker/task:0/device:CPU:0"
    return c


def _named_tensor(m):
    t = m.named_tensor_pb2.NamedTensorProto(name="x:0")
    t.tensor.dtype = m.types_pb2.DT_FLOAT
    t.tensor.tensor_shape.dim.add(size=2)
    t.tensor.tensor_content = b"\x00\x00\x80?\x00\x00\x00@"
    return t


def _device_attributes(m):
    d = m.device_attributes_pb2.DeviceAttributes(name="/job:ps/replica:0/task:0/device:CPU:0",
                                                  device_type="CPU", memory_limit=268435456,
                                                  incarnation=0xFEDCBA9876543210)
    d.locality.bus_id = 1
    return d


ROUND_TRIPS = [
    ("graph_def", _graph_def),
    ("event_summary", _event),
    ("event_session_log", _event_session_log),
    ("event_file_version", _event_file_version),
    ("bundle_entry", _bundle_entry),
    ("bundle_header", _bundle_header),
    ("meta_graph_def", _meta_graph_def),
    ("saved_tensor_slices", _saved_tensor_slices),
    ("checkpoint_state", _checkpoint_state),
    ("trackable_object_graph", _trackable_object_graph),
    ("variable_def", _variable_def),
    ("queue_runner", _queue_runner),
    ("run_metadata", _run_metadata),
    ("config", _config),
    ("run_options", _run_options),
    ("distributed_config", _distributed_config),
    ("debug_run_options", _debug_run_options),
    ("callable_options", _callable_options),
    ("named_tensor", _named_tensor),
    ("device_attributes", _device_attributes),
]


def _namespaces():
    ours = types.SimpleNamespace(**{f"{n}_pb2": _ours(n) for n in OUR_MODULES})
    theirs = types.SimpleNamespace(**{f"{n}_pb2": _tf_module(f"{n}_pb2") for n in OUR_MODULES
                                      if n not in WIRE_ONLY})
    return ours, theirs


def _assert_no_unknown_fields(message):
    """Every field on the wire was known to the parser, at every depth."""
    from google.protobuf import unknown_fields

    assert len(unknown_fields.UnknownFieldSet(message)) == 0, message.DESCRIPTOR.full_name
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        if field.message_type.GetOptions().map_entry:
            value_field = field.message_type.fields_by_name["value"]
            values = list(value.values()) if value_field.message_type is not None else []
        else:
            values = list(value) if field.is_repeated else [value]
        for item in values:
            _assert_no_unknown_fields(item)


@pytest.mark.parametrize("case,build", ROUND_TRIPS, ids=[r[0] for r in ROUND_TRIPS])
def test_wire_round_trip(case, build):
    ours_ns, tf_ns = _namespaces()
    ours, theirs = build(ours_ns), build(tf_ns)
    assert _tf_name(ours.DESCRIPTOR.full_name) == theirs.DESCRIPTOR.full_name
    ours_bytes = ours.SerializeToString(deterministic=True)
    theirs_bytes = theirs.SerializeToString(deterministic=True)
    assert ours_bytes == theirs_bytes
    # ours -> TF
    parsed_by_tf = type(theirs).FromString(ours_bytes)
    assert parsed_by_tf == theirs
    _assert_no_unknown_fields(parsed_by_tf)
    # TF -> ours
    parsed_by_ours = type(ours).FromString(theirs_bytes)
    assert parsed_by_ours == ours
    _assert_no_unknown_fields(parsed_by_ours)


# --------------------------------------------------------------------------- (4)

def test_import_side_by_side():
    """A fresh process imports every ref.protos module, then TensorFlow's protos.

    (Both orders end in the same descriptor pool; a clash of file or symbol names
    would raise whichever side comes second. This run has ref first, so nothing of
    ref's relies on TensorFlow having been loaded.)
    """
    pytest.importorskip("tensorflow")
    script = "; ".join(
        [f"import ref.protos.{n}_pb2" for n in OUR_MODULES]
        + ["import tensorflow as tf",
           "from tensorflow.core.protobuf import meta_graph_pb2, config_pb2",
           "from tensorflow.core.util import event_pb2",
           "from google.protobuf import descriptor_pool",
           "pool = descriptor_pool.Default()",
           "a = pool.FindMessageTypeByName('ref_tf.MetaGraphDef')",
           "b = pool.FindMessageTypeByName('tensorflow.MetaGraphDef')",
           "assert a.file.name == 'ref/protos/meta_graph.proto' and a is not b",
           "from ref.protos import graph_pb2",
           "g = graph_pb2.GraphDef()",
           "g.node.add(name='n')",
           "assert tf.compat.v1.GraphDef.FromString(g.SerializeToString()).node[0].name == 'n'",
           "print('ok')"])
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith("ok")
