"""The ATen-level importer: a torch.fx graph of core ATen ops (from
torch.export or AOTAutograd) to tensor_program text.

Every node's shape and dtype come from its FakeTensor metadata
(`node.meta["val"]`); the graph is never run. Sizes that are symbolic there
(SymInts, sympy expressions of size symbols) become `?` dimensions, and when
an op needs them as values (a reshape, an expand, an arange) they are
computed from the inputs' dimensions (`tensor.dim`) with index arithmetic.
Weights become `dense_resource` constants whose bytes go to a safetensors
file next to the IR, never into the text.
"""

import operator

import sympy
import torch
import torch.fx

from .registry import lookup
from .values import (Size, Tensor, UnsupportedError, as_size, element_type, is_static,
                     shape_of, tensor_type, typed_literal)

# Constants up to this many elements are written inline (dense literals);
# larger ones go to the weights file.
INLINE_ELEMENTS = 16


# The caller position of the random seed argument a program with random
# ops gets (ImportedProgram.arguments): the runner draws it from PyTorch's
# generator at every call.
SEED = "seed"

# The caller position of a size argument a program receives through a
# carrier tensor: ("size", p) for the SymInt at caller position p that is
# no dimension of any input tensor. The program takes a 1-D i8 tensor of
# that length (never read, only its dimension; see size_carrier).
SIZE = "size"


def is_size_position(position):
    return isinstance(position, tuple) and len(position) == 2 and position[0] == SIZE


def size_carrier(value, name, device=None):
    """The tensor that carries the size `value` into a program: 1-D, i8,
    `value` long (an allocation of that many bytes, never initialized)."""
    value = int(value)
    if value < 0:
        raise UnsupportedError(f"the size argument '{name}' is {value}; a compiled graph "
                               "takes sizes of at least 0")
    return torch.empty(value, dtype=torch.int8, device=device)


class InputBinding:
    """What a placeholder of the graph is bound to.

    kind "tensor": a tensor passed at run time (a function argument);
    "weight": a tensor frozen into the program (`value`); "value": a Python
    value known at compile time (`value`: a number, None, or a SymInt that
    the input sizes determine). `position` is the placeholder's index in the
    caller's argument list (None when the caller does not pass it), `name`
    the user-facing name used in messages."""

    def __init__(self, kind, name, value=None, position=None):
        assert kind in ("tensor", "weight", "value")
        self.kind = kind
        self.name = name
        self.value = value
        self.position = position


class OpRecord:
    """What the importer did with one node, for explain()."""

    def __init__(self, node, target, status, detail=""):
        self.node = node
        self.target = target
        self.status = status  # "compiled", "view", "fallback", "unsupported"
        self.detail = detail


class ImportedProgram:
    """The importer's result: the module text (one public func.func), the
    weights it refers to, and how to call it."""

    def __init__(self, text, weights, arguments, structure, num_results, frozen, records,
                 fallbacks, mutations=(), written=()):
        self.text = text
        # [(resource name, torch tensor)], written to the weights file.
        self.weights = weights
        # Caller argument positions of the function's arguments, in order.
        self.arguments = arguments
        self.structure = structure
        self.num_results = num_results
        # [(description, position, tensor, version)] of frozen weights.
        self.frozen = frozen
        self.records = records
        self.fallbacks = fallbacks
        # [(caller argument position, result index)]: the graph mutates
        # that input (copy_); the runner copies the result back into it.
        self.mutations = list(mutations)
        # Indices of the function's arguments that it writes in place
        # (tensor_program.copy_back of a mutated input): the runner passes
        # the caller's own memory there (in_place_arguments).
        self.written = list(written)
        # The caller positions when every argument is one of the caller's
        # (no seed, no size carrier): the per-call path then just picks
        # them. Else None.
        self.plain_arguments = (
            None if any(p == SEED or is_size_position(p) for p in arguments)
            else tuple(arguments))

    def stale(self, args):
        """Why the frozen weights no longer match the arguments (a weight
        modified in place, or another tensor passed in its place), or None."""
        for where, position, tensor, version in self.frozen:
            if position is not None and position < len(args) and args[position] is not tensor:
                return f"{where} is not the tensor the graph was compiled with"
            if tensor._version != version:
                return f"{where} was modified after compilation"
        return None

    def unflatten(self, results, args=()):
        """The graph's output structure rebuilt from the flat results (and
        the caller's flat arguments, which outputs that are an argument as
        it is return)."""
        return _build_structure(self.structure, results, args)


