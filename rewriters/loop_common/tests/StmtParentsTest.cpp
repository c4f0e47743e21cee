// StmtParents (rewriters/loop_common/StmtParents.h) answers what clang's
// whole-unit parent map answers, for every statement of every function of
// the main file: the rewrites' checks walk up from a loop or a launch with it
// instead of ASTContext::getParents(), which costs 100-300 ms per analysis.
#include "../StmtParents.h"

#include "nestor/Analysis.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace nestor;

namespace {

/// Every function with a body in the main file, and every statement
/// RecursiveASTVisitor reaches from it (implicit code and template
/// instantiations included, as clang's parent map traverses).
class FunctionStatements : public clang::RecursiveASTVisitor<FunctionStatements> {
public:
  explicit FunctionStatements(clang::ASTContext &ctx) : ctx_(ctx) {}
  bool shouldVisitImplicitCode() const { return true; }
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool VisitFunctionDecl(clang::FunctionDecl *fd) {
    if (fd->hasBody() && ctx_.getSourceManager().isInMainFile(fd->getLocation())) functions.push_back(fd);
    return true;
  }
  std::vector<const clang::FunctionDecl *> functions;

private:
  clang::ASTContext &ctx_;
};

class StatementsOf : public clang::RecursiveASTVisitor<StatementsOf> {
public:
  bool shouldVisitImplicitCode() const { return true; }
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool VisitStmt(clang::Stmt *s) {
    statements.push_back(s);
    return true;
  }
  std::vector<const clang::Stmt *> statements;
};

class StmtParentsAgree : public ::testing::TestWithParam<std::string> {};

TEST_P(StmtParentsAgree, WithClangsParentMap) {
  const std::string path = std::string(NESTOR_SOURCE_DIR) + "/" + GetParam();
  AnalysisOptions o;
  o.flags.userFlags = {"-fgpu-rdc", "-I" + std::string(NESTOR_SOURCE_DIR) + "/examples/graph",
                       "-I" + std::string(NESTOR_SOURCE_DIR) + "/tests/fixtures/loops"};
  auto tu = analyzeFile(path, o);
  ASSERT_TRUE(bool(tu)) << llvm::toString(tu.takeError());
  clang::ASTContext &ctx = (*tu)->astContext();
  FunctionStatements functions(ctx);
  functions.TraverseDecl(ctx.getTranslationUnitDecl());
  ASSERT_FALSE(functions.functions.empty()) << GetParam();
  size_t compared = 0;
  for (const clang::FunctionDecl *fd : functions.functions) {
    StatementsOf all;
    all.TraverseDecl(const_cast<clang::FunctionDecl *>(fd));
    const loops::StmtParents &parents = loops::parentsOf(ctx, fd);
    for (const clang::Stmt *s : all.statements) {
      auto expected = ctx.getParents(*s);
      const clang::Stmt *got = parents.parentOf(s);
      if (expected.size() > 1) {
        // A node shared by several trees (a template's non-dependent code and
        // its instantiation, a default argument at each call) has a parent in
        // each; the function's own tree answers with one of them.
        bool found = false;
        for (const clang::DynTypedNode &n : expected) found |= n.get<clang::Stmt>() == got;
        EXPECT_TRUE(found) << GetParam() << ": " << fd->getNameAsString() << ", a shared " << s->getStmtClassName()
                           << " at " << s->getBeginLoc().printToString(ctx.getSourceManager());
      } else {
        const clang::Stmt *want = expected.empty() ? nullptr : expected[0].template get<clang::Stmt>();
        EXPECT_EQ(got, want) << GetParam() << ": " << fd->getNameAsString() << ", a " << s->getStmtClassName() << " at "
                             << s->getBeginLoc().printToString(ctx.getSourceManager());
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, 0u);
}

INSTANTIATE_TEST_SUITE_P(Files, StmtParentsAgree,
                         ::testing::Values("rewriters/loop_common/tests/parents_shapes.cu", "examples/graph/bfs.cu",
                                           "examples/graph/sssp.cu", "tests/fixtures/loops/spmv_csr.cu",
                                           "tests/fixtures/loops/broadcast.cu", "tests/fixtures/loops/refusals.cu",
                                           "tests/fixtures/dp/row_tile_sum.cu"),
                         [](const auto &info) {
                           std::string n = info.param;
                           for (char &c : n)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

} // namespace
