// An operator's schema and its implementations agree on the devices: every device a schema lists
// has a registered implementation, and no implementation is registered for a device its schema
// does not list. Checked in this build's registries, and in the sources, which also hold the
// implementations this build leaves out.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "sluice/cuda/cuda_api.h"
#include "sluice/exec/operator.h"
#include "sluice/graph/schema_registry.h"

namespace sluice {
namespace {

constexpr OpDevice kDevices[] = {OpDevice::kCPU, OpDevice::kMixed, OpDevice::kGPU};

#if SLUICE_HAS_NVJPEG
constexpr bool kBuiltWithNvjpeg = true;
#else
constexpr bool kBuiltWithNvjpeg = false;
#endif

// The only implementations a build may lack, because their sources are left out of it: the GPU
// classes (*_gpu.cc, *.cu) without CUDA, and the mixed decoders (ops/decoders/nvjpeg/) without
// nvJPEG.
bool build_may_lack(const std::string& op, OpDevice device) {
  if (device == OpDevice::kGPU) return !cuda::built_with_cuda();
  if (device == OpDevice::kMixed && op.starts_with("decoders.")) return !kBuiltWithNvjpeg;
  return false;
}

TEST(OperatorRegistry, EveryDeviceASchemaListsHasAnImplementation) {
  const OperatorRegistry& ops = OperatorRegistry::instance();
  for (const OpSchema* s : SchemaRegistry::instance().all()) {
    for (OpDevice d : s->device_list()) {
      if (build_may_lack(s->name(), d)) continue;
      EXPECT_TRUE(ops.has(s->name(), d))
          << "schema '" << s->name() << "' lists device '" << op_device_name(d)
          << "' but no implementation is registered for it (SLUICE_REGISTER_OPERATOR)";
    }
  }
}

TEST(OperatorRegistry, NoImplementationForADeviceItsSchemaDoesNotList) {
  const OperatorRegistry& ops = OperatorRegistry::instance();
  for (const OpSchema* s : SchemaRegistry::instance().all()) {
    for (OpDevice d : kDevices) {
      EXPECT_FALSE(ops.has(s->name(), d) && !s->supports(d))
          << "an implementation of '" << s->name() << "' is registered for device '"
          << op_device_name(d) << "', which its schema does not list (OpSchema::devices)";
    }
  }
}

// Every SLUICE_REGISTER_OPERATOR line under src/sluice: (operator, device) -> file.
std::map<std::pair<std::string, OpDevice>, std::string> registrations_in_sources() {
  const std::filesystem::path root = std::filesystem::path(SLUICE_SOURCE_DIR) / "src" / "sluice";
  const std::regex line(R"re(SLUICE_REGISTER_OPERATOR\(\s*"([^"]+)"\s*,\s*OpDevice::k(\w+))re");
  std::map<std::pair<std::string, OpDevice>, std::string> found;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".cc" && ext != ".cu")) continue;
    std::ifstream f(entry.path());
    std::stringstream text;
    text << f.rdbuf();
    const std::string src = text.str();
    const std::string file = entry.path().lexically_relative(root).string();
    for (std::sregex_iterator m(src.begin(), src.end(), line), end; m != end; ++m) {
      const std::string device = (*m)[2].str();
      EXPECT_TRUE(device == "CPU" || device == "Mixed" || device == "GPU")
          << file << ": unknown device OpDevice::k" << device;
      const OpDevice d = device == "CPU"     ? OpDevice::kCPU
                         : device == "Mixed" ? OpDevice::kMixed
                                             : OpDevice::kGPU;
      found[{(*m)[1].str(), d}] = file;
    }
  }
  return found;
}

// The sources hold every implementation, also those this build leaves out (GPU classes in a
// build without CUDA), so this checks them in every build.
TEST(OperatorRegistry, SourcesRegisterExactlyTheDevicesTheSchemasList) {
  const auto found = registrations_in_sources();
  ASSERT_GE(found.size(), 30u) << "too few registrations found under " << SLUICE_SOURCE_DIR;
  ASSERT_TRUE(found.count({"flip", OpDevice::kGPU})) << "flip_gpu.cc not found";
  for (const auto& [key, file] : found) {
    const auto& [op, d] = key;
    const OpSchema* s = SchemaRegistry::instance().find(op);
    if (!s || s->name() != op) {
      ADD_FAILURE() << file << " registers an implementation of '" << op
                    << "', which is no schema's name";
      continue;
    }
    EXPECT_TRUE(s->supports(d)) << file << " registers '" << op << "' for device '"
                                << op_device_name(d) << "', which its schema does not list";
  }
  for (const OpSchema* s : SchemaRegistry::instance().all()) {
    for (OpDevice d : s->device_list()) {
      EXPECT_TRUE(found.count({s->name(), d}))
          << "schema '" << s->name() << "' lists device '" << op_device_name(d)
          << "' but no source file registers an implementation for it";
    }
  }
}

}  // namespace
}  // namespace sluice
