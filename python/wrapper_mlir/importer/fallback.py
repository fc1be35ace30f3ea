"""Per-op fallback: an op outside the table runs in PyTorch, the rest of the
graph stays compiled.

The importer emits the node as a proxy call,

    %r = tensor_program.extern "proxy::7"(%a, %b) args {key = 7 : i64,
        name = "aten.topk.default at node 'topk'"} : (...) -> (...)

which the compiler lowers to `wrapper_proxy_call(7, name, inputs,
results)` of the runtime (include/Wrapper/Runtime/WrapperShim.h). This
module keeps, per key, the op and its non-tensor arguments, and registers
the process's handler: it views the input descriptors as torch tensors (no
copy), runs the op, and copies each result into memory the runtime
allocates (wrapper_proxy_output). As AOTInductor's ProxyExecutor, it needs
the Python process: a model.so with proxy calls run from C reports which
op needs it.
"""

import ctypes
import itertools
import threading
import traceback

import torch

from .values import Size, Tensor, UnsupportedError, as_size, element_type, shape_of, tensor_type

_keys = itertools.count(1)
_calls = {}
_lock = threading.Lock()
_handler = None

# wrapper_dtype codes (include/Wrapper/Runtime/WrapperRuntime.h).
TORCH_DTYPE_CODES = {torch.bool: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4,
          torch.uint8: 5, torch.float16: 6, torch.float32: 7, torch.float64: 8,
          torch.bfloat16: 9}
_DTYPES = {code: dtype for dtype, code in TORCH_DTYPE_CODES.items()}


class _Descriptor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("sizes", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64))]


_HANDLER_TYPE = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int64, ctypes.c_int32,
                                 ctypes.POINTER(ctypes.POINTER(_Descriptor)), ctypes.c_int32,
                                 ctypes.POINTER(_Descriptor))


class _ProxyCall:
    """What one proxy key runs: `target(*args, **kwargs)` with the tensor
    inputs put back where the node had them."""

    def __init__(self, target, args, kwargs, name):
        self.target = target
        self.args = args
        self.kwargs = kwargs
        self.name = name

    def run(self, tensors):
        with torch.no_grad():
            return self.target(*_fill(self.args, tensors), **_fill(self.kwargs, tensors))


def _fill(value, tensors):
    """`value` with each _Slot replaced by its tensor (a module-level
    function: a closure calling itself is a reference cycle that would keep
    `tensors` alive until the garbage collector runs)."""
    if isinstance(value, _Slot):
        return tensors[value.index]
    if isinstance(value, (list, tuple)):
        return type(value)(_fill(v, tensors) for v in value)
    if isinstance(value, dict):
        return {k: _fill(v, tensors) for k, v in value.items()}
    return value


class _Slot:
    """The place of a tensor input among a proxy call's arguments."""

    def __init__(self, index):
        self.index = index


def _as_tensor(descriptor):
    """A torch tensor over a descriptor's memory (no copy)."""
    dtype = _DTYPES.get(descriptor.dtype)
    if dtype is None:
        raise TypeError(f"dtype code {descriptor.dtype}")
    rank = descriptor.rank
    sizes = [descriptor.sizes[d] for d in range(rank)]
    strides = [descriptor.strides[d] for d in range(rank)]
    count = 1
    for s in sizes:
        count *= s
    if count == 0 or not descriptor.data:
        return torch.empty(sizes, dtype=dtype)
    span = 1 + sum((s - 1) * st for s, st in zip(sizes, strides))
    item = torch.empty((), dtype=dtype).element_size()
    buffer = (ctypes.c_char * (span * item)).from_address(descriptor.data)
    flat = torch.frombuffer(buffer, dtype=dtype, count=span)
    return flat.as_strided(sizes, strides)


