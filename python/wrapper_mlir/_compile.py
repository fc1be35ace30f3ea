"""compile(): tensor_program text to a callable on NumPy arrays."""

import ctypes
import functools
import math
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import weakref
from pathlib import Path

import numpy as np


from ._install import ABI_VERSIONS as _ABI_VERSIONS
from ._install import WrapperError, find_tool

# include/Wrapper/Runtime/WrapperRuntime.h
_MAX_RANK = 16
_DTYPES = {
    0: np.dtype(np.bool_),
    1: np.dtype(np.int8),
    2: np.dtype(np.int16),
    3: np.dtype(np.int32),
    4: np.dtype(np.int64),
    5: np.dtype(np.uint8),
    6: np.dtype(np.float16),
    7: np.dtype(np.float32),
    8: np.dtype(np.float64),
}
_CODES = {dtype: code for code, dtype in _DTYPES.items()}
_NAMES = {9: "bfloat16", 10: "float8_e4m3fn"}
_BFLOAT16 = 9


class _Raw:
    """An array of a dtype NumPy lacks (bf16): its bits as a NumPy array of
    the same item size, and the runtime's dtype code. Torch tensors of such
    dtypes go in and come out this way (torch views the bits as bf16)."""

    def __init__(self, bits, code):
        self.bits = bits
        self.code = code


class _Array(ctypes.Structure):
    _fields_ = [
        ("dtype", ctypes.c_int32),
        ("rank", ctypes.c_int32),
        ("shape", ctypes.c_int64 * _MAX_RANK),
        ("data", ctypes.c_void_p),
    ]


class _StridedArray(ctypes.Structure):
    """wrapper_strided_array (WrapperModel.h)."""
    _fields_ = [
        ("dtype", ctypes.c_int32),
        ("rank", ctypes.c_int32),
        ("shape", ctypes.c_int64 * _MAX_RANK),
        ("strides", ctypes.c_int64 * _MAX_RANK),
        ("data", ctypes.c_void_p),
        ("allocated", ctypes.c_void_p),
    ]


class _CudaStats(ctypes.Structure):
    """wrapper_cuda_stats (WrapperCuda.h, ABI 4)."""
    _fields_ = [(name, ctypes.c_uint64) for name in (
        "allocations", "cache_hits", "bytes_in_use", "bytes_reserved", "modules_loaded",
        "function_lookups", "launches", "gemms", "constant_uploads", "graph_launches",
        "copies_to_device", "copies_to_host", "bytes_to_device", "bytes_to_host")]


_cuda_runtime_library = None


def _cuda_runtime():
    """The CUDA runtime library (the one CUDA models link), loaded once."""
    global _cuda_runtime_library
    if _cuda_runtime_library is None:
        path = (Path(find_tool("wrapper-compile")).parent.parent / "lib"
                / "libwrapper_cuda_runtime.so")
        try:
            lib = ctypes.CDLL(str(path))
        except OSError as error:
            raise WrapperError(f"cannot load the CUDA runtime: {error}") from None
        lib.wrapper_cuda_get_stats.argtypes = [ctypes.POINTER(_CudaStats)]
        lib.wrapper_cuda_get_stats.restype = None
        lib.wrapper_cuda_device.restype = ctypes.c_int32
        lib.wrapper_cuda_dlpack_arrays.argtypes = [
            ctypes.POINTER(_StridedArray), ctypes.c_int32, ctypes.c_int32,
            ctypes.POINTER(ctypes.c_void_p)]
        lib.wrapper_cuda_free.argtypes = [ctypes.c_void_p]
        lib.wrapper_cuda_donate.argtypes = [
            ctypes.POINTER(ctypes.c_void_p), ctypes.c_int32, ctypes.c_int32,
            ctypes.POINTER(ctypes.c_int32)]
        lib.wrapper_cuda_release_stats.argtypes = [
            ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64)]
        lib.wrapper_cuda_release_stats.restype = None
        lib.wrapper_cuda_set_stream.argtypes = [ctypes.c_void_p,
                                                ctypes.POINTER(ctypes.c_void_p)]
        lib.wrapper_cuda_graph_end.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        lib.wrapper_cuda_graph_launch.argtypes = [ctypes.c_void_p]
        lib.wrapper_cuda_graph_destroy.argtypes = [ctypes.c_void_p]
        lib.wrapper_cuda_graph_begin_in.argtypes = [ctypes.c_void_p]
        lib.wrapper_cuda_graph_pool_create.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        lib.wrapper_cuda_graph_pool_destroy.argtypes = [ctypes.c_void_p]
        lib.wrapper_cuda_graph_pool_stats.argtypes = [
            ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64)]
        lib.wrapper_cuda_graph_pool_stats.restype = None
        lib.wrapper_last_error.restype = ctypes.c_char_p
        _cuda_runtime_library = lib
    return _cuda_runtime_library


_bound_device = None


