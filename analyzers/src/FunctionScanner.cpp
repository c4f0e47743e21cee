// The context walk of FunctionScanner (FunctionScanner.h): which loops and
// branches enclose a statement, and whether only one thread of the block runs
// it (`if (threadIdx.x == 0)`, or after `if (threadIdx.x != 0) return;`).
#include "FunctionScanner.h"
#include "nestor/AstText.h"
#include "nestor/CudaSemantics.h"
#include "nestor/DefUse.h"
#include "ExprPatterns.h"
#include "nestor/StatementEffects.h"

#include "clang/AST/Attr.h"

#include <functional>

namespace nestor {

using namespace clang;

void FunctionScanner::run() {
  if (cuda::isDeviceCodeFunction(fd_)) variance_.run(fd_);
  collectThreadLinearVars(fd_->getBody());
  visit(fd_->getBody(), {});
}

bool FunctionScanner::branchesOnGather() const {
  std::function<bool(const Stmt *)> gathers = [&](const Stmt *s) {
    if (!s) return false;
    if (auto *ase = dyn_cast<ArraySubscriptExpr>(s); ase && variance_.isDataDependent(ase->getIdx())) return true;
    for (const Stmt *c : s->children())
      if (gathers(c)) return true;
    return false;
  };
  std::function<bool(const Stmt *)> walk = [&](const Stmt *s) {
    if (!s) return false;
    const Expr *cond = nullptr;
    if (auto *i = dyn_cast<IfStmt>(s)) cond = i->getCond();
    else if (auto *w = dyn_cast<WhileStmt>(s)) cond = w->getCond();
    else if (auto *f = dyn_cast<ForStmt>(s)) cond = f->getCond();
    else if (auto *d = dyn_cast<DoStmt>(s)) cond = d->getCond();
    else if (auto *c = dyn_cast<ConditionalOperator>(s)) cond = c->getCond();
    else if (auto *b = dyn_cast<BinaryOperator>(s); b && b->isLogicalOp()) cond = b->getLHS();
    if (cond && gathers(cond)) return true;
    for (const Stmt *c : s->children())
      if (walk(c)) return true;
    return false;
  };
  return deviceCode() && walk(fd_->getBody());
}

void FunctionScanner::collectThreadLinearVars(const Stmt *s) {
  if (!s) return;
  if (auto *ds = dyn_cast<DeclStmt>(s))
    for (const Decl *d : ds->decls())
      if (auto *vd = dyn_cast<VarDecl>(d))
        if (vd->hasInit() && isThreadLinear(vd->getInit())) threadLinear_.insert(vd);
  for (const Stmt *c : s->children()) collectThreadLinearVars(c);
}

bool FunctionScanner::isThreadLinear(const Expr *e) const {
  std::vector<const Expr *> terms;
  additiveTerms(e, terms);
  for (const Expr *t : terms) {
    if (isThreadIdxX(t)) return true;
    // `t % C` (a flattened 2D index's column, `lag = t % maxlag`) steps by
    // one from a thread to the next within each run of C threads.
    if (auto *bo = dyn_cast<BinaryOperator>(t->IgnoreParenImpCasts()); bo && bo->getOpcode() == BO_Rem)
      if (isThreadLinear(bo->getLHS()) && variance_.of(bo->getRHS()) != Variance::ThreadVarying) return true;
    if (auto *vd = referencedVar(t))
      if (threadLinear_.count(vd)) return true;
  }
  return false;
}

// Whether `e` differs between the lanes of a warp. A flattened 2D index's
// row, `t / C` (`s = t / maxlag`, and a base `x + s * len` built from it),
// is the same for runs of C consecutive threads: taken as the same across a
// warp unless C is a constant under 32. blockIdx and blockDim are the same
// across a warp too. For the cost model only (ArrayAccess::dependsOnThread):
// no rewrite or dependence decision reads it.
bool FunctionScanner::variesAcrossLanes(const Expr *e, unsigned depth) const {
  if (!e || variance_.of(e) != Variance::ThreadVarying) return false;
  e = e->IgnoreParenImpCasts();
  if (auto b = cuda::builtinComponent(e)) return b->builtin == "threadIdx";
  if (auto *bo = dyn_cast<BinaryOperator>(e)) {
    const BinaryOperatorKind op = bo->getOpcode();
    if ((op == BO_Div || op == BO_Shr) && variance_.of(bo->getRHS()) != Variance::ThreadVarying) {
      std::optional<llvm::APSInt> c =
          bo->getRHS()->isValueDependent() ? std::nullopt : bo->getRHS()->getIntegerConstantExpr(ctx_);
      // getLimitedValue, not getExtValue: an unsigned constant past INT64_MAX
      // must not trip APSInt's assertion.
      const bool wide = !c || (!c->isNegative() && c->getLimitedValue() >= (op == BO_Div ? 32u : 5u));
      if (wide) return false;
    }
  }
  if (auto *dre = dyn_cast<DeclRefExpr>(e)) {
    auto *vd = dyn_cast<VarDecl>(dre->getDecl());
    if (vd && lockstep_.count(vd)) return false; // the lanes step through the same values
    const Expr *init = vd && depth < 4 ? singleDefinition(vd) : nullptr;
    return init ? variesAcrossLanes(init, depth + 1) : true;
  }
  bool anyChild = false;
  for (const Stmt *c : e->children())
    if (auto *ce = dyn_cast_or_null<Expr>(c)) {
      anyChild = true;
      if (variesAcrossLanes(ce, depth)) return true;
    }
  // A thread-varying node with no varying operand (a call, a load through
  // a thread's pointer seen no further): varying.
  return !anyChild || isa<CallExpr>(e) || isa<ArraySubscriptExpr>(e) || isa<UnaryOperator>(e);
}

bool FunctionScanner::isSingleThreadTest(const Expr *cond) const {
  cond = cond->IgnoreParenImpCasts();
  if (auto *bo = dyn_cast<BinaryOperator>(cond)) {
    if (bo->getOpcode() == BO_LAnd)
      return isSingleThreadTest(bo->getLHS()) || isSingleThreadTest(bo->getRHS());
    if (bo->getOpcode() == BO_EQ) {
      Variance l = variance_.of(bo->getLHS()), r = variance_.of(bo->getRHS());
      return (l == Variance::ThreadVarying) != (r == Variance::ThreadVarying) && isThreadIndexTest(bo);
    }
  }
  if (auto *uo = dyn_cast<UnaryOperator>(cond)) // if (!threadIdx.x)
    if (uo->getOpcode() == UO_LNot) return variance_.of(uo->getSubExpr()) == Variance::ThreadVarying;
  return false;
}

// A comparison of thread indices (threadIdx.x == 0, lane != 0), not of data
// loaded per thread (levels[v] == level), which selects many threads.
bool FunctionScanner::isThreadIndexTest(const BinaryOperator *bo) const {
  return !containsLoad(bo) && !variance_.isDataDependent(bo->getLHS()) && !variance_.isDataDependent(bo->getRHS());
}

bool FunctionScanner::exitsImmediately(const Stmt *s) {
  if (isa_and_nonnull<ReturnStmt>(s)) return true;
  if (auto *cs = dyn_cast_or_null<CompoundStmt>(s)) return cs->size() == 1 && isa<ReturnStmt>(cs->body_front());
  return false;
}

// True for conditions that hold for all threads but one: `tid != 0`,
// `threadIdx.x > 0`, `threadIdx.x` (non-zero), and `||` of those.
bool FunctionScanner::isOtherThreadsTest(const Expr *cond) const {
  cond = cond->IgnoreParenImpCasts();
  if (auto *bo = dyn_cast<BinaryOperator>(cond)) {
    if (bo->getOpcode() == BO_LOr) return isOtherThreadsTest(bo->getLHS()) || isOtherThreadsTest(bo->getRHS());
    Variance l = variance_.of(bo->getLHS()), r = variance_.of(bo->getRHS());
    bool oneVarying = (l == Variance::ThreadVarying) != (r == Variance::ThreadVarying) && isThreadIndexTest(bo);
    if (bo->getOpcode() == BO_NE) return oneVarying;
    // `tid > 0` and `tid >= 1`, not bounds guards like `tid >= n`.
    Expr::EvalResult v;
    bool rhsConst = !bo->getRHS()->isValueDependent() && bo->getRHS()->EvaluateAsInt(v, ctx_);
    if (bo->getOpcode() == BO_GT) return l == Variance::ThreadVarying && rhsConst && v.Val.getInt() == 0;
    if (bo->getOpcode() == BO_GE) return l == Variance::ThreadVarying && rhsConst && v.Val.getInt() == 1;
    return false;
  }
  return variance_.of(cond) == Variance::ThreadVarying && !isa<CallExpr>(cond);
}

void FunctionScanner::visit(const Stmt *s, Context ctx) {
  if (!s) return;
  if (auto *ifs = dyn_cast<IfStmt>(s)) {
    visit(ifs->getInit(), ctx);
    visit(ifs->getCond(), ctx);
    Context inner = ctx;
    inner.inBranch = true;
    Context thenCtx = inner;
    if (deviceCode() && isSingleThreadTest(ifs->getCond())) thenCtx.singleThreadGuard = true;
    visit(ifs->getThen(), thenCtx);
    visit(ifs->getElse(), inner);
    return;
  }
  if (auto *cs = dyn_cast<CompoundStmt>(s); cs && deviceCode()) {
    // `if (threadIdx.x != 0) return;` restricts the rest of the block to one
    // thread, like an enclosing `if (threadIdx.x == 0)`.
    Context inner = ctx;
    for (const Stmt *c : cs->body()) {
      visit(c, inner);
      if (auto *ifs = dyn_cast<IfStmt>(c); ifs && !ifs->getElse() && exitsImmediately(ifs->getThen()) &&
                                           isOtherThreadsTest(ifs->getCond()))
        inner.singleThreadGuard = true;
    }
    return;
  }
  if (isa<SwitchStmt, ConditionalOperator>(s)) {
    Context inner = ctx;
    inner.inBranch = true;
    for (const Stmt *c : s->children()) visit(c, inner);
    return;
  }
  if (auto *as = dyn_cast<AttributedStmt>(s))
    for (const Attr *a : as->getAttrs())
      if (isa<LoopHintAttr>(a)) unrollHinted_.insert(as->getSubStmt());
  if (isa<ForStmt, WhileStmt, DoStmt>(s) && deviceCode()) {
    int id = analyzeLoop(s, ctx);
    Context inner = ctx;
    inner.loops.push_back(id);
    for (const Stmt *c : s->children()) visit(c, inner);
    return;
  }
  if (auto *kc = dyn_cast<CUDAKernelCallExpr>(s)) {
    analyzeLaunch(kc, ctx);
    // fall through: arguments may contain more launches (they cannot), keep walking
  }
  for (const Stmt *c : s->children()) visit(c, ctx);
}
} // namespace nestor
