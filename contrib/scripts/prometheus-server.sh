#!/usr/bin/env bash
# prometheus-server.sh — a throwaway Prometheus server (Debian's
# prometheus package) for the metrics tests and for trying the shipped
# alerting rules against a running dlqd. Never touches the system's own
# Prometheus service.
#
#   prometheus-server.sh start DIR PORT TARGET [RULES]
#                                 start Prometheus on 127.0.0.1:PORT with its
#                                 data in DIR, scraping http://TARGET/metrics
#                                 (TARGET is HOST:PORT, dlqd's http.listen)
#                                 every second as job "dlqd", with the rule
#                                 file RULES (e.g. contrib/prometheus/
#                                 dlqd-alerts.yml) evaluated every second;
#                                 wait until /-/ready answers (30 s at most)
#                                 and print its URL: http://127.0.0.1:PORT
#   prometheus-server.sh stop DIR stop it and remove DIR. No DIR: nothing
#                                 to do.
#   prometheus-server.sh free-port [P]
#                                 print a TCP port of 127.0.0.1 nobody
#                                 listens on, P (default 59090) or the next
#
# prometheus (and promtool) are installed with apt-get (sudo when not root)
# when missing. Its log is DIR/prometheus.log. Quiet on success; errors on
# stderr, exit 1; usage errors exit 64.
set -euo pipefail

me="prometheus-server.sh"
READY_SECONDS=30
die () { echo "$me: $*" >&2; exit 1; }
usage () { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 64; }
port_busy () { (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null; }

need_prometheus () {
  command -v prometheus > /dev/null && command -v promtool > /dev/null && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "$me: installing prometheus" >&2
  $sudo apt-get update -qq > /dev/null || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends prometheus > /dev/null \
    || die "apt-get install prometheus failed"
  # Debian's package starts its own service on :9090 where systemd runs; ours uses another port
}

cmd_start () {
  [ $# -ge 3 ] && [ $# -le 4 ] || usage
  local dir="$1" port="$2" target="$3" rules="${4:-}"
  [[ "$port" =~ ^[0-9]+$ ]] || die "bad port '$port'"
  [[ "$target" =~ ^[^/]+:[0-9]+$ ]] || die "bad target '$target' (expected HOST:PORT)"
  [ -z "$rules" ] || [ -f "$rules" ] || die "no rule file $rules"
  need_prometheus
  port_busy "$port" && die "port $port is in use"
  mkdir -p "$dir/data"
  touch "$dir/.dlqd-prometheus-server"
  local rule_files=""
  [ -z "$rules" ] || rule_files="rule_files: [\"$(cd "$(dirname "$rules")" && pwd)/$(basename "$rules")\"]"
  cat > "$dir/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
$rule_files
scrape_configs:
  - job_name: dlqd
    static_configs:
      - targets: ["$target"]
YML
  prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
    --web.listen-address="127.0.0.1:$port" --log.level=warn > "$dir/prometheus.log" 2>&1 &
  echo $! > "$dir/pid"
  local deadline=$((SECONDS + READY_SECONDS))
  while [ $SECONDS -lt $deadline ]; do
    if (exec 3<> "/dev/tcp/127.0.0.1/$port" && printf 'GET /-/ready HTTP/1.0\r\n\r\n' >&3 && grep -q "200" <&3) 2> /dev/null; then
      echo "http://127.0.0.1:$port"
      return 0
    fi
    kill -0 "$(cat "$dir/pid")" 2> /dev/null || { tail -n 20 "$dir/prometheus.log" >&2; die "prometheus exited while starting"; }
    sleep 0.2
  done
  tail -n 20 "$dir/prometheus.log" >&2
  die "prometheus did not answer /-/ready on 127.0.0.1:$port within $READY_SECONDS s"
}

cmd_stop () {
  [ $# -eq 1 ] || usage
  local dir="$1"
  [ -d "$dir" ] || return 0
  [ -f "$dir/.dlqd-prometheus-server" ] || die "$dir was not made by $me: not removed"
  if [ -f "$dir/pid" ]; then
    local pid; pid=$(cat "$dir/pid")
    if kill "$pid" 2> /dev/null; then
      for _ in $(seq 100); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2> /dev/null || true
    fi
  fi
  rm -rf "$dir"
}

cmd_free_port () {
  local p="${1:-59090}"
  while port_busy "$p"; do p=$((p + 1)); done
  echo "$p"
}

[ $# -ge 1 ] || usage
command="$1"; shift
case "$command" in
  start) cmd_start "$@" ;;
  stop) cmd_stop "$@" ;;
  free-port) cmd_free_port "$@" ;;
  *) usage ;;
esac