def _compile_device():
    """The CUDA device ordinal a program compiled now runs on: the one the
    runtime will bind to (see _cuda_device)."""
    if _bound_device is not None:
        return _bound_device
    if "WRAPPER_CUDA_DEVICE" in os.environ:
        return int(os.environ["WRAPPER_CUDA_DEVICE"])
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        return torch.cuda.current_device()
    return 0


def _cuda_device():
    """The device the CUDA runtime is bound to (asked once: it never
    changes after initialization). Unless WRAPPER_CUDA_DEVICE says
    otherwise, the runtime binds to PyTorch's current device when PyTorch
    has initialized CUDA (so that each rank of a distributed job, which
    calls torch.cuda.set_device, runs on its own GPU), else to device 0."""
    global _bound_device
    if _bound_device is None:
        runtime = _cuda_runtime()
        torch = sys.modules.get("torch")
        if ("WRAPPER_CUDA_DEVICE" not in os.environ and torch is not None
                and torch.cuda.is_initialized()):
            runtime.wrapper_cuda_init(ctypes.c_int32(torch.cuda.current_device()))
        device = runtime.wrapper_cuda_device()
        if device < 0:
            raise WrapperError(runtime.wrapper_last_error().decode())
        _bound_device = device
    return _bound_device


def cuda_stats():
    """The CUDA runtime's counters (WrapperCuda.h's wrapper_cuda_stats) as a
    dict: allocations and cache hits of its caching allocator, bytes in use
    and reserved, kernel launches, cuBLAS products, constant uploads, graph
    launches, and the copies between host and device memory
    (copies_to_device, copies_to_host, bytes_to_device, bytes_to_host), so
    that a caller can check that calls on CUDA tensors made none; and
    peak_bytes_in_use, the most bytes_in_use has been since the last
    reset_cuda_peak() (like torch.cuda.max_memory_allocated);
    released_early and bytes_released_early, the donated blocks (a
    backward's saved activations) freed at their last use in a call."""
    runtime = _cuda_runtime()
    stats = _CudaStats()
    runtime.wrapper_cuda_get_stats(ctypes.byref(stats))
    result = {name: getattr(stats, name) for name, _ in _CudaStats._fields_}
    runtime.wrapper_cuda_peak_bytes_in_use.restype = ctypes.c_uint64
    result["peak_bytes_in_use"] = runtime.wrapper_cuda_peak_bytes_in_use()
    released, released_bytes = ctypes.c_uint64(), ctypes.c_uint64()
    runtime.wrapper_cuda_release_stats(ctypes.byref(released), ctypes.byref(released_bytes))
    result["released_early"] = released.value
    result["bytes_released_early"] = released_bytes.value
    return result


class donating:
    """Gives up the device blocks of `tensors` (CUDA tensors that the
    runtime's DLPack export owns; others are skipped) for the calls made
    inside the `with` block, which free each after its last reader when
    compiled with --cuda-release-arguments; taken back at the end (those
    not freed). The caller must not read the tensors afterwards: a
    backward's saved activations, which AOTAutograd drops after it. A
    tensor whose memory any other of `arguments` (the call's) shares is
    not given up: the call may still read it through the other."""

    def __init__(self, tensors, arguments=()):
        import torch

        storages = {}
        for value in arguments:
            if isinstance(value, torch.Tensor) and value.is_cuda:
                base = value.untyped_storage().data_ptr()
                storages[base] = storages.get(base, 0) + 1
        self._pointers = [
            t.data_ptr() for t in tensors
            if t.is_cuda and storages.get(t.untyped_storage().data_ptr(), 1) == 1]

    def __enter__(self):
        if self._pointers:
            self._array = (ctypes.c_void_p * len(self._pointers))(*self._pointers)
            self._runtime = _cuda_runtime()
            self._runtime.wrapper_cuda_donate(self._array, len(self._pointers), 1, None)
        return self

    def __exit__(self, *exc):
        if self._pointers:
            self._runtime.wrapper_cuda_donate(self._array, len(self._pointers), 0, None)
        return False


def reset_cuda_peak():
    """Sets cuda_stats()["peak_bytes_in_use"] to the bytes in use now (like
    torch.cuda.reset_peak_memory_stats), so that the next reading is the
    peak of what ran in between."""
    _cuda_runtime().wrapper_cuda_reset_peak_bytes_in_use()


# The name of DLPack capsules; it must outlive them (PyCapsule keeps the
# pointer).
_DLTENSOR = ctypes.create_string_buffer(b"dltensor")
_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


# The adapter library once loaded, and whether it is in use (None: not
# decided yet, because torch was not imported when a model was loaded).
_kmpc_over_gomp = None
_kmpc_adapter_state = None


def _loaded_libgomp():
    """The path of the libgomp loaded in this process, or None."""
    try:
        with open("/proc/self/maps") as maps:
            paths = (line.split()[-1] for line in maps)
            return next((p for p in paths if "/libgomp" in p and ".so" in p), None)
    except OSError:
        return None


