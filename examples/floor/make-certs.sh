#!/bin/sh
# Make the floor's certificates with openssl: a CA, the broker's certificate, one per floor
# process (common name tablectl-floor-NAME: with use_username_as_clientid it is the process's
# client id, its session at the broker) and one per table (common name: the table's id).
#   sh make-certs.sh DIR BROKER_HOSTNAME [--floor NAME]... TABLE_ID...
#   e.g. sh make-certs.sh certs floor.casino.lan --floor a --floor b bj-01 bj-02 bac-01
# Without --floor, and no floor certificate in DIR yet: one floor process named a.
# Run it again to add tables or floor processes: what DIR has is kept (delete a .crt to reissue).
# It also writes, in DIR:
#   floor-group  the floor's secret shared-subscription group (TABLECTL_FLOOR_GROUP= in
#                /etc/tablectl/floor.env on the floor hosts, never on a table), made once;
#   floor.acl    the ACL's user block for every floor certificate in DIR, to append to
#                tablectl.acl.
# Keep ca.key offline: whoever holds it can issue a certificate under any name, a floor's too.
set -eu
usage() { echo "usage: sh make-certs.sh DIR BROKER_HOSTNAME [--floor NAME]... TABLE_ID..." >&2
          exit 2; }
[ $# -ge 2 ] || usage
dir=$1; broker=$2; shift 2
name_ok() {  # one MQTT topic level of letters, digits, - and _ (controller/daemon/broker.py TABLE_ID)
    case $1 in ''|[!A-Za-z0-9]*|*[!A-Za-z0-9_-]*) return 1;; esac
    [ ${#1} -le 64 ]
}
floors=""; tables=""
while [ $# -gt 0 ]; do
    case $1 in
        --floor) [ $# -ge 2 ] && name_ok "$2" || usage
                 floors="$floors tablectl-floor-$2"; shift 2;;
        -*) usage;;
        ca|broker|tablectl-floor*)
            echo "make-certs.sh: $1 cannot be a table's id (it names the CA, the broker or a" \
                 "floor process)" >&2; exit 2;;
        *) name_ok "$1" || { echo "make-certs.sh: $1 is not a table id" >&2; exit 2; }
           tables="$tables $1"; shift;;
    esac
done
mkdir -p "$dir"; cd "$dir"
umask 077
if [ -z "$floors" ] && ! ls tablectl-floor-*.crt >/dev/null 2>&1; then
    floors=" tablectl-floor-a"
fi
days=825
if [ ! -f ca.key ]; then
    openssl req -x509 -newkey rsa:3072 -nodes -keyout ca.key -out ca.crt -days 3650 \
        -subj "/CN=tablectl floor CA" 2>/dev/null
fi
made=""
issue() {  # file name, subject common name, extensions; never over an existing certificate
    [ -f "$1.crt" ] && return 0
    openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=$2" 2>/dev/null
    printf '%s\n' "$3" > "$1.ext"
    openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$1.crt" \
        -days "$days" -extfile "$1.ext" 2>/dev/null
    rm "$1.csr" "$1.ext"
    made="$made $1"
}
issue broker "$broker" "subjectAltName=DNS:$broker,DNS:localhost,IP:127.0.0.1
extendedKeyUsage=serverAuth"
for name in $floors $tables; do
    issue "$name" "$name" "extendedKeyUsage=clientAuth"
done
if [ ! -f floor-group ]; then
    openssl rand -hex 16 > floor-group
fi
for crt in tablectl-floor-*.crt; do
    user=${crt%.crt}
    printf '\nuser %s\ntopic read tablectl/tables/#\ntopic write tablectl/floor/#\n' "$user"
done > floor.acl
chmod 0644 ca.crt ./*.crt floor.acl
echo "made in $dir:${made:- nothing new}; floor.acl (append it to tablectl.acl); floor-group" \
     "(the floor's TABLECTL_FLOOR_GROUP, secret)"
