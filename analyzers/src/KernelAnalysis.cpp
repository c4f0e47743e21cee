// Kernels of the model (ModelParts.h): each `__global__` function with its
// parameters, `__launch_bounds__`, shared and thread-local arrays, the CUDA
// constructs in its body (StatementEffects), and whether it is recursive.
#include "ModelParts.h"
#include "Variance.h"
#include "nestor/AstText.h"
#include "nestor/CrashRecovery.h"
#include "nestor/CudaSemantics.h"
#include "nestor/StatementEffects.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Stmt.h"

#include <functional>
#include <optional>

namespace nestor {

using namespace clang;

namespace {

/// The size of a type in bytes, or nullopt where asking ASTContext would
/// assert or crash: null, dependent, undeduced, incomplete (also arrays of an
/// incomplete element), variably sized, or a record that is invalid or
/// (through its fields or bases) recursive.
std::optional<uint64_t> knownSizeInBytes(clang::QualType t, const clang::ASTContext &ctx) {
  if (t.isNull()) return std::nullopt;
  const clang::Type *ty = t.getCanonicalType().getTypePtr();
  if (ty->isDependentType() || ty->isInstantiationDependentType() || ty->containsErrors() || ty->isUndeducedType() ||
      ty->isIncompleteType() || !ty->isConstantSizeType())
    return std::nullopt;
  const clang::Type *base = ctx.getBaseElementType(t).getCanonicalType().getTypePtr();
  if (base->isIncompleteType() || base->isFunctionType() || base->isReferenceType()) return std::nullopt;
  if (const clang::RecordDecl *rd = base->getAsRecordDecl()) {
    const clang::RecordDecl *def = rd->getDefinition();
    if (!def || def->isInvalidDecl() || !def->isCompleteDefinition()) return std::nullopt;
  }
  return uint64_t(ctx.getTypeSizeInChars(t).getQuantity());
}

/// `__shared__` declarations and thread-local arrays of constant size.
void collectArrays(const Stmt *s, ASTContext &ctx, FunctionFacts &f) {
  if (!s) return;
  if (auto *ds = dyn_cast<DeclStmt>(s)) {
    for (const Decl *d : ds->decls()) {
      auto *vd = dyn_cast<VarDecl>(d);
      // An invalid declaration (an array of an incomplete or unknown type,
      // a negative or too large size) has no layout to ask about.
      if (!vd || vd->isInvalidDecl()) continue;
      if (vd->hasAttr<CUDASharedAttr>()) {
        SharedDecl sd;
        sd.name = vd->getNameAsString();
        sd.type = vd->getType().getAsString();
        sd.isExtern = vd->hasExternalStorage() || vd->getType()->isIncompleteArrayType();
        if (!sd.isExtern)
          if (auto bytes = knownSizeInBytes(vd->getType(), ctx)) sd.sizeBytes = *bytes;
        sd.span = spanOf(vd->getSourceRange(), ctx);
        f.shared.push_back(sd);
      } else if (vd->hasLocalStorage() && vd->getType()->isConstantArrayType() && !vd->getType()->isDependentType()) {
        const auto *cat = ctx.getAsConstantArrayType(vd->getType());
        QualType elem = ctx.getBaseElementType(vd->getType());
        std::optional<uint64_t> bytes = knownSizeInBytes(vd->getType(), ctx);
        std::optional<uint64_t> elemBytes = knownSizeInBytes(elem, ctx);
        if (!cat || !bytes || !elemBytes) continue; // an incomplete or invalid element type
        LocalArray la;
        la.name = vd->getNameAsString();
        la.elementType = elem.getAsString();
        la.sizeBytes = *bytes;
        la.elements = *elemBytes ? la.sizeBytes / *elemBytes : cat->getZExtSize();
        la.span = spanOf(vd->getSourceRange(), ctx);
        f.locals.push_back(la);
      }
    }
  }
  for (const Stmt *c : s->children()) collectArrays(c, ctx, f);
}

FunctionFacts collectFunctionFacts(const Stmt *body, ASTContext &ctx) {
  FunctionFacts f;
  StatementEffects fx = effectsOf(body, ctx);
  // Named barriers and warp intrinsics; cooperative groups (whose sync() is a
  // barrier too) are listed on their own, as the rules and rewrites expect.
  for (const ConstructUse &u : fx.barriers)
    if (cuda::isBarrierName(u.name)) f.barriers.push_back(u);
  for (const ConstructUse &u : fx.warpOps)
    if (cuda::isWarpIntrinsicName(u.name)) f.warp.push_back(u);
  for (const ConstructUse &u : fx.cooperativeGroups) f.coop.push_back({"cooperative_groups::" + u.name, u.span});
  f.atomics = fx.atomics;
  f.syncs = fx.deviceSyncs;
  f.threadIdx = fx.threadIds.count("threadIdx") > 0;
  f.blockDim = fx.threadIds.count("blockDim") > 0;
  f.callees = fx.callees;
  collectArrays(body, ctx, f);
  return f;
}

/// Kernel::branchesOnGather: a condition (if, loop, ?:, && / ||) of the body
/// subscripts memory with an index read from memory through a per-thread
/// address (VarianceAnalysis::isDataDependent). Helpers it calls are not
/// looked into: their conditions are missed, which only leaves the flag off.
bool branchesOnGather(const FunctionDecl *fd, ASTContext &ctx) {
  if (!fd->hasBody()) return false;
  VarianceAnalysis variance(ctx);
  variance.run(fd);
  std::function<bool(const Stmt *)> gathers = [&](const Stmt *s) {
    if (!s) return false;
    if (auto *ase = dyn_cast<ArraySubscriptExpr>(s); ase && variance.isDataDependent(ase->getIdx())) return true;
    for (const Stmt *c : s->children())
      if (gathers(c)) return true;
    return false;
  };
  std::function<bool(const Stmt *)> walk = [&](const Stmt *s) {
    if (!s) return false;
    const Expr *cond = nullptr;
    if (auto *i = dyn_cast<IfStmt>(s)) cond = i->getCond();
    else if (auto *w = dyn_cast<WhileStmt>(s)) cond = w->getCond();
    else if (auto *f = dyn_cast<ForStmt>(s)) cond = f->getCond();
    else if (auto *d = dyn_cast<DoStmt>(s)) cond = d->getCond();
    else if (auto *c = dyn_cast<ConditionalOperator>(s)) cond = c->getCond();
    else if (auto *b = dyn_cast<BinaryOperator>(s); b && b->isLogicalOp()) cond = b->getLHS();
    if (cond && gathers(cond)) return true;
    for (const Stmt *c : s->children())
      if (walk(c)) return true;
    return false;
  };
  return walk(fd->getBody());
}

} // namespace

const FunctionFacts *FunctionIndex::factsOf(const FunctionDecl *fd) {
  if (!fd) return nullptr;
  const FunctionDecl *canon = fd->getCanonicalDecl();
  if (auto it = facts_.find(canon); it != facts_.end()) return &it->second;
  // Functions defined in the preamble's headers are found through their
  // declaration (deserialising just that one).
  const FunctionDecl *def = nullptr;
  if (auto d = defOf_.find(canon); d != defOf_.end()) def = d->second;
  else if (const FunctionDecl *found = fd->getDefinition(); found && found->hasBody()) def = found;
  if (!def) return nullptr;
  return &(facts_[canon] = collectFunctionFacts(def->getBody(), ctx_));
}

void FunctionIndex::reach(const FunctionDecl *fd, std::set<const FunctionDecl *> &seen) {
  const FunctionFacts *f = factsOf(fd);
  if (!f) return;
  for (const FunctionDecl *c : f->callees)
    if (seen.insert(c).second) reach(c, seen);
}

void addKernels(AnalyzedTU &tu, const std::vector<const FunctionDecl *> &functions, FunctionIndex &index) {
  ASTContext &ctx = tu.astContext();
  FileModel &model = tu.model();
  for (const FunctionDecl *fd : functions) {
    if (!cuda::isKernelFunction(fd)) continue;
    AnalysisStep step("collecting the kernel facts", fd->getNameAsString(), spanOf(fd->getSourceRange(), ctx));
    Kernel k;
    k.name = fd->getNameAsString();
    k.span = spanOf(fd->getSourceRange(), ctx);
    k.nameSpan = spanOf(SourceRange(fd->getLocation(), fd->getLocation()), ctx);
    k.bodySpan = spanOf(fd->getBody(), ctx);
    for (const ParmVarDecl *p : fd->parameters()) k.params.push_back({p->getNameAsString(), p->getType().getAsString()});
    if (auto *lb = fd->getAttr<CUDALaunchBoundsAttr>()) {
      k.launchBoundsMaxThreads = textOf(lb->getMaxThreads(), ctx);
      if (lb->getMinBlocks()) k.launchBoundsMinBlocks = textOf(lb->getMinBlocks(), ctx);
      Expr::EvalResult r;
      if (lb->getMaxThreads() && !lb->getMaxThreads()->isValueDependent() && lb->getMaxThreads()->EvaluateAsInt(r, ctx))
        k.launchBoundsMaxThreadsValue = r.Val.getInt().getZExtValue();
    }
    if (const FunctionFacts *f = index.factsOf(fd)) {
      k.shared = f->shared;
      k.localArrays = f->locals;
      k.barriers = f->barriers;
      k.warpIntrinsics = f->warp;
      k.cooperativeGroups = f->coop;
      k.atomics = f->atomics;
      k.deviceSyncs = f->syncs;
      k.usesThreadIdx = f->threadIdx;
      k.usesBlockDim = f->blockDim;
    }
    std::set<const FunctionDecl *> seen;
    index.reach(fd, seen);
    k.isRecursive = seen.count(fd->getCanonicalDecl()) > 0;
    k.branchesOnGather = branchesOnGather(fd, ctx);
    for (const LoopSite &l : model.loops)
      if (l.function == k.name) k.loops.push_back(l.id);
    model.kernels.push_back(std::move(k));
  }
}

} // namespace nestor
