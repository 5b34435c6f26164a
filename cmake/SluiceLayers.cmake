# Layers: each folder of src/sluice is one library that may use only itself and the layers it
# depends on, declared bottom-up with sluice_add_layer(). Every build checks the sources against
# the declarations (cmake/check_layers.cmake), so an upward #include fails the build instead of
# growing a cycle.
#
# Sources of a layer's folder are partitioned by file name:
#   *_test.cc                  CPU tests (collected into sluice_tests)
#   *_gpu_test.cc, *_gpu_test.cu   GPU tests (sluice_gpu_tests, CTest label "gpu"), CUDA builds only
#   *_benchmark.cc             micro-benchmarks (sluice_benchmarks)
#   *.cu, *_gpu.cc             CUDA builds only;  *_nogpu.cc  builds without CUDA only
#   anything under nvjpeg/     nvJPEG builds only
# Layers are OBJECT libraries, so that every operator's static registration is linked; the
# INTERFACE target `sluice` carries all of them to executables and the Python module.

add_library(sluice INTERFACE)

# sluice_add_layer(NAME [DEPENDS LAYER...]): the library sluice_NAME from src/sluice/NAME.
function(sluice_add_layer name)
  cmake_parse_arguments(L "" "" "DEPENDS" ${ARGN})
  set(allowed ${name})
  foreach(dep IN LISTS L_DEPENDS)
    get_property(dep_allowed GLOBAL PROPERTY SLUICE_LAYER_${dep})
    if(NOT dep_allowed)
      message(FATAL_ERROR "layer ${name} depends on '${dep}', which is not declared below it")
    endif()
    list(APPEND allowed ${dep_allowed})
  endforeach()
  list(REMOVE_DUPLICATES allowed)
  set_property(GLOBAL PROPERTY SLUICE_LAYER_${name} ${allowed})
  set_property(GLOBAL APPEND PROPERTY SLUICE_LAYER_NAMES ${name})

  set(dir ${CMAKE_CURRENT_SOURCE_DIR}/${name})
  file(GLOB_RECURSE files CONFIGURE_DEPENDS ${dir}/*.cc ${dir}/*.cu)
  set(lib_src)
  foreach(f IN LISTS files)
    file(RELATIVE_PATH rel ${CMAKE_CURRENT_SOURCE_DIR} ${f})
    if(rel MATCHES "/nvjpeg/" AND NOT SLUICE_HAS_NVJPEG)
      continue()
    endif()
    if(f MATCHES "_gpu_test\\.(cc|cu)$")
      set_property(GLOBAL APPEND PROPERTY SLUICE_GPU_TEST_SOURCES ${f})
    elseif(f MATCHES "_test\\.cc$")
      set_property(GLOBAL APPEND PROPERTY SLUICE_TEST_SOURCES ${f})
    elseif(f MATCHES "_test\\.cu$")
      message(FATAL_ERROR "${f}: GPU tests are named *_gpu_test.cc or *_gpu_test.cu")
    elseif(f MATCHES "_benchmark\\.cc$")
      set_property(GLOBAL APPEND PROPERTY SLUICE_BENCHMARK_SOURCES ${f})
    elseif(f MATCHES "(\\.cu|_gpu\\.cc)$")
      if(SLUICE_HAS_CUDA)
        list(APPEND lib_src ${f})
      endif()
    elseif(f MATCHES "_nogpu\\.cc$")
      if(NOT SLUICE_HAS_CUDA)
        list(APPEND lib_src ${f})
      endif()
    else()
      list(APPEND lib_src ${f})
    endif()
  endforeach()

  set(target sluice_${name})
  set(deps sluice_headers)
  foreach(dep IN LISTS L_DEPENDS)
    list(APPEND deps sluice_${dep})
  endforeach()
  if(lib_src)
    add_library(${target} OBJECT ${lib_src})
    target_link_libraries(${target} PUBLIC ${deps})
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${SLUICE_CXX_WARNINGS}>)
    if(SLUICE_HAS_CUDA)
      sluice_add_cuda_flags(${target})
    endif()
    add_dependencies(${target} sluice_layer_check)
    target_sources(sluice INTERFACE $<TARGET_OBJECTS:${target}>)
    set_property(GLOBAL APPEND PROPERTY SLUICE_OBJECT_LAYERS ${target})
  else()
    add_library(${target} INTERFACE)  # headers only
    target_link_libraries(${target} INTERFACE ${deps})
  endif()
  target_link_libraries(sluice INTERFACE ${target})
  set_property(GLOBAL APPEND_STRING PROPERTY SLUICE_LAYER_TABLE
               "set(SLUICE_LAYER_${name} \"${allowed}\")\n")
endfunction()

# Call after the last sluice_add_layer(): writes the table the check reads and adds the check,
# which reruns whenever a source changes.
function(sluice_check_layers)
  get_property(names GLOBAL PROPERTY SLUICE_LAYER_NAMES)
  get_property(allowed GLOBAL PROPERTY SLUICE_LAYER_TABLE)
  set(table ${CMAKE_BINARY_DIR}/sluice_layers.cmake)
  file(WRITE ${table}.new "set(SLUICE_LAYERS \"${names}\")\n${allowed}")
  configure_file(${table}.new ${table} COPYONLY)  # touched only when the layers change
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.h
       ${CMAKE_CURRENT_SOURCE_DIR}/*.cuh ${CMAKE_CURRENT_SOURCE_DIR}/*.cc
       ${CMAKE_CURRENT_SOURCE_DIR}/*.cu)
  set(stamp ${CMAKE_BINARY_DIR}/sluice_layers.ok)
  add_custom_command(
    OUTPUT ${stamp}
    COMMAND ${CMAKE_COMMAND} -DSLUICE_SRC=${CMAKE_CURRENT_SOURCE_DIR} -DSLUICE_TABLE=${table}
            -P ${PROJECT_SOURCE_DIR}/cmake/check_layers.cmake
    COMMAND ${CMAKE_COMMAND} -E touch ${stamp}
    DEPENDS ${sources} ${table} ${PROJECT_SOURCE_DIR}/cmake/check_layers.cmake
    COMMENT "Checking that src/sluice includes only downwards"
    VERBATIM)
  add_custom_target(sluice_layer_check DEPENDS ${stamp})
endfunction()
