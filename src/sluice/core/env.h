#pragma once
// Numeric settings from SLUICE_* environment variables: unset or empty gives the fallback; a
// value that is not a number in [lo, hi] is an InvalidArgument naming the variable.

namespace sluice {

double env_double(const char* name, double fallback, double lo, double hi);
int env_int(const char* name, int fallback, int lo, int hi);

}  // namespace sluice
