// Package ipxe proves the ipxe_config endpoint with real iPXE: the test
// boots QEMU (TCG, user networking) whose iPXE ROM chains
// http://10.0.2.2:<port>/v1/drivers/fake-hardware/vendor_passthru/
// ipxe_config?port_address=${mac} on our all-in-one server, and checks
// that the script makes iPXE fetch the node's kernel and initrd from a
// local file server (a node deploying, an active netboot node) or hook
// its iSCSI boot volume (an active boot-from-volume node: a listener on
// the portal's port sees iPXE connect).
//
// The "kernel" served is itself an iPXE script ending in poweroff, so
// that iPXE accepts it, fetches the initrd, boots it and stops the VM.
//
// Without qemu-system-x86_64 (Debian qemu-system-x86 + ipxe-qemu, see
// scripts/install-test-deps.sh) the test skips, unless
// IRONIC_TEST_REQUIRE_QEMU=1. It uses TCP ports 5700-5799 only.
package ipxe
