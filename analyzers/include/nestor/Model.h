// The Nestor model: what the analysis learned about one translation unit.
//
// This header is the stable API that rules, rewriters, the LSP server and the
// `nestor analyze --json` output read. It is plain data on purpose (no Clang
// types), so consumers can copy, serialise and compare it; the AST nodes behind
// each entry are reachable through nestor::AnalyzedTU (Analysis.h) for the
// rewriters, which need them to produce edits without parsing again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nestor {

/// A position in a file: 1-based line and column (columns count bytes, as
/// clang does) and the 0-based byte offset into the file.
struct SourcePos {
  unsigned line = 0;
  unsigned column = 0;
  unsigned offset = 0;
  bool valid() const { return line != 0; }
};

/// A half-open byte range [begin, end) in one file.
struct SourceSpan {
  std::string file;
  SourcePos begin;
  SourcePos end;
  bool valid() const { return begin.valid(); }
};

/// Operators of the CUDA-NP `reduction(op:list)` and `scan(op:list)` clauses
/// (cuda-np.md §3.6).
enum class ReductionOp { Add, Mul, Max, Min, BitAnd, BitOr, BitXor, LogicalAnd, LogicalOr };
const char *spelling(ReductionOp op);                 // "+", "*", "max", ...
std::optional<ReductionOp> parseReductionOp(const std::string &text);

enum class NpType { Unspecified, Inter, Intra };

/// One `op:list` group of a reduction or scan clause.
struct VarOpClause {
  ReductionOp op = ReductionOp::Add;
  std::vector<std::string> vars;
  SourceSpan span;
};

struct PragmaError {
  std::string message;
  SourceSpan span; ///< the exact range of the offending token
};

/// A parsed `#pragma np ...` directive.
struct NpPragma {
  SourceSpan span;         ///< the whole directive line
  std::string text;        ///< text after `#pragma`, e.g. "np parallel for reduction(+:s)"
  bool isParallelFor = false;
  std::vector<VarOpClause> reductions;
  std::vector<VarOpClause> scans;
  std::vector<std::string> copyin;
  std::optional<unsigned> numThreads; ///< slave threads per master (num_threads)
  NpType npType = NpType::Unspecified;
  std::optional<unsigned> smVersion;
  std::vector<PragmaError> errors;
  int loopId = -1; ///< the loop it is attached to, -1 when misplaced
  bool valid() const { return errors.empty(); }
  /// Canonical spelling, e.g. "#pragma np parallel for reduction(+:sum)".
  std::string canonical() const;
};

/// How the trip count of a loop varies (issue: constant / uniform / irregular).
enum class TripCountClass {
  Constant,  ///< a compile-time constant
  Uniform,   ///< the same for all threads of a block (parameters, blockIdx, ...)
  Irregular, ///< differs per thread (thread ids, data indexed by thread ids)
  Unknown,   ///< no canonical induction variable
};
const char *spelling(TripCountClass c);

/// How a value varies across the threads of a block.
enum class Variance { Constant, Uniform, ThreadVarying };

struct ArrayAccess {
  std::string array;        ///< base expression text, e.g. "a" or "g->rows"
  std::string index;        ///< index expression text
  bool isWrite = false;
  bool dependsOnThread = false;    ///< index or base (a per-thread pointer) varies with thread ids
  bool dependsOnInduction = false; ///< index uses the loop's induction variable
  bool indirect = false;           ///< index contains a memory load (gather/scatter)
  /// Consecutive threads touch consecutive elements (threadIdx.x appears with
  /// unit stride): the access coalesces across a warp.
  bool threadContiguous = false;
  /// Consecutive iterations touch consecutive elements (the induction
  /// variable is a unit-stride term of the innermost index, no gather): the
  /// access coalesces when the loop's iterations go to consecutive lanes.
  bool inductionContiguous = false;
  /// Elements between the addresses of consecutive iterations when the
  /// innermost index has the induction variable times a constant as a term
  /// (`c[2 * k + 1]`: 2; unit stride: 1, inductionContiguous); 0 otherwise.
  unsigned inductionStride = 0;
  /// The earlier read of the loop's accesses (its position there) that
  /// fetches the same elements a few iterations apart or in the same sectors
  /// (a stencil: `p[t * n + i]` and `p[(t - 1) * n + i]`, `x[k]` and
  /// `x[k + 1]`): the cost model charges DRAM for them once. -1: none.
  int sameDataAs = -1;
  /// Bytes of the element read or written (`sizeof` the subscript's type:
  /// 1 for a `char` row, 8 for a `double`); 0 when the type is incomplete or
  /// dependent and its size unknown. The cost model counts bytes with it.
  unsigned elementBytes = 0;
  std::string memorySpace;         ///< "global", "shared", "local", "constant" or "unknown"
  SourceSpan span;
};

