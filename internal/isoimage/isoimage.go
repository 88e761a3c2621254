// Package isoimage writes ISO 9660 images in process, as genisoimage
// writes them: the primary hierarchy with Rock Ridge (-r), optionally a
// Joliet one (-J), and optionally an El Torito boot catalogue (-b/-e
// -no-emul-boot, -boot-load-size, -boot-info-table). Config drives
// (drivers/configdrive) and the virtual-media boot ISOs (drivers/bootiso)
// share it.
//
// The image is laid out with kdomanski/iso9660's volume descriptor and
// directory record encoders. The directory hierarchies share the file
// extents:
//
//   - the primary volume's: ISO 9660 names (genisoimage -l's, with or
//     without -allow-lowercase -allow-multidot: Options.UpperCase) plus
//     Rock Ridge (RRIP 1.10: SP and ER on the root, PX modes 0555/0444
//     owned by root, NM with the real names), so `isoinfo -R` and Linux
//     see the real tree;
//   - the Joliet supplementary volume's (escape sequence %/E, UCS-2 level
//     3): the real names in UCS-2 big-endian, no version suffix and no
//     system use fields, as genisoimage writes them, for `isoinfo -J` and
//     Windows.
//
// Path tables are written for both; files with the same bytes share one
// extent.
//
// Sectors: 0-15 system area, 16 primary volume descriptor, then the El
// Torito boot record, the Joliet supplementary volume descriptor (each
// when asked for) and the terminator, then the L and M path tables of the
// primary and of the Joliet hierarchy, the primary's directories (breadth
// first), the Joliet directories, and the file data: the boot catalogue
// and the boot images first (as genisoimage places them), then the files
// breadth first. File data is streamed from its source, so a boot ISO's
// kernel and ramdisk are never held in memory.
package isoimage

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kdomanski/iso9660"
)

const sector = 2048

// The two directory hierarchies, as indexes of isoNode.in.
const (
	primary = 0
	joliet  = 1
)

// jolietMaxName is the longest Joliet identifier genisoimage writes without
// -joliet-long, in UCS-2 characters.
const jolietMaxName = 64

// File is one file of the image.
type File struct {
	// Path is its path in the image ("openstack/latest/meta_data.json").
	Path string
	// Data is its content, unless Source is set.
	Data []byte
	// Source is a local file whose content is read when the image is
	// written.
	Source string
}

// Platform is an El Torito platform ID.
type Platform byte

const (
	// PlatformX86 boots through the BIOS (isolinux).
	PlatformX86 Platform = 0
	// PlatformEFI boots an EFI System Partition image.
	PlatformEFI Platform = 0xEF
)

// BootEntry is one no-emulation boot image of the catalogue.
type BootEntry struct {
	Platform Platform
	// Path is the boot image's path in the tree.
	Path string
	// LoadSectors is the count of 512-byte sectors the firmware loads
	// (genisoimage -boot-load-size); 0 means the image's whole size, modulo
	// 65536, as genisoimage's -e writes it.
	LoadSectors uint16
	// InfoTable patches a boot info table into the image at offset 8
	// (genisoimage -boot-info-table): the primary volume descriptor's
	// sector, the image's sector and length, and the checksum of its bytes
	// from offset 64.
	InfoTable bool
}

// ElTorito is the boot catalogue.
type ElTorito struct {
	// Catalog is the catalogue file's path in the tree ("boot.catalog").
	Catalog string
	// ID is the validation entry's ID string (its first 23 bytes, as
	// genisoimage writes the publisher there).
	ID string
	// Entries: the first is the default entry, each further one has a
	// section of its own.
	Entries []BootEntry
}

// Options describe the volume.
type Options struct {
	VolumeID    string
	Publisher   string
	Application string
	// Joliet adds the Joliet hierarchy (genisoimage -J).
	Joliet bool
	// UpperCase names the ISO 9660 hierarchy as genisoimage does without
	// -allow-lowercase -allow-multidot.
	UpperCase bool
	// Boot adds an El Torito boot catalogue.
	Boot *ElTorito
	// Now stamps the volume and its records.
	Now time.Time
}

