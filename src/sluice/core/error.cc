#include "sluice/core/error.h"

namespace sluice {

std::exception_ptr add_context(std::exception_ptr e, const std::string& context) {
  try {
    std::rethrow_exception(e);
  } catch (const Error& err) {
    return err.with_context(context);
  } catch (const std::bad_alloc&) {
    return std::make_exception_ptr(OutOfMemory(context + ": out of host memory"));
  } catch (const std::exception& err) {
    return std::make_exception_ptr(Error(context + ": " + err.what()));
  } catch (...) {
    return std::make_exception_ptr(Error(context + ": unknown error"));
  }
}

void rethrow_with_context(std::exception_ptr e, const std::string& context) {
  std::rethrow_exception(add_context(std::move(e), context));
}

}  // namespace sluice