def _build_structure(structure, results, args):
    """Importer.unflatten's recursion. A module-level function, not a
    closure that calls itself: such a closure is a reference cycle, which
    would keep `results` (and so every output) referenced until the garbage
    collector runs. An output referenced twice is not taken over by autograd
    as a gradient (AccumulateGrad copies it) and its memory is not freed when
    its last user lets it go."""
    kind = structure[0]
    if kind == "result":
        return results[structure[1]]
    if kind == "arg":
        return args[structure[1]]
    if kind == "const":
        return structure[1]
    if kind == "size":
        return int(structure[1](*(args[p] if d is None else args[p].shape[d]
                                  for p, d in structure[2])))
    return structure[1](_build_structure(part, results, args) for part in structure[2])


def _floor(value):
    """sympy's floor for lambdify (FloorDiv prints as floor(a / b))."""
    import math

    return math.floor(value)


# Ops whose result may be a SymFloat, by the tensor_program op computing
# it (Importer.symbolic_float; None: the operand itself).
_SYMBOLIC_FLOAT_OPS = {operator.truediv: "div", operator.mul: "mul", operator.add: "add",
                       operator.sub: "sub", torch.sym_float: None}


def describe_target(target):
    """`aten.add.Tensor` for an OpOverload, the name otherwise."""
    if isinstance(target, torch._ops.OpOverload):
        return f"{target.namespace}.{target._opname}.{target._overloadname}"
    return getattr(target, "__name__", str(target))


