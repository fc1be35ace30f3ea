"""AOT model packages: package() writes one file with a model compiled for
one or more targets, its weights and its metadata; load() runs it (from a
file or from bytes) through the runtime's C loader (WrapperPackage.h), the
same one C programs use. The format: docs/Packages.md."""

import ctypes
import json
import mmap
import os
import re
import shutil
import struct
import subprocess
import tempfile
import time
import weakref
import zlib
from pathlib import Path

from . import _install
from ._compile import CompiledModel, WrapperError, _build_library, _torch_device, fuse_flags
from ._files import write_sparse
from ._install import find_tool, runtime_library, tool_version

FORMAT_VERSION = 2
INDEX, METADATA = "wrapper-package.index", "wrapper-package.json"
# A swappable package's parameters, by qualified name (shared by its targets).
PARAMS = "params.safetensors"
TARGETS = ("cpu", "cuda")
# Options of package() passed to the compiler, with their defaults.
OPTIONS = {"parallel": True, "gemm": True, "plan_memory": "reuse", "fuse": True,
           "tile_elements": None, "mcpu": None, "mattr": None}
# Alignment of entries in the file: weights on pages (used in place, mapped),
# the rest on cache lines.
_WEIGHTS_ALIGN, _ALIGN = 4096, 64
# The extra field that pads a local header (the id Android's zipalign uses).
_PADDING_ID = 0xD935


# -- the function signature, from tensor_program text -----------------------

_DTYPE_NAMES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64",
                "i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
                "ui8": "uint8", "f8E4M3FN": "float8_e4m3fn"}


def _split_top(text, separator=","):
    """`text` split at `separator` outside brackets and strings."""
    parts, depth, start, quoted = [], 0, 0, False
    for i, c in enumerate(text):
        if c == '"' and (i == 0 or text[i - 1] != "\\"):
            quoted = not quoted
        elif not quoted and c in "([{<":
            depth += 1
        elif not quoted and c in ")]}>":
            depth -= 1
        elif not quoted and depth == 0 and c == separator:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _closing(text, start):
    """The index of the bracket closing the one at `start`."""
    depth, quoted = 0, False
    for i in range(start, len(text)):
        c = text[i]
        if c == '"' and text[i - 1] != "\\":
            quoted = not quoted
        elif not quoted and c in "([{<":
            depth += 1
        elif not quoted and c in ")]}>":
            depth -= 1
            if depth == 0:
                return i
    raise WrapperError("the program's function signature is not closed")


def _tensor(text):
    match = re.search(r"tensor<([^>]*)>", text)
    if not match:
        return None
    *dims, element = match.group(1).split("x")
    return {"dtype": _DTYPE_NAMES.get(element, element),
            "shape": [None if d == "?" else int(d) for d in dims]}


def signature(text, entry=None):
    """The inputs, outputs and symbolic dimension ranges of the public
    function `entry` (default: the only public one, else main) of
    tensor_program text."""
    functions = list(re.finditer(r"func\.func\s+(private\s+)?@([\w.$-]+)\s*\(", text))
    public = [f for f in functions if not f.group(1)]
    chosen = ([f for f in public if f.group(2) == entry] if entry else
              public if len(public) == 1 else [f for f in public if f.group(2) == "main"])
    if not chosen:
        raise WrapperError(f"the program has no public function {entry or 'to package'}")
    match = chosen[0]
    open_paren = match.end() - 1
    close_paren = _closing(text, open_paren)
    inputs = []
    for index, argument in enumerate(_split_top(text[open_paren + 1:close_paren])):
        value = _tensor(argument) or {"dtype": "unknown", "shape": []}
        name = re.search(r'tensor_program\.name\s*=\s*"([^"]*)"', argument)
        ssa = re.match(r"%([\w$.-]+)", argument)
        value["name"] = (name.group(1) if name else ssa.group(1) if ssa else f"arg{index}")
        prepared = re.search(r"tensor_program\.prepared\s*=\s*(\d+)", argument)
        if prepared:
            value["prepared"] = int(prepared.group(1))
        elif re.search(r"tensor_program\.weight\b", argument):
            value["weight"] = True
        symbols = re.search(r"tensor_program\.symbols\s*=\s*\[([^\]]*)\]", argument)
        if symbols:
            value["symbols"] = [s.strip().strip('"') or None for s in symbols.group(1).split(",")]
        inputs.append(value)
    rest = text[close_paren + 1:]
    body = rest.index("{") if "{" in rest else len(rest)
    arrow = rest[:body]
    outputs = []
    if "->" in arrow:
        results = arrow.split("->", 1)[1].strip()
        if results.startswith("("):
            results = results[1:_closing(results, 0)]
        for index, result in enumerate(_split_top(results)):
            value = _tensor(result) or {"dtype": "unknown", "shape": []}
            value["name"] = f"output{index}"
            outputs.append(value)
    ranges = {}
    attributes = re.search(r"tensor_program\.symbol_ranges\s*=\s*\{([^}]*)\}", rest[:body + 400])
    if attributes:
        for symbol, low, high in re.findall(r"(\w+)\s*=\s*array<i64:\s*(-?\d+),\s*(-?\d+)>",
                                            attributes.group(1)):
            ranges[symbol] = [int(low), None if int(high) < 0 else int(high)]
    return {"entry": match.group(2), "inputs": inputs, "outputs": outputs,
            "symbol_ranges": ranges}


