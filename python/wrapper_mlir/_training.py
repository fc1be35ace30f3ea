"""AOT training steps: `compile_training(model, loss_fn, optimizer, example
inputs)` traces one whole training step -- forward, loss, backward (through
AOTAutograd's joint graph) and the optimizer update -- into one
tensor_program function whose parameters, buffers and optimizer state are
arguments and results marked as state, and compiles it with
wrapper-compile into a model.so that carries a trainer (the C ABI of
include/Wrapper/Runtime/WrapperTraining.h). The trainer owns the state; a
step replaces it with the new values. `TrainingStep` drives it from
Python; `TrainingStep.save(directory)` writes the library and the state
(.npy files) for C programs such as examples/aot/train_model.c.

The optimizers are written here as functions of tensors, following
torch.optim's single-tensor algorithms step for step (SGD with momentum,
dampening, Nesterov and weight decay; Adam and AdamW with amsgrad), so the
same step in PyTorch is the tests' reference."""

import ctypes
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from ._compile import (_Array, _DTYPES, _MAX_RANK, _NAMES, _StridedArray, WrapperError, _adopt,
                       _arrays_of, _build_library, _cuda_tensors, _keep_failed_source,
                       _strided_arrays, _to_numpy, _torch_device, uses_collectives)

# The training ABI versions this package reads (WrapperTraining.h): 2 added
# wrapper_train_step_device and wrapper_train_target.
_TRAIN_ABI_VERSION = 2
_TRAIN_ABI_OLDEST = 1
_LIBRARY = "train_step.so"
_STATE = "state"

# -- optimizers ---------------------------------------------------------------

_DEFAULTS = {
    "sgd": {"lr": 1e-3, "momentum": 0.0, "dampening": 0.0, "weight_decay": 0.0,
            "nesterov": False, "maximize": False},
    "adam": {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.0,
             "amsgrad": False, "maximize": False},
    "adamw": {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 1e-2,
              "amsgrad": False, "maximize": False},
}

# Per-parameter state of each optimizer (zeros before the first step).
_SLOTS = {"sgd": ("momentum_buffer",), "adam": ("exp_avg", "exp_avg_sq"),
          "adamw": ("exp_avg", "exp_avg_sq")}


class _Optimizer:
    """An optimizer's kind, hyperparameters and initial state."""

    def __init__(self, kind, hyper, params, state=None):
        self.kind = kind
        self.hyper = hyper
        self.params = params        # names of the parameters it updates
        self.state = state or {}    # (slot, name) -> tensor; "step" -> float

    def slots(self, name):
        kind, hyper = self.kind, self.hyper
        slots = list(_SLOTS[kind])
        if kind == "sgd" and not hyper["momentum"]:
            slots = []
        if kind != "sgd" and hyper["amsgrad"]:
            slots.append("max_exp_avg_sq")
        return slots

    def update(self, torch, p, g, slots, step, lr):
        """The new parameter and slots after one step, as torch ops (traced).
        `step` is the number of steps taken before this one (f64 scalar)."""
        h = self.hyper
        if h["maximize"]:
            g = -g
        if self.kind == "sgd":
            if h["weight_decay"]:
                g = g + h["weight_decay"] * p
            new = {}
            if h["momentum"]:
                buf = slots["momentum_buffer"]
                if h["dampening"]:
                    # torch.optim starts the buffer at the first gradient.
                    buf = torch.where(step == 0, g, buf * h["momentum"] + (1 - h["dampening"]) * g)
                else:
                    buf = buf * h["momentum"] + g
                new["momentum_buffer"] = buf
                g = g + h["momentum"] * buf if h["nesterov"] else buf
            return p - lr * g, new
        beta1, beta2 = h["betas"]
        count = step + 1
        if h["weight_decay"]:
            if self.kind == "adamw":
                p = p * (1 - lr * h["weight_decay"])
            else:
                g = g + h["weight_decay"] * p
        m = slots["exp_avg"] + (g - slots["exp_avg"]) * (1 - beta1)
        v = slots["exp_avg_sq"] * beta2 + (1 - beta2) * (g * g)
        new = {"exp_avg": m, "exp_avg_sq": v}
        correction1 = 1 - torch.pow(beta1, count)
        correction2_sqrt = torch.sqrt(1 - torch.pow(beta2, count))
        if h["amsgrad"]:
            v = torch.maximum(slots["max_exp_avg_sq"], v)
            new["max_exp_avg_sq"] = v
        denominator = torch.sqrt(v) / correction2_sqrt + h["eps"]
        return p - (lr / correction1) * (m / denominator), new


