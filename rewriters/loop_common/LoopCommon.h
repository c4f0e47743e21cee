// What the loop rewrites (cuda_np/, cte/, subwarp/) share: the "map/reduce
// loop" matcher used by CTE, sub-warp decomposition and CUDA-NP's sub-warp
// form, canonical `for` headers, constant launch blocks, and small emitters
// (operator functors, the runtime #include). The CUDA-NP planner itself lives
// in cuda_np/ (NpPlan.h); CUDA semantics in analyzers' CudaSemantics.h.
// Design and limits: docs/rewrites-loops.md.
#pragma once
#include "nestor/Rewrite.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class Expr;
class ForStmt;
class FunctionDecl;
class QualType;
class Stmt;
class VarDecl;
} // namespace clang

namespace nestor::loops {

/// Block shape of a launch when it is a compile-time constant.
struct BlockShape {
  unsigned x = 1, y = 1, z = 1;
  unsigned threads() const { return x * y * z; }
  bool operator==(const BlockShape &o) const { return x == o.x && y == o.y && z == o.z; }
};

/// Evaluates the block argument of host launch `launchId` (integer constant
/// expressions, `dim3(...)` temporaries and local `dim3`/integer variables
/// initialised from constants and never written afterwards).
std::optional<BlockShape> constantBlock(const AnalyzedTU &tu, int launchId);

/// What a rewrite that writes constantBlock's value into the code (a literal
/// enlarged block, a template argument) must check at compile time: the
/// dimensions of the launch's block spelled with a macro or a named constant
/// (`TMV_BLOCK`, `kBlock`, through a local `dim3 threads(BLOCK_SIZE)`),
/// each compared with the value they had when the code was analysed:
/// "(TMV_BLOCK) == 64", several joined by "&&". Built later with another
/// value (`-DTMV_BLOCK=256`), the rewritten launch would no longer match the
/// rewritten kernel. Empty when every dimension is spelled as a literal, or
/// is not an integer constant expression.
std::string blockAsAnalysedCondition(const AnalyzedTU &tu, int launchId, const BlockShape &analysed);

/// `for (T i = begin; i < end; ++i) { [U v = f(i);] acc = acc OP v; }` and the
/// `acc OP= f(i)` spellings (issue 4, CTE), and the conditional update
/// `[U w = f(i);] if (c) acc OP= x;` (also `if (c) ++acc;`), which folds
/// `c ? x : 0` when OP's identity is zero (+, |, ^, ||).
struct MapReduceLoop {
  std::string iv, ivType;
  std::string begin, end;       ///< texts
  std::string acc, accType;     ///< the accumulator
  ReductionOp op = ReductionOp::Add;
  std::string mapped;           ///< the value of one iteration, text (parenthesised when built)
  /// Thread-private locals the mapped value reads (passed to CTE as task descriptors).
  std::vector<std::pair<std::string, std::string>> descriptors; ///< (name, type)
  bool csrLike = false;         ///< begin = P[Q], end = P[Q + 1]
  /// The expressions behind begin and end (for rewrites that must re-emit
  /// them with their own edits applied).
  const clang::Expr *beginExpr = nullptr, *endExpr = nullptr;
  /// Every written expression the mapped value is built from: f(i) (the
  /// local's initialiser), and for a conditional update its condition and
  /// folded value (none for `++acc`). A check of what the mapped value reads
  /// or does looks at each.
  std::vector<const clang::Expr *> mappedParts;
  /// Where the mapped value is written: f(i), or the conditional update
  /// (with the local's declaration before it).
  SourceSpan mappedSpan;
  /// The mapped value as pieces: a literal text, or a source range (file
  /// offsets in the loop's file) that a rewrite writes with its own edits.
  struct Piece {
    std::string literal;
    unsigned begin = 0, end = 0;
    bool source = false;
  };
  std::vector<Piece> mappedPieces;
  /// The mapped value with each source range written by `source` (`mapped`
  /// is this with the ranges as written).
  std::string mappedText(const std::function<std::string(unsigned begin, unsigned end)> &source) const;
  bool conditional = false;     ///< `if (c) U`: the mapped value is `((c) ? (x) : (T)0)`
};
/// Matches the loop, or says why it does not have the map/reduce shape.
std::optional<MapReduceLoop> matchMapReduce(const AnalyzedTU &tu, const LoopSite &l, std::string &why,
                                            SourceSpan &where);

const char *opFunctor(ReductionOp op); ///< "nestor::op::add", ...

/// Loop bounds that are a CSR row: begin = P[Q], end = P[Q + 1] (or 1 + Q, (Q) + 1),
/// also through locals of a single definition (nestor/DefUse.h).
bool isCsrPair(const clang::Expr *lower, const clang::Expr *upper, const clang::ASTContext &ctx);

/// Text inserted after the last #include of the main file (or at its start).
clang::tooling::Replacement includeReplacement(const AnalyzedTU &tu, llvm::StringRef header);

/// The source text with a C++ spelling of a (canonical, unqualified) type.
std::string typeText(clang::QualType t, const clang::ASTContext &ctx);
/// A zero value of a scalar type, or "" when the type is not scalar.
std::string zeroOf(clang::QualType t, const clang::ASTContext &ctx);
/// The value of an integer constant expression.
std::optional<int64_t> intValue(const clang::Expr *e, const clang::ASTContext &ctx);

/// The parts of `for (i = lower; i < upper; i += step)` with a positive
/// constant step (also `<=`, `++i`, `i = i + step`).
struct ForParts {
  const clang::VarDecl *iv = nullptr;
  bool ivDeclared = false;
  const clang::Expr *lower = nullptr, *upper = nullptr;
  bool inclusive = false;
  int64_t step = 0;
  const clang::Expr *initExpr = nullptr; ///< the expression to offset (decl init or assignment RHS)
};
std::optional<ForParts> forParts(const clang::ForStmt *fs, const clang::ASTContext &ctx, std::string &why);

/// The update `s` folds into `acc` (StatementEffects' reductionUpdate): the
/// operator and the folded value. Subtractions are left out: the rewrites
/// re-emit the folded value as it is written.
std::optional<std::pair<ReductionOp, const clang::Expr *>> matchUpdate(const clang::Stmt *s, const clang::VarDecl *acc);

/// The kernel whose loop a loop template (lb_common/, merge_path/) rewrites:
/// its model, its declaration and the loop's `for` statement.
struct LoopKernel {
  const Kernel *kernel = nullptr;
  const clang::FunctionDecl *fd = nullptr;
  const clang::ForStmt *fs = nullptr;
};
/// Why a loop's kernel cannot be rewritten, and where.
struct KernelRefusal {
  std::string reason;
  SourceSpan span;
};
/// Finds the loop's kernel (a __global__ function with a body, the loop a
/// `for`), or says why not: not analysed, or a template (the templates emit
/// one non-template copy of the kernel).
std::optional<KernelRefusal> findLoopKernel(const AnalyzedTU &tu, const LoopSite &l, LoopKernel &out);

} // namespace nestor::loops
