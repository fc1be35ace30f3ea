"""Where the package finds its compiler, the version checks, the bundle's
integrity check and `python -m wrapper_mlir --version | --doctor`, in the
checkout (scripts/test-package.sh checks an installed wheel)."""

import hashlib
import json
import subprocess
import sys

import pytest

import wrapper_mlir
from wrapper_mlir import _doctor, _install


def _fake_tool(directory, abi=2, version="0.1.0"):
    tool = directory / "bin" / "wrapper-compile"
    tool.parent.mkdir(parents=True)
    tool.write_text(f"#!/bin/sh\necho 'Wrapper {version} (commit fake)'\n"
                    f"echo '  model ABI {abi}, training ABI 1, CUDA runtime ABI 4'\n")
    tool.chmod(0o755)
    return tool


@pytest.fixture
def fresh_checks():
    """The per-path caches cleared before and after a test."""
    _install.tool_version.cache_clear()
    _install.check_tool.cache_clear()
    _install.manifest.cache_clear()
    yield
    _install.tool_version.cache_clear()
    _install.check_tool.cache_clear()
    _install.manifest.cache_clear()


def test_build_dir_tools_are_used_and_checked(tmp_path, monkeypatch, fresh_checks):
    tool = _fake_tool(tmp_path)
    monkeypatch.setenv("WRAPPER_BUILD_DIR", str(tmp_path))
    assert _install.locate_tool("wrapper-compile") == (str(tool), "WRAPPER_BUILD_DIR")
    assert wrapper_mlir.find_tool("wrapper-compile") == str(tool)
    info = _install.tool_version(str(tool))
    assert (info["version"], info["commit"], info["model_abi"]) == ("0.1.0", "fake", 2)


def test_other_model_abi_is_refused(tmp_path, monkeypatch, fresh_checks):
    _fake_tool(tmp_path, abi=99)
    monkeypatch.setenv("WRAPPER_BUILD_DIR", str(tmp_path))
    with pytest.raises(wrapper_mlir.WrapperError,
                       match=r"builds model ABI 99; this wrapper_mlir 0\.1\.0 reads ABI 1, 2, 3"):
        wrapper_mlir.find_tool("wrapper-compile")


def test_other_version_is_refused(tmp_path, monkeypatch, fresh_checks):
    _fake_tool(tmp_path, version="9.9.9")
    monkeypatch.setenv("WRAPPER_BUILD_DIR", str(tmp_path))
    with pytest.raises(wrapper_mlir.WrapperError, match=r"is Wrapper 9\.9\.9; this wrapper_mlir"):
        wrapper_mlir.find_tool("wrapper-compile")


def test_tool_without_version_lines_is_refused(tmp_path, monkeypatch, fresh_checks):
    tool = tmp_path / "bin" / "wrapper-compile"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\necho 'LLVM version 22'\n")
    tool.chmod(0o755)
    monkeypatch.setenv("WRAPPER_BUILD_DIR", str(tmp_path))
    with pytest.raises(wrapper_mlir.WrapperError, match="older than this package"):
        wrapper_mlir.find_tool("wrapper-compile")


def test_unversioned_tools_are_found_unchecked(tmp_path, monkeypatch, fresh_checks):
    other = tmp_path / "bin" / "train_model"
    other.parent.mkdir()
    other.write_text("#!/bin/sh\nexit 3\n")
    other.chmod(0o755)
    monkeypatch.setenv("WRAPPER_BUILD_DIR", str(tmp_path))
    assert wrapper_mlir.find_tool("train_model") == str(other)


def test_scripts_on_path_are_not_tools(tmp_path, monkeypatch):
    # A console script of this package named like the tool must not be
    # taken for it (it would call find_tool again).
    script = tmp_path / "wrapper-no-such-tool"
    script.write_text("#!/usr/bin/env python3\n")
    script.chmod(0o755)
    monkeypatch.delenv("WRAPPER_BUILD_DIR", raising=False)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    with pytest.raises(wrapper_mlir.WrapperError, match="no bundled compiler"):
        _install.locate_tool("wrapper-no-such-tool")


def test_bundle_verification(tmp_path, monkeypatch, fresh_checks):
    native = tmp_path / "_native"
    (native / "lib").mkdir(parents=True)
    good, changed = native / "lib" / "a.so", native / "lib" / "b.so"
    good.write_bytes(b"a")
    changed.write_bytes(b"b")
    files = {f"lib/{name}": hashlib.sha256(name[0].encode()).hexdigest()
             for name in ("a.so", "b.so", "c.so")}
    (native / "manifest.json").write_text(json.dumps({"version": "0.1.0", "commit": "x",
                                                      "files": files}))
    changed.write_bytes(b"B")
    monkeypatch.setattr(_install, "NATIVE_DIR", native)
    assert _install.verify_bundle() == ["lib/b.so: changed since it was installed",
                                        "lib/c.so: missing"]
    (check,) = _doctor._check_bundle()
    assert not check.ok and check.essential and "lib/c.so: missing" in check.found


def test_unreadable_manifest_is_an_error(tmp_path, monkeypatch, fresh_checks):
    (tmp_path / "manifest.json").write_text("{not json")
    monkeypatch.setattr(_install, "NATIVE_DIR", tmp_path)
    with pytest.raises(wrapper_mlir.WrapperError, match="manifest .* is unreadable"):
        _install.manifest()


def test_version_command():
    result = subprocess.run([sys.executable, "-m", "wrapper_mlir", "--version"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"wrapper_mlir {wrapper_mlir.__version__}")
    tool = wrapper_mlir.find_tool("wrapper-compile")
    assert f"compiler: {tool}" in result.stdout
    assert "model ABI 3, training ABI" in result.stdout


def test_doctor_reports_and_exits_zero_here():
    result = subprocess.run([sys.executable, "-m", "wrapper_mlir", "--doctor"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    names = [line.split("] ", 1)[1].split(":")[0] for line in lines if line.startswith("[")]
    for name in ("wrapper-compile", "wrapper-opt", "C compiler", "runtime library",
                 "OpenMP (libomp)", "CPU", "CUDA driver", "cuBLAS", "cuDNN", "numpy", "torch"):
        assert name in names, result.stdout
    assert lines[-1] == "wrapper_mlir can compile and run models on this machine"


def test_doctor_names_what_is_missing(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    (check,) = _doctor._check_c_compiler()
    assert not check.ok and check.essential and "install gcc or clang" in check.without
    text = _doctor.report([check, _doctor.Check("cuDNN", False, "none", "nothing")])
    assert "[MISSING] C compiler" in text and "[    off] cuDNN" in text
    assert text.splitlines()[-1] == "wrapper_mlir cannot compile on this machine: fix C compiler"


def test_arguments_are_required():
    result = subprocess.run([sys.executable, "-m", "wrapper_mlir"], capture_output=True,
                            text=True)
    assert result.returncode == 2 and "one of the arguments --version --doctor" in result.stderr
