# JEET_STATIC_LLVM (the self-contained Python wheel) links LLVM and MLIR
# statically. Debian's static MLIR libraries name their LLVM and MLIR
# dependencies by the shared libraries' targets, LLVM (libLLVM.so) and MLIR
# (libMLIR.so), which would make the extension load those at run time. This
# replaces the two names, in every imported static library, by the static
# libraries themselves: the linker takes from them only the objects that are
# referenced, and --gc-sections drops what no path from the module reaches.

# Sets `out` to TRUE when the static library `lib` and everything it links,
# transitively, exist here: not so for components that need packages this
# build does not look for (Debuginfod needs CURL, LineEditor libedit), a
# system library that is not installed (Exegesis needs libpfm) or an archive
# that is not installed (Polly, through LLVMExtensions).
# Nothing Jeet uses needs them. The answers are kept in global properties.
function(_jeet_static_library_usable lib out)
  get_property(known GLOBAL PROPERTY _JEET_USABLE_${lib} SET)
  if(known)
    get_property(usable GLOBAL PROPERTY _JEET_USABLE_${lib})
    set(${out} ${usable} PARENT_SCOPE)
    return()
  endif()
  # Assumed usable while it is being checked (dependency cycles).
  set_property(GLOBAL PROPERTY _JEET_USABLE_${lib} TRUE)
  set(usable TRUE)
  if(NOT TARGET ${lib})
    set(usable FALSE)
  else()
    get_target_property(type ${lib} TYPE)
    get_target_property(location ${lib} LOCATION)
    if(NOT type STREQUAL "STATIC_LIBRARY" OR NOT EXISTS "${location}")
      set(usable FALSE)
    endif()
  endif()
  if(usable)
    get_target_property(deps ${lib} INTERFACE_LINK_LIBRARIES)
    foreach(dep IN LISTS deps)
      if(dep MATCHES "::" AND NOT TARGET ${dep})
        set(usable FALSE)
      elseif(dep MATCHES "^[A-Za-z0-9_]+$" AND NOT TARGET ${dep})
        # A system library by name (m, rt, z3, pfm): is it installed?
        find_library(JEET_SYSTEM_LIBRARY_${dep} ${dep})
        if(NOT JEET_SYSTEM_LIBRARY_${dep})
          set(usable FALSE)
        endif()
      elseif(TARGET ${dep})
        get_target_property(dep_type ${dep} TYPE)
        if(dep_type STREQUAL "STATIC_LIBRARY")
          _jeet_static_library_usable(${dep} dep_usable)
          if(NOT dep_usable)
            set(usable FALSE)
          endif()
        endif()
      endif()
    endforeach()
  endif()
  set_property(GLOBAL PROPERTY _JEET_USABLE_${lib} ${usable})
  set(${out} ${usable} PARENT_SCOPE)
endfunction()

function(jeet_link_llvm_statically)
  set(llvm_static)
  foreach(lib IN LISTS LLVM_AVAILABLE_LIBS)
    if(lib MATCHES "^LLVM")
      _jeet_static_library_usable(${lib} usable)
      if(usable)
        list(APPEND llvm_static ${lib})
      endif()
    endif()
  endforeach()
  # Every path needs LLVMSupport. When a package it links was not found,
  # say which and how to get it, rather than fail in CMake's generate step
  # on the missing target.
  if(NOT "LLVMSupport" IN_LIST llvm_static)
    get_target_property(deps LLVMSupport INTERFACE_LINK_LIBRARIES)
    set(missing)
    foreach(dep IN LISTS deps)
      if(dep MATCHES "::" AND NOT TARGET ${dep})
        list(APPEND missing ${dep})
      endif()
    endforeach()
    list(JOIN missing ", " missing)
    message(FATAL_ERROR
      "JEET_STATIC_LLVM: the static LLVMSupport links ${missing}, which "
      "CMake did not find. Install the development packages (zstd: "
      "libzstd-dev, ZLIB: zlib1g-dev); `make setup` does.")
  endif()
  set(mlir_static)
  get_property(mlir_libs GLOBAL PROPERTY MLIR_ALL_LIBS)
  foreach(lib IN LISTS mlir_libs)
    _jeet_static_library_usable(${lib} usable)
    if(usable)
      list(APPEND mlir_static ${lib})
    endif()
  endforeach()

  get_property(imported DIRECTORY "${PROJECT_SOURCE_DIR}"
    PROPERTY IMPORTED_TARGETS)
  foreach(target IN LISTS imported)
    get_target_property(type ${target} TYPE)
    if(NOT type MATCHES "^(STATIC|INTERFACE)_LIBRARY$")
      continue()
    endif()
    get_target_property(libs ${target} INTERFACE_LINK_LIBRARIES)
    if(NOT libs)
      continue()
    endif()
    set(static)
    foreach(lib IN LISTS libs)
      if(lib MATCHES "^(\\$<LINK_ONLY:)?LLVM>?$")
        list(APPEND static ${llvm_static})
      elseif(lib MATCHES "^(\\$<LINK_ONLY:)?MLIR>?$")
        list(APPEND static ${mlir_static})
      else()
        list(APPEND static ${lib})
      endif()
    endforeach()
    set_target_properties(${target} PROPERTIES
      INTERFACE_LINK_LIBRARIES "${static}")
  endforeach()
endfunction()
