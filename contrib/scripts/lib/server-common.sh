# shellcheck shell=bash
# server-common.sh — what pg-server.sh and rabbitmq-server.sh share: the
# commands that are the same for a throwaway PostgreSQL cluster and a
# throwaway RabbitMQ node (start, stop, pause, resume, status, the address,
# free-port, run), and the helpers under them. Sourced by those scripts,
# from lib/ beside them; never run on its own.
#
# The script sets, before sourcing this file:
#   me                 its name, to prefix its messages
#   SERVER_NOUN        what it calls a server in messages (cluster, node)
#   SYSTEM_USER        who runs the server when we are root
#   MARKER             the file in DIR that says DIR is ours to remove
#   DEFAULT_PORT       free-port's default P; run looks from P+1 on
#   PORT_COUNT         how many ports from PORT on a server takes (default 1)
#   RUN_DIR_TEMPLATE   the mktemp template of run's DIR
#   ADDRESS_VAR        the variable run sets to the server's address
#   PLACEHOLDERS       run's NAME=VARIABLE pairs: @NAME@ becomes $VARIABLE
#                      (when that is set), ADDRESS_VAR's first
#   COMMANDS           its commands; command X runs cmd_X (- becomes _)
# and defines, after sourcing it:
#   as_owner CMD...        run CMD as SYSTEM_USER (when root)
#   need_server            make sure the server's software is there
#   has_server DIR         true when DIR holds a server start made
#   require_server DIR     die unless DIR holds a server (pause, resume)
#   make_server DIR PORT   make a new server in DIR (claim_dir first)
#   start_server DIR PORT  start it (or find it running), print its address
#   pause_server DIR       stop it, keep its data
#   kill_server DIR        stop it for good (stop removes DIR next)
#   server_running DIR     true when DIR holds a server and it runs (status)
#   address_of PORT        the address of the server on PORT
#   run_started DIR PORT   optional: more for run to export, after it
#                          started a server in DIR on PORT

: "${me:?the script sets me before sourcing server-common.sh}"
PORT_COUNT="${PORT_COUNT:-1}"
PORT_MAX=$((65535 - PORT_COUNT + 1))

self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"

die () { echo "$me: $*" >&2; exit 1; }

# The script's header comment, its documentation, on stderr; exit 64.
usage () { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 64; }

is_root () { [ "$(id -u)" -eq 0 ]; }