struct Reduction {
  ReductionOp op = ReductionOp::Add;
  std::string var;
  SourceSpan span; ///< the update statement
};

struct LoopCarriedDependence {
  std::string var;
  std::string reason;
  SourceSpan span;
};

/// A use of a notable construct inside a kernel (barrier, intrinsic, ...).
struct ConstructUse {
  std::string name; ///< e.g. "__syncthreads", "__shfl_down_sync", "atomicAdd"
  SourceSpan span;
};

struct LoopSite {
  int id = -1;
  SourceSpan span;        ///< the whole loop statement
  SourceSpan headerSpan;  ///< `for (...)` up to the closing parenthesis
  SourceSpan bodySpan;
  std::string function;   ///< enclosing function
  bool inKernel = false;  ///< enclosing function is __global__
  bool inDeviceCode = false; ///< __global__ or __device__
  std::string kind;       ///< "for", "while", "do"
  std::string inductionVar;  ///< empty when not canonical
  std::string inductionType;
  std::string init, condition, step; ///< source texts
  std::string lowerBound, upperBound; ///< texts, when canonical
  std::string stepAmount;             ///< e.g. "1"
  /// The same three with macros expanded (clang's printing of the parsed
  /// expression: `len - MOTIF_LEN` is `len - 4`), what mapping.sizes
  /// evaluates; the texts above are what a person reads.
  std::string lowerBoundExpanded, upperBoundExpanded, stepAmountExpanded;
  bool upperInclusive = false;        ///< `<=`
  TripCountClass tripCount = TripCountClass::Unknown;
  std::optional<int64_t> constantTripCount;
  unsigned depth = 0;     ///< 0 for an outermost loop of its function
  int parentLoop = -1;
  std::vector<ArrayAccess> accesses;
  std::vector<Reduction> reductions;
  std::vector<Reduction> scans;
  std::vector<LoopCarriedDependence> carriedDependences;
  /// Scalars declared outside the loop that every iteration writes before it
  /// reads them: private to an iteration; their last value is live-out
  /// (cuda-np.md §3.2).
  std::vector<std::string> privatized;
  /// `for (i = tid; i < n; i += blockDim.x * gridDim.x)`: the thread's share of
  /// a flat loop, not nested parallelism.
  bool gridStride = false;
  /// Under `#pragma unroll`: with a small constant trip count, register
  /// blocking the author chose, not parallelism left unused.
  bool unrollHint = false;
  std::vector<std::string> liveIns;      ///< scalars defined before, used inside
  std::vector<std::string> localArrays;  ///< thread-local arrays used inside
  std::vector<SourceSpan> barriers;
  std::vector<SourceSpan> atomics;
  std::vector<SourceSpan> breaks;    ///< break out of this loop
  std::vector<SourceSpan> returns;
  std::vector<SourceSpan> gotos;
  std::vector<std::string> calls;
  bool hasWarpIntrinsics = false;
  bool hasDeviceLaunch = false;
  /// Operations whose result depends on which threads run them together:
  /// warp builtins, `__syncwarp`, `nvcuda::wmma`, cooperative-groups
  /// collectives (by type), `cuda::pipeline` / `memcpy_async` /
  /// `__pipeline_*`, named barriers, inline assembly. A loop holding one is
  /// never given to other threads.
  std::vector<ConstructUse> collectives;
  /// Code in the header or body that clang could not parse (an undeclared
  /// name or type, a call that matches no declaration): nothing is known of
  /// what it reads, writes or synchronises.
  std::vector<SourceSpan> unparsed;
  int pragma = -1; ///< index into FileModel::pragmas, -1 without one

  /// Independent iterations apart from recognised reductions and scans:
  /// proven, not assumed (LoopDependence.h). False whenever
  /// concurrencyRefusal() has a reason.
  bool iterationsIndependent() const { return !concurrencyRefusal(); }

