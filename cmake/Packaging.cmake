# Packaging.cmake — the Debian packages, made with CPack (cpack -G DEB in
# the build directory; docs/operations.md): one package per install
# component, so that a user without Kafka does not pull librdkafka:
#   dlqd               the daemon, dlqctl, libdlq, the embedded store and the
#                      noop sink, the config (a conffile), the unit, the
#                      user and state directory, the man pages, the docs
#   dlqd-sink-<type>   each network sink (amqp, kafka, mongo, postgres) and
#                      its library
#   dlqd-dev           the headers and pkg-config files of libdlq and of
#                      the sink ABI (dlqd-sink.pc)
# Library dependencies come from dpkg-shlibdeps. Configure with
# -DCMAKE_INSTALL_PREFIX=/usr for the FHS paths (/usr/bin, /etc/dlqd,
# /var/lib/dlqd, /usr/lib/systemd/system).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME dlqd)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "dlqd")
set(CPACK_PACKAGE_CONTACT "dlqd developers <dlqd@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "dead-letter gateway for failed events")
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)     # libdlq's users are built with dlqd-dev, which pins the version
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(_dlqd_version "${PROJECT_VERSION}-1")

set(CPACK_COMPONENTS_ALL dlqd dev)
set(CPACK_DEBIAN_DLQD_PACKAGE_NAME dlqd)
set(CPACK_DEBIAN_DLQD_DESCRIPTION "dead-letter gateway for failed events
 Workers that fail to process an event send it to dlqd over ZeroMQ; it acks
 once the event is durable, fans it out to sinks, and serves queries, groups
 and replays of the failures (an HTTP API and an operator console too).")
set(CPACK_DEBIAN_DLQD_PACKAGE_DEPENDS "adduser")
set(DLQD_CONF_DIR "${CMAKE_INSTALL_FULL_SYSCONFDIR}/dlqd")
if(IS_ABSOLUTE "${DLQD_SYSUSERS_DIR}")
  set(DLQD_SYSUSERS_DIR_FOR_SCRIPTS "${DLQD_SYSUSERS_DIR}")
else()
  set(DLQD_SYSUSERS_DIR_FOR_SCRIPTS "${CMAKE_INSTALL_PREFIX}/${DLQD_SYSUSERS_DIR}")
endif()
set(_dlqd_scripts)
foreach(script postinst prerm postrm conffiles)
  set(DLQD_SYSUSERS_DIR "${DLQD_SYSUSERS_DIR_FOR_SCRIPTS}")
  set(DLQD_CONF "${DLQD_INSTALL_CONFIG}")
  configure_file(${PROJECT_SOURCE_DIR}/contrib/packaging/debian/${script}.in
                 ${PROJECT_BINARY_DIR}/debian/${script} @ONLY
                 FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ
                 WORLD_EXECUTE)
  list(APPEND _dlqd_scripts ${PROJECT_BINARY_DIR}/debian/${script})
endforeach()
set(CPACK_DEBIAN_DLQD_PACKAGE_CONTROL_EXTRA "${_dlqd_scripts}")
set(CPACK_DEBIAN_DLQD_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_DEV_PACKAGE_NAME dlqd-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "dlqd (= ${_dlqd_version}), libzmq3-dev, libczmq-dev, pkg-config")
set(CPACK_DEBIAN_DEV_DESCRIPTION "dlqd: headers of libdlq and of the sink plugin ABI
 The C client library libdlq (dlq.h, libdlq.pc) and the sink plugin ABI
 (dlqd/dlq_sink.h, dlqd-sink.pc) for clients and plugins built against an
 installed dlqd.")

foreach(sink amqp kafka mongo postgres)
  string(TOUPPER "${sink}" upper)
  if(NOT DLQD_WITH_${upper})
    continue()
  endif()
  list(APPEND CPACK_COMPONENTS_ALL sink-${sink})
  set(CPACK_DEBIAN_SINK-${upper}_PACKAGE_NAME dlqd-sink-${sink})
  set(CPACK_DEBIAN_SINK-${upper}_PACKAGE_DEPENDS "dlqd (= ${_dlqd_version})")
  set(CPACK_DEBIAN_SINK-${upper}_DESCRIPTION "dlqd: the ${sink} sink
 The ${sink} sink plugin of the dlqd dead-letter gateway (a sink section
 of type ${sink}), with the library it needs.")
endforeach()
include(CPack)
