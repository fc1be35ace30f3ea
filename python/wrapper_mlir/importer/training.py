"""Decompositions of the ops that training graphs (AOTAutograd's joint
forward and backward) hold beyond core ATen: PyTorch's own where it has
one, ours where it has none or where its own needs a scatter
(convolution_backward as convolutions, the average-pool backward as a
transposed depthwise convolution, the max-pool backward as gathers). They
run while AOTAutograd traces, on FakeTensors, so they only build ATen ops
the importer takes."""

import itertools
import math

import torch

aten = torch.ops.aten

# Ops whose decomposition in torch._decomp's full table (not the core ATen
# one) is taken: training-mode batch norm (batch statistics, the running
# statistics' new values as outputs).
TORCH_DECOMPOSED = (
    aten._native_batch_norm_legit_functional.default,
)


def _direct_weight_gradient(input, grad_output, weight_shape, stride, padding, dilation, groups):
    """d loss / d weight of a direct convolution, as one convolution over
    the batch: the input's channels (per group) become the batch, the batch
    becomes the channels, the output gradient is the kernel, and stride and
    dilation trade places. Positions past the kernel (left by a stride that
    does not divide the padded input) are cut off."""
    batch = input.shape[0]
    spatial = input.dim() - 2
    cin_g = weight_shape[1]
    cout = weight_shape[0]
    cout_g = cout // groups
    rest = list(range(3, 3 + spatial))
    # [N, G*Cin_g, ...] -> [Cin_g, G*N, ...]
    x = input.reshape(batch, groups, cin_g, *input.shape[2:]).permute(2, 1, 0, *rest)
    x = x.reshape(cin_g, groups * batch, *input.shape[2:])
    # [N, G*Cout_g, ...] -> [G*Cout_g, N, ...]
    g = grad_output.reshape(batch, groups, cout_g, *grad_output.shape[2:])
    g = g.permute(1, 2, 0, *rest).reshape(cout, batch, *grad_output.shape[2:])
    # [Cin_g, Cout, k'...]
    full = aten.convolution.default(x, g, None, list(dilation), list(padding), list(stride),
                                    False, [0] * spatial, groups)
    for d in range(spatial):
        full = full.narrow(2 + d, 0, weight_shape[2 + d])
    return full.permute(1, 0, *range(2, 2 + spatial)).contiguous()


def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
                         transposed, output_padding, groups, output_mask):
    """aten.convolution_backward as convolutions (PyTorch has no
    decomposition: its kernels are library calls). A direct convolution's
    input gradient is the transposed convolution of the output gradient;
    a transposed convolution's is the direct one. The weight gradient is
    _direct_weight_gradient (for a transposed convolution, with input and
    output gradient exchanged). The bias gradient sums all but the channel
    dimension."""
    spatial = input.dim() - 2
    stride = _per_dim(stride, spatial)
    padding = _per_dim(padding, spatial)
    dilation = _per_dim(dilation, spatial)
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        if transposed:
            grad_input = aten.convolution.default(grad_output, weight, None, stride, padding,
                                                  dilation, False, [0] * spatial, groups)
        elif groups == 1:
            grad_input = _input_gradient_by_columns(grad_output, weight, stride, padding,
                                                    dilation, input.shape)
        else:
            # Back to the input's size: the rows the forward's stride
            # skipped at the end are output padding.
            grad_input = _spread(grad_output, weight, groups, weight.shape[2:], stride,
                                 padding, dilation, input.shape)
    if output_mask[1]:
        if transposed:
            grad_weight = _direct_weight_gradient(grad_output, input, weight.shape, stride,
                                                  padding, dilation, groups)
        else:
            grad_weight = _direct_weight_gradient(input, grad_output, weight.shape, stride,
                                                  padding, dilation, groups)
    if output_mask[2]:
        grad_bias = grad_output.sum([0] + list(range(2, 2 + spatial)))
    return grad_input, grad_weight, grad_bias


