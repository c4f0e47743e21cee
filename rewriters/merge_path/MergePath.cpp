// merge-path (issue 23; Merrill and Garland, "Merge-based Parallel Sparse
// Matrix-Vector Multiplication", SC'16): the irregular reduction loop over a
// CSR row of a one-thread-per-row kernel,
//
//   if (row >= n) return;  ...  for (j = P[row]; j < P[row + 1]; ++j) acc = acc OP f(j);
//
// is split by iterations, not rows: a new kernel `<kernel>_nestor_merge`
// (a persistent grid) gives every block the same number of merge-path steps
// (rows + iterations) and reduces f over them (nestor/merge_path.cuh); the
// original kernel then runs as before, its loop replaced by the row's value
// (combined with the carry-outs of the blocks the row crossed, in block
// order: the same bits from run to run). Each launch of the kernel becomes
// the two launches (nestor::mp::launch).
//
// Offered where the model proves the loop a reduction with a built-in
// associative operator (LoopSite::reductions, through loop_common's map/reduce
// matcher), f(j) reads only the kernel's parameters, the bounds are a CSR
// pair P[q], P[q + 1], and a guard `q < n` / `q >= n` with n a parameter of
// the kernel says how many rows there are (the pair may be held in locals
// of a single definition: `int start = P[q], end = P[q + 1];`). Refusals
// name the construct and its line.
#include "../lb_common/LoadBalance.h"
#include "../loop_common/LoopCommon.h"
#include "../loop_common/StmtParents.h"

#include "nestor/CudaSemantics.h"
#include "nestor/DefUse.h"
#include "nestor/EditSet.h"
#include "nestor/Inference.h"
#include "nestor/StatementEffects.h"

#include "nestor/AstText.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"

#include <algorithm>
#include <set>

using namespace clang;

