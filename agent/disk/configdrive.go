package disk

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/goironic/ironic/agent/internal/pyerr"
)

// Config drive limits of IPA's partition_utils.
const (
	maxConfigDriveMB = 64
	maxMBRDiskMB     = 2097152 // MAX_DISK_SIZE_MB_SUPPORTED_BY_MBR
	configDriveLabel = "config-2"
	mib              = 1 << 20
)

// WriteConfigDrive is IPA's partition_utils.create_config_drive_partition
// in Go (no sgdisk/parted): the config drive (base64 of gzip, or an
// http(s) URL to it) written to a partition at the end of dev. An
// existing partition labelled config-2 is reused. On a GPT disk the
// backup GPT is first moved to the disk's end, then a partition of the
// last 64 MiB is added (named config-2); on a DOS disk a primary
// partition (type 0x0c, as parted's fat32) in the last 64 MiB, or below
// 2 TiB on larger disks, with IPA's limit of three existing primaries.
// The sectors are those ironic-lib's sgdisk and parted commands choose
// (configdrive_ref_test.go runs them on copies of the same disks).
func (m *Manager) WriteConfigDrive(ctx context.Context, dev, configdrive string) error {
	node := m.nodeUUID()
	data, err := m.configDriveData(ctx, configdrive, node)
	if err != nil {
		return err
	}
	sizeMB := (len(data) + mib - 1) / mib
	if sizeMB > maxConfigDriveMB {
		return errInstanceDeployFailure(fmt.Sprintf("Config drive size exceeds maximum limit of 64MiB. Size of the given config drive is %d MiB for node %s.", sizeMB, node))
	}
	return withDeviceErr(dev, m.devPath(dev), func(f *os.File, size int64) error {
		part, err := m.configDrivePartition(ctx, f, size, dev, node)
		if err != nil {
			return err
		}
		if int64(len(data)) > part.n {
			return errInstanceDeployFailure(fmt.Sprintf("Config drive for node %s does not fit its partition on %s (%d bytes, partition of %d bytes).", node, dev, len(data), part.n))
		}
		if _, err := part.WriteAt(data, 0); err != nil {
			return errInstanceDeployFailure(fmt.Sprintf("Writing the config drive to %s failed for node %s: %s", dev, node, pyerr.OSError(err)))
		}
		rescan(f)
		m.log.InfoContext(ctx, "config drive written", "device", dev, "offset", part.off, "bytes", len(data))
		return nil
	})
}

// configDriveData is IPA's get_configdrive: the uncompressed config
// drive from its base64-of-gzip form, downloaded first if it is a URL.
func (m *Manager) configDriveData(ctx context.Context, configdrive, node string) ([]byte, error) {
	raw := []byte(configdrive)
	isURL := strings.HasPrefix(configdrive, "http://") || strings.HasPrefix(configdrive, "https://")
	if isURL {
		resp, err := m.get(ctx, m.client, configdrive)
		if err != nil {
			return nil, errInstanceDeployFailure(fmt.Sprintf("Can't download the configdrive content for node %s from '%s'. Reason: %v", node, configdrive, err))
		}
		defer func() { _ = resp.Body.Close() }()
		body, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
		if err != nil {
			return nil, errInstanceDeployFailure(fmt.Sprintf("Can't download the configdrive content for node %s from '%s'. Reason: %v", node, configdrive, err))
		}
		if resp.StatusCode >= 400 {
			return nil, errInstanceDeployFailure(fmt.Sprintf("Can't download the configdrive content for node %s from '%s'. Got status code %d, response body %s", node, configdrive, resp.StatusCode, body))
		}
		raw = body
	}
	decoded, err := base64.StdEncoding.DecodeString(string(bytes.TrimSpace(raw)))
	if err != nil {
		if isURL {
			// Python's b64decode fails on binary content: IPA writes it as is.
			return raw, nil
		}
		return nil, errInstanceDeployFailure(fmt.Sprintf("Config drive for node %s is not base64 encoded or the content is malformed. Error: %v.", node, err))
	}
	zr, err := gzip.NewReader(bytes.NewReader(decoded))
	if err != nil {
		return nil, errInstanceDeployFailure(fmt.Sprintf("Encountered error while decompressing and writing config drive for node %s. Error: %v", node, err))
	}
	out, err := io.ReadAll(io.LimitReader(zr, (maxConfigDriveMB+1)*mib))
	if err != nil {
		return nil, errInstanceDeployFailure(fmt.Sprintf("Encountered error while decompressing and writing config drive for node %s. Error: %v", node, err))
	}
	return out, nil
}

// labelled reports whether a partition's content carries the config
// drive label: an ISO 9660 volume identifier or a FAT volume label.
func labelled(r region) bool {
	var pvd [2048]byte
	if n, _ := r.ReadAt(pvd[:], 32768); n == len(pvd) && string(pvd[1:6]) == "CD001" {
		return strings.EqualFold(strings.TrimRight(string(pvd[40:72]), " \x00"), configDriveLabel)
	}
	var bs [512]byte
	if n, _ := r.ReadAt(bs[:], 0); n == len(bs) && bs[510] == 0x55 && bs[511] == 0xaa {
		for _, off := range []int{43, 71} { // FAT12/16, FAT32 volume labels
			if strings.EqualFold(strings.TrimRight(string(bs[off:off+11]), " "), configDriveLabel) {
				return true
			}
		}
	}
	return false
}

