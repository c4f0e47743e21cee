// What a statement does (StatementEffects.h). One walk serves the model
// builder (the constructs of loop bodies and kernels) and the rewrites
// (sequential/parallel split, uniformity, purity of mapped expressions).
#include "nestor/StatementEffects.h"
#include "nestor/CudaSemantics.h"

#include "nestor/AstText.h"
#include "ExprPatterns.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"

namespace nestor {

using namespace clang;

void forEachNode(const Stmt *s, const std::function<void(const Stmt *)> &f) {
  if (!s) return;
  f(s);
  if (auto *po = dyn_cast<PseudoObjectExpr>(s)) { forEachNode(po->getSyntacticForm(), f); return; }
  if (auto *ov = dyn_cast<OpaqueValueExpr>(s)) { forEachNode(ov->getSourceExpr(), f); return; }
  for (const Stmt *c : s->children()) forEachNode(c, f);
}

const VarDecl *referencedVar(const Expr *e) {
  if (!e) return nullptr;
  if (auto *dr = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts())) return dyn_cast<VarDecl>(dr->getDecl());
  return nullptr;
}

bool isLocalVar(const VarDecl *vd) { return vd && (vd->hasLocalStorage() || isa<ParmVarDecl>(vd)); }

namespace {

void noteWrite(const Expr *lhs, StatementEffects &fx) {
  const Expr *e = lhs->IgnoreParenImpCasts();
  if (auto *dr = dyn_cast<DeclRefExpr>(e)) {
    if (auto *vd = dyn_cast<VarDecl>(dr->getDecl()); vd && isLocalVar(vd) && !vd->getType()->isReferenceType()) {
      fx.writes.insert(vd);
      return;
    }
  }
  if (auto *me = dyn_cast<MemberExpr>(e); me && !me->isArrow()) {
    if (const VarDecl *vd = referencedVar(me->getBase()); vd && isLocalVar(vd)) { fx.writes.insert(vd); return; }
  }
  fx.memWrite = true;
}

/// `threadIdx.x` and friends: a builtin read, not a call or a memory access.
/// Returns the builtin (`threadIdx`), or null for other pseudo-objects.
const VarDecl *builtinIdOfProperty(const PseudoObjectExpr *po) {
  const Expr *syn = po->getSyntacticForm();
  if (auto *mp = dyn_cast<MSPropertyRefExpr>(syn->IgnoreParenImpCasts()))
    if (auto *ov = dyn_cast<OpaqueValueExpr>(mp->getBaseExpr()->IgnoreParenImpCasts()))
      if (auto *dr = dyn_cast_or_null<DeclRefExpr>(ov->getSourceExpr() ? ov->getSourceExpr()->IgnoreParenImpCasts()
                                                                         : nullptr))
          if (cuda::isThreadIdBuiltin(dr->getDecl())) return cast<VarDecl>(dr->getDecl());
  return nullptr;
}

/// CUDA 12+ headers no longer declare the device-side cudaDeviceSynchronize,
/// so clang keeps such a call only as a RecoveryExpr around the callee name.
bool isUnresolvedDeviceSync(const RecoveryExpr *re) {
  for (const Expr *sub : re->subExpressions()) {
    const Expr *callee = sub ? sub->IgnoreParenImpCasts() : nullptr;
    std::string name;
    if (auto *ule = dyn_cast_or_null<UnresolvedLookupExpr>(callee)) name = ule->getName().getAsString();
    if (auto *dre = dyn_cast_or_null<DeclRefExpr>(callee)) name = dre->getNameInfo().getAsString();
    if (name == "cudaDeviceSynchronize") return true;
  }
  return false;
}

class EffectsWalker {
public:
  EffectsWalker(const ASTContext &ctx, StatementEffects &fx) : ctx_(ctx), fx_(fx) {}

