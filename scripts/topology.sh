#!/usr/bin/env bash
# The production topology on one machine (docs/operations.md "Connection poolers"): a fresh
# PostgreSQL database behind a transaction-mode PgBouncer, two API processes (HANSE_ROLES=api)
# behind HAProxy (round robin: consecutive requests reach different processes) and two worker
# processes (HANSE_ROLES=worker).
#
#   scripts/topology.sh start DIR   starts everything, state and logs in DIR; prints the lines
#                                   HANSE_TEST_BASE_URL=…, HANSE_TEST_BOOTSTRAP_TOKEN=… and
#                                   HANSE_TEST_JOBS_DATABASE_URL=… (the database, directly: the
#                                   remote test mode reads its job queue to wait for the workers)
#   scripts/topology.sh stop DIR    stops what DIR's start started and drops its database
#   scripts/topology.sh test        start in a temporary directory, run the topology tests
#                                   (test/topology) against HAProxy's address, stop; exits with
#                                   the tests' status
#
# PGHOST/PGPORT (default 127.0.0.1:5432) name the PostgreSQL server, whose `postgres` user must be
# trusted from loopback. TOPOLOGY_PORT (default 18080) is HAProxy's port; the two API processes
# listen on the next two, PgBouncer on the one after. Installs Debian's haproxy when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

command=${1:-}
host=${PGHOST:-127.0.0.1}
server_port=${PGPORT:-5432}
direct="postgres://postgres@$host:$server_port"

psql_admin() { psql -v ON_ERROR_STOP=1 "$direct/postgres" -qAtc "$1"; }

stop() {
  local dir=$1
  [ -d "$dir" ] || return 0
  for pidfile in "$dir"/*.pid; do
    [ -f "$pidfile" ] || continue
    case "$pidfile" in */pgbouncer.pid) continue ;; esac
    kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  for pidfile in "$dir"/*.pid; do
    [ -f "$pidfile" ] || continue
    case "$pidfile" in */pgbouncer.pid) continue ;; esac
    local pid
    pid=$(cat "$pidfile")
    for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    rm -f "$pidfile"
  done
  [ -d "$dir/pgbouncer" ] && scripts/pgbouncer.sh stop "$dir/pgbouncer"
  if [ -f "$dir/database" ]; then
    psql_admin "DROP DATABASE IF EXISTS $(cat "$dir/database") WITH (FORCE)" || true
    rm -f "$dir/database"
  fi
}

# Waits until the check (the arguments after the process name and its log) succeeds; fails with
# that log when it does not within a minute or when the process ($dir/NAME.pid) has ended.
wait_for() {
  local what=$1 log=$2
  shift 2
  for _ in $(seq 1 600); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    if [ -f "$dir/$what.pid" ] && ! kill -0 "$(cat "$dir/$what.pid")" 2>/dev/null; then break; fi
    sleep 0.1
  done
  echo "$what did not come up; its log:" >&2
  tail -50 "$log" >&2
  return 1
}

