// Package vm proves the end-to-end deploy's parts that are neither the
// agent nor Glance: the test whole-disk image (test/internal/diskimage)
// boots under QEMU's SeaBIOS and its tinyinit reports the SMBIOS UUID
// and the config drive's uuid; and the node harness (test/internal/vm:
// QEMU driven by the Redfish emulator) with our all-in-one (redfish
// hardware type, ipxe boot) netboots through ipxe_config and then boots
// its disk after "boot device disk" and a power cycle through the API.
//
// Without QEMU or the image tools the tests skip, unless
// IRONIC_TEST_REQUIRE_QEMU=1. TCP ports: 6700-6719 for the API, any
// free loopback port otherwise. Every VM run is bounded in time.
package vm
