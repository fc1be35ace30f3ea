# How the project's libraries and tools link MLIR.
#
# WRAPPER_LINK_MLIR_DYLIB (default ON when MLIR was built with libMLIR.so, as
# Debian's and most distributions' packages are): every library and tool links
# the one shared libMLIR.so instead of MLIR's static libraries, so the tools
# no longer each carry their own copy of MLIR. OFF restores static linking
# (the MLIR*.a libraries named in LINK_LIBS).
if(TARGET MLIR)
  set(_wrapper_dylib_default ON)
else()
  set(_wrapper_dylib_default OFF)
endif()
option(WRAPPER_LINK_MLIR_DYLIB
  "Link the project's libraries and tools against libMLIR.so" ${_wrapper_dylib_default})
if(WRAPPER_LINK_MLIR_DYLIB AND NOT TARGET MLIR)
  message(FATAL_ERROR "WRAPPER_LINK_MLIR_DYLIB is ON but this MLIR has no "
                      "libMLIR.so (target MLIR); configure with "
                      "-DWRAPPER_LINK_MLIR_DYLIB=OFF")
endif()
message(STATUS "Linking MLIR as a shared library: ${WRAPPER_LINK_MLIR_DYLIB}")

# wrapper_mlir_libs(OUT item...): the items with MLIR's own libraries (names
# starting with "MLIR", the project's start with "Wrapper" or
# "TensorProgram") replaced by the dylib when WRAPPER_LINK_MLIR_DYLIB is on.
# Keywords (PUBLIC, PRIVATE, INTERFACE) and other items pass through.
function(wrapper_mlir_libs out)
  set(result)
  set(dylib_added OFF)
  foreach(item ${ARGN})
    if(WRAPPER_LINK_MLIR_DYLIB AND item MATCHES "^MLIR" AND
       NOT item MATCHES "^MLIRExecutionEngineShared$")
      if(NOT dylib_added)
        list(APPEND result MLIR)
        set(dylib_added ON)
      endif()
    else()
      list(APPEND result ${item})
    endif()
  endforeach()
  set(${out} ${result} PARENT_SCOPE)
endfunction()

# wrapper_target_link_libraries(target item...): target_link_libraries with
# MLIR's libraries mapped as wrapper_mlir_libs does.
function(wrapper_target_link_libraries target)
  wrapper_mlir_libs(libs ${ARGN})
  target_link_libraries(${target} ${libs})
endfunction()

# add_wrapper_library(name ...) wraps add_mlir_library: it builds the library
# as MLIR builds its own (MLIR's libraries in LINK_LIBS mapped as above), but
# installs it into this project's export set (WrapperTargets) instead of
# MLIR's, so that the installed package can be consumed with
# find_package(Wrapper) and targets Wrapper::<name>.
function(add_wrapper_library name)
  wrapper_mlir_libs(args ${ARGN})
  add_mlir_library(${name} DISABLE_INSTALL ${args})
  target_include_directories(${name} INTERFACE
    $<INSTALL_INTERFACE:include>)
  install(TARGETS ${name}
          EXPORT WrapperTargets
          ARCHIVE DESTINATION lib
          LIBRARY DESTINATION lib)
  set_property(GLOBAL APPEND PROPERTY WRAPPER_EXPORTED_LIBS ${name})
endfunction()

# Same, for dialect libraries (adds the dependency on generated headers).
function(add_wrapper_dialect_library name)
  set_property(GLOBAL APPEND PROPERTY MLIR_DIALECT_LIBS ${name})
  add_wrapper_library(${name} ${ARGN} DEPENDS mlir-headers)
endfunction()
