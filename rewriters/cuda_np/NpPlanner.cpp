// CUDA-NP planner (NpPlanner.h): the phases in order, the prologue that
// names the master's original thread ids, and the enlarged launches.
#include "NpPlanner.h"
#include "nestor/Papers.h"

using namespace clang;
#include "nestor/EditSet.h"

namespace nestor::loops {

/// The block a launch of the original block `original` runs with: the same
/// masters (or, reshaped, masters_ of them) and their slaves.
BlockShape NpPlanner::launchShape(const BlockShape &original) const {
  return reshape_ > 1 ? BlockShape{masters_, 1, 1} : original;
}

/// The text that replaces a launch's block `was` (of constant shape
/// `original`): the enlarged block, wrapped in nestor::np::block_as_analysed
/// when `condition` (from blockAsAnalysedCondition) is not empty, so that
/// building the rewritten code with another value of the macro or constant
/// is a compile error, not a launch that silently covers a different set of
/// threads.
std::string NpPlanner::launchBlock(const BlockShape &original, const std::string &condition,
                                   const std::string &was) const {
  const BlockShape b = launchShape(original);
  const unsigned S = cfg_.slaves;
  std::string block = cfg_.intra ? "dim3(" + std::to_string(b.x * S) + ", " + std::to_string(b.y) + ", " +
                                       std::to_string(b.z) + ")"
                                 : "dim3(" + std::to_string(b.threads()) + ", " + std::to_string(S) + ", 1)";
  if (!condition.empty()) block = "nestor::np::block_as_analysed<(" + condition + ")>(" + block + ")";
  return block + " /* " + cfg_.label + ", was " + was + " */";
}

bool NpPlanner::plan() {
  if (t_.kind != RewriteTarget::Kind::Loop || t_.id < 0 || size_t(t_.id) >= m_.loops.size())
    return fail("no loop at this position");
  const LoopSite &l = m_.loops[size_t(t_.id)];
  if (!l.inKernel) return fail("the loop is not inside a __global__ kernel", l.headerSpan);
  kernel_ = m_.findKernel(l.function);
  fd_ = tu_.functionDecl(l.function);
  if (!kernel_ || !fd_ || !fd_->getBody()) return fail("the kernel '" + l.function + "' has no body in this file");
  body_ = dyn_cast<CompoundStmt>(fd_->getBody());
  if (!body_) return fail("the kernel body is not a block");
  {
    std::function<void(const Stmt *)> link = [&](const Stmt *p) {
      for (const Stmt *c : p->children())
        if (c) { parent_[c] = p; link(c); }
    };
    link(body_);
    kernelWrites_ = effects(body_).writes;
  }
  if (!checkKernelAndLaunches()) return false;
  if (!chooseParallelLoops()) return false;
  if (!checkCallees()) return false;
  if (!planArrays()) return false;
  if (!rewriteThreadIds()) return false;

  // Early returns at the top level: inter-warp NP predicates instead.
  for (const Stmt *s : body_->body())
    if (auto *is = dyn_cast<IfStmt>(s); is && !cfg_.intra && !is->getElse()) {
      const Stmt *th = is->getThen();
      if (auto *cs = dyn_cast<CompoundStmt>(th); cs && cs->size() == 1) th = cs->body_front();
      if (isa<ReturnStmt>(th)) predicated_ = true;
    }
  if (predicated_) preds_.push_back("nestor_active");

  // Kernel parameters are uniform; every top-level local starts unknown.
  bool masterWrote = false;
  for (const Stmt *s : body_->body())
    if (!statement(s, masterWrote, 0)) return false;

  // Prologue: the group type and the master's original thread ids.
  unsigned S = cfg_.slaves;
  std::string in = "\n" + indentOf(body_->body_empty() ? body_ : body_->body_front());
  std::string pro;
  if (cfg_.intra) {
    pro += in + "// " + cfg_.label + ": master = linear thread / " + std::to_string(S) + ", slave = linear thread % " +
           std::to_string(S) + " (" + papers::kCudaNp + ", 3.4, 3.7).";
    pro += in + "using " + G() + " = nestor::np::intra<" + std::to_string(S) + ">;";
    pro += in + "const dim3 nestor_blockDim(blockDim.x / " + std::to_string(S) + ", blockDim.y, blockDim.z);";
    pro += in + "const unsigned nestor_master = " + G() + "::master_id();";
  } else {
    const BlockShape b = launchShape(*block_);
    unsigned M = b.threads();
    pro += in + "// " + cfg_.label + ": block (" + std::to_string(M) + ", " + std::to_string(S) +
           "), master = threadIdx.x, slave = threadIdx.y (" + papers::kCudaNp + ", 3.4, 3.7).";
    pro += in + "using " + G() + " = nestor::np::inter<" + std::to_string(M) + ", " + std::to_string(S) + ">;";
    pro += in + "const dim3 nestor_blockDim(" + std::to_string(b.x) + ", " + std::to_string(b.y) + ", " +
           std::to_string(b.z) + ");";
    pro += in + "const unsigned nestor_master = " + G() + "::master_id();";
  }
  if (reshape_ > 1)
    pro += in + "// Launches reshaped: " + std::to_string(reshape_) + "x the blocks, " + std::to_string(masters_) +
           " masters each (the original block with " + std::to_string(S) +
           " slaves per thread would not fit); blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x is the original "
           "thread's index.";
  pro += in + "const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / "
              "nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));";
  if (predicated_) pro += in + "bool nestor_active = true; // false once the original thread would have returned";
  insert(spanOf(body_->getLBracLoc().getLocWithOffset(0), ctx_).begin.offset + 1, pro);

  // Launch sites: the enlarged block (and, reshaped, more blocks of fewer masters).
  for (int id : kernel_->launchedBy) {
    const LaunchSite &ls = m_.launches[size_t(id)];
    const CUDAKernelCallExpr *call = tu_.launchExpr(id);
    if (runtimeBlocks_.count(id)) {
      // Run-time block B: B / m blocks of m masters, m the largest divisor of B
      // that fits (nestor::np::reshape_masters), decided at the launch.
      std::string B = textOf(call->getConfig()->getArg(1), ctx_), grid = textOf(call->getConfig()->getArg(0), ctx_);
      std::string args = "(" + B + ", " + std::to_string(S) + ", " + std::to_string(limit_) + ")";
      replace(ls.blockSpan.begin.offset, ls.blockSpan.end.offset,
              "nestor::np::reshape_block" + args + " /* " + cfg_.label + ", was " + ls.block + " */");
      replace(ls.gridSpan.begin.offset, ls.gridSpan.end.offset,
              "nestor::np::reshape_grid(" + grid + ", nestor::np::reshape_factor" + args + ") /* was " + ls.grid + " */");
      continue;
    }
    const BlockShape original = *constantBlock(tu_, id);
    const BlockShape b = launchShape(original);
    replace(ls.blockSpan.begin.offset, ls.blockSpan.end.offset,
            launchBlock(original, blockAsAnalysedCondition(tu_, id, original), ls.block));
    std::string grid = textOf(call->getConfig()->getArg(0), ctx_);
    if (reshape_ > 1) {
      grid = "nestor::np::reshape_grid(" + grid + ", " + std::to_string(reshape_) + ")";
      replace(ls.gridSpan.begin.offset, ls.gridSpan.end.offset, grid + " /* was " + ls.grid + " */");
    }
    if (poolBytesPerMaster_) {
      // The pool of the arrays moved to global memory, sized for this launch.
      unsigned rparen = spanOf(call->getRParenLoc(), ctx_).begin.offset;
      insert(rparen, std::string(call->getNumArgs() ? ", " : "") + "nestor::np::array_pool<" +
                         std::to_string(poolSite(id)) + ">(dim3(" + grid + "), " + std::to_string(b.threads()) + ", " +
                         std::to_string(poolBytesPerMaster_) + ", \"" + kernel_->name + "\")");
    }
  }
  // Launches in other files of the project: the same enlarged block, written there.
  for (const ExternalLaunchPlan &el : external_) {
    const CUDAKernelCallExpr *call = el.unit->launchExpr(el.id);
    const LaunchSite &ls = el.unit->model().launches[size_t(el.id)];
    const ASTContext &ctx = el.unit->astContext();
    EditSet &set = otherEdits_.try_emplace(el.file, *el.unit).first->second;
    const std::string condition = blockAsAnalysedCondition(*el.unit, el.id, el.block);
    set.add(ls.blockSpan.begin.offset, ls.blockSpan.end.offset, launchBlock(el.block, condition, ls.block));
    if (reshape_ > 1) {
      std::string grid = "nestor::np::reshape_grid(" + textOf(call->getConfig()->getArg(0), ctx) + ", " +
                         std::to_string(reshape_) + ")";
      set.add(ls.gridSpan.begin.offset, ls.gridSpan.end.offset, grid + " /* was " + ls.grid + " */");
    }
    // What the new text calls: reshape_grid, block_as_analysed.
    if (reshape_ > 1 || !condition.empty()) set.addInclude(includeReplacement(*el.unit, "nestor/np.cuh"));
  }
  if (poolBytesPerMaster_ && !addPoolParameter()) return false;
  auto inc = includeReplacement(tu_, "nestor/np.cuh");
  edits_.push_back({inc.getOffset(), 0, inc.getReplacementText().str(), false, false, EditSet::kIncludeRank});
  return true;
}

std::string statementKind(const Stmt *s) {
  if (isa<WhileStmt>(s)) return "while loop";
  if (isa<DoStmt>(s)) return "do loop";
  if (isa<CXXForRangeStmt>(s)) return "range-based for loop";
  if (isa<SwitchStmt, SwitchCase>(s)) return "switch";
  if (isa<LabelStmt>(s)) return "labelled statement";
  if (isa<CXXTryStmt>(s)) return "try block";
  return s->getStmtClassName();
}

NpPlan planNp(const AnalyzedTU &tu, const RewriteTarget &t, const NpConfig &cfg) { return NpPlanner(tu, t, cfg).run(); }

} // namespace nestor::loops
