// CUDA-NP planner (NpPlanner.h): thread-local arrays used by the parallel
// loops move to registers, shared memory or a global pool (cuda-np.md 3.3).
#include "NpPlanner.h"
#include "nestor/Papers.h"

using namespace clang;

namespace nestor::loops {

bool NpPlanner::planArrays() {
  // Thread-local arrays declared outside the parallel loops (at any depth);
  // those declared inside one are private to an iteration already.
  forEachNode(body_, [&](const Stmt *s) {
    auto *ds = dyn_cast<DeclStmt>(s);
    if (!ds) return;
    for (const Stmt *p = parentOf(s); p; p = parentOf(p))
      if (isParallel(p)) return;
    for (const Decl *d : ds->decls())
      if (auto *vd = dyn_cast<VarDecl>(d); vd && vd->getType()->isConstantArrayType() && !vd->hasAttr<CUDASharedAttr>() &&
                                           !vd->isStaticLocal())
        arrays_[vd] = ArrayPlan{vd, ds};
  });
  // Which arrays parallel loops use, and whether every use is `a[i]` in a
  // strided loop that starts at 0 with step 1 (then slave s owns i % S == s).
  for (auto &[fs, ls] : parallel_) {
    std::string why;
    auto parts = forParts(fs, ctx_, why);
    bool zeroBased = parts && parts->step == 1 && intValue(parts->lower, ctx_) == 0;
    forEachNode(fs, [&](const Stmt *s) {
      if (auto *dr = dyn_cast<DeclRefExpr>(s))
        if (auto *vd = dyn_cast<VarDecl>(dr->getDecl()); vd && arrays_.count(vd)) arrays_[vd].usedInParallel = true;
      if (auto *as = dyn_cast<ArraySubscriptExpr>(s))
        if (const VarDecl *a = referencedVar(as->getBase()); a && arrays_.count(a))
          if (!zeroBased || !parts || referencedVar(as->getIdx()) != parts->iv) arrays_[a].registersOk = false;
    });
  }
  // Every reference must be the base of a subscript; references outside
  // parallel loops rule registers out.
  std::set<const DeclRefExpr *> subscripted;
  forEachNode(body_, [&](const Stmt *s) {
    if (auto *as = dyn_cast<ArraySubscriptExpr>(s))
      if (auto *dr = dyn_cast<DeclRefExpr>(as->getBase()->IgnoreParenImpCasts())) subscripted.insert(dr);
  });
  forEachNode(body_, [&](const Stmt *s) {
    auto *dr = dyn_cast<DeclRefExpr>(s);
    if (!dr) return;
    auto *vd = dyn_cast<VarDecl>(dr->getDecl());
    if (!vd || !arrays_.count(vd)) return;
    if (!subscripted.count(dr)) arrays_[vd].onlySubscripts = false;
    bool inParallel = false;
    unsigned off = spanOf(dr, ctx_).begin.offset;
    for (auto &[fs, ls] : parallel_)
      if (off >= beginOf(fs) && off < endOf(fs)) inParallel = true;
    if (!inParallel) arrays_[vd].registersOk = false;
  });
  uint64_t baselineShared = 0;
  for (const SharedDecl &sd : kernel_->shared) baselineShared += sd.sizeBytes;
  for (auto &[vd, ap] : arrays_) {
    if (!ap.usedInParallel) continue;
    SourceSpan at = spanOf(ap.decl, ctx_);
    const auto *cat = ctx_.getAsConstantArrayType(vd->getType());
    if (!cat || !cat->getElementType()->isScalarType())
      return fail("local array '" + vd->getNameAsString() + "' is not a one-dimensional array of scalars", at);
    if (vd->hasInit()) return fail("local array '" + vd->getNameAsString() + "' has an initialiser", at);
    if (!ap.decl->isSingleDecl()) return fail("local array '" + vd->getNameAsString() + "' shares its declaration", at);
    if (!ap.onlySubscripts)
      return fail("local array '" + vd->getNameAsString() + "' is used other than as `a[i]` (passed, or its address taken)", at);
    uint64_t n = cat->getSize().getZExtValue();
    uint64_t bytes = n * ctx_.getTypeSizeInChars(cat->getElementType()).getQuantity();
    std::string et = typeText(cat->getElementType(), ctx_);
    std::string name = vd->getNameAsString();
    std::string repl;
    if (ap.registersOk) {
      ap.home = "registers";
      repl = "NESTOR_NP_ARRAY_REGISTERS(" + G() + ", " + et + ", " + name + ", " + std::to_string(n) + "); // " +
             std::to_string(bytes) + " bytes, indexed only by the iterator: partitioned over the slaves (" + papers::kCudaNp + ", 3.3)";
    } else {
      if (!block_)
        return fail("local array '" + name + "' must move to shared memory, which needs one block size at every launch", at);
      uint64_t masters = masters_;
      uint64_t perMaster = baselineShared / masters;
      const uint64_t budget = 384; // cuda-np.md 3.3, as nestor::np::choose_array_home
      if (bytes < (perMaster < budget ? budget - perMaster : 0)) {
        ap.home = "shared";
        repl = "NESTOR_NP_ARRAY_SHARED(" + G() + ", " + et + ", " + name + ", " + std::to_string(n) + ", " +
               std::to_string(masters) + "); // " + std::to_string(bytes) + " bytes < 384 - " + std::to_string(perMaster) +
               " per master: shared memory (" + papers::kCudaNp + ", 3.3)";
      } else {
        // Global memory (cuda-np.md 3.3): a region of the pool the host
        // passes in, interleaved across the masters of each block.
        if (std::string why = globalPoolBlocker(); !why.empty())
          return fail("local array '" + name + "' (" + std::to_string(bytes) +
                          " bytes) is not indexed only by the loop iterator and exceeds the 384-byte shared-memory "
                          "budget, so it would move to global memory, but " + why,
                      at);
        ap.home = "global";
        repl = "NESTOR_NP_ARRAY_GLOBAL_AT(" + G() + ", " + et + ", " + name + ", " + std::to_string(n) +
               ", nestor_np_pool, " + std::to_string(poolBytesPerMaster_) + "); // " + std::to_string(bytes) +
               " bytes: over the shared-memory budget, global memory (" + papers::kCudaNp + ", 3.3)";
        poolBytesPerMaster_ += (bytes + 15) / 16 * 16;
      }
    }
    replace(beginOf(ap.decl), endOf(ap.decl), repl);
  }
  return true;
}

// Why the kernel cannot take a pool of global memory from its launches ("" if it can).
std::string NpPlanner::globalPoolBlocker() const {
  if (fd_->getPreviousDecl() || fd_->isTemplateInstantiation() || fd_->getDescribedFunctionTemplate())
    return "the kernel is a template or declared more than once, and the pool is a new kernel parameter";
  if (!external_.empty())
    return "the kernel is launched from another file (" + external_.front().where +
           "): the pool is a new kernel parameter, added only at launches in the kernel's own file";
  for (int id : kernel_->launchedBy) {
    const CUDAKernelCallExpr *call = tu_.launchExpr(id);
    if (!call || !call->getConfig()) return "a launch of the kernel is not visible";
    if (ctx_.getSourceManager().isMacroBodyExpansion(call->getRParenLoc()))
      return "the launch at " + lineOf(spanOf(call, ctx_)) + " is written inside a macro: the pool argument cannot be added";
    if (runtimeBlocks_.count(id))
      return "the launch at " + lineOf(spanOf(call, ctx_)) + " has a run-time block: the pool is sized per master at compile time";
    const CallExpr *cfg = call->getConfig();
    if (cfg->getNumArgs() >= 4 && !isa<CXXDefaultArgExpr>(cfg->getArg(3))) {
      const Expr *st = cfg->getArg(3)->IgnoreParenImpCasts();
      bool defaultStream = isa<CXXNullPtrLiteralExpr, GNUNullExpr>(st) || intValue(st, ctx_) == std::optional<long long>(0);
      if (!defaultStream)
        return "the launch at " + lineOf(spanOf(call, ctx_)) + " names a stream: one pool per launch site is safe only "
               "for launches that run in order (the default stream)";
    }
    StatementEffects fg = effects(cfg->getArg(0));
    if (fg.memWrite || !fg.writes.empty() || fg.impureCall || fg.launch)
      return "the grid of the launch at " + lineOf(spanOf(call, ctx_)) + " has side effects or calls a function, and "
             "the pool size evaluates it again; compute the grid into a variable first";
  }
  // Any other use of the kernel (its address, cudaLaunchKernel) would miss the new parameter.
  std::set<const Expr *> callees;
  for (int id : kernel_->launchedBy)
    if (const CUDAKernelCallExpr *call = tu_.launchExpr(id)) callees.insert(call->getCallee()->IgnoreParenImpCasts());
  std::string other;
  auto check = [&](const Stmt *st) {
    if (auto *dr = dyn_cast<DeclRefExpr>(st);
        dr && dr->getDecl()->getCanonicalDecl() == fd_->getCanonicalDecl() && !callees.count(dr))
      other = lineOf(spanOf(dr, ctx_));
  };
  std::function<void(const Decl *)> visit = [&](const Decl *d) {
    if (!other.empty()) return;
    if (auto *ftd = dyn_cast<FunctionTemplateDecl>(d)) d = ftd->getTemplatedDecl();
    if (auto *fd = dyn_cast<FunctionDecl>(d); fd && fd->hasBody()) forEachNode(fd->getBody(), check);
    if (isa<NamespaceDecl, LinkageSpecDecl, CXXRecordDecl>(d))
      for (const Decl *c : cast<DeclContext>(d)->decls()) visit(c);
  };
  for (const Decl *d : tu_.topLevelDecls()) visit(d);
  if (!other.empty()) return "the kernel is used other than by a <<<>>> launch at " + other + ", which would miss the pool parameter";
  return "";
}

bool NpPlanner::addPoolParameter() {
  FunctionTypeLoc ftl = fd_->getFunctionTypeLoc();
  if (!ftl) return fail("cannot find the kernel's parameter list", kernel_->nameSpan);
  unsigned rparen = spanOf(ftl.getRParenLoc(), ctx_).begin.offset;
  if (fd_->getNumParams() == 0) {
    unsigned lparen = spanOf(ftl.getLParenLoc(), ctx_).begin.offset + 1;
    replace(lparen, rparen, "void *nestor_np_pool");
  } else {
    insert(rparen, ", void *nestor_np_pool /* " + cfg_.label + ": global memory for thread-local arrays */");
  }
  return true;
}

} // namespace nestor::loops
