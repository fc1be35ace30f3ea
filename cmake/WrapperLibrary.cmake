# add_wrapper_library(name ...) wraps add_mlir_library: it builds the library
# exactly as MLIR builds its own, but installs it into this project's export
# set (WrapperTargets) instead of MLIR's, so that the installed package can be
# consumed with find_package(Wrapper) and targets Wrapper::<name>.
function(add_wrapper_library name)
  add_mlir_library(${name} DISABLE_INSTALL ${ARGN})
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
