#!/usr/bin/env bash
# rabbitmq-server.sh — a throwaway RabbitMQ node for tests, benchmarks and
# demos of the amqp sink. Never touches the system's own node.
#
#   rabbitmq-server.sh start DIR PORT [OWNER]
#                                 make a node in DIR (when DIR holds none
#                                 yet), start it with its AMQP listener on
#                                 127.0.0.1:PORT and its AMQPS (TLS) one on
#                                 127.0.0.1:PORT+3, wait until both answer
#                                 (60 s at most) and print its URL:
#                                   amqp://guest:guest@127.0.0.1:PORT/
#                                 Already running on PORT: prints it again
#                                 (thawing it when frozen).
#                                 With OWNER (a process id), a watchdog stops
#                                 and removes the node once that process is
#                                 gone, should it not do so itself (a test
#                                 killed on a timeout).
#   rabbitmq-server.sh stop DIR   kill it (and its epmd) and remove DIR.
#                                 No DIR: nothing to do.
#   rabbitmq-server.sh pause DIR  stop it cleanly (SIGTERM), keep its data:
#                                 durable queues and their persistent
#                                 messages survive (a frozen node is thawed
#                                 first)
#   rabbitmq-server.sh resume DIR start the paused node again, on its ports;
#                                 prints the URL (as start does)
#   rabbitmq-server.sh freeze DIR SIGSTOP the node's beam.smp: it keeps its
#                                 sockets (connects succeed, the kernel
#                                 buffers what clients send) but answers
#                                 nothing, a broker hung or far away
#   rabbitmq-server.sh thaw DIR   SIGCONT it: it carries on where it was
#                                 (stop and pause also thaw it)
#   rabbitmq-server.sh url DIR    print the URL of the node in DIR
#   rabbitmq-server.sh tls DIR    print its AMQPS URL and the directory of
#                                 its PEM files, on one line:
#                                   amqps://guest:guest@localhost:PORT+3/ DIR/tls
#   rabbitmq-server.sh status DIR exit 0 when it runs (frozen or not), 3 when
#                                 it does not
#   rabbitmq-server.sh ctl DIR ARGS...
#                                 run rabbitmqctl ARGS against the node (to
#                                 look at it by hand: list_queues, status)
#   rabbitmq-server.sh free-port [P]
#                                 print a TCP port P of 127.0.0.1 such that
#                                 nobody listens on P to P+3: P (default
#                                 55672) or the next such one
#   rabbitmq-server.sh run [--] CMD...
#                                 run CMD with DLQD_TEST_AMQP_URL set: the
#                                 one in the environment, else that of a node
#                                 started for CMD alone and stopped after it
#                                 (then also DLQD_TEST_AMQP_TLS_PORT and
#                                 DLQD_TEST_AMQP_TLS_DIR, as `tls` gives
#                                 them). Every @AMQP_URL@ (@AMQP_TLS_PORT@,
#                                 @AMQP_TLS_DIR@, when set) in CMD's
#                                 arguments and in $DLQ_CONTRACT_SETTINGS is
#                                 replaced by its value. Exits with CMD's
#                                 status.
#
# The node: named dlqdPORT@localhost, user guest/guest, vhost "/", no
# plugins (not even management), every file in DIR (data in DIR/mnesia, logs
# in DIR/log, its config, its Erlang cookie: HOME is DIR), a clean
# environment (nothing from /etc/rabbitmq, nor from the caller's RABBITMQ_*
# variables). It takes four ports of 127.0.0.1: PORT (AMQP), PORT+1 (Erlang
# distribution), PORT+2 (an epmd of its own, started and stopped with it)
# and PORT+3 (AMQPS), so that nodes never clash with each other nor with a
# system RabbitMQ (5672, 5671, 25672, epmd 4369). Stopping it leaves no
# process behind: every process of the node carries DLQD_RABBITMQ_DIR=DIR in
# its environment and is found by it.
#
# TLS: when DIR is made, openssl (installed with apt-get when missing)
# makes a throwaway PKI in DIR/tls, EC P-256 keys, valid 10 years: ca.pem
# (the CA; ca.key its key), server.pem + server.key (CN and DNS name
# localhost, IP 127.0.0.1; rabbitmq-c 0.11 matches DNS names alone: have it
# verify "localhost"), client.pem + client.key (CN dlqd-test, signed by
# the same CA). The AMQPS listener (TLS 1.2 and 1.3) verifies a client
# certificate against ca.pem when there is one, and accepts clients without
# one too (verify_peer, fail_if_no_peer_cert = false). Keys are readable by
# their owner alone (the node's user, and root).
#
# Run as root, the node runs as the unprivileged system user "rabbitmq"
# (DIR is made and chowned for it: put DIR where that user can reach it,
# e.g. under /tmp). It is started through /usr/lib/rabbitmq/bin, not the
# /usr/sbin wrappers (those cd to /var/lib/rabbitmq, log to
# /var/log/rabbitmq and reset HOME, so the system cookie). rabbitmq-server
# is installed with apt-get (sudo when not root) when missing.
#
# Quiet on success (only the URL on stdout); errors on stderr, exit 1;
# usage errors exit 64.
#
#   dir=$(mktemp -d /tmp/dlqd-rabbitmq.XXXXXX)
#   url=$(contrib/scripts/rabbitmq-server.sh start "$dir" 55672)
#   contrib/scripts/rabbitmq-server.sh ctl "$dir" list_queues
#   read -r amqps_url tls_dir < <(contrib/scripts/rabbitmq-server.sh tls "$dir")
#   contrib/scripts/rabbitmq-server.sh stop "$dir"
set -euo pipefail

