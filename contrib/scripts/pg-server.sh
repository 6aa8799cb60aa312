#!/usr/bin/env bash
# pg-server.sh — a throwaway PostgreSQL 15 server for tests, benchmarks and
# demos of the postgres sink. Never touches the system's own clusters.
#
#   pg-server.sh start DIR PORT [OWNER]
#                                 initdb a cluster in DIR (when DIR holds none
#                                 yet), start it on 127.0.0.1:PORT with its
#                                 socket in DIR, wait until pg_isready answers
#                                 (30 s at most) and print its conninfo:
#                                   host=127.0.0.1 port=PORT user=dlq dbname=postgres
#                                 Already running on PORT: prints it again.
#                                 With OWNER (a process id), a watchdog stops
#                                 and removes the cluster once that process
#                                 is gone, should it not do so itself (a test
#                                 killed on a timeout).
#   pg-server.sh stop DIR         stop it (fast shutdown) and remove DIR.
#                                 No DIR: nothing to do.
#   pg-server.sh pause DIR        stop it (fast shutdown), keep the cluster
#   pg-server.sh resume DIR       start the paused cluster again, on its port;
#                                 prints the conninfo (as start does)
#   pg-server.sh conninfo DIR     print the conninfo of the cluster in DIR
#   pg-server.sh status DIR       exit 0 when it runs, 3 when it does not
#   pg-server.sh free-port [P]    print a TCP port of 127.0.0.1 nobody listens
#                                 on, P (default 55432) or the next free one
#   pg-server.sh run [--] CMD...  run CMD with DLQD_TEST_PG_CONNINFO set: the
#                                 one in the environment, else that of a
#                                 server started for CMD alone and stopped
#                                 after it. Every @PG_CONNINFO@ in CMD's
#                                 arguments and in $DLQ_CONTRACT_SETTINGS is
#                                 replaced by the conninfo. Exits with CMD's
#                                 status.
#
# The cluster: user dlq (superuser), trust authentication, UTF8, locale C,
# fsync on (the tests check durability), listening on 127.0.0.1 only. Its
# log is DIR/postgres.log. Run as root, the server runs as the unprivileged
# system user "postgres" (DIR is made and chowned for it: put DIR where that
# user can reach it, e.g. under /tmp). PostgreSQL 15 is installed with
# apt-get (sudo when not root) when no server binaries are found;
# PG_BINDIR=/path/to/bin picks other ones.
#
# Quiet on success (only the conninfo on stdout); errors on stderr, exit 1;
# usage errors exit 64.
#
#   dir=$(mktemp -d /tmp/dlqd-pg.XXXXXX)
#   conninfo=$(contrib/scripts/pg-server.sh start "$dir" 55432)
#   psql "$conninfo" -c 'select 1'
#   contrib/scripts/pg-server.sh stop "$dir"
set -euo pipefail

PG_USER=dlq
PG_DB=postgres
SYSTEM_USER=postgres          # who runs the server when we are root
MARKER=.dlqd-pg-server        # in DIR: ours to remove
READY_SECONDS=30
STOP_SECONDS=30

me="pg-server.sh"
self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"

die () { echo "$me: $*" >&2; exit 1; }
usage () { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 64; }

is_root () { [ "$(id -u)" -eq 0 ]; }

# Run a command as the user who owns the cluster.
as_owner () {
  if is_root; then
    if command -v runuser > /dev/null; then
      runuser -u "$SYSTEM_USER" -- "$@"
    else
      local quoted
      printf -v quoted '%q ' "$@"
      su -s /bin/sh "$SYSTEM_USER" -c "$quoted"
    fi
  else
    "$@"
  fi
}

