"""torch front end: compile() of torch.fx graphs and the torch.compile backend."""

import time
import warnings

import torch

from ._compile import WrapperError, _compile_text
from .fx_importer import UnsupportedError, import_fx


class TorchModel:
    """A compiled torch.fx graph: call it with the graph's inputs (torch
    tensors or NumPy arrays; parameters frozen into the program are still
    accepted and ignored); it returns the graph's output structure."""

    def __init__(self, graph_module, imported, compiled, compile_seconds):
        self.graph_module = graph_module
        self.imported = imported
        self.compiled = compiled
        self.compile_seconds = compile_seconds

    @property
    def inputs(self):
        return self.compiled.inputs

    @property
    def outputs(self):
        return self.compiled.outputs

    def stale(self, args):
        return self.imported.stale(args)

    def __call__(self, *args):
        reason = self.imported.stale(args)
        if reason:
            raise WrapperError(f"{reason}; compile the model again")
        tensors = [args[i] for i in self.imported.inputs]
        return self.imported.unflatten(self.compiled(*tensors))

    def ir(self, stage="frontend"):
        """'fx' (the graph's Python code), 'source' (the imported
        tensor_program), 'frontend', 'llvm'."""
        if stage == "fx":
            return self.graph_module.code
        return self.compiled.ir(stage)


def compile_torch(graph, example_inputs, *, dynamic_batch=False, freeze_parameters=True, **options):
    if example_inputs is None:
        raise WrapperError("compiling a torch graph needs example_inputs")
    start = time.perf_counter()
    try:
        if isinstance(graph, torch.nn.Module) and not isinstance(graph, torch.fx.GraphModule) \
                and graph.training:
            warnings.warn("wrapper_mlir.compile: the module is in training mode; "
                          "it is compiled for inference (dropout off)", stacklevel=3)
        imported = import_fx(graph, list(example_inputs), dynamic_batch=dynamic_batch,
                             freeze_parameters=freeze_parameters)
    except UnsupportedError as error:
        raise WrapperError(f"cannot import the graph: {error}") from None
    compiled = _compile_text(imported.text, **options)
    module = imported.graph_module
    return TorchModel(module, imported, compiled, time.perf_counter() - start)


class _BackendModel:
    """What the backend gives torch.compile: runs the compiled graph, or the
    graph eagerly when it could not be compiled (warned once per reason)."""

    def __init__(self, graph_module, example_inputs, options):
        self.graph_module = graph_module
        self.options = options
        self.models = {}
        self.symbolic = any(isinstance(v, torch.SymInt) for v in example_inputs)
        self.dynamic = None
        if not self.symbolic:
            self.models[self._key(example_inputs)] = self._compile(example_inputs, False)

    @staticmethod
    def _key(args):
        return tuple((tuple(a.shape), a.dtype) if isinstance(a, torch.Tensor) else int(a) for a in args)

    def _compile(self, args, dynamic_batch):
        try:
            return compile_torch(self.graph_module, args, dynamic_batch=dynamic_batch, **self.options)
        except WrapperError as error:
            warnings.warn(f"wrapper backend: running the graph eagerly: {error}", stacklevel=2)
            return None

    def __call__(self, *args):
        if any(isinstance(a, torch.Tensor) and a.requires_grad for a in args
               if not isinstance(a, torch.nn.Parameter)) and torch.is_grad_enabled():
            return self.graph_module(*args)
        key = self._key(args)
        model = self.models.get(key, False)
        if model is False and self.symbolic and self.dynamic is None:
            self.dynamic = self._compile(args, True) or False
        if model and model.stale(args):
            model = False
        if model is False and self.dynamic and self.dynamic.stale(args):
            self.dynamic = self._compile(args, True) or False
        if model is False and self.dynamic:
            try:
                return self.dynamic(*args)
            except WrapperError:
                pass  # shapes the dynamic program does not take: specialize
        if model is False:
            model = self.models[key] = self._compile(args, False)
        if model is None:
            return self.graph_module(*args)
        return model(*args)


def wrapper_backend(graph_module, example_inputs, **options):
    """The `torch.compile(model, backend="wrapper")` backend. Options (via
    `torch.compile(..., options={...})`): parallel, gemm, plan_memory."""
    return _BackendModel(graph_module, list(example_inputs), options)


def register_backend():
    """Registers the backend as "wrapper" (done on import of wrapper_mlir
    when torch is importable, and by the package's entry point)."""
    from torch._dynamo.backends.registry import _BACKENDS, register_backend as register

    if "wrapper" not in _BACKENDS:
        register(name="wrapper")(wrapper_backend)
