#include "sluice/graph/schema_registry.h"

#include "sluice/core/error.h"

namespace sluice {

SchemaRegistry& SchemaRegistry::instance() {
  static SchemaRegistry r;
  return r;
}

bool SchemaRegistry::add(OpSchema schema) {
  for (const auto& a : schema.aliases()) aliases_[a] = schema.name();
  std::string name = schema.name();
  schemas_.insert_or_assign(std::move(name), std::move(schema));
  return true;
}

const OpSchema* SchemaRegistry::find(std::string_view name) const {
  auto it = schemas_.find(name);
  if (it != schemas_.end()) return &it->second;
  auto a = aliases_.find(name);
  if (a != aliases_.end()) return find(a->second);
  return nullptr;
}

const OpSchema& SchemaRegistry::get(std::string_view name) const {
  const OpSchema* s = find(name);
  SLUICE_CHECK(s, InvalidArgument, "unknown operator '", name, "'");
  return *s;
}

std::vector<const OpSchema*> SchemaRegistry::all() const {
  std::vector<const OpSchema*> out;
  for (const auto& [n, s] : schemas_) out.push_back(&s);
  return out;
}

}  // namespace sluice
