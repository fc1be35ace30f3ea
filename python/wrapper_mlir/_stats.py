"""Counters of what the torch.compile backend did: graphs compiled by kind,
graphs and ops that run in PyTorch instead (by reason), seconds spent
compiling. Read with `wrapper_mlir.stats()`, cleared with
`wrapper_mlir.reset_stats()`; thread-safe."""

import collections
import threading

# Graph kinds: "inference" (no gradient needed), "forward" and "backward"
# (the two halves of a training graph AOTAutograd partitions).
KINDS = ("inference", "forward", "backward")

_lock = threading.Lock()
_compiled = collections.Counter()
_graph_fallbacks = collections.Counter()
_op_fallbacks = collections.Counter()
_seconds = [0.0]


def record_compiled(kind, seconds, op_fallbacks=()):
    """A graph of `kind` compiled in `seconds`; `op_fallbacks` are the
    (op name, reason) pairs of its nodes that run in PyTorch."""
    assert kind in KINDS, kind
    with _lock:
        _compiled[kind] += 1
        _seconds[0] += seconds
        for op, reason in op_fallbacks:
            _op_fallbacks[f"{op}: {reason}"] += 1


def record_graph_fallback(kind, reason):
    """A whole graph of `kind` runs in PyTorch because of `reason`."""
    assert kind in KINDS, kind
    with _lock:
        _graph_fallbacks[f"{kind}: {reason}"] += 1


def stats():
    """A snapshot: {"compiled": {kind: count}, "graph_fallbacks": {reason:
    count}, "op_fallbacks": {"op: reason": count}, "compile_seconds": s}."""
    with _lock:
        return {
            "compiled": {kind: _compiled[kind] for kind in KINDS},
            "graph_fallbacks": dict(_graph_fallbacks),
            "op_fallbacks": dict(_op_fallbacks),
            "compile_seconds": _seconds[0],
        }


def reset_stats():
    with _lock:
        _compiled.clear()
        _graph_fallbacks.clear()
        _op_fallbacks.clear()
        _seconds[0] = 0.0
