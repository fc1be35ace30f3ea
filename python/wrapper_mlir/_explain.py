"""wrapper_mlir.explain: what the compiler makes of a model, without
compiling it.

    report = wrapper_mlir.explain(model, [x])                 # torch.export
    report = wrapper_mlir.explain(model, [x], mode="dynamo")  # torch.compile's graphs
    print(report)            # per graph: each ATen op, what it became, fallbacks
    report.fallbacks         # [(graph index, op, node, reason)]

As torch._dynamo.explain does for graph breaks, this lists per graph the
core ATen ops, the tensor_program ops each one became ("view" when it only
renames a value, "fallback" when it would run in PyTorch, with the reason),
so that a model's coverage is known before compiling it.
"""

import collections

import torch

from .importer import UnsupportedError, decomposition_table, export_module, import_exported
from .importer.core import Importer
from .importer.registry import TABLE


class GraphReport:
    """One graph: its op records (importer.core.OpRecord) and the error that
    stopped its import, if any."""

    def __init__(self, records, error=None, text=None):
        self.records = records
        self.error = error
        self.text = text

    @property
    def fallbacks(self):
        return [r for r in self.records if r.status in ("fallback", "unsupported")]

    def counts(self):
        """{ATen op: {status: count}}."""
        table = collections.defaultdict(collections.Counter)
        for record in self.records:
            table[record.target][record.status] += 1
        return table


class Explanation:
    """What explain() found, graph by graph."""

    def __init__(self, graphs):
        self.graphs = graphs

    @property
    def fallbacks(self):
        return [(index, r.target, r.node.name, r.detail) for index, graph in enumerate(self.graphs)
                for r in graph.fallbacks]

    def __str__(self):
        lines = []
        total = sum(len(g.records) for g in self.graphs)
        lines.append(f"{len(self.graphs)} graph(s), {total} ATen nodes, "
                     f"{len(self.fallbacks)} would run in PyTorch")
        for index, graph in enumerate(self.graphs):
            lines.append(f"graph {index}:")
            if graph.error:
                lines.append(f"  not importable: {graph.error}")
            produced = collections.defaultdict(collections.Counter)
            for record in graph.records:
                if record.status == "compiled":
                    for op in record.detail.split(", "):
                        produced[record.target][op.replace("tensor_program.", "")] += 1
            for target, statuses in sorted(graph.counts().items()):
                parts = []
                for status, count in sorted(statuses.items()):
                    if status == "compiled":
                        made = ", ".join(f"{op}" for op in sorted(produced[target]))
                        parts.append(f"{count} compiled ({made})")
                    else:
                        parts.append(f"{count} {status}")
                lines.append(f"  {target:48} {'; '.join(parts)}")
            for record in graph.fallbacks:
                lines.append(f"  fallback: {record.target} at node '{record.node.name}': "
                             f"{record.detail}")
        return "\n".join(lines)


def _recording_fallback(importer, node, reason):
    from .importer.fallback import fallback_node

    return fallback_node(importer, node, reason)


def explain(model, example_inputs, example_kwargs=None, *, mode="export", dynamic_batch=False):
    """Explains how `model` would be compiled: through torch.export
    (`mode="export"`, as wrapper_mlir.compile does) or through Dynamo and
    AOTAutograd (`mode="dynamo"`, as torch.compile(backend="wrapper")
    does, one report per graph Dynamo makes). Nothing is compiled."""
    if mode == "export":
        try:
            program = export_module(model, tuple(example_inputs), example_kwargs,
                                    dynamic_batch=dynamic_batch)
        except UnsupportedError as error:
            return Explanation([GraphReport([], error=str(error))])
        return Explanation([_import(lambda fallback: import_exported(program, fallback=fallback))])
    if mode != "dynamo":
        raise ValueError(f"mode must be 'export' or 'dynamo', got {mode!r}")
    from torch._dynamo.backends.common import aot_autograd
    from torch._subclasses.fake_tensor import unset_fake_temporarily

    from ._torch import _graph_bindings, _is_weight, _shape_env_ranges

    graphs = []

    def backend(graph_module, inputs):
        inputs = list(inputs)
        weights = {i for i, v in enumerate(inputs)
                   if isinstance(v, torch.Tensor) and _is_weight(graph_module, i, v)}

        def forward(fw_graph, fw_inputs):
            with unset_fake_temporarily():
                bindings = _graph_bindings(fw_graph, inputs, weights)
                graphs.append(_import(lambda fallback: Importer(
                    fw_graph.graph, bindings, table=TABLE, fallback=fallback,
                    symbol_ranges=_shape_env_ranges(fw_inputs)).run()))
            return fw_graph.forward

        return aot_autograd(fw_compiler=forward, decompositions=decomposition_table())(
            graph_module, inputs)

    torch._dynamo.reset()
    compiled = torch.compile(model, backend=backend)
    with torch.no_grad():
        compiled(*example_inputs, **(example_kwargs or {}))
    torch._dynamo.reset()
    return Explanation(graphs)


def _import(run):
    try:
        imported = run(_recording_fallback)
        return GraphReport(imported.records, text=imported.text)
    except UnsupportedError as error:
        return GraphReport([], error=str(error))
