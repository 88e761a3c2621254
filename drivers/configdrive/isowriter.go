package configdrive

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/kdomanski/iso9660"
)

// The image is laid out in memory, with kdomanski/iso9660's volume
// descriptor and directory record encoders, as genisoimage -r -l lays out
// Ironic's: ISO 9660 names (lower case, '-' as '_', "user_data." for a name
// without a dot, ";1" versions) plus Rock Ridge (RRIP 1.10: SP and ER on the
// root, PX modes 0555/0444 owned by root, NM with the real names), so
// `isoinfo -R`, Linux and cloud-init see openstack/2012-08-10/... exactly.
// Path tables are written; files with the same bytes share one extent.
//
// Sectors: 0-15 system area, 16 primary volume descriptor, 17 terminator,
// 18 L path table, 19 M path table, then the directories (breadth first),
// then the file data.

const sector = 2048

// Publisher is the primary volume descriptor's publisher, as
// openstacksdk's configdrive.pack writes it.
const publisher = "metalsmith"

type isoNode struct {
	name     string
	dir      bool
	data     []byte
	children []*isoNode
	parent   *isoNode
	extent   uint32
	size     uint32
	// dirNum is the directory's number in the path table (1 = root).
	dirNum int
}

// isoIdent is the ISO 9660 file identifier genisoimage -l
// -allow-lowercase -allow-multidot gives name.
func isoIdent(name string, dir bool) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '.' && !dir:
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if dir {
		return s
	}
	if !strings.Contains(s, ".") {
		s += "."
	}
	return s + ";1"
}

// susp entries (IEEE P1281/P1282).
func suspSP() []byte { return []byte{'S', 'P', 7, 1, 0xBE, 0xEF, 0} }

func suspRR(flags byte) []byte { return []byte{'R', 'R', 5, 1, flags} }

func suspER() []byte {
	const id, des, src = "RRIP_1991A", "ROCK RIDGE INTERCHANGE PROTOCOL", "IEEE P1282"
	b := []byte{'E', 'R', byte(8 + len(id) + len(des) + len(src)), 1, byte(len(id)), byte(len(des)), byte(len(src)), 1}
	return append(append(append(b, id...), des...), src...)
}

func both32(dst []byte, v uint32) {
	binary.LittleEndian.PutUint32(dst[0:4], v)
	binary.BigEndian.PutUint32(dst[4:8], v)
}

func suspPX(mode uint32, links uint32) []byte {
	b := make([]byte, 36)
	copy(b, []byte{'P', 'X', 36, 1})
	both32(b[4:], mode)
	both32(b[12:], links)
	// uid and gid 0
	return b
}

func suspNM(name string) []byte {
	return append([]byte{'N', 'M', byte(5 + len(name)), 1, 0}, name...)
}

const (
	rrPX = 0x01
	rrNM = 0x08
)

func (n *isoNode) px() []byte {
	if n.dir {
		links := uint32(2)
		for _, c := range n.children {
			if c.dir {
				links++
			}
		}
		return suspPX(0o040555, links)
	}
	return suspPX(0o100444, 1)
}

// record is the directory record of n under identifier ident.
func (n *isoNode) record(ident string, su []byte, ts iso9660.RecordingTimestamp) ([]byte, error) {
	var flags byte
	if n.dir {
		flags = 2
	}
	de := iso9660.DirectoryEntry{
		ExtentLocation: int32(n.extent), ExtentLength: n.size, RecordingDateTime: ts,
		FileFlags: flags, VolumeSequenceNumber: 1, Identifier: ident, SystemUse: su,
	}
	return de.MarshalBinary()
}

