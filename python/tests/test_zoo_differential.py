"""Zoo models compiled under each memory planner, with fusion off, and with
the loop lowering of products (zoo.SHORT_CONFIGS, through
TorchModel.recompile), every build compared with eager PyTorch on two batch
sizes. scripts/zoo-differential.py runs the whole zoo under every
configuration (zoo.ALL_CONFIGS)."""

import os

import pytest

if os.environ.get("WRAPPER_REQUIRE_TORCH"):
    import torch  # noqa: F401  (scripts/test.sh: a missing torch is a failure)
else:
    pytest.importorskip("torch")
pytest.importorskip("torchvision")
pytest.importorskip("transformers")

import wrapper_mlir  # noqa: E402

from zoo import SHORT_CONFIGS, build, describe, differential  # noqa: E402


@pytest.mark.parametrize("name", ["squeezenet1_1", "bert"])
def test_configurations_agree_with_eager(name):
    failures = [(describe(config), batch, error)
                for config, batch, error in differential(name, SHORT_CONFIGS, report=lambda _: None)
                if isinstance(error, str) or error > 1e-3]
    assert not failures, f"{name}: {failures}"


def test_recompile_keeps_the_import_and_checks_options():
    model, inputs = build("squeezenet1_1")
    base = wrapper_mlir.compile(model, inputs(1), dynamic_batch=True, fallback=False)
    unfused = base.recompile(fuse=False, plan_memory="none")
    assert unfused.imported is base.imported
    assert unfused.options["fuse"] is False and unfused.options["plan_memory"] == "none"
    # Fusion off means more kernels in the host graph.
    assert unfused.ir("frontend").count("wrapper.call ") > base.ir("frontend").count("wrapper.call ")
    with pytest.raises(wrapper_mlir.WrapperError, match="tile_elements must be None or an integer"):
        base.recompile(tile_elements=-1)
    with pytest.raises(wrapper_mlir.WrapperError, match="unknown option 'fusion'"):
        base.recompile(fusion=False)