namespace nestor {
namespace {

std::string lineOf(const SourceSpan &s) { return "line " + std::to_string(s.begin.line); }

std::string strip(std::string s) {
  s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t' || c == '\n'; }), s.end());
  while (s.size() > 2 && s.front() == '(' && s.back() == ')') s = s.substr(1, s.size() - 2);
  return s;
}

struct Plan {
  bool ok = false;
  std::string reason;
  SourceSpan blocker;
  const LoopSite *loop = nullptr;
  const Kernel *kernel = nullptr;
  const FunctionDecl *fd = nullptr;
  const ForStmt *fs = nullptr;
  loops::MapReduceLoop mr;
  const Expr *offsets = nullptr;  ///< P
  const Expr *rowIndex = nullptr; ///< q
  const ParmVarDecl *rowsParam = nullptr; ///< n
  unsigned rowsParamIndex = 0;
  std::vector<const CUDAKernelCallExpr *> launches;
  /// Fused epilogue (the merge kernel finishes the rows; no row pass when the
  /// launch has one thread per row): the row index's variable, declared
  /// `T q = blockIdx.x * blockDim.x + threadIdx.x;`. Null when the kernel's
  /// body cannot be replayed per row (fuseRefusal says why).
  const VarDecl *rowVar = nullptr;
  std::string fuseRefusal;
};

Plan refuse(std::string why, SourceSpan at = {}) {
  Plan p;
  p.reason = std::move(why);
  p.blocker = std::move(at);
  return p;
}

/// A local of the thread (not a parameter of `fd`, not a global) that `e`
/// reads, or a __shared__ variable: the merge kernel has neither.
const VarDecl *threadLocalRead(const Expr *e, const FunctionDecl *fd, const std::set<const VarDecl *> &allowed) {
  const VarDecl *bad = nullptr;
  forEachNode(e, [&](const Stmt *s) {
    auto *dr = dyn_cast<DeclRefExpr>(s);
    if (!dr || bad) return;
    auto *vd = dyn_cast<VarDecl>(dr->getDecl());
    if (!vd || allowed.count(vd)) return;
    if (vd->hasAttr<CUDASharedAttr>()) { bad = vd; return; }
    if (auto *pv = dyn_cast<ParmVarDecl>(vd); pv && pv->getDeclContext() == fd) return;
    if (vd->hasGlobalStorage() && !vd->isStaticLocal()) return;
    bad = vd;
  });
  return bad;
}

/// `q < n`, `n > q` (then-branch guard) or `q >= n`, `n <= q` (early exit):
/// the parameter n when the condition compares q with one.
const ParmVarDecl *guardBound(const Expr *cond, const std::string &q, bool exitForm, const FunctionDecl *fd) {
  auto *bo = dyn_cast_or_null<BinaryOperator>(cond ? cond->IgnoreParenImpCasts() : nullptr);
  if (!bo) return nullptr;
  const ASTContext &ctx = fd->getASTContext();
  const Expr *lhs = bo->getLHS(), *rhs = bo->getRHS();
  BinaryOperatorKind op = bo->getOpcode();
  const Expr *bound = nullptr;
  if (strip(textOf(lhs, ctx)) == q) {
    if ((!exitForm && op == BO_LT) || (exitForm && op == BO_GE)) bound = rhs;
  } else if (strip(textOf(rhs, ctx)) == q) {
    if ((!exitForm && op == BO_GT) || (exitForm && op == BO_LE)) bound = lhs;
  }
  if (!bound) return nullptr;
  auto *dr = dyn_cast<DeclRefExpr>(bound->IgnoreParenImpCasts());
  auto *pv = dr ? dyn_cast<ParmVarDecl>(dr->getDecl()) : nullptr;
  if (!pv || pv->getDeclContext() != fd || !pv->getType()->isIntegerType()) return nullptr;
  return pv;
}

bool isReturnOnly(const Stmt *s) {
  if (auto *cs = dyn_cast_or_null<CompoundStmt>(s)) return cs->size() == 1 && isa<ReturnStmt>(cs->body_front());
  return isa_and_nonnull<ReturnStmt>(s);
}

std::optional<std::string> writesMemory(const StatementEffects &fx) {
  if (!fx.atomics.empty()) return "calls " + fx.atomics.front().name;
  if (fx.memWrite) return "writes memory";
  if (fx.impureCall) return "calls a function that is not known to be pure";
  if (fx.launch) return "launches a kernel";
  return std::nullopt;
}

/// Whether `fd` (or a function it calls, transitively) reads the thread's
/// identity, synchronises, uses shared memory or launches: such code cannot
/// be replayed for a row by another thread.
std::optional<std::string> threadBound(const Stmt *s, const ASTContext &ctx, std::set<const FunctionDecl *> &seen) {
  StatementEffects fx = effectsOf(s, ctx);
  if (!fx.threadIds.empty()) return "reads " + *fx.threadIds.begin();
  if (fx.barrier || !fx.barriers.empty()) return "synchronises the block";
  if (fx.warp || !fx.warpOps.empty()) return "uses a warp intrinsic";
  if (!fx.cooperativeGroups.empty()) return "uses cooperative groups";
  if (fx.launch) return "launches a kernel";
  if (!fx.deviceSyncs.empty()) return "synchronises the device";
  if (fx.jump || !fx.gotos.empty()) return "jumps";
  std::optional<std::string> bad;
  forEachNode(s, [&](const Stmt *n) {
    if (bad) return;
    if (isa<AsmStmt>(n)) bad = "has inline assembly";
    if (auto *ds = dyn_cast<DeclStmt>(n))
      for (const Decl *d : ds->decls())
        if (auto *vd = dyn_cast<VarDecl>(d); vd && !bad && (vd->hasAttr<CUDASharedAttr>() || vd->isStaticLocal()))
          bad = "declares the " + std::string(vd->hasAttr<CUDASharedAttr>() ? "__shared__" : "static") + " variable '" +
                vd->getNameAsString() + "'";
    if (auto *dr = dyn_cast<DeclRefExpr>(n))
      if (auto *vd = dyn_cast<VarDecl>(dr->getDecl()); vd && (vd->hasAttr<CUDASharedAttr>() || vd->isStaticLocal()))
        bad = "uses the " + std::string(vd->hasAttr<CUDASharedAttr>() ? "__shared__" : "static") + " variable '" +
              vd->getNameAsString() + "'";
  });
  if (bad) return bad;
  for (const FunctionDecl *callee : fx.callees) {
    const FunctionDecl *def = nullptr;
    if (!callee || !callee->hasBody(def) || !def || !seen.insert(def).second) continue;
    if (auto why = threadBound(def->getBody(), ctx, seen)) return "calls '" + def->getNameAsString() + "', which " + *why;
  }
  return std::nullopt;
}

/// A loop of `s` (or of a function it calls) that is not one of the nodes
/// `inTarget` (the target loop and everything inside it): run by the merge
/// kernel's thread that ends a row, a per-row loop leaves the thread's block
/// waiting for the longest row at the next chunk barrier (the fourth held-out set's row normalisation, a sum
/// then a scaling loop over the same power-law row: fused, 5.9x slower than
/// the original on an H200).
const Stmt *otherLoop(const Stmt *s, const std::set<const Stmt *> &inTarget, const ASTContext &ctx,
                      std::set<const FunctionDecl *> &seen) {
  const Stmt *found = nullptr;
  forEachNode(s, [&](const Stmt *n) {
    if (!found && !inTarget.count(n) && isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(n)) found = n;
  });
  if (found) return found;
  for (const FunctionDecl *callee : effectsOf(s, ctx).callees) {
    const FunctionDecl *def = nullptr;
    if (!callee || !callee->hasBody(def) || !def || !seen.insert(def).second) continue;
    if (const Stmt *l = otherLoop(def->getBody(), inTarget, ctx, seen)) return l;
  }
  return nullptr;
}

/// The fused epilogue (nestor/merge_path.cuh's fused mode) replays the
/// kernel's body for row q in the merge kernel, with the loop replaced by the
/// row's value. Sound when the body is a function of q alone and the threads
/// without a row do nothing: q is a local `T q = <1-D global index>;` (the
/// runtime checks at each launch that the grid has one thread per row), the
/// guard `if (q >= n) return;` or `if (q < n) { ... }` is a statement of the
/// body (nothing after the latter), nothing before the guard writes memory
/// (checked for everything before the loop), and nothing else in the body
/// reads the thread's identity, synchronises, or uses shared memory.
/// Returns the reason when not.
std::optional<std::string> fusionRefusal(Plan &c, const ASTContext &ctx) {
  auto *qRef = dyn_cast<DeclRefExpr>(c.rowIndex->IgnoreParenImpCasts());
  auto *qVar = qRef ? dyn_cast<VarDecl>(qRef->getDecl()) : nullptr;
  if (!qVar || isa<ParmVarDecl>(qVar) || !qVar->getInit() || !cuda::isGlobalThreadIndex(qVar->getInit()))
    return "the row index is not a local initialised to blockIdx.x * blockDim.x + threadIdx.x";
  const auto *body = cast<CompoundStmt>(c.fd->getBody());
  // The top-level statements: q's declaration, the guard, the loop's.
  const Stmt *qDecl = nullptr, *loopTop = nullptr;
  for (const Stmt *st : body->body()) {
    if (auto *ds = dyn_cast<DeclStmt>(st))
      for (const Decl *d : ds->decls())
        if (d == qVar) qDecl = st;
    bool holdsLoop = false;
    forEachNode(st, [&](const Stmt *n) { holdsLoop |= n == c.fs; });
    if (holdsLoop) loopTop = st;
  }
  if (!qDecl || !loopTop) return "the row index or the loop is not declared in the kernel's body";
  bool guarded = false;
  bool afterQ = false;
  for (const Stmt *st : body->body()) {
    if (st == qDecl) afterQ = true;
    if (st == loopTop) {
      auto *ifs = dyn_cast<IfStmt>(st);
      if (!guarded && ifs && !ifs->getElse() && ifs->getCond() && afterQ &&
          guardBound(ifs->getCond(), qVar->getNameAsString(), false, c.fd) == c.rowsParam &&
          st == body->body_back())
        guarded = true;
      break;
    }
    if (auto *ifs = dyn_cast<IfStmt>(st); ifs && afterQ && !ifs->getElse() && isReturnOnly(ifs->getThen()) &&
                                          guardBound(ifs->getCond(), qVar->getNameAsString(), true, c.fd) == c.rowsParam)
      guarded = true;
  }
  if (!guarded)
    return "no guard on '" + qVar->getNameAsString() + "' in the kernel's body keeps the threads without a row from doing anything";
  std::set<const FunctionDecl *> seen;
  for (const Stmt *st : body->body()) {
    if (st == qDecl) {
      for (const Decl *d : cast<DeclStmt>(st)->decls())
        if (auto *vd = dyn_cast<VarDecl>(d); vd && vd != qVar && vd->getInit())
          if (auto why = threadBound(vd->getInit(), ctx, seen)) return "the declaration of '" + vd->getNameAsString() + "' " + *why;
      continue;
    }
    if (auto why = threadBound(st, ctx, seen)) {
      SourceSpan sp = spanOf(st, ctx);
      return "the statement at " + lineOf(sp) + " " + *why;
    }
  }
  std::set<const Stmt *> inTarget;
  forEachNode(c.fs, [&](const Stmt *n) { inTarget.insert(n); });
  std::set<const FunctionDecl *> seenForLoops;
  if (const Stmt *l = otherLoop(body, inTarget, ctx, seenForLoops))
    return "the loop at " + lineOf(spanOf(l, ctx)) +
           " would run per row inside the merge kernel, whose blocks wait for their longest row";
  for (const CUDAKernelCallExpr *call : c.launches)
    if (const CallExpr *cfg = call->getConfig())
      for (unsigned i = 0; i < 2 && i < cfg->getNumArgs(); ++i)
        if (auto why = writesMemory(effectsOf(cfg->getArg(i), ctx)))
          return "the launch configuration `" + textOf(cfg->getArg(i), ctx) + "` " + *why;
  c.rowVar = qVar;
  return std::nullopt;
}

Plan check(const AnalyzedTU &tu, const RewriteTarget &t) {
  const FileModel &m = tu.model();
  ASTContext &ctx = tu.astContext();
  if (t.kind != RewriteTarget::Kind::Loop || t.id < 0 || size_t(t.id) >= m.loops.size()) return refuse("no loop at this position");
  Plan c;
  c.loop = &m.loops[size_t(t.id)];
  const LoopSite &l = *c.loop;
  if (!l.inKernel) return refuse("the loop is not inside a __global__ kernel", l.headerSpan);
  if (l.tripCount != TripCountClass::Irregular)
    return refuse(std::string("the loop's trip count is ") + spelling(l.tripCount) +
                      ", not irregular: merge-path evens out rows of different lengths",
                  l.headerSpan);
  if (l.gridStride) return refuse("the loop is a grid-stride loop", l.headerSpan);
  if (l.hasDeviceLaunch) return refuse("the loop launches a kernel", l.bodySpan);
  std::string why;
  SourceSpan where;
  auto mr = loops::matchMapReduce(tu, l, why, where);
  if (!mr)
    return refuse("the loop is not a reduction merge-path can split: " + why +
                      " (loops of independent iterations without a result are not handled yet)",
                  where);
  c.mr = *mr;
  {
    // The block scan moves partial values with warp shuffles: 32- or 64-bit
    // integers, float or double.
    const VarDecl *accVar = nullptr;
    forEachNode(tu.loopStmt(l.id), [&](const Stmt *s) {
      if (auto *dr = dyn_cast<DeclRefExpr>(s); dr && !accVar)
        if (auto *vd = dyn_cast<VarDecl>(dr->getDecl()); vd && vd->getNameAsString() == mr->acc) accVar = vd;
    });
    QualType at = accVar ? accVar->getType().getCanonicalType().getUnqualifiedType() : QualType();
    const bool shuffles = !at.isNull() && !at->isBooleanType() &&
                          ((at->isIntegerType() && ctx.getTypeSize(at) >= 32) || at->isSpecificBuiltinType(BuiltinType::Float) ||
                           at->isSpecificBuiltinType(BuiltinType::Double));
    if (!shuffles)
      return refuse("the accumulator '" + mr->acc + "' is a " + mr->accType +
                        ": the merge kernel's scan moves 32- or 64-bit integers, float or double",
                    l.bodySpan);
  }
  // The model must prove the reduction (the matcher reads the syntax).
  bool proven = false;
  for (const Reduction &r : l.reductions) proven |= r.var == mr->acc && r.op == mr->op;
  if (!proven)
    return refuse("the analysis does not prove '" + mr->acc + "' a reduction of this loop" +
                      (l.carriedDependences.empty() ? "" : ": " + l.carriedDependences.front().reason),
                  l.carriedDependences.empty() ? l.bodySpan : l.carriedDependences.front().span);
  if (auto why = distributionRefusal(tu.model(), l)) return refuse(why->reason, why->span);
  if (!mr->csrLike)
    return refuse("the bounds `" + mr->begin + "` .. `" + mr->end +
                      "` are not a CSR-like pair (begin = p[q], end = p[q + 1]): merge-path splits the iterations of a "
                      "CSR offsets array",
                  l.headerSpan);
  loops::LoopKernel lk;
  if (auto why = loops::findLoopKernel(tu, l, lk)) return refuse(why->reason, why->span);
  c.kernel = lk.kernel;
  c.fd = lk.fd;
  c.fs = lk.fs;
  const Kernel &k = *c.kernel;
  if (k.isRecursive) return refuse("the kernel is recursive", k.nameSpan);
  // The CSR pair as written in the header or held in locals of a single
  // definition (`int start = ptr[row], end = ptr[row + 1];`, nestor/DefUse.h):
  // the merge kernel and the row's lookup are generated from the subscript
  // P[q] behind the lower bound. The values are the same at the loop: no
  // write to memory before the loop and none to q's variables (checked
  // below); the names must be too (no other declaration of them).
  auto *lb = dyn_cast<ArraySubscriptExpr>(seeThroughLocals(mr->beginExpr)->IgnoreParenImpCasts());
  if (!lb || !isa<ArraySubscriptExpr>(seeThroughLocals(mr->endExpr)->IgnoreParenImpCasts()))
    return refuse("the bounds `" + mr->begin + "` .. `" + mr->end + "` are not subscripts P[q], P[q + 1] of the offsets",
                  l.headerSpan);
  c.offsets = lb->getBase();
  c.rowIndex = lb->getIdx();
  const std::string q = strip(textOf(c.rowIndex, ctx));
  if (lb != mr->beginExpr->IgnoreParenImpCasts()) {
    std::set<const VarDecl *> named;
    for (const Expr *e : {c.offsets, c.rowIndex})
      forEachNode(e, [&](const Stmt *s) {
        if (auto *dr = dyn_cast<DeclRefExpr>(s))
          if (auto *vd = dyn_cast<VarDecl>(dr->getDecl())) named.insert(vd);
      });
    const VarDecl *clash = nullptr;
    forEachNode(c.fd->getBody(), [&](const Stmt *s) {
      if (auto *ds = dyn_cast<DeclStmt>(s); ds && !clash)
        for (const Decl *d : ds->decls())
          if (auto *vd = dyn_cast<VarDecl>(d))
            for (const VarDecl *n : named)
              if (vd != n && vd->getName() == n->getName()) clash = vd;
    });
    if (clash)
      return refuse("'" + clash->getNameAsString() + "' is declared again at " +
                        lineOf(spanOf(clash->getSourceRange(), ctx)) + ": the bound `" + mr->begin + "` = `" +
                        textOf(lb, ctx) + "` is re-emitted at the loop by name",
                    spanOf(clash->getSourceRange(), ctx));
  }
  // What the merge kernel evaluates: P, f(j) (with j) and n read only parameters.
  std::set<const VarDecl *> none;
  if (const VarDecl *v = threadLocalRead(c.offsets, c.fd, none))
    return refuse("the offsets array `" + textOf(c.offsets, ctx) + "` reads the thread's '" + v->getNameAsString() +
                      "': the merge kernel evaluates it once for all rows",
                  spanOf(c.offsets, ctx));
  std::set<const VarDecl *> ivOnly;
  forEachNode(c.fs->getInit(), [&](const Stmt *s) {
    if (auto *ds = dyn_cast<DeclStmt>(s))
      for (const Decl *d : ds->decls())
        if (auto *vd = dyn_cast<VarDecl>(d)) ivOnly.insert(vd);
  });
  forEachNode(c.fs->getBody(), [&](const Stmt *s) {
    if (auto *ds = dyn_cast<DeclStmt>(s))
      for (const Decl *d : ds->decls())
        if (auto *vd = dyn_cast<VarDecl>(d)) ivOnly.insert(vd);
  });
  // Every part of the mapped value (f(i), a conditional update's condition and value).
  for (const Expr *part : mr->mappedParts) {
    if (const VarDecl *v = threadLocalRead(part, c.fd, ivOnly))
      return refuse("the loop body reads the thread's '" + v->getNameAsString() +
                        "': the merge kernel computes every row's iterations without the thread",
                    mr->mappedSpan);
    StatementEffects mapped = effectsOf(part, ctx);
    if (!mapped.threadIds.empty())
      return refuse("the loop body reads " + *mapped.threadIds.begin() + ": the merge kernel runs it on other threads",
                    mr->mappedSpan);
  }
  // (These CSR checks, the guard, q never written, no memory written before
  // the loop, launch arguments without effects, repeat parts of lb_common's;
  // they stay here while lb_common/LoadBalance.cpp is being split: fold them
  // into the shared checks after that.)
  // From the loop up to the kernel body: the guard that bounds q, no
  // enclosing loop, and nothing before the loop that writes memory (the
  // merge kernel reads memory before any of the original kernel runs).
  const Stmt *cur = c.fs;
  const Stmt *body = c.fd->getBody();
  const loops::StmtParents &parents = loops::parentsOf(ctx, c.fd);
  while (cur != body) {
    const Stmt *p = parents.parentOf(cur);
    if (!p) return refuse("the loop is not directly in the kernel's body", l.headerSpan);
    if (isa<ForStmt>(p) || isa<WhileStmt>(p) || isa<DoStmt>(p) || isa<CXXForRangeStmt>(p)) {
      SourceSpan s = spanOf(p, ctx);
      return refuse("the loop is nested in the loop at " + lineOf(s) + ": it would run once per outer iteration", s);
    }
    if (isa<SwitchStmt>(p)) return refuse("the loop is inside a switch", spanOf(p, ctx));
    if (auto *ifs = dyn_cast<IfStmt>(p)) {
      if (auto why = writesMemory(effectsOf(ifs->getCond(), ctx)))
        return refuse("the condition at " + lineOf(spanOf(ifs->getCond(), ctx)) + " " + *why, spanOf(ifs->getCond(), ctx));
      if (!c.rowsParam && ifs->getThen() == cur)
        if (const ParmVarDecl *n = guardBound(ifs->getCond(), q, false, c.fd)) c.rowsParam = n;
    }
    if (auto *cs = dyn_cast<CompoundStmt>(p)) {
      for (const Stmt *s : cs->body()) {
        if (s == cur) break;
        if (auto *ifs = dyn_cast<IfStmt>(s); ifs && !ifs->getElse() && isReturnOnly(ifs->getThen()) && !c.rowsParam)
          if (const ParmVarDecl *n = guardBound(ifs->getCond(), q, true, c.fd)) c.rowsParam = n;
        if (auto why = writesMemory(effectsOf(s, ctx))) {
          SourceSpan sp = spanOf(s, ctx);
          return refuse("the statement at " + lineOf(sp) + " " + *why +
                            " before the loop: the merge kernel reads the loop's data before any thread runs",
                        sp);
        }
      }
    }
    cur = p;
  }
  if (!c.rowsParam)
    return refuse("no guard `if (" + textOf(c.rowIndex, ctx) + " < n)` or `if (" + textOf(c.rowIndex, ctx) +
                      " >= n) return;` with n a parameter of '" + k.name + "' bounds the rows: merge-path needs their number",
                  l.headerSpan);
  for (unsigned i = 0; i < c.fd->getNumParams(); ++i) {
    const ParmVarDecl *p = c.fd->getParamDecl(i);
    if (p == c.rowsParam) c.rowsParamIndex = i;
    if (p->getName().empty()) return refuse("a parameter of '" + k.name + "' has no name", spanOf(p->getSourceRange(), ctx));
    if (p->hasDefaultArg())
      return refuse("the parameter '" + p->getNameAsString() + "' has a default argument", spanOf(p->getSourceRange(), ctx));
  }
  // The row index must be what the guard compared: none of its variables is
  // written after its declaration.
  std::set<const VarDecl *> qVars;
  forEachNode(c.rowIndex, [&](const Stmt *s) {
    if (auto *dr = dyn_cast<DeclRefExpr>(s))
      if (auto *vd = dyn_cast<VarDecl>(dr->getDecl())) qVars.insert(vd);
  });
  {
    const Stmt *writeAt = nullptr;
    const VarDecl *writtenVar = nullptr;
    forEachNode(body, [&](const Stmt *s) {
      const Expr *lhs = nullptr;
      if (auto *bo = dyn_cast<BinaryOperator>(s); bo && bo->isAssignmentOp()) lhs = bo->getLHS();
      if (auto *uo = dyn_cast<UnaryOperator>(s); uo && (uo->isIncrementDecrementOp() || uo->getOpcode() == UO_AddrOf))
        lhs = uo->getSubExpr();
      if (auto *d = lhs ? dyn_cast<DeclRefExpr>(lhs->IgnoreParenImpCasts()) : nullptr)
        if (auto *vd = dyn_cast<VarDecl>(d->getDecl()); vd && qVars.count(vd) && !writeAt) {
          writeAt = s;
          writtenVar = vd;
        }
    });
    if (writeAt) {
      SourceSpan sp = spanOf(writeAt, ctx);
      return refuse("the row index's '" + writtenVar->getNameAsString() + "' is changed at " + lineOf(sp) +
                        ": the guard would not bound the row the loop reads",
                    sp);
    }
  }
  for (const ParmVarDecl *p : c.fd->parameters()) {
    bool written = false;
    forEachNode(body, [&](const Stmt *s) {
      const Expr *lhs = nullptr;
      if (auto *bo = dyn_cast<BinaryOperator>(s); bo && bo->isAssignmentOp()) lhs = bo->getLHS();
      if (auto *uo = dyn_cast<UnaryOperator>(s); uo && (uo->isIncrementDecrementOp() || uo->getOpcode() == UO_AddrOf))
        lhs = uo->getSubExpr();
      if (auto *d = lhs ? dyn_cast<DeclRefExpr>(lhs->IgnoreParenImpCasts()) : nullptr; d && d->getDecl() == p) written = true;
    });
    if (written)
      return refuse("the kernel changes its parameter '" + p->getNameAsString() +
                        "': the merge kernel reads the parameters as they are passed",
                    spanOf(p->getSourceRange(), ctx));
  }
  // Every launch: host side, default stream, arguments without effects; no
  // other use of the kernel (it gains a parameter).
  for (const LaunchSite &ls : m.launches) {
    if (ls.child != k.name) continue;
    if (ls.deviceSide)
      return refuse("'" + k.name + "' is launched from device code at " + lineOf(ls.span) +
                        ": the merge pass is launched from the host",
                    ls.span);
    const CUDAKernelCallExpr *call = tu.launchExpr(ls.id);
    if (!call) return refuse("the launch at " + lineOf(ls.span) + " was not analysed", ls.span);
    if (!ls.stream.empty() && ls.stream != "0" && ls.stream != "nullptr" && ls.stream != "NULL")
      return refuse("the launch at " + lineOf(ls.span) + " names a stream (" + ls.stream +
                        "): the merge pass and its scratch are ordered on the default stream",
                    ls.span);
    for (const Expr *a : call->arguments()) {
      if (isa<CXXDefaultArgExpr>(a)) continue;
      if (auto why = writesMemory(effectsOf(a, ctx)))
        return refuse("the argument `" + textOf(a, ctx) + "` of the launch at " + lineOf(ls.span) + " " + *why +
                          ": it is evaluated once per pass",
                      spanOf(a, ctx));
    }
    c.launches.push_back(call);
  }
  if (c.launches.empty())
    return refuse("'" + k.name + "' is not launched in this file: the merge pass is launched where it is launched",
                  k.nameSpan);
  if (const FunctionDecl *prev = c.fd->getPreviousDecl())
    return refuse("'" + k.name + "' is also declared at " + lineOf(spanOf(prev->getSourceRange(), ctx)) +
                      ": the rewrite adds a parameter to the definition",
                  spanOf(prev->getSourceRange(), ctx));
  size_t refs = 0;
  SourceSpan firstRef;
  for (const Decl *d : tu.topLevelDecls()) {
    const auto *f = dyn_cast<FunctionDecl>(d);
    if (!f || !f->hasBody()) continue;
    forEachNode(f->getBody(), [&](const Stmt *s) {
      if (auto *dr = dyn_cast<DeclRefExpr>(s); dr && dr->getDecl()->getCanonicalDecl() == c.fd->getCanonicalDecl())
        if (!refs++) firstRef = spanOf(dr, ctx);
    });
  }
  if (refs > c.launches.size())
    return refuse("'" + k.name + "' is used other than by a <<<>>> launch: the rewrite adds a parameter", firstRef);
  c.ok = true;
  if (auto why = fusionRefusal(c, ctx)) c.fuseRefusal = *why;
  return c;
}

std::string indentMore(std::string s) {
  for (size_t i = s.find('\n'); i != std::string::npos; i = s.find('\n', i + 3)) s.insert(i + 1, "  ");
  return s;
}

/// `e`, parenthesised unless it is a name or already a postfix expression.
std::string asPostfix(const Expr *e, const ASTContext &ctx) {
  std::string t = textOf(e, ctx);
  const Expr *x = e->IgnoreImpCasts();
  if (isa<DeclRefExpr>(x) || isa<MemberExpr>(x) || isa<ParenExpr>(x) || isa<ArraySubscriptExpr>(x)) return t;
  return "(" + t + ")";
}

llvm::Expected<clang::tooling::Replacements> emit(const AnalyzedTU &tu, const Plan &c) {
  ASTContext &ctx = tu.astContext();
  const FileModel &m = tu.model();
  const LoopSite &l = *c.loop;
  const Kernel &k = *c.kernel;
  llvm::StringRef text = tu.mainFileText();
  const loops::MapReduceLoop &mr = c.mr;
  const std::string opf = std::string(loops::opFunctor(mr.op)) + "{}";
  const std::string mergeName = k.name + "_nestor_merge";
  const std::string P = asPostfix(c.offsets, ctx), q = textOf(c.rowIndex, ctx);
  const std::string n = c.rowsParam->getNameAsString();
  const std::string cite = "Merrill and Garland, Merge-based Parallel Sparse Matrix-Vector Multiplication, SC'16";

  std::string params, args;
  for (const ParmVarDecl *p : c.fd->parameters()) params += (params.empty() ? "" : ", ") + textOf(p->getSourceRange(), ctx);

  // The loop's extent (with a `;` that ends a body without braces).
  unsigned loopBegin = l.span.begin.offset, loopEnd = l.span.end.offset;
  if (loopEnd > 0 && text[loopEnd - 1] != '}' && text[loopEnd - 1] != ';') {
    size_t i = loopEnd;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i < text.size() && text[i] == ';') loopEnd = unsigned(i + 1);
  }