def _share_torch_openmp():
    """In a process where PyTorch runs its ops on GNU OpenMP (libgomp), makes
    the CPU models loaded from now on run their parallel loops on the same
    threads: PyTorch's libgomp is made global and the runtime's adapter of
    LLVM OpenMP's entry points over it (libwrapper_kmpc_over_gomp.so) is
    loaded globally, so a model's __kmpc_* calls bind there instead of to a
    second thread pool (libomp) that would fight PyTorch's spinning workers
    for the cores. WRAPPER_OPENMP=libomp keeps libomp. Returns whether the
    adapter is in use."""
    global _kmpc_adapter_state, _kmpc_over_gomp
    if _kmpc_adapter_state is not None:
        return _kmpc_adapter_state
    if os.environ.get("WRAPPER_OPENMP", "") == "libomp" or "torch" not in sys.modules:
        return False  # decided again for the next model
    gomp = _loaded_libgomp()
    adapter = (Path(find_tool("wrapper-compile")).parent.parent / "lib"
               / "libwrapper_kmpc_over_gomp.so")
    _kmpc_adapter_state = gomp is not None and adapter.is_file()
    if _kmpc_adapter_state:
        ctypes.CDLL(gomp, mode=os.RTLD_NOLOAD | ctypes.RTLD_GLOBAL)
        _kmpc_over_gomp = ctypes.CDLL(str(adapter), mode=ctypes.RTLD_GLOBAL)
        _kmpc_over_gomp.wrapper_kmpc_over_gomp_forks.restype = ctypes.c_longlong
    return _kmpc_adapter_state


def _run(command, what, stdin=None):
    result = subprocess.run(command, input=stdin, capture_output=True, text=True)
    if result.returncode != 0:
        message = (result.stderr or result.stdout).strip()
        raise WrapperError(f"{what} failed:\n{message}")
    return result.stdout


def _is_torch_tensor(value):
    return type(value).__module__.startswith("torch") and hasattr(value, "detach")


def _to_numpy(value, target="cpu"):
    """A torch CPU tensor as a NumPy array over its storage (no copy); for a
    CUDA model, a CUDA tensor's copy in host memory (the model copies its
    inputs to the device itself). A bf16 tensor becomes a _Raw over its
    bits."""
    if _is_torch_tensor(value):
        if value.device.type == "cuda" and target == "cuda":
            value = value.detach().cpu()
        elif value.device.type != "cpu":
            raise WrapperError(
                f"input on device '{value.device}', the model runs on "
                f"{'the CPU' if target == 'cpu' else target}")
        tensor = value.detach()
        if str(tensor.dtype) == "torch.bfloat16":
            import torch

            return _Raw(tensor.view(torch.int16).numpy(), _BFLOAT16)
        return tensor.numpy()
    return value


def _to_torch(array):
    """A model output (a NumPy array, or a _Raw of bf16 bits) as a torch
    tensor over the same memory."""
    import torch

    if isinstance(array, _Raw):
        return torch.from_numpy(array.bits).view(torch.bfloat16)
    return torch.from_numpy(array)


def _torch_device(args):
    """The device of the first CUDA tensor among `args`, else None."""
    for value in args:
        if _is_torch_tensor(value) and value.device.type == "cuda":
            return value.device
    return None


def _bool_option(value):
    return "true" if value else "false"


def _cuda_tensors(args, device, count, what):
    """`args` (tensors or values) as contiguous tensors on the CUDA device
    `device`, checked: `count` of them, all on that device, which must be
    the one the CUDA runtime of this process is bound to, of dtypes the
    model ABI passes. `what` names the callee in messages."""
    import torch

    from .importer.fallback import TORCH_DTYPE_CODES

    bound = _cuda_device()
    index = device.index if device.index is not None else torch.cuda.current_device()
    if len(args) != count:
        raise WrapperError(f"{what} takes {count} inputs, got {len(args)}")
    tensors = []
    Tensor = torch.Tensor
    for i, value in enumerate(args):
        # A tensor on the device already (the usual case, one call of the
        # per-call path per input): taken as it is.
        if type(value) is Tensor and value.get_device() == index:
            tensor = value
        else:
            tensor = torch.as_tensor(value, device=device)
            if tensor.device.type != "cuda" or tensor.device.index != index:
                raise WrapperError(
                    f"input #{i} is on {tensor.device}, input #0 on cuda:{index}; "
                    f"{what} runs on one device")
        if tensor.dtype not in TORCH_DTYPE_CODES:
            raise WrapperError(f"input #{i}: unsupported dtype {tensor.dtype}")
        if tensor.dim() > _MAX_RANK:
            raise WrapperError(f"input #{i}: rank {tensor.dim()} above {_MAX_RANK}")
        if tensor.requires_grad:
            tensor = tensor.detach()
        tensors.append(tensor if tensor.is_contiguous() else tensor.contiguous())
    if index != bound:
        raise WrapperError(
            f"the inputs are on cuda:{index}, the CUDA runtime of this process is "
            f"bound to cuda:{bound} (one device per process; set "
            "WRAPPER_CUDA_DEVICE before the first CUDA model runs)")
    return tensors


