// The CUDA vocabulary (CudaSemantics.h) name by name, and the statement
// effects (StatementEffects.h) the model builder and the rewrites share,
// including cooperative groups recognised by type rather than by name.
#include "nestor/Analysis.h"
#include "nestor/CudaSemantics.h"
#include "nestor/StatementEffects.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace nestor;

namespace {

struct NameRow {
  const char *name;
  bool barrier, warp, atomic, pure, threadId, deviceRuntime, threadVarying;
};

// Every name the model builder or a rewrite has ever decided on, and the
// near-misses that must not match (user functions named like intrinsics).
const NameRow kNames[] = {
    //  name                      barrier warp  atomic pure  tid   devrt varying
    {"__syncthreads",             true,  false, false, false, false, false, false},
    {"__syncthreads_count",       true,  false, false, false, false, false, false},
    {"__syncthreads_and",         true,  false, false, false, false, false, false},
    {"__syncthreads_or",          true,  false, false, false, false, false, false},
    {"__barrier_sync",            true,  false, false, false, false, false, false},
    {"__syncwarp",                true,  true,  false, false, false, false, true},
    {"sync",                      false, false, false, false, false, false, false}, // a user function
    {"syncthreads",               false, false, false, false, false, false, false},
    {"__shfl_sync",               false, true,  false, false, false, false, true},
    {"__shfl_down_sync",          false, true,  false, false, false, false, true},
    {"__shfl_up_sync",            false, true,  false, false, false, false, true},
    {"__shfl_xor_sync",           false, true,  false, false, false, false, true},
    {"__shfl",                    false, true,  false, false, false, false, true},
    {"__ballot_sync",             false, true,  false, false, false, false, true},
    {"__ballot",                  false, true,  false, false, false, false, true},
    {"__any_sync",                false, true,  false, false, false, false, true},
    {"__all_sync",                false, true,  false, false, false, false, true},
    {"__uni_sync",                false, true,  false, false, false, false, true},
    {"__any",                     false, true,  false, false, false, false, true},
    {"__all",                     false, true,  false, false, false, false, true},
    {"__uni",                     false, false, false, false, false, false, false}, // not an intrinsic
    {"__anything",                false, false, false, false, false, false, false},
    {"__allocate",                false, false, false, false, false, false, false},
    {"__activemask",              false, true,  false, false, false, false, true},
    {"__match_any_sync",          false, true,  false, false, false, false, true},
    {"__match_all_sync",          false, true,  false, false, false, false, true},
    {"__reduce_add_sync",         false, true,  false, false, false, false, true},
    {"__reduce_max_sync",         false, true,  false, false, false, false, true},
    {"atomicAdd",                 false, false, true,  false, false, false, true},
    {"atomicCAS_block",           false, false, true,  false, false, false, true},
    {"atomicMax_system",          false, false, true,  false, false, false, true},
    {"__atomic_fetch_add",        false, false, true,  false, false, false, true},
    {"sqrtf",                     false, false, false, true,  false, false, false},
    {"__fdividef",                false, false, false, true,  false, false, false},
    {"fmaxf",                     false, false, false, true,  false, false, false},
    {"__popc",                    false, false, false, true,  false, false, false},
    {"make_float4",               false, false, false, true,  false, false, false},
    {"printf",                    false, false, false, false, false, false, false},
    {"malloc",                    false, false, false, false, false, false, false},
    {"threadIdx",                 false, false, false, false, true,  false, false},
    {"blockIdx",                  false, false, false, false, true,  false, false},
    {"blockDim",                  false, false, false, false, true,  false, false},
    {"gridDim",                   false, false, false, false, true,  false, false},
    {"warpSize",                  false, false, false, false, true,  false, false},
    {"laneId",                    false, false, false, false, false, false, false},
    {"cudaDeviceSynchronize",     false, false, false, false, false, true,  false},
    {"cudaLaunchDevice",          false, false, false, false, false, true,  false},
    {"cudaGetParameterBuffer",    false, false, false, false, false, true,  false},
    {"cudaStreamCreateWithFlags", false, false, false, false, false, true,  false},
    {"cudaMalloc",                false, false, false, false, false, true,  false},
    {"cudaGetLastError",          false, false, false, false, false, true,  false},
    {"cudaMemcpy",                false, false, false, false, false, false, false}, // host only
    {"clock64",                   false, false, false, false, false, false, true},
    {"__lane_id",                 false, false, false, false, false, false, true},
    {"curand_uniform",            false, false, false, false, false, false, true},
    {"thread_rank",               false, false, false, false, false, false, true},
    {"slave_id",                  false, false, false, false, false, false, true}, // Nestor runtime
};

TEST(CudaSemantics, EveryNameIsClassifiedOnce) {
  for (const NameRow &r : kNames) {
    SCOPED_TRACE(r.name);
    EXPECT_EQ(cuda::isBarrierName(r.name), r.barrier);
    EXPECT_EQ(cuda::isWarpIntrinsicName(r.name), r.warp);
    EXPECT_EQ(cuda::isAtomicName(r.name), r.atomic);
    EXPECT_EQ(cuda::isPureMathName(r.name), r.pure);
    EXPECT_EQ(cuda::isThreadIdBuiltinName(r.name), r.threadId);
    EXPECT_EQ(cuda::isDeviceRuntimeName(r.name), r.deviceRuntime);
    EXPECT_EQ(cuda::isThreadVaryingCallName(r.name), r.threadVarying);
  }
}

struct TempFile {
  llvm::SmallString<128> dir, path;
  explicit TempFile(const std::string &contents) {
    llvm::sys::fs::createUniqueDirectory("nestor-semantics", dir);
    path = dir;
    llvm::sys::path::append(path, "k.cu");
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    os << contents;
  }
  ~TempFile() { llvm::sys::fs::remove_directories(dir); }
};

// Cooperative groups, a user function named `sync` and one named like an
// intrinsic, each in its own statement of one kernel.
const char *kKernel = R"(#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__device__ void sync() {}
__device__ int __uni(int x) { return x; }
__global__ void k(float *a, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  block.sync();
  cg::this_thread_block().sync();
  a[0] = tile.shfl_down(a[1], 1);
  sync();
  a[2] = __uni(3);
  __syncthreads();
  a[3] = __uni_sync(0xffffffff, a[4] > 0);
  atomicAdd(a, 1.0f);
  a[5] = sqrtf(a[6]);
  for (int i = 0; i < n; ++i) { if (a[i] > 0) break; a[i] += 1; }
}
)";

