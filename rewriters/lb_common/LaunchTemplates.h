// Promotion of a device-side launch to no dynamic parallelism with the
// dbuf-global or dual-queue template (issue 12, case (b)); used by
// rewriters/dbuf_global_launch and rewriters/dual_queue_launch. Design in
// LaunchPromotion.cpp; runtime nestor/promote.cuh.
#pragma once
#include "nestor/Rewrite.h"

namespace nestor::lb {

/// Whether the launch target can be promoted, or why not (one line).
Applicability preparePromotion(const AnalyzedTU &tu, const RewriteTarget &t);
/// The edits: dual = dual-queue (small and large queues), else dbuf-global.
llvm::Expected<clang::tooling::Replacements> applyPromotion(const AnalyzedTU &tu, const RewriteTarget &t, bool dual,
                                                            long long threshold);

} // namespace nestor::lb
