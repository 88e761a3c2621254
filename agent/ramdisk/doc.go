// Package ramdisk builds the deploy ramdisk our agent boots in: a
// gzip-compressed newc cpio archive written in process (CPIOWriter,
// Tree) holding a static /init (the agent), device nodes /dev/console
// and /dev/null, and the kernel modules agent/boot loads, with their
// dependencies read from the modules' own .modinfo; and the deploy
// kernel, Debian's linux-image-amd64 fetched with apt-get download and
// unpacked with dpkg-deb, never installed. cmd/ironic-ramdisk is its
// command; the output is reproducible (fixed mtimes, sorted entries, a
// gzip header without name or time).
package ramdisk
