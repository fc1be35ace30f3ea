"""The process's collective handlers: what runs the collectives of compiled
graphs (wrapper_collective_start / wrapper_collective_wait of the runtime,
include/Wrapper/Runtime/WrapperShim.h) on torch.distributed.

A start views the buffers as torch tensors (no copy; host memory, or CUDA
memory on the graph's device), resolves the process group by the name the
graph carries (the names `_c10d_functional` ops use), and issues the
collective asynchronously on PyTorch's process group: gloo on the CPU, NCCL
on CUDA, ordered with PyTorch's current stream as torch.distributed orders
it. A wait finishes it. What a backend lacks is done around it: gloo has no
`avg` (summed, then divided by the group size) and may lack
reduce_scatter_tensor (an all_reduce of a copy, then this rank's chunk).
"""

import ctypes
import itertools
import threading
import traceback

import torch

from .importer.fallback import _DTYPES, _Descriptor, _as_tensor

ALL_REDUCE, ALL_GATHER_INTO_TENSOR, REDUCE_SCATTER_TENSOR = 0, 1, 2
_NAMES = {ALL_REDUCE: "all_reduce", ALL_GATHER_INTO_TENSOR: "all_gather_into_tensor",
          REDUCE_SCATTER_TENSOR: "reduce_scatter_tensor"}
_REDUCTIONS = ("sum", "avg", "product", "min", "max")

_DESCRIPTORS = ctypes.POINTER(ctypes.POINTER(_Descriptor))
_START_TYPE = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int32, ctypes.c_char_p, ctypes.c_int32,
                               ctypes.c_int64, ctypes.c_int32, ctypes.c_int32, _DESCRIPTORS,
                               ctypes.c_int32, _DESCRIPTORS, ctypes.POINTER(ctypes.c_int64))
_WAIT_TYPE = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int64)

_lock = threading.Lock()
_handlers = None
_handles = itertools.count(1)
_in_flight = {}  # handle -> _Work


class _Work:
    """A collective in flight: torch.distributed works and what to do once
    they finish (on `stream`, the compiled program's CUDA stream, if any)."""

    def __init__(self, works, finish=None):
        self.works = works
        self.finish = finish
        self.stream = None

    def wait(self):
        if self.stream is None:
            return self._wait()
        with torch.cuda.device(self.stream.device), torch.cuda.stream(self.stream):
            return self._wait()

    def _wait(self):
        for work in self.works:
            work.wait()
        if self.finish is not None:
            self.finish()


class _CudaMemory:
    """Device memory as __cuda_array_interface__ bytes, for torch.as_tensor."""

    def __init__(self, pointer, nbytes):
        self.__cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1",
                                         "data": (pointer, False), "version": 3}


def _view(descriptor, device):
    """A torch tensor over a descriptor's memory: host memory (device -1)
    or memory of CUDA device `device`."""
    if device < 0:
        return _as_tensor(descriptor)
    dtype = _DTYPES[descriptor.dtype]
    sizes = [descriptor.sizes[d] for d in range(descriptor.rank)]
    strides = [descriptor.strides[d] for d in range(descriptor.rank)]
    if any(s == 0 for s in sizes) or not descriptor.data:
        return torch.empty(sizes, dtype=dtype, device=f"cuda:{device}")
    span = 1 + sum((s - 1) * st for s, st in zip(sizes, strides))
    item = torch.empty((), dtype=dtype).element_size()
    raw = torch.as_tensor(_CudaMemory(descriptor.data, span * item), device=f"cuda:{device}")
    return raw.view(dtype).as_strided(sizes, strides)


def _torch_stream(pointer, device):
    """The torch stream of CUDA stream `pointer` on `device`. A null pointer
    is the legacy default stream, which is torch's default stream:
    torch.cuda.ExternalStream(0) is not it (torch reads a zero pointer as no
    pointer and hands out a new stream of its pool, unordered with ours)."""
    if not pointer:
        return torch.cuda.default_stream(device)
    return torch.cuda.ExternalStream(pointer, device=f"cuda:{device}")


def _group(name):
    import torch.distributed as dist
    from torch.distributed.distributed_c10d import _resolve_process_group

    if not dist.is_available() or not dist.is_initialized():
        raise RuntimeError(f"process group '{name}' is not available: "
                           "torch.distributed is not initialized in this process")
    try:
        return _resolve_process_group(name)
    except Exception as error:  # noqa: BLE001 - named in the message
        raise RuntimeError(f"no process group named '{name}' in this process "
                           f"({type(error).__name__}: {error})") from None


def _backend(group):
    import torch.distributed as dist

    return str(dist.get_backend(group)).lower()


def _reduce_op(name):
    import torch.distributed as dist

    return {"sum": dist.ReduceOp.SUM, "avg": dist.ReduceOp.AVG,
            "product": dist.ReduceOp.PRODUCT, "min": dist.ReduceOp.MIN,
            "max": dist.ReduceOp.MAX}[name]


