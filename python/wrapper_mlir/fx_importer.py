"""torch.fx graphs to tensor_program text.

    imported = import_fx(graph_module, example_inputs, dynamic_batch=False)
    imported.text        # the module: one func.func @main on tensors
    imported.inputs      # which example inputs are tensor arguments, in order
    imported.outputs     # how to rebuild the graph's output from the results

The importer runs the graph once on the example inputs with a recording
`torch.fx.Interpreter`, so every node has a concrete shape, dtype and (for
Python scalars) value; with `dynamic_batch=True` it runs it a second time
with dimension 0 of every tensor input changed, and the dimensions and
scalars that changed become dynamic (`?` dimensions, `index` values from
`tensor.dim`). Nodes are matched by what they call, whichever spelling the
graph uses: `torch.add`, `operator.add` and `Tensor.add` are one op;
`nn.Linear` and `F.linear` are one op. Parameters and buffers become
`tensor_program.constant`s (frozen weights). Anything else is an
`UnsupportedError` naming the operation and the node.
"""

import math
import operator

import torch
import torch.fx
import torch.nn as nn

from ._fx_ops import _FUNCTIONS, _METHODS, _MODULES
from ._fx_values import (Index, Tensor, UnsupportedError, _dims_list, _element_type,
                         _float_literal, _normalize_dim)

__all__ = ["ImportedGraph", "Index", "Tensor", "UnsupportedError", "import_fx",
           "supported_modules", "trace"]


class _Recorder(torch.fx.Interpreter):
    """Runs the graph and keeps every node's value."""

    def __init__(self, module):
        super().__init__(module)
        self.values = {}

    def run_node(self, node):
        value = super().run_node(node)
        self.values[node] = value
        return value


def _record(module, inputs):
    recorder = _Recorder(module)
    with torch.no_grad():
        recorder.run(*inputs)
    return recorder.values


def _vary_batch(inputs, delta):
    """The inputs with dimension 0 of every tensor but parameters grown by
    `delta`, and integers equal to the batch size (torch.compile's size
    symbols) grown with it."""
    batches = [v.shape[0] for v in inputs
               if isinstance(v, torch.Tensor) and not isinstance(v, nn.Parameter) and v.dim() > 0]
    varied = []
    for value in inputs:
        if isinstance(value, nn.Parameter):
            varied.append(value)
        elif isinstance(value, int) and not isinstance(value, bool) and batches and value == batches[0]:
            varied.append(value + delta)
        elif isinstance(value, torch.Tensor) and value.dim() > 0:
            size = value.shape[0] + delta
            reps = [math.ceil(size / value.shape[0])] + [1] * (value.dim() - 1)
            varied.append(value.repeat(*reps)[:size].clone())
        else:
            varied.append(value)
    return varied