# -- writing ----------------------------------------------------------------


class Zeros:
    """An entry of `size` zero bytes, written as a hole (a sparse file)."""

    def __init__(self, size):
        self.size = size


def _dos_time(moment):
    year, month, day, hour, minute, second = moment[:6]
    return ((hour << 11) | (minute << 5) | (second // 2),
            ((max(year, 1980) - 1980) << 9) | (month << 5) | day)


def _crc_of(content, out):
    """Writes `content` (bytes, a Path, or Zeros) to `out`; returns (CRC-32,
    size)."""
    if isinstance(content, Zeros):
        crc, left, block = 0, content.size, bytes(16 << 20)
        while left:
            step = min(left, len(block))
            crc = zlib.crc32(block[:step] if step < len(block) else block, crc)
            left -= step
        out.seek(content.size, os.SEEK_CUR)
        return crc, content.size
    if isinstance(content, (bytes, bytearray, memoryview)):
        out.write(content)
        return zlib.crc32(content), len(content)
    crc = size = 0
    with open(content, "rb") as source:
        for block in iter(lambda: source.read(16 << 20), b""):
            write_sparse(out, block)   # a sparse file's holes stay holes
            crc = zlib.crc32(block, crc)
            size += len(block)
    return crc, size


def write_archive(path, entries):
    """Writes the zip `path` from [(name, bytes | Path | Zeros, align)]:
    entries stored, each entry's data on its alignment (a padding extra
    field, id 0xD935, in its local header), zip64 sizes and offsets
    throughout (so that entries and offsets over 4 GB need nothing else),
    Zeros as holes. Readable by zipfile and unzip."""
    clock, day = _dos_time(time.localtime())
    records = []
    with open(path, "wb") as out:
        for name, content, align in entries:
            encoded = name.encode()
            offset = out.tell()
            pad = -(offset + 30 + len(encoded) + 20 + 4) % align
            extra = (struct.pack("<HHQQ", 1, 16, 0, 0) +
                     struct.pack("<HH", _PADDING_ID, pad) + bytes(pad))
            header = struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, 0, clock, day, 0,
                                 0xFFFFFFFF, 0xFFFFFFFF, len(encoded), len(extra))
            out.write(header + encoded + extra)
            crc, size = _crc_of(content, out)
            end = out.tell()
            out.seek(offset + 14)
            out.write(struct.pack("<I", crc))
            out.seek(offset + 30 + len(encoded) + 4)
            out.write(struct.pack("<QQ", size, size))
            out.seek(end)
            records.append((encoded, crc, size, offset))
        directory = out.tell()
        for encoded, crc, size, offset in records:
            extra = struct.pack("<HHQQQ", 1, 24, size, size, offset)
            out.write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, (3 << 8) | 45, 45, 0, 0,
                                  clock, day, crc, 0xFFFFFFFF, 0xFFFFFFFF, len(encoded),
                                  len(extra), 0, 0, 0, 0o644 << 16, 0xFFFFFFFF)
                      + encoded + extra)
        record = out.tell()
        count, directory_size = len(records), record - directory
        out.write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, count, count,
                              directory_size, directory))
        out.write(struct.pack("<IIQI", 0x07064B50, 0, record, 1))
        out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, min(count, 0xFFFF),
                              min(count, 0xFFFF), 0xFFFFFFFF, 0xFFFFFFFF, 0))
        out.truncate()


# wrapper_dtype (WrapperRuntime.h) of each safetensors dtype.
_RUNTIME_DTYPES = {"BOOL": 0, "I8": 1, "I16": 2, "I32": 3, "I64": 4, "U8": 5, "F16": 6,
                   "F32": 7, "F64": 8, "BF16": 9}
_SAFETENSORS_DTYPES = {"F32": "float32", "F16": "float16", "BF16": "bfloat16",
                      "F64": "float64", "I8": "int8", "I16": "int16", "I32": "int32",
                      "I64": "int64", "U8": "uint8", "BOOL": "bool"}


