# HipkitPlatform.cmake: choose the vendor and build the .hip kernels with it.
#   HIPKIT_PLATFORM      amd | nvidia (default: nvidia if nvcc is found, else amd)
#   HIPKIT_GPU_TARGETS   gfx list for amd (default gfx90a;gfx1030),
#                        sm numbers for nvidia (default 80;90: machine code for
#                        each, plus PTX of the newest so newer GPUs still run)
# Sets HIPKIT_PLATFORM_DEFINITIONS, HIPKIT_VENDOR_LIBRARIES, the interface
# target hipkit_vendor_headers, and hipkit_add_kernels().

set(HIPKIT_PLATFORM "" CACHE STRING "GPU vendor to build for: amd or nvidia")
set_property(CACHE HIPKIT_PLATFORM PROPERTY STRINGS amd nvidia)
set(HIPKIT_GPU_TARGETS "" CACHE STRING "GPU architectures (gfx90a;gfx1030 or 80;90)")

if(HIPKIT_PLATFORM STREQUAL "")
  find_program(HIPKIT_NVCC_PROBE nvcc HINTS /usr/local/cuda/bin ENV CUDA_PATH PATH_SUFFIXES bin)
  if(HIPKIT_NVCC_PROBE)
    set(HIPKIT_PLATFORM nvidia CACHE STRING "GPU vendor to build for: amd or nvidia" FORCE)
  else()
    set(HIPKIT_PLATFORM amd CACHE STRING "GPU vendor to build for: amd or nvidia" FORCE)
  endif()
endif()
if(NOT HIPKIT_PLATFORM MATCHES "^(amd|nvidia)$")
  message(FATAL_ERROR "HIPKIT_PLATFORM must be 'amd' or 'nvidia', not '${HIPKIT_PLATFORM}'")
endif()
message(STATUS "hipkit: building for ${HIPKIT_PLATFORM}")

add_library(hipkit_vendor_headers INTERFACE)

if(HIPKIT_PLATFORM STREQUAL "nvidia")
  if(HIPKIT_GPU_TARGETS STREQUAL "")
    set(HIPKIT_GPU_TARGETS "80;90" CACHE STRING "GPU architectures" FORCE)
  endif()
  # 80-real;90: SASS for each, PTX only for the last (newest).
  set(_archs "")
  list(LENGTH HIPKIT_GPU_TARGETS _n)
  math(EXPR _last "${_n} - 1")
  foreach(_i RANGE ${_last})
    list(GET HIPKIT_GPU_TARGETS ${_i} _t)
    string(REGEX REPLACE "^sm_" "" _t "${_t}")
    if(NOT _t MATCHES "^[0-9]+a?$")
      message(FATAL_ERROR "HIPKIT_GPU_TARGETS: '${_t}' is not an NVIDIA architecture number such as 90")
    endif()
    if(_i EQUAL _last)
      list(APPEND _archs "${_t}")
    else()
      list(APPEND _archs "${_t}-real")
    endif()
  endforeach()
  set(CMAKE_CUDA_ARCHITECTURES "${_archs}")
  if(NOT CMAKE_CUDA_COMPILER)
    find_program(_nvcc nvcc HINTS /usr/local/cuda/bin ENV CUDA_PATH PATH_SUFFIXES bin)
    if(_nvcc)
      set(CMAKE_CUDA_COMPILER "${_nvcc}")
    endif()
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  # NVRTC is opened at run time (dlopen); the toolkit's folder is a fallback path.
  set(HIPKIT_PLATFORM_DEFINITIONS HIPKIT_PLATFORM_NVIDIA "HIPKIT_NVRTC_DIR=\"${CUDAToolkit_LIBRARY_DIR}\"")
  set(HIPKIT_PLATFORM_HOST_SOURCES src/gpu/nvrtc_loader.c src/gpu/fast_launch_nvidia.c)
  # The static runtime: no libcudart.so to find at run time; the driver is
  # opened lazily, so the library loads on machines without one.
  set(HIPKIT_VENDOR_LIBRARIES CUDA::cudart_static)
  target_link_libraries(hipkit_vendor_headers INTERFACE CUDA::cudart_static)

  function(hipkit_add_kernels target out_var)
    foreach(src ${ARGN})
      set_source_files_properties(${src} PROPERTIES LANGUAGE CUDA)
    endforeach()
    target_sources(${target} PRIVATE ${ARGN})
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --expt-relaxed-constexpr>)
    set(${out_var} "" PARENT_SCOPE)
  endfunction()
