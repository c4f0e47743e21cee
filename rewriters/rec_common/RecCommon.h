// What the recursion rewrites (rec_hier/, rec_flat/) share: finding the
// recursive kernel of a launch target with its shape (nestor/Recursion.h),
// the checks both make, and the device functions both emit from the
// kernel's own statements (irregular-loop-and-recursion-templates.md II-C):
//
//   K_nestor_pre(params..., child)      the pre-order statements of one child
//   K_nestor_recurses(params..., child) the recursion condition (rec-hier: from
//                                       the tree only, evaluated ahead of pre)
//   K_nestor_visit(params..., child)    pre, then the condition (rec-flat)
//   C_nestor_body(C's params...)        the post-order kernel's body, and
//   K_nestor_post(params...)            its call with the tail launch's arguments
#pragma once
#include "nestor/Recursion.h"
#include "nestor/EditSet.h"
#include "nestor/Rewrite.h"

#include <string>
#include <vector>

namespace nestor::rec {

struct RecTarget {
  const Kernel *kernel = nullptr;
  RecursionMatch match;
  unsigned defBegin = 0, defEnd = 0; ///< the kernel's definition (with its attributes)
  std::vector<std::string> paramDecls, paramNames;
  std::string childType, slotType; ///< as written
};

/// The recursive kernel of launch target `t` (its self-launch or a host
/// launch of it) and the checks both rewrites make.
Applicability locateRecursion(const AnalyzedTU &tu, const RewriteTarget &t, RecTarget &out);

/// `name(params..., extra)` argument list texts.
std::string callArgs(const std::vector<std::string> &args, const std::string &extra = "");
/// The arguments of a child's pre-order function (`K_nestor_pre`,
/// `K_nestor_visit`): `args`, the child, and where its statements read the
/// slot, the slot's value: `absoluteSlot` (the child's index into the
/// children array), less offsets[parent] where the original counts the
/// children from 0.
std::string childArgs(const RecTarget &r, const std::vector<std::string> &args, const std::string &child,
                      const std::string &absoluteSlot, const std::string &parent);

/// Device functions from the kernel's statements (see above). `hier` emits
/// pre + recurses, else visit.
std::string edgeFunctions(const AnalyzedTU &tu, const RecTarget &r, bool hier);

/// The self-launch's argument texts: the parameters one level down (with the
/// child variable in scope).
std::vector<std::string> nextLevelArgs(const AnalyzedTU &tu, const RecTarget &r);

/// Adds `#include <nestor/rec.cuh>` after the last include before `before`, unless present.
void addRecInclude(const AnalyzedTU &tu, EditSet &reps, unsigned before);

} // namespace nestor::rec
