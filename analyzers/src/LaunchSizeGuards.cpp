// Bounds on a device launch's child size from the guards around it: a
// parent that launches only for some sizes (`if (deg > 0 && deg <= max_deg)
// child<<<(deg + 127) / 128, 128>>>(...)`, or `if (deg < 48) return;` before
// the launch) launches fewer children, and none outside the bounds. The
// mapping model reads them (LaunchSite::childAtLeast / childAtMost): without
// them it launches a child for every parent thread, up to the longest of a
// power-law tail, which the guard may have excluded. These are estimates'
// inputs, never a rewrite's premise.
#include "ModelParts.h"
#include "nestor/Analysis.h"
#include "nestor/AstText.h"
#include "nestor/DefUse.h"
#include "nestor/StatementEffects.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Stmt.h"

#include <algorithm>

namespace nestor {

using namespace clang;

namespace {

std::optional<double> constantValue(const Expr *e, const ASTContext &ctx) {
  e = e->IgnoreParenImpCasts();
  Expr::EvalResult r;
  if (e->isValueDependent() || !e->getType()->isIntegerType() || !e->EvaluateAsInt(r, ctx)) return std::nullopt;
  const llvm::APSInt &v = r.Val.getInt();
  return v.isSigned() ? double(v.getSExtValue()) : double(v.getZExtValue());
}

struct BoundsFinder {
  AnalyzedTU &tu;
  const FunctionDecl *parent;
  const VarDecl *size;
  std::optional<double> lo, hi;
  SourceSpan at;

  /// A constant, or a parameter of the parent (never written in it) that
  /// every host launch of the parent in this file passes as the same constant.
  std::optional<double> valueOf(const Expr *e) const {
    const ASTContext &ctx = tu.astContext();
    if (auto v = constantValue(e, ctx)) return v;
    auto *pv = dyn_cast_or_null<ParmVarDecl>(referencedVar(e));
    if (!pv || pv->getDeclContext() != parent || !onlyDeclarationWrites(pv)) return std::nullopt;
    const unsigned index = pv->getFunctionScopeIndex();
    std::optional<double> value;
    for (const LaunchSite &h : tu.model().launches) {
      if (h.deviceSide || h.child != parent->getNameAsString()) continue;
      const CUDAKernelCallExpr *kc = tu.launchExpr(h.id);
      if (!kc || index >= kc->getNumArgs()) return std::nullopt;
      std::optional<double> v = constantValue(kc->getArg(index), ctx);
      if (!v || (value && *value != *v)) return std::nullopt;
      value = v;
    }
    return value;
  }

  /// `cond` holds at the launch (or, negated, does not).
  void holds(const Expr *cond, bool negated, const Stmt *guard) {
    cond = cond->IgnoreParenImpCasts();
    if (auto *uo = dyn_cast<UnaryOperator>(cond); uo && uo->getOpcode() == UO_LNot)
      return holds(uo->getSubExpr(), !negated, guard);
    auto *bo = dyn_cast<BinaryOperator>(cond);
    if (!bo) return;
    BinaryOperatorKind op = bo->getOpcode();
    if ((op == BO_LAnd && !negated) || (op == BO_LOr && negated)) {
      holds(bo->getLHS(), negated, guard);
      holds(bo->getRHS(), negated, guard);
      return;
    }
    if (!bo->isComparisonOp()) return;
    const Expr *other = nullptr;
    if (referencedVar(bo->getLHS()) == size) {
      other = bo->getRHS();
    } else if (referencedVar(bo->getRHS()) == size) {
      other = bo->getLHS();
      op = BinaryOperator::reverseComparisonOp(op);
    } else {
      return;
    }
    if (negated) op = BinaryOperator::negateComparisonOp(op);
    std::optional<double> v = valueOf(other);
    if (!v) return;
    auto atLeast = [&](double x) { lo = std::max(lo.value_or(x), x); };
    auto atMost = [&](double x) { hi = std::min(hi.value_or(x), x); };
    switch (op) {
    case BO_LT: atMost(*v - 1); break;
    case BO_LE: atMost(*v); break;
    case BO_GT: atLeast(*v + 1); break;
    case BO_GE: atLeast(*v); break;
    case BO_EQ: atLeast(*v); atMost(*v); break;
    default: return;
    }
    if (!at.valid()) at = spanOf(guard, tu.astContext());
  }

  static bool exits(const Stmt *s) {
    if (isa_and_nonnull<ReturnStmt>(s)) return true;
    auto *cs = dyn_cast_or_null<CompoundStmt>(s);
    return cs && cs->size() == 1 && isa<ReturnStmt>(cs->body_front());
  }

  /// Walks from the launch up to the parent's body: the branches it is in,
  /// and the early returns before it in each enclosing block.
  void from(const Stmt *launch) {
    ASTContext &ctx = tu.astContext();
    DynTypedNode node = DynTypedNode::create(*launch);
    for (int depth = 0; depth < 64; ++depth) {
      const Stmt *cur = node.get<Stmt>();
      auto parents = ctx.getParents(node);
      if (!cur || parents.empty()) return;
      const DynTypedNode &up = parents[0];
      if (auto *ifs = up.get<IfStmt>()) {
        if (ifs->getThen() == cur) holds(ifs->getCond(), false, ifs);
        else if (ifs->getElse() == cur) holds(ifs->getCond(), true, ifs);
      } else if (auto *cs = up.get<CompoundStmt>()) {
        for (const Stmt *s : cs->body()) {
          if (s == cur) break;
          if (auto *ifs = dyn_cast<IfStmt>(s); ifs && !ifs->getElse() && exits(ifs->getThen()))
            holds(ifs->getCond(), true, ifs);
        }
      } else if (up.get<FunctionDecl>() || up.get<LambdaExpr>()) {
        return;
      }
      node = up;
    }
  }
};

} // namespace

void boundLaunchSizes(AnalyzedTU &tu) {
  FileModel &model = tu.model();
  for (LaunchSite &l : model.launches) {
    if (!l.deviceSide || !l.threads) continue;
    const CUDAKernelCallExpr *kc = tu.launchExpr(l.id);
    const FunctionDecl *parent = tu.functionDecl(l.parent);
    if (!kc || !parent || !parent->getBody()) continue;
    // The child's size is one variable of the parent (`deg`, the numerator of
    // the grid's ceiling division, or the block): find it in the configuration.
    const VarDecl *size = nullptr;
    forEachNode(kc->getConfig(), [&](const Stmt *n) {
      if (const VarDecl *vd = isa<DeclRefExpr>(n) ? referencedVar(cast<DeclRefExpr>(n)) : nullptr;
          vd && vd->getName() == *l.threads)
        size = vd;
    });
    if (!size || !size->getType()->isIntegerType() || !onlyDeclarationWrites(size)) continue;
    BoundsFinder b{tu, parent, size, std::nullopt, std::nullopt, {}};
    b.from(kc);
    if (b.lo && b.hi && *b.lo > *b.hi) continue; // contradictory: no child at all, or a misread
    l.childAtLeast = b.lo;
    l.childAtMost = b.hi;
    l.childBoundSpan = b.at;
  }
}

} // namespace nestor
