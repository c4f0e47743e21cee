// blockAsAnalysedCondition (rewriters/loop_common/LoopCommon.h): which
// dimensions of a launch's constant block a rewrite that writes the block's
// value into the code must check at compile time, and how it spells them.
// Literals need no check; macros and named constants do, also through a
// local dim3; a macro that spells the whole dim3 has no per-dimension
// spelling to repeat.
#include "../LoopCommon.h"

#include "nestor/Analysis.h"

#include <gtest/gtest.h>

#include <string>

using namespace nestor;

namespace {

/// The condition for the one host launch of `host` (a statement list run in
/// main), with `before` at file scope; "<no block>" when the block is not a
/// compile-time constant.
std::string conditionFor(const std::string &before, const std::string &host) {
  AnalysisOptions o;
  o.contents = before + "\n__global__ void k(int *out) { out[threadIdx.x] = 1; }\n"
                        "int main() {\n  int *out = nullptr;\n  " + host + "\n  return 0;\n}\n";
  auto tu = analyzeFile("block_as_analysed_test.cu", o);
  EXPECT_TRUE(bool(tu));
  if (!tu) {
    llvm::consumeError(tu.takeError());
    return "<no unit>";
  }
  const FileModel &m = (*tu)->model();
  EXPECT_EQ(m.launches.size(), 1u) << *o.contents;
  if (m.launches.size() != 1) return "<launches>";
  auto b = loops::constantBlock(**tu, 0);
  if (!b) return "<no block>";
  return loops::blockAsAnalysedCondition(**tu, 0, *b);
}

TEST(BlockAsAnalysed, ALiteralBlockNeedsNoCheck) {
  EXPECT_EQ(conditionFor("", "k<<<4, 128>>>(out);"), "");
  EXPECT_EQ(conditionFor("", "k<<<4, dim3(16, 8)>>>(out);"), "");
  EXPECT_EQ(conditionFor("", "dim3 threads(32);\n  k<<<4, threads>>>(out);"), "");
}

TEST(BlockAsAnalysed, AMacroBlockIsCheckedByItsName) {
  EXPECT_EQ(conditionFor("#define B 128", "k<<<4, B>>>(out);"), "(B) == 128");
  EXPECT_EQ(conditionFor("#ifndef B\n#define B 256\n#endif", "k<<<(1000 + B - 1) / B, B>>>(out);"), "(B) == 256");
  EXPECT_EQ(conditionFor("#define B 128", "k<<<4, 2 * B>>>(out);"), "(2 * B) == 256");
}

TEST(BlockAsAnalysed, NamedConstantsAndEachDimensionOfADim3) {
  EXPECT_EQ(conditionFor("constexpr int kBlock = 64;", "k<<<4, kBlock>>>(out);"), "(kBlock) == 64");
  EXPECT_EQ(conditionFor("enum { kThreads = 128 };", "k<<<4, kThreads>>>(out);"), "(kThreads) == 128");
  EXPECT_EQ(conditionFor("#define BX 16\n#define BY 8", "k<<<4, dim3(BX, BY)>>>(out);"), "(BX) == 16 && (BY) == 8");
  EXPECT_EQ(conditionFor("#define BX 16", "k<<<4, dim3(BX, 4)>>>(out);"), "(BX) == 16");
}

TEST(BlockAsAnalysed, ALocalDim3IsCheckedByWhatInitialisesIt) {
  EXPECT_EQ(conditionFor("#define BLOCK_SIZE 256", "dim3 threads(BLOCK_SIZE);\n  k<<<4, threads>>>(out);"),
            "(BLOCK_SIZE) == 256");
  EXPECT_EQ(conditionFor("#define BLOCK_SIZE 64", "const dim3 threads(BLOCK_SIZE, 2);\n  k<<<4, threads>>>(out);"),
            "(BLOCK_SIZE) == 64");
  // A plain int local is not taken as a constant block (CUDA-NP reads it at
  // run time: nestor::np::reshape_block), so there is nothing to check.
  EXPECT_EQ(conditionFor("#define BLOCK_SIZE 64", "int block = BLOCK_SIZE;\n  k<<<4, block>>>(out);"), "<no block>");
}

TEST(BlockAsAnalysed, AMacroThatSpellsTheWholeDim3HasNoDimensionToRepeat) {
  // `(THREADS) == 16` would compare a dim3 with an int: no check is written.
  EXPECT_EQ(conditionFor("#define THREADS dim3(16, 16)", "k<<<4, THREADS>>>(out);"), "");
}

} // namespace
