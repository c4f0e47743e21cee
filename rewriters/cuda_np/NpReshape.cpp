// CUDA-NP planner (NpPlanner.h): launch reshaping (issue 11, after the
// locality-aware mapping paper's free choice of threads per block). When S
// slaves would push a block over 1024 threads or over __launch_bounds__, the
// work per master stays and each block holds fewer masters: a block of M
// threads becomes r blocks of M / r masters, the grid r times as many blocks
// in x, so that every original thread index still exists exactly once.
//
// That is correct only when a thread's identity is `blockIdx.x * blockDim.x
// + threadIdx.x` and nothing else tells the blocks apart: threadIdx.x,
// blockIdx.x and blockDim.x appear only in that sum (the rewritten kernel
// reads blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x, the same global
// index), gridDim is not read, no __shared__ memory or __syncthreads ties the
// original block together, and no callee reads blockIdx or gridDim.
#include "NpPlanner.h"

#include "llvm/Support/Path.h"

using namespace clang;

namespace nestor::loops {

std::string NpPlanner::reshapeBlocker() const {
  const Kernel &k = *kernel_;
  if (!k.shared.empty())
    return "'" + k.shared.front().name + "' is __shared__ memory sized for the original block (" +
           lineOf(k.shared.front().span) + ")";
  if (!k.barriers.empty())
    return k.barriers.front().name + " synchronises the original block (" + lineOf(k.barriers.front().span) + ")";
  for (int id : k.launchedBy) {
    const LaunchSite &ls = m_.launches[size_t(id)];
    if (!ls.sharedMem.empty() && ls.sharedMem != "0")
      return "the launch at " + lineOf(ls.span) + " passes dynamic shared memory sized for the original block";
  }
  for (const ExternalLaunch &el : k.externalLaunches)
    if (!el.site.sharedMem.empty() && el.site.sharedMem != "0")
      return "the launch at " + llvm::sys::path::filename(el.file).str() + ":" + std::to_string(el.site.span.begin.line) +
             " passes dynamic shared memory sized for the original block";
  // Every x component of a thread id must sit in the global index sum.
  std::string blocker;
  std::set<const DeclRefExpr *> inComponents;
  forEachNode(body_, [&](const Stmt *s) {
    if (!blocker.empty()) return;
    auto *e = dyn_cast<Expr>(s);
    auto c = e && isa<PseudoObjectExpr>(e) ? cuda::builtinComponent(e) : std::nullopt;
    if (!c) return;
    inComponents.insert(c->ref);
    std::string what = c->builtin + "." + c->axis;
    if (c->builtin == "gridDim") {
      blocker = what + " is read (" + lineOf(s) + "): the grid changes";
      return;
    }
    if (c->axis != 'x') return; // y and z: one-dimensional blocks keep them
    // Climb to the outermost expression of the pattern this component can be in.
    const Stmt *up = parentOf(s);
    while (up && (isa<ImplicitCastExpr, CStyleCastExpr, ParenExpr, CXXFunctionalCastExpr>(up))) up = parentOf(up);
    const Stmt *sum = up;
    if (c->builtin != "threadIdx" && up && cuda::isBlockOffset(dyn_cast<Expr>(up))) {
      sum = parentOf(up);
      while (sum && (isa<ImplicitCastExpr, CStyleCastExpr, ParenExpr, CXXFunctionalCastExpr>(sum))) sum = parentOf(sum);
    }
    if (!sum || !cuda::isGlobalThreadIndex(dyn_cast<Expr>(sum)))
      blocker = what + " is used other than in blockIdx.x * blockDim.x + threadIdx.x (" + lineOf(s) + ")";
  });
  if (!blocker.empty()) return blocker;
  forEachNode(body_, [&](const Stmt *s) {
    if (auto *dr = dyn_cast<DeclRefExpr>(s); blocker.empty() && dr && cuda::isThreadIdBuiltin(dr->getDecl()) &&
                                              dr->getDecl()->getName() != "warpSize" && !inComponents.count(dr))
      blocker = dr->getDecl()->getName().str() + " is used as a whole (" + lineOf(s) + ")";
  });
  if (!blocker.empty()) return blocker;
  for (const FunctionDecl *fd : effects(body_).userCalls)
    forEachNode(fd->getBody(), [&](const Stmt *s) {
      if (auto *dr = dyn_cast<DeclRefExpr>(s); blocker.empty() && dr && cuda::isThreadIdBuiltin(dr->getDecl()) &&
                                                (dr->getDecl()->getName() == "blockIdx" || dr->getDecl()->getName() == "gridDim"))
        blocker = "'" + fd->getNameAsString() + "' reads " + dr->getDecl()->getName().str();
    });
  return blocker;
}

std::string NpPlanner::runtimeBlockBlocker(const LaunchSite &ls) const {
  if (!cfg_.intra) return "inter-warp NP needs the block at compile time (the group is a template of it); use np_type(intra)";
  const CUDAKernelCallExpr *call = tu_.launchExpr(ls.id);
  if (!call || !call->getConfig() || call->getConfig()->getNumArgs() < 2) return "the launch has no block expression";
  const Expr *grid = call->getConfig()->getArg(0), *block = call->getConfig()->getArg(1);
  // The rewritten launch reads the block twice (block and grid); it must be a
  // one-dimensional integer and evaluating it must change nothing.
  const Expr *b = block->IgnoreParenImpCasts();
  while (auto *mt = dyn_cast<MaterializeTemporaryExpr>(b)) b = mt->getSubExpr()->IgnoreParenImpCasts();
  // `threads` converted to dim3(threads, 1, 1): the y and z arguments are defaults.
  if (auto *ce = dyn_cast<CXXConstructExpr>(b); ce && ce->getNumArgs() >= 1) {
    bool onlyX = true;
    for (unsigned i = 1; i < ce->getNumArgs(); ++i) onlyX &= isa<CXXDefaultArgExpr>(ce->getArg(i));
    if (onlyX) b = ce->getArg(0)->IgnoreParenImpCasts();
  }
  if (!b->getType()->isIntegerType()) return "it is not a one-dimensional integer block (the runtime reshapes x only)";
  // A dim3 temporary's construction is not an effect; its arguments' may be.
  auto hasEffects = [&](const Expr *e) {
    e = e->IgnoreParenImpCasts();
    while (auto *mt = dyn_cast<MaterializeTemporaryExpr>(e)) e = mt->getSubExpr()->IgnoreParenImpCasts();
    if (auto *ce = dyn_cast<CXXConstructExpr>(e)) {
      for (const Expr *a : ce->arguments())
        if (!isa<CXXDefaultArgExpr>(a) && a->HasSideEffects(ctx_)) return true;
      return false;
    }
    return e->HasSideEffects(ctx_);
  };
  if (hasEffects(block) || hasEffects(grid))
    return "the launch configuration has side effects (it is evaluated again to reshape the launch)";
  if (std::string why = reshapeBlocker(); !why.empty())
    return "the enlarged block may exceed " + std::to_string(limit_) + " threads and the launch cannot be reshaped: " + why;
  return "";
}

bool NpPlanner::planReshape(unsigned limit, const std::string &tooBig, const SourceSpan &at) {
  const std::string cannot = tooBig + ", and the launch cannot be reshaped (fewer masters per block, more blocks): ";
  if (!block_)
    return fail(cannot + "the launches of '" + kernel_->name + "' use different block shapes", at);
  if (block_->y != 1 || block_->z != 1)
    return fail(cannot + "the block (" + std::to_string(block_->x) + ", " + std::to_string(block_->y) + ", " +
                    std::to_string(block_->z) + ") is not one-dimensional",
                at);
  if (std::string why = reshapeBlocker(); !why.empty()) return fail(cannot + why, at);
  // The most masters per block that fit and divide the original block.
  unsigned M = block_->x, S = cfg_.slaves, masters = 0;
  for (unsigned d = 1; d <= M; ++d)
    if (M % d == 0 && d * S <= limit) masters = d;
  if (masters == 0)
    return fail(cannot + "not even one master with " + std::to_string(S) + " slaves fits " + std::to_string(limit) +
                    " threads",
                at);
  reshape_ = M / masters;
  masters_ = masters;
  return true;
}

} // namespace nestor::loops
