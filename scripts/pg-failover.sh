#!/usr/bin/env bash
# A PostgreSQL primary with a synchronous standby under pg_auto_failover,
# on loopback, for the failover test (issue #19) and its measurements.
#   pg-failover.sh up DIR PORT     monitor on PORT, nodes on PORT+1 and PORT+2;
#                                  prints lendhub's multi-host URL
#   pg-failover.sh primary DIR     the port of the node that is primary now
#   pg-failover.sh kill-primary DIR  kill -9 the primary node (its keeper and
#                                  its postgres); prints the port it had
#   pg-failover.sh wait-primary DIR NOT_PORT [SECONDS]  waits until a node
#                                  other than NOT_PORT is primary; prints it
#   pg-failover.sh replication DIR sync|async  whether commits wait for the
#                                  standby
#   pg-failover.sh state DIR       the monitor's view, for the log
#   pg-failover.sh down DIR        stops everything
# Installs Debian's pg_auto_failover packages when they are missing. As root
# the nodes run as the unprivileged `postgres` user, as PostgreSQL requires.
set -euo pipefail

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1; }

ensure_installed() {
    if command -v pg_autoctl >/dev/null && [[ -n "$(pg_bin)" ]]; then
        return
    fi
    echo "pg_auto_failover not found: installing Debian's packages" >&2
    local sudo=""
    [[ $(id -u) -eq 0 ]] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
    local major
    major=$(basename "$(dirname "$(pg_bin)")")
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
        "postgresql-$major-auto-failover" pg-auto-failover-cli >/dev/null
}

as_owner() {
    if [[ $(id -u) -eq 0 ]]; then
        id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
        runuser -u postgres -- env XDG_CONFIG_HOME="$dir/config" XDG_RUNTIME_DIR="$dir/run" \
            XDG_DATA_HOME="$dir/share" PATH="$(pg_bin):/usr/local/bin:/usr/bin:/bin" "$@"
    else
        env XDG_CONFIG_HOME="$dir/config" XDG_RUNTIME_DIR="$dir/run" XDG_DATA_HOME="$dir/share" \
            PATH="$(pg_bin):$PATH" "$@"
    fi
}

monitor_url() { echo "postgres://autoctl_node@127.0.0.1:$(cat "$dir/port")/pg_auto_failover?sslmode=disable"; }

# The port of the node that takes writes (alone: `single`, or after losing
# its standby: `wait_primary`), as the monitor reports it, if any.
primary_port() {
    as_owner psql -qAt "$(monitor_url)" -c \
        "SELECT nodeport FROM pgautofailover.node
         WHERE reportedstate = goalstate AND goalstate IN ('single', 'wait_primary', 'primary')" \
        2>/dev/null | head -n1
}

# `pg_autoctl run` for NAME in a session of its own (it renames its
# processes, so they are found by group, not by name).
start_keeper() {
    as_owner bash -c "setsid pg_autoctl run --pgdata '$dir/$1' >>'$dir/$1.log' 2>&1 </dev/null & echo \$! >'$dir/$1.keeper'"
}

# kill -9 of NAME's keeper (its whole group) and then of its postgres.
kill_node() {
    local keeper pid
    keeper=$(as_owner cat "$dir/$1.keeper" 2>/dev/null || true)
    [[ -n "$keeper" ]] && kill -9 -- "-$keeper" 2>/dev/null || true
    pid=$(as_owner head -n1 "$dir/$1/postmaster.pid" 2>/dev/null || true)
    [[ -n "$pid" ]] && kill -9 "$pid" 2>/dev/null || true
}

cmd=${1:?usage: pg-failover.sh up|primary|kill-primary|wait-primary|state|down DIR ...}
dir=${2:?directory}
case "$cmd" in
up)
    port=${3:?port}
    ensure_installed
    mkdir -p "$dir"
    [[ $(id -u) -eq 0 ]] && { id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres; chown postgres "$dir"; }
    echo "$port" | as_owner tee "$dir/port" >/dev/null
    # pg_autoctl keeps its pid files there; another cluster's must not count.
    as_owner mkdir -p -m 700 "$dir/run"
    as_owner timeout 120 pg_autoctl create monitor --pgdata "$dir/monitor" --pgport "$port" \
        --hostname 127.0.0.1 --auth trust --no-ssl 2>&1 | as_owner tee -a "$dir/monitor.log" >/dev/null
    # Notice a dead node in about three seconds instead of twenty.
    as_owner tee -a "$dir/monitor/postgresql.conf" >/dev/null <<CONF
