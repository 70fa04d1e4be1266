#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on loopback, for tests and benchmarks.
#   pg-cluster.sh start DIR PORT [--no-fsync]
#                                  initdb (if needed) and start; prints the admin URL.
#                                  --no-fsync: a test run's own cluster, where
#                                  only an OS crash (which ends the run anyway)
#                                  could lose a write; the suite drops each
#                                  test's database, and every DROP DATABASE
#                                  waits for a checkpoint's fsyncs, which
#                                  doubled the storage suite's time.
#   pg-cluster.sh stop DIR         fast shutdown
#   pg-cluster.sh install          only install the server when it is missing
# Installs Debian's postgresql package when no server binaries are found.
# PostgreSQL refuses to run as root, so as root the cluster runs as the
# unprivileged `postgres` user (created by the package, or here).
set -euo pipefail

bindir() {
    local found
    found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1 || true)
    if [[ -n "$found" && -x "$found/initdb" ]]; then
        echo "$found"
    elif command -v pg_ctl >/dev/null && command -v initdb >/dev/null; then
        dirname "$(command -v pg_ctl)"
    fi
}

ensure_installed() {
    if [[ -n "$(bindir)" ]]; then
        return
    fi
    echo "PostgreSQL server not found: installing Debian's postgresql package" >&2
    local sudo=""
    [[ $(id -u) -eq 0 ]] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
    [[ -n "$(bindir)" ]] || { echo "PostgreSQL installation failed" >&2; exit 1; }
}

# Runs a command as the cluster's owner.
as_owner() {
    if [[ $(id -u) -eq 0 ]]; then
        id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

cmd=${1:?usage: pg-cluster.sh start DIR PORT [--no-fsync] | stop DIR | install}
if [[ "$cmd" == install ]]; then
    ensure_installed
    exit 0
fi
dir=${2:?data directory}
case "$cmd" in
start)
    port=${3:?port}
    fsync=on
    [[ ${4:-} == --no-fsync ]] && fsync=off
    ensure_installed
    bin=$(bindir)
    mkdir -p "$dir"
    [[ $(id -u) -eq 0 ]] && { id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres; chown postgres "$dir"; chmod 700 "$dir"; }
    if [[ ! -f "$dir/PG_VERSION" ]]; then
        as_owner "$bin/initdb" --pgdata="$dir" --username=lendhub --auth=trust \
            --encoding=UTF8 --locale=C --no-sync >/dev/null
        cat >>"$dir/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
max_connections = 400
shared_buffers = 256MB
CONF
    fi
    as_owner "$bin/pg_ctl" --pgdata="$dir" --log="$dir/server.log" --wait --silent \
        --options="-c fsync=$fsync" start
    echo "postgres://lendhub@127.0.0.1:$port/postgres"
    ;;
stop)
    bin=$(bindir)
    as_owner "$bin/pg_ctl" --pgdata="$dir" --mode=fast --wait --silent stop
    ;;
*)
    echo "unknown command $cmd" >&2
    exit 2
    ;;
esac
