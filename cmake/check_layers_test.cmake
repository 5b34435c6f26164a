# Test of cmake/check_layers.cmake: the real sources pass; an upward include planted in a copy
# of them fails, naming the file and the include.
#   cmake -DSLUICE_SRC=src/sluice -DSLUICE_TABLE=... -DWORK=scratch-dir -P cmake/check_layers_test.cmake
cmake_minimum_required(VERSION 3.24)
set(check ${CMAKE_CURRENT_LIST_DIR}/check_layers.cmake)

function(run_check src expect_ok expect_text)
  execute_process(COMMAND ${CMAKE_COMMAND} -DSLUICE_SRC=${src} -DSLUICE_TABLE=${SLUICE_TABLE}
                          -P ${check}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(expect_ok AND NOT rc EQUAL 0)
    message(FATAL_ERROR "the check refused ${src}:\n${out}")
  elseif(NOT expect_ok AND rc EQUAL 0)
    message(FATAL_ERROR "the check accepted a planted include (${expect_text})")
  endif()
  string(FIND "${out}" "${expect_text}" at)
  if(NOT expect_ok AND at EQUAL -1)
    message(FATAL_ERROR "the check's message does not name '${expect_text}':\n${out}")
  endif()
endfunction()

run_check(${SLUICE_SRC} TRUE "")

# Plant, one at a time, in a copy: core reaching up into exec, a library file using the test
# helpers, a kernel including the graph, and the engine including Python.
set(plants
    "core/error.h|#include \"sluice/exec/executor.h\"|src/sluice/core/error.h: #include \"sluice/exec/executor.h\""
    "io/read_file.cc|#include \"sluice/testing/test_data.h\"|src/sluice/io/read_file.cc: #include \"sluice/testing/test_data.h\""
    "kernels/crop/crop_cpu.h|  #  include <sluice/graph/op_schema.h>|src/sluice/kernels/crop/crop_cpu.h"
    "memory/buffer.h|#include <Python.h>|does not include Python")
foreach(plant IN LISTS plants)
  string(REPLACE "|" ";" parts "${plant}")
  list(GET parts 0 file)
  list(GET parts 1 line)
  list(GET parts 2 expect)
  file(REMOVE_RECURSE ${WORK})
  file(COPY ${SLUICE_SRC}/ DESTINATION ${WORK})
  file(READ ${WORK}/${file} text)
  file(WRITE ${WORK}/${file} "${line}\n${text}")
  run_check(${WORK} FALSE "${expect}")
endforeach()
file(REMOVE_RECURSE ${WORK})
list(LENGTH plants n)
message(STATUS "layer check: the sources pass; each of ${n} planted includes fails")
