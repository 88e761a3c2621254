package bootiso

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"time"
)

// The EFI System Partition image the builder makes when no ESP is
// configured: a FAT16 file system written in memory. FAT16, not FAT32:
// UEFI's FAT driver (and every other) decides the FAT type from the
// count of clusters alone, and a small ESP has fewer than 65525, which
// is FAT12 or FAT16 whatever the boot sector claims; FAT16 with 512-byte
// clusters needs at least 4085 of them, so the image is never smaller
// than ~2.2 MB. Names are 8.3 (no long file name entries): the ESP holds
// EFI/BOOT/BOOTX64.EFI and EFI/BOOT/GRUB.CFG only.

const (
	fatSector      = 512
	fatRootEntries = 512
	fat16MinClust  = 4085 + 16 // a margin over the FAT12/FAT16 boundary
	fat16MaxClust  = 65524
	fatEntry       = 32
)

// fatFile is a file of the image: Path in 8.3 components ("EFI/BOOT/BOOTX64.EFI").
type fatFile struct {
	Path string
	Data []byte
}

type fatNode struct {
	name     [11]byte
	dir      bool
	data     []byte
	children []*fatNode
	cluster  uint16
	clusters uint32
}

// shortName is the 11-byte 8.3 directory name of s, which must already be
// an upper-case 8.3 name.
func shortName(s string) ([11]byte, error) {
	var n [11]byte
	for i := range n {
		n[i] = ' '
	}
	base, ext, _ := strings.Cut(s, ".")
	if base == "" || len(base) > 8 || len(ext) > 3 || strings.Contains(ext, ".") {
		return n, fmt.Errorf("%q is not an 8.3 name", s)
	}
	for _, r := range base + ext {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return n, fmt.Errorf("%q is not an upper-case 8.3 name", s)
		}
	}
	copy(n[:8], base)
	copy(n[8:], ext)
	return n, nil
}

// fatDate is t as a FAT date and time.
func fatDate(t time.Time) (date, tm uint16) {
	t = t.UTC()
	if t.Year() < 1980 {
		return 0x21, 0 // 1980-01-01
	}
	date = uint16((t.Year()-1980)<<9 | int(t.Month())<<5 | t.Day())
	tm = uint16(t.Hour()<<11 | t.Minute()<<5 | t.Second()/2)
	return date, tm
}

