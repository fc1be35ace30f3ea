"""The torch front end: compile() of nn.Modules, ExportedPrograms and
GraphModules through the core ATen importer, and the torch.compile backend
(through AOTAutograd)."""

import time
import warnings

import numpy as np
import torch
import torch.utils._pytree as pytree

from ._compile import WrapperError, _compile_text, _torch_device, donating
from .importer import (UnsupportedError, decompose_attention, decomposition_table, export_module,
                       import_exported)
from ._stats import record_compiled, record_graph_fallback
from .importer.core import (SEED, Importer, InputBinding, describe_target, is_size_position,
                            size_carrier)
from .importer.registry import TABLE

# Options of compile() and of torch.compile(backend="wrapper",
# options={...}), with their defaults.
OPTIONS = {
    "parallel": True,       # kernels on OpenMP threads
    "gemm": True,           # f32 products through the packed GEMM template
    "plan_memory": "reuse", # none, reuse or pool
    "fuse": True,           # ops grouped into fused kernels (or a strategy: "cost", ...)
    "tile_elements": None,  # iterations per row tile (0: untiled; None: the compiler's 4096)
    "target": None,         # cpu or cuda; None: cuda when an example input is a CUDA tensor
    "fallback": True,       # ops outside the table run in PyTorch (else an error)
    "cuda_graphs": False,   # CUDA: one CUDA graph per input signature, replayed
}


def check_options(options, where):
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise WrapperError(
            f"{where}: unknown option{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(repr(u) for u in unknown)}; known options: "
            + ", ".join(f"{k} (default {OPTIONS[k]!r})" for k in OPTIONS))
    merged = dict(OPTIONS)
    merged.update(options)
    if merged["plan_memory"] not in ("none", "reuse", "pool"):
        raise WrapperError(f"{where}: plan_memory must be 'none', 'reuse' or 'pool', "
                           f"got {merged['plan_memory']!r}")
    tile = merged["tile_elements"]
    if tile is not None and (isinstance(tile, bool) or not isinstance(tile, int) or tile < 0):
        raise WrapperError(f"{where}: tile_elements must be None or an integer >= 0, "
                           f"got {tile!r}")
    if merged["target"] is None:
        merged["target"] = "cpu"
    if merged["target"] not in ("cpu", "cuda"):
        raise WrapperError(f"{where}: target must be 'cpu' or 'cuda', got {merged['target']!r}")
    if merged["cuda_graphs"] and merged["target"] != "cuda":
        raise WrapperError(f"{where}: cuda_graphs needs target 'cuda' (CUDA example "
                           f"inputs), the target is {merged['target']!r}")
    return merged


def default_target(example_inputs):
    """The target a torch model compiles for when none is given: "cuda" when
    an example input is a CUDA tensor (the model then runs on the device
    its inputs are on), else "cpu"."""
    return "cuda" if _torch_device(example_inputs) is not None else "cpu"


def _compile_imported(imported, options, release_arguments=False):
    compile_options = {k: options[k] for k in ("parallel", "gemm", "plan_memory", "target",
                                               "fuse", "tile_elements")}
    compiled = _compile_text(imported.text, weights=imported.weights,
                             release_arguments=release_arguments, **compile_options)
    if options["cuda_graphs"]:
        from ._cuda_graphs import enable

        enable(compiled)
    if imported.fallbacks:
        from .importer.fallback import install

        install(compiled._lib)
    return compiled


def _seed(device=None):
    """The seed of a program's random ops for one call: drawn from
    PyTorch's default generator (so torch.manual_seed makes compiled random
    numbers reproducible; they differ from eager's), below 2^53 (exact in
    the interpreters' float64 values). With a CUDA `device`, drawn there by
    its generator (a tensor on the device: no copy from the host)."""
    if device is not None:
        return torch.randint(0, 2**53, (), dtype=torch.int64, device=device)
    return np.array(torch.randint(0, 2**53, (), dtype=torch.int64).item(), dtype=np.int64)


