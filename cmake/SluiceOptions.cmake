# Warnings and sanitizers shared by every target.

set(SLUICE_CXX_WARNINGS -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers)
# Clang checks the lock annotations (core/thread_annotations.h): a violation fails the build.
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  list(APPEND SLUICE_CXX_WARNINGS -Wthread-safety -Werror=thread-safety)
endif()

if(SLUICE_SANITIZE)
  string(REPLACE ";" "," _san "${SLUICE_SANITIZE}")
  add_compile_options($<$<COMPILE_LANGUAGE:CXX,C>:-fsanitize=${_san}>
                      $<$<COMPILE_LANGUAGE:CXX,C>:-fno-omit-frame-pointer>
                      $<$<COMPILE_LANGUAGE:CXX,C>:-fno-sanitize-recover=all>)
  add_link_options(-fsanitize=${_san})
endif()

# sluice_add_cuda_flags(target): flags for the .cu files of a target.
function(sluice_add_cuda_flags target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -Xcompiler=-Wall -lineinfo>)
endfunction()
