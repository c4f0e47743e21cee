// Small expression patterns of the model builder (ExprPatterns.h).
#include "ExprPatterns.h"
#include "nestor/CudaSemantics.h"
#include "nestor/StatementEffects.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"

namespace nestor {

using namespace clang;
using cuda::isBuiltinVar;

bool mentionsVar(const Stmt *s, const VarDecl *vd) {
  if (!s || !vd) return false;
  if (auto *dre = dyn_cast<DeclRefExpr>(s))
    if (dre->getDecl() == vd) return true;
  for (const Stmt *c : s->children())
    if (mentionsVar(c, vd)) return true;
  return false;
}

bool mentionsAnyVar(const Stmt *s, const std::set<const VarDecl *> &vars) {
  if (!s) return false;
  if (auto *dre = dyn_cast<DeclRefExpr>(s))
    if (auto *vd = dyn_cast<VarDecl>(dre->getDecl()))
      if (vars.count(vd)) return true;
  for (const Stmt *c : s->children())
    if (mentionsAnyVar(c, vars)) return true;
  return false;
}

bool containsLoad(const Stmt *s) {
  if (!s) return false;
  if (isa<ArraySubscriptExpr>(s)) return true;
  if (auto *uo = dyn_cast<UnaryOperator>(s))
    if (uo->getOpcode() == UO_Deref) return true;
  for (const Stmt *c : s->children())
    if (containsLoad(c)) return true;
  return false;
}

bool isThreadIdxX(const Expr *e) {
  // threadIdx.x is a property of a builtin variable; CudaSemantics reads its
  // every spelling (through the PseudoObjectExpr clang wraps it in).
  auto c = cuda::builtinComponent(e);
  return c && c->builtin == "threadIdx" && c->axis == 'x';
}

void additiveTerms(const Expr *e, std::vector<const Expr *> &out) {
  e = e->IgnoreParenImpCasts();
  if (auto *bo = dyn_cast<BinaryOperator>(e))
    if (bo->getOpcode() == BO_Add || bo->getOpcode() == BO_Sub) {
      additiveTerms(bo->getLHS(), out);
      additiveTerms(bo->getRHS(), out);
      return;
    }
  out.push_back(e);
}

std::string memorySpaceOf(const Expr *base) {
  const Expr *b = base->IgnoreParenImpCasts();
  while (auto *as = dyn_cast<ArraySubscriptExpr>(b)) b = as->getBase()->IgnoreParenImpCasts();
  if (auto *vd = referencedVar(b)) {
    if (vd->hasAttr<CUDASharedAttr>()) return "shared";
    if (vd->hasAttr<CUDAConstantAttr>()) return "constant";
    if (vd->getType()->isConstantArrayType() && vd->hasLocalStorage()) return "local";
    if (vd->getType()->isPointerType()) return isa<ParmVarDecl>(vd) ? "global" : "unknown";
    if (vd->hasGlobalStorage()) return "global";
  }
  return "unknown";
}

const Expr *arrayRoot(const ArraySubscriptExpr *as, std::vector<const Expr *> &indices) {
  const Expr *b = as;
  while (auto *a = dyn_cast<ArraySubscriptExpr>(b->IgnoreParenImpCasts())) {
    indices.insert(indices.begin(), a->getIdx());
    b = a->getBase();
  }
  return b->IgnoreParenImpCasts();
}
bool isNonConstReference(QualType t) { return t->isReferenceType() && !t.getNonReferenceType().isConstQualified(); }

bool writesFirstOperand(const CXXOperatorCallExpr *oc) {
  const FunctionDecl *fd = oc->getDirectCallee();
  if (!fd) return true;
  if (auto *md = dyn_cast<CXXMethodDecl>(fd)) return !md->isConst();
  return fd->getNumParams() > 0 && isNonConstReference(fd->getParamDecl(0)->getType());
}

} // namespace nestor