def _input_gradient_by_columns(grad_output, weight, stride, padding, dilation, input_shape):
    """d loss / d input of a direct convolution (one group) as a product and
    a sum of shifted windows (col2im), as PyTorch's own CPU kernels do: the
    output gradient [N*o..., Cout] times the weight as a [Cout, Cin*k...]
    matrix (no transpose, no flipped copy of the kernel) gives each output
    position's contribution to each kernel tap; each tap's contributions,
    spread by the stride (zeros between them), land at the tap's offset in
    the input, and the taps add up. Beside a transposed convolution this
    skips the kernel's flipped copy, which costs as much as the product for
    deep layers, and the zeros a strided layer's transposed convolution
    multiplies."""
    spatial = weight.dim() - 2
    batch, cout = grad_output.shape[0], grad_output.shape[1]
    out = list(grad_output.shape[2:])
    cin = weight.shape[1]
    kernel = list(weight.shape[2:])
    # [N, Cout, o...] -> [N*o..., Cout] -> [N, o..., Cin, k...].
    g = grad_output.permute(0, *range(2, 2 + spatial), 1).reshape(-1, cout)
    columns = aten.mm.default(g, weight.reshape(cout, cin * math.prod(kernel)))
    columns = columns.reshape(batch, *out, cin, *kernel)
    # Zeros between the output positions along each strided dimension.
    for d in range(spatial):
        columns = _dilate(columns, 1 + d, stride[d])
    spread = list(columns.shape[1:1 + spatial])
    total = None
    for tap in itertools.product(*(range(k) for k in kernel)):
        term = columns
        for index in tap:
            term = term.select(2 + spatial, index)
        # term: [N, spread..., Cin]; position j lands at j + offset.
        empty = False
        for d in range(spatial):
            axis = 1 + d
            offset = tap[d] * dilation[d] - padding[d]
            size = input_shape[2 + d]
            start = max(0, -offset)
            stop = min(spread[d], size - offset)
            if stop <= start:
                empty = True
                break
            if start or stop < spread[d]:
                term = term.narrow(axis, start, stop - start)
            low = offset + start
            high = size - (offset + stop)
            if low or high:
                widths = [0, 0] * (term.dim() - 1 - axis) + [low, high]
                term = aten.constant_pad_nd.default(term, widths, 0.0)
        if empty:
            continue
        total = term if total is None else total + term
    if total is None:
        return grad_output.new_zeros(input_shape)
    return total.permute(0, 1 + spatial, *range(1, 1 + spatial))


def _dilate(x, axis, stride):
    """x with stride - 1 zeros between its elements along `axis`."""
    if stride == 1:
        return x
    size = x.shape[axis]
    x = x.unsqueeze(axis + 1)
    x = aten.constant_pad_nd.default(x, [0, 0] * (x.dim() - axis - 2) + [0, stride - 1], 0.0)
    x = x.reshape(*x.shape[:axis], size * stride, *x.shape[axis + 2:])
    return x.narrow(axis, 0, (size - 1) * stride + 1)


def _spread(grad, weight, groups, kernel, stride, padding, dilation, input_shape):
    """The transposed convolution of `grad` (laid out [1 or N, C, ...])
    with `weight` in `groups`, cut or padded to the input's spatial size (a
    ceil_mode window that runs past the input gives rows it does not have;
    rows after the last window get none)."""
    spatial = len(kernel)
    extra = []
    for d in range(spatial):
        produced = ((grad.shape[-spatial + d] - 1) * stride[d] - 2 * padding[d] +
                    dilation[d] * (kernel[d] - 1) + 1)
        extra.append(max(input_shape[-spatial + d] - produced, 0))
    result = aten.convolution.default(grad, weight, None, stride, padding, dilation, True,
                                      extra, groups)
    for d in range(spatial):
        result = result.narrow(2 + d, 0, input_shape[-spatial + d])
    return result


def _per_dim(value, count, default=None):
    """A size argument with one entry per spatial dimension (PyTorch
    accepts one entry for all)."""
    value = list(value) if value else list(default)
    return value if len(value) == count else value * count


def _pair(value, default=None):
    return _per_dim(value, 2, default)