type isoNode struct {
	name     string
	dir      bool
	data     []byte
	children []*isoNode
	parent   *isoNode
	// extent and size of a file's data, shared by both hierarchies.
	extent uint32
	size   uint32
	// src is a file's local source, read when the image is written
	// (data is nil then).
	src string
	// upper: ISO 9660 names as genisoimage writes them without
	// -allow-lowercase (Options.UpperCase).
	upper bool
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

// isoIdent is the ISO 9660 file identifier genisoimage -l gives name:
// with -allow-lowercase -allow-multidot (lower false) the name's letters
// and dots as they are; without them (upper true) the letters upper-cased
// and every dot but the last as '_'. Other characters are '_', a file
// name without a dot gets one, and files end in ";1".
func isoIdent(name string, dir, upper bool) string {
	last := strings.LastIndexByte(name, '.')
	var b strings.Builder
	for i, r := range name {
		switch {
		case r >= 'a' && r <= 'z' && upper:
			b.WriteRune(r - 'a' + 'A')
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		case r == '.' && !dir && (!upper || i == last):
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
	return isoIdent(n.name, n.dir, n.upper)
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

// tree builds the directory tree of files.
func tree(files []File, upper bool) (*isoNode, error) {
	root := &isoNode{dir: true, upper: upper}
	for _, f := range files {
		parts := strings.Split(strings.Trim(f.Path, "/"), "/")
		d := root
		for i, p := range parts {
			if p == "" || p == "." || p == ".." {
				return nil, fmt.Errorf("%q: not a file path", f.Path)
			}
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
				next = &isoNode{name: p, dir: i < len(parts)-1, parent: d, upper: upper}
				d.children = append(d.children, next)
			} else if next.dir != (i < len(parts)-1) {
				return nil, fmt.Errorf("%s: a file and a directory of the same name", f.Path)
			}
			if i == len(parts)-1 {
				next.data, next.src = f.Data, f.Source
			}
			d = next
		}
	}
	return root, nil
}

// find is the node at path p.
func (n *isoNode) find(p string) *isoNode {
	for _, part := range strings.Split(strings.Trim(p, "/"), "/") {
		var next *isoNode
		for _, c := range n.children {
			if c.name == part {
				next = c
			}
		}
		if next == nil {
			return nil
		}
		n = next
	}
	return n
}

// Write writes the image of files to w.
func Write(ctx context.Context, w io.Writer, files []File, o Options) error {
	if o.Boot != nil {
		// The catalogue is a file of the tree; its bytes are written once
		// the boot images have their extents.
		files = append(append([]File(nil), files...), File{Path: o.Boot.Catalog, Data: make([]byte, sector)})
	}
	root, err := tree(files, o.UpperCase)
	if err != nil {
		return err
	}
	hier := 1
	if o.Joliet {
		hier = 2
	}
	dirs := make([][]*isoNode, hier)
	for h := range dirs {
		dirs[h] = order(root, h)
	}
	ts := iso9660.RecordingTimestamp(o.Now.UTC())

	var catalog *isoNode
	boots := make([]*isoNode, 0, 2)
	if o.Boot != nil {
		if len(o.Boot.Entries) == 0 {
			return errors.New("an El Torito catalogue needs a boot image")
		}
		catalog = root.find(o.Boot.Catalog)
		for _, e := range o.Boot.Entries {
			n := root.find(e.Path)
			if n == nil || n.dir {
				return fmt.Errorf("boot image %s is not a file of the image", e.Path)
			}
			if e.InfoTable && n.src != "" {
				// The table is patched into a copy.
				if n.data, err = os.ReadFile(n.src); err != nil {
					return err
				}
				n.src = ""
			}
			if e.InfoTable {
				if len(n.data) < 64 {
					return fmt.Errorf("boot image %s is too small for a boot info table", e.Path)
				}
				n.data = append([]byte(nil), n.data...)
			}
			boots = append(boots, n)
		}
	}

	// Volume descriptors, then path tables (their sizes depend only on the
	// names), then the directories (their sizes do not depend on the
	// extents' values either), then the files.
	next := uint32(17)
	bootRecord := uint32(0)
	if o.Boot != nil {
		bootRecord = next
		next++
	}
	jolietVD := uint32(0)
	if o.Joliet {
		jolietVD = next
		next++
	}
	terminator := next
	next++
	ptSize, lLoc, mLoc := make([]uint32, hier), make([]uint32, hier), make([]uint32, hier)
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
				return err
			}
			d.in[h].size = dirSize(recs)
			d.in[h].extent = next
			next += d.in[h].size / sector
		}
	}
	headSectors := next
	var fileNodes []*isoNode
	shared := map[*byte]uint32{}
	place := func(c *isoNode) error {
		if c.extent != 0 || c.size != 0 {
			return nil
		}
		size := int64(len(c.data))
		if c.src != "" {
			fi, err := os.Stat(c.src)
			if err != nil {
				return err
			}
			if !fi.Mode().IsRegular() {
				return fmt.Errorf("%s is not a regular file", c.src)
			}
			size = fi.Size()
		}
		if size >= 1<<32 {
			return fmt.Errorf("%s: %d bytes, more than an ISO 9660 file holds", c.name, size)
		}
		c.size = uint32(size)
		if size == 0 {
			return nil
		}
		if c.src == "" {
			if e, ok := shared[&c.data[0]]; ok {
				c.extent = e
				return nil
			}
			shared[&c.data[0]] = next
		}
		c.extent = next
		next += sectors(c.size)
		fileNodes = append(fileNodes, c)
		return nil
	}
	if catalog != nil {
		if err := place(catalog); err != nil {
			return err
		}
	}
	for _, b := range boots {
		if err := place(b); err != nil {
			return err
		}
	}
	for _, d := range dirs[primary] {
		for _, c := range d.in[primary].children {
			if !c.dir {
				if err := place(c); err != nil {
					return err
				}
			}
		}
	}
	total := next
	if uint64(total)*sector >= 1<<41 {
		return errors.New("the image is too large")
	}

	if o.Boot != nil {
		for i, e := range o.Boot.Entries {
			if e.InfoTable {
				infoTable(boots[i])
			}
		}
		eltoritoCatalog(catalog.data, o.Boot, boots)
	}

	head := make([]byte, int(headSectors)*sector)
	for h := range dirs {
		l, m := pathTables(dirs[h], h)
		copy(head[lLoc[h]*sector:], l)
		copy(head[mLoc[h]*sector:], m)
		for _, d := range dirs[h] {
			recs, err := d.dirRecords(h, ts)
			if err != nil {
				return err
			}
			off := d.in[h].extent * sector
			for _, r := range recs {
				if sector-off%sector < uint32(len(r)) {
					off += sector - off%sector
				}
				copy(head[off:], r)
				off += uint32(len(r))
			}
		}
	}
	vts := iso9660.VolumeDescriptorTimestampFromTime(o.Now)
	for h := range dirs {
		b, err := volumeDescriptor(h, root, o, total, ptSize[h], lLoc[h], mLoc[h], ts, vts)
		if err != nil {
			return err
		}
		at := uint32(16)
		if h == joliet {
			at = jolietVD
		}
		copy(head[at*sector:], b)
	}
	if o.Boot != nil {
		br := head[bootRecord*sector:]
		copy(br, []byte{0, 'C', 'D', '0', '0', '1', 1})
		copy(br[7:], "EL TORITO SPECIFICATION")
		binary.LittleEndian.PutUint32(br[71:], catalog.extent)
	}
	copy(head[terminator*sector:], []byte{255, 'C', 'D', '0', '0', '1', 1})
	if _, err := w.Write(head); err != nil {
		return err
	}

	// File data, in extent order, each padded to its last sector.
	at := headSectors
	pad := make([]byte, sector)
	for _, f := range fileNodes {
		if err := ctx.Err(); err != nil {
			return err
		}
		if f.extent != at {
			return fmt.Errorf("isoimage: %s laid out at sector %d, expected %d", f.name, f.extent, at)
		}
		if err := writeData(w, f); err != nil {
			return err
		}
		if r := f.size % sector; r != 0 {
			if _, err := w.Write(pad[:sector-r]); err != nil {
				return err
			}
		}
		at += sectors(f.size)
	}
	return nil
}

