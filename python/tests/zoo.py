"""The public model zoo, for the tests, bench/ and scripts/ (which import
it as `zoo` from this directory): it lives in the package as
wrapper_mlir.zoo, so that `python -m wrapper_mlir.explore` takes its
models by name."""

from wrapper_mlir.zoo import *  # noqa: F401,F403