def _rank_packers(structure, arrays, tail):
    """struct packers of one `structure` descriptor per rank: dtype, rank,
    then `arrays` int64 arrays of _MAX_RANK entries (the rank's values,
    zeros after them), then the pointers of `tail` ("Q" each)."""
    import struct

    packers = []
    for rank in range(_MAX_RANK + 1):
        rest = f"{(_MAX_RANK - rank) * 8}x" if rank < _MAX_RANK else ""
        packers.append(struct.Struct("=ii" + f"{rank}q{rest}" * arrays + tail))
    assert all(p.size == ctypes.sizeof(structure) for p in packers)
    return packers


# wrapper_strided_array: sizes, strides, data, allocated (0).
_PACKERS = _rank_packers(_StridedArray, 2, "QQ")
# wrapper_array: sizes, data.
_ARRAY_PACKERS = _rank_packers(_Array, 1, "Q")


def _strided_arrays(tensors):
    """wrapper_strided_array descriptors (a ctypes array) of torch tensors;
    the tensors must outlive their use. Each is packed in one call (a
    training graph passes 100+ tensors a call: setting the ctypes fields
    one by one took a third longer)."""
    from .importer.fallback import TORCH_DTYPE_CODES

    arrays = (_StridedArray * max(1, len(tensors)))()
    size = ctypes.sizeof(_StridedArray)
    for index, tensor in enumerate(tensors):
        shape = tensor.shape
        _PACKERS[len(shape)].pack_into(arrays, index * size, TORCH_DTYPE_CODES[tensor.dtype],
                                       len(shape), *shape, *tensor.stride(),
                                       tensor.data_ptr(), 0)
    return arrays