absolute () {
  case "$1" in
    /*) echo "$1" ;;
    *)  echo "$(pwd)/$1" ;;
  esac
}

# DIR: the absolute path of a command's one argument; else a usage error.
one_dir () {
  [ $# -eq 1 ] || usage
  DIR=$(absolute "$1")
}

# Install packages with apt-get (sudo when not root), named after the first
# (the others come with it).
install_packages () {
  local sudo=""
  is_root || sudo="sudo"
  echo "$me: installing $1" >&2
  $sudo apt-get update -qq > /dev/null || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "$@" > /dev/null || die "apt-get install $1 failed"
}

# A port from which a server's PORT_COUNT ports fit below 65536.
check_port () {
  local range=""
  [ "$PORT_MAX" -eq 65535 ] || range=" (1 to $PORT_MAX)"
  [[ "$1" =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ] && [ "$1" -le "$PORT_MAX" ] \
    || die "bad port '$1'$range"
}

# True when something accepts connections on 127.0.0.1:$1.
port_busy () { (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null; }

# True when one of a server's ports (from $1) is taken.
ports_busy () {
  local i
  for ((i = 0; i < PORT_COUNT; i++)); do
    port_busy $(($1 + i)) && return 0
  done
  return 1
}

need_free_port () {
  ! port_busy "$1" || die "port $1 of 127.0.0.1 is taken by another process"
}

stored_port () { cat "$1/port" 2> /dev/null || die "$1 holds no $SERVER_NOUN made by $me"; }

# Make DIR for a new server: owned by SYSTEM_USER (when root), the marker
# in it. A DIR that holds anything else is not ours to take.
claim_dir () {
  local dir="$1"
  if [ -d "$dir" ] && [ -n "$(ls -A "$dir")" ] && [ ! -f "$dir/$MARKER" ]; then
    die "$dir is not empty and holds no $SERVER_NOUN made by $me"
  fi
  mkdir -p "$dir" || die "cannot create $dir"
  if is_root; then
    chown "$SYSTEM_USER:" "$dir" && chmod 700 "$dir" || die "cannot give $dir to $SYSTEM_USER"
    as_owner test -w "$dir" -a -x "$dir" \
      || die "$dir is not reachable by user $SYSTEM_USER (a parent directory is closed to it):" \
             "use a directory under /tmp"
  fi
  as_owner touch "$dir/$MARKER"
}

# Stop and remove the server in $1 once process $2 has exited.
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
  need_server
  if has_server "$dir"; then
    local had
    had=$(stored_port "$dir")
    [ "$had" = "$port" ] || die "the $SERVER_NOUN in $dir listens on port $had, not $port"
  else
    make_server "$dir" "$port"
  fi
  start_server "$dir" "$port"
  [ -z "$owner" ] || watch_owner "$dir" "$owner"
}

cmd_stop () {
  one_dir "$@"
  [ -e "$DIR" ] || return 0
  [ -d "$DIR" ] || die "$DIR is not a directory"
  if [ ! -f "$DIR/$MARKER" ]; then
    [ -z "$(ls -A "$DIR")" ] || die "$DIR holds no $SERVER_NOUN made by $me: not removing it"
    rmdir "$DIR"
    return 0
  fi
  kill_server "$DIR"
  rm -rf -- "$DIR" || die "cannot remove $DIR"
}

cmd_pause () {
  one_dir "$@"
  require_server "$DIR"
  pause_server "$DIR"
}

cmd_resume () {
  one_dir "$@"
  require_server "$DIR"
  local port
  port=$(stored_port "$DIR")
  need_server
  start_server "$DIR" "$port"
}

cmd_status () {
  one_dir "$@"
  server_running "$DIR" || exit 3
}

# Print the address of the server in DIR (conninfo, url).
cmd_address () {
  one_dir "$@"
  local port
  port=$(stored_port "$DIR")
  address_of "$port"
}

cmd_free_port () {
  [ $# -le 1 ] || usage
  local p="${1:-$DEFAULT_PORT}"
  check_port "$p"
  for ((; p <= PORT_MAX; p++)); do
    ports_busy "$p" || { echo "$p"; return; }
  done
  if [ "$PORT_COUNT" -eq 1 ]; then
    die "no free port from ${1:-$DEFAULT_PORT} up"
  fi
  die "no $PORT_COUNT free ports in a row from ${1:-$DEFAULT_PORT} up"
}

run_started () { :; }

# SUBSTITUTED: $1 with every @NAME@ of PLACEHOLDERS replaced by the value
# of its variable, when that is set.
substitute () {
  local pair name var
  SUBSTITUTED="$1"
  for pair in "${PLACEHOLDERS[@]}"; do
    name="${pair%%=*}"; var="${pair#*=}"
    if [ -n "${!var:-}" ]; then
      SUBSTITUTED="${SUBSTITUTED//"@$name@"/"${!var}"}"
    fi
  done
}

cmd_run () {
  [ "${1:-}" = "--" ] && shift
  [ $# -ge 1 ] || usage
  local status=0
  if [ -z "${!ADDRESS_VAR:-}" ]; then
    local dir port address
    dir=$(mktemp -d "$RUN_DIR_TEMPLATE")
    chmod 755 "$dir"
    # shellcheck disable=SC2064
    trap "'$self' stop '$dir' || true" EXIT
    trap 'exit 130' INT TERM
    port=$("$self" free-port $((DEFAULT_PORT + 1 + RANDOM % 5000)))
    address=$("$self" start "$dir" "$port" $$)
    export "$ADDRESS_VAR=$address"
    run_started "$dir" "$port"
  fi
  if [ -n "${DLQ_CONTRACT_SETTINGS:-}" ]; then
    substitute "$DLQ_CONTRACT_SETTINGS"
    export DLQ_CONTRACT_SETTINGS="$SUBSTITUTED"
  fi
  local args=() a
  for a in "$@"; do substitute "$a"; args+=("$SUBSTITUTED"); done
  "${args[@]}" || status=$?
  return $status
}

# Run the command named in $1 (one of COMMANDS, or help) with the rest of
# the arguments.
dispatch () {
  [ $# -ge 1 ] || usage
  local command="$1" c
  shift
  for c in "${COMMANDS[@]}"; do
    if [ "$command" = "$c" ]; then
      "cmd_${c//-/_}" "$@"    # not in a || list: set -e holds in it
      return
    fi
  done
  case "$command" in
    -h|--help|help) usage ;;
    *) echo "$me: unknown command '$command'" >&2; usage ;;
  esac
}
