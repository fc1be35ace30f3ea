# Writes the pathological inputs of limits.mlir: gen.py KIND PATH
import sys
kind, path = sys.argv[1], sys.argv[2]
with open(path, "w") as f:
    if kind == "deep":
        d = 20000
        f.write("func.func @main() {\n" + "scf.execute_region {\n" * d +
                "scf.yield\n}\n" * d + "return\n}\n")
    elif kind == "deep-attr":
        f.write("func.func @main() attributes {x = " + "[" * 50000 +
                "]" * 50000 + "} { return }\n")
    elif kind == "many":
        n = 20000
        f.write("func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {\n")
        prev = "%x"
        for i in range(n):
            f.write("  %%v%d = tensor_program.add %s, %%x : (tensor<4x8xf32>, "
                    "tensor<4x8xf32>) -> tensor<4x8xf32>\n" % (i, prev))
            prev = "%%v%d" % i
        f.write("  return %s : tensor<4x8xf32>\n}\n" % prev)