def _handle(library):
    output = library.wrapper_proxy_output
    output.argtypes = [ctypes.POINTER(_Descriptor), ctypes.c_int32, ctypes.c_int32,
                       ctypes.POINTER(ctypes.c_int64)]
    output.restype = ctypes.c_int32
    report = library.wrapper_report_error
    report.restype = ctypes.c_int32

    def handler(key, num_inputs, inputs, num_outputs, outputs):
        call = _calls.get(key)
        try:
            if call is None:
                raise KeyError(f"no op registered for proxy key {key} in this process")
            tensors = [_as_tensor(inputs[i].contents) for i in range(num_inputs)]
            results = call.run(tensors)
            if isinstance(results, torch.Tensor):
                results = (results,)
            results = list(results)
            if len(results) < num_outputs:
                raise ValueError(f"{call.name} returned {len(results)} tensors, the program "
                                 f"expects {num_outputs}")
            for i in range(num_outputs):
                result = results[i].detach().contiguous().cpu()
                code = TORCH_DTYPE_CODES.get(result.dtype)
                if code is None:
                    raise TypeError(f"{call.name} returned dtype {result.dtype}")
                sizes = (ctypes.c_int64 * max(1, result.dim()))(*result.shape)
                status = output(ctypes.byref(outputs[i]), code, result.dim(), sizes)
                if status != 0:
                    return status
                nbytes = result.numel() * result.element_size()
                if nbytes:
                    ctypes.memmove(outputs[i].data, result.data_ptr(), nbytes)
            return 0
        except Exception as error:  # every failure becomes the model's error
            where = call.name if call is not None else f"proxy {key}"
            detail = "".join(traceback.format_exception_only(type(error), error)).strip()
            message = f"{where} failed in PyTorch: {detail}".replace("%", "%%")
            return report(ctypes.c_int32(7), message.encode())  # WRAPPER_ERROR_EXTERNAL

    return _HANDLER_TYPE(handler)


def install(library):
    """Registers the process's proxy handler through `library` (a loaded
    model.so, which links the runtime), once."""
    global _handler
    with _lock:
        if _handler is not None:
            return
        _handler = _handle(library)
        setter = library.wrapper_set_proxy_handler
        setter.argtypes = [_HANDLER_TYPE]
        setter.restype = None
        setter(_handler)


def fallback_node(importer, node, reason):
    """Emits `node` as a proxy call and returns its values."""
    value = importer.meta_value(node)
    outputs = list(value) if isinstance(value, (list, tuple)) else [value]
    if not outputs or not all(isinstance(v, torch.Tensor) for v in outputs):
        raise UnsupportedError(f"{reason}; it cannot run in PyTorch either (its results are "
                               "not all tensors)")
    results = [(shape_of(v), v.dtype) for v in outputs]
    for _, dtype in results:
        element_type(dtype, f"result of node '{node.name}'")
    tensors = []

    def bind(argument):
        if isinstance(argument, torch.fx.Node):
            loaded = importer.env.get(argument)
            if isinstance(loaded, Tensor):
                tensors.append(loaded)
                return _Slot(len(tensors) - 1)
            if isinstance(loaded, Size):
                size = as_size(loaded)
                if isinstance(size, int):
                    return size
                raise UnsupportedError(f"{reason}; its argument '{argument.name}' is a symbolic "
                                       "size, which a PyTorch fallback cannot receive")
            if isinstance(loaded, (tuple, list)):
                return type(loaded)(bind_loaded(v) for v in loaded)
            return loaded
        if isinstance(argument, (list, tuple)):
            return type(argument)(bind(a) for a in argument)
        if isinstance(argument, dict):
            return {k: bind(v) for k, v in argument.items()}
        return argument

    def bind_loaded(value):
        if isinstance(value, Tensor):
            tensors.append(value)
            return _Slot(len(tensors) - 1)
        return value

    args = bind(node.args)
    kwargs = bind(node.kwargs)
    key = next(_keys)
    name = f"{node.target} at node '{node.name}'"
    _calls[key] = _ProxyCall(node.target, args, kwargs, name)
    operand_types = ", ".join(t.type() for t in tensors)
    result_types = ", ".join(tensor_type(shape, dtype) for shape, dtype in results)
    names = [importer.fresh() for _ in results]
    escaped = name.replace("\\", "\\\\").replace('"', '\\"')
    importer.emit(f"{', '.join(names)} = tensor_program.extern \"proxy::{key}\"("
                  f"{', '.join(t.name for t in tensors)}) args {{key = {key} : i64, "
                  f"name = \"{escaped}\"}} : ({operand_types}) -> ({result_types})")
    values = [Tensor(n, shape, dtype) for n, (shape, dtype) in zip(names, results)]
    if isinstance(value, (list, tuple)):
        return tuple(values)
    return values[0]