def _optimizer_of(config, model):
    """An _Optimizer from a dict ({"type": "sgd" | "adam" | "adamw", plus
    torch.optim's hyperparameters}) or a torch.optim SGD, Adam or AdamW over
    the model's parameters (its hyperparameters and any state it has)."""
    import torch

    names = {id(p): n for n, p in model.named_parameters()}
    trainable = [n for n, p in model.named_parameters() if p.requires_grad]
    if isinstance(config, dict):
        config = dict(config)
        kind = str(config.pop("type", config.pop("name", ""))).lower()
        if kind not in _DEFAULTS:
            raise WrapperError(f"compile_training: optimizer type {kind!r} is not supported; "
                               "expected one of " + ", ".join(_DEFAULTS))
        unknown = sorted(set(config) - set(_DEFAULTS[kind]))
        if unknown:
            raise WrapperError(f"compile_training: unknown {kind} option(s) {unknown}; known: "
                               + ", ".join(_DEFAULTS[kind]))
        hyper = dict(_DEFAULTS[kind], **config)
        return _Optimizer(kind, _checked(kind, hyper), trainable)
    if not isinstance(config, torch.optim.Optimizer):
        raise WrapperError("compile_training: the optimizer must be a dict such as "
                           "{'type': 'sgd', 'lr': 0.1} or a torch.optim.SGD, Adam or AdamW, got "
                           f"{type(config).__name__}")
    kinds = {torch.optim.SGD: "sgd", torch.optim.Adam: "adam", torch.optim.AdamW: "adamw"}
    kind = kinds.get(type(config))
    if kind is None:
        raise WrapperError(f"compile_training: {type(config).__name__} is not supported; "
                           "expected torch.optim.SGD, Adam or AdamW")
    if len(config.param_groups) != 1:
        raise WrapperError(f"compile_training: the optimizer has {len(config.param_groups)} "
                           "parameter groups; one is supported")
    group = config.param_groups[0]
    if group.get("differentiable"):
        raise WrapperError("compile_training: differentiable optimizers are not supported")
    if kind == "adam" and group.get("decoupled_weight_decay"):
        kind = "adamw"
    params = []
    for p in group["params"]:
        if id(p) not in names:
            raise WrapperError("compile_training: the optimizer updates a tensor that is not a "
                               "parameter of the model")
        params.append(names[id(p)])
    hyper = {k: group[k] for k in _DEFAULTS[kind]}
    hyper["lr"] = float(hyper["lr"])
    state = {}
    steps = set()
    for p in group["params"]:
        for slot, value in config.state.get(p, {}).items():
            if slot == "step":
                steps.add(float(value))
            elif value is not None:
                state[(slot, names[id(p)])] = value.detach()
    if len(steps) > 1:
        raise WrapperError("compile_training: the optimizer's parameters have taken different "
                           f"numbers of steps ({sorted(steps)})")
    if steps:
        state["step"] = steps.pop()
    elif kind == "sgd" and state:
        # SGD keeps no count; its buffers exist after the first step.
        state["step"] = 1.0
    return _Optimizer(kind, _checked(kind, hyper), params, state)


def _checked(kind, hyper):
    for key in ("lr", "weight_decay", "momentum", "dampening", "eps"):
        if key in hyper and not isinstance(hyper[key], (int, float)):
            raise WrapperError(f"compile_training: {kind} option {key} must be a number, "
                               f"got {type(hyper[key]).__name__}")
    if kind == "sgd" and hyper["nesterov"] and (not hyper["momentum"] or hyper["dampening"]):
        raise WrapperError("compile_training: Nesterov momentum requires a momentum and zero "
                           "dampening")
    if "betas" in hyper:
        hyper["betas"] = tuple(float(b) for b in hyper["betas"])
    return hyper


# -- tracing ------------------------------------------------------------------


