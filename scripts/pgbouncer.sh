#!/usr/bin/env bash
# A transaction-mode PgBouncer in front of a local PostgreSQL, for tests, CI and benchmarks
# (docs/operations.md "Connection poolers").
#
#   scripts/pgbouncer.sh start DIR [PORT]   writes DIR/pgbouncer.ini, starts PgBouncer in the
#                                           background (pid in DIR/pgbouncer.pid, log in
#                                           DIR/pgbouncer.log), waits until it answers and prints
#                                           its URL: postgres://postgres@127.0.0.1:PORT
#   scripts/pgbouncer.sh stop DIR           stops the instance started in DIR
#   scripts/pgbouncer.sh repoint DIR PORT   points the instance started in DIR at the server on
#                                           PGHOST:PORT (a failover: the promoted standby) and
#                                           reloads it; clients keep their connections to PgBouncer
#
# Every database name is passed through to PostgreSQL (`* =`), so a test's own database is
# reachable by replacing the path of the URL. PGHOST/PGPORT (default 127.0.0.1:5432) name the
# server; its user `postgres` must be trusted from loopback. PgBouncer refuses to run as root:
# as root it is started as the `postgres` user. Installs Debian's package when it is missing.
set -euo pipefail

command=${1:-}
dir=${2:-}
if [ -z "$command" ] || [ -z "$dir" ]; then
  echo "usage: $0 start DIR [PORT] | stop DIR | repoint DIR PORT" >&2
  exit 64
fi

stop() {
  if [ -f "$dir/pgbouncer.pid" ]; then
    local pid
    pid=$(cat "$dir/pgbouncer.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    rm -f "$dir/pgbouncer.pid"
  fi
}

if [ "$command" = stop ]; then
  stop
  exit 0
fi
if [ "$command" = repoint ]; then
  new_port=${3:?usage: $0 repoint DIR PORT}
  sed -i "s/^\* = host=.*/* = host=${PGHOST:-127.0.0.1} port=$new_port/" "$dir/pgbouncer.ini"
  kill -HUP "$(cat "$dir/pgbouncer.pid")"
  exit 0
fi
[ "$command" = start ] || { echo "unknown command $command" >&2; exit 64; }

if [ ! -x /usr/sbin/pgbouncer ]; then
  echo "installing pgbouncer" >&2
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer >&2
fi

port=${3:-6432}
host=${PGHOST:-127.0.0.1}
server_port=${PGPORT:-5432}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
cat >"$dir/pgbouncer.ini" <<EOF
[databases]
* = host=$host port=$server_port

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
pool_mode = transaction
max_client_conn = 500
default_pool_size = 20
; Several test files run at once, each with databases of its own: bound the server's share.
max_db_connections = 20
server_reset_query =
; After a failed connection to the server (a restart, a failover) try again after a second, not
; the default 15: clients wait in the meantime.
server_login_retry = 1
; Kept short: a test drops its database while the pool may still hold a connection to it.
server_idle_timeout = 5
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
admin_users = postgres
ignore_startup_parameters = extra_float_digits,options
EOF
echo '"postgres" ""' >"$dir/userlist.txt"
: >"$dir/pgbouncer.log"
if [ "$(id -u)" = 0 ]; then
  chown -R postgres "$dir"
  user=(-u postgres)
else
  user=()
fi
# Not daemonized: the process stays a child of this shell's session, stopped through its pid file.
nohup /usr/sbin/pgbouncer "${user[@]}" "$dir/pgbouncer.ini" >/dev/null 2>&1 &
url="postgres://postgres@127.0.0.1:$port"
for _ in $(seq 1 100); do
  if psql "$url/postgres" -qAtc "SELECT 1" >/dev/null 2>&1; then
    echo "$url"
    exit 0
  fi
  sleep 0.1
done
echo "pgbouncer did not start; its log:" >&2
cat "$dir/pgbouncer.log" >&2
exit 1