class KernelStatements : public ::testing::Test {
protected:
  void SetUp() override {
    file_ = std::make_unique<TempFile>(kKernel);
    auto tu = analyzeFile(std::string(file_->path), AnalysisOptions{});
    ASSERT_TRUE(bool(tu)) << llvm::toString(tu.takeError());
    tu_ = std::move(*tu);
    const clang::FunctionDecl *fd = tu_->functionDecl("k");
    ASSERT_NE(fd, nullptr);
    for (const clang::Stmt *s : llvm::cast<clang::CompoundStmt>(fd->getBody())->body()) stmts_.push_back(s);
    ASSERT_EQ(stmts_.size(), 12u);
  }
  StatementEffects effects(size_t i) const { return effectsOf(stmts_[i], tu_->astContext()); }

  std::unique_ptr<TempFile> file_;
  std::unique_ptr<AnalyzedTU> tu_;
  std::vector<const clang::Stmt *> stmts_;
};

TEST_F(KernelStatements, CooperativeGroupsSyncIsABarrierByType) {
  for (size_t i : {2u, 3u}) {
    StatementEffects fx = effects(i);
    EXPECT_TRUE(fx.barrier) << "statement " << i;
    ASSERT_EQ(fx.barriers.size(), 1u);
    EXPECT_EQ(fx.barriers[0].name, "sync");
    EXPECT_FALSE(fx.cooperativeGroups.empty());
  }
}

TEST_F(KernelStatements, TileShuffleIsAWarpCollective) {
  StatementEffects fx = effects(4);
  EXPECT_TRUE(fx.warp);
  EXPECT_FALSE(fx.barrier);
  ASSERT_EQ(fx.warpOps.size(), 1u);
  EXPECT_EQ(fx.warpOps[0].name, "shfl_down");
}

TEST_F(KernelStatements, UserFunctionsNamedLikeIntrinsicsAreOrdinaryCalls) {
  // Ordinary user functions, and effect-free ones: their bodies do nothing
  // but return, so calling them is as pure as the expression they return.
  for (size_t i : {5u, 6u}) {
    StatementEffects fx = effects(i);
    EXPECT_FALSE(fx.barrier) << "statement " << i;
    EXPECT_FALSE(fx.warp) << "statement " << i;
    EXPECT_FALSE(fx.impureCall) << "statement " << i;
    EXPECT_TRUE(fx.userCalls.empty()) << "statement " << i;
    EXPECT_EQ(fx.calls.size(), 1u) << "statement " << i;
  }
}