  // Fused: the kernel's body for row nestor_q, its loop replaced by the row's
  // value nestor_v, as the merge kernel's epilogue.
  std::string epilogue;
  if (c.rowVar) {
    const SourceManager &sm = ctx.getSourceManager();
    const auto *body = cast<CompoundStmt>(c.fd->getBody());
    unsigned bBeg = sm.getFileOffset(sm.getExpansionLoc(body->getLBracLoc())) + 1;
    unsigned bEnd = sm.getFileOffset(sm.getExpansionLoc(body->getRBracLoc()));
    SourceSpan init = spanOf(c.rowVar->getInit(), ctx);
    struct Cut {
      unsigned b, e;
      std::string with;
    };
    std::vector<Cut> cuts = {{init.begin.offset, init.end.offset,
                              "static_cast<" + c.rowVar->getType().getUnqualifiedType().getAsString(ctx.getPrintingPolicy()) +
                                  ">(nestor_q)"},
                             {loopBegin, loopEnd, mr.acc + " = " + opf + "(" + mr.acc + ", nestor_v);"}};
    if (l.pragma >= 0) {
      const NpPragma &pr = m.pragmas[size_t(l.pragma)];
      if (pr.span.begin.offset >= bBeg && pr.span.end.offset <= bEnd)
        cuts.push_back({pr.span.begin.offset, pr.span.end.offset, "// (was: #pragma " + pr.text + ")"});
    }
    std::sort(cuts.begin(), cuts.end(), [](const Cut &a, const Cut &b) { return a.b < b.b; });
    bool inside = true;
    for (size_t i = 0; i < cuts.size(); ++i)
      inside &= cuts[i].b >= bBeg && cuts[i].e <= bEnd && cuts[i].b <= cuts[i].e && (i == 0 || cuts[i - 1].e <= cuts[i].b);
    if (!inside) return llvm::createStringError("merge-path: the kernel body of '%s' is not in the main file", k.name.c_str());
    std::string replay;
    unsigned at = bBeg;
    for (const Cut &cut : cuts) {
      replay += text.substr(at, cut.b - at).str() + cut.with;
      at = cut.e;
    }
    replay += text.substr(at, bEnd - at).str();
    // Two more levels of indentation inside the lambda.
    for (size_t i = replay.find('\n'); i != std::string::npos; i = replay.find('\n', i + 1)) {
      size_t next = i + 1;
      if (next < replay.size() && replay[next] != '\n') replay.insert(next, "      ");
    }
    while (!replay.empty() && (replay.back() == ' ' || replay.back() == '\t')) replay.pop_back();
    epilogue = ",\n      // fused: '" + k.name + "' for row nestor_q, its loop's value nestor_v (run here when its grid has\n"
               "      // one thread per row; the rows that span blocks are finished last, in block order)\n"
               "      [&](long long nestor_q, " + mr.accType + " nestor_v) {" + replay + "      }";
  }

