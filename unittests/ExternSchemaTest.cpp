//===- ExternSchemaTest.cpp - parsing of operator schemas -----------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Extern/Schema.h"

#include "gtest/gtest.h"

using namespace mlir::wrapper;

namespace {

Schema parseOrFail(const char *text) {
  std::string error;
  std::optional<Schema> schema = parseSchema(text, error);
  EXPECT_TRUE(schema.has_value()) << text << ": " << error;
  return schema.value_or(Schema());
}

std::string errorOf(const char *text) {
  std::string error;
  EXPECT_FALSE(parseSchema(text, error).has_value()) << text;
  return error;
}

TEST(ExternSchema, Functional) {
  Schema mm = parseOrFail("mm(Tensor self, Tensor mat2) -> Tensor");
  EXPECT_EQ(mm.name, "mm");
  ASSERT_EQ(mm.arguments.size(), 2u);
  EXPECT_EQ(mm.arguments[1].name, "mat2");
  EXPECT_EQ(mm.arguments[1].type.base, SchemaBaseType::Tensor);
  ASSERT_EQ(mm.returns.size(), 1u);
  EXPECT_TRUE(mm.returns[0].name.empty());
  EXPECT_FALSE(mm.isOutVariant());
  EXPECT_FALSE(mm.isInPlace());
  EXPECT_EQ(mm.numPositional(), 2u);
}

TEST(ExternSchema, KeywordOnlyDefaults) {
  Schema addmm = parseOrFail("aten::addmm(Tensor self, Tensor mat1, Tensor "
                             "mat2, *, Scalar beta=1, Scalar alpha=1) -> "
                             "Tensor");
  EXPECT_EQ(addmm.ns, "aten");
  EXPECT_EQ(addmm.qualifiedName(), "aten::addmm");
  EXPECT_EQ(addmm.numPositional(), 3u);
  const SchemaArgument *beta = addmm.lookup("beta");
  ASSERT_NE(beta, nullptr);
  EXPECT_TRUE(beta->keywordOnly);
  EXPECT_EQ(beta->type.base, SchemaBaseType::Scalar);
  EXPECT_EQ(beta->defaultValue.value_or(""), "1");
  EXPECT_EQ(addmm.str(), "aten::addmm(Tensor self, Tensor mat1, Tensor mat2, "
                         "*, Scalar beta=1, Scalar alpha=1) -> Tensor");
}

TEST(ExternSchema, TupleReturnsAndBools) {
  Schema topk = parseOrFail("topk(Tensor self, int k, int dim=-1, bool "
                            "largest=True, bool sorted=True) -> (Tensor "
                            "values, Tensor indices)");
  ASSERT_EQ(topk.returns.size(), 2u);
  EXPECT_EQ(topk.returns[0].name, "values");
  EXPECT_EQ(topk.returns[1].name, "indices");
  EXPECT_EQ(topk.lookup("dim")->defaultValue.value_or(""), "-1");
  EXPECT_EQ(topk.lookup("largest")->type.base, SchemaBaseType::Bool);
}

TEST(ExternSchema, OptionalsListsAliases) {
  Schema conv = parseOrFail(
      "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] "
      "stride=1, int[2] padding=0, int[2] dilation=1, int groups=1) -> "
      "Tensor");
  const SchemaArgument *bias = conv.lookup("bias");
  EXPECT_TRUE(bias->type.optional);
  EXPECT_EQ(bias->defaultValue.value_or(""), "None");
  const SchemaArgument *stride = conv.lookup("stride");
  EXPECT_TRUE(stride->type.list);
  EXPECT_EQ(stride->type.listSize.value_or(-1), 2);

  Schema out = parseOrFail(
      "mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(out.overload, "out");
  EXPECT_TRUE(out.isOutVariant());
  EXPECT_TRUE(out.lookup("out")->type.mutates);
  EXPECT_EQ(out.returns[0].type.aliasSet, "a");

  Schema inplace =
      parseOrFail("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar "
                  "alpha=1) -> Tensor(a!)");
  EXPECT_TRUE(inplace.isInPlace());
  EXPECT_FALSE(inplace.isOutVariant());

  Schema lists = parseOrFail("index(Tensor self, Tensor?[] indices, int[]? "
                             "dims=None, str reduce=\"mean, sum\", float[] "
                             "w=[1.0, 2.0]) -> ()");
  EXPECT_TRUE(lists.lookup("indices")->type.optional);
  EXPECT_TRUE(lists.lookup("indices")->type.list);
  EXPECT_TRUE(lists.lookup("dims")->type.optionalList);
  EXPECT_EQ(lists.lookup("reduce")->defaultValue.value_or(""), "\"mean, sum\"");
  EXPECT_EQ(lists.lookup("w")->defaultValue.value_or(""), "[1.0, 2.0]");
  EXPECT_TRUE(lists.returns.empty());
  // Printing and parsing again gives the same schema.
  Schema again = parseOrFail(lists.str().c_str());
  EXPECT_EQ(again.str(), lists.str());
}

TEST(ExternSchema, Refusals) {
  EXPECT_EQ(errorOf("mm(Tensor self, Tensr mat2) -> Tensor"),
            "unknown type 'Tensr'");
  EXPECT_EQ(errorOf("mm(Tensor self, Tensor self) -> Tensor"),
            "argument 'self' appears twice");
  EXPECT_EQ(errorOf("f(int a=1, int b) -> Tensor"),
            "argument 'b' has no default but follows one that has");
  EXPECT_EQ(errorOf("f(*, int a, *, int b) -> Tensor"),
            "a second '*' in the argument list");
  EXPECT_EQ(errorOf("mm(Tensor self) Tensor"),
            "at column 17: expected '->' before 'Tensor'");
  EXPECT_EQ(errorOf("mm(Tensor self) -> Tensor out junk"),
            "at column 31: expected the end of the schema before 'junk'");
  EXPECT_EQ(errorOf("f(str s=\"open) -> Tensor"),
            "at column 25: expected the end of a string default at the end");
  EXPECT_EQ(errorOf(""), "at column 1: expected an operator name at the end");
}

} // namespace

#include "Wrapper/Extern/Registry.h"

namespace {

TEST(ExternRegistry, EntriesAndVariants) {
  const ExternRegistry &registry = ExternRegistry::get();
  EXPECT_GE(registry.kernels().size(), 13u);
  // Every kernel the CPU runtime is to provide is registered.
  for (const char *name :
       {"aten::mm", "aten::bmm", "aten::addmm", "aten::conv2d", "aten::topk",
        "aten::sort", "aten::argmax", "aten::cumsum", "aten::index_select",
        "aten::gather", "aten::scatter_add", "aten::embedding",
        "aten::_scaled_mm"})
    EXPECT_NE(registry.lookup(name), nullptr) << name;
  ExternVariant variant = ExternVariant::Functional;
  const ExternKernel *relu = registry.lookup("aten::relu_", &variant);
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(variant, ExternVariant::InPlace);
  EXPECT_TRUE(relu->inPlace);
  const ExternKernel *mm = registry.lookup("aten::mm.out", &variant);
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(variant, ExternVariant::Out);
  EXPECT_TRUE(mm->out);
  EXPECT_FALSE(mm->inPlace);
  EXPECT_EQ(registry.lookup("mm"), mm); // aten is the default namespace
  EXPECT_EQ(registry.lookup("aten::_scaled_mm")->schema.name, "_scaled_mm");
  EXPECT_EQ(registry.lookup("aten::nonexistent"), nullptr);
  EXPECT_EQ(registry.lookup("other::mm"), nullptr);
}

} // namespace