// writeFAT16 returns a FAT16 image holding files, labelled label (at most
// 11 characters), its volume serial number serial.
func writeFAT16(files []fatFile, label string, serial uint32, now time.Time) ([]byte, error) {
	root := &fatNode{dir: true}
	for _, f := range files {
		parts := strings.Split(f.Path, "/")
		d := root
		for i, p := range parts {
			name, err := shortName(p)
			if err != nil {
				return nil, err
			}
			var next *fatNode
			for _, c := range d.children {
				if c.name == name {
					next = c
				}
			}
			last := i == len(parts)-1
			if next == nil {
				next = &fatNode{name: name, dir: !last}
				d.children = append(d.children, next)
			} else if next.dir == last {
				return nil, fmt.Errorf("%s: a file and a directory of the same name", f.Path)
			}
			if last {
				next.data = f.Data
			}
			d = next
		}
	}
	if len(root.children) > fatRootEntries-1 {
		return nil, fmt.Errorf("%d entries do not fit the root directory", len(root.children))
	}
	// Clusters: per directory (".", "..", children), per file its data.
	var nodes []*fatNode
	var walk func(n *fatNode)
	walk = func(n *fatNode) {
		sort.Slice(n.children, func(a, b int) bool { return string(n.children[a].name[:]) < string(n.children[b].name[:]) })
		for _, c := range n.children {
			nodes = append(nodes, c)
			if c.dir {
				walk(c)
			}
		}
	}
	walk(root)
	spc := uint32(1)
	var need uint32
	for {
		need = 0
		csize := spc * fatSector
		for _, n := range nodes {
			size := uint32(len(n.data))
			if n.dir {
				size = uint32(2+len(n.children)) * fatEntry
			}
			n.clusters = (size + csize - 1) / csize
			need += n.clusters
		}
		if need+need/8+16 <= fat16MaxClust {
			break
		}
		if spc == 64 {
			return nil, fmt.Errorf("%d clusters of 32 KiB: too large for the ESP's FAT16", need)
		}
		spc *= 2
	}
	clusters := max(need+need/8+16, fat16MinClust)
	fatSectors := (2*(clusters+2) + fatSector - 1) / fatSector
	rootSectors := uint32(fatRootEntries * fatEntry / fatSector)
	dataStart := 1 + 2*fatSectors + rootSectors
	total := dataStart + clusters*spc
	img := make([]byte, int(total)*fatSector)

	// Boot sector and BIOS parameter block.
	bs := img[:fatSector]
	copy(bs, []byte{0xEB, 0x3C, 0x90})
	copy(bs[3:11], "GOIRONIC")
	binary.LittleEndian.PutUint16(bs[11:], fatSector)
	bs[13] = byte(spc)
	binary.LittleEndian.PutUint16(bs[14:], 1) // reserved sectors
	bs[16] = 2                                // FATs
	binary.LittleEndian.PutUint16(bs[17:], fatRootEntries)
	if total < 1<<16 {
		binary.LittleEndian.PutUint16(bs[19:], uint16(total))
	} else {
		binary.LittleEndian.PutUint32(bs[32:], total)
	}
	bs[21] = 0xF8
	binary.LittleEndian.PutUint16(bs[22:], uint16(fatSectors))
	binary.LittleEndian.PutUint16(bs[24:], 32) // sectors per track
	binary.LittleEndian.PutUint16(bs[26:], 64) // heads
	bs[36] = 0x80
	bs[38] = 0x29
	binary.LittleEndian.PutUint32(bs[39:], serial)
	lbl := fmt.Sprintf("%-11.11s", strings.ToUpper(label))
	copy(bs[43:54], lbl)
	copy(bs[54:62], "FAT16   ")
	bs[62], bs[63] = 0xF4, 0xEB // hlt; jmp $-1: not bootable by a BIOS
	bs[510], bs[511] = 0x55, 0xAA

	// Clusters, in walk order from 2.
	next := uint16(2)
	fat := make([]uint16, clusters+2)
	fat[0], fat[1] = 0xFFF8, 0xFFFF
	for _, n := range nodes {
		if n.clusters == 0 {
			continue
		}
		n.cluster = next
		for i := uint32(0); i < n.clusters; i++ {
			c := next + uint16(i)
			fat[c] = c + 1
			if i == n.clusters-1 {
				fat[c] = 0xFFFF
			}
		}
		next += uint16(n.clusters)
	}
	for i := 0; i < 2; i++ {
		at := (1 + uint32(i)*fatSectors) * fatSector
		for c, v := range fat {
			binary.LittleEndian.PutUint16(img[at+uint32(2*c):], v)
		}
	}
	date, tm := fatDate(now)
	entry := func(dst []byte, name [11]byte, attr byte, cluster uint16, size uint32) {
		copy(dst[:11], name[:])
		dst[11] = attr
		binary.LittleEndian.PutUint16(dst[14:], tm)
		binary.LittleEndian.PutUint16(dst[16:], date)
		binary.LittleEndian.PutUint16(dst[18:], date)
		binary.LittleEndian.PutUint16(dst[22:], tm)
		binary.LittleEndian.PutUint16(dst[24:], date)
		binary.LittleEndian.PutUint16(dst[26:], cluster)
		binary.LittleEndian.PutUint32(dst[28:], size)
	}
	clusterAt := func(c uint16) []byte {
		off := (dataStart + uint32(c-2)*spc) * fatSector
		return img[off:]
	}
	var fill func(dir []byte, n *fatNode, parent uint16)
	fill = func(dir []byte, n *fatNode, parent uint16) {
		off := 0
		if n != root {
			var dot, dotdot [11]byte
			copy(dot[:], ".          ")
			copy(dotdot[:], "..         ")
			entry(dir[0:], dot, 0x10, n.cluster, 0)
			entry(dir[32:], dotdot, 0x10, parent, 0)
			off = 64
		} else {
			var l [11]byte
			copy(l[:], lbl)
			entry(dir[0:], l, 0x08, 0, 0)
			off = 32
		}
		for _, c := range n.children {
			if c.dir {
				entry(dir[off:], c.name, 0x10, c.cluster, 0)
				fill(clusterAt(c.cluster), c, n.cluster)
			} else {
				entry(dir[off:], c.name, 0x20, c.cluster, uint32(len(c.data)))
				if len(c.data) > 0 {
					copy(clusterAt(c.cluster), c.data)
				}
			}
			off += fatEntry
		}
	}
	fill(img[(1+2*fatSectors)*fatSector:], root, 0)
	return img, nil
}
