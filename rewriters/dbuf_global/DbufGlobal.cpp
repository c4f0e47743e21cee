// dbuf-global (irregular-loop-and-recursion-templates.md II-B, Figure 1(c)):
// the thread-mapped pass delays rows whose irregular loop has lb_threshold or
// more iterations to a global buffer; a second, block-mapped launch of the
// same kernel reduces them, redistributing the load over all blocks. No
// dynamic parallelism. Planner and checks: rewriters/lb_common/; runtime:
// nestor/templates.cuh.
#include "../lb_common/LoadBalance.h"

namespace nestor {
namespace {
class DbufGlobalImpl final : public lb::LoadBalanceRewrite {
public:
  DbufGlobalImpl() : LoadBalanceRewrite(lb::Template::DbufGlobal) {}
  const char *id() const override { return "dbuf-global"; }
  const char *summary() const override {
    return "Delayed buffer in global memory: large rows reduced by a second, block-mapped launch";
  }
  std::string title(const RewriteParams &p) const override {
    return "Delayed buffer in global memory (dbuf-global), lb_threshold " + std::to_string(lb::thresholdOf(p));
  }
};
} // namespace
const Rewrite &DbufGlobalRewrite() {
  static const DbufGlobalImpl r;
  return r;
}
} // namespace nestor