def avg_pool2d_backward(grad_output, input, kernel_size, stride, padding, ceil_mode,
                        count_include_pad, divisor_override):
    """Each output gradient divided by its window's divisor, spread evenly
    over the window (a transposed depthwise convolution with ones)."""
    kernel = _pair(kernel_size)
    stride = _pair(stride, kernel)
    padding = _pair(padding)
    channels = math.prod(input.shape[:-2])
    grad = grad_output.reshape(1, channels, *grad_output.shape[-2:])
    if divisor_override:
        grad = grad / divisor_override
    elif count_include_pad and not ceil_mode:
        grad = grad / (kernel[0] * kernel[1])
    else:
        # The divisor varies by window: the window's size clipped to the
        # padded input (count_include_pad) or to the input itself (sums of
        # ones over the windows; the padded form may have one more window
        # at the end, which no output has).
        height, width = input.shape[-2:]
        if count_include_pad:
            ones = torch.ones((1, 1, height + 2 * padding[0], width + 2 * padding[1]),
                              dtype=input.dtype, device=input.device)
            counts = aten.avg_pool2d.default(ones, kernel, stride, [0, 0], ceil_mode, True, 1)
        else:
            ones = torch.ones((1, 1, height, width), dtype=input.dtype, device=input.device)
            counts = aten.avg_pool2d.default(ones, kernel, stride, padding, ceil_mode, False, 1)
        counts = counts[..., :grad.shape[-2], :grad.shape[-1]]
        grad = grad / counts
    ones = torch.ones((channels, 1, *kernel), dtype=input.dtype, device=input.device)
    result = _spread(grad, ones, channels, kernel, stride, padding, [1, 1], input.shape)
    return result.reshape(input.shape)


def _window_candidates(size, out, kernel, stride, padding, dilation, device):
    """For each input position along one dimension, the outputs whose window
    may hold it: [(output index clamped into range, valid)], at most
    (kernel - 1) * dilation // stride + 1 of them, the last first."""
    position = torch.arange(size, device=device)
    last = torch.div(position + padding, stride, rounding_mode="floor")
    reach = (kernel - 1) * dilation
    candidates = []
    for back in range(reach // stride + 1):
        output = last - back
        valid = (output >= 0) & (output < out) & (position + padding - output * stride <= reach)
        candidates.append((output.clamp(0, out - 1), valid))
    return candidates


def max_pool2d_with_indices_backward(grad_output, input, kernel_size, stride, padding,
                                     dilation, ceil_mode, indices):
    """Each input position gathers the gradients of the windows that may
    hold it (at most ceil(reach / stride) per dimension: four for a 3x3
    window of stride 2) and keeps those whose saved index is this position:
    gathers and elementwise ops, no scatter (which the CUDA path lacks) and
    work proportional to the input."""
    kernel = _pair(kernel_size)
    stride = _pair(stride, kernel)
    padding = _pair(padding)
    dilation = _pair(dilation, [1, 1])
    height, width = input.shape[-2:]
    out_h, out_w = grad_output.shape[-2:]
    channels = math.prod(input.shape[:-2])
    device = grad_output.device
    grad = grad_output.reshape(channels, out_h, out_w)
    index = indices.reshape(channels, out_h, out_w)
    here = (torch.arange(height, device=device).reshape(height, 1) * width +
            torch.arange(width, device=device).reshape(1, width))
    rows = _window_candidates(height, out_h, kernel[0], stride[0], padding[0], dilation[0],
                              device)
    cols = _window_candidates(width, out_w, kernel[1], stride[1], padding[1], dilation[1],
                              device)
    zero = torch.zeros((), dtype=grad.dtype, device=device)
    total = None
    for row, row_valid in rows:
        grad_rows = grad.index_select(1, row)
        index_rows = index.index_select(1, row)
        for col, col_valid in cols:
            chosen = (index_rows.index_select(2, col) == here) & \
                row_valid.reshape(height, 1) & col_valid.reshape(1, width)
            term = torch.where(chosen, grad_rows.index_select(2, col), zero)
            total = term if total is None else total + term
    return total.reshape(input.shape)


def decompositions():
    """{op: decomposition} for the training ops."""
    from torch._decomp import decomposition_table as torch_table

    table = {op: torch_table[op] for op in TORCH_DECOMPOSED if op in torch_table}
    table[aten.convolution_backward.default] = convolution_backward
    table[aten.avg_pool2d_backward.default] = avg_pool2d_backward
    table[aten.max_pool2d_with_indices_backward.default] = max_pool2d_with_indices_backward
    return table