RABBITMQ_BIN=/usr/lib/rabbitmq/bin
READY_SECONDS=60
STOP_SECONDS=30
KILL_SECONDS=5

# What lib/server-common.sh needs to know (its header says what each is for).
me="rabbitmq-server.sh"
SERVER_NOUN=node
SYSTEM_USER=rabbitmq          # who runs the node when we are root
MARKER=.dlqd-rabbitmq-server  # in DIR: ours to remove
DEFAULT_PORT=55672
PORT_COUNT=4                  # AMQP, distribution, epmd, AMQPS
RUN_DIR_TEMPLATE=/tmp/dlqd-rabbitmq.XXXXXX
ADDRESS_VAR=DLQD_TEST_AMQP_URL
PLACEHOLDERS=(AMQP_URL=DLQD_TEST_AMQP_URL AMQP_TLS_PORT=DLQD_TEST_AMQP_TLS_PORT
              AMQP_TLS_DIR=DLQD_TEST_AMQP_TLS_DIR)
COMMANDS=(start stop pause resume freeze thaw url tls status ctl free-port run)

# The commands and helpers this script shares with pg-server.sh, from lib/
# beside it; they call the functions below (as_owner, need_server...).
# shellcheck source-path=SCRIPTDIR source=lib/server-common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/server-common.sh"

# What runs a command as the user who owns the node: setpriv when we are
# root, which, unlike runuser and su, neither forks nor touches the
# environment.
OWNER_PREFIX=()
if is_root; then
  OWNER_PREFIX=(setpriv --reuid="$SYSTEM_USER" --regid="$SYSTEM_USER" --init-groups --)
fi

as_owner () { "${OWNER_PREFIX[@]}" "$@"; }

# Make sure the server, epmd, openssl and setpriv (when root) are there.
need_server () {
  if [ ! -x "$RABBITMQ_BIN/rabbitmq-server" ] || ! command -v epmd > /dev/null; then
    install_packages rabbitmq-server
    [ -x "$RABBITMQ_BIN/rabbitmq-server" ] \
      || die "rabbitmq-server installed, but no $RABBITMQ_BIN/rabbitmq-server"
    command -v epmd > /dev/null || die "rabbitmq-server installed, but no epmd"
  fi
  if ! command -v openssl > /dev/null; then
    install_packages openssl
    command -v openssl > /dev/null || die "openssl installed, but no openssl command"
  fi
  if is_root; then
    id "$SYSTEM_USER" > /dev/null 2>&1 \
      || die "running as root, but there is no '$SYSTEM_USER' user to run the node as"
    command -v setpriv > /dev/null || die "running as root, but there is no setpriv (util-linux)"
  fi
}

