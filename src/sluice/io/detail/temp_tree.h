#pragma once
// Test and benchmark helper: a uniquely named temporary folder, removed with everything in it
// when the object goes away, with helpers to create files, folders and symlinks inside.
// Not part of the library API. Not thread-safe.

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace sluice::io_detail {

class TempTree {
 public:
  TempTree() {
    std::string base = std::filesystem::temp_directory_path().string() + "/sluice_io_XXXXXX";
    if (::mkdtemp(base.data()) == nullptr) {
      throw std::runtime_error(std::string("mkdtemp failed: ") + std::strerror(errno));
    }
    root_ = base;
  }
  ~TempTree() {
    std::error_code ec;
    // Tests may leave modes that block removal (chmod 000); restore them first.
    for (auto it = std::filesystem::recursive_directory_iterator(
             root_, std::filesystem::directory_options::skip_permission_denied, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_directory(ec) && !it->is_symlink(ec)) {
        std::filesystem::permissions(it->path(), std::filesystem::perms::owner_all,
                                     std::filesystem::perm_options::add, ec);
      }
    }
    std::filesystem::remove_all(root_, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  const std::string& root() const { return root_; }
  std::string path(std::string_view rel) const { return root_ + "/" + std::string(rel); }

  // Creates the file `rel` (and its folders) with `content`; returns its path.
  std::string file(std::string_view rel, std::string_view content = {}) const {
    std::string p = path(rel);
    std::filesystem::create_directories(std::filesystem::path(p).parent_path());
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!f) throw std::runtime_error("cannot write " + p);
    return p;
  }
  // Creates the folder `rel` (and its parents); returns its path.
  std::string dir(std::string_view rel) const {
    std::string p = path(rel);
    std::filesystem::create_directories(p);
    return p;
  }
  // Creates a symlink at `rel` pointing to `target` (used verbatim); returns its path.
  std::string symlink(std::string_view target, std::string_view rel) const {
    std::string p = path(rel);
    std::filesystem::create_directories(std::filesystem::path(p).parent_path());
    if (::symlink(std::string(target).c_str(), p.c_str()) != 0) {
      throw std::runtime_error("cannot create symlink " + p + ": " + std::strerror(errno));
    }
    return p;
  }

 private:
  std::string root_;
};

}  // namespace sluice::io_detail