def write_params(path, tensors):
    """Writes [(name, torch tensor)] as a safetensors file
    (importer.weights.write_safetensors: data on a page, tensors on 64
    bytes). Returns {name: (runtime dtype code, offset in the file, bytes,
    shape)}, what the index's param lines say."""
    from .importer import UnsupportedError
    from .importer.weights import write_safetensors

    try:
        places = write_safetensors(path, tensors)
    except UnsupportedError as error:
        raise WrapperError(f"cannot package the parameters: {error}") from None
    return {name: (_RUNTIME_DTYPES[dtype], offset, size, shape)
            for name, (dtype, offset, size, shape) in places.items()}


def read_params(buffer):
    """{name: torch tensor} over the bytes of a safetensors file (`buffer`:
    any object with the buffer protocol; the tensors are views of it)."""
    import torch

    view = memoryview(buffer).cast("B")
    if len(view) < 8:
        raise WrapperError("not a safetensors file: shorter than its header length")
    (length,) = struct.unpack("<Q", view[:8])
    if length > len(view) - 8:
        raise WrapperError("not a safetensors file: its header runs past its end")
    try:
        header = json.loads(bytes(view[8:8 + length]))
    except ValueError as error:
        raise WrapperError(f"not a safetensors file: its header is not JSON ({error})") from None
    data = 8 + length
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__" or name.startswith("wrapper.pad."):
            continue
        dtype = _SAFETENSORS_DTYPES.get(entry.get("dtype"))
        begin, end = entry["data_offsets"]
        if dtype is None or not 0 <= begin <= end <= len(view) - data:
            raise WrapperError(f"safetensors tensor '{name}': unknown dtype or data beyond "
                               "the end of the file")
        torch_dtype = getattr(torch, dtype)
        shape = entry["shape"]
        if end == begin:
            tensors[name] = torch.empty(shape, dtype=torch_dtype)
            continue
        flat = torch.frombuffer(view[data + begin:data + end], dtype=torch_dtype)
        tensors[name] = flat.reshape(shape)
    return tensors


def _check_options(options):
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise WrapperError("wrapper_mlir.package: unknown option"
                           f"{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
                           "known: " + ", ".join(f"{k} (default {v!r})" for k, v in OPTIONS.items()))
    merged = dict(OPTIONS, **options)
    if merged["plan_memory"] not in ("none", "reuse", "pool"):
        raise WrapperError("wrapper_mlir.package: plan_memory must be 'none', 'reuse' or "
                           f"'pool', got {merged['plan_memory']!r}")
    return merged


def _targets(target):
    targets = [target] if isinstance(target, str) else list(target)
    if not targets:
        raise WrapperError("wrapper_mlir.package: no target given")
    for t in targets:
        if t not in TARGETS:
            raise WrapperError(f"wrapper_mlir.package: target must be 'cpu' or 'cuda', got {t!r}")
    if len(set(targets)) != len(targets):
        raise WrapperError(f"wrapper_mlir.package: a target is given twice: {targets}")
    return targets


def _python_metadata(imported, program):
    """How Python callers map a module's arguments to the model's inputs
    and its outputs back (torch models only)."""
    from torch.utils import _pytree as pytree

    from .importer.core import SEED, is_size_position

    def structure(node):
        kind = node[0]
        if kind == "result":
            return {"result": node[1]}
        if kind == "arg":
            return {"arg": node[1]}
        if kind == "const":
            value = node[1]
            if value is not None and not isinstance(value, (bool, int, float, str)):
                raise WrapperError(f"the model returns a constant of type "
                                   f"{type(value).__name__}, which a package cannot hold")
            return {"const": value}
        kind_name = {tuple: "tuple", list: "list"}.get(node[1])
        if kind_name is None:
            raise WrapperError(f"the model's outputs are a {node[1]}, which a package "
                               "cannot rebuild")
        return {"seq": kind_name, "items": [structure(part) for part in node[2]]}

    spec = program.call_spec
    for position, _ in imported.mutations:
        if not isinstance(position, int):
            raise WrapperError(f"the model writes its buffer '{position[1]}'; a package "
                               "cannot hold a model that mutates its state")
    return {
        "arguments": ["seed" if p == SEED else {"size": p[1]} if is_size_position(p) else
                      {"weight": p[1]} if isinstance(p, tuple) else p
                      for p in imported.arguments],
        "mutations": [list(m) for m in imported.mutations],
        "structure": structure(imported.structure),
        "in_spec": pytree.treespec_dumps(spec.in_spec) if spec and spec.in_spec else None,
        "out_spec": pytree.treespec_dumps(spec.out_spec) if spec and spec.out_spec else None,
    }


