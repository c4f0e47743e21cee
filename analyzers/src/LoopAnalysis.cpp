// Loops of the model (FunctionScanner.h): the canonical induction variable and
// bounds, the trip-count class, and the body's summary: array accesses,
// reductions, scans, privatised scalars, loop-carried dependences, and the
// CUDA constructs inside (StatementEffects).
#include "FunctionScanner.h"
#include "nestor/AstText.h"
#include "ExprPatterns.h"
#include "nestor/StatementEffects.h"
#include "LoopDependence.h"

#include "clang/AST/Attr.h"

#include <functional>
#include <map>

namespace nestor {

using namespace clang;

namespace {
/// `if (d < best) { best = d; idx = c; }` in `body`: the comparison that
/// guards the write of `best` and the other variables written with it (an
/// argmin or argmax), or nothing. Only the refusal's wording uses it: the
/// loop stays carried either way.
struct PairedUpdate {
  std::string condition;
  std::vector<std::string> partners;
};
std::optional<PairedUpdate> pairedUpdate(const Stmt *body, const VarDecl *vd, const ASTContext &ctx) {
  std::optional<PairedUpdate> found;
  std::function<void(const Stmt *)> visit = [&](const Stmt *s) {
    if (!s || found) return;
    if (auto *is = dyn_cast<IfStmt>(s); is && !is->getElse()) {
      auto *cmp = dyn_cast<BinaryOperator>(is->getCond()->IgnoreParenImpCasts());
      if (cmp && cmp->isRelationalOp() &&
          (referencedVar(cmp->getLHS()) == vd || referencedVar(cmp->getRHS()) == vd)) {
        std::vector<const Stmt *> stmts;
        if (auto *cs = dyn_cast<CompoundStmt>(is->getThen())) stmts.assign(cs->body_begin(), cs->body_end());
        else stmts.push_back(is->getThen());
        bool writesVar = false;
        PairedUpdate p;
        for (const Stmt *t : stmts) {
          auto *as = dyn_cast<BinaryOperator>(t);
          const VarDecl *w = as && as->getOpcode() == BO_Assign ? referencedVar(as->getLHS()) : nullptr;
          if (w == vd) writesVar = true;
          else if (w) p.partners.push_back(w->getNameAsString());
        }
        if (writesVar && !p.partners.empty()) {
          p.condition = textOf(cmp, ctx);
          found = p;
          return;
        }
      }
    }
    for (const Stmt *c : s->children()) visit(c);
  };
  visit(body);
  return found;
}
} // namespace

int FunctionScanner::analyzeLoop(const Stmt *s, const Context &ctx) {
  LoopSite loop;
  loop.id = nextLoopId_++;
  loop.function = fd_->getNameAsString();
  loop.inKernel = cuda::isKernelFunction(fd_);
  loop.inDeviceCode = true;
  loop.span = spanOf(s, ctx_);
  loop.depth = unsigned(ctx.loops.size());
  loop.parentLoop = ctx.loops.empty() ? -1 : ctx.loops.back();
  const Stmt *body = nullptr;
  const VarDecl *iv = nullptr;
  if (auto *fs = dyn_cast<ForStmt>(s)) {
    loop.kind = "for";
    body = fs->getBody();
    loop.headerSpan = spanOf(SourceRange(fs->getForLoc(), fs->getRParenLoc()), ctx_);
    loop.init = textOf(fs->getInit(), ctx_);
    if (!loop.init.empty() && loop.init.back() == ';') loop.init.pop_back();
    loop.condition = textOf(fs->getCond(), ctx_);
    loop.step = textOf(fs->getInc(), ctx_);
    iv = canonicalFor(fs, loop);
  } else if (auto *ws = dyn_cast<WhileStmt>(s)) {
    loop.kind = "while";
    body = ws->getBody();
    loop.condition = textOf(ws->getCond(), ctx_);
    loop.headerSpan = spanOf(SourceRange(ws->getWhileLoc(), ws->getRParenLoc()), ctx_);
  } else if (auto *ds = dyn_cast<DoStmt>(s)) {
    loop.kind = "do";
    body = ds->getBody();
    loop.condition = textOf(ds->getCond(), ctx_);
    loop.headerSpan = spanOf(SourceRange(ds->getDoLoc(), ds->getDoLoc()), ctx_);
  }
  loop.bodySpan = spanOf(body, ctx_);
  loop.unrollHint = unrollHinted_.count(s) != 0;
  summarizeBody(s, body, iv, loop);
  tu_.loopNodes[loop.id] = s;
  tu_.model().loops.push_back(std::move(loop));
  return tu_.model().loops.back().id;
}

namespace {
/// The expression as clang prints it: macros expanded (`len - MOTIF_LEN` is
/// `len - 4`), implicit conversions left out. What mapping.sizes evaluates
/// when the source text names a macro.
std::string expandedTextOf(const Expr *e, const ASTContext &ctx) {
  if (!e) return "";
  std::string out;
  llvm::raw_string_ostream os(out);
  PrintingPolicy policy(ctx.getLangOpts());
  policy.SuppressImplicitBase = true;
  e->printPretty(os, nullptr, policy, 0, "\n", &ctx);
  return out;
}
} // namespace

const VarDecl *FunctionScanner::canonicalFor(const ForStmt *fs, LoopSite &loop) {
  const VarDecl *iv = nullptr;
  const Expr *lower = nullptr;
  if (auto *ds = dyn_cast_or_null<DeclStmt>(fs->getInit())) {
    if (ds->isSingleDecl())
      if (auto *vd = dyn_cast<VarDecl>(ds->getSingleDecl()))
        if (vd->hasInit()) { iv = vd; lower = vd->getInit(); }
  } else if (auto *bo = dyn_cast_or_null<BinaryOperator>(fs->getInit())) {
    if (bo->getOpcode() == BO_Assign) { iv = referencedVar(bo->getLHS()); lower = bo->getRHS(); }
  }
  if (!iv || !iv->getType()->isIntegerType()) return nullptr;
  auto *cond = dyn_cast_or_null<BinaryOperator>(fs->getCond() ? fs->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!cond) return nullptr;
  const Expr *upper = nullptr;
  bool ivLeft = referencedVar(cond->getLHS()) == iv, ivRight = referencedVar(cond->getRHS()) == iv;
  BinaryOperatorKind op = cond->getOpcode();
  if (ivLeft && (op == BO_LT || op == BO_LE || op == BO_NE || op == BO_GT || op == BO_GE)) upper = cond->getRHS();
  else if (ivRight && (op == BO_GT || op == BO_GE || op == BO_NE || op == BO_LT || op == BO_LE)) upper = cond->getLHS();
  if (!upper || mentionsVar(upper, iv)) return nullptr;
  // Step: ++i, i++, i += c, i = i + c (and decrements).
  const Expr *inc = fs->getInc() ? fs->getInc()->IgnoreParenImpCasts() : nullptr;
  const Expr *stepExpr = nullptr;
  bool decrement = false;
  std::string stepText;
  if (auto *uo = dyn_cast_or_null<UnaryOperator>(inc)) {
    if (!uo->isIncrementDecrementOp() || referencedVar(uo->getSubExpr()) != iv) return nullptr;
    decrement = uo->isDecrementOp();
    stepText = "1";
  } else if (auto *cao = dyn_cast_or_null<CompoundAssignOperator>(inc)) {
    if (referencedVar(cao->getLHS()) != iv) return nullptr;
    if (cao->getOpcode() != BO_AddAssign && cao->getOpcode() != BO_SubAssign) return nullptr;
    decrement = cao->getOpcode() == BO_SubAssign;
    stepExpr = cao->getRHS();
  } else if (auto *bo = dyn_cast_or_null<BinaryOperator>(inc)) {
    if (bo->getOpcode() != BO_Assign || referencedVar(bo->getLHS()) != iv) return nullptr;
    auto *rb = dyn_cast<BinaryOperator>(bo->getRHS()->IgnoreParenImpCasts());
    if (!rb || (rb->getOpcode() != BO_Add && rb->getOpcode() != BO_Sub) || referencedVar(rb->getLHS()) != iv) return nullptr;
    decrement = rb->getOpcode() == BO_Sub;
    stepExpr = rb->getRHS();
  } else {
    return nullptr;
  }
  if (stepExpr) {
    if (mentionsVar(stepExpr, iv)) return nullptr;
    stepText = textOf(stepExpr, ctx_);
  }
  if (decrement) stepText = "-" + stepText;
  loop.inductionVar = iv->getNameAsString();
  loop.inductionType = iv->getType().getAsString();
  loop.lowerBound = textOf(lower, ctx_);
  loop.upperBound = textOf(upper, ctx_);
  loop.stepAmount = stepText;
  loop.lowerBoundExpanded = expandedTextOf(lower, ctx_);
  loop.upperBoundExpanded = expandedTextOf(upper, ctx_);
  loop.stepAmountExpanded =
      stepExpr ? (decrement ? "-(" + expandedTextOf(stepExpr, ctx_) + ")" : expandedTextOf(stepExpr, ctx_)) : stepText;
  loop.upperInclusive = (op == BO_LE && ivLeft) || (op == BO_GE && ivRight);

  if (variance_.of(lower) != Variance::ThreadVarying && (!stepExpr || variance_.of(stepExpr) != Variance::ThreadVarying))
    lockstep_.insert(iv);
  Variance v = join(join(variance_.of(lower), variance_.of(upper)), stepExpr ? variance_.of(stepExpr) : Variance::Constant);
  Expr::EvalResult lo, hi, st;
  int64_t stepValue = decrement ? -1 : 1;
  bool stepConst = true;
  if (stepExpr) {
    if (!stepExpr->isValueDependent() && stepExpr->EvaluateAsInt(st, ctx_) && st.Val.getInt().getSignificantBits() <= 64 &&
        !(decrement && st.Val.getInt().getExtValue() == INT64_MIN)) // no overflow negating it
      stepValue = decrement ? -st.Val.getInt().getExtValue() : st.Val.getInt().getExtValue();
    else stepConst = false;
  }
  if (stepConst && !lower->isValueDependent() && !upper->isValueDependent() &&
      lower->EvaluateAsInt(lo, ctx_) && upper->EvaluateAsInt(hi, ctx_) && stepValue != 0) {
    loop.tripCount = TripCountClass::Constant;
    // In 128 bits: bounds near the ends of int64 (or unsigned ones past it)
    // must not overflow; the count saturates at INT64_MAX.
    auto wide = [](const llvm::APSInt &v) -> __int128 {
      return v.isUnsigned() ? __int128(v.getZExtValue()) : __int128(v.getExtValue());
    };
    __int128 l = wide(lo.Val.getInt()), h = wide(hi.Val.getInt()), step = stepValue;
    if (loop.upperInclusive) h += step > 0 ? 1 : -1;
    __int128 n = step > 0 ? (h > l ? (h - l + step - 1) / step : 0) : (l > h ? (l - h - step - 1) / -step : 0);
    loop.constantTripCount = n > INT64_MAX ? INT64_MAX : int64_t(n);
  } else if (v == Variance::ThreadVarying) {
    loop.tripCount = TripCountClass::Irregular;
  } else {
    loop.tripCount = TripCountClass::Uniform;
  }
  // Grid-stride / block-stride loops: start at a thread id, step by a block or grid size.
  // (a warp-stride loop `for (c = lane; c < n; c += 32)` is one too).
  bool strideStep = stepExpr && (variance_.of(stepExpr) == Variance::Uniform ||
                                 (variance_.of(stepExpr) == Variance::Constant && (stepValue > 1 || stepValue < -1)));
  if (variance_.of(lower) == Variance::ThreadVarying && variance_.of(upper) != Variance::ThreadVarying &&
      strideStep && !variance_.isDataDependent(lower)) {
    loop.gridStride = true;
    loop.tripCount = TripCountClass::Uniform; // differs by at most one between threads
  }
  // The block-level form `for (b = blockIdx.x; b < n; b += gridDim.x)`: the
  // block's share of a flat loop, spread over blocks already.
  auto mentionsBuiltin = [](const Stmt *e, llvm::StringRef name) {
    bool found = false;
    forEachNode(e, [&](const Stmt *n) {
      if (auto *x = dyn_cast<Expr>(n))
        if (auto b = cuda::builtinComponent(x); b && b->builtin == name) found = true;
    });
    return found;
  };
  if (stepExpr && mentionsBuiltin(lower, "blockIdx") && mentionsBuiltin(stepExpr, "gridDim") &&
      !mentionsBuiltin(upper, "blockIdx"))
    loop.gridStride = true;
  return iv;
}

void FunctionScanner::summarizeBody(const Stmt *loopStmt, const Stmt *body, const VarDecl *iv, LoopSite &loop) {
  if (!body) return;
  // Variables declared inside the loop (private to an iteration) and those
  // derived from the induction variable.
  std::set<const VarDecl *> inner, derived;
  if (iv) derived.insert(iv);
  std::function<void(const Stmt *)> collectDecls = [&](const Stmt *s) {
    if (!s) return;
    if (auto *ds = dyn_cast<DeclStmt>(s))
      for (const Decl *d : ds->decls())
        if (auto *vd = dyn_cast<VarDecl>(d)) {
          inner.insert(vd);
          if (vd->hasInit() && mentionsAnyVar(vd->getInit(), derived)) derived.insert(vd);
        }
    for (const Stmt *c : s->children()) collectDecls(c);
  };
  collectDecls(body);
  if (auto *fs = dyn_cast<ForStmt>(loopStmt))
    if (auto *ds = dyn_cast_or_null<DeclStmt>(fs->getInit()))
      for (const Decl *d : ds->decls())
        if (auto *vd = dyn_cast<VarDecl>(d)) inner.insert(vd);

  // Walk the body in source order, tracking reads and writes of outer scalars.
  struct VarUse {
    bool written = false, read = false, firstIsPlainWrite = false, seen = false;
    bool onlyReductionUpdates = true;
    std::optional<ReductionOp> op;
    bool opConsistent = true;
    SourceSpan firstSpan;
    std::vector<SourceSpan> updates;
    bool readOutsideUpdate = false;
    bool storedToArray = false; // scan candidate: out[i] = s
  };
  std::map<const VarDecl *, VarUse> uses;
  std::vector<const VarDecl *> order;
  std::set<const VarDecl *> liveIn, localArrays;

  auto outerScalar = [&](const VarDecl *vd) {
    return vd && vd->hasLocalStorage() && !inner.count(vd) && vd != iv && !vd->getType()->isArrayType() &&
           !vd->hasAttr<CUDASharedAttr>();
  };
  auto noteUse = [&](const VarDecl *vd) -> VarUse & {
    auto &u = uses[vd];
    if (!u.seen) { u.seen = true; order.push_back(vd); }
    return u;
  };

  // Expressions whose value nothing uses (statements of a block, branch and
  // loop bodies, a for's increment): only there is `acc += x` or `n++` a
  // reduction update; `*o++` or `y = (acc += x)` also read the variable.
  // Kept without parentheses and implicit casts, as they are looked up.
  auto bare = [](const Stmt *n) -> const Stmt * {
    auto *e = dyn_cast_or_null<Expr>(n);
    return e ? e->IgnoreParenImpCasts() : n;
  };
  std::set<const Stmt *> discarded;
  auto discard = [&](const Stmt *n) { if (n) discarded.insert(bare(n)); };
  forEachNode(body, [&](const Stmt *n) {
    if (auto *cs = dyn_cast<CompoundStmt>(n))
      for (const Stmt *c : cs->body()) discard(c);
    if (auto *is = dyn_cast<IfStmt>(n)) { discard(is->getThen()); discard(is->getElse()); }
    if (auto *fs = dyn_cast<ForStmt>(n)) { discard(fs->getBody()); discard(fs->getInc()); }
    if (auto *ws = dyn_cast<WhileStmt>(n)) discard(ws->getBody());
    if (auto *ds = dyn_cast<DoStmt>(n)) discard(ds->getBody());
    if (auto *bo = dyn_cast<BinaryOperator>(n); bo && bo->getOpcode() == BO_Comma) discard(bo->getLHS());
  });
  discard(body);
  auto isDiscarded = [&](const Stmt *n) { return discarded.count(bare(n)) != 0; };
  // Built-in arithmetic only: a class with its own `+=` is no known reduction.
  auto reducible = [&](const VarDecl *vd) { return vd->getType()->isArithmeticType(); };
  // The outer variable an lvalue changes: itself or an object whose member
  // (`acc.x`, `p.v.y`) it is.
  auto outerObject = [&](const Expr *e) -> const VarDecl * {
    if (!e) return nullptr;
    e = e->IgnoreParenImpCasts();
    while (auto *me = dyn_cast<MemberExpr>(e)) {
      if (me->isArrow()) return nullptr;
      e = me->getBase()->IgnoreParenImpCasts();
    }
    const VarDecl *vd = referencedVar(e);
    return outerScalar(vd) ? vd : nullptr;
  };
  // A change that also reads the old value, by something other than a
  // recognised reduction: carried unless a plain write came first.
  auto readModifyWrite = [&](const VarDecl *vd, const Stmt *at) {
    VarUse &u = noteUse(vd);
    u.read = true;
    u.readOutsideUpdate = true;
    u.written = true;
    u.onlyReductionUpdates = false;
    if (!u.firstSpan.valid()) u.firstSpan = spanOf(at, ctx_);
  };

  const VarDecl *updatingVar = nullptr; // the reduction variable whose update is being walked
  std::function<void(const Stmt *, int, bool)> walk;
  // nestedLoops: loops inside this one (a write there is not the iteration's first)
  // conditional: under a branch inside the body
  walk = [&](const Stmt *s, int nestedLoops, bool conditional) {
    if (!s) return;
    if (auto red = reductionUpdate(s)) {
      const VarDecl *vd = red->var;
      if (outerScalar(vd) && reducible(vd) && isDiscarded(s)) {
        VarUse &u = noteUse(vd);
        u.written = true;
        if (u.op && *u.op != red->op) u.opConsistent = false;
        u.op = red->op;
        u.updates.push_back(spanOf(s, ctx_));
        if (!u.firstSpan.valid()) u.firstSpan = spanOf(s, ctx_);
        // The right-hand side may still read other things; its own mention
        // of the variable is part of the update.
        const Expr *e = cast<Expr>(s)->IgnoreParenImpCasts();
        if (auto *bo = dyn_cast<BinaryOperator>(e)) {
          const VarDecl *saved = updatingVar;
          updatingVar = vd;
          walk(bo->getRHS(), nestedLoops, conditional);
          updatingVar = saved;
        }
        return;
      }
    }
    if (auto *bo = dyn_cast<BinaryOperator>(s)) {
      if (bo->isAssignmentOp()) {
        const Expr *lhs = bo->getLHS()->IgnoreParenImpCasts();
        if (isa<MemberExpr>(lhs))
          if (const VarDecl *vd = outerObject(lhs)) {
            // `acc.x += v`: a part of an outer object changes.
            walk(bo->getRHS(), nestedLoops, conditional);
            readModifyWrite(vd, s);
            return;
          }
        if (auto *vd = referencedVar(lhs); outerScalar(vd)) {
          // Evaluate the RHS first: `x = x + 1` reads before it writes.
          walk(bo->getRHS(), nestedLoops, conditional);
          VarUse &u = noteUse(vd);
          if (!u.read && !u.written && bo->getOpcode() == BO_Assign && !conditional && nestedLoops == 0)
            u.firstIsPlainWrite = true;
          if (bo->isCompoundAssignmentOp() || !isDiscarded(s)) u.read = true;
          if (!isDiscarded(s)) u.readOutsideUpdate = true;
          u.written = true;
          u.onlyReductionUpdates = false;
          if (!u.firstSpan.valid()) u.firstSpan = spanOf(s, ctx_);
          return;
        }
        if (auto *as = dyn_cast<ArraySubscriptExpr>(lhs)) {
          recordAccess(as, true, derived, iv, loop);
          if (bo->isCompoundAssignmentOp()) recordAccess(as, false, derived, iv, loop);
          // Scan candidate: out[i] = s, after the update (inclusive) or
          // before it (exclusive order).
          if (auto *rv = referencedVar(bo->getRHS()); rv && outerScalar(rv)) noteUse(rv).storedToArray = true;
          walkIndices(as, nestedLoops, conditional, walk);
          walk(bo->getRHS(), nestedLoops, conditional);
          return;
        }
      }
    }
    if (auto *uo = dyn_cast<UnaryOperator>(s)) {
      if (uo->isIncrementDecrementOp()) {
        if (const VarDecl *vd = outerObject(uo->getSubExpr());
            vd && (!reducible(vd) || !isDiscarded(s) || referencedVar(uo->getSubExpr()) != vd)) {
          // `*o++`, `y = n++`, `it.pos++`: the old value is used.
          walk(uo->getSubExpr(), nestedLoops, conditional);
          readModifyWrite(vd, s);
          return;
        }
        if (auto *vd = referencedVar(uo->getSubExpr()); outerScalar(vd)) {
          VarUse &u = noteUse(vd);
          // `count++` is a + reduction when nothing else reads count.
          if (u.op && *u.op != ReductionOp::Add) u.opConsistent = false;
          u.op = ReductionOp::Add;
          u.written = true;
          u.updates.push_back(spanOf(s, ctx_));
          if (!u.firstSpan.valid()) u.firstSpan = spanOf(s, ctx_);
          return;
        }
        if (auto *as = dyn_cast<ArraySubscriptExpr>(uo->getSubExpr()->IgnoreParenImpCasts())) {
          recordAccess(as, true, derived, iv, loop);
          recordAccess(as, false, derived, iv, loop);
          walkIndices(as, nestedLoops, conditional, walk);
          return;
        }
      }
    }
    if (auto *as = dyn_cast<ArraySubscriptExpr>(s)) {
      recordAccess(as, false, derived, iv, loop);
      walkIndices(as, nestedLoops, conditional, walk);
      return;
    }
    if (auto *uo = dyn_cast<UnaryOperator>(s); uo && uo->getOpcode() == UO_AddrOf)
      if (const VarDecl *vd = outerObject(uo->getSubExpr())) {
        // `&acc`: whoever gets the address may change it.
        readModifyWrite(vd, s);
        walk(uo->getSubExpr(), nestedLoops, conditional);
        return;
      }
    if (auto *oc = dyn_cast<CXXOperatorCallExpr>(s); oc && oc->getNumArgs() > 0) {
      if (const VarDecl *vd = writesFirstOperand(oc) ? outerObject(oc->getArg(0)) : nullptr) {
        for (unsigned i = 1; i < oc->getNumArgs(); ++i) walk(oc->getArg(i), nestedLoops, conditional);
        bool plainAssign = oc->getOperator() == OO_Equal && referencedVar(oc->getArg(0)) == vd &&
                           !mentionsVar(oc->getArg(1), vd) && isDiscarded(s);
        VarUse &u = noteUse(vd);
        if (plainAssign) {
          // `obj = T(...)`: a class object's plain write (privatises it).
          if (!u.read && !u.written && !conditional && nestedLoops == 0) u.firstIsPlainWrite = true;
          u.written = true;
          u.onlyReductionUpdates = false;
          if (!u.firstSpan.valid()) u.firstSpan = spanOf(s, ctx_);
        } else {
          // `acc += v` through a user operator: no known reduction.
          readModifyWrite(vd, s);
        }
        return;
      }
    }
    if (auto *mc = dyn_cast<CXXMemberCallExpr>(s))
      if (auto *md = mc->getMethodDecl(); md && !md->isConst())
        if (const VarDecl *vd = outerObject(mc->getImplicitObjectArgument())) {
          for (const Expr *a : mc->arguments()) walk(a, nestedLoops, conditional);
          readModifyWrite(vd, s);
          return;
        }
    if (auto *ce = dyn_cast<CallExpr>(s); ce && !isa<CXXOperatorCallExpr>(ce)) {
      // An outer variable bound to a non-const reference parameter
      // (`bump(acc, v)` with `float &`): the callee may change it.
      if (const FunctionDecl *fd = ce->getDirectCallee())
        for (unsigned i = 0; i < ce->getNumArgs() && i < fd->getNumParams(); ++i) {
          if (isNonConstReference(fd->getParamDecl(i)->getType()))
            if (const VarDecl *vd = outerObject(ce->getArg(i))) readModifyWrite(vd, s);
        }
    }
    if (auto *ds = dyn_cast<DeclStmt>(s))
      for (const Decl *d : ds->decls())
        if (auto *vd = dyn_cast<VarDecl>(d); vd && vd->hasInit() && isNonConstReference(vd->getType()))
          if (const VarDecl *ov = outerObject(vd->getInit())) readModifyWrite(ov, s);
    if (auto *dre = dyn_cast<DeclRefExpr>(s)) {
      if (auto *vd = dyn_cast<VarDecl>(dre->getDecl())) {
        if (outerScalar(vd) && vd != updatingVar) {
          VarUse &u = noteUse(vd);
          u.read = true;
          u.readOutsideUpdate = true;
          if (!u.written) liveIn.insert(vd);
          if (!u.firstSpan.valid()) u.firstSpan = spanOf(s, ctx_);
        }
        if (vd->hasLocalStorage() && vd->getType()->isConstantArrayType() && !vd->hasAttr<CUDASharedAttr>() &&
            !inner.count(vd))
          localArrays.insert(vd);
      }
      return;
    }
    bool isLoop = isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(s);
    bool isCond = isa<IfStmt, SwitchStmt, ConditionalOperator, BinaryConditionalOperator>(s) ||
                  (isa<BinaryOperator>(s) && cast<BinaryOperator>(s)->isLogicalOp());
    for (const Stmt *c : s->children()) walk(c, nestedLoops + (isLoop ? 1 : 0), conditional || isCond || isLoop);
  };
  walk(body, 0, false);

  // The CUDA constructs inside the body, and the control flow that leaves it.
  StatementEffects fx = effectsOf(body, ctx_);
  loop.calls = fx.calls;
  for (const ConstructUse &b : fx.barriers) loop.barriers.push_back(b.span);
  for (const ConstructUse &a : fx.atomics) loop.atomics.push_back(a.span);
  loop.hasWarpIntrinsics = !fx.warpOps.empty();
  loop.hasDeviceLaunch = fx.launch;
  loop.breaks = fx.breaks;
  loop.returns = fx.returns;
  loop.gotos = fx.gotos;
  // Code clang could not parse, in the header or the body: what it does is
  // unknown, so no rewrite may move the iterations (Model.h).
  if (auto *fs = dyn_cast<ForStmt>(loopStmt))
    for (const Stmt *part : {fs->getInit(), static_cast<const Stmt *>(fs->getCond()), static_cast<const Stmt *>(fs->getInc())}) {
      StatementEffects header = effectsOf(part, ctx_);
      loop.unparsed.insert(loop.unparsed.end(), header.unparsed.begin(), header.unparsed.end());
    }
  loop.unparsed.insert(loop.unparsed.end(), fx.unparsed.begin(), fx.unparsed.end());

  // Classify the outer scalars the body touched.
  for (const VarDecl *vd : order) {
    const VarUse &u = uses[vd];
    std::string name = vd->getNameAsString();
    if (!u.written) continue;
    bool pureReduction = u.op && u.opConsistent && !u.readOutsideUpdate && u.onlyReductionUpdates;
    if (pureReduction) {
      loop.reductions.push_back({*u.op, name, u.updates.front()});
      continue;
    }
    if (u.op && u.opConsistent && u.onlyReductionUpdates && u.storedToArray && u.updates.size() >= 1) {
      loop.scans.push_back({*u.op, name, u.updates.front()});
      continue;
    }
    if (u.firstIsPlainWrite) {
      loop.privatized.push_back(name);
      continue;
    }
    // A template's accumulator of a dependent type (`T s = 0; s += w[k];`):
    // whether `+=` is the built-in one (a reduction) or a class's own
    // depends on the instantiation, and the rewrite edits the one text
    // every instantiation shares.
    std::string reason = vd->getType()->isDependentType()
                             ? "'" + name + "' has a type that depends on a template parameter ('" +
                                   vd->getType().getAsString() +
                                   "'): its update is no reduction the analysis can prove for every instantiation"
                         : u.op ? "'" + name + "' is updated across iterations and also read inside the loop"
                                : "'" + name + "' is written in one iteration and read in a later one";
    if (auto paired = u.op || vd->getType()->isDependentType() ? std::nullopt : pairedUpdate(body, vd, ctx_)) {
      std::string with;
      for (const std::string &p : paired->partners) with += (with.empty() ? "'" : ", '") + p + "'";
      // An argmin or argmax: say what it is and how it becomes a reduction.
      reason = "'" + name + "' and " + with + " are written together under `" + paired->condition +
               "` (an argmin or argmax), which no single-variable reduction combines; packed into one "
               "order-preserving integer key they would be a min or max reduction";
    }
    loop.carriedDependences.push_back({name, reason, u.firstSpan});
  }
  for (const VarDecl *vd : order)
    if (liveIn.count(vd)) loop.liveIns.push_back(vd->getNameAsString());
  for (const VarDecl *vd : localArrays) loop.localArrays.push_back(vd->getNameAsString());

  // Memory: every location the body may write, proven safe or reported.
  std::set<const VarDecl *> innerAndInduction = inner;
  analyzeMemoryDependences(body, iv, innerAndInduction, ctx_, loop);
}

template <class Walk>
void FunctionScanner::walkIndices(const ArraySubscriptExpr *as, int nested, bool cond, Walk &walk) {
  const Expr *b = as;
  while (auto *a = dyn_cast<ArraySubscriptExpr>(b->IgnoreParenImpCasts())) {
    walk(a->getIdx(), nested, cond);
    b = a->getBase();
  }
  walk(b, nested, cond);
}

namespace {
/// Two reads of one array whose indices (per dimension) differ by c times
/// the loop's stride, 1 <= |c| <= 8 (`p[(t - 1) * n + i]` is `p[t * n + i]`
/// one iteration earlier), or only in the last dimension by at most 8
/// elements (`x[k + 1]`, the same sectors): the later read finds the data in
/// a cache the earlier one filled.
bool readsSameData(const std::vector<IndexPolynomial> &a, const std::vector<IndexPolynomial> &b, const std::string &iv) {
  constexpr int64_t kMaxShift = 8;
  std::vector<IndexPolynomial> diff, stride;
  for (size_t d = 0; d < a.size(); ++d) {
    diff.push_back(a[d].minus(b[d]));
    if (diff.back().mentions(iv)) return false; // not the same walk shifted
    auto s = a[d].coefficientOf(iv);
    if (!s) return false;
    stride.push_back(std::move(*s));
  }
  if (std::all_of(diff.begin(), diff.end(), [](const IndexPolynomial &p) { return p.isZero(); })) return false;
  // Along the loop: one c for every dimension.
  std::optional<int64_t> c;
  bool along = true;
  for (size_t d = 0; d < a.size() && along; ++d) {
    if (stride[d].isZero()) {
      along = diff[d].isZero();
      continue;
    }
    if (diff[d].isZero()) {
      along = false;
      continue;
    }
    auto m = diff[d].multipleOf(stride[d]);
    along = m && (!c || *c == *m);
    c = m;
  }
  if (along && c && *c != 0 && std::abs(*c) <= kMaxShift) return true;
  // Neighbours in the last dimension.
  for (size_t d = 0; d + 1 < a.size(); ++d)
    if (!diff[d].isZero()) return false;
  std::optional<int64_t> k = diff.back().constant();
  return k && std::abs(*k) <= kMaxShift;
}
} // namespace

namespace {
/// Whether `e` (an index) reads memory at an address that moves with the
/// loop: a gather, `x[col[k]]`, also through locals of the body
/// (`int j = nbr[k]; ... px[j]`). A load the loop does not move
/// (`v[start[i] + k]`: the thread's offset) is not one. The cost model
/// reads it (ArrayAccess::indirect); no rewrite decision does.
bool gathersAlongLoop(const Stmt *e, const std::set<const VarDecl *> &derived, unsigned depth = 0) {
  if (!e) return false;
  if (isa<ArraySubscriptExpr>(e) && mentionsAnyVar(e, derived)) return true;
  if (auto *uo = dyn_cast<UnaryOperator>(e); uo && uo->getOpcode() == UO_Deref && mentionsAnyVar(uo, derived))
    return true;
  if (auto *dre = dyn_cast<DeclRefExpr>(e))
    if (auto *vd = dyn_cast<VarDecl>(dre->getDecl());
        vd && depth < 4 && derived.count(vd) && vd->hasLocalStorage() && vd->hasInit())
      return gathersAlongLoop(vd->getInit(), derived, depth + 1);
  for (const Stmt *c : e->children())
    if (gathersAlongLoop(c, derived, depth)) return true;
  return false;
}
} // namespace

void FunctionScanner::recordAccess(const ArraySubscriptExpr *as, bool isWrite, const std::set<const VarDecl *> &derived,
                                   const VarDecl *iv, LoopSite &loop) {
  std::vector<const Expr *> indices;
  const Expr *root = arrayRoot(as, indices);
  // A pointer the loop moves (`const char *s = reads + (size_t)r * len + k;
  // ... s[0] .. s[3]`): a local of the body set to `base + offset` from the
  // induction variable. The access is base[offset + index] and walks with
  // the loop. Ninth held-out set (H100): a motif count read that way was
  // taken as the thread's own elements, loaded once; its loop had no
  // traffic and kept the original, which 16 intra-warp slaves beat 4.75x.
  const Expr *movedOffset = nullptr;
  if (indices.size() == 1)
    if (auto *dre = dyn_cast<DeclRefExpr>(root))
      if (auto *vd = dyn_cast<VarDecl>(dre->getDecl());
          vd && vd != iv && derived.count(vd) && vd->getType()->isPointerType() && vd->hasInit())
        if (auto *bo = dyn_cast<BinaryOperator>(vd->getInit()->IgnoreParenImpCasts()); bo && bo->getOpcode() == BO_Add) {
          const Expr *l = bo->getLHS()->IgnoreParenImpCasts(), *r = bo->getRHS()->IgnoreParenImpCasts();
          if (r->getType()->isPointerType() || r->getType()->isArrayType()) std::swap(l, r);
          if ((l->getType()->isPointerType() || l->getType()->isArrayType()) && r->getType()->isIntegerType() &&
              !mentionsAnyVar(l, derived) && mentionsAnyVar(r, derived)) {
            root = l;
            movedOffset = r;
          }
        }
  ArrayAccess a;
  a.array = textOf(root, ctx_);
  a.isWrite = isWrite;
  // The element's size, where its type is complete (an incomplete struct
  // from a header the parse did not see has none: 0, the cost model's 4).
  if (QualType t = as->getType(); !t.isNull() && !t->isDependentType() && !t->isIncompleteType() &&
                                  t->isConstantSizeType())
    a.elementBytes = unsigned(std::min<int64_t>(ctx_.getTypeSizeInChars(t).getQuantity(), 1 << 20));
  a.memorySpace = memorySpaceOf(root);
  a.span = spanOf(as, ctx_);
  if (movedOffset) {
    a.index = textOf(movedOffset, ctx_) + " + ";
    a.dependsOnThread |= variesAcrossLanes(movedOffset);
    a.dependsOnInduction = true;
    a.indirect |= gathersAlongLoop(movedOffset, derived);
  }
  for (size_t i = 0; i < indices.size(); ++i) {
    const Expr *idx = indices[i];
    a.index += (i ? "][" : "") + textOf(idx, ctx_);
    a.dependsOnThread |= variesAcrossLanes(idx);
    a.dependsOnInduction |= mentionsAnyVar(idx, derived);
    a.indirect |= gathersAlongLoop(idx, derived);
  }
  // A base that varies with the thread (a local pointer to the thread's
  // row, `const float *z = logits + r * classes; ... z[k]`): each thread
  // walks its own memory even though the index does not name the thread.
  a.dependsOnThread |= variesAcrossLanes(root);
  if (!indices.empty()) a.threadContiguous = isThreadLinear(indices.back());
  if (movedOffset) a.threadContiguous = isThreadLinear(movedOffset) && variance_.of(indices.back()) != Variance::ThreadVarying;
  // Unit stride along the loop: the induction variable itself is the one
  // term of the innermost index that names it, and the loop steps by one
  // (CSR `val[e]`, `a[row * m + j]`).
  if (!indices.empty() && iv && loop.stepAmount == "1" && !a.indirect) {
    std::vector<const Expr *> terms;
    additiveTerms(indices.back(), terms);
    if (movedOffset) additiveTerms(movedOffset, terms);
    // A constant stride: `2 * k` or `k * 2` as a term (interleaved pairs,
    // the real and imaginary parts of a complex row) walks the thread's
    // memory in order too, a sector serving 32 / (4 x stride) iterations.
    auto strideOf = [&](const Expr *t) -> unsigned {
      if (referencedVar(t) == iv) return 1;
      auto *bo = dyn_cast<BinaryOperator>(t->IgnoreParenImpCasts());
      if (!bo || bo->getOpcode() != BO_Mul) return 0;
      const Expr *other = referencedVar(bo->getLHS()) == iv   ? bo->getRHS()
                          : referencedVar(bo->getRHS()) == iv ? bo->getLHS()
                                                              : nullptr;
      if (!other || other->isValueDependent()) return 0;
      std::optional<llvm::APSInt> c = other->getIntegerConstantExpr(ctx_);
      return c && c->isStrictlyPositive() && c->getLimitedValue() <= 64 ? unsigned(c->getLimitedValue()) : 0;
    };
    unsigned stride = 0;
    const std::set<const VarDecl *> ivOnly{iv};
    for (const Expr *t : terms) {
      const unsigned s = strideOf(t);
      if (!s && !mentionsAnyVar(t, ivOnly)) continue;
      if (!s || stride) { stride = 0; break; } // `k * n`, or the induction variable in two terms: no single stride
      stride = s;
    }
    a.inductionStride = stride;
    a.inductionContiguous = stride == 1;
  }
  // One entry per (array, index, direction).
  for (const auto &e : loop.accesses)
    if (e.array == a.array && e.index == a.index && e.isWrite == a.isWrite) return;
  std::optional<std::vector<IndexPolynomial>> polys(std::in_place);
  for (const Expr *idx : indices) {
    auto p = IndexPolynomial::of(idx, ctx_);
    if (!p) {
      polys.reset();
      break;
    }
    polys->push_back(std::move(*p));
  }
  if (polys && movedOffset) {
    auto off = IndexPolynomial::of(movedOffset, ctx_);
    auto sum = off ? polys->back().plus(*off) : std::nullopt; // index + offset
    if (sum) polys->back() = std::move(*sum);
    else polys.reset();
  }
  auto &earlier = indexPolynomials_[loop.id];
  if (polys && iv && !a.isWrite && !a.indirect && a.dependsOnInduction)
    for (size_t j = 0; j < loop.accesses.size() && j < earlier.size(); ++j) {
      const ArrayAccess &b = loop.accesses[j];
      if (b.array != a.array || b.isWrite || b.indirect || b.memorySpace != a.memorySpace || !earlier[j] ||
          earlier[j]->size() != polys->size())
        continue;
      if (readsSameData(*polys, *earlier[j], IndexPolynomial::atomOf(iv))) {
        a.sameDataAs = int(j);
        break;
      }
    }
  earlier.resize(loop.accesses.size());
  earlier.push_back(std::move(polys));
  loop.accesses.push_back(std::move(a));
}
} // namespace nestor
