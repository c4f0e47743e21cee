// blockAsAnalysedCondition (rewriters/loop_common/LoopCommon.h): which
// dimensions of a launch's constant block a rewrite that writes the block's
// value into the code must check at compile time, and how it spells them.
// Literals need no check; macros and named constants do, also through a
// local or constant global dim3; a macro that spells the whole dim3, and a
// constexpr dim3, are checked dimension by dimension through their name. A
// global that can change is no constant block at all.
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

TEST(BlockAsAnalysed, AMacroThatSpellsTheWholeDim3IsCheckedThroughIt) {
  // `(THREADS) == 16` would compare a dim3 with an int: each dimension is
  // read from the macro's dim3 instead (dim3's constructor is constexpr).
  EXPECT_EQ(conditionFor("#define THREADS dim3(16, 16)", "k<<<4, THREADS>>>(out);"),
            "dim3(THREADS).x == 16 && dim3(THREADS).y == 16 && dim3(THREADS).z == 1");
  EXPECT_EQ(conditionFor("#define THREADS dim3(16, 16)", "dim3 t = THREADS;\n  k<<<4, t>>>(out);"),
            "dim3(THREADS).x == 16 && dim3(THREADS).y == 16 && dim3(THREADS).z == 1");
}

TEST(BlockAsAnalysed, AConstantGlobalDim3IsChecked) {
  // At file scope, by what initialises it.
  EXPECT_EQ(conditionFor("#define B 128\nconst dim3 kBlock(B);", "k<<<4, kBlock>>>(out);"), "(B) == 128");
  EXPECT_EQ(conditionFor("#define B 64\nstatic const dim3 kBlock(B, 2);", "k<<<4, kBlock>>>(out);"), "(B) == 64");
  // A constexpr dim3 by its own name, wherever it is declared.
  EXPECT_EQ(conditionFor("#define B 32\nnamespace cfg { constexpr dim3 kBlock{B}; }", "k<<<4, cfg::kBlock>>>(out);"),
            "dim3(cfg::kBlock).x == 32 && dim3(cfg::kBlock).y == 1 && dim3(cfg::kBlock).z == 1");
  // Literals alone need no check there either.
  EXPECT_EQ(conditionFor("const dim3 kBlock(128);", "k<<<4, kBlock>>>(out);"), "");
}

TEST(BlockAsAnalysed, AGlobalThatCanChangeIsNoConstantBlock) {
  // Written at run time anywhere in the program: its initial value says
  // nothing about the launch (CUDA-NP reads such a block at run time).
  EXPECT_EQ(conditionFor("dim3 gBlock(128);", "gBlock.x = 256;\n  k<<<4, gBlock>>>(out);"), "<no block>");
  EXPECT_EQ(conditionFor("dim3 gBlock(128);", "k<<<4, gBlock>>>(out);"), "<no block>");
  EXPECT_EQ(conditionFor("int gThreads = 128;", "k<<<4, gThreads>>>(out);"), "<no block>");
  // A const dim3 in a namespace, not constexpr: what initialises it names
  // the namespace's constants, which need not be in scope at the launch.
  EXPECT_EQ(conditionFor("namespace cfg { const int kT = 128; const dim3 kBlock(kT); }", "k<<<4, cfg::kBlock>>>(out);"),
            "<no block>");
}

} // namespace