def _split_weight_prep(text):
    """The imported text with the computation on weight arguments moved
    into @main_prepare (--tensor-program-split-weight-prep, after the
    rewrites of the compiler's front end that expose it: convolutions as
    products, linear as a transpose and a product)."""
    command = [find_tool("wrapper-opt"), "-", "--tensor-program-convolution-to-matmul",
               "--tensor-program-decompose=activations=false", "--canonicalize",
               "--tensor-program-split-weight-prep"]
    result = subprocess.run(command, input=text, capture_output=True, text=True)
    if result.returncode != 0:
        raise WrapperError(f"splitting the weight computation failed:\n{result.stderr.strip()}")
    return result.stdout


def _split_arguments(python, original, main, prep):
    """Rewrites python["arguments"] for @main after the split (user inputs
    by name, weights, prepared values) and adds python["prepare"]."""
    by_name = {}
    for argument, marker in zip(original["inputs"], python["arguments"]):
        by_name[argument["name"]] = marker
    markers = []
    for argument in main["inputs"]:
        if "prepared" in argument:
            markers.append({"prepared": argument["prepared"]})
        elif argument.get("weight"):
            markers.append({"weight": argument["name"]})
        elif argument["name"] in by_name:
            markers.append(by_name[argument["name"]])
        else:
            raise WrapperError(f"internal error: argument '{argument['name']}' of the split "
                               "program is unknown")
    python["arguments"] = markers
    if prep is not None:
        python["prepare"] = {"entry": "main_prepare",
                             "arguments": [{"weight": a["name"]} for a in prep["inputs"]],
                             "outputs": len(prep["outputs"])}


def _swappable_params(program, imported):
    """[(qualified name, tensor)] of the parameters and buffers the
    imported program takes as inputs, in the order it names them."""
    state, constants = program.state_dict, getattr(program, "constants", {})
    names = [p[1] for p in imported.arguments if isinstance(p, tuple)]
    return [(name, state[name] if name in state else constants[name]) for name in names]


def _verify(path, model, example_inputs, example_kwargs):
    """Loads the package just written and runs it on the example inputs
    against eager PyTorch: outputs within 1e-3 of the largest magnitude of
    each eager output, or WrapperError (the package is removed)."""
    import torch
    from torch.utils import _pytree as pytree

    try:
        loaded = load(path)
    except WrapperError as error:
        if "CUDA is not available" in str(error):
            return  # a CUDA-only package on a machine without a GPU
        raise
    module = model.module() if isinstance(model, torch.export.ExportedProgram) else model
    args, kwargs = list(example_inputs or ()), dict(example_kwargs or {})
    with torch.no_grad():
        expected = pytree.tree_leaves(module(*args, **kwargs))
        got = pytree.tree_leaves(loaded(*args, **kwargs))
    loaded.close()
    if len(expected) != len(got):
        raise WrapperError(f"the package returns {len(got)} values, eager PyTorch "
                           f"{len(expected)}")
    for i, (want, have) in enumerate(zip(expected, got)):
        if not isinstance(want, torch.Tensor):
            continue
        have = torch.as_tensor(have).to(want.device)
        scale = max(1.0, want.detach().abs().max().item()) if want.numel() else 1.0
        error = ((have.float() - want.float()).abs().max().item() if want.numel() else 0.0)
        if have.shape != want.shape or not error <= 1e-3 * scale:
            raise WrapperError(
                f"the package's output {i} differs from eager PyTorch on the example inputs "
                f"(max error {error:.3g}, shape {tuple(have.shape)} vs {tuple(want.shape)}): "
                "a compiler bug; the package was not written (verify=False skips this check)")


def _packed_inputs(library, info, candidates):
    """{input index: nr} of the compiled CPU model's inputs that it takes as
    B panels ([ceil(N/nr)][K][nr] where the program has [K, N]): the model
    ABI's input_info reports the packed shape (its tables do not read the
    model pointer)."""
    lib = ctypes.CDLL(str(library))
    lib.wrapper_model_input_info.argtypes = [
        ctypes.c_void_p, ctypes.c_int32, ctypes.POINTER(ctypes.c_int32),
        ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_int64 * 16)]
    packed = {}
    for i in candidates:
        dtype, rank, shape = ctypes.c_int32(), ctypes.c_int32(), (ctypes.c_int64 * 16)()
        if lib.wrapper_model_input_info(None, i, ctypes.byref(dtype), ctypes.byref(rank),
                                        ctypes.byref(shape)) != 0:
            raise WrapperError(f"the compiled model has no input {i}")
        declared = info["inputs"][i]["shape"]
        if rank.value == 3 and len(declared) == 2:
            packed[i] = int(shape[2])
    return packed


