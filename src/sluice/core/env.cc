#include "sluice/core/env.h"

#include <cstdlib>

#include "sluice/core/error.h"

namespace sluice {

double env_double(const char* name, double fallback, double lo, double hi) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  double d = std::strtod(v, &end);
  SLUICE_CHECK(end && *end == '\0' && d >= lo && d <= hi, InvalidArgument, "environment variable ",
               name, "='", v, "' must be a number in [", lo, ", ", hi, "]");
  return d;
}

int env_int(const char* name, int fallback, int lo, int hi) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  long n = std::strtol(v, &end, 10);
  SLUICE_CHECK(end && *end == '\0' && n >= lo && n <= hi, InvalidArgument, "environment variable ",
               name, "='", v, "' must be a whole number in [", lo, ", ", hi, "]");
  return static_cast<int>(n);
}

}  // namespace sluice