def _size_carrier(flat_args, position, device):
    try:
        return size_carrier(flat_args[position], f"#{position}", device)
    except UnsupportedError as error:
        raise WrapperError(str(error)) from None


def _run(imported, compiled, flat_args, check_frozen=True):
    """Runs a compiled program on the flat argument list (torch tensors or
    NumPy arrays); returns the graph's flat outputs as torch tensors when
    any argument is one. `check_frozen=False` when the caller has checked
    the frozen weights already."""
    reason = imported.stale(flat_args) if check_frozen else None
    if reason:
        raise WrapperError(f"{reason}; compile the model again")
    plain = imported.plain_arguments
    if plain is not None:
        # The common case (a training graph's 100+ arguments each call):
        # the caller's own values, in the program's order.
        passed = [flat_args[p] for p in plain]
    else:
        device = _torch_device([flat_args[p] for p in imported.arguments
                                if p != SEED and not is_size_position(p)])
        if compiled.target != "cuda":
            device = None
        passed = [_seed(device) if p == SEED else
                  _size_carrier(flat_args, p[1], device) if is_size_position(p)
                  else flat_args[p]
                  for p in imported.arguments]
    # CUDA tensors stay on the device (the model runs on them on PyTorch's
    # current stream); torch tensors in give torch tensors out.
    restore = (in_place_arguments(passed, imported.written, compiled.target)
               if imported.written else ())
    results = compiled._call_values(passed)
    for original, stand_in in restore:
        if isinstance(original, torch.Tensor):
            with torch.no_grad():
                original.copy_(stand_in)
        else:
            original[...] = stand_in
    copy_back(flat_args, results, imported.mutations)
    return imported.unflatten(list(results), flat_args)


def in_place_arguments(passed, written, target):
    """Makes each argument the program writes in place (`written`
    indices of `passed`) one whose memory the program receives as it is: a
    contiguous array on the program's device (the call paths copy others
    into contiguous ones). Others are replaced in `passed` by contiguous
    copies; returns the (original, copy) pairs to copy back after the
    call. A tensor on another device than the program's is refused (its
    copy on the device would be written, not it)."""
    restore = []
    for index in written:
        value = passed[index]
        if isinstance(value, torch.Tensor):
            if (value.device.type == "cuda") != (target == "cuda"):
                raise WrapperError(
                    f"input #{index}, which the graph writes in place, is on {value.device}; "
                    f"the program runs on {'the CPU' if target == 'cpu' else target}")
            if not value.is_contiguous():
                stand_in = value.detach().contiguous()
                passed[index] = stand_in
                restore.append((value, stand_in))
        elif isinstance(value, np.ndarray) and not value.flags.c_contiguous:
            stand_in = np.ascontiguousarray(value)
            passed[index] = stand_in
            restore.append((value, stand_in))
    return restore


def copy_back(flat_args, results, mutations):
    """Writes the new values of the inputs a graph mutates into them:
    `mutations` are (argument position, result index) pairs."""
    for position, index in mutations:
        target = flat_args[position]
        if isinstance(target, torch.Tensor):
            with torch.no_grad():
                target.copy_(torch.as_tensor(results[index]))
        else:
            target[...] = results[index]


def flatten_arguments(args, kwargs, in_spec):
    """The flat argument list of a call of an exported module (`in_spec`:
    the pytree spec it was exported with; None: the args as they are)."""
    if in_spec is None:
        return list(args)
    flat, spec = pytree.tree_flatten((args, kwargs))
    if spec != in_spec:
        raise WrapperError(
            "the arguments do not have the structure the model was exported with "
            f"({len(flat)} values given)")
    return flat


def _plain_arity(in_spec):
    """N when `in_spec` is the spec of N positional leaves and no keyword
    arguments (a call with N tensors then needs no pytree); else -1."""
    if in_spec is None:
        return -1
    count = in_spec.num_leaves
    return count if pytree.tree_flatten((tuple([0] * count), {}))[1] == in_spec else -1


