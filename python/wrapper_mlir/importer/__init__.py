"""The core ATen importer: graphs of core ATen ops (torch.export's
ExportedProgram, AOTAutograd's forward graphs) to tensor_program, with
shapes from FakeTensor metadata and weights in a safetensors file.

    program = export_module(module, args)             # torch.export + decompositions
    imported = import_exported(program)                # ImportedProgram
    imported.text, imported.weights                    # the IR and its weights

The op table is wrapper_mlir.importer.registry.TABLE (supported_ops()
lists it); see docs/Python.md.
"""

from .core import ImportedProgram, Importer, InputBinding
from .frontend import decompose_attention, decomposition_table, export_module, import_exported
from .registry import TABLE, supported_ops
from .values import UnsupportedError

__all__ = ["ImportedProgram", "Importer", "InputBinding", "TABLE", "UnsupportedError",
           "decompose_attention", "decomposition_table", "export_module", "import_exported",
           "supported_ops"]
