package disk

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"syscall"
)

// PartitionUUIDs is IPA's standby.get_partition_uuids after a
// whole-disk image: {"root uuid": the disk identifier}, ironic_lib's
// get_disk_identifier (hexdump -s 440 -n 4 -e '"0x%08x"': the MBR disk
// signature as a little-endian word). Partition images, whose result
// also carries "efi system partition uuid", "PReP Boot partition uuid"
// and "partitions", are not supported by WriteImage.
func (m *Manager) PartitionUUIDs(_ context.Context, dev string) (map[string]any, error) {
	f, err := os.Open(m.devPath(dev))
	if err != nil {
		return nil, errCommandExecution(fmt.Sprintf("Unable to read the disk identifier of %s: %v", dev, err))
	}
	defer func() { _ = f.Close() }()
	var b [4]byte
	if _, err := f.ReadAt(b[:], 440); err != nil {
		return nil, errCommandExecution(fmt.Sprintf("Unable to read the disk identifier of %s: %v", dev, err))
	}
	return map[string]any{"root uuid": fmt.Sprintf("0x%08x", binary.LittleEndian.Uint32(b[:]))}, nil
}

// Sync is standby.sync: the kernel's buffers flushed to the disks.
func (m *Manager) Sync(ctx context.Context) error {
	m.log.DebugContext(ctx, "flushing file system buffers")
	syscall.Sync()
	return nil
}