  // The merge kernel, before the kernel.
  const std::string mergeKernel =
      "// merge-path (" + cite + "):\n"
      "// the iterations of the loop at line " + std::to_string(l.headerSpan.begin.line) + " for rows 0 .. " + n +
      " - 1, split evenly (rows + iterations) over the\n"
      "// blocks of a persistent grid; each row's value goes to '" + k.name + "', which combines it in a fixed order.\n" +
      (c.rowVar ? std::string()
                : "// Not fused (the row pass runs '" + k.name + "' after it): " + c.fuseRefusal + ".\n") +
      "__global__ void __launch_bounds__(nestor::mp::kBlock, nestor::mp::kMinBlocks) " + mergeName + "(" + params + (params.empty() ? "" : ", ") +
      "nestor::mp::state nestor_mp) {\n"
      "  nestor::mp::merge_rows<" + mr.accType + ">(nestor_mp, " + textOf(c.offsets, ctx) + ", " + n + ", [=](" + mr.ivType +
      " " + mr.iv + ") { return " + mr.mapped + "; }, " + opf + epilogue + ");\n}\n\n";

  // The loop: the row's value from the merge pass (the loop as written when
  // the kernel is launched without it).
  std::string in = indentationAt(text, loopBegin);
  std::string hook = "// merge-path: the row's value from " + mergeName + ", which split the iterations evenly\n" + in +
                     "// over its blocks (reassociated); the loop as written runs without the merge pass.\n" + in +
                     "if (nestor_mp.ready())\n" + in + "  " + mr.acc + " = " + opf + "(" + mr.acc +
                     ", nestor_mp.row_result<" + mr.accType + ">(" + mr.begin + ", " + mr.end + ", " + q + ", " + opf + ", " + P +
                     "[0]));\n" + in + "else\n" + in + "  " + indentMore(text.substr(loopBegin, loopEnd - loopBegin).str());

