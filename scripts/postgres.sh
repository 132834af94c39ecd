#!/usr/bin/env bash
# A scratch PostgreSQL server for the tests of dsh-store-postgres (issue 22): Debian's `postgresql`
# binaries, a new cluster in a folder of its own, listening only on a Unix socket in that folder.
#   bash scripts/postgres.sh start <folder>   prints the socket folder on stdout once the server accepts connections
#   bash scripts/postgres.sh stop <folder>    stops it (the folder is the caller's to remove)
# initdb refuses to run as root: as root, the cluster is made and run as the `postgres` user. Connect
# with user `postgres` (trust authentication on the socket; nothing listens on TCP).
set -euo pipefail

command=${1:-}
folder=${2:-}
if [ -z "$command" ] || [ -z "$folder" ]; then
  echo "usage: bash scripts/postgres.sh start|stop <folder>" >&2
  exit 2
fi

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "error: PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): run 'apt-get update && apt-get install -y postgresql' as root, or 'bash scripts/dsh.sh test', which installs it" >&2
  exit 3
fi

# Runs a server command as the cluster's owner: the postgres user when this script runs as root.
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$command" in
  start)
    mkdir -p "$folder"
    # The server runs as the postgres user: it must own the folder (and reach it: a fresh mktemp -d folder).
    if [ "$(id -u)" = 0 ]; then chown postgres "$folder"; fi
    if [ ! -f "$folder/data/PG_VERSION" ]; then
      as_owner "$bin/initdb" -D "$folder/data" -U postgres --auth=trust -E UTF8 --locale=C >"$folder/initdb.log" 2>&1 \
        || { cat "$folder/initdb.log" >&2; exit 1; }
    fi
    as_owner "$bin/pg_ctl" -D "$folder/data" -l "$folder/server.log" -w -t 60 \
      -o "-k $folder -c listen_addresses= -c fsync=off -c max_connections=50" start >/dev/null \
      || { cat "$folder/server.log" >&2; exit 1; }
    echo "$folder"
    ;;
  stop)
    if [ -f "$folder/data/postmaster.pid" ]; then as_owner "$bin/pg_ctl" -D "$folder/data" -m fast -w stop >/dev/null; fi
    ;;
  *)
    echo "usage: bash scripts/postgres.sh start|stop <folder>" >&2
    exit 2
    ;;
esac