start() {
  local dir=$1
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  chmod 755 "$dir"
  if [ ! -x /usr/sbin/haproxy ]; then
    echo "installing haproxy" >&2
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >&2
  fi
  local port=${TOPOLOGY_PORT:-18080}
  local api1=$((port + 1)) api2=$((port + 2)) bouncer_port=$((port + 3))
  local token=${HANSE_BOOTSTRAP_TOKEN:-topology-bootstrap-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')}
  local secret
  secret=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
  local name="hanse_topology_$$_$(date +%s)"
  psql_admin "CREATE DATABASE $name"
  echo "$name" >"$dir/database"
  local bouncer
  bouncer=$(scripts/pgbouncer.sh start "$dir/pgbouncer" "$bouncer_port")

  # Every process: the database through PgBouncer, the same secret key and bootstrap token. The
  # workers also get a direct connection for LISTEN (the API processes NOTIFY through PgBouncer).
  common=(
    "DATABASE_URL=$bouncer/$name"
    HANSE_DATABASE_POOLER=transaction
    "HANSE_BOOTSTRAP_TOKEN=$token"
    "HANSE_SECRET_KEY=$secret"
    "HANSE_PUBLIC_URL=http://127.0.0.1:$port"
    HANSE_TRUST_PROXY=127.0.0.1
    HANSE_WEBHOOK_ALLOW_PRIVATE=1
    LOG_LEVEL=info
  )
  launch() {
    local process=$1
    shift
    mkdir -p "$dir/$process"
    env "${common[@]}" "HANSE_DATA_DIR=$dir/$process" "$@" \
      nohup node --import tsx "$root/src/main.ts" serve >"$dir/$process.log" 2>&1 &
    echo $! >"$dir/$process.pid"
  }
  # The first API process migrates alone; the others start once it is ready.
  launch api1 HANSE_ROLES=api PORT="$api1"
  wait_for "api1" "$dir/api1.log" curl -fsS "http://127.0.0.1:$api1/readyz"
  launch api2 HANSE_ROLES=api PORT="$api2"
  for worker in worker1 worker2; do
    launch "$worker" HANSE_ROLES=worker HANSE_JOB_POLL_MS=200 "HANSE_DATABASE_DIRECT_URL=$direct/$name"
  done
  wait_for "api2" "$dir/api2.log" curl -fsS "http://127.0.0.1:$api2/readyz"
  for worker in worker1 worker2; do
    wait_for "$worker" "$dir/$worker.log" grep -q "hanse worker is running" "$dir/$worker.log"
  done

  cat >"$dir/haproxy.cfg" <<EOF
global
  maxconn 1000

defaults
  mode http
  timeout connect 5s
  timeout client 120s
  timeout server 120s

frontend hanse
  bind 127.0.0.1:$port
  default_backend api

backend api
  # Per request, also on a kept-alive connection: consecutive requests reach different processes.
  balance roundrobin
  # Which process answered (the topology tests check that both do).
  http-response set-header X-Hanse-Backend %s
  option httpchk GET /readyz
  server api1 127.0.0.1:$api1 check inter 1s
  server api2 127.0.0.1:$api2 check inter 1s
EOF
  nohup /usr/sbin/haproxy -db -f "$dir/haproxy.cfg" >"$dir/haproxy.log" 2>&1 &
  echo $! >"$dir/haproxy.pid"
  wait_for "haproxy" "$dir/haproxy.log" curl -fsS "http://127.0.0.1:$port/readyz"
  echo "HANSE_TEST_BASE_URL=http://127.0.0.1:$port"
  echo "HANSE_TEST_BOOTSTRAP_TOKEN=$token"
  echo "HANSE_TEST_JOBS_DATABASE_URL=$direct/$name"
}

case "$command" in
  start)
    [ -n "${2:-}" ] || { echo "usage: $0 start DIR" >&2; exit 64; }
    start "$2"
    ;;
  stop)
    [ -n "${2:-}" ] || { echo "usage: $0 stop DIR" >&2; exit 64; }
    stop "$2"
    ;;
  test)
    dir=$(mktemp -d)
    # PgBouncer runs as the postgres user: it must reach its directory inside this one.
    chmod 755 "$dir"
    trap 'status=$?
      if [ "$status" != 0 ]; then
        for log in "$dir"/*.log; do [ -f "$log" ] && { echo "== $log" >&2; tail -30 "$log" >&2; }; done
      fi
      stop "$dir"; rm -rf "$dir"; exit "$status"' EXIT
    start "$dir" >"$dir/settings"
    # The tests reach Hanse over HTTP only; their own set-up needs no PostgreSQL.
    env -u DATABASE_URL -u HANSE_DATABASE_POOLER $(cat "$dir/settings") npx vitest run test/topology
    ;;
  *)
    echo "usage: $0 start DIR | stop DIR | test" >&2
    exit 64
    ;;
esac