def _split_examples(example_inputs):
    examples = list(example_inputs)
    if len(examples) < 2:
        raise WrapperError("compile_training: example_inputs are the model's inputs followed "
                           "by the targets (at least two tensors)")
    return examples[:-1], examples[-1:]


def _group_name(process_group):
    """The name of the process group a data-parallel step reduces over
    (None: not data parallel)."""
    if process_group is None or process_group is False:
        return None
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_initialized():
        raise WrapperError("compile_training: process_group needs torch.distributed "
                           "initialized (torch.distributed.init_process_group)")
    group = dist.group.WORLD if process_group is True else process_group
    if not isinstance(group, dist.ProcessGroup):
        raise WrapperError(f"compile_training: process_group must be a "
                           f"torch.distributed ProcessGroup or True, got "
                           f"{type(process_group).__name__}")
    return group.group_name


def _trace(model, loss_fn, optimizer, inputs, targets, group_name=None):
    """The whole step as one FX graph of core ATen ops, and the state and
    data names of its placeholders and outputs."""
    import torch
    from torch._functorch.aot_autograd import aot_export_module
    from torch.fx.experimental.proxy_tensor import make_fx

    from .importer import decomposition_table

    class LossModule(torch.nn.Module):
        """The model and the loss, with each distinct parameter and buffer
        registered once as p<i>/b<i> (AOTAutograd's export refuses tied
        parameters, e.g. GPT-2's embedding and head) and the model called
        with all of its names bound to them."""

        def __init__(self):
            super().__init__()
            self.held = [model]  # not a submodule: its tensors are ours
            self.bindings = []   # (the model's name, our attribute)
            for kind, named in (("p", model.named_parameters(remove_duplicate=False)),
                                ("b", model.named_buffers(remove_duplicate=False))):
                seen = {}
                for name, tensor in named:
                    if id(tensor) not in seen:
                        seen[id(tensor)] = f"{kind}{len(seen)}"
                        original[seen[id(tensor)]] = name
                        if kind == "p":
                            self.register_parameter(seen[id(tensor)], tensor)
                        else:
                            self.register_buffer(seen[id(tensor)], tensor)
                    self.bindings.append((name, seen[id(tensor)]))

        def forward(self, *args):
            tensors = {name: getattr(self, attribute) for name, attribute in self.bindings}
            output = torch.func.functional_call(self.held[0], tensors, args[: len(inputs)],
                                                tie_weights=False, strict=True)
            loss = loss_fn(output, *args[len(inputs):])
            if not isinstance(loss, torch.Tensor) or loss.dim() != 0:
                raise WrapperError("compile_training: loss_fn must return a scalar tensor")
            return (loss,)

    original = {}  # p<i>/b<i> -> the model's (first) name
    examples = tuple(inputs) + tuple(targets)
    module = LossModule()
    exported = False
    try:
        # Captured by torch.export first (models check "am I being
        # traced?" the way export answers, e.g. Hugging Face's masks), then
        # the joint graph of that graph module, whose views are re-traced
        # as views of contiguous copies (the decompositions may lay
        # intermediates out differently from eager).
        module = torch.export.export(module, examples, strict=False).module()
        exported = True
    except Exception:  # noqa: BLE001 - the model itself, traced below
        pass
    try:
        joint, signature = aot_export_module(
            module, examples, trace_joint=True, output_loss_index=0,
            decompositions=decomposition_table(copy_views=exported))
    except WrapperError:
        raise
    except Exception as error:  # tracing errors name the model's op
        raise WrapperError(f"compile_training: cannot trace the training step: "
                           f"{type(error).__name__}: {error}") from None

    params = [original[n] for n in signature.parameters]
    buffers = [original[n] for n in signature.buffers]
    outputs = [n.name for n in joint.graph.output_node().args[0]]
    loss_index = outputs.index(signature.user_outputs[0])
    grad_index = {original[p]: outputs.index(g)
                  for g, p in signature.backward_signature.gradients_to_parameters.items()}
    buffer_index = {original[b]: outputs.index(o)
                    for o, b in signature.buffers_to_mutate.items()}
    module_state = dict(model.named_parameters())
    module_state.update(model.named_buffers())

    # The state: parameters, buffers, optimizer slots, then the scalars.
    updated = [p for p in params if p in optimizer.params and p in grad_index]
    slots = [(slot, p) for p in updated for slot in optimizer.slots(p)]
    state = [(p, module_state[p].detach()) for p in params]
    state += [(b, module_state[b].detach()) for b in buffers]
    for slot, p in slots:
        value = optimizer.state.get((slot, p))
        state.append((f"optimizer.{slot}.{p}",
                      value if value is not None else torch.zeros_like(module_state[p])))
    state.append(("optimizer.step", torch.tensor(float(optimizer.state.get("step", 0.0)),
                                                 dtype=torch.float64)))
    state.append(("optimizer.lr", torch.tensor(float(optimizer.hyper["lr"]), dtype=torch.float64)))
    num_params, num_buffers = len(params), len(buffers)

    def step(*flat):
        values = dict(zip((name for name, _ in state), flat))
        data = flat[len(state):]
        out = joint(*flat[: num_params + num_buffers], *data)
        count, lr = values["optimizer.step"], values["optimizer.lr"]
        new = {}
        for p in updated:
            current = {slot: values[f"optimizer.{slot}.{p}"] for slot in optimizer.slots(p)}
            grad = out[grad_index[p]]
            if group_name is not None:
                # Data parallel: the gradient averaged over the ranks, as
                # DDP does (the collectives are bucketed by the compiler).
                grad = torch.ops._c10d_functional.wait_tensor(
                    torch.ops._c10d_functional.all_reduce(grad, "avg", group_name))
            new[p], new_slots = optimizer.update(torch, values[p], grad, current, count, lr)
            for slot, value in new_slots.items():
                new[f"optimizer.{slot}.{p}"] = value
        for b, index in buffer_index.items():
            new[b] = out[index]
        new["optimizer.step"] = count + 1
        return (out[loss_index], *new.values()), list(new)

    names_out = []

    def traced(*flat):
        results, names = step(*flat)
        names_out[:] = names
        return results

    flat = [value for _, value in state] + list(examples)
    graph = make_fx(traced, tracing_mode="fake",
                    decomposition_table=decomposition_table())(*flat)
    data_names = ([f"input{i}" for i in range(len(inputs))] if len(inputs) > 1 else ["input"])
    data_names += ["target"] if len(targets) == 1 else [f"target{i}" for i in range(len(targets))]
    return graph, state, data_names, names_out


