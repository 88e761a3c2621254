#!/bin/bash
# bfv-deploy-scenario.sh ENDPOINT: a boot-from-volume deployment with the
# "direct" deploy interface and ipxe boot through the openstack CLI
# (validate, deploy, targets, undeploy), to compare two Ironics' answers
# and Cinder calls; dev/bfv-vs-reference.sh runs it on both.
export OS_AUTH_TYPE=none OS_ENDPOINT=$1 OS_BAREMETAL_API_VERSION=1.78
B="openstack baremetal"
$B node delete bfvd >/dev/null 2>&1
N=$($B node create --driver fake-hardware --name bfvd --driver-info deploy_kernel=http://127.0.0.1:8080/dk --driver-info deploy_ramdisk=http://127.0.0.1:8080/dr --boot-interface ipxe --deploy-interface direct --storage-interface cinder --property capabilities=iscsi_boot:True -f value -c uuid)
$B port create --node $N 52:54:00:12:34:56 -f value -c uuid >/dev/null
$B volume connector create --node $N --type iqn --connector-id iqn.2017-08.org.openstack:bfvd -f value -c uuid >/dev/null
$B volume connector create --node $N --type ip --connector-id 192.0.2.77 -f value -c uuid >/dev/null
T=$($B volume target create --node $N --type iscsi --boot-index 0 --volume-id b00710a0-0000-4000-8000-00000000b0f1 -f value -c uuid)
echo "== validate"; $B node validate $N -f value -c Interface -c Result -c Reason
$B node manage bfvd --wait 60; $B node provide bfvd --wait 60
echo "== deploy"; $B node deploy bfvd --wait 60; echo "rc=$?"
$B node show bfvd -f json -c provision_state -c power_state -c last_error -c driver_internal_info -c instance_info
echo "== targets"; $B volume target list --node $N -f value -c UUID -c "Boot Index"
echo "== undeploy"; $B node undeploy bfvd --wait 60; echo "rc=$?"
$B node show bfvd -f json -c provision_state -c power_state -c last_error -c driver_internal_info
echo "== targets after"; $B volume target list --node $N -f value -c UUID
echo "== connectors after"; $B volume connector list --node $N -f value -c Type
$B node delete bfvd
