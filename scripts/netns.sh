#!/usr/bin/env bash
# A host of its own for one lendhub instance, on this machine (issue #19's
# partition tests): a network namespace joined to the root namespace by a
# veth pair, and nftables rules in it that cut or thin one TCP port's
# traffic. (The kernel here has no sch_netem, so delay is added by the
# test's relay, not by tc.)
#   netns.sh up NAME N           namespace NAME; root side 10.79.N.1, NAME's side 10.79.N.2
#   netns.sh cut NAME PORT       drop every packet to or from PORT, in NAME
#   netns.sh lossy NAME PORT PCT drop PCT % of them, at random
#   netns.sh heal NAME           no rule: the link is whole again
#   netns.sh down NAME N         removes the namespace and its link
# Needs root (CAP_NET_ADMIN), iproute2 and nftables (installed when missing).
set -euo pipefail

cmd=${1:?usage: netns.sh up|cut|lossy|heal|down NAME ...}
name=${2:?namespace name}
in_ns() { ip netns exec "$name" "$@"; }

rules() {
    # Both directions: what the instance sends to PORT, and what comes back.
    in_ns nft flush chain inet lendhub_fault out
    in_ns nft flush chain inet lendhub_fault in
    in_ns nft add rule inet lendhub_fault out tcp dport "$1" $2 drop
    in_ns nft add rule inet lendhub_fault in tcp sport "$1" $2 drop
}

case "$cmd" in
up)
    n=${3:?link number, 1-250}
    command -v nft >/dev/null || {
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nftables >/dev/null
    }
    ip netns add "$name"
    ip link add "lh${n}r" type veth peer name "lh${n}n"
    ip link set "lh${n}n" netns "$name"
    ip addr add "10.79.$n.1/24" dev "lh${n}r"
    ip link set "lh${n}r" up
    in_ns ip addr add "10.79.$n.2/24" dev "lh${n}n"
    in_ns ip link set "lh${n}n" up
    in_ns ip link set lo up
    # Other namespaces' root-side addresses are reached through the root.
    in_ns ip route add default via "10.79.$n.1"
    in_ns nft add table inet lendhub_fault
    in_ns nft add chain inet lendhub_fault out '{ type filter hook output priority 0; }'
    in_ns nft add chain inet lendhub_fault in '{ type filter hook input priority 0; }'
    ;;
cut)
    rules "${3:?port}" ""
    ;;
lossy)
    rules "${3:?port}" "numgen random mod 100 < ${4:?percent}"
    ;;
heal)
    in_ns nft flush chain inet lendhub_fault out
    in_ns nft flush chain inet lendhub_fault in
    ;;
down)
    n=${3:?link number}
    ip link del "lh${n}r" 2>/dev/null || true
    ip netns del "$name" 2>/dev/null || true
    ;;
*)
    echo "unknown command $cmd" >&2
    exit 2
    ;;
esac
