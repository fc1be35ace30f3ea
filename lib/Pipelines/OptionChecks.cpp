//===- OptionChecks.cpp - option values checked before anything runs ------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// The pipelines' options are checked when a pipeline is built, before any
// pass runs: a misspelled name gets the closest known one, a value of the
// wrong kind or outside its set gets the accepted values. Without this the
// mistakes surfaced late (a pass failing on the first function, with an IR
// dump) or were printed by the command-line parser as an internal option.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Pipelines/Pipelines.h"

#include "Wrapper/Dialect/TensorProgram/Transforms/FusionStrategy.h"

#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::wrapper;

namespace {
/// One `key=value` of an option string (`value` empty for a bare `key`).
struct OptionToken {
  StringRef key;
  StringRef value;
  bool hasValue = false;
};
} // namespace

/// Splits an option string the way MLIR's option parser does: entries
/// separated by spaces, values possibly in braces or quotes.
static SmallVector<OptionToken> tokenize(StringRef text) {
  SmallVector<OptionToken> tokens;
  text = text.trim();
  if (text.consume_front("{"))
    text.consume_back("}");
  size_t i = 0;
  auto skipSpaces = [&] {
    while (i < text.size() && llvm::isSpace(text[i]))
      ++i;
  };
  skipSpaces();
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && text[i] != '=' && !llvm::isSpace(text[i]))
      ++i;
    OptionToken token;
    token.key = text.slice(start, i);
    if (i < text.size() && text[i] == '=') {
      token.hasValue = true;
      size_t valueStart = ++i;
      int depth = 0;
      char quote = 0;
      for (; i < text.size(); ++i) {
        char c = text[i];
        if (quote) {
          if (c == quote)
            quote = 0;
        } else if (c == '"' || c == '\'') {
          quote = c;
        } else if (c == '{') {
          ++depth;
        } else if (c == '}') {
          --depth;
        } else if (llvm::isSpace(c) && depth <= 0) {
          break;
        }
      }
      token.value = text.slice(valueStart, i);
    }
    tokens.push_back(token);
    skipSpaces();
  }
  return tokens;
}

/// Prints the GEMM template's options as PassOptions::print does, for
/// checkOptionText. List options print only when set: the list of integers
/// is given two elements (printed "{0,0}"), which the checker reads as an
/// integer list.
static void printOptionsForChecks(const GemmTemplateOptions &defaults,
                                  llvm::raw_ostream &os) {
  GemmTemplateOptions copy(defaults);
  if (!copy.prepackArguments.hasValue())
    copy.prepackArguments = ArrayRef<int64_t>{0, 0};
  copy.print(os);
}

static bool isBoolText(StringRef value) {
  return llvm::is_contained(
      {"true", "false", "1", "0", "True", "False", "TRUE", "FALSE"}, value);
}

static bool isIntegerText(StringRef value) {
  int64_t unused;
  return !value.getAsInteger(10, unused);
}

/// Every option of the set of options that the option `name` takes as its
/// value, as PassOptions::print writes them (the value itself prints only
/// the options that are set).
static std::string printNestedOptions(StringRef name) {
  std::string printed;
  llvm::raw_string_ostream os(printed);
  if (name == "gemm-options")
    printOptionsForChecks(GemmTemplateOptions(), os);
  return printed;
}

/// Checks `text` against the options listed (with their defaults) in
/// `printed`, the form PassOptions::print writes.
static std::optional<std::string>
checkOptionText(StringRef text, StringRef printed, StringRef what) {
  llvm::StringMap<StringRef> known;
  SmallVector<StringRef> names;
  for (const OptionToken &token : tokenize(printed)) {
    known[token.key] = token.value;
    names.push_back(token.key);
  }
  for (const OptionToken &token : tokenize(text)) {
    auto it = known.find(token.key);
    if (it == known.end()) {
      std::string message =
          "unknown option '" + token.key.str() + "' of " + what.str();
      StringRef best;
      unsigned bestDistance = ~0u;
      for (StringRef name : names) {
        unsigned distance = token.key.edit_distance(name);
        if (distance < bestDistance) {
          bestDistance = distance;
          best = name;
        }
      }
      if (!best.empty() && bestDistance <= std::max<size_t>(2, best.size() / 3))
        message += "; did you mean '" + best.str() + "'?";
      else
        message += "; its options are " + llvm::join(names, ", ");
      return message;
    }
    // The option's kind, as its printed default shows it; options whose
    // value is itself a set of options (gemm-options={kc=384}) are checked
    // against the set's.
    StringRef standard = it->second;
    std::string nested = printNestedOptions(token.key);
    if (standard.starts_with("{") && nested.empty())
      standard = standard.drop_front().drop_back(); // A list: {0,0}.
    if (standard.starts_with("{") && token.hasValue) {
      if (std::optional<std::string> problem = checkOptionText(
              token.value, nested, (token.key + " of " + what).str()))
        return problem;
      continue;
    }
    bool isBool = standard == "true" || standard == "false";
    bool isInteger = !isBool && isIntegerText(standard);
    // A list of integers ("0,0", see printOptionsForChecks).
    if (standard.contains(',') && token.hasValue) {
      StringRef list = token.value;
      if (list.starts_with("{") && list.ends_with("}"))
        list = list.drop_front().drop_back();
      SmallVector<StringRef> items;
      list.split(items, ',');
      for (StringRef item : items)
        if (!isIntegerText(item.trim()))
          return "option '" + token.key.str() + "' of " + what.str() +
                 " is a list of integers, got '" + token.value.str() + "'";
      continue;
    }
    if (!token.hasValue) {
      if (!isBool)
        return "option '" + token.key.str() + "' of " + what.str() +
               " needs a value ('" + token.key.str() + "=...')";
      continue;
    }
    if (isBool && !isBoolText(token.value))
      return "option '" + token.key.str() + "' of " + what.str() +
             " is true or false, got '" + token.value.str() + "'";
    if (isInteger && !isIntegerText(token.value))
      return "option '" + token.key.str() + "' of " + what.str() +
             " is an integer, got '" + token.value.str() + "'";
  }
  return std::nullopt;
}

