#pragma once
// Error hierarchy. Every error Sluice raises is a sluice::Error; the Python bindings map each
// class to an exception of the same name. Errors raised on worker threads are captured with
// std::exception_ptr and re-raised on the consumer with context (operator, sample, file).

#include <exception>
#include <sstream>
#include <stdexcept>
#include <string>

namespace sluice {

template <typename... Args>
std::string make_string(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
  // An exception of the same dynamic type whose message starts with `context`.
  virtual std::exception_ptr with_context(const std::string& context) const {
    return std::make_exception_ptr(Error(context + ": " + what()));
  }
};

#define SLUICE_DEFINE_ERROR(Name, Base)                                          \
  class Name : public Base {                                                     \
   public:                                                                       \
    using Base::Base;                                                            \
    std::exception_ptr with_context(const std::string& context) const override { \
      return std::make_exception_ptr(Name(context + ": " + what()));             \
    }                                                                            \
  }

SLUICE_DEFINE_ERROR(InvalidArgument, Error);  // bad user input: arguments, graphs, shapes
SLUICE_DEFINE_ERROR(DecodeError, Error);      // a sample could not be decoded
SLUICE_DEFINE_ERROR(IOError, Error);          // a file could not be listed or read
SLUICE_DEFINE_ERROR(CudaError, Error);        // a CUDA / nvJPEG call failed
SLUICE_DEFINE_ERROR(OutOfMemory, Error);      // an allocation failed
SLUICE_DEFINE_ERROR(NotImplemented, Error);   // a feature this build or version lacks
SLUICE_DEFINE_ERROR(Cancelled, Error);        // work abandoned because the pipeline shut down
SLUICE_DEFINE_ERROR(EndOfData, Error);        // a source is exhausted (Python StopIteration)

// Rethrows `e` as the same error type with `context` prepended to its message.
[[noreturn]] void rethrow_with_context(std::exception_ptr e, const std::string& context);

// Returns `e` with `context` prepended (same type where it is a sluice::Error).
std::exception_ptr add_context(std::exception_ptr e, const std::string& context);

}  // namespace sluice

#define SLUICE_STRINGIFY_IMPL(x) #x
#define SLUICE_STRINGIFY(x) SLUICE_STRINGIFY_IMPL(x)

// Throws sluice::Error when `cond` is false. For internal invariants and user errors that do
// not have a more specific class; the message records the source location.
#define SLUICE_ENFORCE(cond, ...)                                                                \
  do {                                                                                           \
    if (!(cond))                                                                                 \
      throw ::sluice::Error(                                                                     \
          ::sluice::make_string(__VA_ARGS__, " [" __FILE__ ":" SLUICE_STRINGIFY(__LINE__) "]")); \
  } while (0)

// Throws `ErrorType` with the message when `cond` is false.
#define SLUICE_CHECK(cond, ErrorType, ...)                            \
  do {                                                                \
    if (!(cond)) throw ErrorType(::sluice::make_string(__VA_ARGS__)); \
  } while (0)
