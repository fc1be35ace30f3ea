#!/usr/bin/env python3
"""Generates a random, well-typed tensor_program function (the differential
test's input): elementwise chains with broadcasting, reductions over random
axes, views (reshape, permute, slice, broadcast), matmuls, composites
(softmax, layer_norm, rms_norm, gelu), selects, and a dynamic leading
dimension; in a third of the programs also convolutions (strided,
dilated, grouped, with bias), max and average pooling with padding, and
take/gather with constant indices; in a fifth, instead, a training step
(the forward and backward graphs of a one- or two-layer MLP as AOTAutograd
and the decompositions leave them: products with transposed operands,
column sums over the batch, activation derivatives as selects and
products, a mean-squared or softmax cross-entropy loss, and an SGD update
of the weights). Deterministic for a seed.

    gen-program.py SEED            prints the program
    gen-program.py SEED --dynamic  with a dynamic leading dimension
"""
import random
import sys


class Gen:
    def __init__(self, seed, dynamic):
        self.rng = random.Random(seed)
        self.seed = seed
        self.lines = []
        self.count = 0
        self.dynamic = dynamic
        # values: name -> shape (list; -1 = dynamic)
        self.values = {}
        self.args = []

    def fresh(self):
        self.count += 1
        return "%v" + str(self.count)

    @staticmethod
    def ty(shape):
        dims = "x".join("?" if d < 0 else str(d) for d in shape)
        return "tensor<%sxf32>" % dims if shape else "tensor<f32>"

    def add_arg(self, shape):
        name = "%a" + str(len(self.args))
        self.args.append((name, shape))
        self.values[name] = shape
        return name

    def emit(self, text, shape):
        name = self.fresh()
        self.lines.append("  %s = %s" % (name, text))
        self.values[name] = shape
        return name

    def pick(self, pred=lambda s: True):
        names = [n for n, s in self.values.items() if pred(s)]
        if not names:
            return None
        # Mostly the newest value, so that programs are chains, not piles of
        # dead code.
        if self.rng.random() < 0.6:
            return names[-1]
        return self.rng.choice(names)

    # -- ops -------------------------------------------------------------

    def unary(self):
        x = self.pick()
        op = self.rng.choice(["neg", "abs", "exp", "tanh", "sigmoid", "relu",
                              "gelu", "silu", "erf"])
        s = self.values[x]
        if op == "exp":  # keep values moderate
            x = self.emit("tensor_program.tanh %s : %s" % (x, self.ty(s)), s)
        return self.emit("tensor_program.%s %s : %s" % (op, x, self.ty(s)), s)

    def broadcastable(self, a, b):
        out = []
        for i in range(max(len(a), len(b))):
            da = a[len(a) - 1 - i] if i < len(a) else 1
            db = b[len(b) - 1 - i] if i < len(b) else 1
            if da == db:
                out.append(da)
            elif da == 1:
                out.append(db)
            elif db == 1:
                out.append(da)
            else:
                return None
        return list(reversed(out))

    def binary(self):
        x = self.pick()
        sx = self.values[x]
        candidates = [n for n, s in self.values.items()
                      if self.broadcastable(sx, s) is not None]
        y = self.rng.choice(candidates)
        sy = self.values[y]
        out = self.broadcastable(sx, sy)
        op = self.rng.choice(["add", "sub", "mul", "max", "min", "div"])
        if op == "div":
            # A denominator away from zero: 1.5 + |y|.
            ay = self.emit("tensor_program.abs %s : %s" % (y, self.ty(sy)), sy)
            c = self.emit("tensor_program.full 1.5 : tensor<f32>", [])
            y = self.emit("tensor_program.add %s, %s : (%s, tensor<f32>) -> %s"
                          % (ay, c, self.ty(sy), self.ty(sy)), sy)
        return self.emit("tensor_program.%s %s, %s : (%s, %s) -> %s"
                         % (op, x, y, self.ty(sx), self.ty(sy), self.ty(out)),
                         out)

    def reduce(self):
        x = self.pick(lambda s: len(s) >= 1)
        if x is None:
            return self.unary()
        s = self.values[x]
        dims = sorted(self.rng.sample(range(len(s)),
                                      self.rng.randint(1, len(s))))
        keep = self.rng.random() < 0.5
        op = self.rng.choice(["reduce_sum", "reduce_max", "reduce_mean",
                              "reduce_min"])
        if op == "reduce_mean" and any(s[d] < 0 for d in dims):
            op = "reduce_sum"
        out = [1 if i in dims else d for i, d in enumerate(s)] if keep else \
            [d for i, d in enumerate(s) if i not in dims]
        return self.emit("tensor_program.%s %s dims [%s]%s : %s -> %s"
                         % (op, x, ", ".join(map(str, dims)),
                            " keepdim" if keep else "", self.ty(s),
                            self.ty(out)), out)

    def composite(self):
        x = self.pick(lambda s: len(s) >= 1 and s[-1] > 0)
        if x is None:
            return self.unary()
        s = self.values[x]
        op = self.rng.choice(["softmax", "layer_norm", "rms_norm",
                              "log_softmax"])
        if op in ("softmax", "log_softmax"):
            dims = [i for i, d in enumerate(s) if d > 0]
            dim = self.rng.choice(dims)
            return self.emit("tensor_program.%s %s dim %d : %s"
                             % (op, x, dim, self.ty(s)), s)
        if op == "layer_norm":
            return self.emit("tensor_program.layer_norm %s normalized_rank 1 "
                             "eps 1.0e-05 : (%s) -> %s"
                             % (x, self.ty(s), self.ty(s)), s)
        w = self.add_arg([s[-1]])
        return self.emit("tensor_program.rms_norm %s weight %s eps 1.0e-06 : "
                         "(%s, %s) -> %s" % (x, w, self.ty(s),
                                             self.ty([s[-1]]), self.ty(s)), s)

    def view(self):
        x = self.pick(lambda s: len(s) >= 2)
        if x is None:
            return self.unary()
        s = self.values[x]
        kind = self.rng.choice(["permute", "slice", "reshape"])
        if kind == "permute":
            perm = list(range(len(s)))
            self.rng.shuffle(perm)
            out = [s[p] for p in perm]
            return self.emit("tensor_program.permute %s [%s] : %s -> %s"
                             % (x, ", ".join(map(str, perm)), self.ty(s),
                                self.ty(out)), out)
        if kind == "slice":
            dims = [i for i, d in enumerate(s) if d >= 2]
            if not dims:
                return self.unary()
            d = self.rng.choice(dims)
            start = self.rng.randint(0, s[d] - 1)
            end = self.rng.randint(start + 1, s[d])
            step = self.rng.choice([1, 1, 2])
            out = list(s)
            out[d] = (end - start + step - 1) // step
            return self.emit("tensor_program.slice %s dim %d start %d end %d "
                             "step %d : %s -> %s"
                             % (x, d, start, end, step, self.ty(s),
                                self.ty(out)), out)
        # reshape: merge the last two static dims.
        if s[-1] < 0 or s[-2] < 0:
            return self.unary()
        out = s[:-2] + [s[-2] * s[-1]]
        return self.emit("tensor_program.reshape %s%s : %s -> %s"
                         % (x, self.dynamic_sizes(x, s), self.ty(s), self.ty(out)), out)

    def dynamic_sizes(self, x, s):
        """The size operands of a reshape of `x` (shape `s`) that keeps its
        dynamic dimensions where they are: " [%d...]", or ""."""
        names = []
        for d, size in enumerate(s):
            if size >= 0:
                continue
            index = "%%d%d_%d" % (self.count + 1, d)
            self.lines.append("  %sc = arith.constant %d : index" % (index, d))
            self.lines.append("  %s = tensor.dim %s, %sc : %s" % (index, x, index, self.ty(s)))
            names.append(index)
        return " [%s]" % ", ".join(names) if names else ""

    def matmul(self):
        x = self.pick(lambda s: len(s) == 2 and s[1] > 0)
        if x is None:
            return self.unary()
        s = self.values[x]
        n = self.rng.choice([3, 4, 8])
        w = self.add_arg([s[1], n])
        return self.emit("tensor_program.matmul %s, %s : (%s, %s) -> %s"
                         % (x, w, self.ty(s), self.ty([s[1], n]),
                            self.ty([s[0], n])), [s[0], n])

    def select(self):
        x = self.pick()
        s = self.values[x]
        y = self.pick(lambda t: t == s)
        c = self.emit("tensor_program.compare gt, %s, %s : (%s, %s) -> %s"
                      % (x, y, self.ty(s), self.ty(s),
                         self.ty(s).replace("f32", "i1")), s)
        self.values[c] = None  # not a float tensor
        del self.values[c]
        return self.emit("tensor_program.where %s, %s, %s : (%s, %s, %s) -> %s"
                         % (c, x, y, self.ty(s).replace("f32", "i1"),
                            self.ty(s), self.ty(s), self.ty(s)), s)

    def spatial(self):
        """A convolution or pooling on an NCHW value (an image argument is
        added the first time), sometimes flattened back to [N, C*H*W] so
        that later ops mix it with the rest."""
        x = self.pick(lambda s: len(s) == 4 and all(d > 0 for d in s[1:]))
        if x is None:
            rows = self.args[0][1][0]
            x = self.add_arg([rows, self.rng.choice([1, 2, 3]),
                              self.rng.randint(4, 9), self.rng.randint(4, 9)])
        n, c, h, w = self.values[x]
        kind = self.rng.choice(["convolution", "convolution", "max_pool", "avg_pool",
                                "flatten"])
        if kind == "flatten":
            # A dynamic batch is passed on as the reshape's size operand.
            sizes = self.dynamic_sizes(x, [n, c, h, w])
            return self.emit("tensor_program.reshape %s%s : %s -> %s"
                             % (x, sizes, self.ty([n, c, h, w]), self.ty([n, c * h * w])),
                             [n, c * h * w])
        k = self.rng.choice([1, 2, 3])
        stride = self.rng.choice([1, 1, 2])
        dilation = self.rng.choice([1, 1, 2]) if kind != "avg_pool" else 1
        extent = dilation * (k - 1) + 1
        if kind == "convolution":
            if extent > h or extent > w:
                return self.unary()
            groups = c if c > 1 and self.rng.random() < 0.3 else 1
            out_channels = groups * self.rng.choice([1, 2])
            weight = self.add_arg([out_channels, c // groups, k, k])
            operands, types = [x, weight], [self.ty([n, c, h, w]),
                                             self.ty([out_channels, c // groups, k, k])]
            bias = ""
            if self.rng.random() < 0.5:
                b = self.add_arg([out_channels])
                bias, operands = " bias %s" % b, operands
                types.append(self.ty([out_channels]))
            out = [n, out_channels, (h - extent) // stride + 1, (w - extent) // stride + 1]
            return self.emit("tensor_program.convolution %s, %s%s stride [%d, %d] dilation "
                             "[%d, %d] groups %d : (%s) -> %s"
                             % (x, weight, bias, stride, stride, dilation, dilation, groups,
                                ", ".join(types), self.ty(out)), out)
        pad = self.rng.randint(0, k // 2)
        if extent > h + 2 * pad or extent > w + 2 * pad:
            return self.unary()
        out = [n, c, (h + 2 * pad - extent) // stride + 1, (w + 2 * pad - extent) // stride + 1]
        window = "window [%d, %d] stride [%d, %d]" % (k, k, stride, stride)
        if kind == "max_pool":
            window += " dilation [%d, %d]" % (dilation, dilation)
        return self.emit("tensor_program.%s %s %s padding_low [%d, %d] padding_high [%d, %d] "
                         ": %s -> %s" % (kind, x, window, pad, pad, pad, pad,
                                         self.ty([n, c, h, w]), self.ty(out)), out)

    def index(self):
        """take (indices of any rank, some counted from the end) along a
        static dimension, or gather on a static value, with constant indices
        in range."""
        x = self.pick(lambda s: len(s) >= 1 and any(d > 0 for d in s))
        if x is None:
            return self.unary()
        s = self.values[x]
        dims = [i for i, d in enumerate(s) if d > 0]
        d = self.rng.choice(dims)
        if self.rng.random() < 0.5 or any(e < 0 for e in s):
            shape = [self.rng.randint(1, 4) for _ in range(self.rng.choice([1, 1, 2]))]
            count = 1
            for e in shape:
                count *= e
            values = [self.rng.randint(-s[d], s[d] - 1) for _ in range(count)]
            index_type = "tensor<%sxi64>" % "x".join(map(str, shape))
            idx = self.emit_index(values, shape, index_type)
            out = s[:d] + shape + s[d + 1:]
            return self.emit("tensor_program.take %s, %s dim %d : (%s, %s) -> %s"
                             % (x, idx, d, self.ty(s), index_type, self.ty(out)), out)
        shape = list(s)
        shape[d] = self.rng.randint(1, 4)
        count = 1
        for e in shape:
            count *= e
        values = [self.rng.randint(0, s[d] - 1) for _ in range(count)]
        index_type = "tensor<%sxi64>" % "x".join(map(str, shape))
        idx = self.emit_index(values, shape, index_type)
        return self.emit("tensor_program.gather %s, %s dim %d : (%s, %s) -> %s"
                         % (x, idx, d, self.ty(s), index_type, self.ty(shape)), shape)

    def emit_index(self, values, shape, index_type):
        """A constant i64 tensor (kept out of the float values)."""
        def nest(flat, dims):
            if not dims:
                return str(flat[0])
            step = len(flat) // dims[0]
            return "[" + ", ".join(nest(flat[i * step:(i + 1) * step], dims[1:])
                                   for i in range(dims[0])) + "]"
        name = self.fresh()
        self.lines.append("  %s = tensor_program.constant dense<%s> : %s"
                          % (name, nest(values, shape), index_type))
        return name

    # -- training steps ------------------------------------------------------

    def linear(self, x, w, b):
        sx, sw = self.values[x], self.values[w]
        out = [sx[0], sw[0]]
        return self.emit("tensor_program.linear %s, %s bias %s : (%s, %s, %s) -> %s"
                         % (x, w, b, self.ty(sx), self.ty(sw), self.ty([sw[0]]),
                            self.ty(out)), out)

    def bin(self, op, x, y):
        sx, sy = self.values[x], self.values[y]
        out = self.broadcastable(sx, sy)
        return self.emit("tensor_program.%s %s, %s : (%s, %s) -> %s"
                         % (op, x, y, self.ty(sx), self.ty(sy), self.ty(out)), out)

    def scalar(self, value):
        return self.emit("tensor_program.full %s : tensor<f32>" % value, [])

    def transpose(self, x):
        s = self.values[x]
        return self.emit("tensor_program.permute %s [1, 0] : %s -> %s"
                         % (x, self.ty(s), self.ty([s[1], s[0]])), [s[1], s[0]])

    def product(self, x, y):
        sx, sy = self.values[x], self.values[y]
        out = [sx[0], sy[1]]
        return self.emit("tensor_program.matmul %s, %s : (%s, %s) -> %s"
                         % (x, y, self.ty(sx), self.ty(sy), self.ty(out)), out)

    def column_sum(self, x):
        s = self.values[x]
        return self.emit("tensor_program.reduce_sum %s dims [0] : %s -> %s"
                         % (x, self.ty(s), self.ty(s[1:])), s[1:])

    def activation_backward(self, kind, pre, post, grad):
        """The gradient through `post` = kind(`pre`) as the decompositions
        write it."""
        s = self.values[pre]
        if kind == "relu":  # threshold_backward: where(pre > 0, grad, 0)
            zeros = self.bin("mul", pre, self.scalar("0.0"))  # (pre is finite)
            mask = self.emit("tensor_program.compare gt, %s, %s : (%s, %s) -> %s"
                             % (pre, zeros, self.ty(s), self.ty(s),
                                self.ty(s).replace("f32", "i1")), s)
            del self.values[mask]
            return self.emit("tensor_program.where %s, %s, %s : (%s, %s, %s) -> %s"
                             % (mask, grad, zeros, self.ty(s).replace("f32", "i1"),
                                self.ty(s), self.ty(s), self.ty(s)), s)
        one = self.scalar("1.0")
        if kind == "tanh":  # tanh_backward: grad * (1 - post^2)
            square = self.bin("mul", post, post)
            return self.bin("mul", grad, self.bin("sub", one, square))
        # sigmoid_backward: grad * post * (1 - post)
        return self.bin("mul", self.bin("mul", grad, post), self.bin("sub", one, post))

    def training_step(self, rows):
        """Forward, loss, backward and an SGD update of a one- or two-layer
        MLP; returns the results (loss, updated weights, input gradient)."""
        inputs = self.rng.choice([3, 4, 8, 16])
        classes = self.rng.choice([2, 3, 5, 8])
        widths = [inputs] + [self.rng.choice([4, 8, 16])
                             for _ in range(self.rng.choice([0, 1]))] + [classes]
        x = self.add_arg([rows, inputs])
        target = self.add_arg([rows, classes])
        layers = []  # (weight, bias, input, pre-activation, activation kind)
        h = x
        for i in range(len(widths) - 1):
            w = self.add_arg([widths[i + 1], widths[i]])
            b = self.add_arg([widths[i + 1]])
            pre = self.linear(h, w, b)
            last = i == len(widths) - 2
            kind = None if last else self.rng.choice(["relu", "tanh", "sigmoid"])
            post = pre if last else self.emit("tensor_program.%s %s : %s" % (
                kind, pre, self.ty(self.values[pre])), self.values[pre])
            layers.append((w, b, h, pre, post, kind))
            h = post
        logits = h
        s = self.values[logits]
        if self.rng.random() < 0.5:
            # Mean-squared error (summed): loss = sum((y - t)^2), dy = 2 (y - t).
            diff = self.bin("sub", logits, target)
            loss = self.emit("tensor_program.reduce_sum %s dims [0, 1] : %s -> tensor<f32>"
                             % (self.bin("mul", diff, diff), self.ty(s)), [])
            grad = self.bin("mul", diff, self.scalar("2.0"))
        else:
            # Cross-entropy with soft targets: loss = -sum(t * log_softmax(y)),
            # dy = softmax(y) * sum_j(t_j) - t (positive targets: |t|).
            positive = self.emit("tensor_program.abs %s : %s" % (target, self.ty(s)), s)
            logp = self.emit("tensor_program.log_softmax %s dim 1 : %s" % (logits, self.ty(s)), s)
            total = self.emit("tensor_program.reduce_sum %s dims [0, 1] : %s -> tensor<f32>"
                              % (self.bin("mul", positive, logp), self.ty(s)), [])
            loss = self.emit("tensor_program.neg %s : tensor<f32>" % total, [])
            probs = self.emit("tensor_program.softmax %s dim 1 : %s" % (logits, self.ty(s)), s)
            mass = self.emit("tensor_program.reduce_sum %s dims [1] keepdim : %s -> %s"
                             % (positive, self.ty(s), self.ty([rows, 1])), [rows, 1])
            grad = self.bin("sub", self.bin("mul", probs, mass), positive)
        lr = self.scalar("0.05")
        updated = []
        for w, b, h, pre, post, kind in reversed(layers):
            if kind is not None:
                grad = self.activation_backward(kind, pre, post, grad)
            grad_w = self.product(self.transpose(grad), h)
            grad_b = self.column_sum(grad)
            updated.append(self.bin("sub", w, self.bin("mul", grad_w, lr)))
            updated.append(self.bin("sub", b, self.bin("mul", grad_b, lr)))
            grad = self.product(grad, w)  # the gradient of this layer's input
        return [loss] + list(reversed(updated)) + [grad]

    def generate(self):
        rows = -1 if self.dynamic else self.rng.choice([1, 3, 4, 7])
        # A training step in a fifth of the programs (drawn from a
        # generator of its own).
        if random.Random(self.seed * 7919 + 1).random() < 1 / 5:
            return self.text(self.training_step(rows))
        cols = self.rng.choice([1, 5, 8, 16])
        self.add_arg([rows, cols])
        if self.rng.random() < 0.5:
            self.add_arg([cols])
        if self.rng.random() < 0.3:
            self.add_arg([self.rng.choice([2, 3]), rows, cols])
        kinds = [self.unary, self.binary, self.binary, self.reduce,
                 self.composite, self.view, self.matmul, self.select]
        # Convolutions, pooling and indexing in a third of the programs
        # (which third is drawn from a generator of its own).
        if random.Random(self.seed).random() < 1 / 3:
            kinds += [self.spatial, self.spatial, self.index]
        for _ in range(self.rng.randint(2, 12)):
            self.rng.choice(kinds)()
        # Results: the last value and sometimes another one.
        results = [self.fresh_last()]
        other = self.pick()
        if self.rng.random() < 0.4 and other not in results and \
                other not in dict(self.args):
            results.append(other)
        return self.text(results)

    def fresh_last(self):
        return "%v" + str(self.count)

    def text(self, results):
        args = ", ".join("%s: %s" % (n, self.ty(s)) for n, s in self.args)
        rtypes = ", ".join(self.ty(self.values[r]) for r in results)
        out = ["// Generated by scripts/gen-program.py.",
               "func.func @main(%s) -> (%s) {" % (args, rtypes)]
        out += self.lines
        out.append("  return %s : %s" % (", ".join(results), rtypes))
        out.append("}")
        return "\n".join(out) + "\n"


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    seed = int(sys.argv[1])
    dynamic = "--dynamic" in sys.argv[2:]
    sys.stdout.write(Gen(seed, dynamic).generate())
    return 0


if __name__ == "__main__":
    sys.exit(main())