# The URL of the node on port $1.
address_of () { echo "amqp://guest:guest@127.0.0.1:$1/"; }

# The AMQPS URL (with the host name the server certificate names) and the
# directory of the PEM files of the node in DIR $1 on port $2.
tls_line_of () { echo "amqps://guest:guest@localhost:$(tls_port_of "$2")/ $(tls_dir_of "$1")"; }

dist_port_of () { echo $(($1 + 1)); }
epmd_port_of () { echo $(($1 + 2)); }
tls_port_of ()  { echo $(($1 + 3)); }
tls_dir_of ()   { echo "$1/tls"; }

# True when an AMQP 0-9-1 server answers the protocol header on
# 127.0.0.1:$1 with a method frame (Connection.Start), not a refusal.
amqp_answers () {
  (
    exec 3<> "/dev/tcp/127.0.0.1/$1" || exit 1
    printf 'AMQP\0\0\11\1' >&3
    IFS= read -r -t 3 -N 1 -d '' frame_type <&3 || exit 1
    [ "$frame_type" = $'\x01' ]
  ) 2> /dev/null
}

# True when the node in DIR $1 on port $2 completes a TLS handshake on its
# AMQPS port, its certificate checked against its CA for host localhost.
tls_answers () {
  local tls
  tls=$(tls_dir_of "$1")
  timeout 5 openssl s_client -connect "127.0.0.1:$(tls_port_of "$2")" -servername localhost \
    -CAfile "$tls/ca.pem" -verify_return_error -verify_hostname localhost \
    < /dev/null > /dev/null 2>&1
}

has_server () { [ -f "$1/$MARKER" ] && [ -f "$1/port" ]; }

require_server () { has_server "$1" || die "$1 holds no node made by $me"; }

# The environment of every process of the node (and of rabbitmqctl): the
# marker by which stop finds them, and nothing of the caller's.
node_env () {
  local dir="$1" port="$2"
  printf '%s\n' \
    "DLQD_RABBITMQ_DIR=$dir" \
    "HOME=$dir" \
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    "LANG=C.UTF-8" \
    "LC_ALL=C.UTF-8" \
    "RABBITMQ_CONF_ENV_FILE=$dir/rabbitmq-env.conf" \
    "RABBITMQ_NODENAME=dlqd$port@localhost" \
    "RABBITMQ_USE_LONGNAME=false" \
    "RABBITMQ_DIST_PORT=$(dist_port_of "$port")" \
    "ERL_EPMD_PORT=$(epmd_port_of "$port")" \
    "ERL_EPMD_ADDRESS=127.0.0.1" \
    "RABBITMQ_CONFIG_FILE=$dir/rabbitmq.conf" \
    "RABBITMQ_CONFIG_FILES=$dir/conf.d" \
    "RABBITMQ_ADVANCED_CONFIG_FILE=$dir/advanced.config" \
    "RABBITMQ_ENABLED_PLUGINS_FILE=$dir/enabled_plugins" \
    "RABBITMQ_MNESIA_BASE=$dir/mnesia" \
    "RABBITMQ_LOG_BASE=$dir/log" \
    "RABBITMQ_LOGS=$dir/log/rabbit.log" \
    "RABBITMQ_PID_FILE=$dir/rabbitmq.pid" \
    "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS=-kernel inet_dist_use_interface {127,0,0,1}" \
    "RABBITMQ_CTL_DIST_PORT_MIN=0" \
    "RABBITMQ_CTL_DIST_PORT_MAX=0"
}

