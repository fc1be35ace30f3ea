"""AOT packages (wrapper_mlir.package / load, WrapperPackage.h): round trips
from a file and from memory, through Python and through the C example
(run_model), against eager PyTorch and NumPy; the metadata; and the
refusals (truncated, not a zip, not a package, damaged, missing weights,
another model's weights, another format or model ABI, CPU features the host
lacks, ops that need Python)."""

import json
import mmap
import os
import shutil
import struct
import subprocess
import zipfile

import numpy as np
import pytest

import wrapper_mlir
from wrapper_mlir import _package

torch = pytest.importorskip("torch")


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.up = torch.nn.Linear(16, 32)
        self.down = torch.nn.Linear(32, 8)
        self.norm = torch.nn.LayerNorm(8)

    def forward(self, x, scale=None):
        h = self.down(torch.nn.functional.gelu(self.up(x)))
        if scale is not None:
            h = h * scale
        return {"y": self.norm(h), "pair": (h.sum(-1), h.amax(-1))}


@pytest.fixture(scope="module")
def block():
    torch.manual_seed(0)
    return Block().eval()


@pytest.fixture(scope="module")
def packaged(block, tmp_path_factory):
    path = tmp_path_factory.mktemp("package") / "block.wpkg"
    x = torch.randn(4, 16)
    assert wrapper_mlir.package(block, [x], path, dynamic_batch=True) == path
    return path


def _entries(path):
    with zipfile.ZipFile(path) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def _rewrite(path, entries):
    """A package with these entries, written as package() writes them."""
    _package.write_archive(path, [(name, data, 4096 if name.endswith(".safetensors") else 64)
                                  for name, data in entries.items()])
    return path


def _close(a, b):
    return torch.allclose(a, b, rtol=1e-4, atol=1e-5)


def test_round_trip_from_file_and_memory(block, packaged):
    for source in (packaged, packaged.read_bytes()):
        model = wrapper_mlir.load(source)
        assert model.target == "cpu"
        for batch in (1, 7):
            x = torch.randn(batch, 16)
            with torch.no_grad():
                expected = block(x)
            got = model(x)
            assert set(got) == {"y", "pair"} and isinstance(got["pair"], tuple)
            assert _close(got["y"], expected["y"])
            assert _close(got["pair"][0], expected["pair"][0])
            assert _close(got["pair"][1], expected["pair"][1])
        model.close()
        with pytest.raises(wrapper_mlir.WrapperError, match="the package was closed"):
            model(torch.randn(2, 16))


def test_metadata(packaged):
    model = wrapper_mlir.load(packaged)
    metadata = model.metadata
    assert metadata["format"] == "wrapper-package" and metadata["format_version"] == 1
    assert metadata["model_abi"] == 3
    assert metadata["created_by"]["wrapper_mlir"] == wrapper_mlir.__version__
    (x,) = metadata["inputs"]
    assert x["dtype"] == "float32" and x["shape"] == [None, 16] and x["name"] == "x"
    symbol = x["symbols"][0]
    assert metadata["symbol_ranges"][symbol][1] is None
    assert [o["shape"] for o in metadata["outputs"]] == [[None, 8], [None], [None]]
    (cpu,) = metadata["targets"]
    assert cpu["library"] == "cpu/model.so" and cpu["weights"] == "cpu/weights.safetensors"
    assert "sse2" in cpu["cpu_features"] or "avx2" in cpu["cpu_features"]
    assert model.inputs == [("float32", (None, 16))]


def test_weights_are_safetensors_aligned_in_place(packaged):
    safetensors = pytest.importorskip("safetensors.numpy")
    entries = _entries(packaged)
    tensors = safetensors.load(entries["cpu/weights.safetensors"])
    assert any(name.endswith("packed64") or "packed" in name for name in tensors)
    with zipfile.ZipFile(packaged) as archive, open(packaged, "rb") as stream:
        for info in archive.infolist():
            stream.seek(info.header_offset + 26)
            name_length, extra_length = np.frombuffer(stream.read(4), np.uint16)
            data = info.header_offset + 30 + int(name_length) + int(extra_length)
            assert info.compress_type == zipfile.ZIP_STORED
            assert data % (4096 if info.filename.endswith(".safetensors") else 64) == 0