  void go(const Stmt *s) {
    if (!s) return;
    if (auto *po = dyn_cast<PseudoObjectExpr>(s)) {
      if (const VarDecl *id = builtinIdOfProperty(po)) fx_.threadIds.insert(id->getName().str());
      else go(po->getSyntacticForm());
      return;
    }
    if (auto *ov = dyn_cast<OpaqueValueExpr>(s)) { go(ov->getSourceExpr()); return; }
    if (auto *ds = dyn_cast<DeclStmt>(s))
      for (const Decl *d : ds->decls()) {
        if (auto *vd = dyn_cast<VarDecl>(d)) fx_.declared.insert(vd);
        if (d->isInvalidDecl()) {
          fx_.unparsed.push_back(spanOf(d->getSourceRange(), ctx_));
          fx_.impureCall = true;
        }
      }
    if (auto *dr = dyn_cast<DeclRefExpr>(s)) declRef(dr);
    if (isa<ArraySubscriptExpr>(s)) fx_.memRead = true;
    if (auto *me = dyn_cast<MemberExpr>(s); me && me->isArrow()) fx_.memRead = true;
    if (auto *uo = dyn_cast<UnaryOperator>(s)) {
      if (uo->getOpcode() == UO_Deref) fx_.memRead = true;
      if (uo->getOpcode() == UO_AddrOf) {
        if (const VarDecl *vd = referencedVar(uo->getSubExpr()); vd && isLocalVar(vd)) fx_.addrOfLocal = true;
        fx_.memRead = true;
      }
      if (uo->isIncrementDecrementOp()) noteWrite(uo->getSubExpr(), fx_);
    }
    if (auto *bo = dyn_cast<BinaryOperator>(s); bo && bo->isAssignmentOp()) noteWrite(bo->getLHS(), fx_);
    if (auto *oc = dyn_cast<CXXOperatorCallExpr>(s); oc && oc->isAssignmentOp()) fx_.memWrite = true;
    if (auto *ce = dyn_cast<CallExpr>(s)) call(ce);
    if (auto *re = dyn_cast<RecoveryExpr>(s)) {
      if (isUnresolvedDeviceSync(re)) fx_.deviceSyncs.push_back({"cudaDeviceSynchronize", spanOf(s, ctx_)});
      else fx_.unparsed.push_back(spanOf(s, ctx_));
      fx_.impureCall = true;
    }
    if (isa<LambdaExpr>(s)) bad(fx_.lambda, s);
    if (isa<ReturnStmt>(s)) {
      bad(fx_.ret, s);
      fx_.returns.push_back(spanOf(s, ctx_));
    }
    if (isa<GotoStmt, IndirectGotoStmt>(s)) {
      bad(fx_.jump, s);
      fx_.gotos.push_back(spanOf(s, ctx_));
    }
    if (isa<BreakStmt>(s) && loops_ == 0 && switches_ == 0) {
      bad(fx_.jump, s);
      fx_.breaks.push_back(spanOf(s, ctx_));
    }
    if (isa<ContinueStmt>(s) && loops_ == 0) bad(fx_.jump, s);
    bool loop = isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(s);
    bool sw = isa<SwitchStmt>(s);
    loops_ += loop;
    switches_ += sw;
    for (const Stmt *c : s->children()) go(c);
    loops_ -= loop;
    switches_ -= sw;
  }

private:
  void bad(bool &flag, const Stmt *s) {
    flag = true;
    if (fx_.firstBad.isInvalid()) fx_.firstBad = s->getBeginLoc();
  }

  void declRef(const DeclRefExpr *dr) {
    auto *vd = dyn_cast<VarDecl>(dr->getDecl());
    if (!vd) return;
    if (cuda::isThreadIdBuiltin(vd)) {
      fx_.threadIds.insert(vd->getName().str());
      return;
    }
    if (isLocalVar(vd)) {
      fx_.reads.insert(vd);
      if (vd->getType()->isReferenceType()) fx_.memRead = true;
    } else if (!(vd->isConstexpr() || (vd->getType().isConstQualified() && vd->hasInit() &&
                                        !vd->hasAttr<CUDAConstantAttr>() && !vd->hasAttr<CUDADeviceAttr>()))) {
      fx_.memRead = true; // a __device__/__constant__ global
    }
  }