def _output_kind(out_spec):
    """"leaf" (one tensor), "tuple" (a tuple of tensors) or None (another
    structure: pytree rebuilds it)."""
    if out_spec is None:
        return None
    if out_spec.is_leaf():
        return "leaf"
    count = out_spec.num_leaves
    if pytree.tree_flatten(tuple([0] * count))[1] == out_spec:
        return "tuple"
    return None


class TorchModel:
    """A compiled torch model: call it as the module (args and kwargs) or
    the graph; torch tensors in and out (NumPy arrays in give NumPy out)."""

    def __init__(self, imported, compiled, compile_seconds, in_spec=None, out_spec=None,
                 program=None):
        self.imported = imported
        self.compiled = compiled
        self.compile_seconds = compile_seconds
        self.in_spec = in_spec
        self.out_spec = out_spec
        self.program = program
        self.options = None  # the compiler options, where known (recompile)
        # The per-call fast paths (a model's call costs ~20 us of pytree
        # otherwise): how many positional tensors a call takes when its
        # exported signature is just that, and whether the output structure
        # is one tensor or a tuple of them.
        self._positional = _plain_arity(in_spec)
        self._output_kind = _output_kind(out_spec)

    @property
    def inputs(self):
        return self.compiled.inputs

    @property
    def outputs(self):
        return self.compiled.outputs

    @property
    def fallbacks(self):
        return self.imported.fallbacks

    def stale(self, args):
        return self.imported.stale(args)

    def __call__(self, *args, **kwargs):
        if (not kwargs and len(args) == self._positional
                and all(type(a) is torch.Tensor for a in args)):
            flat = list(args)
        else:
            flat = flatten_arguments(args, kwargs, self.in_spec)
        outputs = _run(self.imported, self.compiled, flat)
        if self.out_spec is None:
            return outputs
        if self._output_kind == "leaf" and isinstance(outputs, (list, tuple)) \
                and len(outputs) == 1:
            return outputs[0]
        if self._output_kind == "tuple" and isinstance(outputs, (list, tuple)):
            return tuple(outputs)
        return pytree.tree_unflatten(list(outputs), self.out_spec)

    def recompile(self, **options):
        """The same imported program compiled again with other compiler
        options (parallel, gemm, plan_memory, fuse, tile_elements, target;
        the others as this model was compiled): a new TorchModel, without
        exporting or importing again. For comparing compiler choices on one
        model (scripts/zoo-differential.py)."""
        merged = {k: v for k, v in self.options.items()} if self.options else {}
        merged.update(options)
        merged.pop("fallback", None)
        merged = check_options(merged, "TorchModel.recompile")
        start = time.perf_counter()
        compiled = _compile_imported(self.imported, merged)
        model = TorchModel(self.imported, compiled, time.perf_counter() - start, self.in_spec,
                           self.out_spec, self.program)
        model.options = merged
        return model

    def ir(self, stage="frontend", full=False):
        """'aten' (the graph imported), 'source' (the tensor_program, its
        weights in a file), 'frontend', 'llvm'; `full` prints large
        constants whole."""
        if stage == "aten":
            if self.program is None:
                raise WrapperError("no ATen graph is kept for this model")
            return str(self.program.graph)
        return self.compiled.ir(stage, full=full)


def compile_torch(graph, example_inputs=None, *, example_kwargs=None, dynamic_batch=False,
                  **options):
    """compile() of an nn.Module (exported with the example inputs), an
    ExportedProgram or a GraphModule."""
    if options.get("target") is None:
        options["target"] = default_target(list(example_inputs or ()))
    options = check_options(options, "wrapper_mlir.compile")
    start = time.perf_counter()
    imported, program = import_torch(graph, example_inputs, example_kwargs, dynamic_batch,
                                     options["fallback"], "wrapper_mlir.compile")
    compiled = _compile_imported(imported, options)
    in_spec = program.call_spec.in_spec if program.call_spec else None
    out_spec = program.call_spec.out_spec if program.call_spec else None
    model = TorchModel(imported, compiled, time.perf_counter() - start, in_spec, out_spec,
                       program)
    model.options = options
    return model