  // One merge of every edit (nestor/EditSet.h): the include and the merge
  // kernel may land at the same offset when the kernel follows the #includes.
  EditSet edits(tu);
  auto add = [&](unsigned b, unsigned e, llvm::StringRef s) -> llvm::Error {
    edits.add(b, e, s);
    return llvm::Error::success();
  };
  if (auto err = add(lb::declStart(tu, c.fd), lb::declStart(tu, c.fd), mergeKernel)) return std::move(err);
  if (l.pragma >= 0) {
    const NpPragma &pr = m.pragmas[size_t(l.pragma)];
    if (pr.span.end.offset <= loopBegin)
      if (auto err = add(pr.span.begin.offset, pr.span.end.offset, "// (was: #pragma " + pr.text + ")")) return std::move(err);
  }
  if (auto err = add(loopBegin, loopEnd, hook)) return std::move(err);
  const SourceManager &sm = ctx.getSourceManager();
  SourceLocation rp = c.fd->getFunctionTypeLoc().getRParenLoc();
  if (rp.isInvalid()) return llvm::createStringError("merge-path: the parameter list of '%s' has no closing parenthesis", k.name.c_str());
  unsigned at = sm.getFileOffset(sm.getExpansionLoc(rp));
  if (auto err = add(at, at, std::string(c.fd->param_empty() ? "" : ", ") + "nestor::mp::state nestor_mp = {}"))
    return std::move(err);
  for (const CUDAKernelCallExpr *call : c.launches) {
    const LaunchSite *ls = nullptr;
    for (const LaunchSite &s : m.launches)
      if (tu.launchExpr(s.id) == call) ls = &s;
    if (!ls) continue;
    std::string callArgs, rowsArg;
    unsigned i = 0;
    for (const Expr *a : call->arguments()) {
      if (isa<CXXDefaultArgExpr>(a)) continue;
      if (i++ == c.rowsParamIndex) rowsArg = textOf(a, ctx);
      callArgs += (callArgs.empty() ? "" : ", ") + textOf(a, ctx);
    }
    std::string li = indentationAt(text, ls->span.begin.offset);
    std::string sep = callArgs.empty() ? "" : ", ";
    const bool fused = c.rowVar != nullptr;
    std::string launch = "nestor::mp::launch<" + mr.accType + ">(" + rowsArg + ", " +
                         (fused ? "dim3(" + ls->grid + "), dim3(" + ls->block + "), " : "") + mergeName +
                         ", [&](nestor::mp::state nestor_s, int nestor_grid) {\n" + li + "  " + mergeName +
                         "<<<nestor_grid, nestor::mp::kBlock>>>(" + callArgs + sep + "nestor_s);\n" + li +
                         "}, [&](nestor::mp::state nestor_s" + (fused ? ", dim3 nestor_g, dim3 nestor_b" : "") + ") {\n" + li +
                         "  " + k.name + "<<<" + (fused ? "nestor_g" : ls->grid) + ", " + (fused ? "nestor_b" : ls->block) +
                         (ls->sharedMem.empty() ? "" : ", " + ls->sharedMem) + ">>>(" + callArgs + sep + "nestor_s);\n" + li + "})";
    if (auto err = add(ls->span.begin.offset, ls->span.end.offset, launch)) return std::move(err);
  }
  auto inc = loops::includeReplacement(tu, "nestor/merge_path.cuh");
  if (inc.getReplacementText().size()) edits.addInclude(inc);
  return edits.replacements();
}

class MergePathImpl final : public Rewrite {
public:
  const char *id() const override { return "merge-path"; }
  const RewriteInfo &info() const override {
    static const RewriteInfo i{false, {}, {{"merge-path"}}};
    return i;
  }
  RewriteTarget::Kind targetKind() const override { return RewriteTarget::Kind::Loop; }
  const char *summary() const override {
    return "Merge-path split: every block gets the same number of rows + iterations of a CSR reduction loop "
           "(Merrill & Garland, SC'16); reassociates the reduction, same bits from run to run";
  }
  std::string title(const RewriteParams &) const override {
    return "Merge-path: split the iterations, not the rows, evenly over blocks (reassociates the reduction)";
  }
  Applicability prepare(const AnalyzedTU &tu, const RewriteTarget &t, const RewriteParams &) const override {
    Plan p = check(tu, t);
    if (!p.ok) return Applicability::no(p.reason, p.blocker);
    return Applicability::yes("adds the merge kernel " + p.kernel->name + "_nestor_merge and launches it before '" +
                              p.kernel->name + "'");
  }
  llvm::Expected<clang::tooling::Replacements> apply(const AnalyzedTU &tu, const RewriteTarget &t,
                                                     const RewriteParams &) const override {
    Plan p = check(tu, t);
    if (!p.ok) return llvm::createStringError("merge-path: %s", p.reason.c_str());
    return emit(tu, p);
  }
};

} // namespace

const Rewrite &MergePathRewrite() {
  static const MergePathImpl r;
  return r;
}

} // namespace nestor
