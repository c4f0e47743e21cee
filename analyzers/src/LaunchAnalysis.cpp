// Launch sites of the model (FunctionScanner.h): configuration texts and
// spans, the inferred child thread count (ThreadCount.cpp), and the contexts
// of the launch. Whether the child can be serialised is judged once every
// function is known (LaunchJudgement.cpp).
#include "FunctionScanner.h"
#include "nestor/AstText.h"
#include "ModelBuilder.h"
#include "ModelParts.h"
#include "nestor/CudaSemantics.h"

#include "clang/AST/Attr.h"

namespace nestor {

using namespace clang;

void FunctionScanner::analyzeLaunch(const CUDAKernelCallExpr *kc, const Context &ctx) {
  LaunchSite l;
  l.id = nextLaunchId_++;
  l.span = spanOf(kc, ctx_);
  l.deviceSide = deviceCode();
  l.parent = fd_->getNameAsString();
  const FunctionDecl *child = cuda::launchedKernel(kc);
  l.child = child ? child->getNameAsString() : textOf(kc->getCallee(), ctx_);
  const CallExpr *cfg = kc->getConfig();
  // Host launches configure through __cudaPushCallConfiguration(grid, block,
  // shmem, stream); device-side ones through cudaLaunchDevice(buf, fn, grid,
  // block, shmem, stream).
  unsigned first = cfg && cuda::calleeName(cfg) == "cudaLaunchDevice" ? 2 : 0;
  auto cfgArg = [&](unsigned i) -> const Expr * {
    i += first;
    if (!cfg || i >= cfg->getNumArgs() || isa<CXXDefaultArgExpr>(cfg->getArg(i))) return nullptr;
    // Arguments clang supplies itself for device-side launches (shared
    // memory, stream) sit at the `<<<` token: they were not written.
    const Expr *a = cfg->getArg(i);
    if (first && a->getBeginLoc() == cfg->getBeginLoc()) return nullptr;
    return a;
  };
  const Expr *grid = cfgArg(0), *block = cfgArg(1), *shm = cfgArg(2), *stream = cfgArg(3);
  l.grid = grid ? textOf(stripConversions(grid), ctx_) : "";
  l.block = block ? textOf(stripConversions(block), ctx_) : "";
  l.sharedMem = shm ? textOf(stripConversions(shm), ctx_) : "";
  l.stream = stream ? textOf(stripConversions(stream), ctx_) : "";
  l.gridValue = constantCount(grid);
  l.blockValue = constantCount(block);
  // The arguments as written, casts included: what an edit of the
  // configuration replaces (`int(X)` replaced inside would stay a cast).
  if (grid) l.gridSpan = spanOf(stripImplicitConversions(grid), ctx_);
  if (block) l.blockSpan = spanOf(stripImplicitConversions(block), ctx_);
  if (cfg) l.configSpan = spanOf(SourceRange(cfg->getBeginLoc(), cfg->getEndLoc()), ctx_);
  for (const Expr *a : kc->arguments()) l.args.push_back(textOf(a, ctx_));
  std::string how;
  l.threads = inferChildThreads(grid, block, ctx_, how, l.threadsByCeilingDivision);
  l.threadsHow = how;
  l.enclosingLoops = ctx.loops;
  l.inBranch = ctx.inBranch;
  l.everyThreadMayLaunch = l.deviceSide && !ctx.singleThreadGuard;
  tu_.launchNodes[l.id] = kc;
  tu_.model().launches.push_back(std::move(l));
}
// x * y * z of a launch dimension that is a compile-time constant: an integer
// or a dim3 whose written arguments are all constants.
std::optional<uint64_t> FunctionScanner::constantCount(const Expr *e) const {
  if (!e) return std::nullopt;
  e = e->IgnoreParenImpCasts();
  while (auto *mt = dyn_cast<MaterializeTemporaryExpr>(e)) e = mt->getSubExpr()->IgnoreParenImpCasts();
  if (auto *fc = dyn_cast<CXXFunctionalCastExpr>(e)) e = fc->getSubExpr()->IgnoreParenImpCasts();
  if (auto *ce = dyn_cast<CXXConstructExpr>(e)) {
    if (ce->getNumArgs() == 1 && ce->getConstructor()->isCopyOrMoveConstructor()) return constantCount(ce->getArg(0));
    uint64_t product = 1;
    for (const Expr *a : ce->arguments()) {
      if (isa<CXXDefaultArgExpr>(a)) continue;
      auto v = constantCount(a);
      if (!v) return std::nullopt;
      product *= *v;
    }
    return product;
  }
  Expr::EvalResult r;
  if (e->isValueDependent() || !e->getType()->isIntegerType() || !e->EvaluateAsInt(r, ctx_)) return std::nullopt;
  if (r.Val.getInt().isNegative()) return std::nullopt;
  return r.Val.getInt().getZExtValue();
}

void judgeLaunches(AnalyzedTU &tu, FunctionIndex &index) {
  ASTContext &ctx = tu.astContext();
  FileModel &model = tu.model();
  for (LaunchSite &l : model.launches) {
    const CUDAKernelCallExpr *kc = tu.launchExpr(l.id);
    const FunctionDecl *child = cuda::launchedKernel(kc);
    for (Kernel &k : model.kernels)
      if (k.name == l.child) k.launchedBy.push_back(l.id);
    l.serializable = true;
    auto block = [&](const std::string &why, const SourceSpan &where) {
      l.serializable = false;
      std::string at = where.valid() ? " (line " + std::to_string(where.begin.line) + ")" : "";
      l.reasons.push_back(why + at);
      l.reasonSpans.push_back(where);
    };
    const FunctionFacts *cf = index.factsOf(child);
    if (!cf) {
      block("the body of '" + l.child + "' is not visible in this translation unit", l.span);
    } else {
      // Constructs of the child and of everything it calls.
      std::vector<const FunctionFacts *> all{cf};
      std::set<const FunctionDecl *> seen;
      index.reach(child, seen);
      for (const FunctionDecl *c : seen)
        if (c != child->getCanonicalDecl())
          if (const FunctionFacts *x = index.factsOf(c)) all.push_back(x);
      for (const FunctionFacts *x : all) {
        for (auto &u : x->barriers)
          if (u.name != "__syncwarp") block("'" + l.child + "' uses " + u.name, u.span);
        for (auto &u : x->shared) block("'" + l.child + "' uses __shared__ memory ('" + u.name + "')", u.span);
        for (auto &u : x->warp) block("'" + l.child + "' uses the warp-level intrinsic " + u.name, u.span);
        for (auto &u : x->coop) block("'" + l.child + "' uses cooperative groups (" + u.name + ")", u.span);
        // It may hide any of the above (a barrier behind an undeclared
        // macro or namespace), so no child with it runs in another thread.
        for (auto &at : x->unparsed)
          block("'" + l.child + "' has code clang could not parse, so whether it synchronises is unknown", at);
      }
      if (seen.count(child->getCanonicalDecl()))
        block("'" + l.child + "' is recursive (it launches or calls itself)", spanOf(child->getSourceRange(), ctx));
      // Dedupe reasons (one per construct name is enough).
      std::vector<std::string> r;
      std::vector<SourceSpan> rs;
      std::set<std::string> seenReason;
      for (size_t i = 0; i < l.reasons.size(); ++i) {
        std::string key = l.reasons[i].substr(0, l.reasons[i].find(" (line"));
        if (seenReason.insert(key).second) { r.push_back(l.reasons[i]); rs.push_back(l.reasonSpans[i]); }
      }
      l.reasons = r;
      l.reasonSpans = rs;
    }
    // A device-side cudaDeviceSynchronize after the launch in the same parent.
    if (l.deviceSide)
      for (const Kernel &k : model.kernels)
        if (k.name == l.parent)
          for (const ConstructUse &s : k.deviceSyncs)
            if (s.span.begin.offset > l.span.begin.offset) l.followedByDeviceSync = true;
  }
}

} // namespace nestor
