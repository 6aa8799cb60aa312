# DlqdSink.cmake — the sink plugin ABI in the build: the installed header
# and pkg-config file that out-of-tree sinks build against, and
# dlqd_add_sink(), which builds a built-in sink exactly as a third-party one
# is built: a MODULE that exports dlq_sink_entry and nothing else.
#
# Expects DLQD_PLUGIN_DIR (where built-in sinks are output in the build tree)
# and GNUInstallDirs to be set up by the includer.

# Where sinks are installed, relative to the install prefix.
set(DLQD_PLUGIN_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/dlqd/sinks")

# The version script every built-in sink is linked with: the entry is the
# only dynamic symbol, whatever the sink links in statically.
set(DLQD_SINK_VERSION_SCRIPT "${PROJECT_BINARY_DIR}/dlq_sink.map")
file(WRITE "${DLQD_SINK_VERSION_SCRIPT}" "{ global: dlq_sink_entry; local: *; };\n")

# dlqd_sink_pc_path(<out> <relative-or-absolute dir>): a directory for the
# .pc file, as given when absolute, else under ${prefix}.
function(dlqd_sink_pc_path out dir)
  if(IS_ABSOLUTE "${dir}")
    set(${out} "${dir}" PARENT_SCOPE)
  else()
    set(${out} "\${prefix}/${dir}" PARENT_SCOPE)
  endif()
endfunction()

# The .pc file is relocatable: its prefix is found from where the file lies
# (${pcfiledir}), so a staged `cmake --install --prefix <dir>` works too.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(DLQD_SINK_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH _dlqd_sink_up "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
  string(REGEX REPLACE "/$" "" _dlqd_sink_up "${_dlqd_sink_up}")
  set(DLQD_SINK_PC_PREFIX "\${pcfiledir}/${_dlqd_sink_up}")
endif()
dlqd_sink_pc_path(DLQD_SINK_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
dlqd_sink_pc_path(DLQD_SINK_PC_PLUGINDIR "${DLQD_PLUGIN_INSTALL_DIR}")
file(STRINGS "${PROJECT_SOURCE_DIR}/core/dlq_sink.h" _dlqd_sink_abi
     REGEX "^#define DLQ_SINK_ABI_VERSION [0-9]+$")
string(REGEX REPLACE ".* " "" DLQD_SINK_ABI_VERSION "${_dlqd_sink_abi}")
configure_file("${PROJECT_SOURCE_DIR}/core/dlqd-sink.pc.in"
               "${PROJECT_BINARY_DIR}/dlqd-sink.pc" @ONLY)

install(FILES "${PROJECT_SOURCE_DIR}/core/dlq_sink.h"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/dlqd" COMPONENT dev)
install(FILES "${PROJECT_BINARY_DIR}/dlqd-sink.pc"
        DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig" COMPONENT dev)

# dlqd_add_sink(<type> [NO_INSTALL] <sources>...)
# Builds target dlq_sink_<type>, file ${DLQD_PLUGIN_DIR}/libdlq_sink_<type>.so,
# installed to ${DLQD_PLUGIN_INSTALL_DIR} unless NO_INSTALL (test sinks), as
# the component dlqd (embedded, noop) or sink-<type> (packaging.cmake).
# The sink sees core/ for dlq_sink.h only and links nothing of dlqd; a sink
# that links a static library keeps its symbols hidden (version script), and
# -z defs makes any symbol left to be found in the daemon a link error.
function(dlqd_add_sink type)
  cmake_parse_arguments(PARSE_ARGV 1 SINK "NO_INSTALL" "" "")
  set(target dlq_sink_${type})
  add_library(${target} MODULE ${SINK_UNPARSED_ARGUMENTS})
  target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}/core")
  target_link_options(${target} PRIVATE
    "-Wl,--version-script=${DLQD_SINK_VERSION_SCRIPT}" "-Wl,-z,defs")
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME dlq_sink_${type}
    PREFIX "lib"
    SUFFIX ".so"
    C_VISIBILITY_PRESET hidden
    LIBRARY_OUTPUT_DIRECTORY "${DLQD_PLUGIN_DIR}"
    LINK_DEPENDS "${DLQD_SINK_VERSION_SCRIPT}")
  if(NOT SINK_NO_INSTALL)       # the store and noop come with dlqd; each network sink in a package of its own
    if(type STREQUAL "embedded" OR type STREQUAL "noop")
      set(component dlqd)
    else()
      set(component sink-${type})
    endif()
    install(TARGETS ${target} LIBRARY DESTINATION "${DLQD_PLUGIN_INSTALL_DIR}" COMPONENT ${component})
  endif()
endfunction()