else()
  if(HIPKIT_GPU_TARGETS STREQUAL "")
    set(HIPKIT_GPU_TARGETS "gfx90a;gfx1030" CACHE STRING "GPU architectures" FORCE)
  endif()
  find_program(HIPKIT_HIPCC hipcc HINTS /opt/rocm/bin ENV ROCM_PATH PATH_SUFFIXES bin)
  if(NOT HIPKIT_HIPCC)
    message(FATAL_ERROR "HIPKIT_PLATFORM=amd needs hipcc (Debian: apt-get install hipcc libamdhip64-dev rocm-device-libs)")
  endif()
  find_path(HIPKIT_HIP_INCLUDE_DIR hip/hip_runtime_api.h HINTS /opt/rocm/include ENV ROCM_PATH PATH_SUFFIXES include)
  find_library(HIPKIT_AMDHIP64 amdhip64 HINTS /opt/rocm/lib ENV ROCM_PATH PATH_SUFFIXES lib)
  if(NOT HIPKIT_HIP_INCLUDE_DIR OR NOT HIPKIT_AMDHIP64)
    message(FATAL_ERROR "HIPKIT_PLATFORM=amd needs the HIP runtime headers and libamdhip64 (Debian: libamdhip64-dev)")
  endif()
  set(HIPKIT_PLATFORM_DEFINITIONS HIPKIT_PLATFORM_AMD __HIP_PLATFORM_AMD__=1)
  set(HIPKIT_PLATFORM_HOST_SOURCES "")
  set(HIPKIT_VENDOR_LIBRARIES ${HIPKIT_AMDHIP64})
  target_include_directories(hipkit_vendor_headers INTERFACE ${HIPKIT_HIP_INCLUDE_DIR})
  target_compile_definitions(hipkit_vendor_headers INTERFACE __HIP_PLATFORM_AMD__=1)

  # Debian's CMake cannot enable the HIP language (it looks for hip-lang in the
  # wrong multiarch folder), so each .hip file is one hipcc custom command.
  function(hipkit_add_kernels target out_var)
    set(_objs "")
    set(_offload "")
    foreach(_t ${HIPKIT_GPU_TARGETS})
      if(NOT _t MATCHES "^gfx[0-9a-f]+")
        message(FATAL_ERROR "HIPKIT_GPU_TARGETS: '${_t}' is not an AMD architecture such as gfx90a")
      endif()
      list(APPEND _offload "--offload-arch=${_t}")
    endforeach()
    set(_cfg_flags "-O3")
    if(CMAKE_BUILD_TYPE STREQUAL "Debug")
      # -O1, not -O0: at -O0 the AMDGPU back end gives every kernel of a file every __shared__ array of
      # that file, past the 64 KiB limit (sort.hip); -O1 keeps each kernel's own.
      set(_cfg_flags "-O1;-g")
    endif()
    foreach(src ${ARGN})
      # hip_kernels/<family>/<name>.hip -> <build>/hip_kernels/<family>/<name>.o
      string(REGEX REPLACE "\\.hip$" ".o" _rel "${src}")
      set(_obj "${CMAKE_CURRENT_BINARY_DIR}/${_rel}")
      get_filename_component(_obj_dir "${_obj}" DIRECTORY)
      add_custom_command(
        OUTPUT ${_obj}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${_obj_dir}
        COMMAND ${HIPKIT_HIPCC} -x hip -std=c++17 -fPIC -fvisibility=hidden ${_cfg_flags} -Wall -Wextra
                ${_offload} -DHIPKIT_PLATFORM_AMD -D__HIP_PLATFORM_AMD__=1
                -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_SOURCE_DIR}/src -I${PROJECT_SOURCE_DIR}/hip_kernels
                -MD -MF ${_obj}.d -c ${PROJECT_SOURCE_DIR}/${src} -o ${_obj}
        DEPENDS ${PROJECT_SOURCE_DIR}/${src}
        DEPFILE ${_obj}.d
        COMMENT "hipcc ${src} (${HIPKIT_GPU_TARGETS})"
        VERBATIM)
      list(APPEND _objs ${_obj})
    endforeach()
    set_source_files_properties(${_objs} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
    set(${out_var} ${_objs} PARENT_SCOPE)
  endfunction()
endif()