def package(model, example_inputs=None, path=None, *, target="cpu", example_kwargs=None,
            dynamic_batch=False, entry=None, swappable=False, verify=True, **options):
    """Compiles `model` (an nn.Module with example inputs, an
    ExportedProgram, or tensor_program text) for each target ("cpu",
    "cuda", or a list of them) and writes one package file at `path`;
    returns `path`. Ops outside the importer's table are refused (a package
    runs without Python). Options: parallel, gemm, plan_memory, fuse,
    tile_elements, mcpu and mattr (the CPU code's target, as wrapper-compile's
    --mcpu/--mattr; the package refuses to load on a host without those
    features). With `swappable` (torch models), the parameters and buffers
    are inputs of the compiled model, stored once in params.safetensors by
    their qualified names, so that PackagedModel.swap_weights can replace
    them without recompiling (products then pack their weights at each
    call). With `verify` (default), a torch model's package is loaded and
    run on the example inputs before it is written, and refused when its
    outputs differ from eager PyTorch's (a compiler bug must not ship)."""
    if path is None:
        raise WrapperError("wrapper_mlir.package: no path to write the package to")
    options = _check_options(options)
    targets = _targets(target)
    start = time.perf_counter()
    python = None
    params = None
    if isinstance(model, str):
        if swappable:
            raise WrapperError("wrapper_mlir.package: swappable is for torch models (their "
                               "parameters become inputs); text programs take theirs as "
                               "arguments already")
        if example_inputs is not None or dynamic_batch:
            raise WrapperError("wrapper_mlir.package: tensor_program text carries its own "
                               "types; example_inputs and dynamic_batch are for torch models")
        text, weights = model, None
    else:
        from ._torch import import_torch

        imported, program = import_torch(model, example_inputs, example_kwargs, dynamic_batch,
                                         False, "wrapper_mlir.package",
                                         weights_as_inputs=swappable)
        text, weights = imported.text, imported.weights
        python = _python_metadata(imported, program)
        if swappable:
            params = _swappable_params(program, imported)
        if entry is not None:
            raise WrapperError("wrapper_mlir.package: entry names a function of "
                               "tensor_program text, not of a torch model")
    compiler = tool_version(find_tool("wrapper-compile"))
    libraries = [(entry, "model", "")]
    prep = None
    if params is not None:
        original = signature(text)
        text = _split_weight_prep(text)
        main, prep = signature(text, "main"), None
        if re.search(r"func\.func\s+@main_prepare\s*\(", text):
            prep = signature(text, "main_prepare")
            libraries.append(("main_prepare", "prepare", ":prepare"))
        _split_arguments(python, original, main, prep)
        entry = "main"
        libraries[0] = ("main", "model", "")
    info = signature(text, entry)
    flags = fuse_flags(options["fuse"])
    if options["tile_elements"] is not None:
        flags.append(f"--tile-elements={int(options['tile_elements'])}")
    cpu_flags = [f"--{name}={options[name]}" for name in ("mcpu", "mattr") if options[name]]
    # The inputs filled from the package (parameters, prepared values): the
    # CPU model may take those its products read as B already packed into
    # the GEMM template's panels, which the loader makes once per set of
    # weights instead of each call packing them.
    filled = [i for i, argument in enumerate(info["inputs"])
              if "prepared" in argument or argument.get("weight")]
    prepack = ([f"--gemm-options=prepack-arguments={','.join(map(str, filled))}"]
               if params is not None and filled and options["gemm"] is not False else [])
    workdir = Path(tempfile.mkdtemp(prefix="wrapper_package_"))
    try:
        entries, index, models = [], [f"wrapper-package {FORMAT_VERSION}"], []
        for t in targets:
            for function, stem, suffix in libraries:
                directory = workdir / f"{t}{suffix.replace(':', '-')}"
                directory.mkdir()
                main_cpu = t == "cpu" and stem == "model"
                library, _ = _build_library(
                    directory, text, function, options["parallel"], options["gemm"],
                    options["plan_memory"], t, weights,
                    flags + (cpu_flags if t == "cpu" else []) + (prepack if main_cpu else []),
                    weights_mode="external")
                record = {"target": t + suffix, "library": f"{t}/{stem}.so"}
                if main_cpu and prepack:
                    packed = _packed_inputs(library, info, filled)
                    if packed:
                        record["packed_inputs"] = {str(i): nr for i, nr in packed.items()}
                entries.append((record["library"], library, _ALIGN))
                weights_file = directory / "model.safetensors"
                if t == "cpu" and weights_file.is_file():
                    name = "weights" if stem == "model" else f"{stem}.weights"
                    record["weights"] = f"{t}/{name}.safetensors"
                    record["weights_bytes"] = weights_file.stat().st_size
                    entries.append((record["weights"], weights_file, _WEIGHTS_ALIGN))
                if t == "cpu":
                    features = ctypes.CDLL(str(library)).wrapper_model_cpu_features
                    features.restype = ctypes.c_char_p
                    record["cpu_features"] = [f[1:] for f in features().decode().split(",")
                                              if f.startswith("+")]
                index.append(f"model {record['target']} {record['library']} "
                             f"{record.get('weights', '-')}")
                models.append(record)
        metadata = {
            "format": "wrapper-package", "format_version": FORMAT_VERSION,
            "created_by": {"wrapper_mlir": _install.__version__,
                           "compiler": {k: compiler.get(k) for k in
                                        ("version", "commit", "llvm_version")}},
            "model_abi": compiler["model_abi"],
            "options": {k: v for k, v in options.items()},
            **info,
            "targets": models,
        }
        if python is not None:
            metadata["python"] = python
        if params is not None:
            params_file = workdir / "params.safetensors"
            places = write_params(params_file, params)
            entries.append((PARAMS, params_file, _WEIGHTS_ALIGN))
            # For C loaders: where each parameter lies, and which inputs
            # of each model the package fills.
            for name, (code, offset, size, shape) in places.items():
                index.append(f"param {name} {code} {offset} {size} {len(shape)} "
                             + " ".join(map(str, shape)))
            for t in targets:
                packed = next((m.get("packed_inputs", {}) for m in models if m["target"] == t),
                              {})
                for i, argument in enumerate(info["inputs"]):
                    tail = f" packed {packed[str(i)]}" if str(i) in packed else ""
                    if "prepared" in argument:
                        index.append(f"input {t} {i} prepared {argument['prepared']}{tail}")
                    elif argument.get("weight"):
                        index.append(f"input {t} {i} weight {argument['name']}{tail}")
                if prep is not None:
                    for i, argument in enumerate(prep["inputs"]):
                        index.append(f"input {t}:prepare {i} weight {argument['name']}")
            metadata["params"] = {"entry": PARAMS, "names": [name for name, _ in params]}
        if not any(m.get("packed_inputs") for m in models):
            # Nothing a version-1 loader would misread: such packages stay
            # readable by older runtimes.
            index[0] = "wrapper-package 1"
            metadata["format_version"] = 1
        head = [(INDEX, ("\n".join(index) + "\n").encode(), _ALIGN),
                (METADATA, (json.dumps(metadata, indent=1) + "\n").encode(), _ALIGN)]
        path = Path(path)
        partial = path.with_name(path.name + ".partial")
        write_archive(partial, head + entries)
        if verify and python is not None:
            try:
                _verify(partial, model, example_inputs, example_kwargs)
            except BaseException:
                partial.unlink(missing_ok=True)
                raise
        os.replace(partial, path)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return path


