// Kernels of the model (ModelParts.h): each `__global__` function with its
// parameters, `__launch_bounds__`, shared and thread-local arrays, the CUDA
// constructs in its body (StatementEffects), and whether it is recursive.
#include "ModelParts.h"
#include "nestor/AstText.h"
#include "nestor/CrashRecovery.h"
#include "nestor/CudaSemantics.h"
#include "nestor/StatementEffects.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Stmt.h"

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
  f.unparsed = fx.unparsed;
  f.threadIdx = fx.threadIds.count("threadIdx") > 0;
  f.blockDim = fx.threadIds.count("blockDim") > 0;
  f.callees = fx.callees;
  collectArrays(body, ctx, f);
  return f;
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
  FunctionFacts &f = facts_[canon] = collectFunctionFacts(def->getBody(), ctx_);
  const SourceSpan range = spanOf(def->getSourceRange(), ctx_);
  for (const ParseDiagnostic &d : diagnostics_)
    if (isUnknownCode(d) && encloses(range, d.span)) f.unparsed.push_back(d.span);
  return &f;
}

void FunctionIndex::reach(const FunctionDecl *fd, std::set<const FunctionDecl *> &seen) {
  const FunctionFacts *f = factsOf(fd);
  if (!f) return;
  for (const FunctionDecl *c : f->callees)
    if (seen.insert(c).second) reach(c, seen);
}

void addKernels(AnalyzedTU &tu, const std::vector<const FunctionDecl *> &functions, FunctionIndex &index,
                const std::set<const FunctionDecl *> &branchingOnGather) {
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
      k.unparsed = f->unparsed;
      k.usesThreadIdx = f->threadIdx;
      k.usesBlockDim = f->blockDim;
    }
    std::set<const FunctionDecl *> seen;
    index.reach(fd, seen);
    k.isRecursive = seen.count(fd->getCanonicalDecl()) > 0;
    // Code clang could not parse in a function the kernel calls (any depth,
    // headers too) is unknown code of the kernel's: a macro the build defines
    // and Nestor was not told of may read the thread's identity there.
    for (const FunctionDecl *c : seen)
      if (c != fd->getCanonicalDecl())
        if (const FunctionFacts *cf = index.factsOf(c))
          k.unparsed.insert(k.unparsed.end(), cf->unparsed.begin(), cf->unparsed.end());
    k.branchesOnGather = branchingOnGather.count(fd) > 0;
    for (const LoopSite &l : model.loops)
      if (l.function == k.name) k.loops.push_back(l.id);
    model.kernels.push_back(std::move(k));
  }
}

} // namespace nestor
