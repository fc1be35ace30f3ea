"""The package's front function: compile() dispatches to the tensor_program
text path (_compile) or the torch path (_torch). It sits above both so that
neither imports the other's caller: _torch builds on _compile, never the
reverse."""

from ._compile import WrapperError, _compile_text


def compile(graph, example_inputs=None, target=None, *, entry=None, example_kwargs=None,
            dynamic_batch=False, parallel=True, gemm=True, plan_memory="reuse", fallback=True,
            cuda_graphs=False, fuse=True):
    """Compiles `graph` for `target` and returns a callable model.

    `graph` is one of:

    * tensor_program text (the types come from the program; returns a
      CompiledModel taking and returning NumPy arrays);
    * a `torch.nn.Module` with `example_inputs` (and `example_kwargs`):
      exported with torch.export, decomposed to core ATen, imported; with
      `dynamic_batch`, dimension 0 of every tensor input is dynamic;
    * a `torch.export.ExportedProgram` (its dynamic dimensions stay
      dynamic);

    the last two return a TorchModel called like the module. `target` is
    "cpu" or "cuda" (an NVIDIA GPU: called on CUDA tensors, the model runs
    on them where they are, on PyTorch's current stream, and returns CUDA
    tensors; NumPy arrays and CPU tensors are copied to the device and the
    outputs back); left out, it is "cuda" for a torch model whose example
    inputs are CUDA tensors and "cpu" otherwise (`parallel`, `gemm` and
    `plan_memory` are CPU options). With `cuda_graphs` (CUDA), calls on
    CUDA tensors capture one CUDA graph per input signature and replay it.
    With `fallback`, torch ops the compiler lacks run in PyTorch, each with
    a warning; without, they are an error. `fuse` is True (the default
    fusion strategy, greedy), False (no fusion) or a strategy's name
    ("none", "greedy", "cost", "horizontal"; docs/Fusion.md).
    """
    if target is not None and target not in ("cpu", "cuda"):
        raise WrapperError(f"unknown target '{target}'; expected 'cpu' or 'cuda'")
    if plan_memory not in ("none", "reuse", "pool"):
        raise WrapperError(f"unknown plan_memory '{plan_memory}'; expected 'none', 'reuse' "
                           "or 'pool'")
    if not isinstance(graph, str):
        try:
            import torch
        except ImportError:
            raise WrapperError(
                f"graph must be tensor_program text (got {type(graph).__name__}; "
                "compiling torch modules needs torch installed)") from None
        if not isinstance(graph, (torch.nn.Module, torch.export.ExportedProgram)):
            raise WrapperError(
                "graph must be tensor_program text, a torch.nn.Module or a "
                f"torch.export.ExportedProgram, got {type(graph).__name__}")
        if entry is not None:
            raise WrapperError("entry= names a function of tensor_program text; a torch "
                               "model has one entry")
        from ._torch import compile_torch

        return compile_torch(graph, example_inputs, example_kwargs=example_kwargs,
                             dynamic_batch=dynamic_batch, parallel=parallel, gemm=gemm,
                             plan_memory=plan_memory, target=target, fallback=fallback,
                             cuda_graphs=cuda_graphs, fuse=fuse)
    if example_inputs is not None or example_kwargs is not None or dynamic_batch:
        raise WrapperError("example_inputs, example_kwargs and dynamic_batch are for torch "
                           "models; tensor_program text carries its own types (write ? for "
                           "a dynamic dimension)")
    model = _compile_text(graph, entry=entry, parallel=parallel, gemm=gemm,
                          plan_memory=plan_memory, target=target or "cpu", fuse=fuse)
    if cuda_graphs:
        from ._cuda_graphs import enable

        enable(model)
    return model