# NODE_PREFIX: what runs the command after it as the node's owner, in the
# node's environment. setpriv and env both exec: nothing stays in between,
# so a command started in the background leaves no shell of ours waiting.
set_node_prefix () {
  local dir="$1" port="$2" env=()
  mapfile -t env < <(node_env "$dir" "$port")
  NODE_PREFIX=("${OWNER_PREFIX[@]}" env -i "${env[@]}")
}

# The processes of the node in $1 (beam, its helpers, the wrapper shell,
# epmd), by the marker in their environment; "comm" gives beam.smp alone.
node_pids () {
  local dir="$1" only="${2:-}" f pid
  for f in $(grep -lzxF "DLQD_RABBITMQ_DIR=$dir" /proc/[0-9]*/environ 2> /dev/null || true); do
    pid="${f#/proc/}"; pid="${pid%/environ}"
    [ "$pid" != "$$" ] || continue
    if [ -z "$only" ] || [ "$(cat "/proc/$pid/comm" 2> /dev/null)" = "$only" ]; then
      echo "$pid"
    fi
  done
}

running () { [ -n "$(node_pids "$1" beam.smp)" ]; }

server_running () { has_server "$1" && running "$1"; }

log_tail () {
  local f
  for f in "$1/log/startup.log" "$1/log/rabbit.log"; do
    [ -s "$f" ] || continue
    echo "  $f:" >&2
    tail -n 15 "$f" | sed 's/^/  | /' >&2
  done
}

write_owned () { as_owner tee "$1" > /dev/null; }

PKI_FILES=(ca.pem server.pem server.key client.pem client.key)

