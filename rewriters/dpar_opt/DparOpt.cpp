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
#include "nestor/Papers.h"

namespace nestor {
namespace {
class DparOptImpl final : public lb::LoadBalanceRewrite {
public:
  const char *id() const override { return "dpar-opt"; }
  const RewriteInfo &info() const override {
    static const RewriteInfo i{false, {}, {{"block-launch", "lb_threshold"}}};
    return i;
  }
  const char *summary() const override {
    return "Optimised dynamic parallelism: large rows buffered per block, one device launch per block (needs -rdc)";
  }
  std::string title(const RewriteParams &p) const override {
    return "One device launch per block for its large rows (dpar-opt, needs -rdc), lb_threshold " +
           std::to_string(lb::thresholdOf(p));
  }
  const char *templateName() const override { return "dpar-opt"; }
  /// `<kernel>_nestor_dpar_child`: one block per delayed row of a parent block.
  std::string declarationsBeforeKernel(const lb::LoopTemplateCode &c) const override {
    return "// The child of dpar-opt: one block per delayed row of a parent block, which it reduces and finishes.\n"
           "__global__ void " + childName(c) + "(" + c.params + (c.params.empty() ? "" : ", ") + batchType(c) +
           " nestor_batch) {\n"
           "  nestor::tmpl::dpar_opt_child<" + c.accType + ">(nestor_batch, " + c.rowWork + ", " + c.op + ",\n  " + c.bodyCall +
           ");\n}\n\n";
  }
  std::string kernelBody(const lb::LoopTemplateCode &c) const override {
    return "{\n  // dpar-opt, lb_threshold " + c.threshold +
           " (" + papers::kTemplates + ", II-B, Figure 1(e)): rows whose loop\n"
           "  // has " + c.threshold + " or more iterations are delayed to a per-block buffer; thread 0 then launches ONE child\n"
           "  // grid for the block's buffer (CDP2: nobody waits for it; the child finishes those rows).\n"
           "  nestor::tmpl::dpar_opt<" + c.ivType + ", " + c.accType + ">(" + c.threshold + ", " + c.rowWork + ", " + c.op +
           ",\n  " + c.bodyCall + ",\n  [&](" + batchType(c) + " nestor_batch) {\n"
           "#if defined(__CUDACC_RDC__) // without -rdc the block processes its rows itself\n    " + childName(c) +
           "<<<nestor_batch.count, nestor::tmpl::kBlockMappedThreads>>>(" + c.args + (c.args.empty() ? "" : ", ") +
           "nestor_batch);\n#endif\n  });\n}";
  }

private:
  static std::string childName(const lb::LoopTemplateCode &c) { return c.kernel.name + "_nestor_dpar_child"; }
  static std::string batchType(const lb::LoopTemplateCode &c) { return "nestor::tmpl::dpar_batch<" + c.ivType + ">"; }
};
} // namespace
const Rewrite &DparOptRewrite() {
  static const DparOptImpl r;
  return r;
}
} // namespace nestor
