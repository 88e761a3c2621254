#!/usr/bin/env bash
# run.sh [legacy|srbac] [go test flags...] - runs the ironic-tempest-plugin
# API suite (and goironic_tempest) against our all-in-one server: the Go
# test test/tempest (TestTempestAPI), both policy modes unless one is
# named. Needs Debian's tempest, ironic-tempest-plugin and Keystone
# (../scripts/install-test-deps.sh). Results (results.txt, failures.txt,
# skips.txt, console.log, tempest.log, ironic.log, summary.txt per mode)
# go under $TEMPEST_RESULTS_DIR (default: a new /tmp/goironic-tempest.*).
#
# Environment: IRONIC_TEST_PORTS=LOW-HIGH (the ports to use; default any
# free), IRONIC_TEMPEST_AUTH=keystone|noauth, IRONIC_TEMPEST_REGEX (a
# subset of the upstream tests; counts then not compared). See README.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

run=TestTempestAPI
case ${1:-} in
  legacy|srbac) run="TestTempestAPI/$1"; shift ;;
esac
out=${TEMPEST_RESULTS_DIR:-$(mktemp -d /tmp/goironic-tempest.XXXXXX)}
mkdir -p "$out"
echo "run.sh: results under $out/_artifacts" >&2
export IRONIC_TEST_REQUIRE_TEMPEST=${IRONIC_TEST_REQUIRE_TEMPEST:-1}
exec go test ./test/tempest -run "^${run}\$" -count=1 -v -timeout 45m \
  -artifacts -outputdir "$out" "$@"