def import_torch(graph, example_inputs, example_kwargs, dynamic_batch, fallback, where,
                 weights_as_inputs=False):
    """An nn.Module (exported with the example inputs, in eval mode) or an
    ExportedProgram, decomposed and imported: (ImportedProgram,
    ExportedProgram). `fallback`: ops outside the table become proxy calls
    (with a warning) instead of errors."""
    if isinstance(graph, torch.export.ExportedProgram):
        program = graph.run_decompositions(decomposition_table(copy_views=True))
    else:
        if example_inputs is None:
            raise WrapperError("compiling a torch module needs example_inputs (the "
                               "arguments of one call)")
        training = isinstance(graph, torch.nn.Module) and graph.training
        if training:
            warnings.warn(f"{where}: the module is in training mode; it is "
                          "compiled for inference (eval mode)", stacklevel=4)
            graph.eval()
        try:
            program = export_module(graph, tuple(example_inputs), example_kwargs,
                                    dynamic_batch=dynamic_batch)
        except UnsupportedError as error:
            raise WrapperError(f"cannot export the model: {error}") from None
        finally:
            if training:
                graph.train()
    handler = _fallback_handler() if fallback else None
    try:
        imported = import_exported(program, fallback=handler,
                                   size_one=not isinstance(graph, torch.export.ExportedProgram),
                                   weights_as_inputs=weights_as_inputs)
    except UnsupportedError as error:
        raise WrapperError(f"cannot import the graph: {error}") from None
    _warn_fallbacks(imported, where)
    return imported, program


def _fallback_handler():
    from .importer.fallback import fallback_node

    return fallback_node


def _warn_fallbacks(imported, where):
    for node, reason in imported.fallbacks:
        warnings.warn(f"{where}: '{node.target}' at node '{node.name}' runs in PyTorch "
                      f"({reason})", stacklevel=3)


# -- the torch.compile backend ----------------------------------------------


def _is_weight(graph_module, position, value):
    """Whether Dynamo's input `position` is a module parameter or buffer
    (frozen into the program: its identity and version are checked at
    every call)."""
    if isinstance(value, torch.nn.Parameter):
        return True
    placeholders = [n for n in graph_module.graph.nodes if n.op == "placeholder"]
    if position >= len(placeholders):
        return False
    grapharg = placeholders[position].meta.get("grapharg")
    source = getattr(grapharg, "source", None)
    if source is None:
        return False
    name = source.name if isinstance(getattr(source, "name", None), str) else str(source.name())
    return "._buffers[" in name or "._parameters[" in name


def _graph_bindings(graph, example_inputs, weights):
    """How the placeholders of an AOTAutograd graph bind: the positions in
    `weights` are frozen (their values from `example_inputs`), other tensors
    are run-time arguments, everything else a compile-time value."""
    placeholders = [n for n in graph.graph.nodes if n.op == "placeholder"]
    freeze = bool(weights) and len(placeholders) == len(example_inputs)
    # Inputs the graph writes (buffers such as running statistics) stay
    # arguments: the program returns their new values.
    written = {n.args[0] for n in graph.graph.nodes
               if n.op == "call_function" and n.target == torch.ops.aten.copy_.default}
    bindings = []
    for i, node in enumerate(placeholders):
        value = node.meta.get("val")
        name = node.name
        if isinstance(value, torch.Tensor):
            if freeze and i in weights and node not in written:
                bindings.append(InputBinding("weight", name, value=example_inputs[i], position=i))
            else:
                bindings.append(InputBinding("tensor", name, position=i))
        else:
            bindings.append(InputBinding("value", name, value=value, position=i))
    return bindings


