"""PyTorch's functional collectives (`torch.ops._c10d_functional`, what
Dynamo, torch.export and make_fx trace `torch.distributed` code into) as
collectives of the compiled graph.

Each op becomes `tensor_program.extern "_c10d_functional::<op>"` with its
group name, reduction and group size as arguments; the compiler turns the
pair of a collective and its `wait_tensor` into `wrapper.collective_start`
and `wrapper.collective_wait` (docs/Dialects/Wrapper.md), which the runtime
runs on the process group of that name (wrapper_mlir._collectives).
"""

import torch

from .registry import register
from .values import Tensor, UnsupportedError, element_type, shape_of, tensor_type

REDUCTIONS = ("sum", "avg", "product", "min", "max")


def _string(value, what):
    if not isinstance(value, str) or not value:
        raise UnsupportedError(f"{what} must be a name (a string), got {value!r}")
    return value


def _quote(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _collective(importer, node, name, tensor, args, result_index=None):
    """Emits collective `name` on `tensor` with the extern arguments
    `args` (name -> MLIR attribute text); the result's shape and dtype are
    the node's."""
    if not isinstance(tensor, Tensor):
        raise UnsupportedError(f"{name} takes a tensor, got {type(tensor).__name__}")
    value = importer.meta_value(node)
    if result_index is not None:
        value = value[result_index]
    shape, dtype = shape_of(value), value.dtype
    element_type(dtype, f"result of node '{node.name}'")
    result = importer.fresh()
    attributes = ", ".join(f"{key} = {text}" for key, text in args.items())
    importer.emit(f'{result} = tensor_program.extern "_c10d_functional::{name}"({tensor.name})'
                  f" args {{{attributes}}} : ({tensor.type()}) -> {tensor_type(shape, dtype)}")
    return Tensor(result, shape, dtype)


def _reduction(reduce_op):
    reduce_op = _string(reduce_op, "the reduction").lower()
    if reduce_op not in REDUCTIONS:
        raise UnsupportedError(f"reduction '{reduce_op}' (supported: {', '.join(REDUCTIONS)})")
    return reduce_op


def _register(name):
    packet = getattr(getattr(torch.ops, "_c10d_functional", None), name, None)
    if packet is None:  # a torch without distributed support
        return lambda handler: handler
    return register(packet)


def _group_size(value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise UnsupportedError(f"the group size must be a positive integer, got {value!r}")
    return value


def _arguments(group_name, reduce_op=None, group_size=None):
    """The extern arguments of a collective (name -> attribute text)."""
    args = {"group_name": f'"{_quote(_string(group_name, "the group"))}"'}
    if group_size is not None:
        args["group_size"] = f"{_group_size(group_size)} : i64"
    if reduce_op is not None:
        args["reduce_op"] = f'"{_reduction(reduce_op)}"'
    return args


@_register("all_reduce")
def all_reduce(importer, node, tensor, reduce_op, group_name):
    return _collective(importer, node, "all_reduce", tensor,
                       _arguments(group_name, reduce_op=reduce_op))


@_register("all_reduce_coalesced")
def all_reduce_coalesced(importer, node, tensors, reduce_op, group_name):
    # One collective per tensor; the bucketing pass merges them again.
    args = _arguments(group_name, reduce_op=reduce_op)
    return tuple(_collective(importer, node, "all_reduce", tensor, args, result_index=i)
                 for i, tensor in enumerate(tensors))


@_register("all_gather_into_tensor")
def all_gather_into_tensor(importer, node, tensor, group_size, group_name):
    return _collective(importer, node, "all_gather_into_tensor", tensor,
                       _arguments(group_name, group_size=group_size))


@_register("reduce_scatter_tensor")
def reduce_scatter_tensor(importer, node, tensor, reduce_op, group_size, group_name):
    return _collective(importer, node, "reduce_scatter_tensor", tensor,
                       _arguments(group_name, reduce_op=reduce_op, group_size=group_size))


@_register("wait_tensor")
def wait_tensor(importer, node, tensor):
    if not isinstance(tensor, Tensor):
        raise UnsupportedError(f"wait_tensor takes a tensor, got {type(tensor).__name__}")
    result = importer.fresh()
    importer.emit(f'{result} = tensor_program.extern "_c10d_functional::wait_tensor"'
                  f"({tensor.name}) : ({tensor.type()}) -> {tensor.type()}")
    return Tensor(result, tensor.shape, tensor.dtype)