// writeData copies f's bytes, exactly the size laid out.
func writeData(w io.Writer, f *isoNode) error {
	if f.src == "" {
		_, err := w.Write(f.data)
		return err
	}
	src, err := os.Open(f.src)
	if err != nil {
		return err
	}
	defer src.Close()
	n, err := io.Copy(w, io.LimitReader(src, int64(f.size)))
	if err != nil {
		return fmt.Errorf("copying %s: %w", f.src, err)
	}
	if n != int64(f.size) {
		return fmt.Errorf("%s shrank while the image was written", f.src)
	}
	return nil
}

// volumeDescriptor is hierarchy h's: the primary volume descriptor, or
// Joliet's supplementary one.
func volumeDescriptor(h int, root *isoNode, o Options, total, ptSize, lLoc, mLoc uint32, ts iso9660.RecordingTimestamp, vts iso9660.VolumeDescriptorTimestamp) ([]byte, error) {
	rootRec := &iso9660.DirectoryEntry{ExtentLocation: int32(root.in[h].extent), ExtentLength: root.in[h].size,
		RecordingDateTime: ts, FileFlags: 2, VolumeSequenceNumber: 1, Identifier: "\x00"}
	body := iso9660.PrimaryVolumeDescriptorBody{
		SystemIdentifier: "LINUX", VolumeIdentifier: o.VolumeID, VolumeSpaceSize: int32(total),
		VolumeSetSize: 1, VolumeSequenceNumber: 1, LogicalBlockSize: sector,
		PathTableSize: int32(ptSize), TypeLPathTableLoc: int32(lLoc), TypeMPathTableLoc: int32(mLoc),
		RootDirectoryEntry: rootRec, PublisherIdentifier: o.Publisher,
		ApplicationIdentifier:     o.Application,
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
		// identifiers in UCS-2, and the escape sequence of UCS-2 level 3.
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
	return b, nil
}

// infoTable patches the boot info table into n's data (El Torito boot
// image laid out at n.extent): genisoimage -boot-info-table's bi_pvd,
// bi_file, bi_length and bi_csum, the 32-bit sum of the little-endian
// words from offset 64, then 40 zero bytes.
func infoTable(n *isoNode) {
	var sum uint32
	d := n.data
	for i := 64; i < len(d); i += 4 {
		var w [4]byte
		copy(w[:], d[i:])
		sum += binary.LittleEndian.Uint32(w[:])
	}
	binary.LittleEndian.PutUint32(d[8:], 16)
	binary.LittleEndian.PutUint32(d[12:], n.extent)
	binary.LittleEndian.PutUint32(d[16:], n.size)
	binary.LittleEndian.PutUint32(d[20:], sum)
	clear(d[24:64])
}

// eltoritoCatalog writes the catalogue into cat: the validation entry
// (platform of the default entry, the ID, the checksum, 55 AA), the
// default entry, and a section (header and entry) for each further image.
func eltoritoCatalog(cat []byte, b *ElTorito, boots []*isoNode) {
	clear(cat)
	cat[0] = 1
	cat[1] = byte(b.Entries[0].Platform)
	id := b.ID
	if len(id) > 23 {
		// genisoimage keeps a terminating zero byte.
		id = id[:23]
	}
	copy(cat[4:28], id)
	cat[30], cat[31] = 0x55, 0xAA
	var sum uint16
	for i := 0; i < 32; i += 2 {
		sum += binary.LittleEndian.Uint16(cat[i:])
	}
	binary.LittleEndian.PutUint16(cat[28:], -sum)
	entry := func(e []byte, be BootEntry, n *isoNode) {
		e[0] = 0x88 // bootable, no emulation, load segment 0 (0x7C0)
		count := be.LoadSectors
		if count == 0 {
			count = uint16((uint64(n.size) + 511) / 512)
		}
		binary.LittleEndian.PutUint16(e[6:], count)
		binary.LittleEndian.PutUint32(e[8:], n.extent)
	}
	entry(cat[32:64], b.Entries[0], boots[0])
	off := 64
	for i := 1; i < len(b.Entries); i++ {
		h := cat[off : off+32]
		h[0] = 0x90
		if i == len(b.Entries)-1 {
			h[0] = 0x91
		}
		h[1] = byte(b.Entries[i].Platform)
		binary.LittleEndian.PutUint16(h[2:], 1)
		entry(cat[off+32:off+64], b.Entries[i], boots[i])
		off += 64
	}
}
