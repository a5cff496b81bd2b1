#!/bin/sh
# Make the floor's certificates with openssl: a CA, the broker's certificate, the floor
# service's, and one per table named on the command line. Keep ca.key offline.
#   sh make-certs.sh DIR BROKER_HOSTNAME TABLE_ID...
#   e.g. sh make-certs.sh certs floor.casino.lan bj-01 bj-02 bac-01
set -eu
dir=$1; broker=$2; shift 2
mkdir -p "$dir"; cd "$dir"
umask 077
days=825
if [ ! -f ca.key ]; then
    openssl req -x509 -newkey rsa:3072 -nodes -keyout ca.key -out ca.crt -days 3650 \
        -subj "/CN=tablectl floor CA" 2>/dev/null
fi
issue() {  # name, subject common name, extensions
    openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=$2" 2>/dev/null
    printf '%s\n' "$3" > "$1.ext"
    openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$1.crt" \
        -days "$days" -extfile "$1.ext" 2>/dev/null
    rm "$1.csr" "$1.ext"
}
issue broker "$broker" "subjectAltName=DNS:$broker,DNS:localhost,IP:127.0.0.1
extendedKeyUsage=serverAuth"
issue tablectl-floor tablectl-floor "extendedKeyUsage=clientAuth"
for table in "$@"; do
    issue "$table" "$table" "extendedKeyUsage=clientAuth"
done
chmod 0644 ca.crt ./*.crt
echo "certificates in $dir: ca.crt, broker.crt/key, tablectl-floor.crt/key, and $*"
