# Every external dependency is found here, in one place.

find_package(JPEG REQUIRED)   # libjpeg-turbo through the libjpeg API (jpeglib.h)
find_package(PNG REQUIRED)
find_package(Threads REQUIRED)

# nlohmann/json: the system package, or a header copied into third_party/include (GPU machine).
find_package(nlohmann_json 3.10 QUIET)
if(NOT nlohmann_json_FOUND)
  find_path(SLUICE_NLOHMANN_INCLUDE nlohmann/json.hpp
            PATHS ${PROJECT_SOURCE_DIR}/third_party/include /usr/include /usr/local/include)
  if(NOT SLUICE_NLOHMANN_INCLUDE)
    message(FATAL_ERROR "nlohmann/json not found: install nlohmann-json3-dev")
  endif()
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  target_include_directories(nlohmann_json::nlohmann_json INTERFACE ${SLUICE_NLOHMANN_INCLUDE})
endif()

# RapidJSON (header-only; COCO annotations, whose files reach hundreds of megabytes: its SAX
# reader is several times faster than nlohmann/json's): the system package, or the headers copied
# into third_party/include (GPU machine).
find_path(SLUICE_RAPIDJSON_INCLUDE rapidjson/reader.h
          PATHS ${PROJECT_SOURCE_DIR}/third_party/include /usr/include /usr/local/include)
if(NOT SLUICE_RAPIDJSON_INCLUDE)
  message(FATAL_ERROR "RapidJSON not found: install rapidjson-dev")
endif()
add_library(sluice_rapidjson INTERFACE IMPORTED)
target_include_directories(sluice_rapidjson INTERFACE ${SLUICE_RAPIDJSON_INCLUDE})

# Optional libraries for more formats, each found on its own: a machine without one builds without
# that format (the operator says which package to install). SLUICE_HAS_<LIB> tells the build.
function(sluice_optional_library var want)
  # ARGN: the imported target's name, then the header to find, then the library names.
  list(POP_FRONT ARGN target header)
  set(${var} OFF PARENT_SCOPE)
  if(want STREQUAL "OFF")
    return()
  endif()
  find_path(${var}_INCLUDE ${header} PATH_SUFFIXES openjpeg-2.5 openjpeg-2.4 openjpeg-2.3)
  find_library(${var}_LIBRARY NAMES ${ARGN})
  if(${var}_INCLUDE AND ${var}_LIBRARY)
    add_library(${target} INTERFACE IMPORTED GLOBAL)
    target_include_directories(${target} INTERFACE ${${var}_INCLUDE})
    target_link_libraries(${target} INTERFACE ${${var}_LIBRARY})
    set(${var} ON PARENT_SCOPE)
  elseif(want STREQUAL "ON")
    message(FATAL_ERROR "${header} / lib${ARGV3} not found (${var})")
  endif()
endfunction()
sluice_optional_library(SLUICE_HAS_TIFF "${SLUICE_WITH_IMAGE_LIBS}" sluice::tiff tiffio.h tiff)
sluice_optional_library(SLUICE_HAS_WEBP "${SLUICE_WITH_IMAGE_LIBS}" sluice::webp webp/decode.h webp)
sluice_optional_library(SLUICE_HAS_OPENJPEG "${SLUICE_WITH_IMAGE_LIBS}" sluice::openjpeg openjpeg.h
                        openjp2)
sluice_optional_library(SLUICE_HAS_LMDB "${SLUICE_WITH_LMDB}" sluice::lmdb lmdb.h lmdb)
# libcurl >= 7.75 signs S3 requests itself (CURLOPT_AWS_SIGV4).
sluice_optional_library(SLUICE_HAS_CURL "${SLUICE_WITH_CURL}" sluice::curl curl/curl.h curl)

# CUDA: optional, auto-detected.
set(SLUICE_HAS_CUDA OFF)
if(NOT SLUICE_WITH_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  if(NOT CMAKE_CUDA_COMPILER)
    if(EXISTS /usr/local/cuda/bin/nvcc)
      set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
    else()
      check_language(CUDA)
    endif()
  endif()
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE _smi OUTPUT_QUIET ERROR_QUIET)
      if(_smi EQUAL 0)
        set(CMAKE_CUDA_ARCHITECTURES native)
      else()
        set(CMAKE_CUDA_ARCHITECTURES 90)
      endif()
    endif()
    enable_language(CUDA)
    # CMake 3.25's tables stop at C++17 for nvcc; nvcc 13 takes -std=c++20.
    if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(SLUICE_HAS_CUDA ON)
  elseif(SLUICE_WITH_CUDA STREQUAL "ON")
    message(FATAL_ERROR "SLUICE_WITH_CUDA=ON but no CUDA compiler was found")
  endif()
endif()

# nvJPEG: optional; from the toolkit or from SLUICE_NVJPEG_ROOT (the nvidia-nvjpeg wheel).
set(SLUICE_HAS_NVJPEG OFF)
if(SLUICE_HAS_CUDA AND NOT SLUICE_WITH_NVJPEG STREQUAL "OFF")
  find_path(SLUICE_NVJPEG_INCLUDE nvjpeg.h
            HINTS ${SLUICE_NVJPEG_ROOT}/include ${CUDAToolkit_INCLUDE_DIRS} NO_DEFAULT_PATH)
  find_library(SLUICE_NVJPEG_LIBRARY NAMES nvjpeg libnvjpeg.so.13 libnvjpeg.so.12
               HINTS ${SLUICE_NVJPEG_ROOT}/lib ${CUDAToolkit_LIBRARY_DIR} NO_DEFAULT_PATH)
  if(SLUICE_NVJPEG_INCLUDE AND SLUICE_NVJPEG_LIBRARY)
    add_library(sluice_nvjpeg_lib INTERFACE IMPORTED)
    target_include_directories(sluice_nvjpeg_lib INTERFACE ${SLUICE_NVJPEG_INCLUDE})
    target_link_libraries(sluice_nvjpeg_lib INTERFACE ${SLUICE_NVJPEG_LIBRARY})
    set(SLUICE_HAS_NVJPEG ON)
  elseif(SLUICE_WITH_NVJPEG STREQUAL "ON")
    message(FATAL_ERROR "SLUICE_WITH_NVJPEG=ON but nvjpeg.h / libnvjpeg were not found")
  endif()
endif()

if(SLUICE_BUILD_TESTS)
  enable_testing()
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    # The GPU machine has no GoogleTest package: build the sources copied into third_party/.
    foreach(_gt ${PROJECT_SOURCE_DIR}/third_party/googletest /usr/src/googletest)
      if(EXISTS ${_gt}/CMakeLists.txt)
        set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
        add_subdirectory(${_gt} ${CMAKE_BINARY_DIR}/googletest EXCLUDE_FROM_ALL)
        add_library(GTest::gtest_main ALIAS gtest_main)
        add_library(GTest::gtest ALIAS gtest)
        set(GTest_FOUND ON)
        break()
      endif()
    endforeach()
  endif()
  if(NOT GTest_FOUND)
    message(FATAL_ERROR "GoogleTest not found: install libgtest-dev")
  endif()
  include(GoogleTest)
endif()

if(SLUICE_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
