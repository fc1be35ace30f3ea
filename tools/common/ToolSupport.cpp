//===- ToolSupport.cpp - shared pieces of the command-line tools ----------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "ToolSupport.h"

#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"

#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"
#include "Wrapper/InitAll.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <deque>

using namespace mlir;

void mlir::wrapper::registerToolDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
}

static DialectRegistry toolRegistry() {
  DialectRegistry registry;
  mlir::wrapper::registerToolDialects(registry);
  return registry;
}

mlir::wrapper::ToolInput::ToolInput()
    : context(toolRegistry()), handler(sourceMgr, &context) {
  context.loadAllAvailableDialects();
}

std::optional<std::string> mlir::wrapper::checkNestingDepth(StringRef text,
                                                            unsigned limit) {
  unsigned depth = 0, line = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
    } else if (c == '"') {
      // A string literal: skip to its end (escapes included).
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\')
          ++i;
        else if (text[i] == '\n')
          ++line;
      }
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n')
        ++i;
    } else if (c == '-' && i + 1 < text.size() && text[i + 1] == '>') {
      ++i; // An arrow, not a closing bracket.
    } else if (c == '{' || c == '[' || c == '(' || c == '<') {
      if (++depth > limit)
        return "nesting deeper than " + std::to_string(limit) +
               " levels at line " + std::to_string(line) +
               " (the parser would run out of stack)";
    } else if ((c == '}' || c == ']' || c == ')' || c == '>') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

namespace {
/// A forward scanner over MLIR text that steps over comments and string
/// literals, counting lines: enough lexing for checkParsable's checks.
struct TextScanner {
  StringRef text;
  size_t pos = 0;
  unsigned line = 1;

  bool atEnd() const { return pos >= text.size(); }
  char peek() const { return atEnd() ? '\0' : text[pos]; }
  void advance() {
    if (text[pos++] == '\n')
      ++line;
  }
  /// Skips white space and `//` comments.
  void skipSpace() {
    while (!atEnd()) {
      if (text.substr(pos).starts_with("//")) {
        while (!atEnd() && peek() != '\n')
          advance();
      } else if (llvm::isSpace(peek())) {
        advance();
      } else {
        return;
      }
    }
  }
  /// Skips a string literal starting at `pos` (escapes included).
  void skipString() {
    for (advance(); !atEnd() && peek() != '"'; advance())
      if (peek() == '\\' && pos + 1 < text.size())
        advance();
    if (!atEnd())
      advance();
  }
  static bool isIdentChar(char c) {
    return llvm::isAlnum(c) || c == '_' || c == '.' || c == '$';
  }
  /// The bare identifier (letters, digits, `_`, `.`, `$`) at `pos`.
  StringRef identifier() const {
    size_t end = pos;
    while (end < text.size() && isIdentChar(text[end]))
      ++end;
    return text.slice(pos, end);
  }
  /// Consumes an integer literal (`-`, decimal or hex); false if none.
  bool integer() {
    if (peek() == '-')
      advance();
    if (text.substr(pos).starts_with("0x")) {
      pos += 2;
      if (!llvm::isHexDigit(peek()))
        return false;
      while (llvm::isHexDigit(peek()))
        advance();
      return true;
    }
    if (!llvm::isDigit(peek()))
      return false;
    while (llvm::isDigit(peek()))
      advance();
    return true;
  }
};
} // namespace

/// MLIR 22's custom parsers of linalg.reduce, linalg.broadcast and
/// linalg.transpose store the result of DenseI64ArrayAttr::parse without
/// checking it: a malformed `dimensions = [...]` or `permutation = [...]`
/// (anything but `[` after `=`, or `[` then `}` or the end of the file)
/// dereferences a null attribute.
/// Checks that each such list, in the custom form, is `[` integers `]`;
/// and that properties after a linalg op's name are a dictionary.
static std::optional<std::string> checkLinalgIntegerLists(StringRef text) {
  TextScanner scan{text};
  while (!scan.atEnd()) {
    char c = scan.peek();
    if (c == '"') {
      scan.skipString();
      continue;
    }
    if (c == '/' && text.substr(scan.pos).starts_with("//")) {
      scan.skipSpace();
      continue;
    }
    if (!TextScanner::isIdentChar(c)) {
      scan.advance();
      continue;
    }
    StringRef op = scan.identifier();
    scan.pos += op.size();
    if (op.starts_with("linalg.")) {
      // The named ops' parsers read `<...>` after the name as properties and
      // cast what they parsed to a dictionary unchecked: anything but `<{`
      // is undefined behaviour there.
      unsigned line = scan.line;
      scan.skipSpace();
      if (scan.peek() == '<') {
        scan.advance();
        scan.skipSpace();
        if (scan.peek() != '{')
          return ("malformed properties of " + op + " at line " + Twine(line) +
                  ": expected '<{' attributes '}>'")
              .str();
      }
    }
    if (op != "linalg.reduce" && op != "linalg.broadcast" &&
        op != "linalg.transpose")
      continue;
    // The op's own keyword comes before its region or attribute dictionary
    // (the first `{` outside brackets), after the short form's
    // `{ arith.addf }` right behind the name.
    scan.skipSpace();
    if (scan.peek() == '{') {
      while (!scan.atEnd() && scan.peek() != '}')
        scan.advance();
      if (!scan.atEnd())
        scan.advance();
    }
    int depth = 0;
    while (!scan.atEnd()) {
      c = scan.peek();
      if (c == '"') {
        scan.skipString();
      } else if (c == '/' && text.substr(scan.pos).starts_with("//")) {
        scan.skipSpace();
      } else if (c == '(' || c == '[' || c == '<') {
        ++depth;
        scan.advance();
      } else if (c == ')' || c == ']' || c == '>') {
        if (--depth < 0)
          break;
        scan.advance();
      } else if (c == '{' && depth == 0) {
        break;
      } else if (TextScanner::isIdentChar(c)) {
        StringRef word = scan.identifier();
        scan.pos += word.size();
        if (depth != 0 || (word != "dimensions" && word != "permutation"))
          continue;
        unsigned line = scan.line;
        scan.skipSpace();
        if (scan.peek() != '=')
          break;
        scan.advance();
        scan.skipSpace();
        bool valid = scan.peek() == '[';
        if (valid)
          scan.advance();
        scan.skipSpace();
        if (valid && scan.peek() != ']') {
          while (true) {
            if (!scan.integer()) {
              valid = false;
              break;
            }
            scan.skipSpace();
            if (scan.peek() != ',')
              break;
            scan.advance();
            scan.skipSpace();
          }
        }
        if (!valid || scan.peek() != ']')
          return ("malformed '" + word + "' of " + op + " at line " +
                  Twine(line) + ": expected '[' integers separated by ',' ']'")
              .str();
        break;
      } else {
        scan.advance();
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> mlir::wrapper::checkParsable(StringRef text) {
  if (std::optional<std::string> deep = checkNestingDepth(text))
    return deep;
  return checkLinalgIntegerLists(text);
}

std::unique_ptr<mlir::wrapper::ToolInput>
mlir::wrapper::ToolInput::load(StringRef path, std::string &error) {
  auto file = openInputFile(path, &error);
  if (!file)
    return nullptr;
  if (std::optional<std::string> refused = checkParsable(file->getBuffer())) {
    error = path.str() + ": " + *refused;
    return nullptr;
  }
  std::unique_ptr<ToolInput> input(new ToolInput());
  input->sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  input->module = parseSourceFile<ModuleOp>(input->sourceMgr, &input->context);
  if (!input->module)
    return nullptr;
  // Weights kept outside the text (dense_resource + a safetensors file)
  // get their values now, so that the interpreter and every stage see them.
  PassManager pm(&input->context);
  pm.addPass(tensor_program::createTensorProgramLoadWeightsPass());
  if (failed(pm.run(*input->module)))
    return nullptr;
  return input;
}

func::FuncOp mlir::wrapper::findEntryFunction(ModuleOp module, StringRef name,
                                              std::string &error) {
  // A host program (wrapper.graph) where a tensor_program function was
  // expected: say what runs it.
  auto graphNote = [&](StringRef graphName) {
    return "; '" + graphName.str() +
           "' is a wrapper.graph (a host program), which wrapper-run "
           "executes; wrapper-compile and the Python package compile "
           "tensor_program functions";
  };
  auto graphs = llvm::to_vector(module.getOps<GraphOp>());
  if (!name.empty()) {
    auto func = module.lookupSymbol<func::FuncOp>(name);
    if (!func || func.isExternal()) {
      error =
          "no function named '" + name.str() + "' with a body in the module";
      if (module.lookupSymbol<GraphOp>(name))
        error += graphNote(name);
      return {};
    }
    return func;
  }
  SmallVector<func::FuncOp> candidates;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      candidates.push_back(func);
  if (candidates.size() == 1)
    return candidates.front();
  if (auto main = module.lookupSymbol<func::FuncOp>("main"))
    return main;
  error = candidates.empty()
              ? "the module has no public function to run"
              : "the module has " + std::to_string(candidates.size()) +
                    " public functions; name one with --entry";
  if (candidates.empty() && !graphs.empty())
    error += graphNote(graphs.front().getSymName());
  return {};
}

LogicalResult mlir::wrapper::checkTensorSizes(func::FuncOp func, uint64_t limit,
                                              std::string &error) {
  auto tooLarge = [&](Type type, Location loc) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape() ||
        !tensor.getElementType().isIntOrFloat())
      return false;
    uint64_t bytes =
        llvm::divideCeil(tensor.getElementType().getIntOrFloatBitWidth(), 8);
    bool overflow = false;
    for (int64_t size : tensor.getShape()) {
      bool step = false;
      bytes = llvm::SaturatingMultiply(bytes, uint64_t(size), &step);
      overflow |= step;
    }
    if (!overflow && bytes <= limit)
      return false;
    std::string where;
    llvm::raw_string_ostream os(where);
    loc.print(os);
    std::string typeText;
    llvm::raw_string_ostream typeOs(typeText);
    type.print(typeOs);
    error = "a " + typeText + " at " + where + " needs more than " +
            std::to_string(limit) +
            " bytes (--max-tensor-bytes); it could "
            "not be allocated";
    return true;
  };
  for (Type type : func.getArgumentTypes())
    if (tooLarge(type, func.getLoc()))
      return failure();
  WalkResult result = func.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      if (tooLarge(type, op->getLoc()))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

LogicalResult mlir::wrapper::checkKernelImplementations(ModuleOp module,
                                                        std::string &error) {
  SymbolTableCollection symbols;
  for (auto kernel : module.getOps<KernelOp>()) {
    FunctionOpInterface impl = kernel.lookupImpl(symbols);
    if (!impl || !impl.isExternal())
      continue;
    error = "kernel @" + kernel.getSymName().str() + " is implemented by " +
            "@" + SymbolTable::getSymbolName(impl).str() +
            ", which is only declared in the module: give it a body (the "
            "module is compiled alone; nothing else is linked in)";
    return failure();
  }
  return success();
}

mlir::wrapper::CPUTarget
mlir::wrapper::cpuTargetOf(const llvm::TargetMachine &machine) {
  const llvm::MCSubtargetInfo *info = machine.getMCSubtargetInfo();
  CPUTarget target;
  target.cpu = machine.getTargetCPU().str();
  target.features = machine.getTargetFeatureString().str();
  target.vectorWidth = vectorWidthForFeatures([&](StringRef name) {
    return info && info->checkFeatures(("+" + name).str());
  });
  return target;
}

void mlir::wrapper::privatizeAllBut(ModuleOp module, func::FuncOp entry) {
  for (auto other : module.getOps<func::FuncOp>())
    if (other != entry)
      other.setPrivate();
}

SmallVector<std::string>
mlir::wrapper::exemptHugeFunctionsFromOptimization(llvm::Module &module,
                                                   unsigned limit) {
  SmallVector<std::string> marked;
  for (llvm::Function &function : module) {
    if (function.isDeclaration() || function.getInstructionCount() <= limit ||
        function.hasFnAttribute(llvm::Attribute::AlwaysInline))
      continue;
    function.addFnAttr(llvm::Attribute::OptimizeNone);
    function.addFnAttr(llvm::Attribute::NoInline);
    marked.push_back(function.getName().str());
  }
  return marked;
}

std::unique_ptr<llvm::TargetMachine>
mlir::wrapper::createHostTargetMachine(StringRef cpu, StringRef features,
                                       bool pic, std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) {
    error =
        "cannot detect the host CPU: " + llvm::toString(builder.takeError());
    return nullptr;
  }
  std::string lookupError;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(
      builder->getTargetTriple(), lookupError);
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      target ? target->createMCSubtargetInfo(builder->getTargetTriple(), "", "")
             : nullptr);
  // Features LLVM does not know would be ignored with a warning per use.
  if (info && !features.empty()) {
    SmallVector<StringRef> requested;
    features.split(requested, ',', -1, /*KeepEmpty=*/false);
    for (StringRef feature : requested) {
      StringRef name = feature.trim();
      if (!name.consume_front("+") && !name.consume_front("-")) {
        error = "CPU feature '" + feature.trim().str() +
                "' needs a + (add) or - (remove) in front, as in +avx2";
        return nullptr;
      }
      bool known = false;
      StringRef closest;
      unsigned closestDistance = ~0u;
      for (const llvm::SubtargetFeatureKV &kv :
           info->getAllProcessorFeatures()) {
        if (name == kv.Key) {
          known = true;
          break;
        }
        unsigned distance = name.edit_distance(kv.Key);
        if (distance < closestDistance) {
          closestDistance = distance;
          closest = kv.Key;
        }
      }
      if (!known) {
        error = "unknown CPU feature '" + name.str() + "' for " +
                builder->getTargetTriple().str();
        if (closestDistance <= 2)
          error += "; did you mean '" + closest.str() + "'?";
        error += " (llc -mattr=help lists the known ones)";
        return nullptr;
      }
    }
  }
  if (!cpu.empty()) {
    if (!info || !info->isCPUStringValid(cpu)) {
      error = "unknown CPU '" + cpu.str() + "' for " +
              builder->getTargetTriple().str() +
              " (llc -mcpu=help lists the known ones)";
      return nullptr;
    }
    // Another CPU: its own features, not the host's.
    builder->setCPU(cpu.str());
    builder->getFeatures() = llvm::SubtargetFeatures();
  }
  // Full-width vectors where the CPU has AVX-512: LLVM tunes recent Intel
  // cores for 256-bit vectors, but these kernels are throughput-bound loops,
  // measured faster with 512-bit ones (bench/run.sh cpu on Sapphire
  // Rapids). --mattr=+prefer-256-bit restores LLVM's choice; the feature
  // is harmless on CPUs without AVX-512.
  if (builder->getTargetTriple().isX86() &&
      !features.contains("prefer-256-bit"))
    builder->addFeatures({"-prefer-256-bit"});
  if (!features.empty())
    builder->addFeatures(llvm::SubtargetFeatures(features).getFeatures());
  // "Less": the instruction selection and scheduling of "Aggressive"
  // cost twice the compile time for no measured speed (resnet18, BERT).
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Less);
  if (pic)
    builder->setRelocationModel(llvm::Reloc::PIC_);
  auto machine = builder->createTargetMachine();
  if (!machine) {
    error = "cannot create a target machine: " +
            llvm::toString(machine.takeError());
    return nullptr;
  }
  return std::move(*machine);
}

void mlir::wrapper::appendDefaultToHelp(llvm::cl::Option &option,
                                        StringRef value) {
  // The option keeps a StringRef: the texts live as long as the program.
  static std::deque<std::string> texts;
  if (option.HelpStr.contains("(default"))
    return;
  texts.push_back((option.HelpStr + " (default: " + value + ")").str());
  option.setDescription(texts.back());
}