std::optional<std::string> mlir::wrapper::checkOptionString(
    StringRef text, const mlir::detail::PassOptions &defaults, StringRef what) {
  std::string printed;
  llvm::raw_string_ostream os(printed);
  defaults.print(os);
  return checkOptionText(text, printed, what);
}

std::optional<std::string> mlir::wrapper::checkOptionString(
    StringRef text, const GemmTemplateOptions &defaults, StringRef what) {
  std::string printed;
  llvm::raw_string_ostream os(printed);
  printOptionsForChecks(defaults, os);
  return checkOptionText(text, printed, what);
}

/// The code generator's options (shared by the CPU pipelines).
template <typename Derived, typename Base>
static std::optional<std::string>
checkCodegen(const CPUCodegenOptionsMixin<Derived, Base> &options) {
  if (options.tileElements < 0)
    return "tile-elements must be 0 (no tiling) or positive, got " +
           std::to_string(options.tileElements);
  int64_t width = options.vectorWidth;
  if (width < 0 || width > 64 || (width & (width - 1)))
    return "vector-width must be 0 (from the target) or a power of two up "
           "to 64, got " +
           std::to_string(width);
  const GemmTemplateOptions &gemm = options.gemmOptions;
  for (const PipelineOption<int64_t> *size :
       {&gemm.mr, &gemm.nr, &gemm.kc, &gemm.mc, &gemm.nc, &gemm.minParallelWork,
        &gemm.smallMRows})
    if (*size < 0)
      return "gemm-options: " + size->getArgStr().str() +
             " must not be negative, got " + std::to_string(*size);
  return std::nullopt;
}

std::optional<std::string>
mlir::wrapper::checkPipelineOptions(const CPUCodegenOptions &options) {
  return checkCodegen(options);
}

/// The front end's options (shared by the CPU and CUDA pipelines).
template <typename Derived, typename Base>
static std::optional<std::string>
checkFrontend(const FrontendOptionsMixin<Derived, Base> &options) {
  if (options.collectiveBucketBytes < 0)
    return "collective-bucket-bytes must not be negative, got " +
           std::to_string(options.collectiveBucketBytes);
  StringRef mode = options.collectiveBucketMode;
  if (mode != "concat" && mode != "coalesced")
    return "collective-bucket-mode must be concat or coalesced, got '" +
           mode.str() + "'";
  std::string name = options.fuseStrategy;
  if (tensor_program::createFusionStrategy(name))
    return std::nullopt;
  std::string names;
  for (const auto &[known, description] : tensor_program::getFusionStrategies())
    names += (names.empty() ? "" : ", ") + known;
  return "fuse-strategy '" + name +
         "' is not a registered fusion strategy; the strategies are " + names;
}

std::optional<std::string>
mlir::wrapper::checkPipelineOptions(const CPUPipelineOptions &options) {
  if (std::optional<std::string> problem = checkFrontend(options))
    return problem;
  return checkCodegen(options);
}

std::optional<std::string>
mlir::wrapper::checkPipelineOptions(const CUDAPipelineOptions &options) {
  if (std::optional<std::string> problem = checkFrontend(options))
    return problem;
  StringRef chip = options.chip;
  unsigned version;
  if (!chip.consume_front("sm_") || chip.consumeInteger(10, version) ||
      (!chip.empty() && chip != "a"))
    return "chip must name an NVIDIA architecture as sm_<N> (sm_80, sm_90, "
           "sm_90a), got '" +
           options.chip.getValue() + "'";
  if (options.blockSize < 1 || options.blockSize > 1024)
    return "block-size must be between 1 and 1024 threads, got " +
           std::to_string(options.blockSize);
  if (options.rowBlockSize < 0 || options.rowBlockSize > 1024)
    return "row-block-size must be 0 (from the row length) or at most 1024 "
           "threads, got " +
           std::to_string(options.rowBlockSize);
  StringRef device = options.device;
  if (device != "cuda" &&
      (!device.consume_front("cuda:") || !isIntegerText(device)))
    return "device must be cuda or cuda:N, got '" + options.device.getValue() +
           "'";
  return std::nullopt;
}
