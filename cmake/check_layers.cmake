# Fails when a source under SLUICE_SRC (src/sluice) includes a layer it may not use.
#   cmake -DSLUICE_SRC=src/sluice -DSLUICE_TABLE=build/.../sluice_layers.cmake -P cmake/check_layers.cmake
# SLUICE_TABLE (written by sluice_check_layers() in SluiceLayers.cmake) sets SLUICE_LAYERS and,
# for each layer, SLUICE_LAYER_<name>: the layers it may include (itself and those below it).
# Test sources (*_test.cc/.cu, *test_util.h) may also include sluice/testing; nothing under
# src/sluice includes Python or torch.
cmake_minimum_required(VERSION 3.24)
include(${SLUICE_TABLE})
file(GLOB_RECURSE files RELATIVE ${SLUICE_SRC} ${SLUICE_SRC}/*.h ${SLUICE_SRC}/*.cuh
     ${SLUICE_SRC}/*.cc ${SLUICE_SRC}/*.cu)
list(SORT files)
set(errors "")
foreach(f IN LISTS files)
  string(REGEX MATCH "^[^/]+" layer "${f}")
  if(layer STREQUAL "testing")
    continue()
  endif()
  if(NOT layer IN_LIST SLUICE_LAYERS)
    string(APPEND errors "  src/sluice/${f}: the folder '${layer}' is not a declared layer\n")
    continue()
  endif()
  set(allowed ${SLUICE_LAYER_${layer}})
  if(f MATCHES "(_test\\.(cc|cu)|test_util\\.h)$")
    list(APPEND allowed testing)
  endif()
  file(STRINGS ${SLUICE_SRC}/${f} includes
       REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"](sluice/|Python\\.h|nanobind/|torch/)")
  foreach(inc IN LISTS includes)
    if(inc MATCHES "[<\"]sluice/([^/\">]+)/")
      set(target_layer ${CMAKE_MATCH_1})
      if(NOT target_layer IN_LIST allowed)
        string(STRIP "${inc}" inc)
        string(APPEND errors "  src/sluice/${f}: ${inc} (layer ${layer} may use: ${allowed})\n")
      endif()
    else()
      string(STRIP "${inc}" inc)
      string(APPEND errors "  src/sluice/${f}: ${inc} (the engine does not include Python or torch)\n")
    endif()
  endforeach()
endforeach()
if(errors)
  message(FATAL_ERROR "Includes that go up the layers (cmake/SluiceLayers.cmake, "
                      "docs/ARCHITECTURE.md \"Layers\"):\n${errors}")
endif()
