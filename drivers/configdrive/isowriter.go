package configdrive

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kdomanski/iso9660"
)

// The image is laid out in memory, with kdomanski/iso9660's volume
// descriptor and directory record encoders, as `genisoimage -r -J -l` lays
// out Ironic's. Two directory hierarchies share the file extents:
//
//   - the primary volume's: ISO 9660 names (lower case, '-' as '_',
//     "user_data." for a name without a dot, ";1" versions) plus Rock Ridge
//     (RRIP 1.10: SP and ER on the root, PX modes 0555/0444 owned by root,
//     NM with the real names), so `isoinfo -R`, Linux and cloud-init see
//     openstack/2012-08-10/... exactly;
//   - the Joliet supplementary volume's (escape sequence %/E, UCS-2 level
//     3): the real names in UCS-2 big-endian, no version suffix and no
//     system use fields, as genisoimage writes them, for `isoinfo -J` and
//     Windows.
//
// Path tables are written for both; files with the same bytes share one
// extent.
//
// Sectors: 0-15 system area, 16 primary volume descriptor, 17 Joliet
// supplementary volume descriptor, 18 terminator, then the L and M path
// tables of the primary and of the Joliet hierarchy, the primary's
// directories (breadth first), the Joliet directories, and the file data.

const sector = 2048

// Publisher is the primary volume descriptor's publisher, as
// openstacksdk's configdrive.pack writes it.
const publisher = "metalsmith"

// The two directory hierarchies, as indexes of isoNode.in.
const (
	primary = 0
	joliet  = 1
)

// jolietMaxName is the longest Joliet identifier genisoimage writes without
// -joliet-long, in UCS-2 characters.
const jolietMaxName = 64

type isoNode struct {
	name     string
	dir      bool
	data     []byte
	children []*isoNode
	parent   *isoNode
	// extent and size of a file's data, shared by both hierarchies.
	extent uint32
	size   uint32
	// in is where each hierarchy puts a directory.
	in [2]dirPlace
}