def test_kwargs_and_text_programs(block, tmp_path):
    x, scale = torch.randn(3, 16), torch.tensor(0.5)
    path = wrapper_mlir.package(block, [x], tmp_path / "kw.wpkg", example_kwargs={"scale": scale})
    model = wrapper_mlir.load(path)
    with torch.no_grad():
        assert _close(model(x, scale=scale)["y"], block(x, scale=scale)["y"])
    text = """
func.func @main(%a: tensor<?x8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %s = tensor_program.add %a, %b : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %r = tensor_program.tanh %s : tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}
"""
    path = wrapper_mlir.package(text, path=tmp_path / "text.wpkg")
    model = wrapper_mlir.load(path)
    a, b = np.random.rand(5, 8).astype(np.float32), np.random.rand(8).astype(np.float32)
    (y,) = model(a, b)
    np.testing.assert_allclose(y, np.tanh(a + b), rtol=1e-5, atol=1e-6)
    assert model.metadata["inputs"][0] == {"dtype": "float32", "shape": [None, 8], "name": "a"}
    # No constants: a weights file with a header (one page) and no data.
    assert model.metadata["targets"][0]["weights_bytes"] == 4096


def test_c_example_runs_the_package(block, packaged, tmp_path):
    run_model = wrapper_mlir.find_tool("run_model")
    x = torch.randn(6, 16)
    with torch.no_grad():
        expected = block(x)
    np.save(tmp_path / "x.npy", x.numpy())
    for i, value in enumerate([expected["y"], *expected["pair"]]):
        np.save(tmp_path / f"ref{i}.npy", value.numpy())
    refs = [str(tmp_path / f"ref{i}.npy") for i in range(3)]
    for extra in ([], ["--memory"], ["--target", "cpu"]):
        result = subprocess.run([run_model, str(packaged), str(tmp_path / "x.npy"), "--ref",
                                 *refs, *extra], capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr
        assert result.stdout.count(": ok") == 3
        assert ("opened from memory" in result.stdout) == ("--memory" in extra)


def _load_error(source, **env):
    """The message of loading `source` in a fresh process (C getenv reads the
    environment as the process started)."""
    probe = ("import sys, wrapper_mlir\n"
             "try:\n    wrapper_mlir.load(sys.argv[1], sys.argv[2] or None)\n"
             "except wrapper_mlir.WrapperError as e:\n    print(e)\nelse:\n    print('loaded')\n")
    target = env.pop("target", "")
    result = subprocess.run([os.sys.executable, "-c", probe, str(source), target],
                            capture_output=True, text=True, env=dict(os.environ, **env))
    return result.stdout.strip() + result.stderr.strip()


def test_refusals(packaged, tmp_path):
    data = packaged.read_bytes()
    truncated = tmp_path / "truncated.wpkg"
    truncated.write_bytes(data[: len(data) // 2])
    assert "not a Wrapper package: no zip end record" in _load_error(truncated)
    cut = tmp_path / "cut.wpkg"
    cut.write_bytes(data[:-10])
    assert "not a Wrapper package" in _load_error(cut)
    garbage = tmp_path / "garbage.wpkg"
    garbage.write_bytes(b"\x7fELF" + bytes(5000))
    assert "wrong magic number: not a zip archive" in _load_error(garbage)
    empty = tmp_path / "empty.wpkg"
    empty.write_bytes(b"")
    assert "is empty" in _load_error(empty)
    assert "cannot open" in _load_error(tmp_path / "absent.wpkg")

    entries = _entries(packaged)
    plain = tmp_path / "plain.zip"
    with zipfile.ZipFile(plain, "w") as archive:
        archive.writestr("readme.txt", "hello")
    assert "a zip archive but not a Wrapper package" in _load_error(plain)

    compressed = tmp_path / "compressed.wpkg"
    with zipfile.ZipFile(compressed, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, value in entries.items():
            archive.writestr(name, value)
    assert "is compressed (method 8)" in _load_error(compressed)

    damaged = dict(entries)
    library = bytearray(damaged["cpu/model.so"])
    library[len(library) // 2] ^= 0xFF
    damaged["cpu/model.so"] = bytes(library)
    # The directory keeps the original checksum: rewrite it, then put the
    # damage back in place.
    good = _rewrite(tmp_path / "good.wpkg", entries)
    raw = bytearray(good.read_bytes())
    offset = raw.find(entries["cpu/model.so"])
    raw[offset + len(library) // 2] ^= 0xFF
    (tmp_path / "damaged.wpkg").write_bytes(raw)
    assert "'cpu/model.so' does not match its checksum" in _load_error(tmp_path / "damaged.wpkg")

    missing = {k: v for k, v in entries.items() if k != "cpu/weights.safetensors"}
    assert ("lacks 'cpu/weights.safetensors', the cpu model's weights"
            in _load_error(_rewrite(tmp_path / "missing.wpkg", missing)))

    newer = dict(entries, **{"wrapper-package.index":
                             entries["wrapper-package.index"].replace(b"wrapper-package 1",
                                                                      b"wrapper-package 3")})
    assert ("package format version 3; this runtime reads versions 1 to 2"
            in _load_error(_rewrite(tmp_path / "newer.wpkg", newer)))

    assert "the package has no cuda model (it has: cpu)" in _load_error(packaged, target="cuda")


def test_other_models_weights_are_refused(block, packaged, tmp_path):
    # The same architecture compiled again: another magic number.
    other = wrapper_mlir.package(block, [torch.randn(4, 16)], tmp_path / "other.wpkg",
                                 dynamic_batch=True)
    swapped = dict(_entries(packaged))
    swapped["cpu/weights.safetensors"] = _entries(other)["cpu/weights.safetensors"]
    message = _load_error(_rewrite(tmp_path / "swapped.wpkg", swapped))
    assert ("package entry 'cpu/weights.safetensors': the weights given: not the weights this "
            "model was compiled with") in message


def test_model_abi_and_cpu_features_are_checked(packaged, tmp_path):
    # A library that says it implements model ABI 99.
    source = tmp_path / "fake.c"
    names = ["create", "destroy", "num_inputs", "num_outputs", "input_name", "output_name",
             "input_info", "output_info", "run"]
    source.write_text("int wrapper_model_abi_version(void) { return 99; }\n" +
                      "".join(f"int wrapper_model_{n}(void) {{ return 0; }}\n" for n in names))
    library = tmp_path / "fake.so"
    subprocess.run([shutil.which("cc"), "-shared", "-fPIC", "-o", str(library), str(source)],
                   check=True)
    entries = dict(_entries(packaged), **{"cpu/model.so": library.read_bytes()})
    message = _load_error(_rewrite(tmp_path / "abi.wpkg", entries))
    assert "implements model ABI 99; this runtime calls ABI 1 to 3" in message

    # A host without AVX2 (flags replaced): the model compiled here is refused.
    message = _load_error(packaged, WRAPPER_HOST_CPU_FLAGS="fpu sse sse2")
    assert "compiled for CPU features this host lacks (" in message
    assert "make the package on a host like this one" in message


def test_package_refuses_what_cannot_be_packaged(tmp_path):
    class Cumulative(torch.nn.Module):
        def forward(self, x):
            return torch.logcumsumexp(x, 0)

    with pytest.raises(wrapper_mlir.WrapperError, match="logcumsumexp"):
        wrapper_mlir.package(Cumulative().eval(), [torch.rand(4)], tmp_path / "c.wpkg")
    with pytest.raises(wrapper_mlir.WrapperError, match="target must be 'cpu' or 'cuda'"):
        wrapper_mlir.package("func.func @f() { return }", path=tmp_path / "t.wpkg", target="tpu")
    with pytest.raises(wrapper_mlir.WrapperError, match="unknown option 'speed'"):
        wrapper_mlir.package("func.func @f() { return }", path=tmp_path / "t.wpkg", speed=1)
    with pytest.raises(wrapper_mlir.WrapperError, match="no path"):
        wrapper_mlir.package("func.func @f() { return }")
    assert not list(tmp_path.iterdir())


def test_metadata_of_c_api(packaged):
    # The same metadata through the C API as zipfile reads it.
    model = wrapper_mlir.load(packaged)
    assert model.metadata == json.loads(_entries(packaged)["wrapper-package.json"])


def test_entries_beyond_4_gib(block, packaged, tmp_path):
    # A 4.5 GiB entry (a hole in a sparse file) before the model: the
    # library and the weights lie beyond 4 GiB, reached through zip64
    # offsets, and the weights are used in place there.
    entries = _entries(packaged)
    path = tmp_path / "large.wpkg"
    _package.write_archive(path, [
        ("wrapper-package.index", entries["wrapper-package.index"], 64),
        ("wrapper-package.json", entries["wrapper-package.json"], 64),
        ("filler.bin", _package.Zeros(9 << 29), 4096),
        ("cpu/model.so", entries["cpu/model.so"], 64),
        ("cpu/weights.safetensors", entries["cpu/weights.safetensors"], 4096)])
    assert path.stat().st_size > 9 << 29
    assert os.stat(path).st_blocks * 512 < 64 << 20  # sparse: nothing written for the hole
    with zipfile.ZipFile(path) as archive:
        assert archive.getinfo("cpu/model.so").header_offset > 1 << 32
    model = wrapper_mlir.load(path)
    x = torch.randn(3, 16)
    with torch.no_grad():
        assert _close(model(x)["y"], block(x)["y"])


def _modified(block, scale):
    changed = Block().eval()
    changed.load_state_dict(block.state_dict())
    with torch.no_grad():
        changed.down.weight.mul_(scale)
        changed.norm.weight.add_(scale)
    return changed


def test_swappable_weights(block, tmp_path):
    path = wrapper_mlir.package(block, [torch.randn(4, 16)], tmp_path / "swap.wpkg",
                                swappable=True, dynamic_batch=True)
    model = wrapper_mlir.load(path)
    assert sorted(model.weights) == sorted(name for name, _ in block.state_dict().items())
    assert model.metadata["params"]["entry"] == "params.safetensors"
    # The weights' transposes run once per set of weights, in the prepare
    # library, not at each call.
    prepare = model.metadata["python"]["prepare"]
    assert {a["weight"] for a in prepare["arguments"]} == {"up.weight", "down.weight"}
    assert [t["target"] for t in model.metadata["targets"]] == ["cpu", "cpu:prepare"]
    assert sum("prepared" in i for i in model.metadata["inputs"]) == prepare["outputs"] == 2
    x = torch.randn(5, 16)
    with torch.no_grad():
        assert _close(model(x)["y"], block(x)["y"])
        # A subset, by name, from tensors: outputs as eager with the new weights.
        changed = _modified(block, -1.5)
        assert model.swap_weights({"down.weight": changed.down.weight,
                                   "norm.weight": changed.norm.weight.numpy()}) == [
                                       "down.weight", "norm.weight"]
        assert _close(model(x)["y"], changed(x)["y"])
        assert _close(model(x)["pair"][1], changed(x)["pair"][1])
        # All of them, from a safetensors file (the original weights back).
        original = tmp_path / "original.safetensors"
        _package.write_params(original, list(block.state_dict().items()))
        assert len(model.swap_weights(original)) == len(block.state_dict())
        assert _close(model(x)["y"], block(x)["y"])
        assert len(model.swap_weights(original.read_bytes())) == len(block.state_dict())
    with pytest.raises(wrapper_mlir.WrapperError, match="has no parameter 'down.wieght'"):
        model.swap_weights({"down.wieght": changed.down.weight})
    with pytest.raises(wrapper_mlir.WrapperError,
                       match=r"'down.weight' is torch.float32 \(8, 16\); the model's is "
                             r"torch.float32 \(8, 32\)"):
        model.swap_weights({"down.weight": torch.zeros(8, 16)})
    with pytest.raises(wrapper_mlir.WrapperError, match="'up.bias' is torch.float64"):
        model.swap_weights({"up.bias": torch.zeros(32, dtype=torch.float64)})
    with pytest.raises(wrapper_mlir.WrapperError, match="non-empty"):
        model.swap_weights({})
    with pytest.raises(wrapper_mlir.WrapperError, match="not a safetensors file"):
        model.swap_weights(b"\x01\x02")
    # A refused swap changes nothing.
    with torch.no_grad():
        assert _close(model(x)["y"], block(x)["y"])
    # Another load of the package starts from the packaged weights.
    with torch.no_grad():
        assert _close(wrapper_mlir.load(path)(x)["y"], block(x)["y"])


def test_packages_without_swap_refuse_it(packaged):
    with pytest.raises(wrapper_mlir.WrapperError, match="not swappable"):
        wrapper_mlir.load(packaged).swap_weights({"down.weight": torch.zeros(8, 32)})


def test_swaps_during_calls_never_mix(block, tmp_path):
    import threading

    path = wrapper_mlir.package(block, [torch.randn(4, 16)], tmp_path / "threads.wpkg",
                                swappable=True)
    model = wrapper_mlir.load(path)
    changed = _modified(block, 3.0)
    a = {k: v.clone() for k, v in block.state_dict().items()}
    b = {k: v.clone() for k, v in changed.state_dict().items()}
    x = torch.randn(4, 16)
    with torch.no_grad():
        ref_a = model(x)["y"].clone()
        model.swap_weights(b)
        ref_b = model(x)["y"].clone()
        assert _close(ref_a, block(x)["y"]) and _close(ref_b, changed(x)["y"])
    assert not torch.equal(ref_a, ref_b)
    seen, errors, stop = {"a": 0, "b": 0}, [], threading.Event()

    def call():
        with torch.no_grad():
            for _ in range(60):
                y = model(x)["y"]
                if torch.equal(y, ref_a):
                    seen["a"] += 1
                elif torch.equal(y, ref_b):
                    seen["b"] += 1
                else:
                    errors.append((y - ref_a).abs().max().item())

    def swap():
        while not stop.is_set():
            model.swap_weights(a)
            model.swap_weights(b)

    swapper = threading.Thread(target=swap)
    swapper.start()
    callers = [threading.Thread(target=call) for _ in range(4)]
    for thread in callers:
        thread.start()
    for thread in callers:
        thread.join()
    stop.set()
    swapper.join()
    assert not errors, f"{len(errors)} outputs mixed the two weight sets"
    assert seen["a"] + seen["b"] == 240 and seen["a"] and seen["b"]


def test_swappable_convolution_and_batch_norm(tmp_path):
    # Batch norm's scale and shift and the convolution's weight matrix are
    # computed by the prepare function; swapping the running statistics and
    # the weight gives eager's outputs with them.
    torch.manual_seed(1)
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8),
                              torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1),
                              torch.nn.Flatten(), torch.nn.Linear(8, 4)).eval()
    with torch.no_grad():
        net[1].running_var.uniform_(0.5, 2.0)
        net[1].running_mean.uniform_(-1.0, 1.0)
    x = torch.randn(2, 3, 8, 8)
    model = wrapper_mlir.load(wrapper_mlir.package(net, [x], tmp_path / "cnn.wpkg",
                                                   swappable=True))
    with torch.no_grad():
        assert _close(model(x), net(x))
        assert "1.running_var" in model.weights
        net[1].running_var.mul_(3.0)
        net[0].weight.mul_(-0.5)
        model.swap_weights({"1.running_var": net[1].running_var, "0.weight": net[0].weight})
        assert _close(model(x), net(x))
    assert model.metadata["python"].get("prepare")


def test_swap_from_c(block, tmp_path):
    # The C example runs the swappable package, swaps two parameters (their
    # outputs as eager's with them) and calls from 4 threads while swapping
    # back and forth: every output is one set's, none mixed.
    path = wrapper_mlir.package(block, [torch.randn(4, 16)], tmp_path / "c.wpkg",
                                swappable=True, dynamic_batch=True)
    changed = _modified(block, 2.5)
    x = torch.randn(6, 16)
    np.save(tmp_path / "x.npy", x.numpy())
    with torch.no_grad():
        np.save(tmp_path / "ref.npy", block(x)["y"].numpy())
        np.save(tmp_path / "ref2.npy", changed(x)["y"].numpy())
    np.save(tmp_path / "down.npy", changed.down.weight.detach().numpy())
    np.save(tmp_path / "norm.npy", changed.norm.weight.detach().numpy())
    command = [wrapper_mlir.find_tool("swap_weights"), str(path), str(tmp_path / "x.npy"),
               "--ref", str(tmp_path / "ref.npy"),
               "--swap", f"down.weight={tmp_path / 'down.npy'}",
               "--swap", f"norm.weight={tmp_path / 'norm.npy'}",
               "--ref-swapped", str(tmp_path / "ref2.npy"), "--threads", "4", "--calls", "25"]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{len(block.state_dict())} parameters, the model takes 1 inputs" in result.stdout
    assert result.stdout.count(": ok") == 2
    assert "4 threads x 25 calls during" in result.stdout and ", 0 mixed" in result.stdout
    # Refusals: an unknown name, another shape.
    np.save(tmp_path / "bad.npy", np.zeros((3, 3), np.float32))
    for spec, message in ((f"nope={tmp_path / 'down.npy'}", "the model has no parameter 'nope'"),
                          (f"down.weight={tmp_path / 'bad.npy'}",
                           "parameter 'down.weight': the array given is float32 (3, 3); "
                           "the model's is float32 (8, 32)")):
        result = subprocess.run(command[:3] + ["--swap", spec], capture_output=True, text=True)
        assert result.returncode == 2 and message in result.stderr, result.stderr
    # A CPU package has no device runs.
    result = subprocess.run(command[:3] + ["--device"], capture_output=True, text=True)
    assert result.returncode == 2 and "--device needs a CUDA package" in result.stderr


def _safetensors(tensors, header_pad=""):
    """A safetensors file written here, independently of the package's
    writer: no alignment at all (`header_pad` shifts the data), so that the
    reader copies unaligned tensors."""
    header, blobs, offset = {}, [], 0
    for name, array in tensors.items():
        data = np.ascontiguousarray(array).tobytes()
        header[name] = {"dtype": {"float32": "F32", "int64": "I64"}[str(array.dtype)],
                        "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = {"made by": "test_package \u00e9"}
    text = (json.dumps(header) + header_pad).encode()
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def test_weights_over_8_gib(tmp_path):
    # One parameter of 2^31 + 128 float32 elements (8 GiB and 512 bytes),
    # zero but for a few rows: it is written as holes (a sparse file: the
    # package takes almost no disk), mapped in place by the loader, and the
    # rows at byte offsets beyond 4 and 8 GiB (element offsets beyond 2^31)
    # are the ones read, from Python and from C.
    rows, width = (1 << 25) + 2, 64
    # Private anonymous memory: read, its untouched pages are the zero page
    # (a shared mapping would allocate them all).
    memory = mmap.mmap(-1, rows * width * 4, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    table = torch.frombuffer(memory, dtype=torch.float32).view(rows, width)
    table[rows - 2:] = torch.arange(2 * width, dtype=torch.float32).view(2, width) + 1.0
    table[5] = -3.0
    table[rows // 2] = 7.0

    class Lookup(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.table = torch.nn.Parameter(table, requires_grad=False)

        def forward(self, ids):
            return torch.nn.functional.embedding(ids, self.table) * 2.0

    model = Lookup().eval()
    ids = torch.tensor([rows - 1, 5, rows // 2, rows - 2, 0])
    path = wrapper_mlir.package(model, [ids], tmp_path / "big.wpkg", swappable=True)
    assert path.stat().st_size > 8 << 30
    assert path.stat().st_blocks * 512 < 256 << 20, "the zero rows were written, not holes"
    loaded = wrapper_mlir.load(path)
    with torch.no_grad():
        expected = model(ids)
        assert torch.equal(loaded(ids), expected)
        assert float(expected[0, -1]) == 2.0 * (2 * width)
    # From C (run_model: no Python, no torch).
    np.save(tmp_path / "ids.npy", ids.numpy())
    np.save(tmp_path / "ref.npy", expected.numpy())
    result = subprocess.run([wrapper_mlir.find_tool("run_model"), str(path),
                             str(tmp_path / "ids.npy"), "--ref", str(tmp_path / "ref.npy")],
                            capture_output=True, text=True)
    assert result.returncode == 0 and ": ok" in result.stdout, result.stdout + result.stderr
    del loaded, model, table
    memory.close()


def test_swap_from_a_safetensors_file_in_c(block, tmp_path):
    # wrapper_package_weights_swap_file: a subset of the parameters from a
    # safetensors file (unaligned data) replaces them, as eager with them.
    path = wrapper_mlir.package(block, [torch.randn(4, 16)], tmp_path / "f.wpkg",
                                swappable=True, dynamic_batch=True)
    changed = _modified(block, -1.5)
    x = torch.randn(5, 16)
    np.save(tmp_path / "x.npy", x.numpy())
    with torch.no_grad():
        np.save(tmp_path / "ref2.npy", changed(x)["y"].numpy())
    subset = {"down.weight": changed.down.weight.detach().numpy(),
              "norm.weight": changed.norm.weight.detach().numpy(),
              "norm.bias": changed.norm.bias.detach().numpy()}
    (tmp_path / "new.safetensors").write_bytes(_safetensors(subset, header_pad=" "))
    tool = wrapper_mlir.find_tool("swap_weights")

    def swap(name):
        return subprocess.run([tool, str(path), str(tmp_path / "x.npy"), "--swap-file",
                               str(tmp_path / name), "--ref-swapped", str(tmp_path / "ref2.npy")],
                              capture_output=True, text=True)
    result = swap("new.safetensors")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "weights of the file" in result.stdout and ": ok" in result.stdout
    # Refusals, each naming what is wrong; nothing is swapped.
    good = _safetensors(subset)
    cases = {
        "truncated": (good[:-10], "lies beyond the end of the safetensors file"),
        "short": (b"\x01\x02", "fewer than its 8-byte header size"),
        "json": (struct.pack("<Q", 5) + b"{\"a\":", "not a safetensors file: malformed JSON"),
        "name": (_safetensors({"down.wieght": subset["down.weight"]}),
                 "the model has no parameter 'down.wieght'"),
        "shape": (_safetensors({"down.weight": np.zeros((8, 16), np.float32)}),
                  "parameter 'down.weight': the array given is float32 (8, 16); "
                  "the model's is float32 (8, 32)"),
        "dtype": (_safetensors({"norm.bias": np.zeros(32, np.int64)}),
                  "parameter 'norm.bias': the array given is int64 (32)"),
        "empty": (_safetensors({}), "the safetensors file holds no tensors"),
    }
    for name, (data, message) in cases.items():
        (tmp_path / name).write_bytes(data)
        result = swap(name)
        assert result.returncode == 2 and message in result.stderr, (name, result.stderr)
    result = swap("missing.safetensors")
    assert result.returncode == 2 and "cannot open" in result.stderr


def test_packages_are_checked_against_eager(block, packaged, tmp_path):
    # package() runs what it wrote on the example inputs against eager and
    # refuses a mismatch (here: checked against another module's outputs).
    other = _modified(block, 4.0)
    with pytest.raises(wrapper_mlir.WrapperError,
                       match="the package's output 0 differs from eager PyTorch on the example "
                             "inputs .*a compiler bug; the package was not written"):
        _package._verify(packaged, other, [torch.randn(3, 16)], None)
    _package._verify(packaged, block, [torch.randn(3, 16)], None)


def test_outputs_that_are_inputs_are_handed_back(tmp_path):
    """An output that is an input as it was passed is that input, as in
    eager PyTorch: compiled, packaged and through torch.compile, without the
    model copying it (the library returns only what it computes)."""

    class Echo(torch.nn.Module):
        def forward(self, x, y):
            return x, (x * 2, y)

    x, y = torch.randn(3, 4), torch.randn(2)
    compiled = wrapper_mlir.compile(Echo().eval(), (x, y))
    assert len(compiled.outputs) == 1
    same, (doubled, other) = compiled(x, y)
    assert same is x and other is y and torch.equal(doubled, x * 2)
    path = wrapper_mlir.package(Echo().eval(), [x, y], tmp_path / "echo.wpkg")
    model = wrapper_mlir.load(path)
    assert model.metadata["python"]["structure"]["items"][0] == {"arg": 0}
    same, (doubled, other) = model(x, y)
    assert same is x and other is y and torch.equal(doubled, x * 2)
    traced = torch.compile(Echo(), backend="wrapper")
    same, (doubled, other) = traced(x, y)
    assert same is x and other is y and torch.equal(doubled, x * 2)