class CompiledModel:
    """A compiled tensor_program function. Call it with one array per
    argument; it returns a tuple of arrays, one per result."""

    def __init__(self, library, source, command, workdir, target="cpu", handle=None):
        self._source = source
        # The wrapper-compile command that built the library, less -o: ir()
        # reruns it up to a stage (--emit-mlir), so the IR shown is what
        # this compilation made, options and target included.
        self._command = command
        # The directory (the library, its source and weights) goes with the
        # model, removed explicitly: a TemporaryDirectory left to the
        # garbage collector warns (ResourceWarning).
        self._workdir = workdir
        if workdir is not None:
            weakref.finalize(self, shutil.rmtree, workdir, ignore_errors=True)
        self.target = target
        if target == "cpu":
            _share_torch_openmp()
        elif "torch" in sys.modules:
            # The runtime bound before the model checks for CUDA: on
            # PyTorch's current device (each rank of a job its own).
            # Without CUDA, creating the model says so.
            try:
                _cuda_device()
            except WrapperError:
                pass
        try:
            # `handle`: a library loaded already (a package's), whose owner
            # unloads it: no reference of ours.
            self._lib = ctypes.CDLL(library, handle=handle)
        except OSError as error:  # a library the model needs is missing
            raise WrapperError(f"cannot load the compiled model: {error}") from None
        lib = self._lib
        lib.wrapper_model_abi_version.restype = ctypes.c_int32
        version = lib.wrapper_model_abi_version()
        if version not in _ABI_VERSIONS:
            raise WrapperError(
                f"{library}: model ABI version {version}, this package reads "
                f"versions {', '.join(map(str, _ABI_VERSIONS))}"
            )
        self._run_device = None
        # The CUDA graphs of calls on CUDA tensors, when on
        # (wrapper_mlir._cuda_graphs.enable, a layer above this one).
        self._graphs = None
        if version >= 2 and target == "cuda":
            lib.wrapper_model_run_device.argtypes = [
                ctypes.c_void_p, ctypes.POINTER(_StridedArray), ctypes.c_int32,
                ctypes.POINTER(_StridedArray), ctypes.c_int32, ctypes.c_void_p]
            self._run_device = lib.wrapper_model_run_device
        lib.wrapper_last_error.restype = ctypes.c_char_p
        lib.wrapper_model_create.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        lib.wrapper_model_destroy.argtypes = [ctypes.c_void_p]
        lib.wrapper_model_destroy.restype = None
        for name in ("inputs", "outputs"):
            fn = getattr(lib, f"wrapper_model_num_{name}")
            fn.argtypes = [ctypes.c_void_p]
            fn.restype = ctypes.c_int32
        for name in ("input", "output"):
            fn = getattr(lib, f"wrapper_model_{name}_info")
            fn.argtypes = [
                ctypes.c_void_p,
                ctypes.c_int32,
                ctypes.POINTER(ctypes.c_int32),
                ctypes.POINTER(ctypes.c_int32),
                ctypes.POINTER(ctypes.c_int64),
            ]
        lib.wrapper_model_run.argtypes = [
            ctypes.c_void_p,
            ctypes.POINTER(_Array),
            ctypes.c_int32,
            ctypes.POINTER(_Array),
            ctypes.c_int32,
        ]
        lib.wrapper_array_destroy.argtypes = [ctypes.POINTER(_Array)]
        lib.wrapper_array_destroy.restype = None

        self._run_model = lib.wrapper_model_run
        self._destroy = lib.wrapper_array_destroy
        # Outputs to torch through DLPack in one call (runtimes of session
        # 58 on; an older package's runtime lacks it: NumPy views then).
        self._dlpack_arrays = getattr(lib, "wrapper_dlpack_arrays", None)
        if self._dlpack_arrays is not None:
            self._dlpack_arrays.argtypes = [ctypes.POINTER(_Array), ctypes.c_int32,
                                            ctypes.POINTER(ctypes.c_void_p)]
        handle = ctypes.c_void_p()
        self._check(lib.wrapper_model_create(ctypes.byref(handle)))
        self._handle = handle
        # Called at most once: by the garbage collector, or by the owner of
        # the library before it unloads it (a package).
        self._destroy_model = weakref.finalize(self, lib.wrapper_model_destroy, handle)
        self.inputs = [self._info("input", i) for i in range(lib.wrapper_model_num_inputs(handle))]
        self.outputs = [self._info("output", i) for i in range(lib.wrapper_model_num_outputs(handle))]
        # Every output has a DLPack type (not fp8) and the runtime the call.
        self._outputs_by_dlpack = self._dlpack_arrays is not None and all(
            dtype != _NAMES[10] for dtype, _ in self.outputs)

    def _check(self, status):
        if status != 0:
            message = self._lib.wrapper_last_error()
            raise WrapperError(message.decode() if message else f"status {status}")

    def _info(self, kind, index):
        dtype = ctypes.c_int32()
        rank = ctypes.c_int32()
        shape = (ctypes.c_int64 * _MAX_RANK)()
        fn = getattr(self._lib, f"wrapper_model_{kind}_info")
        self._check(fn(self._handle, index, ctypes.byref(dtype), ctypes.byref(rank), shape))
        name = _DTYPES.get(dtype.value) or _NAMES.get(dtype.value, f"dtype {dtype.value}")
        dims = tuple(None if d < 0 else d for d in shape[: rank.value])
        return (str(name), dims)

    def __call__(self, *args):
        """Runs the model. NumPy arrays in, NumPy arrays out; when any input
        is a torch tensor, the outputs are torch tensors (sharing the model's
        buffers, through the buffer protocol). A CUDA model called on CUDA
        tensors runs on them where they are, on PyTorch's current stream,
        and returns CUDA tensors over the runtime's device memory (no copy
        through the host, no wait for the GPU); on host arrays it copies them
        to the device and its outputs back."""
        return tuple(self._call_values(list(args)))

    def _call_values(self, args):
        """__call__ on a list of inputs; returns a list."""
        if self.target == "cpu" and args and _is_torch_tensor(args[0]):
            # CPU tensors straight into the descriptors (no NumPy views);
            # None at the first argument that is not one (the general path
            # below then takes the call).
            described = _tensor_arrays(args)
            if described is not None:
                arrays, keep = described  # keep: the tensors, alive for the call
                return self._run_arrays_torch(arrays, len(args))
        device = _torch_device(args)
        if device is not None and self._run_device is not None:
            return self._run_on_device(args, device)
        torch_inputs = any(_is_torch_tensor(a) for a in args)
        outputs = self._run([_to_numpy(a, self.target) for a in args], raw=torch_inputs)
        if torch_inputs:
            results = [_to_torch(o) for o in outputs]
            return [r.to(device) for r in results] if device else results
        return list(outputs)

    def _run_on_device(self, args, device):
        """Runs a CUDA model on the CUDA tensors `args` (other values become
        tensors on their device first), on PyTorch's current stream; the
        outputs are torch tensors over the runtime's blocks (DLPack). With
        CUDA graphs on, a replay of the graph captured for the inputs'
        shapes and dtypes instead."""
        import torch

        tensors = self._device_tensors(args, device)
        if self._graphs is not None:
            return self._graphs(tensors, device)
        stream = torch.cuda.current_stream(device).cuda_stream
        outputs = self._run_device_arrays(tensors, stream)
        return self._adopt_device_outputs(outputs)

    def _device_tensors(self, args, device):
        """The inputs as contiguous tensors on `device` (_cuda_tensors)."""
        return _cuda_tensors(args, device, len(self.inputs), "the model")

    def _run_device_arrays(self, tensors, stream):
        """wrapper_model_run_device on `tensors` (from _device_tensors) on
        the CUstream `stream`; returns the output descriptors (a ctypes
        array, one per output), whose blocks the caller owns."""
        arrays = _strided_arrays(tensors)
        outputs = (_StridedArray * len(self.outputs))()
        self._check(self._run_device(self._handle, arrays, len(tensors), outputs,
                                     len(self.outputs), stream))
        return outputs

    @staticmethod
    def _adopt_device_outputs(outputs, owned=True):
        """Torch tensors over the device outputs (DLPack, all made by one
        runtime call): each owns its block (freed with the tensor), or with
        `owned=False` only views it. On failure every block is freed."""
        from torch._C import _from_dlpack  # torch.utils.dlpack's, less its checks

        runtime = _cuda_runtime()
        count = len(outputs)
        managed = (ctypes.c_void_p * count)()
        if runtime.wrapper_cuda_dlpack_arrays(outputs, count, int(owned), managed) != 0:
            raise WrapperError(f"the outputs: {runtime.wrapper_last_error().decode()}")
        return [_from_dlpack(_capsule_new(m, _DLTENSOR, None)) for m in managed]

    def _run(self, args, raw=False):
        """Runs on NumPy arrays (or _Raw bits); outputs of a dtype NumPy
        lacks come back as _Raw with `raw`, else are an error."""
        arrays, keep = _arrays_of(args)
        return self._run_arrays(arrays, len(args), raw)

    def _run_descriptors(self, arrays, given):
        """Runs the model on descriptors already made (`given` of them;
        their memory kept alive by the caller); returns the output
        descriptors, whose arrays the caller owns."""
        count = len(self.inputs)
        if given != count:
            raise WrapperError(f"the model takes {count} inputs, got {given}")
        results = len(self.outputs)
        outputs = _array_type(results)()
        self._check(self._run_model(self._handle, arrays, count, outputs, results))
        return outputs

    def _run_arrays(self, arrays, given, raw=False):
        """_run on descriptors already made (`given` of them; their memory
        kept alive by the caller)."""
        return self._adopt_outputs(self._run_descriptors(arrays, given), raw)

    def _adopt_outputs(self, outputs, raw):
        """NumPy arrays (or _Raw) over a run's output descriptors (_adopt)."""
        results = len(self.outputs)
        adopted = [_adopt(self._destroy, outputs[i], raw) for i in range(results)]
        for index, result in enumerate(adopted):
            if isinstance(result, WrapperError):
                raise WrapperError(f"output #{index}: {result}")
        return tuple(adopted)

    def _run_arrays_torch(self, arrays, given):
        """_run_arrays for a caller of torch tensors: the outputs as CPU
        tensors that own the runtime's blocks, made by one runtime call
        (wrapper_dlpack_arrays) and one from_dlpack each; through NumPy
        views when the runtime lacks the call or an output's dtype has no
        DLPack type (fp8)."""
        outputs = self._run_descriptors(arrays, given)
        results = len(self.outputs)
        if not self._outputs_by_dlpack:
            return [_to_torch(o) for o in self._adopt_outputs(outputs, True)]
        from_dlpack = _torch_from_dlpack()
        managed = _pointer_array_type(results)()
        if self._dlpack_arrays(outputs, results, managed) != 0:
            raise WrapperError(f"the outputs: {self._lib.wrapper_last_error().decode()}")
        return [from_dlpack(_capsule_new(managed[i], _DLTENSOR, None))
                for i in range(results)]

    def ir(self, stage="frontend", full=False):
        """The module after a stage: 'source', 'frontend' (kernels and host
        graph; CPU), 'llvm' (the LLVM dialect). Constants of more than 16
        elements print as `dense<__elided__>` (MLIR's elision) unless
        `full`; the weights of a torch model are in a safetensors file
        beside the source, not in it."""
        if stage == "source":
            return self._source
        stages = ("llvm",) if self.target == "cuda" else ("frontend", "llvm")
        if stage not in stages:
            raise WrapperError(
                f"unknown stage '{stage}'; expected one of source, " + ", ".join(stages)
            )
        elide = [] if full else ["--mlir-elide-elementsattrs-if-larger=16",
                                 "--mlir-elide-resource-strings-if-larger=64"]
        return _run(self._command + [f"--emit-mlir={stage}", "-o", "-"] + elide,
                    f"wrapper-compile --emit-mlir={stage}")


