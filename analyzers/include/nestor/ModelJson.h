// The model as JSON (`nestor analyze --json`; schema in docs/model.md).
// Top-level arrays `kernels`, `loops`, `launches` (+ `pragmas`, `parse_errors`);
// every element carries `file`, `line`, `column`. Tests and tools rely on the
// field names: extend, never rename.
#pragma once
#include "nestor/Model.h"
#include "llvm/Support/JSON.h"

namespace nestor {
llvm::json::Value toJSON(const FileModel &m);
llvm::json::Value toJSON(const SourceSpan &s);
llvm::json::Value toJSON(const LoopSite &l, const FileModel &m);
llvm::json::Value toJSON(const LaunchSite &l);
llvm::json::Value toJSON(const RecursionShape &r);
llvm::json::Value toJSON(const Kernel &k);
llvm::json::Value toJSON(const NpPragma &p);
} // namespace nestor
