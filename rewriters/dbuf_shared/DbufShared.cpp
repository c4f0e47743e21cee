// dbuf-shared (irregular-loop-and-recursion-templates.md II-B, Figure 1(c)):
// one kernel; rows whose irregular loop has lb_threshold or more iterations
// are delayed to a per-block buffer in shared memory and reduced by the whole
// block after the thread-mapped pass. A full buffer spills to a global
// overflow (the paper leaves this open); when that cannot be allocated the
// row runs in place. Planner and checks: rewriters/lb_common/; runtime:
// nestor/templates.cuh.
#include "../lb_common/LoadBalance.h"

namespace nestor {
namespace {
class DbufSharedImpl final : public lb::LoadBalanceRewrite {
public:
  DbufSharedImpl() : LoadBalanceRewrite(lb::Template::DbufShared) {}
  const char *id() const override { return "dbuf-shared"; }
  const char *summary() const override {
    return "Delayed buffer in shared memory: large rows block-mapped after the thread-mapped pass, one kernel";
  }
  std::string title(const RewriteParams &p) const override {
    return "Delayed buffer in shared memory (dbuf-shared), lb_threshold " + std::to_string(lb::thresholdOf(p));
  }
};
} // namespace
const Rewrite &DbufSharedRewrite() {
  static const DbufSharedImpl r;
  return r;
}
} // namespace nestor