// configDrivePartition finds or creates the config drive partition.
func (m *Manager) configDrivePartition(ctx context.Context, f *os.File, size int64, dev, node string) (region, error) {
	sectors := uint64(size / sectorSize)
	g, gerr := readGPT(f)
	var regions []region
	var names []string
	mbr, isDOS := readMBR(f)
	if gerr == nil {
		for _, p := range g.parts() {
			regions = append(regions, region{f: f, off: int64(p.First) * sectorSize, n: int64(p.Last-p.First+1) * sectorSize})
			names = append(names, fmt.Sprintf("%s%d", dev, p.Index+1))
		}
	} else if isDOS {
		for _, p := range mbr {
			regions = append(regions, region{f: f, off: int64(p.Start) * sectorSize, n: int64(p.Count) * sectorSize})
			names = append(names, fmt.Sprintf("%s%d", dev, p.Index+1))
		}
	}
	found := -1
	for i, r := range regions {
		if r.off+r.n > size || !labelled(r) {
			continue
		}
		if found >= 0 {
			return region{}, errInstanceDeployFailure(fmt.Sprintf("More than one partition with label \"%s\" exists on device %s for node %s: %s and %s.", configDriveLabel, dev, node, names[found], names[i]))
		}
		found = i
	}
	if gerr == nil {
		// fix_gpt_partition: the backup GPT moved to the end of the disk.
		if err := g.write(f, sectors); err != nil {
			return region{}, errInstanceDeployFailure(fmt.Sprintf("Failed to fix GPT partition on disk %s for node %s. Error: %s", dev, node, pyerr.OSError(err)))
		}
	}
	if found >= 0 {
		m.log.DebugContext(ctx, "config drive partition exists", "partition", names[found])
		return regions[found], nil
	}
	if gerr == nil {
		last := g.lastUsable(sectors)
		first := (last + 1 - maxConfigDriveMB*mib/sectorSize) / 2048 * 2048
		for _, p := range g.parts() {
			if p.Last >= first {
				return region{}, errInstanceDeployFailure(fmt.Sprintf("Disk partitioning failed on device %s. Unable to retrieve config drive partition information.", dev))
			}
		}
		if first < g.firstUse {
			return region{}, errInstanceDeployFailure(fmt.Sprintf("Disk partitioning failed on device %s. Unable to retrieve config drive partition information.", dev))
		}
		guid := m.uuid()
		if _, err := g.add(gptLinuxFS, guidBytes(guid), first, last, configDriveLabel); err != nil {
			return region{}, errInstanceDeployFailure(fmt.Sprintf("Disk partitioning failed on device %s. Unable to retrieve config drive partition information.", dev))
		}
		if err := g.write(f, sectors); err != nil {
			return region{}, errInstanceDeployFailure(fmt.Sprintf("Failed to create config drive on disk %s for node %s. Error: %s", dev, node, pyerr.OSError(err)))
		}
		return region{f: f, off: int64(first) * sectorSize, n: int64(last-first+1) * sectorSize}, nil
	}
	if !isDOS {
		return region{}, errInstanceDeployFailure(fmt.Sprintf("Failed to check the number of primary partitions present on %s for node %s. Error: %s", dev, node, "unrecognised disk label"))
	}
	if len(mbr) > 3 {
		return region{}, errInstanceDeployFailure(fmt.Sprintf("Config drive cannot be created for node %s. Disk (%s) uses MBR partitioning and already has %d primary partitions.", node, dev, len(mbr)))
	}
	// parted -a optimal mkpart primary fat32 -64MiB -0: exactly the last
	// 64 MiB, unaligned.
	start := sectors - maxConfigDriveMB*mib/sectorSize
	end := sectors - 1
	if size/mib > maxMBRDiskMB {
		m.log.WarnContext(ctx, "disk larger than 2TB: config drive below the MBR limit", "device", dev)
		// ironic-lib passes parted plain numbers, which parted reads as
		// MB (10^6 bytes), and parted aligns them to 1 MiB.
		start = (maxMBRDiskMB - maxConfigDriveMB - 1) * 1000000 / sectorSize / 2048 * 2048
		end = (maxMBRDiskMB-1)*1000000/sectorSize/2048*2048 - 1
	}
	used := map[int]bool{}
	for _, p := range mbr {
		used[p.Index] = true
		if uint64(p.Start)+uint64(p.Count) > start && uint64(p.Start) <= end {
			return region{}, errInstanceDeployFailure(fmt.Sprintf("Disk partitioning failed on device %s. Unable to retrieve config drive partition information.", dev))
		}
	}
	slot := 0
	for used[slot] {
		slot++
	}
	if err := writeMBREntry(f, slot, 0x0c, uint32(start), uint32(end-start+1)); err != nil {
		return region{}, errInstanceDeployFailure(fmt.Sprintf("Failed to create config drive on disk %s for node %s. Error: %s", dev, node, pyerr.OSError(err)))
	}
	return region{f: f, off: int64(start) * sectorSize, n: int64(end-start+1) * sectorSize}, nil
}
