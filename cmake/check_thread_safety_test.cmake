# Test that clang's thread-safety analysis guards the annotated state: a read under its mutex
# compiles, the same read without it fails the build (-Werror=thread-safety, SluiceOptions.cmake).
#   cmake -DCXX=clang++-14 -DSRC=src -DWORK=scratch-dir -P cmake/check_thread_safety_test.cmake
cmake_minimum_required(VERSION 3.24)
file(MAKE_DIRECTORY ${WORK})
foreach(variant locked unlocked)
  if(variant STREQUAL "locked")
    set(body "sluice::MutexLock lock(mu_);\n    return value_;")
  else()
    set(body "return value_;")
  endif()
  file(WRITE ${WORK}/${variant}.cc "#include \"sluice/core/mutex.h\"\n"
       "class Counter {\n public:\n  int get() {\n    ${body}\n  }\n\n private:\n"
       "  sluice::Mutex mu_;\n  int value_ SLUICE_GUARDED_BY(mu_) = 0;\n};\n"
       "int main() { return Counter().get(); }\n")
  execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only -Wthread-safety -Werror=thread-safety
                          -I${SRC} ${WORK}/${variant}.cc
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(variant STREQUAL "locked" AND NOT rc EQUAL 0)
    message(FATAL_ERROR "a read under its mutex was refused:\n${out}")
  elseif(variant STREQUAL "unlocked" AND (rc EQUAL 0 OR NOT out MATCHES "requires holding mutex"))
    message(FATAL_ERROR "a read without its mutex was not refused (rc ${rc}):\n${out}")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK})
message(STATUS "thread-safety analysis: the locked read compiles, the unlocked one is refused")
