// The CUDA vocabulary: what a name or a call means to the execution model
// (barriers, warp-level intrinsics, atomics, pure math functions, thread-id
// builtins, device runtime calls, cooperative groups).
//
// One home on purpose: the model builder, the rules and every rewrite ask
// here, so a rule and a rewrite can never judge the same kernel differently
// because each kept its own list of names. The table-driven unit test of
// every name is tests/unit/CudaSemanticsTest.cpp.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <functional>
#include <optional>
#include <string>

namespace clang {
class CallExpr;
class CUDAKernelCallExpr;
class DeclRefExpr;
class Expr;
class Stmt;
class Decl;
class FunctionDecl;
class ValueDecl;
class VarDecl;
} // namespace clang

namespace nestor::cuda {

// ---- names -------------------------------------------------------------------

/// Block- or warp-wide barriers called by name: `__syncthreads`,
/// `__syncthreads_count/_and/_or`, `__barrier_sync`, `__syncwarp`.
/// (Cooperative groups' `sync()` is a barrier too, recognised by the
/// object's type in classifyCall.)
bool isBarrierName(llvm::StringRef name);

/// Warp-level intrinsics: shuffles, votes (`__any_sync`, `__all_sync`,
/// `__uni_sync`, `__ballot_sync` and the legacy `__any`, `__all`, `__ballot`),
/// `__activemask`, `__match_*_sync`, `__reduce_*_sync`, `__syncwarp`. Their
/// result depends on which threads share a warp.
bool isWarpIntrinsicName(llvm::StringRef name);

/// Asynchronous-copy pipelines: `__pipeline_memcpy_async`, `__pipeline_commit`,
/// `__pipeline_wait_prior`, `memcpy_async` (cuda:: and cooperative_groups::).
bool isPipelineName(llvm::StringRef name);

/// A call whose meaning depends on which threads make it together, beyond
/// the warp intrinsics: `nvcuda::wmma` (fragments live across a warp's
/// lanes), pipelines and `memcpy_async`, `cuda::pipeline` / `cuda::barrier`
/// members. classifyCall reports these as `warp`.
bool isCollectiveCall(const clang::CallExpr *call);

/// `atomicAdd`, `atomicCAS_block`, `__atomic_fetch_add`, ...
bool isAtomicName(llvm::StringRef name);

/// Functions of the CUDA math library and intrinsics whose result depends
/// only on their arguments (no memory, no thread identity).
bool isPureMathName(llvm::StringRef name);

/// `threadIdx`, `blockIdx`, `blockDim`, `gridDim`, `warpSize`.
bool isThreadIdBuiltinName(llvm::StringRef name);

/// The device runtime API callable from device code (dynamic parallelism,
/// CDP2): launches, streams, events, memory, errors. These have effects.
bool isDeviceRuntimeName(llvm::StringRef name);

/// Calls whose result differs between the threads of a block even with the
/// same arguments: atomics, warp intrinsics, clocks, lane ids, random
/// generators, and the Nestor runtime's own ids (rewritten code, whose
/// bodies a preamble may skip).
bool isThreadVaryingCallName(llvm::StringRef name);

// ---- declarations ------------------------------------------------------------

/// A `__global__` function (a kernel).
bool isKernelFunction(const clang::FunctionDecl *fd);
/// Code that runs on the device: `__global__` or `__device__`.
bool isDeviceCodeFunction(const clang::FunctionDecl *fd);

/// The kernel a launch statement launches: its callee, or, where the launch
/// names a template with arguments that depend on the enclosing template's
/// parameters (`child<B><<<...>>>` inside `template <int B> parent`), the
/// one function template it names (its pattern). nullptr when the callee is
/// a pointer or names no single function.
const clang::FunctionDecl *launchedKernel(const clang::CUDAKernelCallExpr *launch);

/// True for a declaration inside namespace `cooperative_groups`.
bool inCooperativeGroups(const clang::Decl *d);

/// A reference to one of the builtin thread-id variables (`threadIdx`, ...).
bool isThreadIdBuiltin(const clang::ValueDecl *d);
/// A reference to the builtin variable `name` (e.g. "threadIdx").
bool isBuiltinVar(const clang::VarDecl *vd, llvm::StringRef name);

/// One component of a thread-id builtin, as written: `blockIdx.x`.
struct BuiltinComponent {
  std::string builtin; ///< "threadIdx", "blockIdx", "blockDim", "gridDim"
  char axis = 0;       ///< 'x', 'y' or 'z'
  const clang::DeclRefExpr *ref = nullptr; ///< the reference to the builtin variable
};
/// `e` (through parentheses and casts) read as a builtin component, if it is one.
std::optional<BuiltinComponent> builtinComponent(const clang::Expr *e);
/// `blockIdx.x * blockDim.x` (either order), through parentheses and casts
/// to integer types.
bool isBlockOffset(const clang::Expr *e);
/// `blockIdx.x * blockDim.x + threadIdx.x` (any order of the terms), through
/// parentheses and casts to integer types: the 1-D global thread index.
bool isGlobalThreadIndex(const clang::Expr *e);

// ---- calls -------------------------------------------------------------------

/// What one call means. A call can be several of these at once (e.g. a
/// cooperative-groups `sync()` is both `cooperativeGroups` and `barrier`).
struct CallMeaning {
  std::string name;             ///< callee name ("" when unknown: a call through a pointer)
  bool barrier = false;         ///< waits for other threads (block, warp, tile or grid)
  bool warp = false;            ///< a collective: warp intrinsic, tile or group collective, wmma, pipeline (isCollectiveCall)
  bool atomic = false;
  bool pure = false;            ///< pure math: result depends only on the arguments
  bool cooperativeGroups = false;
  bool deviceRuntime = false;   ///< cudaLaunchDevice, cudaStreamCreateWithFlags, ...
  bool deviceSynchronize = false; ///< cudaDeviceSynchronize
  bool threadVarying = false;   ///< differs per thread with equal arguments
};

/// The callee name of a call, also for unresolved (template) callees.
std::string calleeName(const clang::CallExpr *call);

/// Classifies a call. Cooperative groups are recognised by type: a call of a
/// function declared in `cooperative_groups`, or a member call on an object
/// whose class is declared there (`cg::this_thread_block().sync()`,
/// `grid.sync()`, `tile.shfl_down(v, 1)`), never by the member's name alone.
CallMeaning classifyCall(const clang::CallExpr *call);

// ---- what callees do ---------------------------------------------------------

/// A use of the thread's identity inside a function that a statement calls,
/// directly or through other calls: a rewrite that moves the statement to
/// another thread, or reshapes the block, renames the built-ins it can see,
/// never those in a callee's body.
struct CalleeUse {
  /// The callee whose body has the use; null for a call that names no
  /// callee (a function pointer, a virtual member, a dependent call).
  const clang::FunctionDecl *function = nullptr;
  std::string what;                              ///< "threadIdx", a collective's name, "__shared__ 'x'", or "" (no body)
  const clang::Expr *via = nullptr;              ///< the call (or construction) in the statement that leads there
  const clang::Stmt *at = nullptr;               ///< the use itself (null for a callee without a body)
  std::string callee; ///< the callee's name, or for a call that names none, the pointer's or member's
};
/// True when `call` is a virtual member call whose overrider depends on the
/// object's dynamic class (not qualified, class and method not final).
bool dispatchesVirtually(const clang::CallExpr *call);
/// "'f', whose body Nestor cannot see", or for a call that names no callee
/// "through 'op', and Nestor cannot see which function runs there": the
/// object of "calls" in a refusal of a use without a body (`what` empty).
std::string unseenCall(const CalleeUse &use);
/// What to look for in the callees (calleeUse).
struct CalleeUseQuery {
  /// Built-ins that count (`threadIdx`, `blockDim`, ...; warpSize never does).
  std::function<bool(llvm::StringRef)> builtin;
  bool collectives = false;   ///< barriers and warp collectives (classifyCall's barrier and warp)
  bool unknownBodies = false; ///< a user function declared but not defined here, or a call that names no callee
  bool shared = false;        ///< a `__shared__` variable, declared or referenced (what: "__shared__ 'name'")
};
/// The first callee reachable from `s` (calls, member calls, operators and
/// constructors; not launches, whose kernels have built-ins of their own)
/// that does what `query` asks, in any file, headers included. Calls
/// classifyCall knows (math, atomics, collectives, the device runtime) are
/// not looked into.
std::optional<CalleeUse> calleeUse(const clang::Stmt *s, const CalleeUseQuery &query);
/// The same for `fd` itself: its own body counts, then its callees (`via`
/// is null where the use is in fd's own body).
std::optional<CalleeUse> functionUse(const clang::FunctionDecl *fd, const CalleeUseQuery &query);

} // namespace nestor::cuda