_ARRAY_SIZE = ctypes.sizeof(_Array)
_TORCH_TENSOR_CODES = None


_FROM_DLPACK = None


def _torch_from_dlpack():
    """torch.utils.dlpack's from_dlpack less its checks, looked up once."""
    global _FROM_DLPACK
    if _FROM_DLPACK is None:
        from torch._C import _from_dlpack

        _FROM_DLPACK = _from_dlpack
    return _FROM_DLPACK


def _torch_tensor_codes():
    """torch.Tensor and the ABI's dtype codes of torch dtypes, looked up
    once (imports inside a per-call function cost a microsecond a call)."""
    global _TORCH_TENSOR_CODES
    if _TORCH_TENSOR_CODES is None:
        import torch

        from .importer.fallback import TORCH_DTYPE_CODES

        _TORCH_TENSOR_CODES = (torch.Tensor, TORCH_DTYPE_CODES)
    return _TORCH_TENSOR_CODES


@functools.lru_cache(maxsize=None)
def _array_type(count):
    """The ctypes array type of `count` (at least one) runtime descriptors."""
    return _Array * max(1, count)


@functools.lru_cache(maxsize=None)
def _pointer_array_type(count):
    """The ctypes array type of `count` (at least one) pointers."""
    return ctypes.c_void_p * max(1, count)


