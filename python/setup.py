"""Builds wrapper_mlir (metadata in pyproject.toml). A wheel or a
non-editable install (pip install ./python, pip wheel ./python) bundles the
compiler into wrapper_mlir/_native (bundle_native.py), so that the
installed package needs no checkout and no environment variable; the wheel
is then specific to the platform (py3-none-linux_<arch>). An editable
install (pip install -e ./python) bundles nothing and uses the checkout's
build tree. WRAPPER_NATIVE_BUNDLE=DIR packs a bundle made before
(python bundle_native.py DIR) instead of building one."""

import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70
    from wheel.bdist_wheel import bdist_wheel

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bundle_native  # noqa: E402


class BuildPyWithCompiler(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        dest = Path(self.build_lib) / "wrapper_mlir" / "_native"
        tree = bundle_native.build_dir()
        try:
            prebuilt = os.environ.get("WRAPPER_NATIVE_BUNDLE")
            if prebuilt:
                bundle_native.copy_bundle(Path(prebuilt), dest)
            else:
                bundle_native.build(tree)
                bundle_native.bundle(dest, tree)
        except bundle_native.BundleError as error:
            sys.exit(f"wrapper_mlir: cannot bundle the compiler: {error}")


class PlatformWheel(bdist_wheel):
    """Native tools inside: a platform wheel for any Python 3."""

    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        _, _, platform = super().get_tag()
        return "py3", "none", platform


setup(cmdclass={"build_py": BuildPyWithCompiler, "bdist_wheel": PlatformWheel})