# -- loading ----------------------------------------------------------------


class _ModelApi(ctypes.Structure):
    _fields_ = [("target", ctypes.c_char_p), ("library", ctypes.c_void_p),
                ("path", ctypes.c_char_p)] + [(name, ctypes.c_void_p) for name in (
                    "abi_version", "create", "destroy", "num_inputs", "num_outputs",
                    "input_name", "output_name", "input_info", "output_info", "run",
                    "run_device")]


_runtime = None


def _package_runtime():
    global _runtime
    if _runtime is None:
        lib = ctypes.CDLL(runtime_library(), mode=ctypes.RTLD_GLOBAL)
        lib.wrapper_package_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.wrapper_package_open_memory.argtypes = [ctypes.c_void_p, ctypes.c_uint64,
                                                    ctypes.POINTER(ctypes.c_void_p)]
        lib.wrapper_package_close.argtypes = [ctypes.c_void_p]
        lib.wrapper_package_close.restype = None
        lib.wrapper_package_metadata.argtypes = [ctypes.c_void_p]
        lib.wrapper_package_metadata.restype = ctypes.c_char_p
        lib.wrapper_package_load.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                             ctypes.POINTER(ctypes.POINTER(_ModelApi))]
        lib.wrapper_package_entry.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                              ctypes.POINTER(ctypes.c_void_p),
                                              ctypes.POINTER(ctypes.c_uint64)]
        lib.wrapper_last_error.restype = ctypes.c_char_p
        _runtime = lib
    return _runtime


def _close(runtime, handle, models, memory):
    for model in models if isinstance(models, tuple) else (models,):
        if model is not None:
            model._destroy_model()
    runtime.wrapper_package_close(handle)
    if memory is not None:
        try:
            memory.close()
        except BufferError:  # a view is still exported: the mapping lives on
            pass


