// dbuf-global (irregular-loop-and-recursion-templates.md II-B, Figure 1(c)):
// the thread-mapped pass delays rows whose irregular loop has lb_threshold or
// more iterations to a global buffer; a second, block-mapped launch of the
// same kernel reduces them, redistributing the load over all blocks. No
// dynamic parallelism. Planner and checks: rewriters/lb_common/; runtime:
// nestor/templates.cuh.
#include "../lb_common/LoadBalance.h"
#include "nestor/Papers.h"

namespace nestor {
namespace {
class DbufGlobalImpl final : public lb::LoadBalanceRewrite {
public:
  const char *id() const override { return "dbuf-global"; }
  const RewriteInfo &info() const override {
    static const RewriteInfo i{false, {}, {{"global-buffer", "lb_threshold"}}};
    return i;
  }
  const char *summary() const override {
    return "Delayed buffer in global memory: large rows reduced by a second, block-mapped launch";
  }
  std::string title(const RewriteParams &p) const override {
    return "Delayed buffer in global memory (dbuf-global), lb_threshold " + std::to_string(lb::thresholdOf(p));
  }
  const char *templateName() const override { return "dbuf-global"; }
  bool passesLaunchedByHost() const override { return true; }
  std::string kernelBody(const lb::LoopTemplateCode &c) const override {
    return lb::hostPassesKernelBody(
        c, std::string(templateName()) + ", lb_threshold " + c.threshold +
               " (" + papers::kTemplates + ", II-B, Figure 1(c)): the thread-mapped\n  // pass delays rows with " +
               c.threshold +
               " or more iterations to a global buffer; a second, block-mapped launch\n"
               "  // reduces each and finishes its row (nestor::tmpl::launch_templates at the launch).");
  }
};
} // namespace
const Rewrite &DbufGlobalRewrite() {
  static const DbufGlobalImpl r;
  return r;
}
} // namespace nestor
