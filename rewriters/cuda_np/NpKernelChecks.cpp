// CUDA-NP planner (NpPlanner.h): what the kernel and its launches must be,
// which loops are distributed, and what the callees may not do.
#include "NpPlanner.h"

#include "nestor/ProjectIndex.h"
#include "nestor/RefusalText.h"

#include "llvm/Support/Path.h"

using namespace clang;

namespace nestor::loops {

bool NpPlanner::checkKernelAndLaunches() {
  const Kernel &k = *kernel_;
  if (!k.isGlobal) return fail("'" + k.name + "' is not a __global__ kernel", k.nameSpan);
  if (!k.warpIntrinsics.empty())
    return fail("the kernel uses " + k.warpIntrinsics.front().name + ": CUDA-NP changes which threads share a warp",
                k.warpIntrinsics.front().span);
  if (!k.cooperativeGroups.empty())
    return fail("the kernel uses cooperative groups: CUDA-NP changes the block shape", k.cooperativeGroups.front().span);
  if (!k.deviceSyncs.empty()) return fail("the kernel synchronises with child launches", k.deviceSyncs.front().span);
  if (k.launchedBy.empty() && k.externalLaunches.empty())
    return fail("kernel '" + k.name + "' has no host launch in this file (it is launched from another translation "
                "unit; with a compile database, -p, Nestor finds its launches in the project): CUDA-NP must enlarge "
                "the block of every launch", k.nameSpan);
  unsigned S = cfg_.slaves;
  unsigned limit = 1024;
  if (k.launchBoundsMaxThreadsValue) limit = std::min<unsigned>(limit, unsigned(*k.launchBoundsMaxThreadsValue));
  bool agree = true;
  std::string tooBig; // why the enlarged block does not fit, at the first launch where it does not
  SourceSpan tooBigAt;
  for (int id : k.launchedBy) {
    const LaunchSite &ls = m_.launches[size_t(id)];
    if (ls.deviceSide) return fail("kernel '" + k.name + "' is launched from the device (" + lineOf(ls.span) + ")", ls.span);
    // The launch configuration is rewritten in place: it must be written at
    // the launch (a macro argument, or a whole object-like macro such as
    // BLOCK), not a part of a macro's body, which every use of it shares.
    if (const CUDAKernelCallExpr *call = tu_.launchExpr(id); call && call->getConfig()) {
      const SourceManager &sm = ctx_.getSourceManager();
      for (unsigned i = 0; i < 2 && i < call->getConfig()->getNumArgs(); ++i) {
        const Expr *e = call->getConfig()->getArg(i);
        CharSourceRange written = Lexer::makeFileCharRange(CharSourceRange::getTokenRange(e->getSourceRange()), sm,
                                                            ctx_.getLangOpts());
        if (written.isInvalid())
          return fail("the " + std::string(i ? "block" : "grid") + " of the launch at " + lineOf(ls.span) +
                          " is written inside a macro's body: rewriting it would change every use of the macro; pass it "
                          "as a macro argument or launch with <<<>>> directly",
                      ls.span);
      }
    }
    auto b = constantBlock(tu_, id);
    if (!b) {
      // A run-time block: intra-warp groups read their shape from blockDim,
      // so the launch can be enlarged (and reshaped) at run time by
      // nestor::np::reshape_block/reshape_grid, if nothing else in the kernel
      // depends on how many threads a block has.
      std::string why = runtimeBlockBlocker(ls);
      if (!why.empty())
        return fail("the block size of the launch at " + lineOf(ls.span) + " ('" + ls.block +
                        "') is not a compile-time constant: " + why,
                    ls.blockSpan);
      runtimeBlocks_.insert(id);
      agree = false;
      continue;
    }
    if (tooBig.empty() && b->threads() * S > 1024) {
      tooBig = "the launch at " + lineOf(ls.span) + " has " + std::to_string(b->threads()) + " threads per block; with " +
               std::to_string(S) + " slaves that is " + std::to_string(b->threads() * S) + " > 1024";
      tooBigAt = ls.blockSpan;
    } else if (tooBig.empty() && b->threads() * S > limit) {
      tooBig = "the enlarged block (" + std::to_string(b->threads() * S) + " threads) exceeds __launch_bounds__(" +
               std::to_string(*k.launchBoundsMaxThreadsValue) + ") of '" + k.name + "'";
      tooBigAt = k.nameSpan;
    }
    if (!block_) {
      block_ = b;
    } else if (!(*block_ == *b)) {
      if (!cfg_.intra)
        return fail("inter-warp NP needs the same block shape at every launch of '" + k.name + "' (" +
                    lineOf(ls.span) + " differs)", ls.blockSpan);
      agree = false;
    }
  }
  // Launches in other translation units (the project index): the same
  // checks on that file's AST; their block must be a compile-time constant
  // (a run-time block is reshaped by the runtime only in the kernel's file).
  for (const ExternalLaunch &el : k.externalLaunches) {
    std::string where = llvm::sys::path::filename(el.file).str() + ":" + std::to_string(el.site.span.begin.line);
    std::shared_ptr<const AnalyzedTU> unit = tu_.project() ? tu_.project()->unit(el.file) : nullptr;
    const CUDAKernelCallExpr *call = unit ? unit->launchExpr(el.site.id) : nullptr;
    const LaunchSite *ls = unit && size_t(el.site.id) < unit->model().launches.size()
                               ? &unit->model().launches[size_t(el.site.id)] : nullptr;
    if (!call || !ls || ls->child != k.name || ls->span.begin.offset != el.site.span.begin.offset)
      return fail("the launch of '" + k.name + "' at " + where + " could not be analysed again as the project index "
                  "recorded it (the file changed since): CUDA-NP must enlarge the block of every launch", k.nameSpan);
    if (!call->getConfig() || call->getConfig()->getNumArgs() < 2)
      return fail("the launch at " + where + " has no block expression", k.nameSpan);
    const SourceManager &sm = unit->sourceManager();
    for (unsigned i = 0; i < 2; ++i) {
      const Expr *e = call->getConfig()->getArg(i);
      CharSourceRange written = Lexer::makeFileCharRange(CharSourceRange::getTokenRange(e->getSourceRange()), sm,
                                                          unit->langOptions());
      if (written.isInvalid())
        return fail("the " + std::string(i ? "block" : "grid") + " of the launch at " + where +
                        " is written inside a macro's body: rewriting it would change every use of the macro",
                    k.nameSpan);
    }
    auto b = constantBlock(*unit, el.site.id);
    if (!b)
      return fail("the block size of the launch at " + where + " ('" + ls->block +
                      "') is not a compile-time constant: a run-time block is enlarged only at launches in the "
                      "kernel's own file",
                  k.nameSpan);
    if (tooBig.empty() && b->threads() * S > 1024) {
      tooBig = "the launch at " + where + " has " + std::to_string(b->threads()) + " threads per block; with " +
               std::to_string(S) + " slaves that is " + std::to_string(b->threads() * S) + " > 1024";
      tooBigAt = k.nameSpan;
    } else if (tooBig.empty() && b->threads() * S > limit) {
      tooBig = "the enlarged block (" + std::to_string(b->threads() * S) + " threads) exceeds __launch_bounds__(" +
               std::to_string(*k.launchBoundsMaxThreadsValue) + ") of '" + k.name + "'";
      tooBigAt = k.nameSpan;
    }
    if (!block_ && agree && k.launchedBy.empty() && external_.empty()) {
      block_ = b;
    } else if (!block_ || !(*block_ == *b)) {
      if (!cfg_.intra)
        return fail("inter-warp NP needs the same block shape at every launch of '" + k.name + "' (" + where +
                        " differs)", k.nameSpan);
      agree = false;
    }
    external_.push_back({el.file, unit, el.site.id, *b, where});
  }
  if (!agree) block_.reset();
  masters_ = block_ ? block_->threads() : 0;
  limit_ = limit;
  // Too many threads per block: keep the work per master and put fewer
  // masters in each block, more blocks in the grid (NpReshape.cpp).
  if (!tooBig.empty() && !planReshape(limit, tooBig, tooBigAt)) return false;
  StatementEffects fx = effects(body_);
  if (fx.launch) return fail("the kernel launches child kernels", spanAt(ctx_, fx.firstBad));
  for (const Stmt *s : body_->body())
    if (auto *ds = dyn_cast<DeclStmt>(s))
      for (const Decl *d : ds->decls())
        if (auto *vd = dyn_cast<VarDecl>(d); vd && vd->isStaticLocal() && !vd->hasAttr<CUDASharedAttr>())
          return fail("static local variable '" + vd->getNameAsString() + "'", spanOf(s, ctx_));
  return true;
}

bool NpPlanner::chooseParallelLoops() {
  const LoopSite &target = m_.loops[size_t(t_.id)];
  auto *targetStmt = dyn_cast_or_null<ForStmt>(tu_.loopStmt(target.id));
  if (!targetStmt) return fail("the loop is not a for loop", target.headerSpan);
  // A distributed loop may sit in branches and sequential `for` loops (which
  // every thread of a group then runs together), not inside another loop
  // that is itself distributed, a while/do loop or a switch.
  auto isPragmaLoop = [&](const LoopSite &l) {
    return l.pragma >= 0 && m_.pragmas[size_t(l.pragma)].isParallelFor && m_.pragmas[size_t(l.pragma)].valid();
  };
  std::map<const Stmt *, const LoopSite *> pragmaLoops;
  for (int id : kernel_->loops)
    if (const LoopSite &l = m_.loops[size_t(id)]; isPragmaLoop(l))
      if (auto *fs = dyn_cast_or_null<ForStmt>(tu_.loopStmt(id))) pragmaLoops[fs] = &l;
  // Why `fs` cannot be distributed where it is ("" when it can).
  auto placement = [&](const ForStmt *fs) -> std::string {
    for (const Stmt *p = parentOf(fs); p && p != body_; p = parentOf(p)) {
      if (pragmaLoops.count(p))
        return "the loop is nested in the parallel loop at " + lineOf(p) + "; apply the rewrite to that loop";
      if (isa<CompoundStmt>(p)) continue;
      if (isa<IfStmt>(p)) continue;
      if (auto *outer = dyn_cast<ForStmt>(p); outer && outer->getBody()) continue;
      return "the loop is nested in a " + statementKind(p) +
             " (only blocks, `if` statements and sequential `for` loops may enclose a distributed loop)";
    }
    return parentOf(fs) ? "" : "the loop is not inside the kernel body";
  };
  if (std::string why = placement(targetStmt); !why.empty()) return fail(why, target.headerSpan);
  parallel_[targetStmt] = &target;
  if (cfg_.allPragmaLoops && cfg_.form == LoopForm::Strided)
    for (auto &[fs, l] : pragmaLoops)
      if (fs != targetStmt && placement(cast<ForStmt>(fs)).empty()) {
        bool nestedInTarget = false;
        for (const Stmt *p = parentOf(fs); p; p = parentOf(p)) nestedInTarget |= p == targetStmt;
        if (!nestedInTarget) parallel_[cast<ForStmt>(fs)] = l;
      }
  for (auto &[fs, ls] : parallel_) {
    if (!ls->barriers.empty()) return fail("the parallel loop contains a barrier", ls->barriers.front());
    if (!ls->returns.empty()) return fail("the parallel loop contains 'return'", ls->returns.front());
    if (!ls->breaks.empty()) return fail("the parallel loop contains 'break'", ls->breaks.front());
    if (!ls->gotos.empty()) return fail("the parallel loop contains 'goto'", ls->gotos.front());
    if (ls->hasWarpIntrinsics) return fail("the parallel loop uses warp-level intrinsics", ls->bodySpan);
    if (ls->gridStride) return fail("the loop is a grid-stride loop (the thread's share of a flat loop)", ls->headerSpan);
    if (cfg_.requireIrregular && ls->tripCount != TripCountClass::Irregular)
      return fail(std::string("the loop's trip count is ") + spelling(ls->tripCount) +
                  ", not irregular: every task has the same length", ls->headerSpan);
  }
  // Outer locals read by parallel loops (for eager broadcast of const ones).
  for (auto &[fs, ls] : parallel_) {
    StatementEffects fx = effects(fs);
    for (const VarDecl *vd : fx.reads) liveInAnywhere_.insert(vd);
  }
  return true;
}

bool NpPlanner::checkCallees() {
  // The kernel runs in the enlarged block: its own threadIdx and blockDim are
  // renamed (rewriteThreadIds), a callee's are not, and a callee's barrier or
  // warp collective would meet the slaves. Every function the kernel reaches
  // counts, pure helpers (`int gid() { return blockIdx.x * blockDim.x +
  // threadIdx.x; }`) and those in headers too, and one whose body is not
  // visible might do either.
  cuda::CalleeUseQuery q;
  q.builtin = [](llvm::StringRef n) { return n == "threadIdx" || n == "blockDim"; };
  q.collectives = true;
  q.unknownBodies = true;
  std::optional<cuda::CalleeUse> use = cuda::calleeUse(body_, q);
  if (!use) return true;
  const std::string &name = use->callee;
  if (use->what.empty())
    return fail("the kernel calls " + cuda::unseenCall(*use) +
                    ": it may read threadIdx/blockDim or synchronise, and would see the enlarged block",
                spanOf(use->via, ctx_));
  return fail("the kernel calls '" + name + "', which " +
                  (use->what == "threadIdx" || use->what == "blockDim" ? "reads " + use->what
                                                                        : "calls " + use->what) +
                  " (" + lineRef(spanOf(use->at, ctx_), tu_.model().file) + "): it would see the enlarged block",
              spanOf(use->via, ctx_));
}

} // namespace nestor::loops