def compile_training(model, loss_fn, optimizer, example_inputs, *, parallel=True,
                     gemm=True, plan_memory="reuse", seed=0, target=None,
                     process_group=None, bucket_bytes=25 * 1024 * 1024,
                     bucket_mode="concat", cuda_graph=None, update_in_place=True):
    """Compiles one training step of `model` into a TrainingStep.

    `example_inputs` are the model's inputs followed by the targets:
    a step computes `loss_fn(model(*inputs), *targets)`, its gradients with
    respect to the model's parameters, and the optimizer update.
    `optimizer` is a torch.optim.SGD, Adam or AdamW over the model's
    parameters (its hyperparameters and any state it has are taken), or a
    dict such as {"type": "adamw", "lr": 1e-3}. The model runs in the mode
    it is in (call model.train() for dropout and batch statistics). Its
    parameters, buffers and the optimizer state are copied into the step;
    `TrainingStep.copy_to(model)` writes them back. `target` is "cpu" or
    "cuda" (default: where the example inputs are); a CUDA step keeps its
    state in device memory and runs on CUDA tensors where they are (other
    inputs are copied to the device). `cuda_graph=True` replays the step
    as one CUDA graph from its second call on (see TrainingStep.cuda_graph;
    not with `process_group`).

    With `update_in_place` (the default) the step writes each updated
    parameter, buffer and optimizer slot into the state's own memory
    (`tensor_program.copy_back`), as soon as its last reader has run: the
    old and the new state are never both held, and each gradient is freed
    right after its update. False returns the new values as results that
    replace the state after the step (one state's worth more memory at the
    step's peak; a step that fails part-way then leaves the state as it
    was).

    With `process_group` (a torch.distributed ProcessGroup, or True for the
    default group), the step is data parallel as DDP is: every rank calls
    it on its own batch, the gradients are averaged over the group's ranks
    (all_reduces in the compiled graph, merged into buckets of at most
    `bucket_bytes` by concatenation or, with bucket_mode="coalesced", as
    one coalesced collective) before the optimizer update, so the ranks'
    states stay equal."""
    import torch

    if not isinstance(model, torch.nn.Module):
        raise WrapperError(f"compile_training: the model must be a torch.nn.Module, got "
                           f"{type(model).__name__}")
    if not callable(loss_fn):
        raise WrapperError("compile_training: loss_fn must be callable")
    inputs, targets = _split_examples(example_inputs)
    for i, value in enumerate(inputs + targets):
        if not isinstance(value, torch.Tensor):
            raise WrapperError(f"compile_training: example input #{i} is a "
                               f"{type(value).__name__}, not a tensor")
    devices = {value.device.type for value in inputs + targets}
    if target is None:
        target = "cuda" if "cuda" in devices else "cpu"
    if target not in ("cpu", "cuda"):
        raise WrapperError(f"compile_training: target must be 'cpu' or 'cuda', got {target!r}")
    if cuda_graph and target != "cuda":
        raise WrapperError(f"compile_training: cuda_graph needs target='cuda', got {target!r}")
    if cuda_graph and process_group is not None:
        raise WrapperError("compile_training: cuda_graph cannot capture the collectives of a "
                           "data-parallel step (process_group)")
    if not isinstance(update_in_place, bool):
        raise WrapperError(f"compile_training: update_in_place must be True or False, got "
                           f"{update_in_place!r}")
    opt = _optimizer_of(optimizer, model)
    group_name = _group_name(process_group)
    if isinstance(bucket_bytes, bool) or not isinstance(bucket_bytes, int) or bucket_bytes < 0:
        raise WrapperError(f"compile_training: bucket_bytes must be an integer >= 0, got "
                           f"{bucket_bytes!r}")
    if bucket_mode not in ("concat", "coalesced"):
        raise WrapperError(f"compile_training: bucket_mode must be 'concat' or 'coalesced', "
                           f"got {bucket_mode!r}")
    start = time.perf_counter()
    graph, state, data_names, updated = _trace(model, loss_fn, opt, inputs, targets,
                                               group_name)

    from .importer.core import SEED, Importer, InputBinding
    from .importer.registry import TABLE
    from .importer.values import UnsupportedError

    names = [name for name, _ in state] + data_names
    bindings = [InputBinding("tensor", name, position=i) for i, name in enumerate(names)]
    importer = Importer(graph.graph, bindings, table=TABLE, function_name="train_step")
    importer.pass_inputs_through = False  # every output is a result of the step
    for i, (name, _) in enumerate(state):
        importer.argument_attributes[i] = [f'tensor_program.state = "{name}"']
    importer.argument_attributes[SEED] = ["tensor_program.seed"]
    importer.result_attributes[("output", 0)] = ["tensor_program.loss"]
    position = {name: i for i, (name, _) in enumerate(state)}
    for i, name in enumerate(updated):
        if update_in_place:
            importer.write_back[i + 1] = position[name]
        else:
            importer.result_attributes[("output", i + 1)] = [f'tensor_program.state = "{name}"']
    try:
        imported = importer.run()
    except UnsupportedError as error:
        raise WrapperError(f"compile_training: {error}") from None
    workdir = tempfile.mkdtemp(prefix="wrapper_mlir_train_")
    try:
        flags = [f"--collective-bucket-bytes={bucket_bytes}",
                 f"--collective-bucket-mode={bucket_mode}"] if group_name else []
        library, _ = _build_library(workdir, imported.text, "train_step", parallel, gemm,
                                    plan_memory, target, imported.weights, flags=flags)
        step = TrainingStep(workdir, library, imported.text, target=target)
    except WrapperError as error:
        kept = _keep_failed_source(workdir, str(error))
        shutil.rmtree(workdir, ignore_errors=True)
        raise kept from None
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    step.compile_seconds = time.perf_counter() - start
    step.load_state_dict({name: value for name, value in state})
    step.set_seed(seed)
    if target == "cuda":
        step.cuda_graph = bool(cuda_graph)
    return step