def _tensor_arrays(args):
    """Runtime array descriptors over torch CPU tensors (contiguous copies
    where needed) and the tensors they point into (keep them alive); None
    when an argument is anything else (not a tensor, another device, a
    dtype the ABI does not pass, no storage): the NumPy path then takes
    the call and says what is wrong."""
    Tensor, codes = _torch_tensor_codes()
    arrays = _array_type(len(args))()
    size = _ARRAY_SIZE
    keep = []
    for index, value in enumerate(args):
        if type(value) is not Tensor and not isinstance(value, Tensor):
            return None
        code = codes.get(value.dtype)
        rank = value.dim()
        if code is None or not value.is_cpu or rank > _MAX_RANK:
            return None
        if not value.is_contiguous():
            value = value.contiguous()
        data = value.data_ptr()
        if not data:
            return None
        keep.append(value)
        # One pack per descriptor (the ctypes fields one by one took
        # longer than the call of a small model).
        _ARRAY_PACKERS[rank].pack_into(arrays, index * size, code, rank, *value.shape, data)
    return arrays, keep


def _describe(slot, code, shape, data):
    """Fills one runtime array descriptor (an _Array)."""
    rank = len(shape)
    slot.dtype = code
    slot.rank = rank
    slot.shape[:rank] = shape
    slot.data = data


def _arrays_of(args):
    """Runtime array descriptors over NumPy arrays (C-contiguous copies
    where needed), and the arrays they point into (keep them alive)."""
    arrays = (_Array * max(1, len(args)))()
    keep = []
    for i, value in enumerate(args):
        if isinstance(value, _Raw):
            array, code = value.bits, value.code
        else:
            array = value if type(value) is np.ndarray else np.asarray(value)
            code = _CODES.get(array.dtype)
        if code is None:
            raise WrapperError(f"input #{i}: unsupported dtype {array.dtype}")
        rank = array.ndim
        if rank > _MAX_RANK:
            raise WrapperError(f"input #{i}: rank {rank} above {_MAX_RANK}")
        # C order without a copy when the array already is (and rank 0
        # kept: np.ascontiguousarray would make it rank 1).
        if not array.flags.c_contiguous:
            array = np.ascontiguousarray(array)
        keep.append(array)
        _describe(arrays[i], code, array.shape, array.__array_interface__["data"][0])
    return arrays, keep


def _adopt(destroy, out, raw=False):
    """A NumPy array over the runtime array `out` (a ctypes _Array, or an
    element of an array of them), freed with `destroy` when the NumPy array
    goes (the finalizer's reference keeps `out`'s memory alive). bf16 comes
    back as a _Raw of its bits with `raw`; otherwise a dtype NumPy lacks is
    a WrapperError (not raised)."""
    descriptor = ctypes.byref(out)
    dtype = _DTYPES.get(out.dtype)
    if dtype is None and raw and out.dtype == _BFLOAT16:
        dtype = np.dtype(np.int16)
    elif dtype is None:
        destroy(descriptor)
        return WrapperError(f"dtype {_NAMES.get(out.dtype, out.dtype)} has no NumPy type")
    shape = tuple(out.shape[: out.rank])
    count = math.prod(shape)
    if count == 0 or not out.data:
        destroy(descriptor)
        array = np.zeros(shape, dtype)
    else:
        buffer = (ctypes.c_char * (count * dtype.itemsize)).from_address(out.data)
        array = np.frombuffer(buffer, dtype=dtype).reshape(shape)
        weakref.finalize(buffer, destroy, descriptor)
    return _Raw(array, out.dtype) if out.dtype not in _DTYPES else array


def fuse_flags(fuse):
    """wrapper-compile's flags for the `fuse` option: True (the default
    strategy, greedy), False (no fusion pass), or a strategy's name ("none",
    "greedy", "cost", "horizontal", docs/Fusion.md; the compiler refuses
    names it does not know)."""
    if isinstance(fuse, str):
        return [f"--fuse-strategy={fuse}"]
    if not isinstance(fuse, bool):
        raise WrapperError(f"fuse must be True, False or a fusion strategy's name, "
                           f"got {fuse!r}")
    return [] if fuse else ["--fuse=false"]