class Importer:
    """Walks a graph and emits tensor_program text. The op handlers
    (importer.ops) call the emission helpers below."""

    def __init__(self, graph, bindings, *, table, symbol_ranges=None, function_name="main",
                 fallback=None):
        self.graph = graph
        self.bindings = bindings
        self.table = table
        self.symbol_ranges = symbol_ranges or {}
        self.function_name = function_name
        self.fallback = fallback
        self.lines = []
        self.counter = 0
        self.env = {}
        self.arguments = []       # (Tensor, binding)
        self.symbols = {}         # sympy.Symbol -> (Tensor argument, dim)
        self.index_cache = {}     # sympy expr or int -> SSA name
        self.scalar_cache = {}
        self.weights = []
        self.weight_names = set()
        self.frozen = []
        self.records = []
        self.fallbacks = []
        self.mutations = {}       # caller position -> Tensor, the input's new value
        self.seed = None          # the rank-0 i64 seed argument, once a random op needs it
        self.streams = 0          # random ops so far (each gets its own stream)
        self.placeholders = {}    # placeholder node -> its binding
        # Size symbols the caller passes as SymInts of their own (no input
        # tensor has them as a dimension): symbol -> binding; a carrier
        # argument is made on first use (index_of_expr).
        self.size_inputs = {}
        self.current = None
        # Extra attributes of the function's arguments and results (MLIR
        # attribute text such as 'tensor_program.state = "w"'), set by a
        # caller before run(): arguments by caller position (or SEED),
        # results by ("output", i) for the graph's i-th output or
        # ("mutation", position) for an input's new value.
        self.argument_attributes = {}
        self.result_attributes = {}
        # A graph output that is one of the caller's tensor arguments as
        # it is (AOTAutograd's forward graphs return the weights the
        # backward needs) is not a result of the program: the runner hands
        # the argument back (structure ("arg", position)), as the graph
        # itself does, instead of the model copying it. Off for programs
        # whose every output must be a result (compile_training's).
        self.pass_inputs_through = True
        # Graph outputs that are new values of the caller's tensor
        # arguments, by output index -> caller position: written back in
        # place (`tensor_program.copy_back`) instead of returned, so that
        # the compiled program updates the argument's buffer (an AOT
        # training step's parameters and optimizer state). Set before run().
        self.write_back = {}
        # Inputs the graph mutates (copy_) written by the program itself
        # (`tensor_program.copy_back`) instead of returned for the runner
        # to copy: the caller must then pass those inputs' own memory
        # (ImportedProgram.written). Set before run().
        self.mutate_in_place = False
        self.written = []         # argument indices written in place

    # -- emission ------------------------------------------------------------

    def fresh(self, prefix="v"):
        self.counter += 1
        return f"%{prefix}{self.counter}"

    def emit(self, text):
        self.lines.append("  " + text)

    def op(self, shape, dtype, text):
        """Emits `%r = <text>` for a result of `shape` and `dtype`."""
        name = self.fresh()
        self.emit(f"{name} = {text}")
        return Tensor(name, shape, dtype)

    def location(self):
        """The MLIR location of the node being imported."""
        node = self.current
        if node is None:
            return ""
        return f' loc("{node.name}")'

    # -- sizes ---------------------------------------------------------------

    def index(self, size):
        """The SSA name of an `index` value for a size (int, sympy
        expression or Size)."""
        size = as_size(size) if not isinstance(size, (int, sympy.Expr)) else size
        if isinstance(size, sympy.Expr) and size.is_number:
            size = int(size)
        key = size
        if key in self.index_cache:
            return self.index_cache[key]
        if isinstance(size, int):
            name = f"%c{size}" if size >= 0 else f"%cm{-size}"
            self.emit(f"{name} = arith.constant {size} : index")
        else:
            name = self.index_of_expr(size)
        self.index_cache[key] = name
        return name

    def index_of_expr(self, expr):
        if isinstance(expr, sympy.Symbol):
            if expr not in self.symbols and expr in self.size_inputs:
                self.size_carrier_argument(expr)
            if expr not in self.symbols:
                raise UnsupportedError(
                    f"the size '{expr}' is not a dimension of any input (a size that "
                    "depends on tensor values is not supported)")
            argument, dim = self.symbols[expr]
            name = self.fresh("d")
            self.emit(f"{name} = tensor.dim {argument.name}, {self.index(dim)} : {argument.type()}")
            return name

        def fold(opname, terms):
            names = [self.index(t) for t in terms]
            result = names[0]
            for other in names[1:]:
                name = self.fresh("i")
                self.emit(f"{name} = arith.{opname} {result}, {other} : index")
                result = name
            return result

        func = expr.func
        func_name = getattr(func, "__name__", "")
        if isinstance(expr, sympy.Add):
            return fold("addi", list(expr.args))
        if isinstance(expr, sympy.Mul):
            for arg in expr.args:
                if arg.is_number and not arg.is_integer:
                    raise UnsupportedError(f"the size expression '{expr}' is not integral")
            return fold("muli", list(expr.args))
        if isinstance(expr, sympy.Pow) and expr.exp.is_integer and int(expr.exp) > 0:
            return fold("muli", [expr.base] * int(expr.exp))
        if func_name in ("FloorDiv", "CleanDiv", "IntTrueDiv") and len(expr.args) == 2:
            return fold("floordivsi", list(expr.args))
        if func_name in ("CeilDiv",) and len(expr.args) == 2:
            return fold("ceildivsi", list(expr.args))
        if func_name in ("Mod", "PythonMod") and len(expr.args) == 2:
            # Sizes are non-negative: the remainders agree.
            return fold("remsi", list(expr.args))
        if func_name == "Max":
            return fold("maxsi", list(expr.args))
        if func_name == "Min":
            return fold("minsi", list(expr.args))
        raise UnsupportedError(f"the size expression '{expr}' ({func_name}) is not supported")

    def dynamic_sizes(self, shape):
        """Index operands for the dynamic dimensions of `shape`."""
        return [self.index(s) for s in shape if not is_static(s)]

    def sized(self, shape):
        """` [%a, %b]` for the dynamic sizes of `shape`, or ''."""
        sizes = self.dynamic_sizes(shape)
        return f" [{', '.join(sizes)}]" if sizes else ""

    # -- constants -----------------------------------------------------------

    def scalar(self, value, dtype):
        """A Python number as a rank-0 constant of `dtype`."""
        key = (repr(value), dtype)
        if key in self.scalar_cache:
            return self.scalar_cache[key]
        literal = typed_literal(value, dtype)
        result = self.op((), dtype, f"tensor_program.constant dense<{literal}> : {tensor_type((), dtype)}")
        self.scalar_cache[key] = result
        return result

    def constant(self, tensor, name_hint="const"):
        """A tensor known at compile time: inline when small, else a
        weight in the weights file."""
        tensor = tensor.detach()
        if tensor.device.type != "cpu":
            tensor = tensor.cpu()
        dtype = tensor.dtype
        element_type(dtype, f"constant '{name_hint}'")
        shape = tuple(tensor.shape)
        type_text = tensor_type(shape, dtype)
        if tensor.numel() == 1 or (tensor.numel() > 0 and bool((tensor == tensor.reshape(-1)[0]).all())
                                   and tensor.numel() <= 1 << 20):
            value = tensor.reshape(-1)[0].item() if tensor.numel() else 0
            return self.op(shape, dtype,
                           f"tensor_program.constant dense<{typed_literal(value, dtype)}> : {type_text}")
        if tensor.numel() <= INLINE_ELEMENTS:
            flat = tensor.reshape(-1).tolist()
            body = ", ".join(typed_literal(v, dtype) for v in flat)
            if tensor.dim() != 1:
                # A flat literal reshaped: dense<[...]> needs nesting otherwise.
                flat_type = tensor_type((tensor.numel(),), dtype)
                value = self.op((tensor.numel(),), dtype,
                                f"tensor_program.constant dense<[{body}]> : {flat_type}")
                return self.reshape(value, shape)
            return self.op(shape, dtype, f"tensor_program.constant dense<[{body}]> : {type_text}")
        name = self.weight_name(name_hint)
        self.weights.append((name, tensor.contiguous()))
        return self.op(shape, dtype, f"tensor_program.constant dense_resource<{name}> : {type_text}")

    def weight_name(self, hint):
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in str(hint)) or "w"
        if not (base[0].isalpha() or base[0] == "_"):
            base = "w_" + base
        name, n = base, 1
        while name in self.weight_names:
            n += 1
            name = f"{base}_{n}"
        self.weight_names.add(name)
        return name

    # -- metadata ------------------------------------------------------------

    @staticmethod
    def meta_value(node):
        if "val" in node.meta:
            return node.meta["val"]
        if "example_value" in node.meta:
            return node.meta["example_value"]
        raise UnsupportedError(f"node '{node.name}' has no shape metadata (meta['val'])")

    def meta(self, node, index=None):
        """(shape, dtype) of a tensor node (or of output `index` of a
        multi-output node)."""
        value = self.meta_value(node)
        if index is not None:
            value = value[index]
        if not isinstance(value, torch.Tensor):
            raise UnsupportedError(
                f"node '{node.name}': expected a tensor result, got {type(value).__name__}")
        element_type(value.dtype, f"node '{node.name}'")
        return shape_of(value), value.dtype

    def used_outputs(self, node):
        """The indices of a multi-output node that getitem users read (a
        getitem nothing reads does not count: graphs keep dead ones, such
        as batch norm's unused statistics)."""
        used = set()
        for user in node.users:
            if user.target is operator.getitem:
                if user.users:
                    used.add(user.args[1])
            else:
                return None  # used whole
        return used

    # -- the walk ------------------------------------------------------------

    def run(self):
        placeholders = [n for n in self.graph.nodes if n.op == "placeholder"]
        if len(placeholders) != len(self.bindings):
            raise UnsupportedError(
                f"the graph has {len(placeholders)} inputs, {len(self.bindings)} were bound")
        self.placeholders = dict(zip(placeholders, self.bindings))
        # Tensor arguments first: their dimensions define the size symbols.
        for node, binding in zip(placeholders, self.bindings):
            if binding.kind == "tensor":
                self.bind_argument(node, binding)
        for node, binding in zip(placeholders, self.bindings):
            if binding.kind == "weight":
                self.current = node
                self.env[node] = self.weight(binding)
            elif binding.kind == "value":
                self.env[node] = self.bind_value(node, binding)
        output = None
        for node in self.graph.nodes:
            self.current = node
            if node.op == "placeholder":
                continue
            if node.op == "output":
                output = node
                continue
            if node.op == "get_attr":
                self.env[node] = self.get_attr(node)
                continue
            if node.op != "call_function":
                raise UnsupportedError(f"node '{node.name}': {node.op} nodes are not supported "
                                       "(an ATen-level graph has call_function nodes only)")
            self.env[node] = self.call(node)
        self.current = None
        outputs = output.args[0]
        if self.write_back:
            outputs = self.emit_write_backs(outputs)
        results, structure = self.flatten_output(outputs)
        return self.finish(results, structure)

    def emit_write_backs(self, outputs):
        """Writes the outputs named by self.write_back into their arguments
        (`tensor_program.copy_back`); returns the other outputs, with the
        result attributes of outputs renumbered to match."""
        if not isinstance(outputs, (tuple, list)):
            raise UnsupportedError("write_back needs a graph whose output is a tuple")
        arguments = {binding.position: value for value, binding in self.arguments}
        kept = []
        renumbered = {}
        for index, node in enumerate(outputs):
            if index not in self.write_back:
                renumbered[index] = len(kept)
                kept.append(node)
                continue
            position = self.write_back[index]
            target = arguments.get(position)
            value = self.env.get(node) if isinstance(node, torch.fx.Node) else None
            if target is None:
                raise UnsupportedError(f"output #{index} is written back into input #{position}, "
                                       "which is not a tensor argument of the program")
            if not isinstance(value, Tensor):
                raise UnsupportedError(f"output #{index}, written back into '{target.name}', "
                                       "is not a tensor")
            if value.shape != target.shape or value.dtype != target.dtype:
                raise UnsupportedError(
                    f"output #{index} ({value.type()}) cannot be written back into input "
                    f"#{position} ({target.type()})")
            if value is not target:  # an unchanged state needs no write
                self.emit(f"tensor_program.copy_back {value.name} to {target.name} : "
                          f"{value.type()}")
        for index in self.write_back:
            if not 0 <= index < len(outputs):
                raise UnsupportedError(f"write_back names output #{index}; the graph has "
                                       f"{len(outputs)}")
        moved = {}
        for (kind, key), attributes in self.result_attributes.items():
            if kind == "output":
                if key in self.write_back:
                    raise UnsupportedError(f"output #{key} is written back, it has no result "
                                           "to carry attributes")
                key = renumbered.get(key, key)
            moved[(kind, key)] = attributes
        self.result_attributes = moved
        return type(outputs)(kept)

    def mutate_input(self, target, value):
        """Records that the graph writes `value` into its input `target` (a
        placeholder node): the program returns it as an extra result and
        the runner copies it back (AOTAutograd's functionalized graphs keep
        input mutations as a final copy_)."""
        binding = self.placeholders.get(target) if isinstance(target, torch.fx.Node) else None
        if binding is None:
            raise UnsupportedError("copy_ into a value that is not a graph input (only the "
                                   "inputs of a functionalized graph can be written)")
        if binding.kind != "tensor" or binding.position is None:
            raise UnsupportedError(f"the graph writes its input '{binding.name}', which is "
                                   "frozen into the program")
        if self.mutate_in_place:
            index = next((i for i, (_, b) in enumerate(self.arguments) if b is binding), None)
            argument = self.arguments[index][0] if index is not None else None
            if (argument is not None and binding.position not in self.mutations
                    and index not in self.written and argument.shape == value.shape
                    and argument.dtype == value.dtype):
                if value is not argument:
                    self.emit(f"tensor_program.copy_back {value.name} to {argument.name} : "
                              f"{value.type()}")
                self.written.append(index)
                return
        self.mutations[binding.position] = value

    def bind_argument(self, node, binding):
        shape, dtype = self.meta(node)
        value = Tensor(f"%arg{len(self.arguments)}", shape, dtype)
        for dim, size in enumerate(shape):
            if isinstance(size, sympy.Symbol) and size not in self.symbols:
                self.symbols[size] = (value, dim)
        self.arguments.append((value, binding))
        self.env[node] = value

    def bind_value(self, node, binding):
        value = binding.value
        if isinstance(value, torch.SymInt) or (
                isinstance(self.meta_value_or_none(node), torch.SymInt)):
            size = as_size(self.meta_value_or_none(node) if value is None else value)
            if (isinstance(size, sympy.Symbol) and size not in self.symbols
                    and isinstance(binding.position, int)):
                self.size_inputs.setdefault(size, binding)
            return Size(size)
        return value

    @staticmethod
    def meta_value_or_none(node):
        return node.meta.get("val", node.meta.get("example_value"))

    def weight(self, binding):
        tensor = binding.value
        self.frozen.append((f"weight '{binding.name}'", binding.position, tensor,
                            tensor._version))
        return self.constant(tensor, binding.name)

    def get_attr(self, node):
        owner = self.graph.owning_module
        for part in node.target.split("."):
            owner = getattr(owner, part)
        if isinstance(owner, torch.Tensor):
            return self.constant(owner, node.target)
        raise UnsupportedError(f"node '{node.name}': attribute '{node.target}' of type "
                               f"{type(owner).__name__} is not supported")

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
        if isinstance(argument, torch.SymInt):
            return Size(argument.node.expr)
        return argument

    def call(self, node):
        target = node.target
        name = describe_target(target)
        # Sizes: nodes whose value is a SymInt (sym_size, arithmetic on
        # sizes) are expressions of the size symbols.
        value = self.meta_value_or_none(node)
        if isinstance(value, (torch.SymInt, torch.SymBool, torch.SymFloat)) or (
                isinstance(value, (int, float, bool)) and not isinstance(value, torch.Tensor)
                and target is not operator.getitem):
            self.records.append(OpRecord(node, name, "view", "size arithmetic"))
            if isinstance(value, torch.SymInt):
                return Size(value.node.expr)
            if isinstance(value, torch.SymFloat) and target in _SYMBOLIC_FLOAT_OPS:
                return self.symbolic_float(node, _SYMBOLIC_FLOAT_OPS[target])
            if isinstance(value, (torch.SymBool, torch.SymFloat)):
                raise UnsupportedError(f"node '{node.name}': symbolic {type(value).__name__} "
                                       "values are not supported")
            return value
        handler = lookup(target, self.table)
        if handler is None:
            return self.unsupported(node, name, f"'{name}' is not in the op table")
        args = self.load(node.args)
        kwargs = self.load(node.kwargs)
        start = len(self.lines)
        try:
            result = handler(self, node, *args, **kwargs)
        except UnsupportedError as error:
            del self.lines[start:]
            return self.unsupported(node, name, str(error))
        except (TypeError, ValueError, IndexError, KeyError) as error:
            del self.lines[start:]
            return self.unsupported(node, name, f"unexpected arguments ({type(error).__name__}: "
                                                f"{error})")
        status = "view" if len(self.lines) == start else "compiled"
        produced = []
        for line in self.lines[start:]:
            op = line.split("=", 1)[-1].strip().split(" ", 1)[0]
            if op.startswith("tensor_program.") and op not in produced:
                produced.append(op)
        if status == "compiled" and not produced:
            status = "view"  # only size arithmetic
        self.records.append(OpRecord(node, name, status, ", ".join(produced)))
        return result

    def unsupported(self, node, name, reason):
        """An op the table cannot express: a fallback when the caller
        allows one, else an error naming the op and the node."""
        if self.fallback is not None:
            result = self.fallback(self, node, reason)
            self.records.append(OpRecord(node, describe_target(node.target), "fallback", reason))
            self.fallbacks.append((node, reason))
            return result
        self.records.append(OpRecord(node, name, "unsupported", reason))
        raise UnsupportedError(f"unsupported operation '{name}' at node '{node.name}': {reason}")

    def flatten_output(self, value):
        if isinstance(value, torch.fx.Node):
            binding = self.placeholders.get(value)
            if (self.pass_inputs_through and binding is not None and binding.kind == "tensor"
                    and isinstance(binding.position, int)):
                return [], ("arg", binding.position)
            # A size the graph takes and returns as it is (Dynamo's graphs
            # pass SymInts on): the caller's value.
            if (binding is not None and binding.kind == "value"
                    and isinstance(binding.position, int)):
                return [], ("arg", binding.position)
            result = self.env[value]
            if isinstance(result, Tensor):
                return [result], ("result", 0)
            if isinstance(result, Size):
                return [], self.size_output(value.name, result.expr)
            return [], ("const", result)
        if isinstance(value, (tuple, list)):
            results, parts = [], []
            for item in value:
                flat, structure = self.flatten_output(item)
                parts.append(self.shift(structure, len(results)))
                results.extend(flat)
            return results, ("seq", type(value), parts)
        if value is None or isinstance(value, (int, float, bool)):
            return [], ("const", value)
        raise UnsupportedError(f"graph output of type {type(value).__name__} is not supported")

    def size_output(self, name, expr):
        """The structure of an output that is a symbolic size (a forward
        graph saves `s0 * s1` for its backward): computed by the caller from
        the sizes of the arguments its symbols are dimensions of (or the
        size arguments themselves), not by the program."""
        expr = sympy.sympify(expr)
        if expr.is_number:
            return ("const", int(expr))
        symbols = sorted(expr.free_symbols, key=str)
        sources = []
        for symbol in symbols:
            bound = self.symbols.get(symbol)
            binding = next((b for v, b in self.arguments if bound and v is bound[0]), None)
            if binding is not None and isinstance(binding.position, int):
                sources.append((binding.position, bound[1]))
            elif binding is not None and is_size_position(binding.position):
                sources.append((binding.position[1], None))
            else:
                raise UnsupportedError(f"output '{name}' is the symbolic size {expr}, whose "
                                       f"'{symbol}' is no size of an argument")
        try:
            function = sympy.lambdify(symbols, expr, modules=[{"floor": _floor}, "math"])
            function(*([1] * len(symbols)))
        except Exception as error:  # a size function lambdify cannot print
            raise UnsupportedError(f"output '{name}' is the symbolic size {expr}, which "
                                   f"cannot be computed from its symbols: {error}") from None
        return ("size", function, tuple(sources))

    def shift(self, structure, offset):
        if structure[0] == "result":
            return ("result", structure[1] + offset)
        if structure[0] in ("const", "arg", "size"):
            return structure
        return ("seq", structure[1], [self.shift(p, offset) for p in structure[2]])

    def finish(self, results, structure):
        args = []
        for value, binding in self.arguments:
            attributes = [f'tensor_program.name = "{binding.name}"']
            if isinstance(binding.position, tuple) and binding.position[0] == "weight":
                attributes.append("tensor_program.weight")
            attributes += self.argument_attributes.get(binding.position, [])
            symbols = [str(s) if isinstance(s, sympy.Symbol) else "" for s in value.shape]
            if any(symbols):
                attributes.append("tensor_program.symbols = [" +
                                  ", ".join(f'"{s}"' for s in symbols) + "]")
            args.append(f"{value.name}: {value.type()} {{{', '.join(attributes)}}}")
        body = "\n".join(self.lines)
        func_attributes = []
        ranges = []
        for symbol in self.symbols:
            low, high = self.symbol_ranges.get(symbol, (None, None))
            if low is not None or high is not None:
                low = 0 if low is None else int(low)
                high = -1 if high is None else int(high)
                ranges.append(f"{symbol} = array<i64: {low}, {high}>")
        if ranges:
            func_attributes.append("tensor_program.symbol_ranges = {" + ", ".join(ranges) + "}")
        attr_text = f" attributes {{{', '.join(func_attributes)}}}" if func_attributes else ""
        # The inputs' new values follow the graph's outputs.
        mutations = [(position, len(results) + i) for i, position in enumerate(self.mutations)]
        result_attributes = self.result_attribute_lists(structure, mutations)
        results = results + list(self.mutations.values())
        result_types = ", ".join(v.type() for v in results)
        signature = ", ".join(
            v.type() + (f" {{{', '.join(result_attributes[i])}}}" if result_attributes.get(i) else "")
            for i, v in enumerate(results))
        names = ", ".join(v.name for v in results)
        ret = f"  return {names} : {result_types}" if results else "  return"
        text = (f"func.func @{self.function_name}({', '.join(args)}) -> ({signature}){attr_text} {{\n"
                f"{body}\n{ret}\n}}\n")
        positions = [binding.position for _, binding in self.arguments]
        return ImportedProgram(text, self.weights, positions, structure, len(results),
                               self.frozen, self.records, self.fallbacks, mutations,
                               self.written)

    def result_attribute_lists(self, structure, mutations):
        """self.result_attributes by result index."""
        lists = {}
        written = dict(mutations)
        for (kind, key), attributes in self.result_attributes.items():
            if kind == "mutation":
                if key not in written:
                    raise UnsupportedError(f"input #{key} is not written by the graph")
                index = written[key]
            else:
                parts = structure[2] if structure[0] == "seq" else [structure]
                part = parts[key] if 0 <= key < len(parts) else None
                if part is None or part[0] != "result":
                    raise UnsupportedError(f"graph output #{key} is not a tensor")
                index = part[1]
            lists.setdefault(index, []).extend(attributes)
        return lists

    # -- building blocks for the handlers -------------------------------------

    def cast(self, value, dtype):
        if value.dtype == dtype:
            return value
        element_type(dtype, "cast")
        return self.op(value.shape, dtype,
                       f"tensor_program.cast {value.name} : {value.type()} to "
                       f"{tensor_type(value.shape, dtype)}")

    def symbolic_float(self, node, opname):
        """A SymFloat of the graph (batch norm's unbiased correction
        n / (n - 1) over symbolic sizes) as a rank-0 f64 tensor computed at
        run time from its operands: sizes from the inputs' dimensions,
        numbers as constants, other SymFloats as their tensors. Ops that
        take it as a number cast it to their dtype, as PyTorch does with a
        Python float."""
        operands = [self.as_tensor(self.load(a), torch.float64) for a in node.args]
        if opname is None:  # sym_float: the operand as it is
            return operands[0]
        return self.nary(opname, operands, (), torch.float64)

    def as_tensor(self, value, dtype):
        """A tensor operand of `dtype`: tensors are cast, numbers become
        rank-0 constants."""
        if isinstance(value, Tensor):
            return self.cast(value, dtype)
        if isinstance(value, (bool, int, float)):
            return self.scalar(value, dtype)
        if isinstance(value, Size):
            # A symbolic size used as a number: a rank-0 tensor from index.
            index = self.index(value)
            return self.from_index(index, dtype)
        raise UnsupportedError(f"expected a tensor or a number, got {type(value).__name__}")

    def from_index(self, index_name, dtype):
        """A rank-0 tensor of `dtype` holding an index value."""
        element_type(dtype, "size")
        return self.op((), dtype, f"tensor_program.from_index {index_name} : "
                                  f"{tensor_type((), dtype)}")

    def unary(self, opname, value, shape=None, dtype=None, attrs=""):
        dtype = dtype or value.dtype
        value = self.cast(value, dtype)
        return self.op(value.shape, dtype,
                       f"tensor_program.{opname} {value.name}{attrs} : {value.type()}")

    def nary(self, opname, operands, shape, dtype, prefix=""):
        """An op written `op [prefix,] %a, %b : (types) -> type`."""
        names = ", ".join(v.name for v in operands)
        types = ", ".join(v.type() for v in operands)
        return self.op(shape, dtype,
                       f"tensor_program.{opname} {prefix}{names} : ({types}) -> "
                       f"{tensor_type(shape, dtype)}")

    def reshape(self, value, shape):
        shape = tuple(shape)
        if shape == value.shape and all(is_static(s) for s in shape):
            return value
        if shape == value.shape:
            return value
        return self.op(shape, value.dtype,
                       f"tensor_program.reshape {value.name}{self.sized(shape)} : "
                       f"{value.type()} -> {tensor_type(shape, value.dtype)}")

    def broadcast_to(self, value, shape):
        shape = tuple(shape)
        if shape == value.shape:
            return value
        return self.op(shape, value.dtype,
                       f"tensor_program.broadcast {value.name}{self.sized(shape)} : "
                       f"{value.type()} -> {tensor_type(shape, value.dtype)}")

    def permute(self, value, permutation):
        permutation = [int(p) for p in permutation]
        if permutation == list(range(value.rank)):
            return value
        shape = tuple(value.shape[p] for p in permutation)
        return self.op(shape, value.dtype,
                       f"tensor_program.permute {value.name} [{', '.join(map(str, permutation))}]"
                       f" : {value.type()} -> {tensor_type(shape, value.dtype)}")

    def slice(self, value, dim, start, end, step, shape):
        """aten.slice with non-negative `start`/`end` already clamped where
        the size is static."""
        if start == 0 and step == 1 and shape == value.shape:
            return value
        bounds = f"dim {dim} start {start} end {end}"
        if step != 1:
            bounds += f" step {step}"
        # A slice of a dynamic dimension has a dynamic size in the dialect,
        # even where PyTorch knows it (x[0:1]): reshape to what it knows.
        sliced = list(shape)
        if not is_static(value.shape[dim]) and is_static(shape[dim]) and end > start:
            sliced[dim] = sympy.Symbol("_sliced")
        result = self.op(tuple(sliced), value.dtype,
                         f"tensor_program.slice {value.name} {bounds} : {value.type()} -> "
                         f"{tensor_type(sliced, value.dtype)}")
        return self.reshape(result, shape) if tuple(sliced) != tuple(shape) else result

    def size_carrier_argument(self, symbol):
        """A function argument whose dimension is the size `symbol` that
        the caller passes as a number (tensor_program functions take
        tensors only): tensor<?xi8>, the caller's size_carrier."""
        binding = self.size_inputs[symbol]
        carrier = Tensor(f"%arg{len(self.arguments)}", (symbol,), torch.int8)
        self.arguments.append((carrier, InputBinding(
            "tensor", f"size '{binding.name}'", position=(SIZE, binding.position))))
        self.symbols[symbol] = (carrier, 0)

    def uniform(self, shape, dtype):
        """Uniform random numbers in [0, 1) of `shape`: tensor_program.uniform
        of the program's seed argument (created on first use) and a stream
        of its own."""
        if self.seed is None:
            self.seed = Tensor(f"%arg{len(self.arguments)}", (), torch.int64)
            self.arguments.append((self.seed, InputBinding("tensor", "random_seed",
                                                           position=SEED)))
        stream = self.streams
        self.streams += 1
        return self.op(shape, dtype,
                       f"tensor_program.uniform {self.seed.name} stream {stream}"
                       f"{self.sized(shape)} : tensor<i64> -> {tensor_type(shape, dtype)}")

    def full(self, shape, dtype, value):
        if isinstance(value, bool) or dtype == torch.bool:
            value = 1.0 if value else 0.0
        value = float(value)
        if value != value or value in (float("inf"), float("-inf")):
            scalar = self.scalar(value, dtype)
            return self.broadcast_to(scalar, shape)
        from .values import float_literal
        return self.op(shape, dtype,
                       f"tensor_program.full {float_literal(value)}{self.sized(shape)} : "
                       f"{tensor_type(shape, dtype)}")