  void call(const CallExpr *ce) {
    cuda::CallMeaning m = cuda::classifyCall(ce);
    SourceSpan at = spanOf(ce, ctx_);
    if (!m.name.empty()) fx_.calls.push_back(m.name);
    if (const FunctionDecl *fd = ce->getDirectCallee()) fx_.callees.insert(fd->getCanonicalDecl());
    if (isa<CUDAKernelCallExpr>(ce)) bad(fx_.launch, ce);
    if (m.barrier) fx_.barriers.push_back({m.name, at});
    if (m.warp) fx_.warpOps.push_back({m.name, at});
    if (m.atomic) fx_.atomics.push_back({m.name, at});
    if (m.cooperativeGroups) fx_.cooperativeGroups.push_back({m.name, at});
    if (m.deviceSynchronize) fx_.deviceSyncs.push_back({m.name, at});
    if (m.barrier) {
      bad(fx_.barrier, ce);
    } else if (m.warp) {
      bad(fx_.warp, ce);
    } else if (!m.pure) {
      const FunctionDecl *fd = ce->getDirectCallee();
      if (std::optional<StatementEffects> inner = pureUserFunction(fd)) {
        // A helper like `__device__ int f(int u) { return u * 3 % 7; }` is as
        // pure as the expression it returns: what it reads counts as read here.
        fx_.memRead |= inner->memRead;
        fx_.threadIds.insert(inner->threadIds.begin(), inner->threadIds.end());
      } else {
        fx_.impureCall = true;
        if (fd && fd->hasBody()) fx_.userCalls.push_back(fd);
      }
    }
  }

  /// The effects of a user __device__ function's body when calling it has no
  /// effect beyond reading memory and thread ids: no stores (also through
  /// non-const reference parameters), atomics, barriers, warp operations,
  /// launches or calls that are not themselves pure by this rule. Looked into
  /// at most kMaxCallDepth calls deep; recursion is not pure.
  std::optional<StatementEffects> pureUserFunction(const FunctionDecl *fd) {
    static constexpr int kMaxCallDepth = 3;
    const FunctionDecl *def = nullptr;
    if (!fd || !fd->hasBody(def) || !def || depth_ >= kMaxCallDepth) return std::nullopt;
    if (!def->hasAttr<CUDADeviceAttr>() || def->hasAttr<CUDAGlobalAttr>() || isa<CXXMethodDecl>(def) || def->isVariadic())
      return std::nullopt;
    for (const ParmVarDecl *p : def->parameters())
      if (p->getType()->isReferenceType() && !p->getType().getNonReferenceType().isConstQualified()) return std::nullopt;
    for (const FunctionDecl *open = def; const FunctionDecl *f : callStack_)
      if (f == open) return std::nullopt;
    StatementEffects inner;
    EffectsWalker walker(ctx_, inner);
    walker.depth_ = depth_ + 1;
    walker.callStack_ = callStack_;
    walker.callStack_.push_back(def);
    walker.go(def->getBody());
    if (inner.memWrite || inner.impureCall || inner.addrOfLocal || inner.launch || inner.barrier || inner.warp ||
        inner.lambda || !inner.atomics.empty() || !inner.deviceSyncs.empty() || !inner.cooperativeGroups.empty())
      return std::nullopt;
    return inner;
  }