def _compile_text(graph, *, entry=None, parallel=True, gemm=True, plan_memory="reuse",
                  target="cpu", weights=None, fuse=True, tile_elements=None, profile=False,
                  release_arguments=False):
    """Compiles tensor_program text; `weights` ([(name, tensor)]) are the
    bytes of its dense_resource constants, written to a safetensors file
    next to it. `fuse`, `tile_elements` (None: the compiler's default),
    `profile` and `release_arguments` (CUDA) are wrapper-compile's --fuse,
    --tile-elements, --profile and --cuda-release-arguments."""
    flags = fuse_flags(fuse)
    if tile_elements is not None:
        flags.append(f"--tile-elements={int(tile_elements)}")
    if profile:
        flags.append("--profile")
    if release_arguments and target == "cuda":
        flags.append("--cuda-release-arguments")
    workdir = tempfile.mkdtemp(prefix="wrapper_mlir_")
    try:
        return _compile_in(workdir, graph, entry, parallel, gemm, plan_memory, target, weights,
                           flags)
    except WrapperError as error:
        kept = _keep_failed_source(workdir, str(error))
        shutil.rmtree(workdir, ignore_errors=True)
        raise kept from None
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise


def _keep_failed_source(workdir, message):
    """The error of a compilation in `workdir`, with the program it cites
    copied out of that directory (which is removed) and cited there."""
    source = Path(workdir) / "model.mlir"
    if not source.exists() or str(source) not in message:
        return WrapperError(message)
    handle, kept = tempfile.mkstemp(prefix="wrapper_mlir_failed_", suffix=".mlir")
    with os.fdopen(handle, "w") as f:
        f.write(source.read_text())
    return WrapperError(message.replace(str(source), kept) +
                        f"\n(the program is kept in {kept})")


def _compile_in(workdir, graph, entry, parallel, gemm, plan_memory, target, weights, flags=()):
    library, command = _build_library(workdir, graph, entry, parallel, gemm, plan_memory,
                                      target, weights, flags)
    model = CompiledModel(str(library), graph, command, workdir, target)
    if uses_collectives(graph):
        from ._collectives import install

        install(model._lib)
    return model


def uses_collectives(text):
    """Whether a program runs collectives (torch.distributed's functional
    collectives, which the process's collective handlers run)."""
    return '"_c10d_functional::' in text


def _cuda_tf32_flags():
    """PyTorch's TF32 switches as they stand when the model is compiled, so
    that its f32 products round as eager's would: convolutions on TF32
    tensor cores under torch.backends.cudnn.allow_tf32 (on by default),
    other products under torch.backends.cuda.matmul.allow_tf32 (off by
    default, also set by torch.set_float32_matmul_precision("high")).
    Without torch loaded (a text program): neither."""
    torch = sys.modules.get("torch")
    if torch is None:
        return []
    flags = []
    if torch.backends.cuda.matmul.allow_tf32:
        flags.append("--cuda-allow-tf32")
    if torch.backends.cudnn.allow_tf32:
        flags.append("--cuda-allow-tf32-convolutions")
    return flags


def _build_library(workdir, graph, entry, parallel, gemm, plan_memory, target, weights,
                   flags=(), weights_mode="appended"):
    """Compiles tensor_program text into <workdir>/model.so; returns its path
    and the wrapper-compile command (less -o). A CPU model's weights are
    appended to the library (`weights_mode` "appended") or written next to
    it as model.safetensors ("external")."""
    source = Path(workdir) / "model.mlir"
    text = graph
    if weights:
        from .importer.weights import write_safetensors

        weights_path = Path(workdir) / "weights.safetensors"
        write_safetensors(weights_path, weights)
        attribute = f'tensor_program.weights = "{weights_path}"'
        if graph.lstrip().startswith("module {"):
            # A module already (wrapper-opt's output): the attribute on it.
            text = graph.replace("module {", f"module attributes {{{attribute}}} {{", 1)
        else:
            text = f"module attributes {{{attribute}}} {{\n{graph}}}\n"
    source.write_text(text)
    library = Path(workdir) / "model.so"
    command = [
        find_tool("wrapper-compile"),
        str(source),
        f"--parallel={_bool_option(parallel)}",
        f"--gemm={_bool_option(gemm)}",
        f"--plan-memory={plan_memory}",
    ]
    command += list(flags)
    # Experiments: extra wrapper-compile flags (--vectorize=false, ...).
    command += shlex.split(os.environ.get("WRAPPER_COMPILE_FLAGS", ""))
    if entry:
        command.append(f"--entry={entry}")
    if target != "cpu":
        command.append(f"--target={target}")
        command.append(f"--cuda-device=cuda:{_compile_device()}")
        command += _cuda_tf32_flags()
    elif weights or weights_mode == "external":
        # Weights appended to model.so (or in a file next to it) and mapped
        # at load: LLVM never sees them (embedding them costs seconds per
        # 10 MB of weights).
        command.append(f"--weights={weights_mode}")
    _run(command + ["-o", str(library)], "wrapper-compile")
    return library, command
