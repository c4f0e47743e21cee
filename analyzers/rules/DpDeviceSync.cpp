// dp-device-sync: device-side cudaDeviceSynchronize() does not exist for
// compute_90+ since CUDA 12 (CDP2); code that calls it fails to compile there.
#include "RuleUtil.h"

namespace nestor {
namespace {
class DpDeviceSync final : public Rule {
public:
  const char *id() const override { return "dp-device-sync"; }
  Severity defaultSeverity() const override { return Severity::Error; }
  const char *summary() const override {
    return "Device-side cudaDeviceSynchronize() was removed in CUDA 12 (CDP2): use a tail launch or sync on the host";
  }
  const char *description() const override {
    return "CUDA 12 replaced the dynamic-parallelism runtime (CDP2). Device-side cudaDeviceSynchronize() is "
           "no longer available for compute_90 and newer. Work that must run after a child grid belongs "
           "in a kernel launched into cudaStreamTailLaunch, or the host must synchronise between kernels.";
  }
  void check(const AnalyzedTU &tu, std::vector<Finding> &out) const override {
    for (const ConstructUse &s : tu.model().deviceSyncs) {
      Finding f = rules::makeFinding(*this, s.span,
                                     "device-side cudaDeviceSynchronize() in '" + s.name +
                                         "' was removed for compute_90+ in CUDA 12 (CDP2): launch the dependent "
                                         "work into cudaStreamTailLaunch or synchronise on the host");
      f.data["function"] = s.name;
      out.push_back(std::move(f));
    }
  }
};
} // namespace
const Rule &DpDeviceSyncRule() {
  static const DpDeviceSync rule;
  return rule;
}
} // namespace nestor
