// The CUDA vocabulary (CudaSemantics.h). Names follow the CUDA C++
// Programming Guide (13.0): synchronisation functions, warp vote/match/
// reduce/shuffle functions, atomic functions, the math API, built-in
// variables, the device runtime API, and cooperative groups.
#include "nestor/CudaSemantics.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"

#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringSet.h"

#include <set>

namespace nestor::cuda {

using namespace clang;

bool isBarrierName(llvm::StringRef n) {
  return n == "__syncthreads" || n.starts_with("__syncthreads_") || n == "__barrier_sync" || n == "__syncwarp";
}

bool isWarpIntrinsicName(llvm::StringRef n) {
  static const llvm::StringSet<> exact = {"__any",       "__all",          "__ballot",   "__any_sync",
                                          "__all_sync",  "__uni_sync",     "__ballot_sync", "__activemask",
                                          "__syncwarp"};
  return exact.contains(n) || n.starts_with("__shfl") || n.starts_with("__match_") || n.starts_with("__reduce_");
}

bool isAtomicName(llvm::StringRef n) { return n.starts_with("atomic") || n.starts_with("__atomic"); }

bool isPureMathName(llvm::StringRef n) {
  static const llvm::StringSet<> pure = {
      "min", "max", "fminf", "fmaxf", "fmin", "fmax", "abs", "fabs", "fabsf", "sqrt", "sqrtf", "rsqrt", "rsqrtf",
      "cbrtf", "exp", "expf", "exp2f", "exp10f", "log", "logf", "log2f", "log10f", "pow", "powf", "sin", "sinf",
      "cos", "cosf", "tan", "tanf", "tanhf", "floor", "floorf", "ceil", "ceilf", "round", "roundf", "trunc",
      "truncf", "rintf", "__fdividef", "__expf", "__logf", "__sinf", "__cosf", "__powf", "__saturatef", "fma",
      "fmaf", "__fmaf_rn", "__fmul_rn", "__fadd_rn", "__mul24", "__umul24", "__popc", "__popcll", "__clz",
      "__ffs", "__brev", "__float2int_rn", "__float2int_rz", "__int2float_rn", "copysignf", "make_float2",
      "make_float3", "make_float4", "make_int2", "make_int3", "make_int4", "make_uint3", "isnan", "isinf"};
  return pure.contains(n);
}

bool isThreadIdBuiltinName(llvm::StringRef n) {
  return n == "threadIdx" || n == "blockIdx" || n == "blockDim" || n == "gridDim" || n == "warpSize";
}

bool isDeviceRuntimeName(llvm::StringRef n) {
  static const llvm::StringSet<> runtime = {
      "cudaDeviceSynchronize", "cudaLaunchDevice", "cudaLaunchDeviceV2", "cudaGetParameterBuffer",
      "cudaGetParameterBufferV2", "cudaStreamCreateWithFlags", "cudaStreamDestroy", "cudaStreamWaitEvent",
      "cudaEventCreateWithFlags", "cudaEventRecord", "cudaEventRecordWithFlags", "cudaEventDestroy", "cudaMalloc",
      "cudaFree", "cudaMemcpyAsync", "cudaMemcpy2DAsync", "cudaMemcpy3DAsync", "cudaMemsetAsync",
      "cudaMemset2DAsync", "cudaMemset3DAsync", "cudaGetLastError", "cudaPeekAtLastError", "cudaGetErrorString",
      "cudaGetErrorName", "cudaGetDevice", "cudaGetDeviceCount", "cudaDeviceGetAttribute", "cudaDeviceGetLimit",
      "cudaFuncGetAttributes", "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
      "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", "cudaRuntimeGetVersion", "cudaDriverGetVersion",
      "cudaGraphLaunch"};
  return runtime.contains(n);
}

bool isThreadVaryingCallName(llvm::StringRef n) {
  return isAtomicName(n) || isWarpIntrinsicName(n) || n.starts_with("clock") || n == "__lane_id" ||
         n == "thread_rank" || n == "thread_index" || n == "meta_group_rank" || n.starts_with("curand") ||
         n == "__laneid" || n == "laneid" || n == "slave_id" || n == "master_id" || n == "lane_in_group";
}

bool isKernelFunction(const FunctionDecl *fd) { return fd && fd->hasAttr<CUDAGlobalAttr>(); }

bool isDeviceCodeFunction(const FunctionDecl *fd) {
  return fd && (fd->hasAttr<CUDAGlobalAttr>() || fd->hasAttr<CUDADeviceAttr>());
}

const FunctionDecl *launchedKernel(const CUDAKernelCallExpr *launch) {
  if (!launch) return nullptr;
  if (const FunctionDecl *fd = launch->getDirectCallee()) return fd;
  const Expr *callee = launch->getCallee()->IgnoreParenImpCasts();
  if (auto *dre = dyn_cast<DeclRefExpr>(callee)) return dyn_cast<FunctionDecl>(dre->getDecl());
  // `child<B><<<...>>>` in a template: an unresolved lookup whose one
  // candidate is the function template `child`.
  if (auto *ule = dyn_cast<UnresolvedLookupExpr>(callee)) {
    const FunctionDecl *found = nullptr;
    for (const NamedDecl *d : ule->decls()) {
      const FunctionDecl *fd = nullptr;
      if (auto *ftd = dyn_cast<FunctionTemplateDecl>(d->getUnderlyingDecl())) fd = ftd->getTemplatedDecl();
      else fd = dyn_cast<FunctionDecl>(d->getUnderlyingDecl());
      if (!fd || (found && found->getCanonicalDecl() != fd->getCanonicalDecl())) return nullptr;
      found = fd;
    }
    return found;
  }
  return nullptr;
}

bool inCooperativeGroups(const Decl *d) {
  for (const DeclContext *dc = d ? d->getDeclContext() : nullptr; dc; dc = dc->getParent())
    if (auto *ns = dyn_cast<NamespaceDecl>(dc))
      if (ns->getName() == "cooperative_groups") return true;
  return false;
}

bool isThreadIdBuiltin(const ValueDecl *d) {
  auto *vd = dyn_cast_or_null<VarDecl>(d);
  return vd && vd->hasGlobalStorage() && isThreadIdBuiltinName(vd->getName());
}

bool isBuiltinVar(const VarDecl *vd, llvm::StringRef name) {
  return vd && vd->getName() == name && !vd->hasLocalStorage();
}

std::optional<BuiltinComponent> builtinComponent(const Expr *e) {
  if (!e) return std::nullopt;
  e = e->IgnoreParenCasts();
  if (auto *po = dyn_cast<PseudoObjectExpr>(e)) e = po->getSyntacticForm()->IgnoreParenCasts();
  auto *pr = dyn_cast<MSPropertyRefExpr>(e);
  if (!pr) return std::nullopt;
  const Expr *base = pr->getBaseExpr()->IgnoreParenImpCasts();
  if (auto *ov = dyn_cast<OpaqueValueExpr>(base); ov && ov->getSourceExpr()) base = ov->getSourceExpr()->IgnoreParenImpCasts();
  auto *dr = dyn_cast<DeclRefExpr>(base);
  if (!dr || !isThreadIdBuiltin(dr->getDecl())) return std::nullopt;
  llvm::StringRef prop = pr->getPropertyDecl()->getName();
  if (prop.size() != 1 || prop[0] < 'x' || prop[0] > 'z') return std::nullopt;
  return BuiltinComponent{dr->getDecl()->getName().str(), prop[0], dr};
}

namespace {
/// `e` without parentheses and casts to integer types (a cast to a floating
/// type changes the value of a large index, so it stays).
const Expr *withoutIntegerCasts(const Expr *e) {
  while (e) {
    e = e->IgnoreParens();
    auto *ce = dyn_cast<CastExpr>(e);
    if (!ce || !ce->getType()->isIntegerType()) break;
    e = ce->getSubExpr();
  }
  return e;
}
bool isXComponent(const Expr *e, llvm::StringRef builtin) {
  auto c = builtinComponent(e);
  return c && c->builtin == builtin && c->axis == 'x';
}
} // namespace

bool isBlockOffset(const Expr *e) {
  auto *mul = dyn_cast_or_null<BinaryOperator>(withoutIntegerCasts(e));
  if (!mul || mul->getOpcode() != BO_Mul) return false;
  return (isXComponent(mul->getLHS(), "blockIdx") && isXComponent(mul->getRHS(), "blockDim")) ||
         (isXComponent(mul->getLHS(), "blockDim") && isXComponent(mul->getRHS(), "blockIdx"));
}

bool isGlobalThreadIndex(const Expr *e) {
  auto *add = dyn_cast_or_null<BinaryOperator>(withoutIntegerCasts(e));
  if (!add || add->getOpcode() != BO_Add) return false;
  return (isBlockOffset(add->getLHS()) && isXComponent(add->getRHS(), "threadIdx")) ||
         (isBlockOffset(add->getRHS()) && isXComponent(add->getLHS(), "threadIdx"));
}

std::string calleeName(const CallExpr *call) {
  if (auto *fd = call->getDirectCallee()) return fd->getNameAsString();
  if (auto *ule = dyn_cast<UnresolvedLookupExpr>(call->getCallee()->IgnoreImplicit()))
    return ule->getName().getAsString();
  if (auto *me = dyn_cast<CXXDependentScopeMemberExpr>(call->getCallee()->IgnoreImplicit()))
    return me->getMember().getAsString();
  return "";
}

namespace {
/// The class of the object a member call is made on, if any.
const CXXRecordDecl *objectClass(const CallExpr *call) {
  auto *mc = dyn_cast<CXXMemberCallExpr>(call);
  if (!mc) return nullptr;
  if (const CXXRecordDecl *rd = mc->getRecordDecl()) return rd;
  const Expr *obj = mc->getImplicitObjectArgument();
  if (!obj) return nullptr;
  QualType t = obj->getType();
  if (t->isPointerType()) t = t->getPointeeType();
  return t->getAsCXXRecordDecl();
}

// Collectives of warp-sized groups (thread_block_tile, coalesced_group):
// their result depends on which threads form the tile, like the intrinsics.
bool isTileCollective(llvm::StringRef n) {
  return n.starts_with("shfl") || n == "any" || n == "all" || n == "ballot" || n.starts_with("match_");
}
// Free functions of cooperative groups that combine values across a group.
bool isGroupCollective(llvm::StringRef n) {
  return n == "reduce" || n == "reduce_store_async" || n == "inclusive_scan" || n == "exclusive_scan";
}
// Members and free functions of cooperative groups that wait for the group.
bool isGroupBarrier(llvm::StringRef n) {
  return n == "sync" || n == "barrier_wait" || n == "wait" || n == "wait_prior";
}
// Members and free functions of cooperative groups that only ask about the
// calling thread or the group's shape: every other call into cooperative
// groups is made by the whole group together.
bool isGroupQuery(llvm::StringRef n) {
  static const llvm::StringSet<> queries = {
      "thread_rank", "size", "num_threads", "meta_group_rank", "meta_group_size", "group_index", "thread_index",
      "group_dim", "dim_threads", "dim_blocks", "block_index", "block_rank", "num_blocks", "block_dim", "grid_dim",
      "is_valid", "this_thread_block", "this_grid", "this_thread", "this_cluster", "cluster_dim", "dim_clusters"};
  return queries.contains(n);
}

bool inNamespace(const Decl *d, llvm::StringRef name) {
  for (const DeclContext *dc = d ? d->getDeclContext() : nullptr; dc; dc = dc->getParent())
    if (auto *ns = dyn_cast<NamespaceDecl>(dc))
      if (ns->getName() == name) return true;
  return false;
}
} // namespace

bool isPipelineName(llvm::StringRef n) {
  return n.starts_with("__pipeline_") || n == "memcpy_async" || n.starts_with("cp_async") ||
         n == "pipeline_consumer_wait_prior" || n == "pipeline_producer_commit";
}

bool isCollectiveCall(const CallExpr *call) {
  const FunctionDecl *fd = call->getDirectCallee();
  std::string name = calleeName(call);
  // nvcuda::wmma: fragments are spread over the lanes of a warp.
  if (fd && inNamespace(fd, "wmma")) return true;
  if (isPipelineName(name)) return true;
  // cuda::pipeline, cuda::barrier and their friends: per-stage state of a
  // group of threads or of the thread's own copy sequence.
  if (auto *mc = dyn_cast<CXXMemberCallExpr>(call))
    if (const CXXRecordDecl *rd = mc->getRecordDecl())
      if (inNamespace(rd, "cuda") || inNamespace(rd, "wmma"))
        if (rd->getName() == "pipeline" || rd->getName() == "barrier" || rd->getName().starts_with("fragment") ||
            inNamespace(rd, "wmma"))
          return true;
  return false;
}

CallMeaning classifyCall(const CallExpr *call) {
  CallMeaning m;
  m.name = calleeName(call);
  const FunctionDecl *fd = call->getDirectCallee();
  const CXXRecordDecl *cls = objectClass(call);
  m.cooperativeGroups = (fd && inCooperativeGroups(fd)) || (cls && inCooperativeGroups(cls));
  if (m.cooperativeGroups) {
    m.barrier = isGroupBarrier(m.name);
    m.warp = (cls && isTileCollective(m.name)) || isGroupCollective(m.name) ||
             (!m.barrier && !isGroupQuery(m.name));
    m.threadVarying = m.warp || m.name == "thread_rank" || m.name == "thread_index" || m.name == "meta_group_rank";
    return m;
  }
  m.barrier = isBarrierName(m.name);
  m.warp = isWarpIntrinsicName(m.name) || isCollectiveCall(call);
  m.atomic = isAtomicName(m.name);
  m.pure = fd && isPureMathName(m.name);
  m.deviceRuntime = isDeviceRuntimeName(m.name);
  m.deviceSynchronize = m.name == "cudaDeviceSynchronize";
  m.threadVarying = isThreadVaryingCallName(m.name);
  return m;
}

bool dispatchesVirtually(const CallExpr *call) {
  auto *md = dyn_cast_or_null<CXXMethodDecl>(call->getDirectCallee());
  if (!md || !md->isVirtual()) return false;
  // The overrider of the object's dynamic class runs, unless the call is
  // qualified (`Base::f()`) or the class or the method is final.
  auto *me = dyn_cast<MemberExpr>(call->getCallee()->IgnoreParenImpCasts());
  if (!me) return true;
  if (me->hasQualifier()) return false;
  return !md->getDevirtualizedMethod(me->getBase(), /*IsAppleKext=*/false);
}

namespace {
struct CalleeWalk {
  const CalleeUseQuery &query;
  std::set<const FunctionDecl *> seen;
  std::optional<CalleeUse> found;

