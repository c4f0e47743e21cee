// The for-each form's replay hazard (ReplaySafety.h). Memory is tracked by
// the variable a store goes through (`p[i] = ...`, `*p = ...`, `p->f = ...`,
// `atomicMin(&p[i], ...)`): the pointer parameters and globals that name the
// memory; a store whose base is not such a variable counts as a store to
// every pointer.
#include "ReplaySafety.h"

#include "nestor/StatementEffects.h"

#include "nestor/AstText.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"

#include <set>

namespace nestor::lb {
namespace {
using namespace clang;

/// The variable a memory access goes through; null (and `unknown`) when the
/// address is computed some other way.
const VarDecl *baseOf(const Expr *e, bool &unknown) {
  e = e->IgnoreParenImpCasts();
  if (auto *as = dyn_cast<ArraySubscriptExpr>(e)) return baseOf(as->getBase(), unknown);
  if (auto *u = dyn_cast<UnaryOperator>(e))
    if (u->getOpcode() == UO_Deref || u->getOpcode() == UO_AddrOf) return baseOf(u->getSubExpr(), unknown);
  if (auto *m = dyn_cast<MemberExpr>(e)) return baseOf(m->getBase(), unknown);
  if (auto *b = dyn_cast<BinaryOperator>(e))
    if (b->isAdditiveOp()) return baseOf(b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS(), unknown);
  if (auto *d = dyn_cast<DeclRefExpr>(e))
    if (auto *vd = dyn_cast<VarDecl>(d->getDecl())) return vd;
  unknown = true;
  return nullptr;
}

/// Whether `e`, the target of a store, is memory (not a local variable).
bool isMemoryAccess(const Expr *e) {
  e = e->IgnoreParenImpCasts();
  if (isa<ArraySubscriptExpr>(e)) return true;
  if (auto *u = dyn_cast<UnaryOperator>(e)) return u->getOpcode() == UO_Deref;
  if (auto *m = dyn_cast<MemberExpr>(e)) return m->isArrow() || isMemoryAccess(m->getBase());
  return false;
}

struct Stores {
  std::set<const VarDecl *> bases;
  bool unknown = false;
};

Stores storesIn(const Stmt *body) {
  Stores out;
  auto add = [&](const Expr *target) {
    bool unknown = false;
    if (const VarDecl *vd = baseOf(target, unknown)) out.bases.insert(vd);
    out.unknown |= unknown;
  };
  forEachNode(body, [&](const Stmt *s) {
    if (auto *b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp() && isMemoryAccess(b->getLHS())) add(b->getLHS());
    if (auto *u = dyn_cast<UnaryOperator>(s); u && u->isIncrementDecrementOp() && isMemoryAccess(u->getSubExpr()))
      add(u->getSubExpr());
    if (auto *call = dyn_cast<CallExpr>(s)) {
      const FunctionDecl *fd = call->getDirectCallee();
      if (fd && fd->getName().starts_with("atomic") && call->getNumArgs() > 0) add(call->getArg(0));
    }
  });
  return out;
}

bool effectful(const StatementEffects &fx) { return fx.memWrite || !fx.atomics.empty() || fx.impureCall || fx.launch; }

/// The first statement outside the loop with an effect: after the loop in an
/// enclosing block, or in the other branch of an enclosing `if`.
std::optional<SourceSpan> effectOutside(const ASTContext &ctx, const loops::StmtParents &parents, const Stmt *kernelBody,
                                        const Stmt *loop) {
  const Stmt *cur = loop;
  while (cur != kernelBody) {
    const Stmt *p = parents.parentOf(cur);
    if (!p) return spanOf(loop, ctx); // not reached from the body: assume the worst
    if (auto *cs = dyn_cast<CompoundStmt>(p)) {
      bool after = false;
      for (const Stmt *s : cs->body()) {
        if (after && effectful(effectsOf(s, ctx))) return spanOf(s, ctx);
        if (s == cur) after = true;
      }
    } else if (auto *ifs = dyn_cast<IfStmt>(p)) {
      const Stmt *other = ifs->getThen() == cur ? ifs->getElse() : ifs->getThen();
      if (other && effectful(effectsOf(other, ctx))) return spanOf(other, ctx);
    }
    // Other parents (attributes, labels) have no siblings of the path; the
    // path checks refuse loops and switches around the loop.
    cur = p;
  }
  return std::nullopt;
}

} // namespace

std::optional<ReplayHazard> forEachReplayHazard(const ASTContext &ctx, const loops::StmtParents &parents,
                                                const FunctionDecl *kernel, const ForStmt *loop) {
  const Stmt *body = kernel->getBody();
  std::optional<SourceSpan> effect = effectOutside(ctx, parents, body, loop);
  if (!effect) return std::nullopt; // nothing the replay does can be seen
  Stores stores = storesIn(loop->getBody());
  if (stores.bases.empty() && !stores.unknown) return std::nullopt;
  const SourceSpan loopSpan = spanOf(loop, ctx);
  std::optional<ReplayHazard> hazard;
  forEachNode(body, [&](const Stmt *s) {
    auto *d = dyn_cast<DeclRefExpr>(s);
    if (hazard || !d) return;
    auto *vd = dyn_cast<VarDecl>(d->getDecl());
    if (!vd) return;
    const bool written = stores.bases.count(vd) || (stores.unknown && vd->getType()->isPointerType());
    if (!written) return;
    SourceSpan at = spanOf(d, ctx);
    if (at.begin.offset >= loopSpan.begin.offset && at.end.offset <= loopSpan.end.offset) return;
    hazard = ReplayHazard{"the loop stores through '" + vd->getNameAsString() + "', which the kernel also reads outside the loop (line " +
                              std::to_string(at.begin.line) + "), and the kernel has effects outside the loop (line " +
                              std::to_string(effect->begin.line) +
                              "): the delayed iterations' stores come before the owner's replay, which could then take another path",
                          at};
  });
  return hazard;
}

} // namespace nestor::lb
