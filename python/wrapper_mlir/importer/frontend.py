"""Where graphs come from: torch.export's ExportedProgram and the forward
graphs AOTAutograd hands a torch.compile backend, both after the same
decomposition table."""

import torch

from . import (ops_distributed, ops_elementwise, ops_indexing, ops_layout,  # noqa: F401
               ops_nn, ops_reduction)
from .core import Importer, InputBinding
from .registry import TABLE, aten
from .attention import decompositions as attention_decompositions
from .training import decompositions as training_decompositions
from .values import UnsupportedError

# Composite ops that tensor_program expresses better whole than PyTorch's
# decompositions do (one op the compiler lowers directly, instead of index
# arithmetic or chains that fusion must rediscover).
_KEPT_COMPOSITES = (
    aten.silu.default,
    aten.rms_norm.default,
    aten._fused_rms_norm.default,
    aten.linalg_vector_norm.default,
    aten.adaptive_avg_pool1d.default,
    aten.adaptive_avg_pool2d.default,
    aten.adaptive_max_pool1d.default,
    aten.max_pool2d.default,
    aten.max_pool1d.default,
    aten.max_pool3d.default,
)


def _view_of_copy(x, size):
    """aten.view as a view of a contiguous copy. Exported graphs are
    re-traced by run_decompositions with symbolic sizes, where a view of a
    tensor whose symbolic strides cannot be proven viewable fails (GPT-2's
    Conv1D views the output of a transpose + reshape). The importer gives
    values no strides, so the copy costs nothing."""
    aten = torch.ops.aten
    return aten._unsafe_view.default(aten.clone.default(x, memory_format=torch.contiguous_format),
                                     size)


def _cudnn_grid_sampler(x, grid):
    """cuDNN's grid sampler (what grid_sample traces to on a GPU for 4-D
    bilinear sampling with zero padding and align_corners): the generic
    op, which PyTorch's table decomposes."""
    return aten.grid_sampler_2d.default(x, grid, 0, 0, True)


# Ops a model traces to on a GPU only, as the generic op they stand for.
_DEVICE_VARIANTS = {aten.cudnn_grid_sampler.default: _cudnn_grid_sampler}


# Largest k that topk is decomposed for (k rounds of a max and its first
# position each; larger k runs in PyTorch).
_TOPK_ROUNDS = 8


def _topk(x, k, dim=-1, largest=True, sorted=True):
    """topk of a floating-point tensor for small k (a mixture-of-experts
    router's top 2 of 8 experts) as k rounds of max and first position of
    it among the entries not taken yet: values in order, ties to the lower
    index, NaN the largest (as PyTorch). Larger k, or integers, stay topk
    (PyTorch runs it)."""
    if k > _TOPK_ROUNDS or not x.dtype.is_floating_point or x.dim() == 0:
        return NotImplemented
    dim = dim % x.dim()
    work = x if largest else -x
    taken = torch.zeros_like(x, dtype=torch.bool)
    positions = torch.arange(x.shape[dim], device=x.device).view(
        [-1 if d == dim else 1 for d in range(x.dim())])
    values, indices = [], []
    for _ in range(k):
        free = work.masked_fill(taken, float("-inf"))
        nan = torch.isnan(free)
        best = torch.amax(free, dim, keepdim=True)
        # Among the free entries equal to the best (NaN if any is NaN), the
        # first; a taken entry never, even when every free one is -inf.
        chosen = torch.where(torch.isnan(best), nan, free == best).logical_and(
            taken.logical_not())
        index = torch.amin(torch.where(chosen, positions, x.shape[dim]), dim, keepdim=True)
        values.append(torch.gather(x, dim, index))
        indices.append(index)
        taken = taken.logical_or(positions == index)
    return torch.cat(values, dim), torch.cat(indices, dim)


def _histc(x, bins=100, min=0, max=0):
    """histc of a floating-point tensor (a mixture-of-experts router counts
    the tokens per expert with it) as counts added at each element's bin:
    bins of equal width over [min, max] (the data's range when min == max,
    widened by one each way when that is one value), elements outside left
    out, the maximum in the last bin."""
    if not x.dtype.is_floating_point:
        return NotImplemented
    flat = x.reshape(-1)
    if min == max:
        low, high = torch.amin(flat), torch.amax(flat)
        same = low == high
        low, high = torch.where(same, low - 1, low), torch.where(same, high + 1, high)
    else:
        low, high = min, max
    inside = (flat >= low).logical_and(flat <= high)
    position = torch.floor((flat - low) * bins / (high - low))
    index = torch.where(inside, position, 0).clamp(0, bins - 1).to(torch.int64)
    counts = torch.zeros(bins, dtype=x.dtype, device=x.device)
    return counts.scatter_add(0, index, inside.to(x.dtype))


