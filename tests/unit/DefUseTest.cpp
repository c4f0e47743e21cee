// Def-use of locals (nestor/DefUse.h): which locals stand for their
// initialiser, and that one written again, or whose address is taken, does not.
#include "nestor/Analysis.h"
#include "nestor/DefUse.h"
#include "nestor/StatementEffects.h"

#include "nestor/AstText.h"

#include "clang/AST/Stmt.h"

#include <gtest/gtest.h>

#include <map>

using namespace nestor;

namespace {

const char *kSource = R"(#include <cuda_runtime.h>
__device__ void bump(int *p) { ++*p; }
__device__ void by_ref(int &r) { r = 1; }
__device__ int by_const_ref(const int &r) { return r; }
__global__ void k(const int *ptr, int *out, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int start = ptr[tid];
  int end = ptr[tid + 1];
  int alias = end;
  int assigned = ptr[0];
  assigned = 3;
  int compound = 1;
  compound += 2;
  int incremented = 0;
  incremented++;
  int addressed = 5;
  bump(&addressed);
  int referenced = 5;
  by_ref(referenced);
  int const_referenced = 7;
  int copy = by_const_ref(const_referenced);
  const int constant = 64;
  dim3 grid((n + 255) / 256);
  dim3 patched(4);
  patched.x = 8;
  int captured = 1;
  auto f = [&]() { captured = 2; };
  f();
  int uninitialised;
  uninitialised = 4;
  out[tid] = start + end + alias + assigned + compound + incremented + addressed + referenced + copy + constant +
             grid.x + patched.x + captured + uninitialised;
}
)";

class DefUse : public ::testing::Test {
protected:
  void SetUp() override {
    AnalysisOptions o;
    o.contents = kSource;
    auto r = analyzeFile("defuse.cu", o);
    ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
    tu = std::move(*r);
    const clang::FunctionDecl *fd = tu->functionDecl("k");
    ASSERT_TRUE(fd && fd->hasBody());
    forEachNode(fd->getBody(), [&](const clang::Stmt *s) {
      if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(s))
        for (const clang::Decl *d : ds->decls())
          if (auto *vd = llvm::dyn_cast<clang::VarDecl>(d)) vars[vd->getNameAsString()] = vd;
    });
  }
  const clang::VarDecl *var(const std::string &n) {
    auto it = vars.find(n);
    EXPECT_NE(it, vars.end()) << n;
    return it == vars.end() ? nullptr : it->second;
  }
  std::string initText(const std::string &n) {
    const clang::Expr *e = singleDefinition(var(n));
    return e ? textOf(e, tu->astContext()) : "<none>";
  }
  std::unique_ptr<AnalyzedTU> tu;
  std::map<std::string, const clang::VarDecl *> vars;
};

TEST_F(DefUse, LocalsWrittenOnlyByTheirDeclarationStandForTheirInitialiser) {
  EXPECT_EQ(initText("start"), "ptr[tid]");
  EXPECT_EQ(initText("end"), "ptr[tid + 1]");
  EXPECT_EQ(initText("const_referenced"), "7"); // bound to a const reference: read only
  EXPECT_EQ(initText("constant"), "64");
  EXPECT_NE(initText("grid"), "<none>");        // read through grid.x only
}

TEST_F(DefUse, ChainsOfLocalsAreFollowed) {
  const clang::VarDecl *alias = var("alias");
  ASSERT_TRUE(alias);
  const clang::Expr *through = seeThroughLocals(alias->getInit());
  EXPECT_EQ(textOf(through, tu->astContext()), "ptr[tid + 1]");
  EXPECT_EQ(singleDefinitionLocal(alias->getInit()), var("end"));
}

TEST_F(DefUse, LocalsWrittenAgainAreNotSeenThrough) {
  for (const char *n : {"assigned", "compound", "incremented", "addressed", "referenced", "patched", "captured",
                        "uninitialised"})
    EXPECT_EQ(initText(n), "<none>") << n;
  // Parameters are not locals of a single definition.
  const clang::FunctionDecl *fd = tu->functionDecl("k");
  EXPECT_EQ(singleDefinition(fd->getParamDecl(2)), nullptr);
}

} // namespace
