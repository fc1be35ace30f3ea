"""Per-op fallback: an op outside the table runs in PyTorch."""

from .values import UnsupportedError


def fallback_node(importer, node, reason):
    raise UnsupportedError(reason)
