#include "sluice/graph/op_spec.h"

namespace sluice {

const ArgValue& OpSpec::raw_arg(std::string_view n) const {
  auto it = args.find(n);
  if (it != args.end()) return it->second;
  SLUICE_ENFORCE(schema, "OpSpec without schema");
  const ArgSpec* a = schema->find_arg(n);
  SLUICE_CHECK(a, InvalidArgument, describe(), " has no argument '", n, "'");
  SLUICE_CHECK(a->default_value, InvalidArgument, describe(), ": argument '", n, "' is required");
  return *a->default_value;
}

std::string OpSpec::describe() const {
  return make_string("operator '", type, "' (\"", name, "\", device='", op_device_name(device),
                     "')");
}

}  // namespace sluice