// Which user __device__ functions count as pure when called (StatementEffects:
// the body is looked into, three calls deep).
const char *kHelpers = R"(__device__ unsigned value(unsigned u) { return (u * 2654435761u) % 1000u + 1u; }
__device__ float load(const float *p, int i) { return p[i] * 2.0f; }
__device__ float twice_load(const float *p, int i) { return load(p, i) + value(i); }
__device__ int lane() { return threadIdx.x % 32; }
__device__ void store(float *p, int i) { p[i] = 0; }
__device__ void bump(int &x) { x += 1; }
__device__ float add(const float &x) { return x + 1; }
__device__ int counter(int *c) { return atomicAdd(c, 1); }
__device__ int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
__device__ int d3(int x) { return x; }
__device__ int d2(int x) { return d3(x); }
__device__ int d1(int x) { return d2(x); }
__device__ int d0(int x) { return d1(x); }
__global__ void k(float *a, int *c, int n) {
  int x = 0;
  a[0] = value(n);
  a[1] = twice_load(a, n);
  a[2] = lane();
  store(a, n);
  bump(x);
  a[3] = add(a[4]);
  a[5] = counter(c);
  a[6] = fact(n);
  a[7] = d1(n);
  a[8] = d0(n);
}
)";

TEST(UserFunctionPurity, BodiesAreLookedInto) {
  TempFile file(kHelpers);
  auto tu = analyzeFile(std::string(file.path), AnalysisOptions{});
  ASSERT_TRUE(bool(tu)) << llvm::toString(tu.takeError());
  const clang::FunctionDecl *fd = (*tu)->functionDecl("k");
  ASSERT_NE(fd, nullptr);
  std::vector<const clang::Stmt *> st(llvm::cast<clang::CompoundStmt>(fd->getBody())->body_begin(),
                                      llvm::cast<clang::CompoundStmt>(fd->getBody())->body_end());
  ASSERT_EQ(st.size(), 11u);
  // The call's own effects, without the store of its result into a[].
  auto callOf = [&](size_t i) -> const clang::Stmt * {
    if (auto *bo = llvm::dyn_cast<clang::BinaryOperator>(st[i])) return bo->getRHS();
    return st[i];
  };
  auto fx = [&](size_t i) { return effectsOf(callOf(i), (*tu)->astContext()); };
  EXPECT_FALSE(fx(1).impureCall) << "arithmetic on the argument";
  EXPECT_FALSE(fx(1).memRead);
  EXPECT_FALSE(fx(2).impureCall) << "reads through a pointer, calls pure helpers";
  EXPECT_TRUE(fx(2).memRead) << "the helper's loads count as the caller's";
  EXPECT_FALSE(fx(3).impureCall);
  EXPECT_EQ(fx(3).threadIds.count("threadIdx"), 1u) << "a helper's thread ids are the caller's";
  EXPECT_TRUE(fx(4).impureCall) << "stores through a pointer";
  EXPECT_EQ(fx(4).userCalls.size(), 1u);
  EXPECT_TRUE(fx(5).impureCall) << "writes through a non-const reference";
  EXPECT_FALSE(fx(6).impureCall) << "a const reference cannot be written";
  EXPECT_TRUE(fx(7).impureCall) << "an atomic";
  EXPECT_TRUE(fx(8).impureCall) << "recursion";
  EXPECT_FALSE(fx(9).impureCall) << "three calls deep";
  EXPECT_TRUE(fx(10).impureCall) << "four calls deep: not looked into";
}

TEST_F(KernelStatements, IntrinsicsAtomicsAndPureMath) {
  EXPECT_TRUE(effects(7).barrier);
  EXPECT_EQ(effects(7).barriers.at(0).name, "__syncthreads");
  EXPECT_TRUE(effects(8).warp);
  StatementEffects atomic = effects(9);
  ASSERT_EQ(atomic.atomics.size(), 1u);
  EXPECT_TRUE(atomic.impureCall);
  StatementEffects pure = effects(10);
  EXPECT_FALSE(pure.impureCall);
  EXPECT_TRUE(pure.memRead);
  EXPECT_TRUE(pure.memWrite);
}

TEST_F(KernelStatements, BreakBoundInsideTheStatementIsNotAJump) {
  StatementEffects loop = effects(11);
  EXPECT_FALSE(loop.jump);
  EXPECT_TRUE(loop.breaks.empty());
  const auto *fs = llvm::cast<clang::ForStmt>(stmts_[11]);
  StatementEffects body = effectsOf(fs->getBody(), tu_->astContext());
  EXPECT_TRUE(body.jump);
  EXPECT_EQ(body.breaks.size(), 1u);
}

