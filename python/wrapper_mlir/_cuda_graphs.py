"""CUDA graphs for CUDA models called on CUDA tensors: one graph per input
signature (shapes and dtypes), captured at the first call with that
signature and replayed afterwards (one driver call for all of the model's
kernels and products, instead of one launch each).

What a call does, on PyTorch's current stream:

* the first call of a signature runs the model once on the caller's
  inputs (loading its kernels, uploading its constants, creating the cuBLAS
  handle of the capture stream: work that must not happen inside a
  capture), then captures a second run on a side stream
  (wrapper_cuda_graph_begin/_end) that reads static input buffers the graph
  owns; the graph keeps the blocks its run allocated, outputs included;
* every call copies each input into the graph's static buffer (a device
  copy; skipped for an input that is that buffer), replays the graph, and
  returns copies of the graph's outputs (a later replay rewrites them).

The graphs of one model share one memory pool (seed 004): a capture takes
its blocks from the pool's free ones (wrapper_cuda_graph_begin_in), so the
model's graphs hold the memory of its largest run when the larger
signatures come first, and at most the sum otherwise. Sharing is safe
because replays never overlap: calls are serialized by a lock, each
replay's outputs are copied before the next replay, and a replay on
another stream than the last one waits for the last one's event.

A model whose code waits for the GPU in the middle of a call (host code
that reads a value the GPU computed) cannot be captured: the failed capture
is reported once as a warning naming the reason, and calls of that
signature run without a graph.

Limits: calls from several threads at once take turns (one lock); a
capture stops other threads' frees from reaching the runtime's cache while
it lasts (they are held until the graph goes).
"""

import ctypes
import threading
import warnings
import weakref

from ._compile import WrapperError, _cuda_runtime


class _Graph:
    """One captured graph: its static inputs and its outputs (views of
    blocks of the model's pool)."""

    def __init__(self, graph, inputs, outputs):
        self.inputs = inputs
        self.outputs = outputs
        self.handle = graph


def _destroy(graphs, pool):
    """Frees the graphs, then the pool that holds their blocks."""
    try:  # replays queued on PyTorch's streams
        import torch

        torch.cuda.synchronize()
    except Exception:  # at interpreter exit
        pass
    runtime = _cuda_runtime()
    for graph in graphs:
        runtime.wrapper_cuda_graph_destroy(graph)
    runtime.wrapper_cuda_graph_pool_destroy(pool)


def enable(model, enabled=True):
    """Turns CUDA graphs on (or off) for the CompiledModel `model`: its calls
    on CUDA tensors then go through a CudaGraphs."""
    if enabled and model._run_device is None:
        raise WrapperError("cuda_graphs needs a model compiled for target='cuda'")
    if not enabled:
        model._graphs = None
    elif model._graphs is None:
        model._graphs = CudaGraphs(model)


class CudaGraphs:
    """The graphs of one CompiledModel, by input signature."""

    def __init__(self, model):
        self._model = weakref.proxy(model)
        self._graphs = {}
        self._lock = threading.Lock()
        self.captures = 0
        self.replays = 0
        self.uncapturable = 0  # signatures that run without a graph
        runtime = _cuda_runtime()
        pool = ctypes.c_void_p()
        self._check(runtime.wrapper_cuda_graph_pool_create(ctypes.byref(pool)))
        self._pool = pool.value
        self._handles = []  # of the graphs, for the finalizer
        self._finalizer = weakref.finalize(self, _destroy, self._handles, self._pool)
        # The last replay's stream and an event recorded after it, so that a
        # replay on another stream waits for it (the pool is shared).
        self._last_stream = None
        self._done = None

    def pool_bytes(self):
        """The device memory the graphs' shared pool holds, in bytes."""
        size = ctypes.c_uint64()
        _cuda_runtime().wrapper_cuda_graph_pool_stats(ctypes.c_void_p(self._pool),
                                                      ctypes.byref(size), None)
        return size.value

    def __call__(self, tensors, device):
        import torch

        key = tuple((tuple(t.shape), t.dtype) for t in tensors)
        with self._lock:
            if key not in self._graphs:
                try:
                    self._graphs[key] = self._capture(tensors, device)
                except WrapperError as error:
                    self._graphs[key] = None
                    self.uncapturable += 1
                    warnings.warn(f"wrapper_mlir: no CUDA graph for inputs "
                                  f"{[tuple(t.shape) for t in tensors]}, calls with them "
                                  f"run without one: {error}", stacklevel=3)
            graph = self._graphs[key]
            if graph is None:
                model = self._model
                stream = torch.cuda.current_stream(device).cuda_stream
                return model._adopt_device_outputs(model._run_device_arrays(tensors, stream))
            current = torch.cuda.current_stream(device)
            stream = current.cuda_stream
            if self._done is not None and stream != self._last_stream:
                current.wait_event(self._done)
            for static, tensor in zip(graph.inputs, tensors):
                if static.data_ptr() != tensor.data_ptr():
                    static.copy_(tensor)
            runtime = _cuda_runtime()
            previous = ctypes.c_void_p()
            self._check(runtime.wrapper_cuda_set_stream(stream, ctypes.byref(previous)))
            try:
                self._check(runtime.wrapper_cuda_graph_launch(graph.handle))
            finally:
                runtime.wrapper_cuda_set_stream(previous, None)
            self.replays += 1
            outputs = [output.clone() for output in graph.outputs]
            if self._done is None:
                self._done = torch.cuda.Event()
            self._done.record(current)
            self._last_stream = stream
            return outputs

    @staticmethod
    def _check(status):
        if status != 0:
            raise WrapperError(_cuda_runtime().wrapper_last_error().decode())

    def _capture(self, tensors, device):
        import torch

        model = self._model
        runtime = _cuda_runtime()
        current = torch.cuda.current_stream(device)
        inputs = [t.clone() for t in tensors]  # on the stream that replays
        side = torch.cuda.Stream(device)
        side.wait_stream(current)
        if self._done is not None:  # the last replay reads the pool
            side.wait_event(self._done)
        with torch.cuda.stream(side):
            # A run outside the capture: modules, constants, the cuBLAS
            # handle of `side`, and blocks in `side`'s pool for the capture.
            model._adopt_device_outputs(model._run_device_arrays(inputs, side.cuda_stream))
            side.synchronize()
            previous = ctypes.c_void_p()
            self._check(runtime.wrapper_cuda_set_stream(side.cuda_stream,
                                                        ctypes.byref(previous)))
            graph = ctypes.c_void_p()
            try:
                self._check(runtime.wrapper_cuda_graph_begin_in(ctypes.c_void_p(self._pool)))
                try:
                    outputs = model._run_device_arrays(inputs, side.cuda_stream)
                finally:
                    ended = runtime.wrapper_cuda_graph_end(ctypes.byref(graph))
                self._check(ended)
            finally:
                runtime.wrapper_cuda_set_stream(previous, None)
        current.wait_stream(side)
        views = model._adopt_device_outputs(outputs, owned=False)
        self.captures += 1
        self._handles.append(graph.value)
        return _Graph(graph.value, inputs, views)
