"""scaled_dot_product_attention's fused kernels as their math, forward and
backward. PyTorch's dispatcher picks a fused kernel (flash on the CPU;
flash, memory-efficient or cuDNN on a GPU) below the decompositions'
reach, and autograd differentiates that kernel, so a training graph holds
the kernels' backward ops. Both directions become matmuls, a softmax and
elementwise ops the importer lowers; the backward recomputes the
probabilities from the forward's log-sum-exp (the flash-attention
backward, without tiling). Grouped-query attention (fewer key and value
heads than query heads) expands the key and value heads in the math and
sums their gradients per group. Dropout inside attention is not decomposed
(the kernel keeps its own random stream): those calls run in PyTorch."""

import math

import torch

aten = torch.ops.aten


def _scores(query, key, bias, is_causal, scale):
    scores = torch.matmul(query, key.transpose(-2, -1)) * scale
    if is_causal:
        rows, columns = scores.shape[-2], scores.shape[-1]
        keep = torch.ones(rows, columns, dtype=torch.bool, device=query.device).tril()
        scores = scores.masked_fill(keep.logical_not(), float("-inf"))
    if bias is not None:
        scores = scores.masked_fill(bias.logical_not(), float("-inf")) \
            if bias.dtype == torch.bool else scores + bias
    return scores


def _scale(query, scale):
    return 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale


