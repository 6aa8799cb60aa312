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
READY_SECONDS=30
STOP_SECONDS=30

# What lib/server-common.sh needs to know (its header says what each is for).
me="pg-server.sh"
SERVER_NOUN=cluster
SYSTEM_USER=postgres          # who runs the server when we are root
MARKER=.dlqd-pg-server        # in DIR: ours to remove
DEFAULT_PORT=55432
RUN_DIR_TEMPLATE="${TMPDIR:-/tmp}/dlqd-pg.XXXXXX"
ADDRESS_VAR=DLQD_TEST_PG_CONNINFO
PLACEHOLDERS=(PG_CONNINFO=DLQD_TEST_PG_CONNINFO)
COMMANDS=(start stop pause resume conninfo status free-port run)

# The commands and helpers this script shares with rabbitmq-server.sh, from
# lib/ beside it; they call the functions below (as_owner, need_server...).
# shellcheck source-path=SCRIPTDIR source=lib/server-common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/server-common.sh"

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

bindir () {
  local d
  if ! d=$(find_bindir); then
    install_packages postgresql-15 postgresql-client-15
    d=$(find_bindir) || die "postgresql-15 installed, but no initdb/pg_ctl/pg_isready found"
  fi
  if is_root && ! id "$SYSTEM_USER" > /dev/null 2>&1; then
    die "running as root, but there is no '$SYSTEM_USER' user to run the server as"
  fi
  echo "$d"
}

# BIN: the directory of the server's binaries (installed when missing).
need_server () { BIN=$(bindir); }

# The conninfo of the cluster on port $1.
address_of () { echo "host=127.0.0.1 port=$1 user=$PG_USER dbname=$PG_DB"; }

log_tail () { [ -f "$1/postgres.log" ] && tail -n 20 "$1/postgres.log" | sed 's/^/  | /' >&2 || true; }

running () { [ -f "$1/data/PG_VERSION" ] && as_owner "$BIN/pg_ctl" -D "$1/data" status > /dev/null 2>&1; }

has_server () { [ -f "$1/port" ] && [ -f "$1/data/PG_VERSION" ]; }

require_server () { [ -f "$1/data/PG_VERSION" ] || die "$1 holds no cluster"; }

# Make DIR (owned by the server's user) and initdb a cluster in DIR/data.
make_server () {
  local dir="$1" port="$2"
  need_free_port "$port"
  claim_dir "$dir"
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

# Start the cluster in $1 on port $2 (unless it runs), print its conninfo.
start_server () {
  local dir="$1" port="$2"
  if ! running "$dir"; then
    need_free_port "$port"
    as_owner "$BIN/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -W -s start > /dev/null 2>&1 \
      || { log_tail "$dir"; die "pg_ctl start failed in $dir (see $dir/postgres.log)"; }
  fi
  wait_ready "$dir" "$port"
  address_of "$port"
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

pause_server () {
  need_server
  stop_cluster "$1"
}

kill_server () {
  [ -f "$1/data/PG_VERSION" ] || return 0
  need_server
  stop_cluster "$1"
}

server_running () {
  [ -f "$1/data/PG_VERSION" ] || return 1
  need_server || exit 1    # status calls this in a || list: set -e does not hold
  running "$1"
}

cmd_conninfo () { cmd_address "$@"; }

dispatch "$@"
