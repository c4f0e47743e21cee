// dbuf-shared (irregular-loop-and-recursion-templates.md II-B, Figure 1(c)):
// one kernel; rows whose irregular loop has lb_threshold or more iterations
// are delayed to a per-block buffer in shared memory and reduced by the whole
// block after the thread-mapped pass. A full buffer spills to a global
// overflow (the paper leaves this open); when that cannot be allocated the
// row runs in place. Planner and checks: rewriters/lb_common/; runtime:
// nestor/templates.cuh.
#include "../lb_common/LoadBalance.h"
#include "nestor/Papers.h"
#include "../loop_common/LoopCommon.h"

namespace nestor {
namespace {
class DbufSharedImpl final : public lb::LoadBalanceRewrite {
public:
  const char *id() const override { return "dbuf-shared"; }
  const RewriteInfo &info() const override {
    static const RewriteInfo i{false, {}, {{"block-buffer", "lb_threshold"}}};
    return i;
  }
  const char *summary() const override {
    return "Delayed buffer in shared memory: large rows block-mapped after the thread-mapped pass, one kernel";
  }
  std::string title(const RewriteParams &p) const override {
    return "Delayed buffer in shared memory (dbuf-shared), lb_threshold " + std::to_string(lb::thresholdOf(p));
  }
  const char *templateName() const override { return "dbuf-shared"; }
  std::string kernelBody(const lb::LoopTemplateCode &c) const override {
    const std::string cap = std::to_string(bufferSlots(c));
    return "{\n  // dbuf-shared, lb_threshold " + c.threshold +
           " (" + papers::kTemplates + ", II-B, Figure 1(c)): rows whose loop\n"
           "  // has " + c.threshold + " or more iterations are delayed to a per-block buffer in shared memory (" + cap +
           " slots, then a\n"
           "  // global overflow), reduced by the whole block after the thread-mapped pass, and finished by their owner.\n"
           "  nestor::tmpl::dbuf_shared<" + c.ivType + ", " + c.accType + ", " + cap + ">(" + c.threshold + ", " + c.rowWork +
           ", " + c.op + ",\n  " + c.bodyCall + ");\n}";
  }

private:
  /// The shared buffer's slots: the block size every launch agrees on, else
  /// __launch_bounds__, else 256 (the buffer overflows to global memory).
  static unsigned bufferSlots(const lb::LoopTemplateCode &c) {
    const Kernel &k = c.kernel;
    std::optional<unsigned> common;
    bool agree = !k.launchedBy.empty();
    for (int id : k.launchedBy) {
      auto b = loops::constantBlock(c.tu, id);
      if (!b || (common && *common != b->threads())) {
        agree = false;
        break;
      }
      common = b->threads();
    }
    if (agree && common && *common <= 1024) return *common;
    if (k.launchBoundsMaxThreadsValue && *k.launchBoundsMaxThreadsValue <= 1024) return unsigned(*k.launchBoundsMaxThreadsValue);
    return 256;
  }
};
} // namespace
const Rewrite &DbufSharedRewrite() {
  static const DbufSharedImpl r;
  return r;
}
} // namespace nestor
