// dual-queue (irregular-loop-and-recursion-templates.md II-B, Figure 1(b)):
// a first pass puts each thread's row into a small or a large queue by the
// trip count of its irregular loop (lb_threshold); a thread-mapped pass runs
// the small queue and a block-mapped pass the large one. Three launches of the
// same kernel from the call site, no dynamic parallelism. Planner and checks:
// rewriters/lb_common/; runtime: nestor/templates.cuh.
#include "../lb_common/LoadBalance.h"
#include "nestor/Papers.h"

namespace nestor {
namespace {
class DualQueueImpl final : public lb::LoadBalanceRewrite {
public:
  const char *id() const override { return "dual-queue"; }
  const RewriteInfo &info() const override {
    static const RewriteInfo i{false, {}, {{"two-queues", "lb_threshold"}}};
    return i;
  }
  const char *summary() const override {
    return "Dual queue: small rows thread-mapped, large rows block-mapped, in separate passes";
  }
  std::string title(const RewriteParams &p) const override {
    return "Dual queue (small rows thread-mapped, large block-mapped), lb_threshold " +
           std::to_string(lb::thresholdOf(p));
  }
  const char *templateName() const override { return "dual-queue"; }
  bool passesLaunchedByHost() const override { return true; }
  bool queuesSmallRows() const override { return true; }
  std::string kernelBody(const lb::LoopTemplateCode &c) const override {
    return lb::hostPassesKernelBody(
        c, std::string(templateName()) + ", lb_threshold " + c.threshold +
               " (" + papers::kTemplates + ", II-B, Figure 1(b)): a first pass\n"
               "  // queues each row as small or large; a thread-mapped pass runs the small ones and a\n"
               "  // block-mapped pass the large ones (nestor::tmpl::launch_templates at the launch).");
  }
};
} // namespace
const Rewrite &DualQueueRewrite() {
  static const DualQueueImpl r;
  return r;
}
} // namespace nestor
