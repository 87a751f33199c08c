# Building a tool for SimGrid SMPI (`ballast simulate-dlb`, `ballast
# simulate-uts`): SMPI runs every rank as a thread of one process, so a
# simulated tool cannot use the MPI-linked libballast; it is compiled whole
# by smpicc, the library's sources with its own.
# The sources are the ones the normal build compiles: the library's objects
# (ballast_obj, filled by each module's target_sources) restricted to the
# modules the tools use (core, overlay, steal), the tools' common library and the tool's own, so
# that a file added to or removed from a module changes both builds.
function(_bal_target_sources out target)
  get_target_property(_srcs ${target} SOURCES)
  get_target_property(_dir ${target} SOURCE_DIR)
  set(_abs "")
  foreach(s IN LISTS _srcs)
    if(s MATCHES "\\.c$")
      cmake_path(ABSOLUTE_PATH s BASE_DIRECTORY ${_dir} NORMALIZE OUTPUT_VARIABLE s)
      list(APPEND _abs ${s})
    endif()
  endforeach()
  set(${out} ${_abs} PARENT_SCOPE)
endfunction()
_bal_target_sources(_bal_lib_srcs ballast_obj)
list(FILTER _bal_lib_srcs INCLUDE REGEX "/src/(core|overlay|steal)/[^/]+\\.c$")
_bal_target_sources(_bal_cli_srcs ballast_cli)
# The flags of the normal build, so that the two cannot drift: the
# project-wide definitions (_GNU_SOURCE) and the library's own
# (BALLAST_BUILDING), the build type's optimisation flags and the warnings
# (less -Wpedantic: SimGrid's headers are not pedantic-clean; -Werror is
# kept when the build has it).
get_directory_property(_bal_dir_defs DIRECTORY ${PROJECT_SOURCE_DIR} COMPILE_DEFINITIONS)
get_target_property(_bal_lib_defs ballast_obj COMPILE_DEFINITIONS)
set(_bal_smpi_defs ${_bal_dir_defs} ${_bal_lib_defs})
list(TRANSFORM _bal_smpi_defs PREPEND -D)
string(TOUPPER "${CMAKE_BUILD_TYPE}" _bal_bt)
separate_arguments(_bal_smpi_cflags UNIX_COMMAND "${CMAKE_C_FLAGS} ${CMAKE_C_FLAGS_${_bal_bt}}")
set(_bal_smpi_warnings ${BALLAST_WARNINGS})
list(REMOVE_ITEM _bal_smpi_warnings -Wpedantic)
# Headers, for rebuilds only (what the sources include).
file(GLOB _bal_smpi_hdrs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/ballast/*.h
  ${PROJECT_SOURCE_DIR}/src/core/*.h ${PROJECT_SOURCE_DIR}/src/overlay/*.h
  ${PROJECT_SOURCE_DIR}/src/steal/*.h ${PROJECT_SOURCE_DIR}/tools/common/*.h)

# ballast_smpi_program(NAME TOOL_TARGET OUT_REL_VAR [extra flags...]):
# builds libexec/ballast/NAME with smpicc from the library's core, overlay
# and steal sources, the tools' common ones and TOOL_TARGET's own, with
# BALLAST_SMPI defined; extra flags (include and link flags of the tool's
# own dependencies) go to smpicc, after the sources. Sets OUT_REL_VAR to the program's path
# relative to bin/, where the launchers find it. Installed to libexec.
function(ballast_smpi_program name tool out_rel)
  _bal_target_sources(_tool_srcs ${tool})
  get_target_property(_tool_dir ${tool} SOURCE_DIR)
  file(GLOB _tool_hdrs CONFIGURE_DEPENDS ${_tool_dir}/*.h)
  set(_srcs ${_bal_lib_srcs} ${_bal_cli_srcs} ${_tool_srcs})
  # Where the launcher finds it, relative to its own directory: the same in
  # the build tree (tools/) and once installed (bin/).
  file(RELATIVE_PATH _rel ${CMAKE_INSTALL_FULL_BINDIR}
    ${CMAKE_INSTALL_FULL_LIBEXECDIR}/ballast/${name})
  set(_exe ${PROJECT_BINARY_DIR}/tools/${_rel})
  cmake_path(NORMAL_PATH _exe)
  cmake_path(GET _exe PARENT_PATH _dir)
  # smpicc wraps the C compiler; -std=gnu: SimGrid's headers need extensions.
  add_custom_command(OUTPUT ${_exe}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_dir}
    COMMAND ${BALLAST_SMPICC} ${_bal_smpi_cflags} -std=gnu${CMAKE_C_STANDARD} ${_bal_smpi_warnings}
      ${_bal_smpi_defs} -DBALLAST_SMPI
      -DBALLAST_MPIEXEC="${BALLAST_SMPIRUN}" -DBALLAST_MPIEXEC_OVERSUBSCRIBE=0
      -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_BINARY_DIR}/include -I${PROJECT_SOURCE_DIR}/src
      -I${PROJECT_SOURCE_DIR}/tools
      ${JSONC_CFLAGS} ${_srcs} -o ${_exe} ${JSONC_LDFLAGS} ${ARGN} -lm -lpthread
    DEPENDS ${_srcs} ${_bal_smpi_hdrs} ${_tool_hdrs}
      ${PROJECT_BINARY_DIR}/include/ballast/version.h ${PROJECT_BINARY_DIR}/include/ballast/features.h
    COMMENT "Building ${name} for SimGrid SMPI (smpicc)"
    VERBATIM)
  add_custom_target(ballast_${name}_smpi ALL DEPENDS ${_exe})
  install(PROGRAMS ${_exe} DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/ballast)
  set(${out_rel} ${_rel} PARENT_SCOPE)
endfunction()