  const ASTContext &ctx_;
  StatementEffects &fx_;
  int loops_ = 0, switches_ = 0;
  int depth_ = 0;                                ///< calls looked into to get here
  std::vector<const FunctionDecl *> callStack_;  ///< the functions being looked into
};

std::optional<ReductionOp> compoundOp(BinaryOperatorKind k) {
  switch (k) {
  case BO_AddAssign: case BO_SubAssign: return ReductionOp::Add;
  case BO_MulAssign: return ReductionOp::Mul;
  case BO_AndAssign: return ReductionOp::BitAnd;
  case BO_OrAssign: return ReductionOp::BitOr;
  case BO_XorAssign: return ReductionOp::BitXor;
  default: return std::nullopt;
  }
}

std::optional<ReductionOp> binaryOp(BinaryOperatorKind k) {
  switch (k) {
  case BO_Add: case BO_Sub: return ReductionOp::Add;
  case BO_Mul: return ReductionOp::Mul;
  case BO_And: return ReductionOp::BitAnd;
  case BO_Or: return ReductionOp::BitOr;
  case BO_Xor: return ReductionOp::BitXor;
  case BO_LAnd: return ReductionOp::LogicalAnd;
  case BO_LOr: return ReductionOp::LogicalOr;
  default: return std::nullopt;
  }
}

} // namespace

StatementEffects effectsOf(const Stmt *s, const ASTContext &ctx) {
  StatementEffects fx;
  EffectsWalker(ctx, fx).go(s);
  return fx;
}

std::optional<ReductionUpdate> reductionUpdate(const Stmt *s) {
  auto *e = dyn_cast_or_null<Expr>(s);
  if (!e) return std::nullopt;
  e = e->IgnoreParenImpCasts();
  if (auto *cao = dyn_cast<CompoundAssignOperator>(e)) {
    const VarDecl *vd = referencedVar(cao->getLHS());
    auto op = compoundOp(cao->getOpcode());
    if (vd && op && !mentionsVar(cao->getRHS(), vd))
      return ReductionUpdate{vd, *op, cao->getRHS(), cao->getOpcode() == BO_SubAssign};
    return std::nullopt;
  }
  auto *bo = dyn_cast<BinaryOperator>(e);
  if (!bo || bo->getOpcode() != BO_Assign) return std::nullopt;
  const VarDecl *vd = referencedVar(bo->getLHS());
  if (!vd) return std::nullopt;
  const Expr *rhs = bo->getRHS()->IgnoreParenImpCasts();
  if (auto *rb = dyn_cast<BinaryOperator>(rhs)) {
    auto op = binaryOp(rb->getOpcode());
    if (!op) return std::nullopt;
    bool lhsIsVar = referencedVar(rb->getLHS()) == vd, rhsIsVar = referencedVar(rb->getRHS()) == vd;
    if (lhsIsVar && !mentionsVar(rb->getRHS(), vd))
      return ReductionUpdate{vd, *op, rb->getRHS(), rb->getOpcode() == BO_Sub};
    if (rhsIsVar && rb->getOpcode() != BO_Sub && !mentionsVar(rb->getLHS(), vd))
      return ReductionUpdate{vd, *op, rb->getLHS(), false};
    return std::nullopt;
  }
  if (auto *call = dyn_cast<CallExpr>(rhs)) {
    std::string n = cuda::calleeName(call);
    std::optional<ReductionOp> op;
    if (n == "max" || n == "fmax" || n == "fmaxf" || n == "__max" || n == "maximum") op = ReductionOp::Max;
    if (n == "min" || n == "fmin" || n == "fminf" || n == "__min" || n == "minimum") op = ReductionOp::Min;
    if (op && call->getNumArgs() == 2) {
      bool a0 = referencedVar(call->getArg(0)) == vd, a1 = referencedVar(call->getArg(1)) == vd;
      if (a0 && !mentionsVar(call->getArg(1), vd)) return ReductionUpdate{vd, *op, call->getArg(1), false};
      if (a1 && !mentionsVar(call->getArg(0), vd)) return ReductionUpdate{vd, *op, call->getArg(0), false};
    }
  }
  return std::nullopt;
}

} // namespace nestor
