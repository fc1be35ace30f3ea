#!/usr/bin/env python3
"""The public model zoo (wrapper_mlir.zoo) compiled under every compiler
configuration (each memory planner with fusion on and off, products as
loops, untiled and small-tile kernels, one thread: zoo.ALL_CONFIGS), each
build run on the same inputs for every batch size and compared with eager
PyTorch. The long form of python/tests/test_zoo_differential.py.

    scripts/zoo-differential.py [--models a,b] [--short] [--batches 1,2,5]
                                [--tolerance 1e-3]

Run it with the project's Python (.venv/bin/python; WRAPPER_BUILD_DIR and
PYTHONPATH=python as for the tests). Prints one line per model,
configuration and batch, then "N models x M configurations: K runs
compared, F failed" and exits 1 if any run failed or differed.
"""

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
sys.path.insert(0, os.path.join(ROOT, "python"))


def main():
    from zoo import ALL_CONFIGS, SHORT_CONFIGS, ZOO, differential

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", help="comma-separated zoo names (default: all)")
    parser.add_argument("--short", action="store_true", help="the tests' configurations only")
    parser.add_argument("--batches", default="1,2,5", help="batch sizes (default: 1,2,5)")
    parser.add_argument("--tolerance", type=float, default=1e-3,
                        help="largest error over an output's largest magnitude (default 1e-3)")
    args = parser.parse_args()

    names = [name for name, _, _ in ZOO]
    if args.models:
        wanted = args.models.split(",")
        unknown = sorted(set(wanted) - set(names))
        if unknown:
            parser.error(f"unknown model(s) {', '.join(unknown)}; the zoo has {', '.join(names)}")
        names = wanted
    batches = tuple(int(b) for b in args.batches.split(","))
    configs = SHORT_CONFIGS if args.short else ALL_CONFIGS
    start = time.time()
    compared = failed = 0
    for name in names:
        try:
            results = differential(name, configs, batches)
        except Exception as error:  # an export or import failure: the whole model
            print(f"{name:20s} FAILED before any configuration: {error}")
            failed += 1
            continue
        for config, batch, error in results:
            compared += 1
            if isinstance(error, str) or error > args.tolerance:
                failed += 1
                print(f"  FAIL {name} {config} batch {batch}: {error}")
    print(f"{len(names)} models x {len(configs) + 1} configurations x {len(batches)} batches: "
          f"{compared} runs compared, {failed} failed ({time.time() - start:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
