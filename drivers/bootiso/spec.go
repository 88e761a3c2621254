// Package bootiso builds, in process, the bootable ISO images of the
// virtual-media boot interfaces: what Ironic 21.4's
// ironic.common.images.create_boot_iso builds with genisoimage (BIOS:
// create_isolinux_image_for_bios; UEFI: create_esp_image_for_uefi).
//
// Builder.Build (builder.go) writes the ISO; Spec is the contract its
// consumers (drivers/redfish's virtual-media boot interface) code against.
package bootiso

// Spec is what one boot ISO carries. Fetching the kernel, ramdisk, ESP
// image or deploy ISO is the caller's job: every path here is a local file.
type Spec struct {
	// BootMode is "uefi" for an ISO that boots through an EFI System
	// Partition image (El Torito platform 0xEF); anything else builds the
	// BIOS ISO (isolinux, El Torito platform 0x00), as 21.4 does.
	BootMode string
	// Kernel and Ramdisk are written as /vmlinuz and /initrd.
	Kernel, Ramdisk string
	// KernelParams are the kernel command line's words, in order (21.4's
	// params list: "root=UUID=..." first when there is a root UUID, then
	// the node's kernel parameters), joined with spaces into the
	// isolinux.cfg or grub.cfg rendered from the configured template.
	KernelParams []string
	// ESPImage is a FAT image holding the EFI boot loader (UEFI only):
	// driver_info's bootloader or [DEFAULT]esp_image, fetched. When it and
	// DeployISO are empty the builder uses a local [DEFAULT]esp_image, or
	// else makes an ESP itself (Debian's GRUB on FAT16).
	ESPImage string
	// DeployISO is a deploy ISO whose EFI System Partition image is
	// reused (UEFI only; 21.4's deploy_iso).
	DeployISO string
	// InjectFiles maps a path on the ISO ("openstack/latest/network_data.json")
	// to its content. Any path under "openstack/" makes the volume label
	// "config-2" (21.4's _label); otherwise it is "VMEDIA_BOOT_ISO".
	InjectFiles map[string][]byte
	// PublisherID is the primary volume descriptor's publisher: 21.4's
	// prepare_iso_image sets a new UUID for every ISO that boots the
	// ramdisk (and adds "ir_pub_id=<it>" to the kernel parameters), none
	// for a ramdisk-deploy boot ISO. Empty: the BIOS ISO's publisher is
	// "None" (21.4 passes str(None) to mkisofs), the UEFI ISO's is blank.
	// genisoimage also writes its first 23 bytes as the El Torito
	// validation entry's ID; so does Build.
	PublisherID string
}
