# Building programs for SimGrid SMPI: SMPI runs every rank as a thread of
# one process, so a simulated program cannot use the MPI-linked libballast;
# it is compiled whole by smpicc, the library's sources with its own.
# The sources are the ones the normal build compiles: the library's objects
# (ballast_obj, filled by each module's target_sources) restricted to the
# modules the program uses, so that a file added to or removed from a
# module changes both builds.
#   ballast_smpi_build()    any program: the modules and sources it names
#                           (examples/heat_geo's SMPI build)
#   ballast_smpi_program()  a tool (`ballast simulate-dlb`, `simulate-uts`):
#                           core, overlay, steal and the tools' common library
# Included from the top-level CMakeLists.txt after src/ (when
# BALLAST_HAVE_SMPI), so that tools/ and examples/ both see the functions.
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

# ballast_smpi_build(TARGET OUTPUT FILE MODULES module... SOURCES file...
#                    [CFLAGS flag...] [LIBS flag...] [DEPENDS file...]):
# builds FILE with smpicc from the library's sources of the named modules
# (src/MODULE) and the given sources (absolute, or relative to the current
# source directory), with BALLAST_SMPI defined and the normal build's
# flags; CFLAGS go before the sources, LIBS after the output (-lm and
# -lpthread always). TARGET (built by default) makes FILE.
function(ballast_smpi_build target)
  cmake_parse_arguments(PARSE_ARGV 1 A "" "OUTPUT" "MODULES;SOURCES;CFLAGS;LIBS;DEPENDS")
  _bal_target_sources(_lib ballast_obj)
  list(JOIN A_MODULES "|" _re)
  list(FILTER _lib INCLUDE REGEX "/src/(${_re})/[^/]+\\.c$")
  set(_own "")
  foreach(s IN LISTS A_SOURCES)
    cmake_path(ABSOLUTE_PATH s BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} NORMALIZE OUTPUT_VARIABLE s)
    list(APPEND _own ${s})
  endforeach()
  # Headers, for rebuilds only (what the sources include).
  set(_globs ${PROJECT_SOURCE_DIR}/include/ballast/*.h)
  foreach(m IN LISTS A_MODULES)
    list(APPEND _globs ${PROJECT_SOURCE_DIR}/src/${m}/*.h)
  endforeach()
  file(GLOB _hdrs CONFIGURE_DEPENDS ${_globs})
  cmake_path(GET A_OUTPUT PARENT_PATH _dir)
  # smpicc wraps the C compiler; -std=gnu: SimGrid's headers need extensions.
  add_custom_command(OUTPUT ${A_OUTPUT}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_dir}
    COMMAND ${BALLAST_SMPICC} ${_bal_smpi_cflags} -std=gnu${CMAKE_C_STANDARD} ${_bal_smpi_warnings}
      ${_bal_smpi_defs} -DBALLAST_SMPI
      -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_BINARY_DIR}/include -I${PROJECT_SOURCE_DIR}/src
      ${A_CFLAGS} ${_lib} ${_own} -o ${A_OUTPUT} ${A_LIBS} -lm -lpthread
    DEPENDS ${_lib} ${_own} ${_hdrs} ${A_DEPENDS}
      ${PROJECT_BINARY_DIR}/include/ballast/version.h ${PROJECT_BINARY_DIR}/include/ballast/features.h
    COMMENT "Building ${target} for SimGrid SMPI (smpicc)"
    VERBATIM)
  add_custom_target(${target} ALL DEPENDS ${A_OUTPUT})
endfunction()

# ballast_smpi_program(NAME TOOL_TARGET OUT_REL_VAR [extra flags...]):
# builds libexec/ballast/NAME with smpicc from the library's core, overlay
# and steal sources, the tools' common ones and TOOL_TARGET's own, with
# BALLAST_SMPI defined; extra flags (include and link flags of the tool's
# own dependencies) go to smpicc, after the sources. Sets OUT_REL_VAR to the program's path
# relative to bin/, where the launchers find it. Installed to libexec.
function(ballast_smpi_program name tool out_rel)
  _bal_target_sources(_tool_srcs ${tool})
  _bal_target_sources(_cli_srcs ballast_cli)
  get_target_property(_tool_dir ${tool} SOURCE_DIR)
  file(GLOB _tool_hdrs CONFIGURE_DEPENDS ${_tool_dir}/*.h ${PROJECT_SOURCE_DIR}/tools/common/*.h)
  # Where the launcher finds it, relative to its own directory: the same in
  # the build tree (tools/) and once installed (bin/).
  file(RELATIVE_PATH _rel ${CMAKE_INSTALL_FULL_BINDIR}
    ${CMAKE_INSTALL_FULL_LIBEXECDIR}/ballast/${name})
  set(_exe ${PROJECT_BINARY_DIR}/tools/${_rel})
  cmake_path(NORMAL_PATH _exe)
  ballast_smpi_build(ballast_${name}_smpi OUTPUT ${_exe} MODULES core overlay steal
    SOURCES ${_cli_srcs} ${_tool_srcs}
    CFLAGS -DBALLAST_MPIEXEC="${BALLAST_SMPIRUN}" -DBALLAST_MPIEXEC_OVERSUBSCRIBE=0
      -I${PROJECT_SOURCE_DIR}/tools ${JSONC_CFLAGS}
    LIBS ${JSONC_LDFLAGS} ${ARGN}
    DEPENDS ${_tool_hdrs})
  install(PROGRAMS ${_exe} DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/ballast)
  set(${out_rel} ${_rel} PARENT_SCOPE)
endfunction()
