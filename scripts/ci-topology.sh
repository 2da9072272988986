#!/usr/bin/env bash
# Issue 31 item 2 in CI (.ci/run, docs/decisions.md "The end-to-end tests through PgBouncer and
# HAProxy in CI"): the end-to-end tests against PostgreSQL through a transaction-mode PgBouncer,
# and against the production topology.
#
#   scripts/ci-topology.sh pgbouncer   the whole e2e suite, its in-process apps on
#                                      PostgreSQL through a transaction-mode PgBouncer started here
#                                      (HANSE_DATABASE_POOLER=transaction)
#   scripts/ci-topology.sh topology    scripts/topology.sh start (PgBouncer, two API processes
#                                      behind HAProxy, two worker processes), then test/topology and
#                                      the e2e files that run remotely (test/support/remote-app.ts)
#                                      against HAProxy, then stop
#
# Exits non-zero when a test fails or something does not start, after printing the logs of
# PgBouncer, HAProxy and the Hanse processes. PGHOST/PGPORT (default 127.0.0.1:5432) name the
# PostgreSQL server, whose `postgres` user must be trusted from loopback. Installs Debian's
# pgbouncer and haproxy when they are missing. Run it under the Node the tests should use.
set -euo pipefail
cd "$(dirname "$0")/.."

# Through the pooler: the whole end-to-end suite (issue 31's "done when"); what PgBouncer's
# transaction mode can break (statements, locks, LISTEN, the job queue's leases) shows in it.
pooler_files=(test/e2e)
# Against HAProxy: test/topology and every e2e file that can run remotely, so requests spread over
# two API processes and two workers. A file that needs an in-process app for all its tests (a fake
# clock, settings or a database of its own) says so in a first line
# `// remote mode: in-process only: <reason>`, printed here; single tests are marked inside files
# (test/support/remote-app.ts) and print their reason when they are skipped.
remote_files=(test/topology)
for file in test/e2e/*.test.ts; do
  reason=$(sed -n '1s|^// remote mode: in-process only: ||p' "$file")
  if [ -n "$reason" ]; then
    if [ "${1:-}" = topology ]; then echo "remote mode: not run (in-process only): $file: $reason"; fi
  else
    remote_files+=("$file")
  fi
done

command=${1:-}
host=${PGHOST:-127.0.0.1}
server_port=${PGPORT:-5432}
direct="postgres://postgres@$host:$server_port"

install_missing() {
  local missing=()
  [ -x /usr/sbin/pgbouncer ] || missing+=(pgbouncer)
  [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "installing ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  fi
}

dir=$(mktemp -d)
# PgBouncer runs as the postgres user: it must reach its directory inside this one.
chmod 755 "$dir"
cleanup() {
  local status=$?
  if [ "$status" != 0 ]; then
    echo "==== ci-topology $command FAILED (exit $status); the processes' logs:" >&2
    for log in "$dir"/*.log "$dir"/*/*.log; do
      [ -f "$log" ] || continue
      echo "== $log" >&2
      tail -40 "$log" >&2
    done
    # Last, so that a CI which keeps only the end of the output still names the failed tests.
    if [ -s "$dir/vitest.out" ]; then
      echo "==== ci-topology $command: the failed tests again" >&2
      sed -n '/Failed Tests/,$p' "$dir/vitest.out" | tail -120 >&2
    fi
  fi
  [ -d "$dir/topology" ] && scripts/topology.sh stop "$dir/topology"
  [ -d "$dir/pgbouncer" ] && scripts/pgbouncer.sh stop "$dir/pgbouncer"
  rm -rf "$dir"
  exit "$status"
}
trap cleanup EXIT

case "$command" in
  pgbouncer)
    install_missing
    bouncer=$(scripts/pgbouncer.sh start "$dir/pgbouncer" "${CI_PGBOUNCER_PORT:-16432}")
    # Test databases are created directly (HANSE_TEST_ADMIN_DATABASE_URL) and opened through PgBouncer.
    DATABASE_URL="$bouncer/postgres" HANSE_DATABASE_POOLER=transaction \
      HANSE_TEST_ADMIN_DATABASE_URL="$direct/postgres" \
      npx vitest run "${pooler_files[@]}" 2>&1 | tee "$dir/vitest.out"
    ;;
  topology)
    install_missing
    scripts/topology.sh start "$dir/topology" >"$dir/settings"
    # Only HTTP (and the job queue, to wait for the workers): no database of the tests' own.
    # shellcheck disable=SC2046 # the settings are KEY=value lines without spaces
    # One file at a time: the files share the two API processes and the workers.
    env -u DATABASE_URL -u HANSE_DATABASE_POOLER $(cat "$dir/settings") npx vitest run --maxWorkers=1 "${remote_files[@]}" 2>&1 | tee "$dir/vitest.out"
    ;;
  *)
    echo "usage: $0 pgbouncer | topology" >&2
    exit 64
    ;;
esac