# Sorts along a dimension of at most this many elements are compared all
# against all (n^2 comparisons per row); longer ones stay sort.
_SORT_LIMIT = 1024


def _sort(x, dim=-1, descending=False):
    """sort (a mixture-of-experts router orders its tokens by expert with
    it; argsort is sort) for rows of up to _SORT_LIMIT elements as ranks:
    element i lands at the count of the elements before it (smaller, or
    larger when descending; equal ones by position, so the order is
    stable), and output k is the element of rank k (a masked maximum, not
    a scatter: a scatter that does not add is a sequential loop on CUDA).
    NaN sorts as the largest value, as in PyTorch. Longer rows, symbolic
    sizes and booleans stay sort."""
    if x.dim() == 0 or x.dtype == torch.bool:
        return NotImplemented
    dim = dim % x.dim()
    n = x.shape[dim]
    if not isinstance(n, int) or n > _SORT_LIMIT:
        return NotImplemented
    row = x.movedim(dim, -1)
    a, b = row.unsqueeze(-1), row.unsqueeze(-2)  # element i, element j
    # j before i: strictly ordered, or a number against NaN (the largest).
    less = (b > a) if descending else (b < a)
    same = a == b
    if x.dtype.is_floating_point:
        a_nan, b_nan = torch.isnan(a), torch.isnan(b)
        larger_nan = (b_nan.logical_and(a_nan.logical_not()) if descending
                      else a_nan.logical_and(b_nan.logical_not()))
        less = less.logical_or(larger_nan)
        same = same.logical_or(a_nan.logical_and(b_nan))
    positions = torch.arange(n, device=x.device)
    earlier = positions.unsqueeze(0) < positions.unsqueeze(1)  # [i, j]: j < i
    rank = less.logical_or(same.logical_and(earlier)).sum(-1)
    # Output k: a maximum over the row with all but the element of rank k
    # at the lowest value (exact, -0.0 and NaN included).
    lands = rank.unsqueeze(-2) == positions.unsqueeze(-1)  # [k, i]
    lowest = float("-inf") if x.dtype.is_floating_point else torch.iinfo(x.dtype).min
    values = torch.where(lands, row.unsqueeze(-2), lowest).amax(-1)
    indices = torch.where(lands, positions, -1).amax(-1)
    return values.movedim(-1, dim), indices.movedim(-1, dim)


def _sort_stable(x, *, stable=None, dim=-1, descending=False):
    return _sort(x, dim, descending)


_SMALL_K = {aten.topk.default: _topk, aten.histc.default: _histc,
            aten.sort.default: _sort, aten.sort.stable: _sort_stable}


def _decompositions_of_missing_ops(table):
    """PyTorch's decompositions (its full table, beyond the core ATen set)
    of the functional, deterministic ops that neither `table` nor the op
    table handles: `grid_sampler_2d`, `upsample_bicubic2d`, `cumprod`,
    `erfc`, `hypot`, `diagonal`, `tril_indices`, ... would otherwise run in
    PyTorch (a fallback each); decomposed, their pieces are compiled. Random
    ops keep PyTorch's generator (a fallback) rather than draw other
    numbers."""
    from torch._decomp import decomposition_table as every

    from .registry import lookup

    extra = {}
    for op, decomposition in every.items():
        if op in table or not isinstance(op, torch._ops.OpOverload):
            continue
        if op._schema.is_mutable or "out" in op._overloadname.split("_"):
            continue
        if torch.Tag.nondeterministic_seeded in op.tags or lookup(op) is not None:
            continue
        if op in (aten.lift.default, aten.lift_fresh.default):
            continue  # constants made in the graph (torch.tensor): AOTAutograd lifts them
        extra[op] = decomposition
    return extra


def decomposition_table(copy_views=False, attention=True):
    """PyTorch's core ATen decompositions (about 180 functional ops
    remain) and those of the training ops (importer.training), minus the
    composites above. softmax, log_softmax, layer_norm,
    gelu, convolution, batch_norm and pooling are core ATen ops already and
    stay whole; the fused attention kernels become their math unless
    `attention` is false (the torch.compile backend decomposes them after
    AOTAutograd's partition: decompose_attention). With `copy_views`
    (re-tracing an exported program), views are views of contiguous copies
    (see _view_of_copy)."""
    from torch._decomp import core_aten_decompositions

    table = dict(core_aten_decompositions())
    table.update(training_decompositions())
    table.update(_decompositions_of_missing_ops(table))
    for op in _KEPT_COMPOSITES:
        table.pop(op, None)
    for op, decomposition in attention_decompositions().items():
        if attention:
            table[op] = decomposition
        else:
            table.pop(op, None)
    table.update(_DEVICE_VARIANTS)
    table.update(_SMALL_K)
    if copy_views:
        table.pop(aten._unsafe_view.default, None)
        table[aten.view.default] = _view_of_copy
    return table