class _CompiledGraph:
    """A compiled AOTAutograd graph (inference, forward or backward), called
    boxed: one list of arguments, which it clears. `donated`: the positions
    of a backward's arguments that AOTAutograd donates (saved activations
    that neither alias an input nor are a forward output, read by nothing
    after the backward): given up for the call, which frees each after its
    last reader (compiled with --cuda-release-arguments)."""

    def __init__(self, imported, compiled, eager, donated=()):
        # An instance attribute: the wrappers Dynamo puts around a backward
        # (functools.wraps) copy the instance's __dict__, not the class's.
        self._boxed_call = True
        self.imported = imported
        self.compiled = compiled
        self.eager = eager
        self.donated = tuple(donated)
        self.warned_negative = False
        # The caller positions of the sizes the program takes (checked for
        # negative values on every call).
        self.size_positions = tuple(p[1] for p in imported.arguments if is_size_position(p))

    def __call__(self, args):
        if self.compiled is not None:
            reason = self.imported.stale(args)
            if reason:
                # A frozen weight changed: the eager graph is always right.
                warnings.warn(f"wrapper backend: {reason}; running the graph eagerly from now on",
                              stacklevel=2)
                self.compiled = None
        if self.compiled is None:
            return self.eager(*args)
        negative = next((i for i in self.size_positions if args[i] < 0), None)
        if negative is not None:
            # A size the program takes by a carrier's length cannot be
            # negative; the eager graph takes any integer.
            if not self.warned_negative:
                warnings.warn(f"wrapper backend: the graph's integer argument #{negative} is "
                              f"{args[negative]}; calls with a negative value run eagerly",
                              stacklevel=2)
                self.warned_negative = True
            return self.eager(*args)
        if not self.donated:
            result = _run(self.imported, self.compiled, args, check_frozen=False)
            args.clear()
            return result
        with donating([args[i] for i in self.donated if isinstance(args[i], torch.Tensor)],
                      args):
            result = _run(self.imported, self.compiled, args, check_frozen=False)
        args.clear()
        return result


def _donated_positions(kind, options):
    """The arguments of a backward graph on CUDA that AOTAutograd donates
    (its fw_metadata.bw_donated_idxs, the buffers Inductor reuses in the
    backward: saved activations no one else holds, set only when the
    backward runs with retain_graph=False); empty otherwise. CUDA graphs
    run on copies of the inputs: nothing to give up."""
    if kind != "backward" or options["target"] != "cuda" or options["cuda_graphs"]:
        return []
    context = torch._guards.TracingContext.try_get()
    metadata = getattr(context, "fw_metadata", None) if context is not None else None
    return sorted(getattr(metadata, "bw_donated_idxs", None) or [])


