# -*- Python -*-
# Runs the C++ unit tests (GoogleTest) under lit.

import os

import lit.formats

config.name = "WRAPPER-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.wrapper_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "UnitTests")
