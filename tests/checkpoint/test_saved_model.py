"""SavedModel both ways against TensorFlow: TF loads what ref writes and
computes the same outputs; ref loads what TF writes; tags, signatures,
assets, main ops and the errors of both."""
import os

import numpy as np
import pytest

import ref
from ref.checkpoint import saved_model as _under_test  # noqa: F401  (the module these tests cover)

tf = pytest.importorskip("tensorflow")
tf1 = tf.compat.v1

X = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)


def _model(t):
    x = t.placeholder(t.float32, [None, 3], name="x")
    w = t.Variable(np.arange(6, dtype=np.float32).reshape(3, 2) / 3, name="w")
    b = t.Variable(np.array([0.5, -1.0], np.float32), name="b")
    counter = t.Variable(0, name="counter")
    y = t.nn.relu(t.matmul(x, w) + b, name="y")
    return x, y, counter


def _write(t, export_dir, how):
    with t.Graph().as_default():
        x, y, counter = _model(t)
        with t.Session() as s:
            s.run(t.global_variables_initializer())
            s.run(t.assign(counter, 41))
            want = s.run(y, {x: X})
            if how == "simple_save":
                t.saved_model.simple_save(s, export_dir, {"x": x}, {"y": y})
            else:
                asset_path = os.path.join(os.path.dirname(export_dir), "vocab.txt")
                with open(asset_path, "w") as f:
                    f.write("a\nb\n")
                asset = t.constant(asset_path, name="asset_path")
                t.add_to_collection(t.GraphKeys.ASSET_FILEPATHS, asset)
                bump = t.group(t.assign_add(counter, 1), name="bump")
                b = t.saved_model.builder.SavedModelBuilder(export_dir)
                sig = t.saved_model.signature_def_utils.predict_signature_def({"x": x}, {"y": y})
                b.add_meta_graph_and_variables(
                    s, [t.saved_model.tag_constants.SERVING], signature_def_map={"serving_default": sig},
                    assets_collection=t.get_collection(t.GraphKeys.ASSET_FILEPATHS), legacy_init_op=bump)
                b.add_meta_graph([t.saved_model.tag_constants.TRAINING, "extra"])
                b.save()
    return want


def _read(t, export_dir, tags):
    with t.Graph().as_default():
        with t.Session() as s:
            mg = t.saved_model.loader.load(s, tags, export_dir)
            sig = mg.signature_def.get("serving_default")
            counter = s.run("counter:0")
            out = s.run(sig.outputs["y"].name, {sig.inputs["x"].name: X}) if sig is not None else None
    assets = [a.filename for a in mg.asset_file_def]
    for a in mg.collection_def["saved_model_assets"].any_list.value if "saved_model_assets" in mg.collection_def \
            else []:
        assets.append(ref.protos.meta_graph_pb2.AssetFileDef.FromString(a.value).filename)
    return out, counter, sorted(mg.meta_info_def.tags), assets


@pytest.mark.parametrize("how", ["simple_save", "builder"])
@pytest.mark.parametrize("writer, reader", [(ref, tf1), (tf1, ref), (ref, ref)], ids=["ref->tf", "tf->ref", "ref->ref"])
def test_saved_model_round_trip(writer, reader, how, tmp_path):
    export_dir = str(tmp_path / "export")
    want = _write(writer, export_dir, how)
    assert sorted(os.listdir(os.path.join(export_dir, "variables"))) == [
        "variables.data-00000-of-00001", "variables.index"]
    out, counter, tags, assets = _read(reader, export_dir, ["serve"])
    np.testing.assert_array_equal(out, want)
    if how == "simple_save":
        assert counter == 41 and tags == ["serve"] and assets == []
    else:  # the legacy init op ran once at load; the asset was copied
        assert counter == 42 and assets == ["vocab.txt"]
        assert open(os.path.join(export_dir, "assets", "vocab.txt")).read() == "a\nb\n"
        out, counter, tags, _ = _read(reader, export_dir, ["train", "extra"])
        assert out is None and counter == 42 and tags == ["extra", "train"]


def test_errors_match_tf(tmp_path):
    export_dir = str(tmp_path / "e")
    _write(ref, export_dir, "simple_save")
    for t in (ref, tf1):
        with pytest.raises(AssertionError, match="already exists"):
            t.saved_model.builder.SavedModelBuilder(export_dir)
        with t.Graph().as_default(), t.Session() as s, pytest.raises(RuntimeError, match="could not be found"):
            t.saved_model.loader.load(s, ["nope"], export_dir)
    assert ref.saved_model.loader.maybe_saved_model_directory(export_dir)
    assert not ref.saved_model.loader.maybe_saved_model_directory(str(tmp_path))
