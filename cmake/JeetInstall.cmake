# Jeet as a dependency: `cmake --install build --prefix P` installs the
# public headers, libjeet_runtime and libjeet_compiler (their install rules
# are beside the targets), the tools, and the CMake package
# P/lib/cmake/Jeet, so that another project finds Jeet with
#   find_package(Jeet 0.1 REQUIRED)   # imported targets Jeet::Runtime, Jeet::Compiler
include(CMakePackageConfigHelpers)
set(JEET_INSTALL_CMAKE_DIR lib/cmake/Jeet)

# Public headers: the runtime's and the compiler's APIs (C and C++), not the
# dialect and pass headers, which need MLIR's.
install(FILES ${PROJECT_BINARY_DIR}/include/jeet/Version.h
  DESTINATION include/jeet)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/jeet/Runtime
  DESTINATION include/jeet FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_SOURCE_DIR}/include/jeet-c/Runtime.h
  DESTINATION include/jeet-c)
if(NOT JEET_RUNTIME_ONLY)
  install(FILES
    ${PROJECT_SOURCE_DIR}/include/jeet/Compiler/Artifact.h
    ${PROJECT_SOURCE_DIR}/include/jeet/Compiler/Compiler.h
    ${PROJECT_SOURCE_DIR}/include/jeet/Compiler/Graph.h
    DESTINATION include/jeet/Compiler)
  install(FILES ${PROJECT_SOURCE_DIR}/include/jeet-c/Compiler.h
    DESTINATION include/jeet-c)
  # Compiler.h's defaults (no MLIR inside).
  install(FILES
    ${PROJECT_SOURCE_DIR}/include/jeet/Dialect/Jeet/Transforms/FuseDefaults.h
    DESTINATION include/jeet/Dialect/Jeet/Transforms)
endif()

# The C++ API's headers use LLVM's ADT/Support types, so the package finds
# the LLVM it was built with (its version, as libLLVM's soname has it, and its
# folder are recorded).
if(JEET_RUNTIME_ONLY)
  set(JEET_LLVM_VERSION "")
  set(JEET_LLVM_CMAKE_DIR "")
else()
  set(JEET_LLVM_VERSION ${LLVM_VERSION_MAJOR}.${LLVM_VERSION_MINOR})
  set(JEET_LLVM_CMAKE_DIR ${LLVM_DIR})
endif()

install(EXPORT JeetTargets NAMESPACE Jeet::
  DESTINATION ${JEET_INSTALL_CMAKE_DIR} FILE JeetTargets.cmake)
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/JeetConfig.cmake.in
  ${PROJECT_BINARY_DIR}/lib/cmake/Jeet/JeetConfig.cmake
  INSTALL_DESTINATION ${JEET_INSTALL_CMAKE_DIR})
# 0.x: a new minor version may change the API, so only the same minor version
# (at the requested patch level or later) is compatible.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/lib/cmake/Jeet/JeetConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/lib/cmake/Jeet/JeetConfig.cmake
  ${PROJECT_BINARY_DIR}/lib/cmake/Jeet/JeetConfigVersion.cmake
  DESTINATION ${JEET_INSTALL_CMAKE_DIR})
