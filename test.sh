#!/usr/bin/env bash
# Runs every test: unit and API tests, the MariaDB and Python Ironic
# cross-checks, the differential tests against the recorded reference
# answers, the openstack CLI test, the split deployment on MariaDB and
# RabbitMQ with its failure tests, the interop tests with Python's
# ironic-api and ironic-conductor, and bounded fuzzing. It installs what
# it needs from Debian's packages first.
set -euo pipefail
cd "$(dirname "$0")"

./scripts/install-test-deps.sh

# The tests that need a real MariaDB, RabbitMQ, Keystone, Python Ironic or
# the CLI, QEMU (the VM tests) and the disk tools (qemu-img, sgdisk,
# sfdisk, cpio) fail instead of skipping here (test/split runs the split deployment on
# MariaDB and RabbitMQ within the go test timeout below).
export IRONIC_TEST_REQUIRE_MARIADB=1 IRONIC_TEST_REQUIRE_PYTHON=1 IRONIC_TEST_REQUIRE_RABBITMQ=1 \
  IRONIC_TEST_REQUIRE_KEYSTONE=1 IRONIC_TEST_REQUIRE_IPMISIM=1 \
  IRONIC_TEST_REQUIRE_QEMU=1 IRONIC_TEST_REQUIRE_TOOLS=1 IRONIC_TEST_REQUIRE_CPIO=1

go vet ./...
# The linter at its pinned version, zero findings (.golangci.yml).
./scripts/lint.sh
# Unit and in-process tests in parallel; then the black-box packages one
# at a time (each starts servers, MariaDB, RabbitMQ or Python Ironic and
# runs the CLI: in parallel on a small machine they starve each other).
go test -count=1 -timeout 20m $(go list ./... | grep -v '/test/')
go test -count=1 -timeout 40m -p 1 ./test/...

# Bounded fuzzing: each target runs a fixed number of inputs (a count,
# not a duration: a duration can expire mid-call and fail the run).
fuzz() { go test -run '^$' -fuzz "^$2\$" -fuzztime "$3" "$1"; }
fuzz ./apiv1 FuzzAPI "${FUZZ_API:-60000x}"
fuzz ./microversions FuzzNegotiate "${FUZZ_NEGOTIATE:-500000x}"
fuzz ./apiv1 FuzzPatch "${FUZZ_PATCH:-60000x}"
fuzz ./rpc/oslo FuzzDispatch "${FUZZ_DISPATCH:-30000x}"
fuzz ./apiv1/auth FuzzMiddleware "${FUZZ_AUTH:-100000x}"
fuzz ./agent/disk FuzzQcow2 "${FUZZ_QCOW2:-20000x}"
fuzz ./internal/roothints FuzzParse "${FUZZ_ROOTHINTS:-50000x}"
echo "test.sh: all tests passed"
