"""lit configuration: planner-opt and filecheck (the Python FileCheck) from the running environment."""

import os
import sys

import lit.formats

config.name = "tile-planner"  # noqa: F821 (lit provides `config`)
config.test_format = lit.formats.ShTest(execute_external=False)  # noqa: F821
config.suffixes = [".mlir"]  # noqa: F821
config.test_source_root = os.path.dirname(__file__)  # noqa: F821
config.test_exec_root = os.path.join(config.test_source_root, "Output")  # noqa: F821

# The tools are installed next to the interpreter running lit (the project's virtualenv).
tools = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join([tools, os.environ.get("PATH", "")])  # noqa: F821
config.substitutions.append(("FileCheck", "filecheck"))  # noqa: F821
# A tree put first on the path (PYTHONPATH) is the one the tools import, as in the shell running lit.
if "PYTHONPATH" in os.environ:
    config.environment["PYTHONPATH"] = os.environ["PYTHONPATH"]  # noqa: F821
