#pragma once
// Process-wide table of operator schemas. Schemas are registered by static initialisers in the
// operators' own files (SLUICE_REGISTER_SCHEMA) and only read afterwards, so lookups need no lock.

#include <map>
#include <string>
#include <vector>

#include "sluice/graph/op_schema.h"

namespace sluice {

class SchemaRegistry {
 public:
  static SchemaRegistry& instance();
  // Registers a schema (and its aliases). Returns true so it can initialise a static.
  bool add(OpSchema schema);
  // The schema named `name` (or an alias of it); throws InvalidArgument when unknown.
  const OpSchema& get(std::string_view name) const;
  const OpSchema* find(std::string_view name) const;
  std::vector<const OpSchema*> all() const;

 private:
  std::map<std::string, OpSchema, std::less<>> schemas_;
  std::map<std::string, std::string, std::less<>> aliases_;
};

}  // namespace sluice

#define SLUICE_SCHEMA_CONCAT_IMPL(a, b) a##b
#define SLUICE_SCHEMA_CONCAT(a, b) SLUICE_SCHEMA_CONCAT_IMPL(a, b)
// Registers the schema expression at static-initialisation time.
#define SLUICE_REGISTER_SCHEMA(...)                                                \
  static const bool SLUICE_SCHEMA_CONCAT(sluice_schema_registered_, __COUNTER__) = \
      ::sluice::SchemaRegistry::instance().add(__VA_ARGS__)