  /// Children, with the source of an OpaqueValueExpr (the base of
  /// `threadIdx.x` hides behind one).
  static void forKids(const Stmt *s, const std::function<void(const Stmt *)> &f) {
    if (auto *ov = dyn_cast<OpaqueValueExpr>(s)) {
      if (ov->getSourceExpr()) f(ov->getSourceExpr());
      return;
    }
    for (const Stmt *c : s->children())
      if (c) f(c);
  }
  /// Looks into `fd`, reached through `via`.
  void enter(const FunctionDecl *fd, const Expr *via) {
    if (!fd || found) return;
    const FunctionDecl *def = nullptr;
    if (!fd->hasBody(def) || !def) {
      const SourceManager &sm = fd->getASTContext().getSourceManager();
      if (query.unknownBodies && !fd->getBuiltinID() && !sm.isInSystemHeader(fd->getLocation()) &&
          !fd->isImplicit())
        found = CalleeUse{fd, "", via, nullptr};
      return;
    }
    if (!seen.insert(def->getCanonicalDecl()).second) return;
    // A constructor's member initialisers run before its body.
    if (auto *ctor = dyn_cast<CXXConstructorDecl>(def))
      for (const CXXCtorInitializer *init : ctor->inits())
        body(init->getInit(), def, via);
    body(def->getBody(), def, via);
  }
  /// A call that does not name its callee (through a function pointer, a
  /// virtual member, or a name a template pattern leaves unresolved) may run
  /// any body: one that reads the built-ins as well as one that does not.
  void unresolved(const CallExpr *ce, const Expr *via) {
    if (!query.unknownBodies) return;
    found = CalleeUse{nullptr, "", via, nullptr};
    found->callee = indirectCalleeName(ce);
  }
  void call(const CallExpr *ce, const Expr *via) {
    const Expr *callee = ce->getCallee()->IgnoreParenImpCasts();
    if (isa<CXXPseudoDestructorExpr>(callee)) return; // `p->~T()` of a scalar does nothing
    // `f(x)` in a template pattern with a dependent argument: every candidate
    // the lookup found is a body that may run.
    if (auto *ovl = dyn_cast<OverloadExpr>(callee)) {
      for (const NamedDecl *d : ovl->decls()) {
        const FunctionDecl *fd = d->getAsFunction();
        if (!fd) return unresolved(ce, via);
        enter(fd, via);
        if (found) return;
      }
      if (isa<UnresolvedLookupExpr>(callee) && cast<UnresolvedLookupExpr>(callee)->requiresADL())
        return unresolved(ce, via); // argument-dependent lookup may find more at instantiation
      return;
    }
    const FunctionDecl *fd = ce->getDirectCallee();
    if (!fd || dispatchesVirtually(ce)) return unresolved(ce, via);
    enter(fd, via);
  }
  static std::string indirectCalleeName(const CallExpr *ce) {
    const Expr *callee = ce->getCallee()->IgnoreParenImpCasts();
    if (auto *u = dyn_cast<UnaryOperator>(callee); u && u->getOpcode() == UO_Deref)
      callee = u->getSubExpr()->IgnoreParenImpCasts();
    if (auto *dre = dyn_cast<DeclRefExpr>(callee)) return dre->getDecl()->getNameAsString();
    if (auto *me = dyn_cast<MemberExpr>(callee)) return me->getMemberDecl()->getNameAsString();
    std::string name = calleeName(ce);
    return name.empty() ? "a function pointer" : name;
  }
  /// Walks `s`, a statement of `fn`'s body (null: the caller's statement).
  void body(const Stmt *s, const FunctionDecl *fn, const Expr *via) {
    if (!s || found) return;
    if (fn)
      if (auto *dre = dyn_cast<DeclRefExpr>(s)) {
        auto *vd = dyn_cast<VarDecl>(dre->getDecl());
        if (vd && vd->hasGlobalStorage() && isThreadIdBuiltinName(vd->getName()) && vd->getName() != "warpSize" &&
            query.builtin && query.builtin(vd->getName())) {
          found = CalleeUse{fn, vd->getName().str(), via, s};
          return;
        }
      }
    if (fn && query.shared) {
      const VarDecl *sv = nullptr;
      if (auto *dre = dyn_cast<DeclRefExpr>(s)) sv = dyn_cast<VarDecl>(dre->getDecl());
      else if (auto *ds = dyn_cast<DeclStmt>(s))
        for (const Decl *d : ds->decls())
          if (auto *v = dyn_cast<VarDecl>(d); v && v->hasAttr<CUDASharedAttr>()) sv = v;
      if (sv && sv->hasAttr<CUDASharedAttr>()) {
        found = CalleeUse{fn, "__shared__ '" + sv->getNameAsString() + "'", via, s};
        return;
      }
    }
    if (isa<CUDAKernelCallExpr>(s)) {
      // The launched kernel's built-ins are its own; its arguments are ours.
      for (const Expr *a : cast<CUDAKernelCallExpr>(s)->arguments()) body(a, fn, via);
      return;
    }
    if (auto *ce = dyn_cast<CallExpr>(s)) {
      CallMeaning m = classifyCall(ce);
      if ((m.barrier || m.warp) && fn && query.collectives) {
        found = CalleeUse{fn, m.name, via, s};
        return;
      }
      if ((m.barrier || m.warp) && !fn && query.collectives) {
        // The statement's own collectives are the caller's to judge.
      } else if (!(m.pure || m.atomic || m.barrier || m.warp || m.deviceRuntime || m.deviceSynchronize)) {
        call(ce, via ? via : ce);
      }
    } else if (auto *cx = dyn_cast<CXXConstructExpr>(s)) {
      enter(cx->getConstructor(), via ? via : cx);
    }
    forKids(s, [&](const Stmt *c) { body(c, fn, via); });
  }
};
} // namespace

namespace {
std::optional<CalleeUse> named(std::optional<CalleeUse> use) {
  if (use && use->function && use->callee.empty()) use->callee = use->function->getNameAsString();
  return use;
}
} // namespace

std::string unseenCall(const CalleeUse &use) {
  if (use.function) return "'" + use.callee + "', whose body Nestor cannot see";
  return "through '" + use.callee + "', and Nestor cannot see which function runs there";
}

std::optional<CalleeUse> calleeUse(const Stmt *s, const CalleeUseQuery &query) {
  CalleeWalk w{query, {}, std::nullopt};
  w.body(s, nullptr, nullptr);
  return named(w.found);
}

std::optional<CalleeUse> functionUse(const FunctionDecl *fd, const CalleeUseQuery &query) {
  CalleeWalk w{query, {}, std::nullopt};
  w.enter(fd, nullptr);
  return named(w.found);
}

} // namespace nestor::cuda
