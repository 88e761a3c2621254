// Package vm proves the end-to-end deploy on a QEMU node: the test
// whole-disk image (test/internal/diskimage) boots under QEMU's SeaBIOS
// and its tinyinit reports the SMBIOS UUID and the config drive's uuid;
// the node harness (test/internal/vm: QEMU driven by the Redfish
// emulator) with our all-in-one (redfish hardware type, ipxe boot)
// netboots through ipxe_config and then boots its disk after "boot
// device disk" and a power cycle through the API; and TestDeployVM, the
// whole of it: our agent ramdisk (cmd/ironic-agent as /init, built by
// agent/ramdisk) deploys the image's qcow2 and a config drive onto a
// blank disk through `openstack baremetal node deploy`, the node boots
// what was deployed, and `undeploy` cleans it through the agent
// (erase_devices_metadata). TestAgentL3NoDHCP is the ramdisk's side of
// the L3 virtual-media deploy: the VM on a network namespace's tap with
// no DHCP server takes its addresses from a config-2 CD's
// network_data.json and heartbeats to our all-in-one from them (it needs
// root for the namespace).
//
// Without QEMU or the image tools the tests skip, unless
// IRONIC_TEST_REQUIRE_QEMU=1. TCP ports: 6700-6719 and 6740-6759 for
// the API and the agent's forwarded port, 6800-6819 for the L3 test,
// any free loopback port otherwise. Every VM run is bounded in time; the
// package takes about six minutes under TCG on 2 cores.
package vm