# The directory holding initdb, pg_ctl, postgres and pg_isready.
find_bindir () {
  if [ -n "${PG_BINDIR:-}" ]; then
    [ -x "$PG_BINDIR/initdb" ] || die "PG_BINDIR=$PG_BINDIR has no initdb"
    echo "$PG_BINDIR"; return
  fi
  local d
  for d in /usr/lib/postgresql/15/bin $(printf '%s\n' /usr/lib/postgresql/*/bin | sort -rV); do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/pg_isready" ]; then
      echo "$d"; return
    fi
  done
  return 1
}

install_server () {
  local sudo=""
  is_root || sudo="sudo"
  echo "$me: installing postgresql-15" >&2
  $sudo apt-get update -qq > /dev/null || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    postgresql-15 postgresql-client-15 > /dev/null || die "apt-get install postgresql-15 failed"
}

bindir () {
  local d
  if ! d=$(find_bindir); then
    install_server
    d=$(find_bindir) || die "postgresql-15 installed, but no initdb/pg_ctl/pg_isready found"
  fi
  if is_root && ! id "$SYSTEM_USER" > /dev/null 2>&1; then
    die "running as root, but there is no '$SYSTEM_USER' user to run the server as"
  fi
  echo "$d"
}

absolute () {
  case "$1" in
    /*) echo "$1" ;;
    *)  echo "$(pwd)/$1" ;;
  esac
}

conninfo_of () { echo "host=127.0.0.1 port=$1 user=$PG_USER dbname=$PG_DB"; }

check_port () {
  [[ "$1" =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ] && [ "$1" -le 65535 ] || die "bad port '$1'"
}

# True when something accepts connections on 127.0.0.1:$1.
port_busy () { (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null; }

log_tail () { [ -f "$1/postgres.log" ] && tail -n 20 "$1/postgres.log" | sed 's/^/  | /' >&2 || true; }

running () { [ -f "$1/data/PG_VERSION" ] && as_owner "$BIN/pg_ctl" -D "$1/data" status > /dev/null 2>&1; }

stored_port () { cat "$1/port" 2> /dev/null || die "$1 holds no cluster made by $me"; }

# Make DIR (owned by the server's user) and initdb a cluster in DIR/data.
init_cluster () {
  local dir="$1" port="$2"
  if [ -d "$dir" ] && [ -n "$(ls -A "$dir")" ] && [ ! -f "$dir/$MARKER" ]; then
    die "$dir is not empty and holds no cluster made by $me"
  fi
  mkdir -p "$dir" || die "cannot create $dir"
  if is_root; then
    chown "$SYSTEM_USER:" "$dir" && chmod 700 "$dir" || die "cannot give $dir to $SYSTEM_USER"
    as_owner test -w "$dir" -a -x "$dir" \
      || die "$dir is not reachable by user $SYSTEM_USER (a parent directory is closed to it): use a directory under /tmp"
  fi
  as_owner touch "$dir/$MARKER"
  if ! as_owner "$BIN/initdb" -D "$dir/data" -U "$PG_USER" -A trust -E UTF8 --locale=C \
         > "$dir/initdb.log" 2>&1; then
    sed 's/^/  | /' "$dir/initdb.log" >&2
    die "initdb failed in $dir/data"
  fi
  as_owner tee -a "$dir/data/postgresql.conf" > /dev/null <<EOF

# --- $me: a throwaway cluster for tests
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
fsync = on
synchronous_commit = on
full_page_writes = on
max_connections = 300
logging_collector = off
log_min_messages = warning
EOF
  echo "$port" | as_owner tee "$dir/port" > /dev/null
}

wait_ready () {
  local dir="$1" port="$2" i deadline=$((SECONDS + READY_SECONDS))
  for ((i = 1; SECONDS < deadline; i++)); do
    if "$BIN/pg_isready" -q -h 127.0.0.1 -p "$port" -U "$PG_USER" -d "$PG_DB" -t 2; then
      return 0
    fi
    if [ $((i % 10)) -eq 0 ] && ! running "$dir"; then
      log_tail "$dir"
      die "the server in $dir exited while starting (see $dir/postgres.log)"
    fi
    sleep 0.1
  done
  log_tail "$dir"
  die "the server in $dir did not answer pg_isready on 127.0.0.1:$port within ${READY_SECONDS} s"
}

start_cluster () {
  local dir="$1" port="$2"
  if running "$dir"; then
    wait_ready "$dir" "$port"
    conninfo_of "$port"
    return
  fi
  if port_busy "$port"; then
    die "port $port of 127.0.0.1 is taken by another process"
  fi
  as_owner "$BIN/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -W -s start > /dev/null 2>&1 \
    || { log_tail "$dir"; die "pg_ctl start failed in $dir (see $dir/postgres.log)"; }
  wait_ready "$dir" "$port"
  conninfo_of "$port"
}

stop_cluster () {
  local dir="$1"
  running "$dir" || return 0
  if ! as_owner "$BIN/pg_ctl" -D "$dir/data" -m fast -w -t "$STOP_SECONDS" -s stop > /dev/null 2>&1; then
    echo "$me: fast shutdown of $dir timed out; shutting down immediately" >&2
    as_owner "$BIN/pg_ctl" -D "$dir/data" -m immediate -w -t "$STOP_SECONDS" -s stop > /dev/null 2>&1 \
      || die "cannot stop the server in $dir"
  fi
}

# Stop and remove the cluster in $1 once process $2 has exited.
watch_owner () {
  setsid bash -c 'while kill -0 "$1" 2> /dev/null; do sleep 1; done; "$2" stop "$3"' \
    watchdog "$2" "$self" "$1" < /dev/null > /dev/null 2>&1 &
}

cmd_start () {
  [ $# -eq 2 ] || [ $# -eq 3 ] || usage
  local dir port owner="${3:-}"
  dir=$(absolute "$1"); port="$2"
  check_port "$port"
  [ -z "$owner" ] || [[ "$owner" =~ ^[0-9]+$ ]] || die "bad owner process id '$owner'"
  BIN=$(bindir)
  if [ -f "$dir/port" ] && [ -f "$dir/data/PG_VERSION" ]; then
    local had
    had=$(stored_port "$dir")
    [ "$had" = "$port" ] || die "the cluster in $dir listens on port $had, not $port"
  else
    ! port_busy "$port" || die "port $port of 127.0.0.1 is taken by another process"
    init_cluster "$dir" "$port"
  fi
  start_cluster "$dir" "$port"
  [ -z "$owner" ] || watch_owner "$dir" "$owner"
}

cmd_resume () {
  [ $# -eq 1 ] || usage
  local dir
  dir=$(absolute "$1")
  [ -f "$dir/data/PG_VERSION" ] || die "$dir holds no cluster"
  local port
  port=$(stored_port "$dir")
  BIN=$(bindir)
  start_cluster "$dir" "$port"
}

cmd_pause () {
  [ $# -eq 1 ] || usage
  local dir
  dir=$(absolute "$1")
  [ -f "$dir/data/PG_VERSION" ] || die "$dir holds no cluster"
  BIN=$(bindir)
  stop_cluster "$dir"
}

cmd_stop () {
  [ $# -eq 1 ] || usage
  local dir
  dir=$(absolute "$1")
  [ -e "$dir" ] || return 0
  [ -d "$dir" ] || die "$dir is not a directory"
  if [ ! -f "$dir/$MARKER" ]; then
    [ -z "$(ls -A "$dir")" ] || die "$dir holds no cluster made by $me: not removing it"
    rmdir "$dir"
    return 0
  fi
  if [ -f "$dir/data/PG_VERSION" ]; then
    BIN=$(bindir)
    stop_cluster "$dir"
  fi
  rm -rf -- "$dir" || die "cannot remove $dir"
}

cmd_conninfo () {
  [ $# -eq 1 ] || usage
  local port
  port=$(stored_port "$(absolute "$1")")
  conninfo_of "$port"
}

cmd_status () {
  [ $# -eq 1 ] || usage
  local dir
  dir=$(absolute "$1")
  [ -f "$dir/data/PG_VERSION" ] || exit 3
  BIN=$(bindir)
  running "$dir" || exit 3
}

cmd_free_port () {
  [ $# -le 1 ] || usage
  local p="${1:-55432}"
  check_port "$p"
  for ((; p <= 65535; p++)); do
    port_busy "$p" || { echo "$p"; return; }
  done
  die "no free port from ${1:-55432} up"
}

cmd_run () {
  [ "${1:-}" = "--" ] && shift
  [ $# -ge 1 ] || usage
  local dir="" conninfo="${DLQD_TEST_PG_CONNINFO:-}" status=0
  if [ -z "$conninfo" ]; then
    dir=$(mktemp -d "${TMPDIR:-/tmp}/dlqd-pg.XXXXXX")
    chmod 755 "$dir"
    # shellcheck disable=SC2064
    trap "'$self' stop '$dir' || true" EXIT
    trap 'exit 130' INT TERM
    conninfo=$("$self" start "$dir" "$("$self" free-port $((55433 + RANDOM % 5000)))" $$)
  fi
  export DLQD_TEST_PG_CONNINFO="$conninfo"
  if [ -n "${DLQ_CONTRACT_SETTINGS:-}" ]; then
    export DLQ_CONTRACT_SETTINGS="${DLQ_CONTRACT_SETTINGS//@PG_CONNINFO@/$conninfo}"
  fi
  local args=() a
  for a in "$@"; do args+=("${a//@PG_CONNINFO@/$conninfo}"); done
  "${args[@]}" || status=$?
  return $status
}

[ $# -ge 1 ] || usage
command="$1"; shift
case "$command" in
  start)     cmd_start "$@" ;;
  stop)      cmd_stop "$@" ;;
  pause)     cmd_pause "$@" ;;
  resume)    cmd_resume "$@" ;;
  conninfo)  cmd_conninfo "$@" ;;
  status)    cmd_status "$@" ;;
  free-port) cmd_free_port "$@" ;;
  run)       cmd_run "$@" ;;
  -h|--help|help) usage ;;
  *) echo "$me: unknown command '$command'" >&2; usage ;;
esac
