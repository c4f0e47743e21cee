// Entry point of the analysis: source text -> Clang AST -> nestor::FileModel.
//
//   auto tu = nestor::analyzeFile("k.cu", opts);          // parse + build the model
//   for (const nestor::LoopSite &l : (*tu)->model().loops) ...
//   const clang::Stmt *s = (*tu)->loopStmt(l.id);           // the AST behind it
//
// An AnalyzedTU owns the parsed AST, so rewriters produce edits from it
// without parsing again. Parsing recovers from errors: clang's errors become
// FileModel::parseDiagnostics and every kernel that parsed is still analysed.
#pragma once

#include "nestor/CompileFlags.h"
#include "nestor/Model.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace clang {
class ASTContext;
class SourceManager;
class Stmt;
class Decl;
class FunctionDecl;
class CUDAKernelCallExpr;
class LangOptions;
} // namespace clang

namespace nestor {

class ProjectIndex;

struct AnalysisOptions {
  FlagOptions flags;
  /// Contents to analyse instead of the file on disk (unsaved editor buffer).
  std::optional<std::string> contents;
  /// Set to true from another thread to abandon the parse (LSP cancellation).
  const std::atomic<bool> *cancelled = nullptr;
  /// Precompile only the implicit includes (the CUDA headers clang or Nestor
  /// adds), once per file path and command, and parse the file's own leading
  /// #include block with the rest of the file. For callers whose successive
  /// texts at one path differ in their leading lines (the fuzz target): the
  /// default keys the preamble on those lines, so every such input would
  /// build a new one. Needs a PreambleCache.
  bool precompileImplicitIncludesOnly = false;
  /// The project's launch index (ProjectIndex.h): kernels launched from other
  /// translation units get Kernel::externalLaunches, and rewrites reach those
  /// units through AnalyzedTU::project(). Null: this file alone.
  ProjectIndex *project = nullptr;
  /// Wait for the project index's first build (the CLI); false: use what is
  /// indexed so far (the language server, so an edit never waits on it).
  bool waitForProject = true;
  /// Which side of the CUDA compilation to analyse. Auto: the device side
  /// when the file's text tests __CUDA_ARCH__ (one parse either way).
  enum class Side { Auto, Host, Device } side = Side::Auto;
};

class PreambleCache;
struct ParsedTU; // the CompilerInstance and action behind an AnalyzedTU

class AnalyzedTU {
public:
  ~AnalyzedTU();
  const FileModel &model() const { return model_; }
  FileModel &model() { return model_; }

  clang::ASTContext &astContext() const;
  clang::SourceManager &sourceManager() const;
  const clang::LangOptions &langOptions() const;
  /// The text that was analysed (the buffer, for unsaved editor contents).
  llvm::StringRef mainFileText() const;
  const std::string &mainFile() const { return model_.file; }

  /// Top-level declarations parsed from the file itself and its headers
  /// outside the preamble (not those deserialised from the preamble).
  const std::vector<const clang::Decl *> &topLevelDecls() const;
  const clang::Stmt *loopStmt(int loopId) const;
  const clang::CUDAKernelCallExpr *launchExpr(int launchId) const;
  const clang::FunctionDecl *functionDecl(const std::string &name) const;
  /// The project index this file was analysed with (AnalysisOptions::project), or null.
  ProjectIndex *project() const { return project_; }

  // Filled by the model builder.
  std::map<int, const clang::Stmt *> loopNodes;
  std::map<int, const clang::CUDAKernelCallExpr *> launchNodes;
  std::map<std::string, const clang::FunctionDecl *> functionNodes;

private:
  friend llvm::Expected<std::unique_ptr<AnalyzedTU>>
  analyzeFile(const std::string &, const AnalysisOptions &, PreambleCache *);
  std::unique_ptr<ParsedTU> parsed_;
  FileModel model_;
  ProjectIndex *project_ = nullptr;
};

/// Parses `path` (or opts.contents) and builds its model. Fails only when the
/// input cannot be read or the compile flags cannot be determined; parse
/// errors inside the file are part of the model instead.
llvm::Expected<std::unique_ptr<AnalyzedTU>>
analyzeFile(const std::string &path, const AnalysisOptions &opts, PreambleCache *preambles = nullptr);

/// Keeps the precompiled preamble (the #include block, i.e. the CUDA headers)
/// of each file, so that re-analysing an edited buffer does not re-read the
/// headers, as clangd does. Thread-safe.
class PreambleCache {
public:
  PreambleCache();
  ~PreambleCache();
  size_t size() const;
  /// Preambles built so far (cache misses): lets tests check that an edit
  /// below the #include block reuses the preamble instead of rebuilding it.
  size_t builds() const;
  void forget(const std::string &file);
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// Checks what every input must pass before it is parsed: it exists, is a
/// regular readable file, is not binary, and is CUDA source (.cu/.cuh).
llvm::Error checkInputFile(const std::string &path, bool requireCudaExtension = true);
bool isCudaSourcePath(llvm::StringRef path);

} // namespace nestor
