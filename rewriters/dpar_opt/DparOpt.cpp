// dpar-opt (irregular-loop-and-recursion-templates.md II-B, Figure 1(e)): the
// thread-mapped pass delays rows whose irregular loop has lb_threshold or more
// iterations to a per-block buffer; thread 0 of each block then makes one
// device launch for the block's buffer (fewer, larger nested grids than one
// launch per row). CDP2 rules: no device-side cudaDeviceSynchronize; the child
// grid finishes each delayed row itself and completes before the parent grid
// does. Needs -rdc / cudadevrt; built without -rdc (no __CUDACC_RDC__) each
// block processes its buffer itself. Planner and checks: rewriters/lb_common/;
// runtime: nestor/templates.cuh.
#include "../lb_common/LoadBalance.h"

namespace nestor {
namespace {
class DparOptImpl final : public lb::LoadBalanceRewrite {
public:
  DparOptImpl() : LoadBalanceRewrite(lb::Template::DparOpt) {}
  const char *id() const override { return "dpar-opt"; }
  const char *summary() const override {
    return "Optimised dynamic parallelism: large rows buffered per block, one device launch per block (needs -rdc)";
  }
  std::string title(const RewriteParams &p) const override {
    return "One device launch per block for its large rows (dpar-opt, needs -rdc), lb_threshold " +
           std::to_string(lb::thresholdOf(p));
  }
};
} // namespace
const Rewrite &DparOptRewrite() {
  static const DparOptImpl r;
  return r;
}
} // namespace nestor