  /// Why the iterations of this loop may not run concurrently on other
  /// threads, with the construct's place; nullopt when they may (reductions
  /// and scans aside). Every rewrite that changes which thread runs an
  /// iteration, and every finding that claims independence, asks here.
  std::optional<LoopCarriedDependence> concurrencyRefusal() const {
    if (auto c = collectiveRefusal()) return c;
    if (inductionVar.empty())
      return LoopCarriedDependence{"", "the loop is not a canonical counted loop (init; i < bound; i += step)", headerSpan};
    if (!carriedDependences.empty())
      return LoopCarriedDependence{carriedDependences.front().var,
                                   "loop-carried dependence: " + carriedDependences.front().reason,
                                   carriedDependences.front().span};
    if (!breaks.empty()) return LoopCarriedDependence{"", "the loop body contains 'break'", breaks.front()};
    if (!returns.empty()) return LoopCarriedDependence{"", "the loop body contains 'return'", returns.front()};
    if (!gotos.empty()) return LoopCarriedDependence{"", "the loop body contains 'goto'", gotos.front()};
    return std::nullopt;
  }

  /// The collective operations and barriers of the body, and code clang
  /// could not parse: what no `#pragma np` can vouch for either.
  std::optional<LoopCarriedDependence> collectiveRefusal() const {
    // Not a collective, but no pragma vouches for code that did not parse
    // either: the rewrite would move what nobody has read.
    if (!unparsed.empty()) {
      const SourceSpan &at = unparsed.front();
      const bool inLoop = at.file == span.file && span.begin.offset <= at.begin.offset && at.begin.offset <= span.end.offset;
      return LoopCarriedDependence{"",
                                   inLoop ? "the loop has code clang could not parse, so what it reads, writes or "
                                            "synchronises is unknown (fix the parse error first)"
                                          : "the kernel has code clang could not parse outside the loop (in its body "
                                            "or a function it calls), so what it does with the thread's identity is "
                                            "unknown (fix the parse error first)",
                                   at};
    }
    if (!collectives.empty())
      return LoopCarriedDependence{collectives.front().name,
                                   "the loop body uses '" + collectives.front().name +
                                       "', a collective operation whose result depends on which threads run it",
                                   collectives.front().span};
    if (!barriers.empty()) return LoopCarriedDependence{"", "the loop body contains a barrier", barriers.front()};
    if (hasWarpIntrinsics) return LoopCarriedDependence{"", "the loop body uses warp-level intrinsics", bodySpan};
    return std::nullopt;
  }
};

struct SharedDecl {
  std::string name;
  std::string type;
  uint64_t sizeBytes = 0; ///< 0 for `extern __shared__` (dynamic)
  bool isExtern = false;
  SourceSpan span;
};

struct LocalArray {
  std::string name;
  std::string elementType;
  uint64_t elements = 0;
  uint64_t sizeBytes = 0;
  SourceSpan span;
};

struct Parameter {
  std::string name;
  std::string type;
};

/// The recursion of a kernel that launches itself (RecursionAnalysis.cpp,
/// irregular-loop-and-recursion-templates.md II-C): what it recurses over,
/// where, under which condition, and its post-order combination. `supported`
/// is whether it has the shape the rec-hier and rec-flat rewrites take: one
/// thread per child of `node` in a CSR pair, recursing on the child.
struct RecursionShape {
  bool supported = false;
  std::string reason;    ///< why not, naming the construct and its line
  SourceSpan reasonSpan;
  int selfLaunch = -1;   ///< LaunchSite id of the launch of itself
  std::string nodeParam; ///< the parameter the self-launch passes the child in
  std::string offsets, children; ///< children of n: children[offsets[n] .. offsets[n + 1])
  std::string slotVar, childVar;
  std::string mapping;   ///< how threads map to children, in words
  std::string condition; ///< when a child recurses ("" = always)
  std::vector<std::string> varyingParams; ///< other parameters the self-launch changes: "p = expr"
  std::string depthParam;  ///< a parameter the self-launch passes + 1 (recursion depth), "" if none
  std::string depthBound;  ///< the condition that bounds it, when visible
  int postOrderLaunch = -1;     ///< tail launch that combines children after their subtrees
  std::string postOrderKernel;
  std::vector<int> hostLaunches; ///< LaunchSite ids of its launches from the host
};

struct ExternalLaunch;

