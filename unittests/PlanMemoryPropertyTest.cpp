//===- PlanMemoryPropertyTest.cpp - random graphs through the planner -----===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// The property test of --wrapper-plan-memory: random wrapper graphs (chains
// of kernel calls over buffers of a few sizes and shapes, views, several
// outputs) are planned with each strategy; every planned graph must pass
// --wrapper-verify-lifetimes, must not raise the static peak, and must
// compute exactly the outputs of the unplanned graph. Graphs are evaluated
// by a small simulator with its own storage model: fresh storage is NaN,
// freed storage is poisoned and any access to it fails, so a plan that lets
// two live buffers share bytes changes the outputs or touches dead storage.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"
#include "Wrapper/Dialect/Wrapper/Transforms/Passes.h"
#include "Wrapper/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>

using namespace mlir;
using namespace mlir::wrapper;

namespace {

//===----------------------------------------------------------------------===//
// Generator
//===----------------------------------------------------------------------===//

/// A buffer shape and its element count.
struct Shape {
  std::string text; // "4x4"
  int64_t elements;
};

const Shape kShapes[] = {{"8", 8},   {"16", 16},  {"4x4", 16},
                         {"32", 32}, {"4x8", 32}, {"2x16", 32}};

/// Generates the text of a random graph with its kernel declarations.
std::string generateGraph(unsigned seed) {
  std::mt19937 rng(seed);
  auto pick = [&](size_t n) {
    return std::uniform_int_distribution<size_t>(0, n - 1)(rng);
  };
  struct Value {
    std::string name, type;
    int64_t elements;
    int intermediate; // index into intermediates, or -1
  };
  std::vector<Value> values = {{"%in0", "memref<16xf32>", 16, -1},
                               {"%in1", "memref<32xf32>", 32, -1}};
  std::vector<std::string> lines;
  std::vector<int> producedAt;       // line of each intermediate's producer
  std::vector<int> lastUse;          // line of each intermediate's last use
  std::vector<std::string> ownTypes; // type of each intermediate
  std::vector<std::string> ownNames;
  std::set<std::string> kernels;
  std::ostringstream decls;

  unsigned steps = 3 + pick(23);
  for (unsigned step = 0; step < steps; ++step) {
    // Two inputs from what exists so far, sometimes through a view.
    std::string args, argTypes;
    std::vector<int> used;
    for (int k = 0; k < 2; ++k) {
      const Value &v = values[pick(values.size())];
      std::string name = v.name, type = v.type;
      if (v.intermediate >= 0 && v.elements == 16 && pick(4) == 0 &&
          v.type == "memref<16xf32>") {
        std::string view = "%view" + std::to_string(lines.size());
        lines.push_back(view + " = wrapper.reinterpret " + v.name +
                        " to offset: [4], sizes: [8], strides: [1] : " +
                        v.type + " to memref<8xf32, strided<[1], offset: 4>>");
        lastUse[v.intermediate] = lines.size() - 1;
        name = view;
        type = "memref<8xf32, strided<[1], offset: 4>>";
      }
      if (v.intermediate >= 0)
        used.push_back(v.intermediate);
      args += name + ", ";
      argTypes += type + ", ";
    }
    const Shape &shape = kShapes[pick(std::size(kShapes))];
    std::string type = "memref<" + shape.text + "xf32>";
    std::string name = "%b" + std::to_string(step);
    lines.push_back(name + " = wrapper.alloc() : " + type);
    int index = ownNames.size();
    ownNames.push_back(name);
    ownTypes.push_back(type);
    producedAt.push_back(lines.size() - 1);
    lastUse.push_back(lines.size());
    std::string signature = argTypes + type;
    std::string kernel =
        "@k" + std::to_string(std::hash<std::string>()(signature) % 100000);
    if (kernels.insert(kernel).second)
      decls << "func.func private " << kernel << "_impl(" << signature
            << ")\nwrapper.kernel " << kernel << " = " << kernel << "_impl\n";
    lines.push_back("wrapper.call " + kernel + "(" + args + name +
                    ") : " + signature);
    for (int u : used)
      lastUse[u] = lines.size() - 1;
    values.push_back({name, type, shape.elements, index});
  }

  // Outputs: the last buffer and sometimes another one.
  std::set<int> outputs = {static_cast<int>(ownNames.size()) - 1};
  if (pick(2) == 0)
    outputs.insert(pick(ownNames.size()));
  // Frees after the last use of every other buffer.
  std::map<int, std::vector<std::string>> freesAfter;
  for (size_t i = 0; i < ownNames.size(); ++i)
    if (!outputs.count(i))
      freesAfter[lastUse[i]].push_back("wrapper.free " + ownNames[i] + " : " +
                                       ownTypes[i]);

  std::ostringstream out;
  out << decls.str();
  std::string resultTypes, results;
  for (int o : outputs) {
    resultTypes += (resultTypes.empty() ? "" : ", ") + ownTypes[o];
    results += (results.empty() ? "" : ", ") + ownNames[o];
  }
  out << "wrapper.graph @g(%in0: memref<16xf32>, %in1: memref<32xf32>) -> ("
      << resultTypes << ") {\n";
  for (size_t i = 0; i < lines.size(); ++i) {
    out << "  " << lines[i] << "\n";
    for (const std::string &free : freesAfter[i])
      out << "  " << free << "\n";
  }
  out << "  wrapper.return " << results << " : " << resultTypes << "\n}\n";
  return out.str();
}

//===----------------------------------------------------------------------===//
// Simulator
//===----------------------------------------------------------------------===//

struct Storage {
  std::vector<float> data;
  bool dead = false;
};

struct Buffer {
  std::shared_ptr<Storage> storage;
  /// Where the storage this buffer's offsets count from begins (a pool
  /// view starts one inside the pool).
  int64_t base = 0;
  int64_t offset = 0;
  SmallVector<int64_t> sizes, strides;

