"""The op table: core ATen ops (OpOverloads, or whole OpOverloadPackets)
to the handlers that express them in tensor_program.

A handler is called as `handler(importer, node, *args, **kwargs)` with the
node's arguments loaded (nodes replaced by imported Tensors, Sizes or
Python values) and returns the node's value: a Tensor, a tuple of Tensors
(multi-output ops), a Size or a Python value. It raises UnsupportedError
for overloads or arguments it does not handle; the importer then falls back
(or refuses) for that node alone.

Ops that only exist once some part of torch is imported (Inductor's prims,
which PyTorch's optimizer decompositions use) are registered by name
("prims.fma.default").
"""

import torch

TABLE = {}

aten = torch.ops.aten


def register(*targets):
    def decorate(handler):
        for target in targets:
            TABLE[target] = handler
        return handler

    return decorate


def lookup(target, table=None):
    """The handler of `target` in `table` (the op table by default): by
    overload, by its packet, or by name."""
    table = TABLE if table is None else table
    handler = table.get(target)
    if handler is None and isinstance(target, torch._ops.OpOverload):
        handler = table.get(target.overloadpacket) or table.get(
            f"{target.namespace}.{target._opname}.{target._overloadname}")
    return handler


def supported_ops():
    """The names of the ops in the table (packets as `aten.add`)."""
    names = []
    for target in TABLE:
        if isinstance(target, torch._ops.OpOverload):
            names.append(f"{target.namespace}.{target._opname}.{target._overloadname}")
        elif isinstance(target, torch._ops.OpOverloadPacket):
            names.append(f"{target._qualified_op_name.replace('::', '.')}")
        elif isinstance(target, str):
            names.append(target)
        else:
            names.append(getattr(target, "__name__", str(target)))
    return sorted(names)