# Make the node's throwaway PKI in DIR/tls, as the node's user (root reads
# it all the same): a CA, and a server and a client certificate it signs.
make_pki () {
  local dir="$1" tls f missing=""
  tls=$(tls_dir_of "$dir")
  for f in "${PKI_FILES[@]}"; do [ -s "$tls/$f" ] || missing=1; done
  [ -n "$missing" ] || return 0
  as_owner mkdir -p "$tls"
  write_owned "$tls/openssl.cnf" <<EOF
# --- $me: the extensions of the node's throwaway certificates
[req]
distinguished_name = dn
prompt = no
[dn]
[ca]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost, IP:127.0.0.1
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[client]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
EOF
  if ! { make_certificate "$tls" ca "/CN=dlqd-test-ca" \
          && make_certificate "$tls" server "/CN=localhost" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" \
          && make_certificate "$tls" client "/CN=dlqd-test" -CA "$tls/ca.pem" -CAkey "$tls/ca.key"; }
  then
    sed 's/^/  | /' "$dir/log/pki.log" >&2
    die "openssl failed to make the certificates in $tls"
  fi
  as_owner chmod 600 "$tls/ca.key" "$tls/server.key" "$tls/client.key"
  as_owner chmod 644 "$tls/ca.pem" "$tls/server.pem" "$tls/client.pem"
}

# A key and a certificate: $1/$2.key and $1/$2.pem, for subject $3, with
# the extensions of section $2; self-signed unless the rest says -CA ...
make_certificate () {
  local tls="$1" name="$2" subject="$3"
  shift 3
  as_owner openssl req -config "$tls/openssl.cnf" -x509 -newkey ec \
    -pkeyopt ec_paramgen_curve:P-256 -noenc -days 3650 -subj "$subject" -extensions "$name" \
    -keyout "$tls/$name.key" -out "$tls/$name.pem" "$@" >> "$(dirname "$tls")/log/pki.log" 2>&1
}

# Make DIR (owned by the node's user) and the node's files in it.
make_server () {
  local dir="$1" port="$2"
  claim_dir "$dir"
  as_owner mkdir -p "$dir/mnesia" "$dir/log" "$dir/conf.d"
  # the distribution's cookie: Erlang wants it readable by its owner alone
  od -An -N16 -tx1 /dev/urandom | tr -d ' \n' | tr a-f A-F | write_owned "$dir/.erlang.cookie"
  as_owner chmod 400 "$dir/.erlang.cookie"
  make_pki "$dir"
  echo '[].' | write_owned "$dir/enabled_plugins"
  echo "# $me: every setting is in the environment" | write_owned "$dir/rabbitmq-env.conf"
  write_owned "$dir/rabbitmq.conf" <<EOF
# --- $me: a throwaway node for tests
listeners.tcp.1 = 127.0.0.1:$port
listeners.ssl.1 = 127.0.0.1:$(tls_port_of "$port")
ssl_options.cacertfile = $(tls_dir_of "$dir")/ca.pem
ssl_options.certfile = $(tls_dir_of "$dir")/server.pem
ssl_options.keyfile = $(tls_dir_of "$dir")/server.key
ssl_options.verify = verify_peer
ssl_options.fail_if_no_peer_cert = false
default_vhost = /
default_user = guest
default_pass = guest
loopback_users.guest = true
# never block publishers on a small test disk
disk_free_limit.absolute = 1MB
log.console = false
log.file.level = info
EOF
  echo "$port" | write_owned "$dir/port"
}

# Start the node's own epmd, listening on 127.0.0.1:PORT+2 alone.
start_epmd () {
  local dir="$1" port="$2" epmd_port i
  epmd_port=$(epmd_port_of "$port")
  set_node_prefix "$dir" "$port"
  "${NODE_PREFIX[@]}" setsid epmd -port "$epmd_port" -address 127.0.0.1 \
    < /dev/null >> "$dir/log/epmd.log" 2>&1 &
  for ((i = 0; i < 50; i++)); do
    port_busy "$epmd_port" && return 0
    sleep 0.1
  done
  die "epmd did not listen on 127.0.0.1:$epmd_port (see $dir/log/epmd.log)"
}

# Start beam in a session of its own: no signal of the caller's terminal or
# process group reaches it.
start_beam () {
  local dir="$1" port="$2"
  set_node_prefix "$dir" "$port"
  "${NODE_PREFIX[@]}" setsid "$RABBITMQ_BIN/rabbitmq-server" \
    < /dev/null >> "$dir/log/startup.log" 2>&1 &
}

wait_ready () {
  local dir="$1" port="$2" i deadline=$((SECONDS + READY_SECONDS))
  for ((i = 1; SECONDS < deadline; i++)); do
    amqp_answers "$port" && tls_answers "$dir" "$port" && return 0
    if [ $((i % 10)) -eq 0 ] && ! running "$dir"; then
      log_tail "$dir"
      die "the node in $dir exited while starting (see $dir/log)"
    fi
    sleep 0.2
  done
  log_tail "$dir"
  die "the node in $dir did not answer AMQP on 127.0.0.1:$port and AMQPS on" \
      "127.0.0.1:$(tls_port_of "$port") within ${READY_SECONDS} s"
}

# Start the node in $1 on port $2 (thaw it when it runs), print its URL.
start_server () {
  local dir="$1" port="$2"
  if running "$dir"; then
    signal_beams "$(node_pids "$dir" beam.smp)" CONT
  else
    stop_node "$dir"    # leftovers of a node killed the hard way (its epmd)
    local p
    for ((p = port; p < port + PORT_COUNT; p++)); do
      need_free_port "$p"
    done
    start_epmd "$dir" "$port"
    start_beam "$dir" "$port"
  fi
  wait_ready "$dir" "$port"
  address_of "$port"
}

# The state of process $1 (R, S, T when stopped, Z...), "" when gone.
process_state () {
  local stat
  stat=$(cat "/proc/$1/stat" 2> /dev/null) || return 0
  stat="${stat##*) }"
  echo "${stat:0:1}"
}

# True when process $1 exists and is not a zombie (one that exited and
# waits for its parent, often init, to reap it).
alive () {
  local state
  state=$(process_state "$1")
  [ -n "$state" ] && [ "$state" != Z ]
}

# Send signal $2 to the processes in $1 (pids, one a line); true when they
# are all gone within $3 seconds.
signal_and_wait () {
  local pids="$1" signal="$2" seconds="$3" pid i
  [ -n "$pids" ] || return 0
  for pid in $pids; do kill "-$signal" "$pid" 2> /dev/null || true; done
  for ((i = 0; i < seconds * 20; i++)); do
    local any=""
    for pid in $pids; do alive "$pid" && any=1; done
    [ -n "$any" ] || return 0
    sleep 0.05
  done
  return 1
}

# Stop the node in $1, then whatever of it is left (the wrapper shell,
# epmd). beam shuts down cleanly on SIGTERM (queues are synced to disk),
# in some 2 s; with $2 = kill, at once (its data is about to go anyway).
# A frozen beam is thawed first: a stopped process acts on no TERM.
stop_node () {
  local dir="$1" how="${2:-}" beams rest
  beams=$(node_pids "$dir" beam.smp)
  signal_beams "$beams" CONT
  if [ "$how" = kill ]; then
    signal_and_wait "$beams" KILL "$KILL_SECONDS" || die "cannot kill the node in $dir"
  elif ! signal_and_wait "$beams" TERM "$STOP_SECONDS"; then
    echo "$me: the node in $dir did not stop within ${STOP_SECONDS} s; killing it" >&2
    signal_and_wait "$beams" KILL "$KILL_SECONDS" || die "cannot kill the node in $dir"
  fi
  rest=$(node_pids "$dir")
  if ! signal_and_wait "$rest" TERM "$KILL_SECONDS"; then
    signal_and_wait "$(node_pids "$dir")" KILL "$KILL_SECONDS" \
      || die "cannot kill the processes of the node in $dir"
  fi
}

pause_server () { stop_node "$1"; }

kill_server () { stop_node "$1" kill; }

# Send signal $2 to the beams in $1 (pids, one a line).
signal_beams () {
  local pid
  for pid in $1; do kill "-$2" "$pid" 2> /dev/null || true; done
}

# The beam of the running node in DIR $1, or die.
running_beams () {
  local dir="$1" beams
  require_server "$dir"
  beams=$(node_pids "$dir" beam.smp)
  [ -n "$beams" ] || die "the node in $dir is not running"
  echo "$beams"
}

cmd_freeze () {
  one_dir "$@"
  local beams pid i
  beams=$(running_beams "$DIR")
  signal_beams "$beams" STOP
  # SIGSTOP takes effect asynchronously: return once it has
  for pid in $beams; do
    for ((i = 0; i < 100; i++)); do
      case "$(process_state "$pid")" in T|"") break ;; esac
      sleep 0.01
    done
    case "$(process_state "$pid")" in T|"") ;; *) die "the node in $DIR did not stop" ;; esac
  done
}

cmd_thaw () {
  one_dir "$@"
  local beams
  beams=$(running_beams "$DIR")
  signal_beams "$beams" CONT
}

cmd_tls () {
  one_dir "$@"
  require_server "$DIR"
  [ -s "$(tls_dir_of "$DIR")/ca.pem" ] || die "the node in $DIR has no TLS files"
  tls_line_of "$DIR" "$(stored_port "$DIR")"
}

cmd_url () { cmd_address "$@"; }

cmd_ctl () {
  [ $# -ge 1 ] || usage
  local dir port
  dir=$(absolute "$1"); shift
  require_server "$dir"
  port=$(stored_port "$dir")
  need_server
  set_node_prefix "$dir" "$port"
  "${NODE_PREFIX[@]}" "$RABBITMQ_BIN/rabbitmqctl" -n "dlqd$port@localhost" "$@"
}

# run, having started a node: its AMQPS port and PEM files too.
run_started () {
  DLQD_TEST_AMQP_TLS_PORT=$(tls_port_of "$2")
  DLQD_TEST_AMQP_TLS_DIR=$(tls_dir_of "$1")
  export DLQD_TEST_AMQP_TLS_PORT DLQD_TEST_AMQP_TLS_DIR
}

dispatch "$@"
