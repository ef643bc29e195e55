# shellcheck shell=bash
# Starting and stopping a server from a script, every wait bounded: sourced by
# scripts/api-conformance, scripts/soak and scripts/bench.

# listen_port FILE PID SECONDS: the port `clipctl serve --listen 127.0.0.1:0` printed to FILE,
# waiting at most SECONDS; empty when it did not print one in time or PID exited first.
listen_port() {
  local file=$1 pid=$2 tries port=""
  for ((tries = $3 * 10; tries > 0; tries--)); do
    port=$(sed -n 's/.*127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$file")
    [ -n "$port" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  printf '%s' "$port"
}

# answers URL PID SECONDS: true once URL answers at all, false when SECONDS pass or PID exits first.
answers() {
  local url=$1 pid=$2 tries
  for ((tries = $3 * 50; tries > 0; tries--)); do
    curl -s -o /dev/null --max-time 2 "$url" && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.02
  done
  return 1
}

# stop_process PID [SECONDS]: SIGTERM (a graceful stop), then at most SECONDS (default 20) for
# it to exit, then SIGKILL. Nothing when PID is empty or already gone.
stop_process() {
  local pid=$1 tries
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((tries = ${2:-20} * 10; tries > 0; tries--)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
