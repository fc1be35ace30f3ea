"""torch front end: compile() of torch.fx graphs and the torch.compile backend."""

import time
import warnings

import torch

from ._compile import WrapperError, _compile_text, _to_numpy, _torch_device
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
        arrays, as_torch = [], False
        target = self.compiled.target
        device = _torch_device([args[i] for i in self.imported.inputs])
        for i in self.imported.inputs:
            value = args[i]
            if isinstance(value, torch.Tensor):
                value, as_torch = _to_numpy(value, target), True
            arrays.append(value)
        results = self.compiled._run(arrays)
        if as_torch:
            results = [torch.from_numpy(r) for r in results]
            if device is not None:
                results = [r.to(device) for r in results]
        return self.imported.unflatten(results)

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


def _resized(tensor, shape):
    """`tensor` tiled or cut to `shape` (its own values, so that indices stay
    in range and masks stay masks)."""
    out = tensor
    for d, size in enumerate(shape):
        if out.shape[d] != size:
            reps = [1] * out.dim()
            reps[d] = -(-size // out.shape[d])
            out = out.repeat(*reps).narrow(d, 0, size)
    return out.clone()


def _symbolic_variation(graph_module, args, delta=3):
    """Inputs for a second run of a Dynamo graph: every size symbol of its
    placeholders (their FakeTensor metadata) grown by `delta`; None when the
    graph has no plain size symbols."""
    placeholders = [n for n in graph_module.graph.nodes if n.op == "placeholder"]
    values = {}
    for node, arg in zip(placeholders, args):
        example = node.meta.get("example_value")
        if isinstance(example, torch.Tensor) and isinstance(arg, torch.Tensor):
            for d, size in enumerate(example.shape):
                if isinstance(size, torch.SymInt) and size.node.expr.is_symbol:
                    values[size.node.expr] = arg.shape[d]
        elif isinstance(example, torch.SymInt) and example.node.expr.is_symbol:
            values[example.node.expr] = int(arg)
    if not values:
        return None
    varied = []
    for node, arg in zip(placeholders, args):
        example = node.meta.get("example_value")
        if isinstance(example, torch.Tensor) and isinstance(arg, torch.Tensor):
            shape = [values[s.node.expr] + delta
                     if isinstance(s, torch.SymInt) and s.node.expr in values else arg.shape[d]
                     for d, s in enumerate(example.shape)]
            varied.append(arg if list(shape) == list(arg.shape) else _resized(arg, shape))
        elif isinstance(example, torch.SymInt) and example.node.expr in values:
            varied.append(values[example.node.expr] + delta)
        else:
            varied.append(arg)
    return varied


class _BackendModel:
    """What the backend gives torch.compile: runs the compiled graph, or the
    graph eagerly when it could not be compiled (warned once per reason)."""

    def __init__(self, graph_module, example_inputs, options):
        self.graph_module = graph_module
        self.options = options
        self.models = {}
        self.symbolic = any(isinstance(v, torch.SymInt) for v in example_inputs)
        self.parameters = {i for i, v in enumerate(example_inputs) if isinstance(v, torch.nn.Parameter)}
        self.dynamic = None
        if not self.symbolic:
            self.models[self._key(example_inputs)] = self._compile(example_inputs)

    def _key(self, args):
        """Shapes and dtypes of the inputs, parameters left out (the
        compiled models check those by identity and version)."""
        return tuple((a.shape, a.dtype) if isinstance(a, torch.Tensor) else int(a)
                     for i, a in enumerate(args) if i not in self.parameters)

    def _compile(self, args):
        try:
            return compile_torch(self.graph_module, args, **self.options)
        except WrapperError as error:
            warnings.warn(f"wrapper backend: running the graph eagerly: {error}", stacklevel=2)
            return None

    def _compile_dynamic(self, args):
        """One program for every value of the graph's size symbols, or None
        (then each shape gets its own)."""
        varied = _symbolic_variation(self.graph_module, args)
        try:
            return compile_torch(self.graph_module, args, dynamic_batch=varied or True,
                                 **self.options)
        except WrapperError:
            return None

    def __call__(self, *args):
        if torch.is_grad_enabled() and any(
                isinstance(a, torch.Tensor) and a.requires_grad and not isinstance(a, torch.nn.Parameter)
                for a in args):
            return self.graph_module(*args)  # inference only: autograd runs eagerly
        key = self._key(args)
        model = self.models.get(key, False)
        if model and model.stale(args):
            model = False
        if model is False and self.symbolic:
            if self.dynamic is None or (self.dynamic and self.dynamic.stale(args)):
                self.dynamic = self._compile_dynamic(args) or False
            if self.dynamic:
                try:
                    return self.dynamic(*args)
                except WrapperError:
                    pass  # shapes the dynamic program does not take: specialize
        if model is False:
            model = self.models[key] = self._compile(args)
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
