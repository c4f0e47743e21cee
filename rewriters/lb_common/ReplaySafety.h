// Whether the owner's replay of a for-each loop template can diverge from its
// first run (rewriters/lb_common/LoadBalance.cpp; nestor/templates.cuh).
#pragma once
#include "../loop_common/StmtParents.h"
#include "nestor/Model.h"

#include <optional>
#include <string>

namespace clang {
class ASTContext;
class FunctionDecl;
class ForStmt;
} // namespace clang

namespace nestor::lb {

struct ReplayHazard {
  std::string reason;
  SourceSpan at;
};

/// In the for-each form the block-mapped pass runs the delayed loop's
/// iterations, stores included, *before* the owner's replay re-runs the code
/// before the loop. If that code reads memory the loop writes, the replay may
/// take another path than the first run did; that is only observable when
/// the kernel has effects outside the loop (code after the loop, or in
/// another branch). The code before the loop is pure (checked elsewhere).
/// Returns the hazard, or nothing when the replay cannot be observed.
/// `parents`: the kernel's (StmtParents of `kernel`).
std::optional<ReplayHazard> forEachReplayHazard(const clang::ASTContext &ctx, const loops::StmtParents &parents,
                                                const clang::FunctionDecl *kernel, const clang::ForStmt *loop);

} // namespace nestor::lb
