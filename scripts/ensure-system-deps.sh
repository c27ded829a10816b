#!/usr/bin/env bash
# Installs the Debian packages the test command needs when they are missing (CI and fresh machines).
set -euo pipefail
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
# A PostgreSQL server: the BFF and stand-in suites run once more against it (DATABASE_URL path).
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || need+=(postgresql)
# HAProxy: the cluster (`npm start -- --replicas N`, its journey and bench) balances the BFFs with it.
command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || need+=(haproxy)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing from Debian: ${need[*]}"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
