// One pass over a function written in the main file: the contexts a statement
// sits in (enclosing loops, branches, single-thread guards), and for each loop
// and launch the model entry. The loop part is in LoopAnalysis.cpp, the launch
// part in LaunchAnalysis.cpp, the context walk in FunctionScanner.cpp.
#pragma once
#include "IndexPolynomial.h"
#include "Variance.h"
#include "nestor/Analysis.h"
#include "nestor/CudaSemantics.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

#include <map>
#include <set>
#include <vector>

namespace nestor {

class FunctionScanner {
public:
  FunctionScanner(AnalyzedTU &tu, const clang::FunctionDecl *fd, int &nextLoopId, int &nextLaunchId)
      : tu_(tu), ctx_(tu.astContext()), fd_(fd), variance_(ctx_), nextLoopId_(nextLoopId),
        nextLaunchId_(nextLaunchId) {}

  /// Appends the function's loops and launches to the model.
  void run();
  /// After run(), for Kernel::branchesOnGather: a condition (if, loop, ?:,
  /// && / ||) of the body subscripts memory with an index read from memory
  /// through a per-thread address (VarianceAnalysis::isDataDependent, from
  /// the variance run() computed). Helpers it calls are not looked into:
  /// their conditions are missed, which only leaves the flag off.
  bool branchesOnGather() const;

private:
  struct Context {
    std::vector<int> loops;           // enclosing loop ids (innermost last)
    bool inBranch = false;
    bool singleThreadGuard = false;   // under `if (threadIdx.x == 0)` and the like
  };

  bool deviceCode() const { return cuda::isDeviceCodeFunction(fd_); }

  // ---- contexts (FunctionScanner.cpp)
  void collectThreadLinearVars(const clang::Stmt *s);
  bool isThreadLinear(const clang::Expr *e) const;
  bool variesAcrossLanes(const clang::Expr *e, unsigned depth = 0) const;
  bool isSingleThreadTest(const clang::Expr *cond) const;
  bool isThreadIndexTest(const clang::BinaryOperator *bo) const;
  static bool exitsImmediately(const clang::Stmt *s);
  bool isOtherThreadsTest(const clang::Expr *cond) const;
  void visit(const clang::Stmt *s, Context ctx);

  // ---- loops (LoopAnalysis.cpp)
  int analyzeLoop(const clang::Stmt *s, const Context &ctx);
  const clang::VarDecl *canonicalFor(const clang::ForStmt *fs, LoopSite &loop);
  void summarizeBody(const clang::Stmt *loopStmt, const clang::Stmt *body, const clang::VarDecl *iv, LoopSite &loop);
  template <class Walk>
  void walkIndices(const clang::ArraySubscriptExpr *as, int nested, bool cond, Walk &walk);
  void recordAccess(const clang::ArraySubscriptExpr *as, bool isWrite, const std::set<const clang::VarDecl *> &derived,
                    const clang::VarDecl *iv, LoopSite &loop);

  // ---- launches (LaunchAnalysis.cpp)
  void analyzeLaunch(const clang::CUDAKernelCallExpr *kc, const Context &ctx);
  std::optional<uint64_t> constantCount(const clang::Expr *e) const;

  AnalyzedTU &tu_;
  clang::ASTContext &ctx_;
  const clang::FunctionDecl *fd_;
  VarianceAnalysis variance_;
  std::set<const clang::VarDecl *> threadLinear_;
  // Induction variables of canonical loops whose start and step are the
  // same in every thread: at each step the lanes of a warp hold one value.
  std::set<const clang::VarDecl *> lockstep_;
  std::set<const clang::Stmt *> unrollHinted_; ///< loops under `#pragma unroll`
  int &nextLoopId_;
  int &nextLaunchId_;
  /// Per loop id, the index polynomials of its accesses (one per dimension;
  /// none where an index is not a polynomial), in the order of loop.accesses.
  std::map<int, std::vector<std::optional<std::vector<IndexPolynomial>>>> indexPolynomials_;
};

} // namespace nestor