pgautofailover.health_check_period = 1000
pgautofailover.health_check_timeout = 1000
pgautofailover.health_check_max_retries = 1
pgautofailover.health_check_retry_delay = 500
pgautofailover.node_considered_unhealthy_timeout = 3000
CONF
    start_keeper monitor
    for _ in $(seq 100); do
        as_owner psql -qAt "$(monitor_url)" -c 'SELECT 1' >/dev/null 2>&1 && break
        sleep 0.2
    done
    for n in 1 2; do
        node_port=$((port + n))
        as_owner timeout 120 pg_autoctl create postgres --pgdata "$dir/node$n" --pgport "$node_port" \
            --hostname 127.0.0.1 --listen 127.0.0.1 --name "node$n" \
            --monitor "$(monitor_url)" --auth trust --no-ssl \
            --dbname lendhub --username lendhub 2>&1 | as_owner tee -a "$dir/node$n.log" >/dev/null
        as_owner tee -a "$dir/node$n/postgresql.conf" >/dev/null <<CONF
max_connections = 200
unix_socket_directories = '$dir'
CONF
        start_keeper "node$n"
        # The second node is created once the first is primary.
        for _ in $(seq 300); do
            [[ -n "$(primary_port)" ]] && break
            sleep 0.2
        done
    done
    # Ready when the standby streams synchronously.
    for _ in $(seq 600); do
        sync=$(as_owner psql -qAt -h 127.0.0.1 -p "$(primary_port)" -U postgres -d postgres -c \
            "SELECT count(*) FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum')" 2>/dev/null || true)
        [[ "$sync" == "1" ]] && break
        sleep 0.2
    done
    [[ "$sync" == "1" ]] || { echo "the standby never became synchronous" >&2; exit 1; }
    primary=$(primary_port)
    as_owner psql -qAt -h 127.0.0.1 -p "$primary" -U postgres -d postgres -c \
        "DO \$\$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'lendhub') THEN CREATE ROLE lendhub LOGIN SUPERUSER; END IF; END \$\$" >/dev/null
    as_owner psql -qAt -h 127.0.0.1 -p "$primary" -U postgres -d postgres -c \
        "ALTER DATABASE lendhub OWNER TO lendhub" >/dev/null
    echo "postgres://lendhub@127.0.0.1:$((port + 1)),127.0.0.1:$((port + 2))/lendhub?target_session_attrs=read-write"
    ;;
primary)
    primary_port
    ;;
kill-primary)
    p=$(primary_port)
    [[ -n "$p" ]] || { echo "no primary" >&2; exit 1; }
    kill_node "node$((p - $(cat "$dir/port")))"
    echo "$p"
    ;;
wait-primary)
    old=${3:?port of the old primary}
    seconds=${4:-60}
    for _ in $(seq $((seconds * 5))); do
        p=$(primary_port)
        if [[ -n "$p" && "$p" != "$old" ]]; then
            echo "$p"
            exit 0
        fi
        sleep 0.2
    done
    echo "no new primary within ${seconds}s" >&2
    exit 1
    ;;
replication)
    # sync: commits wait for the standby (the default); async: they do not.
    mode=${3:?sync or async}
    quorum=true
    [[ "$mode" == async ]] && quorum=false
    p=$(primary_port)
    standby=node1
    [[ "$((p - $(cat "$dir/port")))" == 1 ]] && standby=node2
    as_owner pg_autoctl set node replication-quorum "$quorum" --pgdata "$dir/$standby" >/dev/null
    want=1
    [[ "$mode" == async ]] && want=0
    for _ in $(seq 150); do
        sync=$(as_owner psql -qAt -h 127.0.0.1 -p "$p" -U postgres -d postgres -c \
            "SELECT count(*) FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum')" 2>/dev/null || true)
        [[ "$sync" == "$want" ]] && exit 0
        sleep 0.2
    done
    echo "replication did not become $mode" >&2
    exit 1
    ;;
state)
    as_owner pg_autoctl show state --monitor "$(monitor_url)" 2>&1 || true
    ;;
down)
    for node in node1 node2 monitor; do
        kill_node "$node"
    done
    ;;
*)
    echo "unknown command $cmd" >&2
    exit 2
    ;;
esac