class _Importer:
    def __init__(self, module, example_inputs, dynamic_batch, freeze_parameters):
        self.module = module
        self.freeze_parameters = freeze_parameters
        self.frozen = []
        self.graph = module.graph
        self.example_inputs = list(example_inputs)
        self.values = _record(module, self.example_inputs)
        self.varied = None
        if dynamic_batch:
            try:
                if not isinstance(dynamic_batch, (list, tuple)):
                    dynamic_batch = _vary_batch(self.example_inputs, 3)
                self.varied = _record(module, dynamic_batch)
            except Exception as error:  # the graph's own failure, any kind
                raise UnsupportedError(
                    "dynamic_batch: the graph does not run with another batch "
                    f"size ({type(error).__name__}: {error})"
                ) from None
        self.lines = []
        self.counter = 0
        self.env = {}
        self.index_constants = {}
        self.dims = {}
        self.arguments = []
        self.input_positions = []
        self.constant_cache = {}

    # -- emission helpers -------------------------------------------------

    def fresh(self):
        self.counter += 1
        return f"%v{self.counter}"

    def emit(self, text):
        self.lines.append("  " + text)

    def op(self, shape, dtype, text):
        """Emits `%r = <text>` and returns the new tensor value."""
        name = self.fresh()
        self.emit(f"{name} = {text}")
        return Tensor(name, shape, dtype)

    def index_constant(self, value):
        if value not in self.index_constants:
            name = f"%c{value}"
            self.emit(f"{name} = arith.constant {value} : index")
            self.index_constants[value] = name
        return self.index_constants[value]

    def index_name(self, value):
        return value.name if isinstance(value, Index) else self.index_constant(int(value))

    def arith(self, opname, a, b):
        if opname == "muli" and (a == 1 or b == 1) and not (isinstance(a, Index) and isinstance(b, Index)):
            return b if (not isinstance(a, Index) and a == 1) else a
        if opname == "divui" and not isinstance(b, Index) and b == 1:
            return a
        if not isinstance(a, Index) and not isinstance(b, Index):
            return {"muli": operator.mul, "divui": operator.floordiv,
                    "addi": operator.add, "subi": operator.sub}[opname](a, b)
        name = self.fresh()
        self.emit(f"{name} = arith.{opname} {self.index_name(a)}, {self.index_name(b)} : index")
        return Index(name)

    def dim(self, value, d):
        size = value.shape[d]
        if size is not None:
            return size
        if (value.name, d) in self.dims:
            return self.dims[(value.name, d)]
        name = self.fresh()
        self.dims[(value.name, d)] = Index(name)
        self.emit(f"{name} = tensor.dim {value.name}, {self.index_constant(d)} : {value.type()}")
        return Index(name)

    def numel(self, value):
        total = 1
        for d in range(value.rank):
            total = self.arith("muli", total, self.dim(value, d))
        return total

    def scalar(self, value, dtype):
        """A Python number as a rank-0 constant of `dtype`."""
        key = (float(value) if dtype.is_floating_point else int(value), dtype)
        if key in self.constant_cache:
            return self.constant_cache[key]
        element = _element_type(dtype, "scalar")
        if dtype == torch.bool:
            literal = "true" if value else "false"
        elif dtype.is_floating_point:
            literal = _float_literal(value)
        else:
            literal = str(int(value))
        result = self.op((), dtype, f"tensor_program.constant dense<{literal}> : tensor<{element}>")
        self.constant_cache[key] = result
        return result

    def weight(self, tensor, where, position=None):
        """A parameter or buffer frozen into the program as a constant; its
        version is recorded so that a later change can be detected."""
        self.frozen.append((where, position, tensor, tensor._version))
        return self.constant(tensor, where)

    def constant(self, tensor, where):
        tensor = tensor.detach().cpu().contiguous()
        _element_type(tensor.dtype, where)
        shape = tuple(tensor.shape)
        result_type = Tensor("", shape, tensor.dtype).type()
        if tensor.numel() == 1:
            value = tensor.reshape(()).item()
            return self.op(shape, tensor.dtype,
                           f"tensor_program.constant dense<{self._literal(value, tensor.dtype)}> : {result_type}")
        if tensor.dtype == torch.bool:
            flat = ", ".join("true" if v else "false" for v in tensor.reshape(-1).tolist())
            body = f"[{flat}]" if tensor.dim() == 1 else None
            if body is None:
                return self.cast(self.constant(tensor.to(torch.int8), where), torch.bool)
            return self.op(shape, tensor.dtype, f"tensor_program.constant dense<{body}> : {result_type}")
        if tensor.dtype == torch.bfloat16:
            raw = tensor.view(torch.int16).numpy().astype("<i2").tobytes()
        else:
            raw = tensor.numpy().astype(tensor.numpy().dtype.newbyteorder("<")).tobytes()
        return self.op(shape, tensor.dtype,
                       f'tensor_program.constant dense<"0x{raw.hex().upper()}"> : {result_type}')

    @staticmethod
    def _literal(value, dtype):
        if dtype == torch.bool:
            return "true" if value else "false"
        if dtype.is_floating_point:
            return _float_literal(value)
        return str(int(value))

    def cast(self, value, dtype):
        if value.dtype == dtype:
            return value
        _element_type(dtype, "cast")
        target = Tensor("", value.shape, dtype)
        return self.op(value.shape, dtype,
                       f"tensor_program.cast {value.name} : {value.type()} to {target.type()}")

    # -- recorded metadata --------------------------------------------------

    def result_meta(self, node):
        """(shape with None for dynamic dimensions, dtype) of a tensor node."""
        value = self.values[node]
        if not isinstance(value, torch.Tensor):
            raise UnsupportedError(
                f"node '{node.name}' ({self.describe(node)}): expected a tensor result, "
                f"got {type(value).__name__}"
            )
        shape = list(value.shape)
        if self.varied is not None:
            other = self.varied[node]
            if other.dim() != value.dim():
                raise UnsupportedError(
                    f"node '{node.name}': its rank changes with the batch size")
            shape = [a if a == b else None for a, b in zip(value.shape, other.shape)]
        return tuple(shape), value.dtype

    def python_value(self, node):
        """A scalar node's value: a Python int, or an Index when it changes
        with the batch size."""
        value = self.values[node]
        if self.varied is not None and self.varied[node] != value:
            return "dynamic"
        return value

    def static_scalar(self, node):
        """The value of a node that computes Python numbers (sizes, scales)
        the same way for every batch size, or None."""
        value = self.values[node]
        numbers = (int, float, bool)
        if isinstance(value, numbers) or (isinstance(value, (tuple, torch.Size)) and value
                                           and all(isinstance(v, numbers) for v in value)):
            if self.python_value(node) != "dynamic":
                return tuple(value) if isinstance(value, torch.Size) else value
        return None

    @staticmethod
    def describe(node):
        target = node.target
        if node.op == "call_function":
            name = getattr(target, "__name__", str(target))
            module = getattr(target, "__module__", None) or ""
            return f"{module}.{name}" if module else name
        if node.op == "call_method":
            return f"Tensor.{target}"
        return f"{node.op} {target}"

    # -- the walk -------------------------------------------------------------

    def run(self):
        placeholders = [n for n in self.graph.nodes if n.op == "placeholder"]
        if len(placeholders) != len(self.example_inputs):
            raise UnsupportedError(
                f"the graph has {len(placeholders)} inputs, {len(self.example_inputs)} "
                "example inputs were given")
        output = None
        # Tensor inputs first: a scalar input that is the batch size reads it
        # from the first one.
        tensors_first = sorted(range(len(placeholders)),
                               key=lambda i: not isinstance(self.example_inputs[i], torch.Tensor))
        for position in tensors_first:
            self.placeholder(placeholders[position], position)
        for node in self.graph.nodes:
            if node.op == "placeholder":
                continue
            elif node.op == "output":
                output = node
            elif node.op == "get_attr":
                self.env[node] = self.get_attr(node)
            else:
                self.env[node] = self.call(node)
        results, structure = self.flatten_output(output.args[0])
        signature = ", ".join(f"{v.name}: {v.type()}" for v in self.arguments)
        result_types = ", ".join(v.type() for v in results)
        body = "\n".join(self.lines)
        names = ", ".join(v.name for v in results)
        text = (
            f"func.func @main({signature}) -> ({result_types}) {{\n{body}\n"
            f"  return {names} : {result_types}\n}}\n"
        )
        return ImportedGraph(text, self.input_positions, structure, len(results),
                             self.module, self.frozen)

    def placeholder(self, node, position):
        example = self.example_inputs[position]
        if self.freeze_parameters and isinstance(example, nn.Parameter):
            self.env[node] = self.weight(example, f"parameter '{node.name}'", position)
        elif isinstance(example, torch.Tensor):
            shape, dtype = self.result_meta(node)
            value = Tensor(f"%arg{len(self.arguments)}", shape, dtype)
            _element_type(dtype, f"input '{node.name}'")
            self.arguments.append(value)
            self.input_positions.append(position)
            self.env[node] = value
        elif isinstance(example, (int, float, bool)) or isinstance(example, torch.SymInt):
            value = self.python_value(node)
            if value == "dynamic":
                batch = next((a for a in self.arguments if a.rank and a.shape[0] is None), None)
                if batch is None or self.values[node] != self.values_of_batch(batch):
                    raise UnsupportedError(f"input '{node.name}': a scalar input that changes "
                                           "with the batch size and is not the batch size")
                self.env[node] = self.dim(batch, 0)
            else:
                self.env[node] = int(value) if isinstance(example, torch.SymInt) else value
        else:
            raise UnsupportedError(
                f"input '{node.name}' has type {type(example).__name__}; tensors and "
                "numbers are supported")

    def values_of_batch(self, argument):
        """The recorded batch size of a tensor argument."""
        position = self.input_positions[self.arguments.index(argument)]
        return self.example_inputs[position].shape[0]

    def get_attr(self, node):
        owner = self.module
        for part in node.target.split("."):
            owner = getattr(owner, part)
        if isinstance(owner, torch.Tensor):
            return self.weight(owner, f"attribute '{node.target}'")
        if isinstance(owner, (int, float, bool)):
            return owner
        raise UnsupportedError(
            f"node '{node.name}': attribute '{node.target}' of type "
            f"{type(owner).__name__} is not supported")

    def flatten_output(self, value):
        if isinstance(value, torch.fx.Node):
            result = self.env[value]
            if not isinstance(result, Tensor):
                raise UnsupportedError(f"output '{value.name}' is not a tensor")
            return [result], 0
        if isinstance(value, (tuple, list)):
            results, parts = [], []
            for item in value:
                flat, structure = self.flatten_output(item)
                parts.append((len(results), structure))
                results.extend(flat)
            return results, (type(value), parts)
        raise UnsupportedError(f"graph output of type {type(value).__name__} is not supported")

    def load(self, argument):
        """A node argument with nodes replaced by their imported values."""
        if isinstance(argument, torch.fx.Node):
            if argument not in self.env:
                raise UnsupportedError(f"node '{argument.name}' is used before it is defined")
            return self.env[argument]
        if isinstance(argument, (list, tuple)):
            return type(argument)(self.load(a) for a in argument)
        if isinstance(argument, dict):
            return {k: self.load(v) for k, v in argument.items()}
        return argument

    def call(self, node):
        static = self.static_scalar(node)
        if static is not None:
            return static
        if node.op == "call_module":
            submodule = self.module.get_submodule(node.target)
            handler = _MODULES.get(type(submodule))
            what = f"module {type(submodule).__module__}.{type(submodule).__name__}"
        elif node.op == "call_method":
            handler = _METHODS.get(node.target)
            what = f"Tensor.{node.target}"
            submodule = None
        else:
            handler = _FUNCTIONS.get(node.target)
            what = self.describe(node)
            submodule = None
        if handler is None:
            raise UnsupportedError(
                f"unsupported operation '{what}' at node '{node.name}'")
        args = self.load(node.args)
        kwargs = self.load(node.kwargs)
        try:
            if submodule is not None:
                return handler(self, node, submodule, *args, **kwargs)
            return handler(self, node, *args, **kwargs)
        except UnsupportedError as error:
            message = str(error)
            if f"'{node.name}'" not in message:
                message = f"{message} (operation '{what}' at node '{node.name}')"
            raise UnsupportedError(message) from None
        except TypeError as error:
            raise UnsupportedError(
                f"operation '{what}' at node '{node.name}': unexpected arguments ({error})"
            ) from None

    # -- op building blocks -------------------------------------------------

    def as_tensor(self, value, dtype):
        if isinstance(value, Tensor):
            return self.cast(value, dtype)
        if isinstance(value, (bool, int, float)):
            return self.scalar(value, dtype)
        raise UnsupportedError(f"expected a tensor or a number, got {type(value).__name__}")

    def elementwise(self, node, opname, *operands):
        shape, dtype = self.result_meta(node)
        return self.elementwise_to(shape, dtype, opname, *operands)

    def elementwise_to(self, shape, dtype, opname, *operands):
        """An elementwise op with a known result shape; operands (tensors or
        numbers) are cast to `dtype`."""
        values = [self.as_tensor(v, dtype) for v in operands]
        result = Tensor("", shape, dtype)
        if len(values) == 1:
            if values[0].shape != shape:
                raise UnsupportedError(f"'{opname}' changes the shape")
            return self.op(shape, dtype, f"tensor_program.{opname} {values[0].name} : {result.type()}")
        names = ", ".join(v.name for v in values)
        types = ", ".join(v.type() for v in values)
        return self.op(shape, dtype, f"tensor_program.{opname} {names} : ({types}) -> {result.type()}")

    def reshape(self, value, sizes, node=None):
        """`value` reshaped to `sizes` (ints and Index values); the sizes
        that `node` has static in every run are taken as constants."""
        if node is not None:
            shape, _ = self.result_meta(node)
            if len(shape) == len(sizes):
                sizes = [s if d is None else d for s, d in zip(sizes, shape)]
        shape = tuple(None if isinstance(s, Index) else int(s) for s in sizes)
        if shape == value.shape and None not in shape:
            return value
        dynamic = [self.index_name(s) for s in sizes if isinstance(s, Index)]
        operands = f" [{', '.join(dynamic)}]" if dynamic else ""
        result = Tensor("", shape, value.dtype)
        return self.op(shape, value.dtype,
                       f"tensor_program.reshape {value.name}{operands} : {value.type()} -> {result.type()}")

    def view_sizes(self, value, sizes, node):
        """PyTorch's view sizes (with one -1) as ints and Index values; the
        sizes static in `node`'s recorded shape are taken from it."""
        if len(sizes) == 1 and isinstance(sizes[0], (list, tuple, torch.Size)):
            sizes = sizes[0]
        sizes = [s if isinstance(s, Index) else int(s) for s in sizes]
        shape, _ = self.result_meta(node)
        if len(shape) == len(sizes):
            sizes = [s if d is None else d for s, d in zip(sizes, shape)]
        if sum(1 for s in sizes if not isinstance(s, Index) and s == -1) > 1:
            raise UnsupportedError("view with more than one -1")
        if -1 in [s for s in sizes if not isinstance(s, Index)]:
            known = 1
            for s in sizes:
                if isinstance(s, Index) or s != -1:
                    known = self.arith("muli", known, s)
            inferred = self.arith("divui", self.numel(value), known)
            sizes = [inferred if (not isinstance(s, Index) and s == -1) else s for s in sizes]
        return sizes

    def permute(self, value, permutation):
        permutation = [_normalize_dim(int(p), value.rank) for p in permutation]
        if permutation == list(range(value.rank)):
            return value
        shape = tuple(value.shape[p] for p in permutation)
        result = Tensor("", shape, value.dtype)
        perm = ", ".join(str(p) for p in permutation)
        return self.op(shape, value.dtype,
                       f"tensor_program.permute {value.name} [{perm}] : {value.type()} -> {result.type()}")

    def transpose(self, value, d0, d1):
        permutation = list(range(value.rank))
        d0, d1 = _normalize_dim(d0, value.rank), _normalize_dim(d1, value.rank)
        permutation[d0], permutation[d1] = permutation[d1], permutation[d0]
        return self.permute(value, permutation)

    def slice(self, value, dim, start, end, step):
        dim = _normalize_dim(dim, value.rank)
        size = value.shape[dim]
        if isinstance(start, Index) or isinstance(end, Index):
            raise UnsupportedError("slice bounds that change with the batch size")
        start = 0 if start is None else start
        if step is None:
            step = 1
        if step <= 0:
            raise UnsupportedError(f"slice step {step}")
        if size is None:
            if start < 0 or (end is not None and end < 0):
                raise UnsupportedError("negative slice bounds on a dynamic dimension")
            new = None
        else:
            start, end, _ = slice(start, end, step).indices(size)
            new = max(0, (end - start + step - 1) // step)
            if start == 0 and end == size and step == 1:
                return value
        shape = list(value.shape)
        shape[dim] = new
        result = Tensor("", shape, value.dtype)
        bounds = f"dim {dim} start {start}"
        if end is not None:
            bounds += f" end {end}"
        if step != 1:
            bounds += f" step {step}"
        return self.op(tuple(shape), value.dtype,
                       f"tensor_program.slice {value.name} {bounds} : {value.type()} -> {result.type()}")

    def concat(self, values, dim, node):
        shape, dtype = self.result_meta(node)
        values = [self.cast(v, dtype) for v in values]
        dim = _normalize_dim(dim, values[0].rank)
        result = Tensor("", shape, dtype)
        return self.op(shape, dtype,
                       f"tensor_program.concat {', '.join(v.name for v in values)} dim {dim} : "
                       f"({', '.join(v.type() for v in values)}) -> {result.type()}")

    def broadcast_to(self, value, sizes):
        shape = tuple(None if isinstance(s, Index) else s for s in sizes)
        if shape == value.shape:
            return value
        dynamic = [s.name for s in sizes if isinstance(s, Index)]
        operands = f" [{', '.join(dynamic)}]" if dynamic else ""
        result = Tensor("", shape, value.dtype)
        return self.op(shape, value.dtype,
                       f"tensor_program.broadcast {value.name}{operands} : {value.type()} -> {result.type()}")

    def reduce(self, node, kind, value, dims, keepdim):
        shape, dtype = self.result_meta(node)
        value = self.cast(value, dtype)
        dims = _dims_list(dims, value.rank)
        result = Tensor("", shape, dtype)
        keep = " keepdim" if keepdim else ""
        return self.op(shape, dtype,
                       f"tensor_program.reduce_{kind} {value.name} dims [{', '.join(map(str, dims))}]{keep} : "
                       f"{value.type()} -> {result.type()}")

    def matmul(self, node, a, b):
        shape, dtype = self.result_meta(node)
        if a.rank < 2 or b.rank < 2:
            raise UnsupportedError("matmul of a 1-d operand")
        result = Tensor("", shape, dtype)
        return self.op(shape, dtype,
                       f"tensor_program.matmul {a.name}, {b.name} : ({a.type()}, {b.type()}) -> {result.type()}")

    def linear(self, node, x, weight, bias=None):
        shape, dtype = self.result_meta(node)
        result = Tensor("", shape, dtype)
        if weight.rank != 2 or x.rank < 1:
            raise UnsupportedError("linear needs a 2-d weight")
        if bias is not None:
            return self.op(shape, dtype,
                           f"tensor_program.linear {x.name}, {weight.name} bias {bias.name} : "
                           f"({x.type()}, {weight.type()}, {bias.type()}) -> {result.type()}")
        return self.op(shape, dtype,
                       f"tensor_program.linear {x.name}, {weight.name} : ({x.type()}, {weight.type()}) -> {result.type()}")

    def normalization(self, node, kind, x, normalized_rank, weight, bias, eps):
        shape, dtype = self.result_meta(node)
        operands = [x]
        text = f"tensor_program.{kind} {x.name}"
        if weight is not None:
            text += f" weight {weight.name}"
            operands.append(weight)
        if bias is not None:
            text += f" bias {bias.name}"
            operands.append(bias)
        if kind == "layer_norm":
            text += f" normalized_rank {normalized_rank}"
        elif normalized_rank != 1:
            raise UnsupportedError(f"rms_norm over {normalized_rank} dimensions")
        result = Tensor("", shape, dtype)
        text += f" eps {_float_literal(eps)} : ({', '.join(v.type() for v in operands)}) -> {result.type()}"
        return self.op(shape, dtype, text)

    def extern(self, node, callee, operands, args):
        shape, dtype = self.result_meta(node)
        result = Tensor("", shape, dtype)
        attributes = ""
        if args:
            attributes = " args {" + ", ".join(f"{k} = {v}" for k, v in args.items()) + "}"
        return self.op(shape, dtype,
                       f'tensor_program.extern "{callee}"({", ".join(v.name for v in operands)}){attributes} : '
                       f"({', '.join(v.type() for v in operands)}) -> {result.type()}")


class ImportedGraph:
    """The importer's result."""

    def __init__(self, text, input_positions, structure, num_results, graph_module, frozen):
        self.text = text
        self.inputs = input_positions
        self.structure = structure
        self.num_results = num_results
        self.graph_module = graph_module
        self.frozen = frozen

    def stale(self, args):
        """Why the frozen weights no longer match (a parameter modified in
        place, or another tensor passed in its place), or None."""
        for where, position, tensor, version in self.frozen:
            if position is not None and args[position] is not tensor:
                return f"{where} is not the tensor the graph was compiled with"
            if tensor._version != version:
                return f"{where} was modified after compilation"
        return None

    def unflatten(self, results):
        """The graph's output structure rebuilt from the flat results."""

        def build(start, structure):
            if structure == 0:
                return results[start]
            kind, parts = structure
            return kind(build(start + offset, part) for offset, part in parts)

        return build(0, self.structure)


def supported_modules():
    """The nn.Module types imported as one op (leaves when tracing)."""
    return tuple(_MODULES)


class _Tracer(torch.fx.Tracer):
    """symbolic_trace that keeps the modules the importer knows as leaves
    and traces through every other one (nn.Sequential, user modules)."""

    def is_leaf_module(self, module, qualified_name):
        return type(module) in _MODULES


def trace(module):
    """A GraphModule of `module` from torch.fx symbolic tracing."""
    try:
        graph = _Tracer().trace(module)
    except Exception as error:  # tracing failures come in every type
        raise UnsupportedError(
            f"torch.fx cannot trace {type(module).__name__}: {type(error).__name__}: {error}"
        ) from None
    return torch.fx.GraphModule(module, graph)


def import_fx(module, example_inputs, dynamic_batch=False, freeze_parameters=True):
    """tensor_program text of a GraphModule (or an nn.Module, traced first).
    With `freeze_parameters`, graph inputs that are nn.Parameters (as
    torch.compile passes them) become constants too. `dynamic_batch` is
    False, True (dimension 0 of the tensor inputs varies), or a second list
    of inputs, of other sizes: whatever differs between the two runs is
    dynamic."""
    if not isinstance(module, torch.fx.GraphModule):
        if not isinstance(module, nn.Module):
            raise UnsupportedError(
                f"expected a torch.fx.GraphModule or an nn.Module, got {type(module).__name__}")
        module = trace(module)
    return _Importer(module, example_inputs, dynamic_batch, freeze_parameters).run()
