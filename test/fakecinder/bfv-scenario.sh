#!/bin/bash
# bfv-scenario.sh ENDPOINT: a boot-from-volume power cycle through the
# openstack CLI, to compare the Cinder calls of two Ironics (ours and the
# reference). Each server needs fake-hardware with
# enabled_storage_interfaces including cinder and
#   [cinder] auth_type = none, endpoint_override = http://127.0.0.1:PORT/v3
# pointing at its own fresh `go run ./test/fakecinder/cmd/fake-cinder
# -listen 127.0.0.1:PORT -volume b00710a0-0000-4000-8000-00000000b0f1 -v`;
# then diff the two fake-cinder logs. Done for the bfv branch: the same
# requests in the same order, bodies equal as JSON.
set -e
export OS_AUTH_TYPE=none OS_ENDPOINT=$1 OS_BAREMETAL_API_VERSION=1.78
B="openstack baremetal"
N=$($B node create --driver fake-hardware --name bfv --storage-interface cinder --property capabilities=iscsi_boot:True -f value -c uuid)
$B volume connector create --node $N --type iqn --connector-id iqn.2017-08.org.openstack:bfv -f value -c uuid >/dev/null
$B volume connector create --node $N --type ip --connector-id 192.0.2.77 -f value -c uuid >/dev/null
T=$($B volume target create --node $N --type iscsi --boot-index 0 --volume-id b00710a0-0000-4000-8000-00000000b0f1 -f value -c uuid)
$B node validate $N -f value -c Interface -c Result -c Reason | grep storage
$B node manage bfv --wait 60; $B node provide bfv --wait 60; $B node deploy bfv --wait 60
$B node power off bfv; sleep 3
$B node power on bfv; sleep 3
$B volume target show $T -f json -c properties
$B node power off bfv; sleep 3
$B node power on bfv; sleep 3
$B node show bfv -f value -c power_state -c last_error
