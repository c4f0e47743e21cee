// What ptxas says each kernel uses (registers, shared memory, stack), read
// from `nvcc --resource-usage` when nvcc is present: the mapping model's
// register constraint uses it instead of an estimate (docs/mapping.md).
#pragma once
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nestor {

struct KernelResources {
  unsigned registers = 0;
  uint64_t sharedBytes = 0;
  uint64_t stackBytes = 0;
};

/// ptxas's per-entry-function report (the text of `nvcc --resource-usage`),
/// by kernel name (demangled, without namespaces, template arguments or
/// parameters). Lines it does not understand are skipped.
std::map<std::string, KernelResources> parsePtxasReport(llvm::StringRef text);

/// nvcc on PATH or in /usr/local/cuda/bin, if any.
std::optional<std::string> findNvcc();

/// Compiles `file`'s device code for `arch` with `nvcc --resource-usage`,
/// passing the -I/-D/-isystem/-std flags of `compileFlags` (clang's), with
/// -rdc=true when `relocatable`; fails with nvcc's first error line.
llvm::Expected<std::map<std::string, KernelResources>> ptxasResources(const std::string &nvcc, const std::string &file,
                                                                      const std::vector<std::string> &compileFlags,
                                                                      bool relocatable, const std::string &arch = "sm_90");

} // namespace nestor
