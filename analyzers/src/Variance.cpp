// Variance of values across the threads of a block (Variance.h).
#include "Variance.h"
#include "nestor/CudaSemantics.h"
#include "nestor/StatementEffects.h"

#include "clang/AST/Attr.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

#include <algorithm>
#include <functional>

namespace nestor {

using namespace clang;
using cuda::isBuiltinVar;

void VarianceAnalysis::run(const FunctionDecl *fd) {
  if (!fd->hasBody()) return;
  for (int pass = 0; pass < 12; ++pass) {
    changed_ = false;
    control_.clear();
    walk(fd->getBody());
    if (!changed_) break;
  }
}

Variance VarianceAnalysis::of(const Expr *e) const {
  if (!e) return Variance::Constant;
  e = e->IgnoreParens();
  // threadIdx.x is a property access: look through the pseudo-object.
  if (auto *pse = dyn_cast<PseudoObjectExpr>(e)) return of(pse->getSyntacticForm());
  if (auto *ove = dyn_cast<OpaqueValueExpr>(e)) return of(ove->getSourceExpr());
  if (auto *pr = dyn_cast<MSPropertyRefExpr>(e)) return of(pr->getBaseExpr());
  if (isa<IntegerLiteral, FloatingLiteral, CharacterLiteral, CXXBoolLiteralExpr, StringLiteral,
          CXXNullPtrLiteralExpr, SizeOfPackExpr, UnaryExprOrTypeTraitExpr>(e))
    return Variance::Constant;
  if (auto *dre = dyn_cast<DeclRefExpr>(e)) {
    const ValueDecl *d = dre->getDecl();
    if (isa<EnumConstantDecl>(d)) return Variance::Constant;
    if (auto *vd = dyn_cast<VarDecl>(d)) {
      if (isBuiltinVar(vd, "threadIdx")) return Variance::ThreadVarying;
      if (isBuiltinVar(vd, "warpSize")) return Variance::Constant;
      if (isBuiltinVar(vd, "blockIdx") || isBuiltinVar(vd, "blockDim") || isBuiltinVar(vd, "gridDim"))
        return Variance::Uniform;
      if (vd->isConstexpr()) return Variance::Constant;
      if (isa<ParmVarDecl>(vd)) {
        auto it = vars_.find(vd);
        return it == vars_.end() ? Variance::Uniform : join(Variance::Uniform, it->second);
      }
      if (vd->hasLocalStorage() && !vd->hasAttr<CUDASharedAttr>()) {
        auto it = vars_.find(vd);
        return it == vars_.end() ? Variance::Constant : it->second;
      }
      if (vd->getType().isConstQualified() && vd->hasInit() && !vd->hasAttr<CUDASharedAttr>())
        return Variance::Constant;
      return Variance::Uniform; // globals, __shared__, __constant__ scalars
    }
    return Variance::Uniform;
  }
  if (auto *call = dyn_cast<CallExpr>(e)) {
    std::string n = cuda::calleeName(call);
    if (cuda::isThreadVaryingCallName(n)) return Variance::ThreadVarying;
    // A device function that reads threadIdx returns a per-thread value, and
    // so may one whose body is not visible (another translation unit, a
    // function pointer, a virtual member, a template's dependent call).
    const FunctionDecl *fd = call->getDirectCallee();
    if (fd && !cuda::dispatchesVirtually(call) ? readsThreadIdx(fd) : mayReadThreadIdx(call))
      return Variance::ThreadVarying;
    Variance v = Variance::Constant;
    if (auto *mc = dyn_cast<CXXMemberCallExpr>(call)) v = join(v, of(mc->getImplicitObjectArgument()));
    for (const Expr *a : call->arguments()) v = join(v, of(a));
    return v;
  }
  Variance v = Variance::Constant;
  for (const Stmt *child : e->children())
    if (auto *ce = dyn_cast_or_null<Expr>(child)) v = join(v, of(ce));
  // A load through a uniform address is uniform; a constant pointer's load is not constant.
  if ((isa<ArraySubscriptExpr>(e) || (isa<UnaryOperator>(e) && cast<UnaryOperator>(e)->getOpcode() == UO_Deref)) &&
      v == Variance::Constant)
    v = Variance::Uniform;
  return v;
}


/// True when the value comes from memory through a thread-dependent address
/// somewhere (data-dependent per thread).
bool VarianceAnalysis::isDataDependent(const Expr *e) const {
  if (!e) return false;
  e = e->IgnoreParenImpCasts();
  if (isa<ArraySubscriptExpr>(e) && of(e) == Variance::ThreadVarying) return true;
  if (auto *dre = dyn_cast<DeclRefExpr>(e))
    if (auto *vd = dyn_cast<VarDecl>(dre->getDecl())) return dataVars_.count(vd) > 0;
  for (const Stmt *c : e->children())
    if (auto *ce = dyn_cast_or_null<Expr>(c))
      if (isDataDependent(ce)) return true;
  return false;
}


namespace {
cuda::CalleeUseQuery threadIdxOrUnseen() {
  cuda::CalleeUseQuery q;
  q.builtin = [](llvm::StringRef n) { return n == "threadIdx"; };
  q.unknownBodies = true;
  return q;
}
} // namespace

bool VarianceAnalysis::readsThreadIdx(const FunctionDecl *fd) const {
  const FunctionDecl *def = fd->getDefinition();
  const FunctionDecl *key = def ? def : fd->getCanonicalDecl();
  auto [it, inserted] = readsThreadIdx_.try_emplace(key, false);
  if (!inserted) return it->second;
  // In its own body or in a helper it calls (`int gid() { return base() +
  // threadIdx.x; }`); the walk sees through the OpaqueValueExpr that hides
  // the base of `threadIdx.x`. A user function without a visible body may
  // read it; the toolkit's and the compiler's built-ins do not.
  bool r = cuda::functionUse(key, threadIdxOrUnseen()).has_value();
  readsThreadIdx_[key] = r;
  return r;
}

bool VarianceAnalysis::mayReadThreadIdx(const CallExpr *call) const {
  return cuda::calleeUse(call, threadIdxOrUnseen()).has_value();
}

void VarianceAnalysis::assign(const VarDecl *vd, Variance v, const Expr *rhs) {
  if (!vd) return;
  auto [it, inserted] = vars_.try_emplace(vd, v);
  if (!inserted) {
    Variance n = join(it->second, v);
    if (n != it->second) { it->second = n; changed_ = true; }
  } else if (v != Variance::Constant || isa<ParmVarDecl>(vd)) {
    changed_ = true;
  }
  if (rhs && isDataDependent(rhs) && dataVars_.insert(vd).second) changed_ = true;
}

// The control variance an assignment to `vd` inherits: that of the regions
// entered since `vd` was declared. A variable declared inside a divergent
// region lives and dies there, so every thread that runs its assignments runs
// them alike (LLVM's divergence analysis: only values that flow out of a
// divergent region, through a join or a loop exit, become divergent). A
// variable declared outside the region (a parameter, a global, an outer
// local) and assigned in it differs between the threads that took the branch
// and those that did not.
Variance VarianceAnalysis::controlSince(const VarDecl *vd) const {
  size_t from = 0;
  if (vd)
    if (auto it = declDepth_.find(vd); it != declDepth_.end()) from = it->second;
  Variance c = Variance::Constant;
  for (size_t i = std::min(from, control_.size()); i < control_.size(); ++i) c = join(c, control_[i]);
  return c;
}

void VarianceAnalysis::declare(const VarDecl *vd) {
  if (vd && vd->hasLocalStorage() && !isa<ParmVarDecl>(vd)) declDepth_.try_emplace(vd, control_.size());
}

void VarianceAnalysis::walkUnder(const Stmt *s, Variance region) {
  control_.push_back(region);
  walk(s);
  control_.pop_back();
}

void VarianceAnalysis::walk(const Stmt *s) {
  if (!s) return;
  if (auto *ifs = dyn_cast<IfStmt>(s)) {
    if (ifs->getInit()) walk(ifs->getInit());
    if (ifs->getConditionVariableDeclStmt()) walk(ifs->getConditionVariableDeclStmt());
    walk(ifs->getCond());
    Variance c = of(ifs->getCond());
    walkUnder(ifs->getThen(), c);
    walkUnder(ifs->getElse(), c);
    return;
  }
  if (auto *fs = dyn_cast<ForStmt>(s)) {
    walk(fs->getInit());
    control_.push_back(of(fs->getCond()));
    walk(fs->getCond());
    walk(fs->getInc());
    walk(fs->getBody());
    control_.pop_back();
    return;
  }
  if (auto *ws = dyn_cast<WhileStmt>(s)) {
    control_.push_back(of(ws->getCond()));
    walk(ws->getCond());
    walk(ws->getBody());
    control_.pop_back();
    return;
  }
  if (auto *ds = dyn_cast<DoStmt>(s)) {
    control_.push_back(of(ds->getCond()));
    walk(ds->getBody());
    walk(ds->getCond());
    control_.pop_back();
    return;
  }
  if (auto *sw = dyn_cast<SwitchStmt>(s)) {
    walk(sw->getCond());
    walkUnder(sw->getBody(), of(sw->getCond()));
    return;
  }
  if (auto *co = dyn_cast<ConditionalOperator>(s)) {
    walk(co->getCond());
    Variance c = of(co->getCond());
    walkUnder(co->getTrueExpr(), c);
    walkUnder(co->getFalseExpr(), c);
    return;
  }
  if (auto *ds = dyn_cast<DeclStmt>(s)) {
    for (const Decl *d : ds->decls())
      if (auto *vd = dyn_cast<VarDecl>(d)) {
        declare(vd);
        if (vd->hasInit()) {
          walk(vd->getInit());
          assign(vd, join(controlSince(vd), of(vd->getInit())), vd->getInit());
        } else if (vd->hasLocalStorage()) {
          assign(vd, controlSince(vd), nullptr);
        }
      }
    return;
  }
  if (auto *bo = dyn_cast<BinaryOperator>(s)) {
    if (bo->isAssignmentOp()) {
      const Expr *lhs = bo->getLHS()->IgnoreParenImpCasts();
      if (auto *vd = referencedVar(lhs)) {
        Variance rv = join(controlSince(vd), of(bo->getRHS()));
        if (bo->isCompoundAssignmentOp()) rv = join(rv, of(lhs));
        assign(vd, rv, bo->getRHS());
      }
    }
  }
  if (auto *uo = dyn_cast<UnaryOperator>(s)) {
    if (uo->isIncrementDecrementOp())
      if (auto *vd = referencedVar(uo->getSubExpr()))
        assign(vd, join(controlSince(vd), of(uo->getSubExpr())), nullptr);
    if (uo->getOpcode() == UO_AddrOf)
      if (auto *vd = referencedVar(uo->getSubExpr())) assign(vd, Variance::ThreadVarying, nullptr); // escapes
  }
  if (auto *oc = dyn_cast<CXXOperatorCallExpr>(s)) {
    if (oc->isAssignmentOp() && oc->getNumArgs() == 2)
      if (auto *vd = referencedVar(oc->getArg(0)))
        assign(vd, join(controlSince(vd), of(oc->getArg(1))), oc->getArg(1));
  }
  for (const Stmt *c : s->children()) walk(c);
}

} // namespace nestor