def decompose_attention(graph, example_inputs):
    """`graph` (an FX GraphModule of core ATen ops, as AOTAutograd hands a
    compiler) with its fused attention kernels (forward and backward)
    replaced by their math (importer.attention), re-traced on
    `example_inputs` (FakeTensors, under their mode); `graph` itself when
    it has none. The backend keeps the kernels whole through AOTAutograd's
    partition, so a training graph saves what the kernel's backward reads
    (query, key, value, output, log-sum-exp) and the backward recomputes
    the probabilities, as PyTorch's kernels do, instead of saving the
    scores of a decomposed forward. The graph was traced with the kernels'
    metadata, so each result of the math takes the dtype the kernel's
    result has there (_like) and its size (the decompositions')."""
    from torch._dispatch.python import enable_python_dispatcher
    from torch._guards import detect_fake_mode
    from torch.fx.experimental.proxy_tensor import disable_proxy_modes_tracing, make_fx

    table = attention_decompositions()
    if not any(node.op == "call_function" and node.target in table
               for node in graph.graph.nodes):
        return graph

    def matching(op, decomposition):
        def run(*args, **kwargs):
            with disable_proxy_modes_tracing():
                expected = op(*args, **kwargs)  # the kernel's metadata, not traced
            results = decomposition(*args, **kwargs)
            if results is NotImplemented or not isinstance(results, (tuple, list)):
                return results if results is NotImplemented else _like(results, expected)
            return type(results)(_like(r, e) for r, e in zip(results, expected))
        return run

    # The math's own ops (logsumexp, ...) decomposed as everywhere.
    table = {**decomposition_table(),
             **{op: matching(op, decomposition) for op, decomposition in table.items()},
             aten.view.default: _view_or_copy}
    # The graph's constants (masks) are real tensors; the mode that made
    # the inputs converts them as it meets them.
    mode = detect_fake_mode(example_inputs)
    allowed = mode.allow_non_fake_inputs if mode is not None else None
    if mode is not None:
        mode.allow_non_fake_inputs = True
    try:
        # The Python dispatcher: symbolic sizes through composite ops (pad).
        with enable_python_dispatcher():
            traced = make_fx(graph, decomposition_table=table)(*example_inputs)
    finally:
        if mode is not None:
            mode.allow_non_fake_inputs = allowed
    # make_fx keeps what the graph unpacked and never read (a batch norm's
    # statistics); the importer need not see it.
    traced.graph.eliminate_dead_code()
    traced.recompile()
    return traced


def _like(value, expected):
    """`value` in the dtype of `expected` (a FakeTensor of a fused kernel's
    result: the log-sum-exp is f32 for 16-bit inputs). The decompositions
    give the kernels' sizes themselves (the memory-efficient kernel's
    rounded rows: a symbolic size of `expected` is made outside the trace
    and cannot be used in it). The strides stay: a view the graph takes of
    the result that they do not allow becomes a copy and a view
    (_view_or_copy), which in the value semantics of tensor_program costs
    nothing, where laying it out as the kernel does would be a transpose."""
    if (isinstance(value, torch.Tensor) and isinstance(expected, torch.Tensor)
            and value.dtype != expected.dtype):
        return value.to(expected.dtype)
    return value


def _view_or_copy(tensor, size):
    """aten.view where the strides allow it, else a contiguous copy viewed
    (what reshape does)."""
    from torch.fx.experimental.proxy_tensor import disable_proxy_modes_tracing

    try:
        with disable_proxy_modes_tracing():
            tensor.view(size)
        return NotImplemented
    except (RuntimeError, ValueError):  # FakeTensor's view raises ValueError
        return aten._unsafe_view.default(aten.clone.default(
            tensor, memory_format=torch.contiguous_format), size)


def finite_int(value):
    """An int for a finite bound of a value range, None for infinities."""
    try:
        if value is None or not bool(getattr(value, "is_finite", True)):
            return None
        result = int(value)
    except (TypeError, ValueError, OverflowError, AttributeError):
        return None
    return None if abs(result) > 2**62 else result