def start_collective(kind, group_name, reduce_op, group_size, inputs, outputs):
    """Issues collective `kind` on tensors (the handler's work, also used by
    tests): returns the _Work to wait for."""
    import torch.distributed as dist

    group = _group(group_name)
    world = dist.get_world_size(group)
    if kind != ALL_REDUCE and group_size != world:
        raise RuntimeError(f"the graph was compiled for {group_size} ranks, process group "
                           f"'{group_name}' has {world}")
    reduction = _REDUCTIONS[reduce_op] if 0 <= reduce_op < len(_REDUCTIONS) else None
    # gloo reduces without averaging: sum, then divide once it finished.
    average = reduction == "avg" and _backend(group) == "gloo"
    op = _reduce_op("sum" if average else reduction) if reduction else None

    def divide(tensors):
        def finish():
            with torch.no_grad():
                for tensor in tensors:
                    tensor.div_(world)
        return finish if average else None

    if kind == ALL_REDUCE:
        works = [dist.all_reduce(t, op=op, group=group, async_op=True) for t in outputs]
        return _Work(works, divide(outputs))
    if kind == ALL_GATHER_INTO_TENSOR:
        works = [dist.all_gather_into_tensor(o, i.contiguous(), group=group, async_op=True)
                 for i, o in zip(inputs, outputs)]
        return _Work(works)
    if kind == REDUCE_SCATTER_TENSOR:
        if _backend(group) != "gloo":
            works = [dist.reduce_scatter_tensor(o, i.contiguous(), op=op, group=group,
                                                async_op=True)
                     for i, o in zip(inputs, outputs)]
            return _Work(works)
        # gloo: reduce all of it, keep this rank's chunk.
        rank = dist.get_rank(group)
        copies = [i.contiguous().clone() for i in inputs]
        works = [dist.all_reduce(c, op=op, group=group, async_op=True) for c in copies]

        def scatter():
            with torch.no_grad():
                for copy, output in zip(copies, outputs):
                    chunk = copy.chunk(world, dim=0)[rank]
                    output.copy_(chunk / world if average else chunk)
        return _Work(works, scatter)
    raise RuntimeError(f"unknown collective code {kind}")


def _handlers_for(library):
    report = library.wrapper_report_error
    report.restype = ctypes.c_int32
    if hasattr(library, "wrapper_cuda_stream"):
        library.wrapper_cuda_stream.restype = ctypes.c_void_p
        library.wrapper_cuda_device.restype = ctypes.c_int32

    def fail(what, error):
        detail = "".join(traceback.format_exception_only(type(error), error)).strip()
        message = f"{what} failed in torch.distributed: {detail}".replace("%", "%%")
        return report(ctypes.c_int32(7), message.encode())  # WRAPPER_ERROR_EXTERNAL

    def start(kind, group, reduce_op, group_size, device, num_inputs, inputs, num_outputs,
              outputs, work):
        name = _NAMES.get(kind, f"collective {kind}")
        try:
            group_name = group.decode()
            stream = None
            if device >= 0:
                # The device the runtime runs on (each rank its own, whatever
                # ordinal the program was compiled for) and its stream: the
                # collective is ordered after the kernels before it there,
                # and the kernels after the wait after the collective.
                device = library.wrapper_cuda_device()
                stream = _torch_stream(library.wrapper_cuda_stream(), device)
            ins = [_view(inputs[i].contents, device) for i in range(num_inputs)]
            outs = [_view(outputs[i].contents, device) for i in range(num_outputs)]
            if stream is None:
                pending = start_collective(kind, group_name, reduce_op, group_size, ins, outs)
            else:
                with torch.cuda.device(device), torch.cuda.stream(stream):
                    pending = start_collective(kind, group_name, reduce_op, group_size, ins,
                                               outs)
                pending.stream = stream
            handle = next(_handles)
            with _lock:
                _in_flight[handle] = pending
            work[0] = handle
            return 0
        except Exception as error:  # every failure becomes the model's error
            return fail(f"{name} on process group '{group.decode(errors='replace')}'", error)

    def wait(handle):
        with _lock:
            pending = _in_flight.pop(handle, None)
        try:
            if pending is None:
                raise KeyError(f"no collective {handle} is in flight in this process")
            pending.wait()
            return 0
        except Exception as error:  # noqa: BLE001
            return fail("waiting for a collective", error)

    return _START_TYPE(start), _WAIT_TYPE(wait)


def install(library):
    """Registers the process's collective handlers through `library` (a
    loaded model.so, which links the runtime), once."""
    global _handlers
    with _lock:
        if _handlers is not None:
            return
        _handlers = _handlers_for(library)
        setter = library.wrapper_set_collective_handlers
        setter.argtypes = [_START_TYPE, _WAIT_TYPE]
        setter.restype = None
        setter(*_handlers)


def counts(library):
    """(started, waited) collectives of this process, from the runtime."""
    for name in ("wrapper_collectives_started", "wrapper_collectives_waited"):
        getattr(library, name).restype = ctypes.c_int64
    return library.wrapper_collectives_started(), library.wrapper_collectives_waited()
