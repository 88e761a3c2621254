// Package ramdisk proves the deploy ramdisk in a VM: it builds the
// initramfs with agent/ramdisk around a test-only /init (testinit: as
// PID 1 it runs agent/boot's Init; as the agent Init starts, its first
// run leaves an orphan and crashes, its second fetches /hello from a
// server this test runs on the host, prints a marker and powers off),
// takes Debian's
// kernel (apt-get download into the user cache, never installed), and
// boots both in QEMU (TCG, user networking) with the kernel command line
// drivers/pxe's ipxe_config gives a node in deploy wait (Ironic 21.4's
// template), once with a virtio NIC and once with an e1000, asserting the marker, the address, the modules and that the VM
// powered itself off. It also reads the archive back with Debian's cpio
// and checks the build is reproducible.
//
// Without qemu-system-x86_64 (or apt-get/dpkg-deb, or cpio) the tests
// skip, unless IRONIC_TEST_REQUIRE_QEMU=1. The host's server listens on
// an ephemeral port of 127.0.0.1 (the guest reaches it as 10.0.2.2).
package ramdisk