// dirRecords are the records of directory d: ".", "..", then the children
// sorted by identifier, none crossing a sector boundary.
func (d *isoNode) dirRecords(root bool, ts iso9660.RecordingTimestamp) ([][]byte, error) {
	var recs [][]byte
	dotSU := append(suspRR(rrPX), d.px()...)
	if root {
		dotSU = append(append(suspSP(), dotSU...), suspER()...)
	}
	r, err := d.record("\x00", dotSU, ts)
	if err != nil {
		return nil, err
	}
	recs = append(recs, r)
	parent := d.parent
	if parent == nil {
		parent = d
	}
	if r, err = parent.record("\x01", append(suspRR(rrPX), parent.px()...), ts); err != nil {
		return nil, err
	}
	recs = append(recs, r)
	for _, c := range d.children {
		su := append(append(suspRR(rrPX|rrNM), c.px()...), suspNM(c.name)...)
		if r, err = c.record(isoIdent(c.name, c.dir), su, ts); err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// dirSize is the extent size of records laid out without crossing sectors.
func dirSize(recs [][]byte) uint32 {
	var off uint32
	for _, r := range recs {
		if sector-off%sector < uint32(len(r)) {
			off += sector - off%sector
		}
		off += uint32(len(r))
	}
	return (off + sector - 1) / sector * sector
}

func sectors(n uint32) uint32 { return (n + sector - 1) / sector }

// writeISO lays files out as an ISO 9660 + Rock Ridge image labelled
// volumeID.
func writeISO(files []File, volumeID string, now time.Time) ([]byte, error) {
	root := &isoNode{dir: true}
	for _, f := range files {
		parts := strings.Split(strings.Trim(f.Path, "/"), "/")
		d := root
		for i, p := range parts {
			var next *isoNode
			for _, c := range d.children {
				if c.name == p {
					next = c
				}
			}
			if next == nil {
				next = &isoNode{name: p, dir: i < len(parts)-1, parent: d}
				d.children = append(d.children, next)
			}
			if i == len(parts)-1 {
				if next.dir {
					return nil, fmt.Errorf("%s is a directory", f.Path)
				}
				next.data = f.Data
			}
			d = next
		}
	}
	// Breadth-first directory order (the path table's), children sorted by
	// ISO identifier.
	dirs := []*isoNode{root}
	for i := 0; i < len(dirs); i++ {
		d := dirs[i]
		d.dirNum = i + 1
		sort.Slice(d.children, func(a, b int) bool {
			return isoIdent(d.children[a].name, d.children[a].dir) < isoIdent(d.children[b].name, d.children[b].dir)
		})
		for _, c := range d.children {
			if c.dir {
				dirs = append(dirs, c)
			}
		}
	}
	ts := iso9660.RecordingTimestamp(now.UTC())

	// Sizes of the directories first (records do not depend on extents'
	// values, only on names), then extents.
	next := uint32(20)
	for i, d := range dirs {
		recs, err := d.dirRecords(i == 0, ts)
		if err != nil {
			return nil, err
		}
		d.size = dirSize(recs)
		d.extent = next
		next += d.size / sector
	}
	shared := map[*byte]uint32{}
	var fileNodes []*isoNode
	for _, d := range dirs {
		for _, c := range d.children {
			if c.dir {
				continue
			}
			c.size = uint32(len(c.data))
			if len(c.data) == 0 {
				c.extent = 0
				continue
			}
			if e, ok := shared[&c.data[0]]; ok {
				c.extent = e
				continue
			}
			c.extent = next
			shared[&c.data[0]] = next
			next += sectors(c.size)
			fileNodes = append(fileNodes, c)
		}
	}
	total := next
	img := make([]byte, int(total)*sector)

	// Path tables.
	var lt, mt []byte
	for _, d := range dirs {
		id := d.name
		if d == dirs[0] {
			id = "\x00"
		} else {
			id = isoIdent(id, true)
		}
		parent := 1
		if d.parent != nil {
			parent = d.parent.dirNum
		}
		rec := make([]byte, 8+len(id)+len(id)%2)
		rec[0] = byte(len(id))
		copy(rec[8:], id)
		l, m := append([]byte(nil), rec...), rec
		binary.LittleEndian.PutUint32(l[2:], d.extent)
		binary.LittleEndian.PutUint16(l[6:], uint16(parent))
		binary.BigEndian.PutUint32(m[2:], d.extent)
		binary.BigEndian.PutUint16(m[6:], uint16(parent))
		lt, mt = append(lt, l...), append(mt, m...)
	}
	if len(lt) > sector {
		return nil, fmt.Errorf("path table too large")
	}
	copy(img[18*sector:], lt)
	copy(img[19*sector:], mt)

	// Directories.
	for i, d := range dirs {
		recs, err := d.dirRecords(i == 0, ts)
		if err != nil {
			return nil, err
		}
		off := d.extent * sector
		for _, r := range recs {
			if sector-off%sector < uint32(len(r)) {
				off += sector - off%sector
			}
			copy(img[off:], r)
			off += uint32(len(r))
		}
	}
	// Files.
	for _, f := range fileNodes {
		copy(img[f.extent*sector:], f.data)
	}

	// Volume descriptors.
	rootRec := &iso9660.DirectoryEntry{ExtentLocation: int32(root.extent), ExtentLength: root.size,
		RecordingDateTime: ts, FileFlags: 2, VolumeSequenceNumber: 1, Identifier: "\x00"}
	vts := iso9660.VolumeDescriptorTimestampFromTime(now)
	pvd := iso9660.PrimaryVolumeDescriptorBody{
		SystemIdentifier: "LINUX", VolumeIdentifier: volumeID, VolumeSpaceSize: int32(total),
		VolumeSetSize: 1, VolumeSequenceNumber: 1, LogicalBlockSize: sector,
		PathTableSize: int32(len(lt)), TypeLPathTableLoc: 18, TypeMPathTableLoc: 19,
		RootDirectoryEntry: rootRec, PublisherIdentifier: publisher,
		ApplicationIdentifier:     "GOIRONIC CONFIGDRIVE (GITHUB.COM/KDOMANSKI/ISO9660)",
		VolumeCreationDateAndTime: vts, VolumeModificationDateAndTime: vts, VolumeEffectiveDateAndTime: vts,
		FileStructureVersion: 1,
	}
	b, err := pvd.MarshalBinary()
	if err != nil {
		return nil, err
	}
	copy(b[0:7], []byte{1, 'C', 'D', '0', '0', '1', 1})
	copy(img[16*sector:], b)
	copy(img[17*sector:], []byte{255, 'C', 'D', '0', '0', '1', 1})
	return img, nil
}