def _expand_heads(query, tensor):
    """A key or value with fewer heads than the query (grouped-query
    attention): each of its heads repeated for its group of query heads,
    as PyTorch's repeat_interleave over the head dimension does (query
    head h reads key head h // group), by expand and reshape."""
    heads, shared = query.shape[-3], tensor.shape[-3]
    if heads == shared:
        return tensor
    shape = list(tensor.shape)
    expanded = tensor.unsqueeze(-3).expand(*shape[:-2], heads // shared, *shape[-2:])
    return expanded.reshape(*shape[:-3], heads, *shape[-2:])


def _reduce_heads(grad, heads):
    """The gradient of _expand_heads: `grad`'s heads summed per group, to
    `heads` heads."""
    if grad.shape[-3] == heads:
        return grad
    return grad.unflatten(-3, (heads, grad.shape[-3] // heads)).sum(-3)


def attention(query, key, value, bias, is_causal, scale):
    """softmax(q k^T * scale + bias [causal]) v and its log-sum-exp; the
    probabilities are exp(scores - lse), so the log-sum-exp's reductions
    are the softmax's."""
    key, value = _expand_heads(query, key), _expand_heads(query, value)
    scores = _scores(query, key, bias, is_causal, _scale(query, scale))
    lse = torch.logsumexp(scores, -1, keepdim=True)
    return torch.matmul(torch.exp(scores - lse), value), lse.squeeze(-1)


def attention_backward(grad_out, query, key, value, out, logsumexp, bias, is_causal, scale):
    """(grad_query, grad_key, grad_value, grad_scores) of attention(): the
    probabilities P = exp(scores - lse), dV = P^T dO, dS = P * (dO V^T -
    rowsum(dO * O)), dQ = dS K scale, dK = dS^T Q scale; with fewer key
    heads (grouped-query attention) dK and dV summed over each group."""
    heads = key.shape[-3]
    key, value = _expand_heads(query, key), _expand_heads(query, value)
    scale = _scale(query, scale)
    scores = _scores(query, key, bias, is_causal, scale)
    rows = scores.shape[-2]
    # The log-sum-exp may be f32 for 16-bit inputs (the kernels'): the
    # exponent is taken in the wider type and the probabilities rounded.
    lse = logsumexp[..., :rows].unsqueeze(-1)
    probs = torch.exp(scores.to(lse.dtype) - lse).to(scores.dtype) \
        if lse.dtype != scores.dtype else torch.exp(scores - lse)
    grad_value = torch.matmul(probs.transpose(-2, -1), grad_out)
    grad_probs = torch.matmul(grad_out, value.transpose(-2, -1))
    delta = (grad_out * out).sum(-1, keepdim=True)
    grad_scores = probs * (grad_probs - delta)
    grad_query = torch.matmul(grad_scores, key) * scale
    grad_key = torch.matmul(grad_scores.transpose(-2, -1), query) * scale
    return (grad_query, _reduce_heads(grad_key, heads), _reduce_heads(grad_value, heads),
            grad_scores)


def _same_heads(query, key):
    """Whether the key's heads divide the query's (grouped-query attention
    included); other head counts are left to PyTorch, which refuses them."""
    return key.shape[-3] > 0 and query.shape[-3] % key.shape[-3] == 0


def _seeds(query):
    seed = torch.zeros((), dtype=torch.int64, device=query.device)
    return seed, seed


def _flash_cpu(query, key, value, dropout_p=0.0, is_causal=False, *, attn_mask=None,
               scale=None):
    # PyTorch's own decomposition returns the probabilities where the
    # kernel returns the log-sum-exp, which its backward reads.
    if dropout_p != 0.0 or not _same_heads(query, key):
        return NotImplemented
    out, lse = attention(query, key, value, attn_mask, is_causal, scale)
    # The kernel's output is laid out [N, L, H, E] (strides of a permuted
    # tensor): the views that follow it in the graph rely on that.
    out = out.permute(2, 0, 1, 3).contiguous().permute(1, 2, 0, 3)
    return out, lse


def _flash_cpu_backward(grad_out, query, key, value, out, logsumexp, dropout_p, is_causal, *,
                        attn_mask=None, scale=None):
    if dropout_p != 0.0 or not _same_heads(query, key):
        return NotImplemented
    return attention_backward(grad_out, query, key, value, out, logsumexp, attn_mask,
                              is_causal, scale)[:3]


def _efficient(query, key, value, attn_bias, compute_log_sumexp, dropout_p=0.0,
               is_causal=False, *, scale=None):
    if dropout_p != 0.0 or not _same_heads(query, key):
        return NotImplemented
    out, lse = attention(query, key, value, attn_bias, is_causal, scale)
    # The kernel's log-sum-exp has its rows rounded up to a multiple of 32
    # (none without compute_log_sumexp; ROCm's: exactly); the backward
    # reads the first rows only.
    rows = query.shape[-2]
    padded = rows if torch.version.hip else (rows + 31) // 32 * 32
    if not compute_log_sumexp:
        lse = lse[..., :0]
    elif padded != rows:  # zeros joined on (a pad of a symbolic width is no pad op)
        lse = torch.cat([lse, lse.new_zeros(*lse.shape[:-1], padded - rows)], -1)
    return (out, lse) + _seeds(query)


def _efficient_backward(grad_out, query, key, value, attn_bias, out, logsumexp, philox_seed,
                        philox_offset, dropout_p, grad_input_mask, is_causal=False, *,
                        scale=None):
    if dropout_p != 0.0 or not _same_heads(query, key):
        return NotImplemented
    grad_query, grad_key, grad_value, grad_scores = attention_backward(
        grad_out, query, key, value, out, logsumexp, attn_bias, is_causal, scale)
    grad_bias = None
    if attn_bias is not None and grad_input_mask[3]:
        grad_bias = _sum_to(grad_scores, attn_bias.shape)
    return grad_query, grad_key, grad_value, grad_bias


def _sum_to(value, shape):
    """`value` summed over the dimensions `shape` broadcasts."""
    lead = value.dim() - len(shape)
    dims = list(range(lead)) + [lead + d for d, size in enumerate(shape)
                                if size == 1 and value.shape[lead + d] != 1]
    return value.sum(dims, keepdim=True).reshape(shape) if dims else value


def _flash_outputs(query, key, out, lse):
    """The nine results of the flash and cuDNN kernels: output, log-sum-exp,
    no sequence offsets, the sequence lengths, RNG state, no debug mask."""
    return (out, lse, None, None, query.shape[-2], key.shape[-2]) + _seeds(query) + (
        torch.empty(0, dtype=query.dtype, device=query.device),)


def _flash(query, key, value, dropout_p=0.0, is_causal=False, return_debug_mask=False, *,
           scale=None):
    if dropout_p != 0.0 or return_debug_mask or not _same_heads(query, key):
        return NotImplemented
    return _flash_outputs(query, key, *attention(query, key, value, None, is_causal, scale))


def _flash_backward(grad_out, query, key, value, out, logsumexp, cum_seq_q, cum_seq_k, max_q,
                    max_k, dropout_p, is_causal, philox_seed, philox_offset, *, scale=None):
    if dropout_p != 0.0 or not _same_heads(query, key):
        return NotImplemented
    return attention_backward(grad_out, query, key, value, out, logsumexp, None, is_causal,
                              scale)[:3]


def _cudnn(query, key, value, attn_bias, compute_log_sumexp, dropout_p=0.0, is_causal=False,
           return_debug_mask=False, *, scale=None):
    if dropout_p != 0.0 or return_debug_mask or not _same_heads(query, key):
        return NotImplemented
    return _flash_outputs(query, key, *attention(query, key, value, attn_bias, is_causal, scale))


def _cudnn_backward(grad_out, query, key, value, out, logsumexp, philox_seed, philox_offset,
                    attn_bias, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal, *,
                    scale=None):
    if dropout_p != 0.0 or not _same_heads(query, key):
        return NotImplemented
    return attention_backward(grad_out, query, key, value, out, logsumexp, attn_bias, is_causal,
                              scale)[:3]


_DECOMPOSED = {
    "_scaled_dot_product_flash_attention_for_cpu": _flash_cpu,
    "_scaled_dot_product_flash_attention_for_cpu_backward": _flash_cpu_backward,
    "_scaled_dot_product_efficient_attention": _efficient,
    "_scaled_dot_product_efficient_attention_backward": _efficient_backward,
    "_scaled_dot_product_flash_attention": _flash,
    "_scaled_dot_product_flash_attention_backward": _flash_backward,
    "_scaled_dot_product_cudnn_attention": _cudnn,
    "_scaled_dot_product_cudnn_attention_backward": _cudnn_backward,
}


def decompositions():
    """{op: decomposition} of the fused attention kernels this torch has."""
    table = {}
    for name, decomposition in _DECOMPOSED.items():
        packet = getattr(aten, name, None)
        if packet is not None:
            table[packet.default] = decomposition
    return table