struct Kernel {
  std::string name;
  SourceSpan span;
  SourceSpan nameSpan;
  SourceSpan bodySpan;
  bool isGlobal = true; ///< false for __device__ functions that are modelled too
  std::vector<Parameter> params;
  std::optional<std::string> launchBoundsMaxThreads; ///< __launch_bounds__ args (texts)
  std::optional<std::string> launchBoundsMinBlocks;
  std::optional<uint64_t> launchBoundsMaxThreadsValue;
  std::vector<SharedDecl> shared;
  std::vector<LocalArray> localArrays;
  std::vector<ConstructUse> barriers;
  std::vector<ConstructUse> warpIntrinsics;
  std::vector<ConstructUse> cooperativeGroups;
  std::vector<ConstructUse> atomics;
  std::vector<ConstructUse> deviceSyncs; ///< device-side cudaDeviceSynchronize
  /// Parse errors inside the kernel: code whose barriers, warp operations
  /// and memory effects nobody has read.
  std::vector<SourceSpan> unparsed;
  bool usesThreadIdx = false;
  bool usesBlockDim = false;
  bool isRecursive = false; ///< launches or calls itself (directly or through callees)
  /// A condition in the kernel's own body reads memory at an address that was
  /// read from memory (`w = adj[k]; if (depth[w] == INF)`, or an atomic on
  /// `&dist[w]` whose result is compared): a thread that runs several of
  /// these kernels' threads in turn waits for both loads at every step.
  bool branchesOnGather = false;
  std::optional<RecursionShape> recursion; ///< for recursive kernels
  std::vector<int> launchedBy; ///< LaunchSite ids that launch this kernel
  std::vector<int> loops;      ///< LoopSite ids inside it
  /// Host launches of this kernel in other translation units of the project
  /// (analysed with a compile database: ProjectIndex.h); ExternalLaunch::site
  /// ids are those of the launching file's model.
  std::vector<ExternalLaunch> externalLaunches;
};

struct LaunchSite {
  int id = -1;
  SourceSpan span;        ///< the whole `k<<<...>>>(...)` expression
  SourceSpan configSpan;  ///< from `<<<` to `>>>`
  bool deviceSide = false;
  std::string parent;     ///< enclosing function
  std::string child;      ///< launched kernel
  std::string grid, block, sharedMem, stream; ///< texts ("" when absent)
  /// Blocks in the grid and threads per block (x * y * z) when they are
  /// compile-time constants.
  std::optional<uint64_t> gridValue, blockValue;
  SourceSpan gridSpan, blockSpan; ///< the grid and block arguments as written (casts included)
  std::vector<std::string> args;
  std::optional<std::string> threads; ///< inferred child thread count (thesis §3.1.3)
  std::string threadsHow;             ///< which Fig. 3.2 pattern matched
  /// `threads` is the numerator of the grid's ceiling division (per
  /// dimension): the child threads that can do work, not grid x block.
  bool threadsByCeilingDivision = false;
  std::vector<int> enclosingLoops;
  bool inBranch = false;
  bool everyThreadMayLaunch = false;  ///< not restricted to one thread per block/warp
  bool serializable = false;
  std::vector<std::string> reasons;   ///< why not serialisable
  std::vector<SourceSpan> reasonSpans;
  bool followedByDeviceSync = false;
  /// Bounds on the child's size that the launch is guarded by: the launch
  /// runs only where `threads` (a variable of the parent) is at least /
  /// at most this (`if (deg > 0 && deg <= max_deg) child<<<...>>>`, or an
  /// early `if (deg < 48) return;`), the bound a constant or a parameter of
  /// the parent that every host launch of it in this file passes as one.
  /// The mapping model launches only the children inside the bounds.
  std::optional<double> childAtLeast, childAtMost;
  SourceSpan childBoundSpan; ///< the guard (the first one found)
};

/// A host launch in another translation unit of the project.
struct ExternalLaunch {
  std::string file; ///< the launching translation unit (absolute)
  LaunchSite site;  ///< as that file's model has it
};

/// An error or warning clang reported while parsing.
struct ParseDiagnostic {
  std::string severity; ///< "error" or "fatal"
  std::string message;
  SourceSpan span;
};

struct FileModel {
  std::string file;
  std::vector<Kernel> kernels;
  std::vector<LoopSite> loops;
  std::vector<LaunchSite> launches;
  std::vector<NpPragma> pragmas;
  std::vector<ParseDiagnostic> parseDiagnostics;
  /// Device-side cudaDeviceSynchronize() calls; ConstructUse::name is the
  /// enclosing __global__/__device__ function.
  std::vector<ConstructUse> deviceSyncs;
  std::vector<std::string> droppedFlags; ///< nvcc flags that clang does not take
  std::vector<std::string> compileFlags; ///< the flags the file was parsed with
  bool usedFallbackCudaHeaders = false;
  /// "host" or "device": which side of the CUDA compilation was analysed. The
  /// device side when the file tests __CUDA_ARCH__, so kernels are read as
  /// the GPU compiles them (Frontend.cpp).
  std::string compilationSide = "host";

  const Kernel *findKernel(const std::string &name) const;
  const LoopSite *loopAtLine(unsigned line) const;
  const LaunchSite *launchAtLine(unsigned line) const;
};

} // namespace nestor
