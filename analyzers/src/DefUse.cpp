// Def-use of a function's locals (nestor/DefUse.h).
#include "nestor/DefUse.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"

#include <vector>

namespace nestor {

using namespace clang;

namespace {

/// Whether the reference at the top of `chain` (its ancestors follow, nearest
/// first) only reads the variable's value.
bool onlyReads(const std::vector<const Stmt *> &chain) {
  // chain[0] is the reference, chain[1..] its ancestors.
  bool constView = false; // the value is seen as const (bound to a const reference)
  for (size_t i = 1; i < chain.size(); ++i) {
    const Stmt *p = chain[i];
    if (isa<ParenExpr>(p)) continue;
    if (auto *ic = dyn_cast<ImplicitCastExpr>(p)) {
      if (ic->getCastKind() == CK_LValueToRValue) return true;
      // Adding const: whatever the enclosing expression does decides.
      if (ic->getCastKind() == CK_NoOp && ic->getType().isConstQualified()) {
        constView = true;
        continue;
      }
      return false;
    }
    // An argument bound to a const reference (std::min(a, b)).
    if (constView && isa<CallExpr>(p) && !isa<CXXMemberCallExpr>(p)) return true;
    if (auto *me = dyn_cast<MemberExpr>(p)) {
      // A field of a record local (grid.x): a read when the field is read.
      if (me->isArrow() || !isa<FieldDecl>(me->getMemberDecl())) return false;
      continue;
    }
    if (auto *ce = dyn_cast<CXXConstructExpr>(p)) {
      // A copy (dim3 g2 = grid; passing by value).
      const CXXConstructorDecl *ctor = ce->getConstructor();
      if (!ctor || !ctor->isCopyConstructor() || ce->getNumArgs() < 1) return false;
      QualType pt = ctor->getParamDecl(0)->getType();
      return pt->isReferenceType() && pt->getPointeeType().isConstQualified();
    }
    if (isa<UnaryExprOrTypeTraitExpr>(p)) return true; // sizeof, alignof
    // A lambda's capture: what its body does with the variable is walked
    // (and judged) on its own.
    if (isa<LambdaExpr>(p)) return true;
    if (auto *ce = dyn_cast<CXXMemberCallExpr>(p)) {
      const CXXMethodDecl *md = ce->getMethodDecl();
      return md && md->isConst();
    }
    return false;
  }
  return false;
}

void walk(const Stmt *s, const VarDecl *vd, std::vector<const Stmt *> &stack, bool &written) {
  if (!s || written) return;
  stack.push_back(s);
  if (auto *dre = dyn_cast<DeclRefExpr>(s); dre && dre->getDecl() == vd) {
    std::vector<const Stmt *> chain(stack.rbegin(), stack.rend());
    if (!onlyReads(chain)) written = true;
  }
  bool bodySeen = false;
  const auto *lambda = dyn_cast<LambdaExpr>(s);
  for (const Stmt *c : s->children()) {
    bodySeen |= lambda && c == lambda->getBody();
    walk(c, vd, stack, written);
  }
  if (lambda && !bodySeen) walk(lambda->getBody(), vd, stack, written);
  stack.pop_back();
}

} // namespace

bool onlyDeclarationWrites(const VarDecl *vd) {
  if (!vd || !vd->hasLocalStorage()) return false;
  QualType t = vd->getType();
  if (t->isReferenceType() || t->isArrayType() || t.isVolatileQualified()) return false;
  if (t.isConstQualified() && !t->isRecordType()) return true; // nothing may write it
  const auto *fd = dyn_cast_or_null<FunctionDecl>(vd->getParentFunctionOrMethod());
  if (!fd || !fd->hasBody()) return false;
  bool written = false;
  std::vector<const Stmt *> stack;
  walk(fd->getBody(), vd, stack, written);
  return !written;
}

const Expr *singleDefinition(const VarDecl *vd) {
  if (!vd || isa<ParmVarDecl>(vd) || !vd->hasInit()) return nullptr;
  return onlyDeclarationWrites(vd) ? vd->getInit() : nullptr;
}

const VarDecl *singleDefinitionLocal(const Expr *e) {
  if (!e) return nullptr;
  auto *dre = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
  auto *vd = dre ? dyn_cast<VarDecl>(dre->getDecl()) : nullptr;
  return vd && singleDefinition(vd) ? vd : nullptr;
}

const Expr *seeThroughLocals(const Expr *e, int maxSteps) {
  for (int i = 0; e && i < maxSteps; ++i) {
    const VarDecl *vd = singleDefinitionLocal(e);
    if (!vd) break;
    e = vd->getInit();
  }
  return e;
}

} // namespace nestor