TEST_F(KernelStatements, ModelAndEffectsAgreeOnTheKernel) {
  // The kernel's model lists exactly the named barriers and intrinsics the
  // effects found; cooperative groups on their own.
  const Kernel *k = tu_->model().findKernel("k");
  ASSERT_NE(k, nullptr);
  std::vector<std::string> barriers, warp;
  for (const ConstructUse &u : k->barriers) barriers.push_back(u.name);
  for (const ConstructUse &u : k->warpIntrinsics) warp.push_back(u.name);
  EXPECT_EQ(barriers, std::vector<std::string>{"__syncthreads"});
  EXPECT_EQ(warp, std::vector<std::string>{"__uni_sync"});
  EXPECT_FALSE(k->cooperativeGroups.empty());
  EXPECT_EQ(k->atomics.size(), 1u);
}

TEST(ReductionUpdate, OperandsAndSubtraction) {
  TempFile f(R"(__global__ void r(float *a, int n) {
  float s = 0, m = 0, d = 0, bad = 0;
  s += a[0];
  m = fmaxf(m, a[1]);
  d -= a[2];
  bad = a[3] - bad;
  s = s + s * a[4];
}
)");
  auto tu = analyzeFile(std::string(f.path), AnalysisOptions{});
  ASSERT_TRUE(bool(tu)) << llvm::toString(tu.takeError());
  std::vector<const clang::Stmt *> st;
  for (const clang::Stmt *s : llvm::cast<clang::CompoundStmt>((*tu)->functionDecl("r")->getBody())->body()) st.push_back(s);
  ASSERT_EQ(st.size(), 6u);
  auto s = reductionUpdate(st[1]);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->op, ReductionOp::Add);
  EXPECT_FALSE(s->negated);
  auto m = reductionUpdate(st[2]);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->op, ReductionOp::Max);
  auto d = reductionUpdate(st[3]);
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->negated);
  EXPECT_FALSE(reductionUpdate(st[4])); // x - acc is not a fold of acc
  EXPECT_FALSE(reductionUpdate(st[5])); // the operand mentions the accumulator
}

} // namespace

// What the functions a statement calls do with the thread's identity
// (cuda::calleeUse): at any depth, through constructors, in any file; the
// statement's own built-ins are the caller's to judge; launches are not calls.
const char *kCallees = R"(
__device__ int gid() { return blockIdx.x * blockDim.x + threadIdx.x; }
__device__ int via_gid() { return gid() + 1; }
__device__ float warp_sum(float v) { return v + __shfl_down_sync(0xffffffffu, v, 1); }
__device__ int external_row(int);
__device__ float pure_sq(float x) { return x * x; }
__device__ void write_lane(int *p) { p[threadIdx.x & 31] = 1; }
__device__ int shared_peek() { __shared__ int slot; return slot; }
struct Lane { int id; __device__ Lane() : id(threadIdx.x) {} };
__global__ void child(int *p) { p[threadIdx.x] = 0; }
__global__ void k(int *p, float *f) {
  p[0] = via_gid();
  f[0] = warp_sum(f[1]);
  p[1] = external_row(2);
  f[2] = pure_sq(f[3]) + threadIdx.x;
  write_lane(p);
  p[2] = shared_peek();
  Lane lane;
  child<<<1, 32>>>(p);
}
)";

TEST(CalleeUse, FindsWhatCalleesDo) {
  TempFile file(kCallees);
  auto tu = analyzeFile(std::string(file.path), AnalysisOptions{});
  ASSERT_TRUE(bool(tu)) << llvm::toString(tu.takeError());
  const clang::FunctionDecl *fd = (*tu)->functionDecl("k");
  ASSERT_NE(fd, nullptr);
  std::vector<const clang::Stmt *> s(llvm::cast<clang::CompoundStmt>(fd->getBody())->body_begin(),
                                     llvm::cast<clang::CompoundStmt>(fd->getBody())->body_end());
  ASSERT_EQ(s.size(), 8u);
  cuda::CalleeUseQuery ids;
  ids.builtin = [](llvm::StringRef n) { return n == "threadIdx" || n == "blockDim"; };
  // Two calls deep: the use is in gid, reached through via_gid's call.
  auto use = cuda::calleeUse(s[0], ids);
  ASSERT_TRUE(use);
  EXPECT_EQ(use->function->getName(), "gid");
  EXPECT_EQ(use->what, "blockDim");
  // Collectives only when asked.
  EXPECT_FALSE(cuda::calleeUse(s[1], ids));
  cuda::CalleeUseQuery all = ids;
  all.collectives = true;
  all.unknownBodies = true;
  all.shared = true;
  use = cuda::calleeUse(s[1], all);
  ASSERT_TRUE(use);
  EXPECT_EQ(use->what, "__shfl_down_sync");
  // A body that is not here: unknown, only when asked.
  EXPECT_FALSE(cuda::calleeUse(s[2], ids));
  use = cuda::calleeUse(s[2], all);
  ASSERT_TRUE(use);
  EXPECT_EQ(use->function->getName(), "external_row");
  EXPECT_TRUE(use->what.empty());
  // The statement's own threadIdx is not a callee's; pure_sq reads nothing.
  EXPECT_FALSE(cuda::calleeUse(s[3], all));
  // A helper that writes memory counts as much as a pure one.
  use = cuda::calleeUse(s[4], ids);
  ASSERT_TRUE(use);
  EXPECT_EQ(use->function->getName(), "write_lane");
  // __shared__ in a callee, when asked.
  EXPECT_FALSE(cuda::calleeUse(s[5], ids));
  use = cuda::calleeUse(s[5], all);
  ASSERT_TRUE(use);
  EXPECT_EQ(use->what, "__shared__ 'slot'");
  // A constructor is a call.
  use = cuda::calleeUse(s[6], ids);
  ASSERT_TRUE(use);
  EXPECT_EQ(use->what, "threadIdx");
  // A launch's kernel has built-ins of its own.
  EXPECT_FALSE(cuda::calleeUse(s[7], all));
}