def symbol_ranges(var_to_range):
    """{symbol: (low, high)} of a {symbol: ValueRanges} map."""
    return {symbol: (finite_int(r.lower), finite_int(r.upper))
            for symbol, r in (var_to_range or {}).items()}


def import_exported(program, *, fallback=None, size_one=False, weights_as_inputs=False):
    """Imports an ExportedProgram (decomposed with decomposition_table()).
    Parameters, buffers and constant tensors are frozen into the program;
    user inputs are the arguments, in order. With `size_one`, a size
    symbol's lower bound of 2 (torch.export's specialization of sizes 0 and
    1, for Dim.AUTO) becomes 1: the compiled program checks the relations
    it relies on itself, and runs at size 1. With `weights_as_inputs`,
    parameters and buffers are arguments too (named by their qualified
    names; their positions in ImportedProgram.arguments are ("weight",
    name)), so that the caller passes them and can replace them (swappable
    packages); constant tensors stay frozen."""
    from torch.export.graph_signature import InputKind, OutputKind

    signature = program.graph_signature
    state = program.state_dict
    constants = getattr(program, "constants", {})
    bindings = []
    user_index = 0
    for spec in signature.input_specs:
        name = spec.arg.name
        if spec.kind == InputKind.USER_INPUT:
            node_value = None
            for node in program.graph.nodes:
                if node.op == "placeholder" and node.name == name:
                    node_value = node.meta.get("val")
                    break
            if isinstance(node_value, torch.Tensor):
                bindings.append(InputBinding("tensor", name, position=user_index))
            else:
                bindings.append(InputBinding("value", name,
                                             value=getattr(spec.arg, "value", node_value),
                                             position=user_index))
            user_index += 1
        elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER) and weights_as_inputs:
            bindings.append(InputBinding("tensor", spec.target, position=("weight", spec.target)))
        elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER):
            value = state[spec.target] if spec.target in state else constants[spec.target]
            bindings.append(InputBinding("weight", spec.target, value=value))
        elif spec.kind == InputKind.CONSTANT_TENSOR:
            bindings.append(InputBinding("weight", spec.target, value=constants[spec.target]))
        else:
            raise UnsupportedError(f"input '{name}' of kind {spec.kind.name} is not supported")
    for spec in signature.output_specs:
        if spec.kind not in (OutputKind.USER_OUTPUT,):
            raise UnsupportedError(
                f"output '{spec.arg.name}' of kind {spec.kind.name} (the program mutates "
                "an input or a buffer) is not supported")
    ranges = symbol_ranges(program.range_constraints)
    if size_one:
        ranges = {s: (1 if low == 2 else low, high) for s, (low, high) in ranges.items()}
    importer = Importer(program.graph, bindings, table=TABLE, symbol_ranges=ranges,
                        fallback=fallback)
    return importer.run()


def export_module(module, args, kwargs=None, dynamic_batch=False):
    """torch.export of `module` with the example `args`/`kwargs` (eval
    mode), dimension 0 of every tensor input dynamic with `dynamic_batch`,
    decomposed with decomposition_table()."""
    from torch.export import Dim

    kwargs = kwargs or {}
    dynamic_shapes = None
    if dynamic_batch:
        def spec(value):
            if isinstance(value, torch.Tensor) and value.dim() > 0:
                return {0: Dim.AUTO}
            if isinstance(value, (list, tuple)):
                return type(value)(spec(v) for v in value)
            if isinstance(value, dict):
                return {k: spec(v) for k, v in value.items()}
            return None

        dynamic_shapes = (tuple(spec(a) for a in args), {k: spec(v) for k, v in kwargs.items()}) \
            if kwargs else tuple(spec(a) for a in args)
    try:
        with torch.no_grad():
            if kwargs and dynamic_shapes is not None:
                program = torch.export.export(module, tuple(args), kwargs,
                                              dynamic_shapes=_named(module, args, kwargs,
                                                                    dynamic_shapes))
            else:
                program = torch.export.export(module, tuple(args), kwargs or None,
                                              dynamic_shapes=dynamic_shapes)
            return program.run_decompositions(decomposition_table(copy_views=True))
    except UnsupportedError:
        raise
    except Exception as error:  # torch.export reports failures of every kind
        raise UnsupportedError(f"torch.export failed: {type(error).__name__}: "
                               f"{str(error).splitlines()[0] if str(error) else ''}") from None


def _named(module, args, kwargs, dynamic_shapes):
    """dynamic_shapes for args and kwargs as one dict by parameter name."""
    import inspect

    positional, keyword = dynamic_shapes
    parameters = list(inspect.signature(module.forward).parameters)
    named = dict(zip(parameters, positional))
    named.update(keyword)
    return named
