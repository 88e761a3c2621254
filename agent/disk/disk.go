// Package disk is the agent ramdisk's block-device side: it lists the
// machine's disks as IPA's inventory shows them, picks the root device
// with Ironic's root device hints, writes images (downloaded over
// http(s) with the checksum Ironic passes, raw streamed or qcow2
// converted) and config drives, reads partition UUIDs and erases
// metadata, as the Ironic Python Agent's standby, deploy and image
// extensions do for Ironic 21.4.
//
// The agent package (the API, lookup, heartbeats and command dispatch)
// reaches it through an interface of its own, satisfied by *Manager.
package disk

import "context"

// BlockDevice is one disk as IPA's inventory serialises it
// (ironic_python_agent.hardware.BlockDevice): the keys, their order and
// null for what is not known.
type BlockDevice struct {
	Name               string  `json:"name"`
	Model              string  `json:"model"`
	Size               int64   `json:"size"`
	Rotational         bool    `json:"rotational"`
	WWN                *string `json:"wwn"`
	Serial             *string `json:"serial"`
	Vendor             *string `json:"vendor"`
	WWNWithExtension   *string `json:"wwn_with_extension"`
	WWNVendorExtension *string `json:"wwn_vendor_extension"`
	HCTL               *string `json:"hctl"`
	ByPath             *string `json:"by_path"`
}

// ImageInfo is the image_info Ironic 21.4 sends with deploy.write_image
// (ironic.drivers.modules.agent.AgentDeploy.write_image); fields absent
// from the JSON stay at their zero value.
type ImageInfo struct {
	ID                string            `json:"id"`
	URLs              []string          `json:"urls"`
	DiskFormat        *string           `json:"disk_format"`
	ContainerFormat   *string           `json:"container_format"`
	StreamRawImages   bool              `json:"stream_raw_images"`
	Checksum          string            `json:"checksum,omitempty"`
	OSHashAlgo        string            `json:"os_hash_algo,omitempty"`
	OSHashValue       string            `json:"os_hash_value,omitempty"`
	Proxies           map[string]string `json:"proxies,omitempty"`
	NoProxy           string            `json:"no_proxy,omitempty"`
	NodeUUID          string            `json:"node_uuid"`
	RootMB            *int64            `json:"root_mb,omitempty"`
	SwapMB            *int64            `json:"swap_mb,omitempty"`
	EphemeralMB       *int64            `json:"ephemeral_mb,omitempty"`
	EphemeralFormat   *string           `json:"ephemeral_format,omitempty"`
	PreserveEphemeral *bool             `json:"preserve_ephemeral,omitempty"`
	DeployBootMode    string            `json:"deploy_boot_mode,omitempty"`
	BootOption        string            `json:"boot_option,omitempty"`
	DiskLabel         string            `json:"disk_label,omitempty"`
	Configdrive       string            `json:"configdrive,omitempty"`
}

// Disks is what the agent asks of this package; *Manager implements it.
// It is declared here only to state the contract between the two
// packages (the agent declares its own copy, as consumers do).
type Disks interface {
	// BlockDevices lists the machine's disks (not partitions, not
	// loop/ram/read-only devices), as IPA's list_all_block_devices.
	BlockDevices(ctx context.Context) ([]BlockDevice, error)
	// RootDevice is IPA's get_os_install_device: the device matching
	// the root device hints, or without hints the smallest disk of at
	// least 4 GiB; an error naming the hints when none matches.
	RootDevice(ctx context.Context, hints map[string]any) (BlockDevice, error)
	// WriteImage downloads image onto dev (verifying the checksum,
	// converting qcow2), as IPA's standby _write_image / deploy.write_image.
	WriteImage(ctx context.Context, dev string, image ImageInfo) error
	// WriteConfigDrive writes a config drive (base64 of gzip, or a URL)
	// as a partition labelled config-2 at the end of dev.
	WriteConfigDrive(ctx context.Context, dev, configdrive string) error
	// PartitionUUIDs is IPA's standby.get_partition_uuids result for dev.
	PartitionUUIDs(ctx context.Context, dev string) (map[string]any, error)
	// EraseMetadata is IPA's erase_devices_metadata for devs.
	EraseMetadata(ctx context.Context, devs []BlockDevice) error
	// Sync flushes the disks' buffers (standby.sync).
	Sync(ctx context.Context) error
}