const char *kIndirectCallees = R"(
typedef int (*RowFn)(int);
struct Base { __device__ virtual int row(int n) const { return n; } };
struct Leaf final : Base { __device__ int row(int n) const override { return n + 1; } };
struct Lane : Base { __device__ int row(int n) const override { return threadIdx.x; } };
__device__ int lane_of(int n) { return threadIdx.x % n; }
__device__ int lane_of(float x) { return (int)x; }
__global__ void k(RowFn f, const Base *b, const Leaf *leaf, int *p) {
  p[0] = f(3);
  p[1] = b->row(3);
  p[2] = leaf->row(3);
  p[3] = b->Base::row(3);
}
template <class T> __global__ void t(T x, int *p) {
  p[0] = lane_of(x);
  p[1] = x.row(1);
}
)";

TEST(CalleeUse, CallsThatNameNoBody) {
  TempFile file(kIndirectCallees);
  auto tu = analyzeFile(std::string(file.path), AnalysisOptions{});
  ASSERT_TRUE(bool(tu)) << llvm::toString(tu.takeError());
  auto statements = [&](const char *name) {
    const clang::FunctionDecl *fd = (*tu)->functionDecl(name);
    EXPECT_NE(fd, nullptr) << name;
    auto *body = fd ? llvm::cast<clang::CompoundStmt>(fd->getBody()) : nullptr;
    return body ? std::vector<const clang::Stmt *>(body->body_begin(), body->body_end())
                : std::vector<const clang::Stmt *>{};
  };
  std::vector<const clang::Stmt *> s = statements("k");
  ASSERT_EQ(s.size(), 4u);
  cuda::CalleeUseQuery ids;
  ids.builtin = [](llvm::StringRef n) { return n == "threadIdx"; };
  cuda::CalleeUseQuery unseen = ids;
  unseen.unknownBodies = true;
  // A function pointer may point at any function: unknown, named by the pointer.
  EXPECT_FALSE(cuda::calleeUse(s[0], ids));
  auto use = cuda::calleeUse(s[0], unseen);
  ASSERT_TRUE(use);
  EXPECT_EQ(use->function, nullptr);
  EXPECT_EQ(use->callee, "f");
  EXPECT_EQ(cuda::unseenCall(*use), "through 'f', and Nestor cannot see which function runs there");
  // A virtual call may run Lane::row, which reads threadIdx.
  use = cuda::calleeUse(s[1], unseen);
  ASSERT_TRUE(use);
  EXPECT_EQ(use->callee, "row");
  EXPECT_TRUE(use->what.empty());
  // On a final class and qualified, the call names its body.
  EXPECT_FALSE(cuda::calleeUse(s[2], unseen));
  EXPECT_FALSE(cuda::calleeUse(s[3], unseen));
  // In a template pattern: every overload the lookup found is looked into
  // (lane_of(int) reads threadIdx), and a member of a dependent type is unknown.
  std::vector<const clang::Stmt *> t = statements("t");
  ASSERT_EQ(t.size(), 2u);
  use = cuda::calleeUse(t[0], ids);
  ASSERT_TRUE(use);
  EXPECT_EQ(use->callee, "lane_of");
  EXPECT_EQ(use->what, "threadIdx");
  EXPECT_FALSE(cuda::calleeUse(t[1], ids));
  ASSERT_TRUE(cuda::calleeUse(t[1], unseen));
}