def wrapper_backend(graph_module, example_inputs, options=None, **kwargs):
    """The `torch.compile(model, backend="wrapper")` backend: Dynamo's graph
    through AOTAutograd (with decomposition_table()) to core ATen, imported,
    compiled and run. Options (`torch.compile(..., options={...})`): see
    OPTIONS; unknown ones are refused.

    Without gradients the graph is an inference graph whose parameters and
    buffers are frozen into the program. When an input requires gradients
    (training), AOTAutograd traces the joint graph and partitions it
    (min-cut rematerialization) into a forward graph, which also returns the
    activations the backward needs, and a backward graph; both are compiled,
    with the parameters as run-time arguments (the optimizer updates them in
    place between steps). A graph the compiler cannot take runs in PyTorch,
    with a warning and a count in `wrapper_mlir.stats()`."""
    from functorch.compile import make_boxed_func, min_cut_rematerialization_partition
    from torch._dynamo.backends.common import aot_autograd

    merged = dict(options or {})
    merged.update(kwargs)
    example_inputs = list(example_inputs)
    if merged.get("target") is None:
        merged["target"] = default_target(example_inputs)
    options = check_options(merged, "torch.compile(backend='wrapper')")
    weights = {i for i, v in enumerate(example_inputs)
               if isinstance(v, torch.Tensor) and _is_weight(graph_module, i, v)}

    def compiler(kind):
        def compile_graph(graph, graph_inputs):
            # AOTAutograd calls this under its FakeTensorMode; the weights
            # are real tensors, read outside of it.
            from torch._subclasses.fake_tensor import unset_fake_temporarily

            graph = decompose_attention(graph, graph_inputs)
            with unset_fake_temporarily():
                return compile_one(kind, graph, graph_inputs)

        return compile_graph

    def compile_one(kind, graph, graph_inputs):
        start = time.perf_counter()
        frozen = weights if kind == "inference" else set()
        bindings = _graph_bindings(graph, example_inputs, frozen)
        fallback = _fallback_handler() if options["fallback"] else None
        try:
            importer = Importer(graph.graph, bindings, table=TABLE, fallback=fallback,
                                symbol_ranges=_shape_env_ranges(graph_inputs))
            # Buffers the graph updates (batch norm's running statistics)
            # are written by the program, not copied back after it; CUDA
            # graphs run on copies of the inputs, so they keep the copy.
            importer.mutate_in_place = not options["cuda_graphs"]
            imported = importer.run()
            _warn_fallbacks(imported, f"wrapper backend ({kind} graph)")
            donated = _donated_positions(kind, options)
            compiled = _compile_imported(imported, options, release_arguments=bool(donated))
        except (UnsupportedError, WrapperError) as error:
            record_graph_fallback(kind, _first_line(error))
            warnings.warn(f"wrapper backend: running the {kind} graph eagerly: {error}",
                          stacklevel=2)
            return make_boxed_func(graph.forward)
        record_compiled(kind, time.perf_counter() - start,
                        [(describe_target(node.target), reason)
                         for node, reason in imported.fallbacks])
        return _CompiledGraph(imported, compiled, graph.forward, donated)

    def partition(*args, **kwargs):
        # Views (permutes, reshapes) are recomputed in the backward graph,
        # never saved: a saved view is a copy the forward writes (a
        # transposed activation or weight per layer), while in the backward
        # a product reads a transpose in place (docs/Fusion.md).
        import torch._functorch.config as functorch_config

        with functorch_config.patch(recompute_views=True):
            return min_cut_rematerialization_partition(*args, **kwargs)

    # AOTAutograd gives inference graphs to the inference compiler, the
    # forward half of a training graph to the forward compiler.
    return aot_autograd(fw_compiler=compiler("forward"),
                        bw_compiler=compiler("backward"),
                        inference_compiler=compiler("inference"),
                        partition_fn=partition,
                        decompositions=decomposition_table(attention=False),
                        keep_inference_input_mutations=True)(graph_module, example_inputs)


def _first_line(error):
    """The line of an error that says what is wrong: the first compiler
    diagnostic ("error: ...") when there is one, else the first line."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    for line in lines:
        if "error: " in line:
            return line.split("error: ", 1)[1]
    return lines[0] if lines else type(error).__name__


def _shape_env_ranges(fake_inputs):
    """The value ranges Dynamo's shape environment knows for the size
    symbols of `fake_inputs`."""
    from .importer.frontend import symbol_ranges

    for value in fake_inputs:
        mode = getattr(value, "fake_mode", None)
        env = getattr(mode, "shape_env", None)
        if env is not None:
            return symbol_ranges(env.var_to_range)
    return {}


def register_backend():
    """Registers the backend as "wrapper" (done on import of wrapper_mlir
    when torch is importable, and by the package's entry point)."""
    from torch._dynamo.backends.registry import _BACKENDS, register_backend as register

    if "wrapper" not in _BACKENDS:
        register(name="wrapper")(wrapper_backend)