class PackagedModel:
    """A model loaded from a package: call it as the module was called
    (torch models: args and kwargs, the module's output structure) or with
    one array per input (text); `.metadata` is the package's metadata."""

    def __init__(self, source, target=None):
        runtime = _package_runtime()
        handle = ctypes.c_void_p()
        self._memory = None
        if isinstance(source, (bytes, bytearray, memoryview)):
            # A page-aligned copy: the weights are used where they lie.
            size = len(source)
            self._memory = mmap.mmap(-1, max(size, 1))
            self._memory[:size] = source
            address = ctypes.addressof(ctypes.c_char.from_buffer(self._memory))
            status = runtime.wrapper_package_open_memory(address, size, ctypes.byref(handle))
            where = "the package bytes"
        else:
            status = runtime.wrapper_package_open(str(source).encode(), ctypes.byref(handle))
            where = str(source)
        if status != 0:
            self._memory = None
            raise WrapperError(runtime.wrapper_last_error().decode())
        self._closer = weakref.finalize(self, _close, runtime, handle, None, self._memory)
        self.metadata = json.loads(runtime.wrapper_package_metadata(handle).decode() or "{}")
        if self.metadata.get("format") != "wrapper-package":
            raise WrapperError(f"{where}: the package's metadata is missing or not a "
                               "Wrapper package's")
        api = ctypes.POINTER(_ModelApi)()
        if runtime.wrapper_package_load(handle, target.encode() if target else None,
                                        ctypes.byref(api)) != 0:
            raise WrapperError(runtime.wrapper_last_error().decode())
        self.target = api.contents.target.decode()
        self._compiled = CompiledModel(api.contents.path.decode(), None, None, None,
                                       self.target, handle=api.contents.library)
        self._closer.detach()
        self._closer = weakref.finalize(self, _close, runtime, handle, self._compiled,
                                        self._memory)
        self._python = self.metadata.get("python")
        # A swappable package's parameters: views of the package's memory
        # (moved to the device once for a CUDA model), replaced as a whole
        # table by swap_weights.
        self._table = None
        self._prepare = None
        # Inputs the model takes as B panels, made once per set of weights.
        record = next((m for m in self.metadata.get("targets", [])
                       if m.get("target") == self.target), {})
        self._packed = {int(i): int(nr) for i, nr in record.get("packed_inputs", {}).items()}
        if "params" in self.metadata:
            data, size = ctypes.c_void_p(), ctypes.c_uint64()
            if runtime.wrapper_package_entry(handle, self.metadata["params"]["entry"].encode(),
                                             ctypes.byref(data), ctypes.byref(size)) != 0:
                raise WrapperError(runtime.wrapper_last_error().decode())
            memory = (ctypes.c_char * size.value).from_address(data.value)
            table = read_params(memory)
            missing = [n for n in self.metadata["params"]["names"] if n not in table]
            if missing:
                raise WrapperError(f"{where}: the package's parameters lack {', '.join(missing)}")
            params = {name: self._placed(table[name])
                      for name in self.metadata["params"]["names"]}
            self._prepare = None
            if self._python.get("prepare"):
                prepare = ctypes.POINTER(_ModelApi)()
                if runtime.wrapper_package_load(handle, f"{self.target}:prepare".encode(),
                                                ctypes.byref(prepare)) != 0:
                    raise WrapperError(runtime.wrapper_last_error().decode())
                self._prepare = CompiledModel(prepare.contents.path.decode(), None, None, None,
                                              self.target, handle=prepare.contents.library)
                self._closer.detach()
                self._closer = weakref.finalize(self, _close, runtime, handle,
                                                (self._compiled, self._prepare), self._memory)
            self._table = self._prepared(params)
        self._in_spec = self._out_spec = None
        if self._python and (self._python.get("in_spec") or self._python.get("out_spec")):
            from torch.utils import _pytree as pytree

            if self._python.get("in_spec"):
                self._in_spec = pytree.treespec_loads(self._python["in_spec"])
            if self._python.get("out_spec"):
                self._out_spec = pytree.treespec_loads(self._python["out_spec"])

    @property
    def inputs(self):
        return self._compiled.inputs

    @property
    def outputs(self):
        return self._compiled.outputs

    def close(self):
        """Destroys the model and closes the package (also done when the
        object is collected)."""
        self._closer()

    def __call__(self, *args, **kwargs):
        if not self._closer.alive:
            raise WrapperError("the package was closed")
        if self._python is None:
            if kwargs:
                raise WrapperError("a model packaged from tensor_program text takes one "
                                   "array per input, no keyword arguments")
            return self._compiled(*args)
        from ._torch import _seed, _size_carrier, copy_back, flatten_arguments

        flat = flatten_arguments(args, kwargs, self._in_spec)
        # One table for the whole call: a swap on another thread meanwhile
        # gives the next call the new weights, never this one a mix.
        table = self._table
        device = _torch_device(flat) if self.target == "cuda" else None
        passed = [_seed(device) if p == "seed" else
                  table[("packed", i)] if i in self._packed else
                  _size_carrier(flat, p["size"], device) if isinstance(p, dict) and "size" in p
                  else
                  table[p["weight"]] if isinstance(p, dict) and "weight" in p else
                  table[("prepared", p["prepared"])] if isinstance(p, dict) else flat[p]
                  for i, p in enumerate(self._python["arguments"])]
        results = self._compiled._call_values(passed)
        copy_back(flat, results, self._python["mutations"])
        outputs = _rebuild(self._python["structure"], list(results), flat)
        if self._out_spec is not None:
            from torch.utils import _pytree as pytree

            return pytree.tree_unflatten(list(outputs), self._out_spec)
        return outputs

    def _placed(self, tensor):
        """`tensor` where the model reads its inputs: the GPU for a CUDA
        model, host memory for a CPU one."""
        return tensor.to("cuda") if self.target == "cuda" else tensor.cpu()

    def _prepared(self, params):
        """The table a call reads: the parameters by name and, when the
        package has a prepare function, its results (("prepared", K)),
        computed from them once."""
        table = dict(params)
        if self._prepare is not None:
            prepare = self._python["prepare"]
            import torch

            with torch.no_grad():
                results = self._prepare._call_values(
                    [params[a["weight"]] for a in prepare["arguments"]])
            for k, value in enumerate(results):
                table[("prepared", k)] = torch.as_tensor(value)
        for i, nr in self._packed.items():
            p = self._python["arguments"][i]
            value = table[p["weight"]] if "weight" in p else table[("prepared", p["prepared"])]
            table[("packed", i)] = _pack_panels(value, nr)
        return table

    @property
    def weights(self):
        """{qualified name: tensor} of a swappable package's current
        parameters (read-only views: replace them with swap_weights)."""
        if self._table is None:
            raise WrapperError("this package is not swappable (package it with "
                               "swappable=True)")
        return {k: v for k, v in self._table.items() if isinstance(k, str)}

    def swap_weights(self, weights):
        """Replaces all or some of a swappable package's parameters without
        recompiling: `weights` is {qualified name: tensor or array}, a
        state_dict's subset, or a safetensors file (a path or its bytes).
        Each is checked (known name, same shape and dtype) and copied before
        any is used; calls on other threads use either the old or the new
        table, never a mix. Returns the names replaced."""
        if self._table is None:
            raise WrapperError("this package is not swappable (package it with "
                               "swappable=True)")
        import torch

        if isinstance(weights, (str, os.PathLike)):
            with open(weights, "rb") as stream:
                weights = read_params(bytearray(stream.read()))
        elif isinstance(weights, (bytes, bytearray, memoryview)):
            weights = read_params(bytearray(weights))
        if not isinstance(weights, dict) or not weights:
            raise WrapperError("swap_weights takes a non-empty {name: tensor} dict or a "
                               "safetensors file")
        replaced = {}
        names = [n for n in self._table if isinstance(n, str)]
        for name, value in weights.items():
            if name not in names:
                close = [n for n in names if n.split(".")[-1] == str(name).split(".")[-1]]
                raise WrapperError(f"swap_weights: the model has no parameter '{name}'" +
                                   (f" (it has {', '.join(close[:4])}, ...)" if close else ""))
            current = self._table[name]
            value = torch.as_tensor(value)
            if tuple(value.shape) != tuple(current.shape) or value.dtype != current.dtype:
                raise WrapperError(f"swap_weights: '{name}' is {value.dtype} "
                                   f"{tuple(value.shape)}; the model's is {current.dtype} "
                                   f"{tuple(current.shape)}")
            replaced[name] = self._placed(value.detach().clone().contiguous())
        params = self.weights
        params.update(replaced)
        # The new table is complete (prepared values computed) before it
        # is published: calls use the old one until then.
        self._table = self._prepared(params)
        return sorted(replaced)


def _pack_panels(b, nr):
    """The GEMM template's B panels of `b` ([K, N] float32):
    [ceil(N/nr)][K][nr], element (k, n) at (n // nr, k, n % nr), zero past
    N (as the C loader's pack_panels)."""
    import torch

    rows, cols = b.shape
    panels = -(-cols // nr)
    padded = torch.zeros(rows, panels * nr, dtype=b.dtype, device=b.device)
    padded[:, :cols] = b
    return padded.view(rows, panels, nr).permute(1, 0, 2).contiguous()


def _rebuild(structure, results, args=()):
    if "result" in structure:
        return results[structure["result"]]
    if "arg" in structure:
        return args[structure["arg"]]
    if "const" in structure:
        return structure["const"]
    items = [_rebuild(item, results, args) for item in structure["items"]]
    return tuple(items) if structure["seq"] == "tuple" else items


def load(source, target=None):
    """Loads a package (a path, or its bytes) for `target` ("cpu", "cuda";
    None: the first one this host can run); returns a PackagedModel."""
    return PackagedModel(source, target)