type dirPlace struct {
	extent uint32
	size   uint32
	// num is the directory's number in the path table (1 = root).
	num int
	// children sorted by the hierarchy's identifiers.
	children []*isoNode
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

// jolietIdent is the Joliet file identifier of name: UCS-2 big-endian, the
// characters Joliet forbids (controls, * / : ; ? \) and those outside the
// Basic Multilingual Plane as '_'. Files get no ";1", as genisoimage
// writes them.
func jolietIdent(name string) string {
	b := make([]byte, 0, 2*len(name))
	for _, r := range name {
		if r < 0x20 || r > 0xFFFF || strings.ContainsRune(`*/:;?\`, r) {
			r = '_'
		}
		b = append(b, byte(r>>8), byte(r))
	}
	return string(b)
}

// ident is n's identifier in hierarchy h.
func (n *isoNode) ident(h int) string {
	if h == joliet {
		return jolietIdent(n.name)
	}
	return isoIdent(n.name, n.dir)
}

// ucs2Field is s in UCS-2 big-endian, padded with UCS-2 spaces to n bytes
// (a field of odd length ends in a zero byte), for the Joliet volume
// descriptor's identifiers.
func ucs2Field(s string, n int) []byte {
	b := make([]byte, n)
	id := jolietIdent(s)
	if len(id) > n-n%2 {
		id = id[:n-n%2]
	}
	copy(b, id)
	for i := len(id); i+1 < n; i += 2 {
		b[i], b[i+1] = 0, ' '
	}
	return b
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

// record is the directory record of n in hierarchy h under identifier
// ident.
func (n *isoNode) record(h int, ident string, su []byte, ts iso9660.RecordingTimestamp) ([]byte, error) {
	extent, size, flags := n.extent, n.size, byte(0)
	if n.dir {
		extent, size, flags = n.in[h].extent, n.in[h].size, 2
	}
	de := iso9660.DirectoryEntry{
		ExtentLocation: int32(extent), ExtentLength: size, RecordingDateTime: ts,
		FileFlags: flags, VolumeSequenceNumber: 1, Identifier: ident, SystemUse: su,
	}
	return de.MarshalBinary()
}

// dirRecords are the records of directory d in hierarchy h: ".", "..",
// then the children sorted by identifier. The primary hierarchy's carry
// Rock Ridge entries, the Joliet one's none.
func (d *isoNode) dirRecords(h int, ts iso9660.RecordingTimestamp) ([][]byte, error) {
	rr := h == primary
	parent := d.parent
	if parent == nil {
		parent = d
	}
	var dotSU, dotdotSU []byte
	if rr {
		dotSU = append(suspRR(rrPX), d.px()...)
		if d.parent == nil {
			dotSU = append(append(suspSP(), dotSU...), suspER()...)
		}
		dotdotSU = append(suspRR(rrPX), parent.px()...)
	}
	recs := make([][]byte, 0, 2+len(d.in[h].children))
	r, err := d.record(h, "\x00", dotSU, ts)
	if err != nil {
		return nil, err
	}
	recs = append(recs, r)
	if r, err = parent.record(h, "\x01", dotdotSU, ts); err != nil {
		return nil, err
	}
	recs = append(recs, r)
	for _, c := range d.in[h].children {
		var su []byte
		if rr {
			su = append(append(suspRR(rrPX|rrNM), c.px()...), suspNM(c.name)...)
		}
		if r, err = c.record(h, c.ident(h), su, ts); err != nil {
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

// order lists the directories of hierarchy h breadth first, children
// sorted by identifier (the path table's order), and numbers them.
func order(root *isoNode, h int) []*isoNode {
	dirs := []*isoNode{root}
	for i := 0; i < len(dirs); i++ {
		d := dirs[i]
		d.in[h].num = i + 1
		kids := append([]*isoNode(nil), d.children...)
		ids := make(map[*isoNode]string, len(kids))
		for _, c := range kids {
			ids[c] = c.ident(h)
		}
		sort.Slice(kids, func(a, b int) bool { return ids[kids[a]] < ids[kids[b]] })
		d.in[h].children = kids
		for _, c := range kids {
			if c.dir {
				dirs = append(dirs, c)
			}
		}
	}
	return dirs
}

// pathTables are the L (little-endian) and M (big-endian) path tables of
// hierarchy h, whose directories have their extents.
func pathTables(dirs []*isoNode, h int) (l, m []byte) {
	for _, d := range dirs {
		id, parent := "\x00", 1
		if d.parent != nil {
			id, parent = d.ident(h), d.parent.in[h].num
		}
		rec := make([]byte, 8+len(id)+len(id)%2)
		rec[0] = byte(len(id))
		copy(rec[8:], id)
		lr, mr := append([]byte(nil), rec...), rec
		binary.LittleEndian.PutUint32(lr[2:], d.in[h].extent)
		binary.LittleEndian.PutUint16(lr[6:], uint16(parent))
		binary.BigEndian.PutUint32(mr[2:], d.in[h].extent)
		binary.BigEndian.PutUint16(mr[6:], uint16(parent))
		l, m = append(l, lr...), append(m, mr...)
	}
	return l, m
}

// writeISO lays files out as an ISO 9660 + Rock Ridge + Joliet image
// labelled volumeID.
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
				if utf8.RuneCountInString(p) > jolietMaxName {
					return nil, fmt.Errorf("%q: Joliet names have at most %d characters", p, jolietMaxName)
				}
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
	var dirs [2][]*isoNode
	for h := range dirs {
		dirs[h] = order(root, h)
	}
	ts := iso9660.RecordingTimestamp(now.UTC())

	// Path tables first: their sizes depend only on the names. Then the
	// directories (sizes do not depend on extents' values either), then
	// the files.
	next := uint32(19)
	var ptSize, lLoc, mLoc [2]uint32
	for h := range dirs {
		for _, d := range dirs[h] {
			id := 1
			if d.parent != nil {
				id = len(d.ident(h))
			}
			ptSize[h] += uint32(8 + id + id%2)
		}
		lLoc[h] = next
		next += sectors(ptSize[h])
		mLoc[h] = next
		next += sectors(ptSize[h])
	}
	for h := range dirs {
		for _, d := range dirs[h] {
			recs, err := d.dirRecords(h, ts)
			if err != nil {
				return nil, err
			}
			d.in[h].size = dirSize(recs)
			d.in[h].extent = next
			next += d.in[h].size / sector
		}
	}
	shared := map[*byte]uint32{}
	var fileNodes []*isoNode
	for _, d := range dirs[primary] {
		for _, c := range d.in[primary].children {
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

	for h := range dirs {
		l, m := pathTables(dirs[h], h)
		copy(img[lLoc[h]*sector:], l)
		copy(img[mLoc[h]*sector:], m)
		for _, d := range dirs[h] {
			recs, err := d.dirRecords(h, ts)
			if err != nil {
				return nil, err
			}
			off := d.in[h].extent * sector
			for _, r := range recs {
				if sector-off%sector < uint32(len(r)) {
					off += sector - off%sector
				}
				copy(img[off:], r)
				off += uint32(len(r))
			}
		}
	}
	for _, f := range fileNodes {
		copy(img[f.extent*sector:], f.data)
	}

	// Volume descriptors.
	vts := iso9660.VolumeDescriptorTimestampFromTime(now)
	var vd [2][]byte
	for h := range vd {
		rootRec := &iso9660.DirectoryEntry{ExtentLocation: int32(root.in[h].extent), ExtentLength: root.in[h].size,
			RecordingDateTime: ts, FileFlags: 2, VolumeSequenceNumber: 1, Identifier: "\x00"}
		body := iso9660.PrimaryVolumeDescriptorBody{
			SystemIdentifier: "LINUX", VolumeIdentifier: volumeID, VolumeSpaceSize: int32(total),
			VolumeSetSize: 1, VolumeSequenceNumber: 1, LogicalBlockSize: sector,
			PathTableSize: int32(ptSize[h]), TypeLPathTableLoc: int32(lLoc[h]), TypeMPathTableLoc: int32(mLoc[h]),
			RootDirectoryEntry: rootRec, PublisherIdentifier: publisher,
			ApplicationIdentifier:     "GOIRONIC CONFIGDRIVE (GITHUB.COM/KDOMANSKI/ISO9660)",
			VolumeCreationDateAndTime: vts, VolumeModificationDateAndTime: vts, VolumeEffectiveDateAndTime: vts,
			FileStructureVersion: 1,
		}
		// genisoimage leaves the application use area blank.
		for i := range body.ApplicationUsed {
			body.ApplicationUsed[i] = ' '
		}
		b, err := body.MarshalBinary()
		if err != nil {
			return nil, err
		}
		copy(b[0:7], []byte{1, 'C', 'D', '0', '0', '1', 1})
		if h == joliet {
			// A supplementary volume descriptor: the same fields, the
			// identifiers in UCS-2, and the escape sequence of UCS-2
			// level 3.
			b[0] = 2
			copy(b[88:120], "%/E")
			for _, f := range []struct {
				at, n int
				s     string
			}{
				{8, 32, body.SystemIdentifier}, {40, 32, body.VolumeIdentifier},
				{190, 128, body.VolumeSetIdentifier}, {318, 128, body.PublisherIdentifier},
				{446, 128, body.DataPreparerIdentifier}, {574, 128, body.ApplicationIdentifier},
				{702, 37, body.CopyrightFileIdentifier}, {739, 37, body.AbstractFileIdentifier},
				{776, 37, body.BibliographicFileIdentifier},
			} {
				copy(b[f.at:f.at+f.n], ucs2Field(f.s, f.n))
			}
		}
		vd[h] = b
	}
	copy(img[16*sector:], vd[primary])
	copy(img[17*sector:], vd[joliet])
	copy(img[18*sector:], []byte{255, 'C', 'D', '0', '0', '1', 1})
	return img, nil
}
