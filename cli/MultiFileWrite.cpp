#include "MultiFileWrite.h"

#include "nestor/Rewrite.h" // writeFileAtomically

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <vector>

namespace nestor::cli {

llvm::Error writeFilesAllOrNone(const std::map<std::string, FileChange> &changes) {
  // Nothing is written unless every file can be.
  for (const auto &[path, change] : changes) {
    auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
    if (!buf)
      return llvm::createStringError("%s: cannot read file: %s (no file was written)", path.c_str(),
                                     buf.getError().message().c_str());
    if ((*buf)->getBuffer() != change.before)
      return llvm::createStringError("%s: changed since it was analysed (no file was written)", path.c_str());
    if (llvm::sys::fs::access(path, llvm::sys::fs::AccessMode::Write))
      return llvm::createStringError("%s: not writable (no file was written)", path.c_str());
  }
  std::vector<const std::string *> written;
  for (const auto &[path, change] : changes) {
    if (llvm::Error err = writeFileAtomically(path, change.after)) {
      std::string why = llvm::toString(std::move(err));
      std::string notRestored;
      for (const std::string *done : written)
        if (llvm::Error back = writeFileAtomically(*done, changes.at(*done).before)) {
          llvm::consumeError(std::move(back));
          notRestored += " " + *done;
        }
      if (!notRestored.empty())
        return llvm::createStringError("%s; could not restore:%s", why.c_str(), notRestored.c_str());
      return llvm::createStringError("%s (the other files were restored: no file changed)", why.c_str());
    }
    written.push_back(&path);
  }
  return llvm::Error::success();
}

} // namespace nestor::cli
