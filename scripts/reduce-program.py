#!/usr/bin/env python3
"""Reduces a failing tensor_program function (one op per line, as
scripts/gen-program.py writes them) while a test command still fails on it.

    reduce-program.py PROGRAM OUTPUT -- COMMAND... (PROGRAM's path is
    appended to COMMAND; the program is interesting while COMMAND exits 1)

Each step removes one op, replacing every use of its result with an earlier
value of the same type (an operand of it, or any earlier value), and keeps
the change if the program is still interesting; the returned values may be
replaced the same way. Repeats until no op can be removed. mlir-reduce's
generic reduction tree deletes ops without rewiring their uses, which
leaves invalid IR for programs that are one chain of values.
"""
import re
import subprocess
import sys
import tempfile

DEF = re.compile(r"^\s*(%[\w.]+) = ")


def value_type(line):
    """The result type of an op line: after the last '->' or ':'."""
    text = line.split("//")[0].rstrip()
    if "->" in text:
        return text.rsplit("->", 1)[1].strip()
    return text.rsplit(":", 1)[1].strip()


def arg_types(header):
    inside = header[header.index("(") + 1:header.index(")")]
    result = []
    for part in re.finditer(r"(%[\w.]+): (tensor<[^>]*>)", inside):
        result.append((part.group(1), part.group(2)))
    return result


def interesting(lines, command):
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        path = f.name
    try:
        return subprocess.run(command + [path], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 1
    except OSError:
        return False


def try_remove(lines, index, command):
    match = DEF.match(lines[index])
    if not match:
        return None
    name = match.group(1)
    ty = value_type(lines[index])
    header = next(l for l in lines if l.lstrip().startswith("func.func"))
    earlier = [n for n, t in arg_types(header) if t == ty]
    for line in lines[:index]:
        m = DEF.match(line)
        if m and value_type(line) == ty:
            earlier.append(m.group(1))
    # Prefer the op's own operands.
    operands = re.findall(r"%[\w.]+", lines[index].split("=", 1)[1])
    candidates = [o for o in operands if o in earlier] + \
        [e for e in reversed(earlier) if e not in operands]
    pattern = re.compile(re.escape(name) + r"(?![\w.])")
    if not any(pattern.search(l) for l in lines[index + 1:]):
        trial = lines[:index] + lines[index + 1:]
        return trial if interesting(trial, command) else None
    for replacement in candidates:
        trial = lines[:index] + [pattern.sub(replacement, l)
                                 for l in lines[index + 1:]]
        if interesting(trial, command):
            return trial
    return None


def main():
    if "--" not in sys.argv or len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    split = sys.argv.index("--")
    program, output = sys.argv[1], sys.argv[2]
    command = sys.argv[split + 1:]
    lines = open(program).read().rstrip("\n").split("\n")
    if not interesting(lines, command):
        print("reduce-program: the program is not interesting to begin with",
              file=sys.stderr)
        return 1
    before = sum(1 for l in lines if DEF.match(l))
    changed = True
    while changed:
        changed = False
        for index in reversed(range(len(lines))):
            if index >= len(lines):
                continue
            reduced = try_remove(lines, index, command)
            if reduced is not None:
                lines = reduced
                changed = True
    with open(output, "w") as f:
        f.write("\n".join(lines) + "\n")
    after = sum(1 for l in lines if DEF.match(l))
    print("reduce-program: %d ops -> %d ops in %s" % (before, after, output))
    return 0


if __name__ == "__main__":
    sys.exit(main())