# -- the trainer --------------------------------------------------------------


class TrainingStep:
    """A compiled training step (a model.so with the training ABI). Call it
    on a batch -- the model's inputs, then the targets, torch tensors or
    NumPy arrays -- to run one step: it returns the loss (a float, computed
    before the update) and updates the state it holds."""

    def __init__(self, workdir, library, source=None, owned=True, target="cpu"):
        import weakref

        self.target = target
        self._source = source
        self._workdir = workdir
        self._library_path = str(library)
        if owned:
            weakref.finalize(self, shutil.rmtree, workdir, ignore_errors=True)
        if target == "cpu":
            # PyTorch's OpenMP threads, not a second pool fighting them.
            from ._compile import _share_torch_openmp

            _share_torch_openmp()
        elif target == "cuda" and "torch" in sys.modules:
            # The runtime on PyTorch's current device (each rank its own).
            from ._compile import _cuda_device

            try:
                _cuda_device()
            except WrapperError:
                pass  # creating the trainer says why CUDA is unavailable
        try:
            lib = ctypes.CDLL(self._library_path)
        except OSError as error:
            raise WrapperError(f"cannot load the training step: {error}") from None
        if not hasattr(lib, "wrapper_train_abi_version"):
            raise WrapperError(f"{library} has no training step (wrapper_train_abi_version); "
                               "was it compiled from a function marked as one?")
        lib.wrapper_train_abi_version.restype = ctypes.c_int32
        version = lib.wrapper_train_abi_version()
        if not _TRAIN_ABI_OLDEST <= version <= _TRAIN_ABI_VERSION:
            raise WrapperError(f"{library}: training ABI version {version}, this package "
                               f"reads versions {_TRAIN_ABI_OLDEST} to {_TRAIN_ABI_VERSION}")
        self._lib = lib
        if source is not None and uses_collectives(source):
            from ._collectives import install

            install(lib)
        lib.wrapper_last_error.restype = ctypes.c_char_p
        pointer = ctypes.c_void_p
        lib.wrapper_train_create.argtypes = [ctypes.POINTER(pointer)]
        lib.wrapper_train_destroy.argtypes = [pointer]
        lib.wrapper_train_destroy.restype = None
        for fn in ("num_states", "num_inputs", "state_updated"):
            getattr(lib, f"wrapper_train_{fn}").restype = ctypes.c_int32
        lib.wrapper_train_num_states.argtypes = [pointer]
        lib.wrapper_train_num_inputs.argtypes = [pointer]
        lib.wrapper_train_state_updated.argtypes = [pointer, ctypes.c_int32]
        for fn in ("state_name", "input_name"):
            getattr(lib, f"wrapper_train_{fn}").argtypes = [pointer, ctypes.c_int32]
            getattr(lib, f"wrapper_train_{fn}").restype = ctypes.c_char_p
        for fn in ("state_info", "input_info"):
            getattr(lib, f"wrapper_train_{fn}").argtypes = [
                pointer, ctypes.c_int32, ctypes.POINTER(ctypes.c_int32),
                ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_int64)]
        lib.wrapper_train_get_state.argtypes = [pointer, ctypes.c_int32, ctypes.POINTER(_Array)]
        lib.wrapper_train_set_state.argtypes = [pointer, ctypes.c_int32, ctypes.POINTER(_Array)]
        for fn in ("load_state", "save_state"):
            getattr(lib, f"wrapper_train_{fn}").argtypes = [pointer, ctypes.c_char_p]
        lib.wrapper_train_set_seed.argtypes = [pointer, ctypes.c_uint64]
        lib.wrapper_train_set_seed.restype = None
        lib.wrapper_train_steps.argtypes = [pointer]
        lib.wrapper_train_steps.restype = ctypes.c_int64
        lib.wrapper_train_step.argtypes = [pointer, ctypes.POINTER(_Array), ctypes.c_int32,
                                           ctypes.POINTER(ctypes.c_double)]
        lib.wrapper_array_destroy.argtypes = [ctypes.POINTER(_Array)]
        lib.wrapper_array_destroy.restype = None
        self._step_device = None
        if version >= 2:
            lib.wrapper_train_set_cuda_graph.argtypes = [pointer, ctypes.c_int32]
            lib.wrapper_train_cuda_graph_captured.argtypes = [pointer]
            lib.wrapper_train_cuda_graph_captured.restype = ctypes.c_int32
            lib.wrapper_train_target.argtypes = [pointer]
            lib.wrapper_train_target.restype = ctypes.c_char_p
            lib.wrapper_train_step_device.argtypes = [
                pointer, ctypes.POINTER(_StridedArray), ctypes.c_int32, ctypes.c_void_p,
                ctypes.POINTER(ctypes.c_double)]
            self._step_device = lib.wrapper_train_step_device
        handle = pointer()
        self._check(lib.wrapper_train_create(ctypes.byref(handle)))
        self._handle = handle
        weakref.finalize(self, lib.wrapper_train_destroy, handle)
        if version >= 2:
            # What the library was compiled for, whatever the caller said.
            self.target = lib.wrapper_train_target(handle).decode()
        count = lib.wrapper_train_num_states(handle)
        self.state_names = [lib.wrapper_train_state_name(handle, i).decode()
                            for i in range(count)]
        self.states = {name: self._info("state", i) for i, name in enumerate(self.state_names)}
        self.updated = {name for i, name in enumerate(self.state_names)
                        if lib.wrapper_train_state_updated(handle, i)}
        self.inputs = [(lib.wrapper_train_input_name(handle, i).decode(), self._info("input", i))
                       for i in range(lib.wrapper_train_num_inputs(handle))]
        self.compile_seconds = 0.0

    @classmethod
    def load(cls, directory, target="cpu"):
        """The training step saved in `directory` (by save()), with its
        state. Libraries of training ABI version 2 say what they were
        compiled for; `target` is only read for older ones."""
        directory = Path(directory)
        step = cls(str(directory), directory / _LIBRARY, owned=False, target=target)
        step.load_state(directory / _STATE)
        return step

    def _check(self, status):
        if status != 0:
            message = self._lib.wrapper_last_error()
            raise WrapperError(message.decode() if message else f"status {status}")

    def _info(self, kind, index):
        dtype, rank = ctypes.c_int32(), ctypes.c_int32()
        shape = (ctypes.c_int64 * _MAX_RANK)()
        fn = getattr(self._lib, f"wrapper_train_{kind}_info")
        self._check(fn(self._handle, index, ctypes.byref(dtype), ctypes.byref(rank), shape))
        name = _DTYPES.get(dtype.value) or _NAMES.get(dtype.value, f"dtype {dtype.value}")
        return (str(name), tuple(shape[: rank.value]))

    @property
    def steps(self):
        """Steps taken since the trainer was created."""
        return self._lib.wrapper_train_steps(self._handle)

    def set_seed(self, seed):
        """The seed of the step's random numbers (step k mixes it with k)."""
        self._lib.wrapper_train_set_seed(self._handle, int(seed) & (2**64 - 1))

    def __call__(self, *batch, sync=True):
        """One step. A CUDA step called on CUDA tensors runs on them where
        they are, on PyTorch's current stream, with no copy but the loss
        read back; with `sync=False` it returns None without waiting for
        the GPU (nor reading the loss). Other inputs are copied to the
        step's device."""
        device = _torch_device(batch) if self._step_device is not None else None
        if self.target == "cuda" and device is not None:
            return self._step_on_device(batch, device, sync)
        arrays = [_to_numpy(value, self.target) for value in batch]
        if len(arrays) != len(self.inputs):
            raise WrapperError(f"the training step takes {len(self.inputs)} inputs ("
                               + ", ".join(n for n, _ in self.inputs) + f"), got {len(arrays)}")
        descriptors, keep = _arrays_of(arrays)
        loss = ctypes.c_double()
        self._check(self._lib.wrapper_train_step(self._handle, descriptors, len(arrays),
                                                 ctypes.byref(loss)))
        del keep
        return loss.value

    step = __call__

    @property
    def cuda_graph(self):
        """Whether steps replay one CUDA graph (a CUDA step, from its
        second call on: one driver call per step instead of one launch per
        kernel; the data inputs are copied into the graph's static buffers
        on the device). Set it to turn the mode on or off; a step whose
        extern calls cannot be captured (collectives) must keep it off."""
        return getattr(self, "_cuda_graph", False)

    @cuda_graph.setter
    def cuda_graph(self, enabled):
        if self._step_device is None:
            if enabled:
                raise WrapperError("cuda_graph needs a training library of ABI version 2")
            return
        if enabled and self._source is not None and uses_collectives(self._source):
            raise WrapperError("cuda_graph: this step has collectives, which a CUDA graph "
                               "cannot capture")
        self._check(self._lib.wrapper_train_set_cuda_graph(self._handle, int(bool(enabled))))
        self._cuda_graph = bool(enabled)

    @property
    def cuda_graph_captured(self):
        """Whether a CUDA graph of the step is captured."""
        return (self._step_device is not None
                and bool(self._lib.wrapper_train_cuda_graph_captured(self._handle)))

    def _step_on_device(self, batch, device, sync):
        import torch

        tensors = _cuda_tensors(batch, device, len(self.inputs), "the training step")
        stream = torch.cuda.current_stream(device).cuda_stream
        loss = ctypes.c_double()
        self._check(self._step_device(self._handle, _strided_arrays(tensors), len(tensors),
                                      stream, ctypes.byref(loss) if sync else None))
        if not sync:
            # The inputs stay alive until the stream gets past the step.
            for tensor in tensors:
                tensor.record_stream(torch.cuda.current_stream(device))
            return None
        return loss.value

    def get_state(self, name):
        """A copy of state `name` as a NumPy array."""
        index = self._index(name)
        out = _Array()
        self._check(self._lib.wrapper_train_get_state(self._handle, index, ctypes.byref(out)))
        array = _adopt(self._lib.wrapper_array_destroy, out)
        if isinstance(array, WrapperError):
            raise WrapperError(f"state '{name}': {array}")
        return array

    def set_state(self, name, value):
        """Copies `value` (a tensor or array of the state's dtype and shape)
        into state `name`."""
        index = self._index(name)
        descriptors, keep = _arrays_of([_to_numpy(value, self.target)])
        self._check(self._lib.wrapper_train_set_state(self._handle, index, descriptors))
        del keep

    def _index(self, name):
        if name not in self.states:
            raise WrapperError(f"the training step has no state {name!r}")
        return self.state_names.index(name)

    def state_dict(self):
        """Every state by name (copies, NumPy arrays)."""
        return {name: self.get_state(name) for name in self.state_names}

    def load_state_dict(self, values, strict=True):
        """Sets the states in `values` (name -> tensor or array); with
        `strict`, every state must be there and no other name."""
        unknown = sorted(set(values) - set(self.states))
        missing = sorted(set(self.states) - set(values))
        if unknown or (strict and missing):
            raise WrapperError("load_state_dict: " + "; ".join(
                part for part in (f"unknown states {unknown}" if unknown else "",
                                  f"missing states {missing}" if strict and missing else "")
                if part))
        for name, value in values.items():
            self.set_state(name, value)

    def copy_to(self, model):
        """Writes the trained parameters and buffers into `model` (an
        nn.Module with the names the step was compiled from)."""
        import torch

        targets = dict(model.named_parameters())
        targets.update(model.named_buffers())
        with torch.no_grad():
            for name, tensor in targets.items():
                if name in self.states:
                    tensor.copy_(torch.from_numpy(self.get_state(name)))

    def load_state(self, directory):
        """Reads every state from <directory>/<name>.npy."""
        self._check(self._lib.wrapper_train_load_state(self._handle, os.fsencode(directory)))

    def save_state(self, directory):
        """Writes every state to <directory>/<name>.npy (created)."""
        os.makedirs(directory, exist_ok=True)
        self._check(self._lib.wrapper_train_save_state(self._handle, os.fsencode(directory)))

    def save(self, directory):
        """Writes the training artifact: <directory>/train_step.so (the
        library, loadable without Python) and <directory>/state/ (the
        state as .npy files). TrainingStep.load(directory) and
        examples/aot/train_model read it."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self._library_path, directory / _LIBRARY)
        self.save_state(directory / _STATE)
        return directory

    def source(self):
        """The tensor_program of the step (None for a loaded step)."""
        return self._source