  int64_t count() const {
    int64_t n = 1;
    for (int64_t s : sizes)
      n *= s;
    return n;
  }
  /// Position in storage of the row-major element `flat`.
  int64_t at(int64_t flat) const {
    int64_t position = offset;
    for (int d = sizes.size() - 1; d >= 0; --d) {
      position += (flat % sizes[d]) * strides[d];
      flat /= sizes[d];
    }
    return position;
  }
};

Buffer describe(std::shared_ptr<Storage> storage, MemRefType type, int64_t base,
                int64_t offset) {
  Buffer b;
  b.storage = std::move(storage);
  b.base = base;
  SmallVector<int64_t> strides;
  int64_t layoutOffset = 0;
  (void)type.getStridesAndOffset(strides, layoutOffset);
  b.offset = base + offset;
  b.sizes.assign(type.getShape().begin(), type.getShape().end());
  b.strides = strides;
  return b;
}

/// Runs `graph` on fixed inputs; returns its outputs, or an error message.
FailureOr<std::vector<std::vector<float>>> simulate(GraphOp graph,
                                                    std::string &error) {
  DenseMap<Value, Buffer> env;
  for (BlockArgument arg : graph.getBody().getArguments()) {
    auto type = cast<MemRefType>(arg.getType());
    auto storage = std::make_shared<Storage>();
    for (int64_t i = 0; i < type.getNumElements(); ++i)
      storage->data.push_back(0.25f * i - 1.0f + arg.getArgNumber());
    env[arg] = describe(storage, type, 0, 0);
  }
  auto check = [&](const Buffer &b, Operation *op) {
    if (b.storage->dead) {
      error =
          "access to freed storage by " + op->getName().getStringRef().str();
      return false;
    }
    for (int64_t i = 0; i < b.count(); ++i)
      if (b.at(i) < 0 || b.at(i) >= (int64_t)b.storage->data.size()) {
        error = "access outside storage";
        return false;
      }
    return true;
  };
  for (Operation &op : graph.getBody().front()) {
    if (auto alloc = dyn_cast<AllocOp>(op)) {
      auto storage = std::make_shared<Storage>();
      MemRefType type = alloc.getType();
      int64_t bytes =
          type.getNumElements() * (type.getElementType().isInteger(8) ? 1 : 4);
      storage->data.assign((bytes + 3) / 4, NAN);
      env[alloc] = describe(storage, type, 0, 0);
    } else if (auto view = dyn_cast<ViewOp>(op)) {
      int64_t start = static_cast<int64_t>(view.getByteOffset()) / 4;
      env[view] =
          describe(env[view.getPool()].storage, view.getType(), start, 0);
    } else if (auto reuse = dyn_cast<ReuseOp>(op)) {
      const Buffer &old = env[reuse.getOld()];
      env[reuse] = describe(old.storage, reuse.getType(), old.base, 0);
    } else if (auto view = dyn_cast<ReinterpretOp>(op)) {
      const Buffer &source = env[view.getSource()];
      env[view] = describe(source.storage, view.getType(), source.base,
                           view.getStaticOffsets().front());
    } else if (auto free = dyn_cast<FreeOp>(op)) {
      Buffer &b = env[free.getBuffer()];
      if (b.storage->dead) {
        error = "double free";
        return failure();
      }
      b.storage->dead = true;
      std::fill(b.storage->data.begin(), b.storage->data.end(), NAN);
    } else if (auto call = dyn_cast<CallOp>(op)) {
      auto args = call.getArgs();
      const Buffer &a = env[args[0]], &b = env[args[1]];
      Buffer &out = env[args[2]];
      if (!check(a, &op) || !check(b, &op) || !check(out, &op))
        return failure();
      // Reads before writes: an output may not alias an input anyway.
      std::vector<float> result(out.count());
      int64_t salt = call.getKernel().size();
      for (int64_t i = 0; i < out.count(); ++i)
        result[i] = a.storage->data[a.at(i % a.count())] * 1.5f +
                    b.storage->data[b.at(i % b.count())] * 0.5f + salt;
      for (int64_t i = 0; i < out.count(); ++i)
        out.storage->data[out.at(i)] = result[i];
    } else if (auto ret = dyn_cast<ReturnOp>(op)) {
      std::vector<std::vector<float>> outputs;
      for (Value v : ret.getOperands()) {
        const Buffer &b = env[v];
        if (!check(b, &op))
          return failure();
        std::vector<float> values;
        for (int64_t i = 0; i < b.count(); ++i)
          values.push_back(b.storage->data[b.at(i)]);
        outputs.push_back(values);
      }
      return outputs;
    }
  }
  error = "graph without return";
  return failure();
}

//===----------------------------------------------------------------------===//
// The property
//===----------------------------------------------------------------------===//

TEST(PlanMemoryProperty, RandomGraphsKeepTheirOutputs) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      diagnostics += diag.str() + "\n";
    return success();
  });

  constexpr unsigned kGraphs = 1000;
  std::map<std::string, int64_t> reusedPrograms, peakSaved;
  for (unsigned seed = 0; seed < kGraphs; ++seed) {
    std::string text = generateGraph(seed);
    OwningOpRef<ModuleOp> original =
        parseSourceString<ModuleOp>(text, &context);
    ASSERT_TRUE(original) << "seed " << seed << ": generated graph does not "
                          << "parse:\n"
                          << diagnostics << text;
    auto graph = *original->getOps<GraphOp>().begin();
    std::string error;
    FailureOr<std::vector<std::vector<float>>> expected =
        simulate(graph, error);
    ASSERT_TRUE(succeeded(expected)) << "seed " << seed << ": " << error;
    MemoryProfile before = computeMemoryProfile(graph);

    for (MemoryPlanStrategy strategy :
         {MemoryPlanStrategy::None, MemoryPlanStrategy::Reuse,
          MemoryPlanStrategy::Pool}) {
      OwningOpRef<ModuleOp> module = original->clone();
      PassManager pm(&context);
      WrapperPlanMemoryPassOptions options;
      options.strategy = strategy;
      OpPassManager &nested = pm.nest<GraphOp>();
      nested.addPass(createWrapperPlanMemoryPass(options));
      nested.addPass(createWrapperVerifyLifetimesPass());
      diagnostics.clear();
      ASSERT_TRUE(succeeded(pm.run(*module)))
          << "seed " << seed << ", strategy "
          << stringifyMemoryPlanStrategy(strategy).str() << ":\n"
          << diagnostics << text;
      auto planned = *module->getOps<GraphOp>().begin();
      MemoryProfile after = computeMemoryProfile(planned);
      EXPECT_LE(after.peakBytes, before.peakBytes)
          << "seed " << seed << ", strategy "
          << stringifyMemoryPlanStrategy(strategy).str();
      FailureOr<std::vector<std::vector<float>>> actual =
          simulate(planned, error);
      ASSERT_TRUE(succeeded(actual))
          << "seed " << seed << ", strategy "
          << stringifyMemoryPlanStrategy(strategy).str() << ": " << error;
      ASSERT_EQ(expected->size(), actual->size());
      for (size_t i = 0; i < expected->size(); ++i)
        for (size_t j = 0; j < (*expected)[i].size(); ++j)
          ASSERT_EQ((*expected)[i][j], (*actual)[i][j])
              << "seed " << seed << ", strategy "
              << stringifyMemoryPlanStrategy(strategy).str() << ", output " << i
              << ", element " << j;
      if (after.allocations < before.allocations)
        ++reusedPrograms[stringifyMemoryPlanStrategy(strategy).str()];
      peakSaved[stringifyMemoryPlanStrategy(strategy).str()] +=
          before.peakBytes - after.peakBytes;
    }
  }
  // The planners must actually do something on these graphs.
  EXPECT_GT(reusedPrograms["reuse"], static_cast<int64_t>(kGraphs / 4));
  EXPECT_GT(reusedPrograms["pool"], static_cast<int64_t>(kGraphs / 4));
  EXPECT_EQ(reusedPrograms["none"], 0);
  std::printf("planned %u graphs: reuse saved allocations in %lld, pool in "
              "%lld; static peak bytes saved: reuse %lld, pool %lld\n",
              kGraphs, (long long)reusedPrograms["reuse"],
              (long long)reusedPrograms["pool"], (long long)peakSaved["reuse"],
              (long long)peakSaved["pool"]);
}

} // namespace
