// CUDA-NP planner (NpPlanner.h): thread-id renames, the statements outside
// the parallel loops (run by masters, broadcast where slaves need them) and
// the `if`/`for` statements that enclose a parallel loop.
#include "NpPlanner.h"

using namespace clang;

namespace nestor::loops {

bool NpPlanner::rewriteThreadIds() {
  std::set<unsigned> done;
  bool macro = false;
  SourceSpan macroAt;
  forEachNode(body_, [&](const Stmt *s) {
    auto *dr = dyn_cast<DeclRefExpr>(s);
    if (!dr || !cuda::isThreadIdBuiltin(dr->getDecl())) return;
    llvm::StringRef n = dr->getDecl()->getName();
    if (n != "threadIdx" && n != "blockDim") return;
    if (dr->getBeginLoc().isMacroID()) { macro = true; macroAt = spanOf(dr, ctx_); return; }
    unsigned off = spanOf(dr, ctx_).begin.offset;
    if (!done.insert(off).second) return;
    edits_.push_back({off, unsigned(n.size()), "nestor_" + n.str(), /*rename=*/true});
  });
  if (macro) return fail("threadIdx/blockDim is used inside a macro expansion; expand the macro first", macroAt);
  return true;
}

bool NpPlanner::statement(const Stmt *s, bool &masterWrote, int depth) {
  if (isParallel(s)) {
    auto *fs = cast<ForStmt>(s);
    return parallelLoop(fs, *parallel_[fs], masterWrote);
  }
  if (!enclosesParallel(s)) return sequentialStatement(s, masterWrote, depth);
  if (auto *cs = dyn_cast<CompoundStmt>(s)) {
    for (const Stmt *c : cs->body())
      if (!statement(c, masterWrote, depth + 1)) return false;
    return true;
  }
  if (auto *is = dyn_cast<IfStmt>(s)) return enclosingIf(is, masterWrote, depth);
  if (auto *fs = dyn_cast<ForStmt>(s)) return enclosingFor(fs, masterWrote, depth);
  return fail("a " + statementKind(s) + " encloses a parallel loop", spanOf(s, ctx_));
}

bool NpPlanner::blockUniform(const Stmt *e, const std::set<const VarDecl *> &loopVars) const {
  bool ok = true;
  forEachNode(e, [&](const Stmt *s) {
    if (auto *dr = dyn_cast<DeclRefExpr>(s)) {
      auto *vd = dyn_cast<VarDecl>(dr->getDecl());
      if (!vd) return;
      if (cuda::isThreadIdBuiltin(vd)) {
        if (vd->getName() == "threadIdx") ok = false;
        return;
      }
      if (!isLocalVar(vd)) return; // constants; memory reads are refused below
      if (loopVars.count(vd)) return;
      if (kernelWrites_.count(vd) || vd->getType()->isArrayType() || vd->getType()->isReferenceType()) { ok = false; return; }
      if (isa<ParmVarDecl>(vd)) return;
      // A local written only by its initialiser: uniform when that is.
      if (!vd->getInit() || !blockUniform(vd->getInit(), loopVars)) ok = false;
    }
  });
  StatementEffects fx = effects(e);
  return ok && !fx.memRead && !fx.impureCall && !fx.barrier && !fx.warp && !fx.launch && !fx.lambda && !fx.memWrite;
}

bool NpPlanner::enclosingIf(const IfStmt *is, bool &masterWrote, int depth) {
  const SourceSpan at = spanOf(is, ctx_);
  if (is->getInit() || is->getConditionVariable() || is->isConstexpr() || is->isConsteval())
    return fail("an `if` with an initialiser or a declaration encloses a parallel loop", at);
  StatementEffects fc = effects(is->getCond());
  if (fc.memWrite || !fc.writes.empty() || fc.barrier || fc.warp || fc.launch || fc.lambda)
    return fail("the condition of the `if` enclosing a parallel loop has side effects", spanOf(is->getCond(), ctx_));
  const std::string cond = oneLine(textOf(is->getCond(), ctx_));
  const SourceSpan cs = spanOf(is->getCond(), ctx_);
  const bool uniform = isUniform(fc);
  // The master decides; its slaves follow (read_from_master reaches every thread).
  const std::string decidedPrefix = G() + "::read_from_master(" + guard() + " ? bool(", decidedSuffix = ") : false)";
  bool wroteThen = masterWrote, wroteElse = masterWrote;
  if (cfg_.intra) {
    // Every member of a group takes the master's branch.
    if (!uniform) wrapCondition(is, decidedPrefix, decidedSuffix);
    if (!statement(is->getThen(), wroteThen, depth + 1)) return false;
    if (is->getElse() && !statement(is->getElse(), wroteElse, depth + 1)) return false;
    masterWrote = wroteThen || wroteElse;
    return true;
  }
  // Inter-warp: every thread of the block runs both branches, predicated.
  const std::string p = "nestor_if_" + std::to_string(ifCount_++);
  const std::string prefix = uniform ? (preds_.empty() ? "bool(" : predicate() + " && bool(") : decidedPrefix;
  const std::string suffix = uniform ? ")" : decidedSuffix;
  const std::string in = indentOf(is);
  replace(beginOf(is), cs.begin.offset,
          "{ // was: if (" + cond + "): inter-warp NP predicates the branch (every thread reaches the group barriers)\n" +
              in + "const bool " + p + " = " + prefix);
  replace(cs.end.offset, beginOf(is->getThen()), suffix + ";\n" + in);
  preds_.push_back(p);
  bool ok = statement(is->getThen(), wroteThen, depth + 1);
  preds_.pop_back();
  if (!ok) return false;
  if (const Stmt *el = is->getElse()) {
    replace(endOf(is->getThen()), beginOf(el), "\n" + in + "// else\n" + in);
    preds_.push_back("!" + p);
    ok = statement(el, wroteElse, depth + 1);
    preds_.pop_back();
    if (!ok) return false;
  }
  insert(endOf(is), "\n" + in + "}");
  masterWrote = wroteThen || wroteElse;
  return true;
}

bool NpPlanner::enclosingFor(const ForStmt *fs, bool &masterWrote, int depth) {
  const SourceSpan at = spanOf(fs, ctx_);
  if (fs->getConditionVariable()) return fail("a `for` with a condition variable encloses a parallel loop", at);
  // The loop's variables: declared in the header or assigned by its init.
  std::set<const VarDecl *> loopVars;
  StatementEffects fi = effects(fs->getInit()), fc = effects(fs->getCond()), fn = effects(fs->getInc());
  for (const VarDecl *vd : fi.declared) loopVars.insert(vd);
  for (const VarDecl *vd : fi.writes) loopVars.insert(vd);
  for (const StatementEffects *f : {&fi, &fc, &fn})
    if (f->memWrite || f->barrier || f->warp || f->launch || f->lambda || f->impureCall)
      return fail("the header of the `for` loop enclosing a parallel loop has side effects or calls", at);
  for (const VarDecl *vd : fc.writes)
    return fail("the condition of the enclosing `for` loop writes '" + vd->getNameAsString() + "'", at);
  for (const VarDecl *vd : fn.writes)
    if (!loopVars.count(vd))
      return fail("the increment of the enclosing `for` loop writes '" + vd->getNameAsString() + "'", at);
  StatementEffects fb = effects(fs->getBody());
  for (const VarDecl *vd : fb.writes)
    if (loopVars.count(vd))
      return fail("the body of the enclosing `for` loop writes its variable '" + vd->getNameAsString() +
                  "'; every thread of a group must run the same iterations", at);
  if (!cfg_.intra)
    for (const Stmt *h : {(const Stmt *)fs->getInit(), (const Stmt *)fs->getCond(), (const Stmt *)fs->getInc()})
      if (h && !blockUniform(h, loopVars))
        return fail("inter-warp NP needs the `for` loop enclosing a parallel loop to run the same iterations in every "
                    "thread of the block (its header reads per-thread values); use np_type(intra)",
                    spanOf(h, ctx_));
  // All threads run the header: the loop variables are group-uniform when
  // the header reads only group-uniform values (checked after the body).
  auto headerUniform = [&] {
    for (const StatementEffects *f : {&fi, &fc, &fn})
      for (const VarDecl *vd : f->reads)
        if (!loopVars.count(vd) && !f->declared.count(vd) && !isa<ParmVarDecl>(vd)) {
          auto it = masterOnly_.find(vd);
          if (it == masterOnly_.end() || it->second) return false;
        }
    return !fi.memRead && !fc.memRead && !fn.memRead;
  };
  if (!headerUniform())
    return fail("the header of the `for` loop enclosing a parallel loop reads memory or values the master alone computes", at);
  for (const VarDecl *vd : loopVars) masterOnly_[vd] = false;
  // The body runs again after its own end: plan it with the state at the
  // loop head joined with the state at the end of the body, until it holds.
  const size_t mark = edits_.size();
  const int ifMark = ifCount_;
  auto joined = masterOnly_;
  bool joinedWrote = masterWrote;
  for (int round = 0;; ++round) {
    edits_.resize(mark);
    ifCount_ = ifMark;
    masterOnly_ = joined;
    bool wrote = joinedWrote;
    if (!statement(fs->getBody(), wrote, depth + 1)) return false;
    bool changed = false;
    for (auto &[vd, mo] : masterOnly_)
      if (mo && !fb.declared.count(vd) && joined.count(vd) && !joined[vd]) { joined[vd] = true; changed = true; }
    if (wrote && !joinedWrote) { joinedWrote = true; changed = true; }
    if (!changed) {
      masterWrote = wrote || joinedWrote;
      break;
    }
    if (round == 3) return fail("internal error: the enclosing loop's state did not settle", at);
  }
  if (!headerUniform())
    return fail("the `for` loop enclosing a parallel loop reads values that its body computes on the master alone", at);
  return true;
}

const Expr *NpPlanner::wrappableInit(const VarDecl *vd, std::string &why, std::string *listType) const {
  const Expr *init = vd->getInit();
  if (auto *ewc = dyn_cast<clang::ExprWithCleanups>(init)) init = ewc->getSubExpr();
  const std::string name = "'" + vd->getNameAsString() + "'";
  if (auto *il = dyn_cast<clang::InitListExpr>(init->IgnoreImplicit())) {
    const bool scalar = vd->getType()->isScalarType();
    if (!scalar && listType) {
      // A struct's fields (`const Span s = {lo[i], hi[i]};`): the braces
      // become the expression `Span{lo[i], hi[i]}` the guard goes around.
      *listType = typeText(vd->getType().getUnqualifiedType(), ctx_);
      init = il;
    } else if (scalar && il->getNumInits() == 1) {
      // `T x{v}` and `T x = {v}` of a scalar: the one value inside the braces.
      init = il->getInit(0);
    } else {
      // An empty scalar list (`int x{}`), or a struct where the caller
      // (the scan path: scalars only) takes no list.
      why = "the initialiser of " + name + " is a brace list of " + std::to_string(il->getNumInits()) +
            " values, which is not wrapped here";
      return nullptr;
    }
  }
  // The name and the initialiser written in this file, the initialiser after
  // the name: not both made by one macro (`DECL;`, `DECL(lo[i])`), where the
  // text around the initialiser is the macro's and one insertion could land
  // in several declarators.
  const SourceManager &sm = ctx_.getSourceManager();
  if (vd->getLocation().isMacroID() || fileRange(init->getSourceRange(), ctx_).isInvalid() ||
      posOf(vd->getLocation(), sm).offset >= spanOf(init, ctx_).begin.offset) {
    why = "the initialiser of " + name + " is written inside a macro together with its declaration; expand the macro first";
    return nullptr;
  }
  return init;
}

std::string NpPlanner::idleValueOf(QualType t, std::string &why) const {
  if (std::string zero = zeroOf(t, ctx_); !zero.empty()) return zero;
  // A struct copied whole out of memory before the loop (`const Particle me
  // = p[i];`, `float4 v = pos[i];`), as real kernels write it: the master
  // computes it and its slaves read the master's copy. The runtime moves it
  // in 32-bit words (np.cuh: shuffles, or one shared-memory slot per thread
  // on y), so it must be trivially copyable; its idle value `T{}` must run
  // no code; and its slots must stay small (inter-warp: sizeof(T) per
  // thread of the block in static shared memory).
  constexpr uint64_t kMaxMovedBytes = 32;
  const auto *rd = t->getAsCXXRecordDecl();
  if (!rd || t->isDependentType()) {
    why = "is not a scalar or a struct";
    return "";
  }
  if (!rd->hasDefinition() || t->isIncompleteType()) {
    why = "has an incomplete type";
    return "";
  }
  if (rd->isUnion() || rd->isLambda()) {
    why = std::string("is a ") + (rd->isUnion() ? "union" : "lambda") + ", which CUDA-NP does not move between threads";
    return "";
  }
  if (!rd->isTriviallyCopyable()) {
    why = "is a struct that is not trivially copyable (a user-written copy, move or destructor): CUDA-NP moves it "
          "between threads word by word";
    return "";
  }
  if (!rd->hasTrivialDefaultConstructor() && !rd->isAggregate()) {
    why = "is a struct whose default constructor is user-written: the threads that are not its master would run it";
    return "";
  }
  if (!rd->getIdentifier() && !rd->getTypedefNameForAnonDecl()) {
    why = "is of an unnamed struct type, which the rewritten code cannot name";
    return "";
  }
  const uint64_t bytes = ctx_.getTypeSizeInChars(t).getQuantity();
  if (bytes > kMaxMovedBytes) {
    why = "is a struct of " + std::to_string(bytes) + " bytes, over the " + std::to_string(kMaxMovedBytes) +
          " bytes CUDA-NP moves between threads; copy the fields the loop reads into scalar locals";
    return "";
  }
  return typeText(t, ctx_) + "{}";
}

bool NpPlanner::sequentialStatement(const Stmt *s, bool &masterWrote, int depth) {
  const SourceSpan at = spanOf(s, ctx_);
  if (isa<NullStmt>(s)) return true;
  // A bare __syncthreads() is reached by every thread of the enlarged block.
  if (auto *ce = dyn_cast<CallExpr>(s); ce && ce->getDirectCallee() && cuda::classifyCall(ce).name == "__syncthreads") {
    masterWrote = false; // every thread of the enlarged block reaches it
    return true;
  }
  if (auto *ds = dyn_cast<DeclStmt>(s)) {
    for (const Decl *d : ds->decls()) {
      auto *vd = dyn_cast<VarDecl>(d);
      if (!vd) continue;
      if (vd->hasAttr<CUDASharedAttr>() || arrays_.count(vd)) continue;
      if (!vd->hasInit()) { masterOnly_[vd] = false; continue; }
      StatementEffects fx = effects(vd->getInit());
      if (fx.barrier || fx.warp || fx.launch || fx.lambda)
        return fail("a declaration outside the parallel loops synchronises or uses warp intrinsics", at);
      if (isUniform(fx) && !fx.memWrite && fx.writes.empty()) { masterOnly_[vd] = false; continue; }
      if (vd->getType()->isReferenceType()) return fail("reference '" + vd->getNameAsString() + "'", at);
      std::string notMovable;
      std::string zero = idleValueOf(vd->getType(), notMovable);
      if (zero.empty()) return fail("'" + vd->getNameAsString() + "' " + notMovable, at);
      // Each declarator of a multi-variable declaration (`float a = lo[i],
      // *p = q;`) is wrapped on its own, with its own type: the declarators
      // run in order, so one that reads an earlier one (master-only by now)
      // is wrapped too.
      std::string unwrappable, listType;
      const Expr *init = wrappableInit(vd, unwrappable, &listType);
      if (!init) return fail(unwrappable, at);
      for (const VarDecl *w : fx.writes) {
        if (arrays_.count(w)) continue; // as a statement's write: the masters' copy
        if (isa<ParmVarDecl>(w))
          return fail("the initialiser of '" + vd->getNameAsString() + "' writes kernel parameter '" +
                          w->getNameAsString() + "'",
                      at);
        if (!masterOnly_.count(w) && !fx.declared.count(w))
          return fail("the initialiser of '" + vd->getNameAsString() + "' writes '" + w->getNameAsString() +
                          "', declared in a nested scope",
                      at);
        masterOnly_[w] = true; // written by the master alone
      }
      // (guard ? (T)(init) : 0), the initialiser kept in place with its own edits.
      bool eager = liveInAnywhere_.count(vd) && vd->getType().isConstQualified();
      SourceSpan is = spanOf(init, ctx_);
      insert(is.begin.offset, std::string(eager ? G() + "::read_from_master" : "") + "(" + guard() + " ? (" +
                                  typeText(vd->getType(), ctx_) + ")(" + listType);
      insert(is.end.offset, ") : " + zero + ")");
      masterOnly_[vd] = !eager;
      if (fx.memWrite || fx.impureCall) masterWrote = true;
    }
    return true;
  }
  if (auto *is = dyn_cast<IfStmt>(s); is && !is->getElse() && !is->getInit() && !is->getConditionVariable()) {
    const Stmt *th = is->getThen();
    if (auto *cs = dyn_cast<CompoundStmt>(th); cs && cs->size() == 1) th = cs->body_front();
    if (auto *rs = dyn_cast<ReturnStmt>(th); rs && !rs->getRetValue() && !cfg_.intra && depth > 0)
      return fail("inter-warp NP cannot return from inside a statement that encloses a parallel loop (every thread "
                  "must reach the block barriers after it); use np_type(intra)",
                  at);
    if (auto *rs = dyn_cast<ReturnStmt>(th); rs && !rs->getRetValue() && (cfg_.intra || depth == 0)) {
      StatementEffects fx = effects(is->getCond());
      if (fx.barrier || fx.warp || fx.launch || fx.memWrite || !fx.writes.empty())
        return fail("the early-return condition has side effects", at);
      std::string cond = textOf(is->getCond(), ctx_);
      bool uniform = isUniform(fx);
      if (cfg_.intra) {
        // The whole group (master and slaves) returns together.
        if (!uniform) wrapCondition(is, G() + "::read_from_master(" + guard() + " ? bool(", ") : false)");
        return true;
      }
      // The broadcast contains barriers: it must come first, where `&&` cannot
      // skip it for threads that are already inactive. The condition stays in
      // place so that its own edits (thread ids) apply.
      SourceSpan cs = spanOf(is->getCond(), ctx_);
      const std::string was = "; // was: " + oneLine(text(s)) + " (inter-warp NP keeps every thread for the block barriers)";
      if (uniform) {
        replace(beginOf(s), cs.begin.offset, "nestor_active = nestor_active && !(");
        replace(cs.end.offset, endOf(s), ")" + was);
      } else {
        replace(beginOf(s), cs.begin.offset, "nestor_active = !" + G() + "::read_from_master(" + guard() + " ? bool(");
        replace(cs.end.offset, endOf(s), ") : false) && nestor_active" + was);
      }
      return true;
    }
  }
  if (auto *rs = dyn_cast<ReturnStmt>(s); rs && depth == 0 && s == body_->body_back()) return true;
  StatementEffects fx = effects(s);
  if (fx.ret) return fail("'return' inside a sequential statement (only top-level `if (cond) return;` is supported)",
                          spanAt(ctx_, fx.firstBad));
  if (fx.barrier) return fail("a barrier nested inside a sequential statement would be reached by masters only",
                              spanAt(ctx_, fx.firstBad));
  if (fx.warp) return fail("warp-level intrinsic in a sequential section", spanAt(ctx_, fx.firstBad));
  if (fx.jump) return fail("goto/break/continue crossing a sequential statement", spanAt(ctx_, fx.firstBad));
  if (fx.lambda) return fail("lambda in a sequential section", spanAt(ctx_, fx.firstBad));
  for (const VarDecl *vd : fx.writes)
    if (arrays_.count(vd) == 0 && masterOnly_.count(vd) == 0 && !isa<ParmVarDecl>(vd) && !fx.declared.count(vd))
      return fail("statement writes '" + vd->getNameAsString() + "', declared in a nested scope", at);
  if (isUniform(fx) && !fx.memWrite && !fx.impureCall) {
    for (const VarDecl *vd : fx.writes) masterOnly_[vd] = false; // every member computes the same value (3.1)
    // Under a branch predicate (inter-warp), threads outside the branch run
    // on afterwards: they must not take the branch's assignments.
    if (std::string bp = branchPredicate(); !bp.empty() && !fx.writes.empty()) {
      insert(beginOf(s), "if (" + bp + ") { ");
      insert(endOf(s), " }");
    }
    return true;
  }
  // Masters only.
  for (const VarDecl *vd : fx.writes)
    if (masterOnly_.count(vd)) masterOnly_[vd] = true;
  for (const VarDecl *vd : fx.writes)
    if (isa<ParmVarDecl>(vd))
      return fail("statement writes kernel parameter '" + vd->getNameAsString() + "' from memory", at);
  if (fx.memWrite || fx.impureCall) masterWrote = true;
  insert(beginOf(s), "if (" + guard() + ") { ");
  insert(endOf(s), " }");
  return true;
}

} // namespace nestor::loops
