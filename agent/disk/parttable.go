package disk

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"unicode/utf16"
)

// sectorSize is the logical sector size the partition tables are laid
// out in (QEMU's and most disks'; 4Kn disks are not handled).
const sectorSize = 512

// gptLinuxFS is the partition type sgdisk gives a new partition (8300).
var gptLinuxFS = [16]byte{0xaf, 0x3d, 0xc6, 0x0f, 0x83, 0x84, 0x72, 0x47, 0x8e, 0x79, 0x3d, 0x69, 0xd8, 0x47, 0x7d, 0xe4}

// gpt is a GUID partition table: the primary header's fields and the
// partition entry array.
type gpt struct {
	header   [92]byte
	entries  []byte
	numEnt   uint32
	entSize  uint32
	firstUse uint64
}

// gptPart is one used entry of the array.
type gptPart struct {
	Index       int // 0-based slot; the partition number is Index+1
	Type, GUID  [16]byte
	First, Last uint64
	Name        string
}

var errNoGPT = errors.New("no GPT")

// readGPT reads the primary GPT of r (its header at LBA 1, checked by
// signature and CRCs).
func readGPT(r io.ReaderAt) (*gpt, error) {
	var hdr [sectorSize]byte
	if _, err := r.ReadAt(hdr[:], sectorSize); err != nil {
		return nil, errNoGPT
	}
	if string(hdr[:8]) != "EFI PART" {
		return nil, errNoGPT
	}
	le := binary.LittleEndian
	hsize := le.Uint32(hdr[12:])
	if hsize < 92 || hsize > sectorSize {
		return nil, fmt.Errorf("GPT header size %d is invalid", hsize)
	}
	crc := le.Uint32(hdr[16:])
	h := make([]byte, hsize)
	copy(h, hdr[:hsize])
	le.PutUint32(h[16:], 0)
	if crc32.ChecksumIEEE(h) != crc {
		return nil, errors.New("GPT header CRC mismatch")
	}
	g := &gpt{numEnt: le.Uint32(hdr[80:]), entSize: le.Uint32(hdr[84:]), firstUse: le.Uint64(hdr[40:])}
	copy(g.header[:], hdr[:92])
	if g.entSize < 128 || g.entSize%8 != 0 || g.entSize > 4096 || g.numEnt == 0 || uint64(g.numEnt)*uint64(g.entSize) > 1<<20 {
		return nil, fmt.Errorf("GPT entry array %d x %d is invalid", g.numEnt, g.entSize)
	}
	g.entries = make([]byte, int(g.numEnt)*int(g.entSize))
	if _, err := r.ReadAt(g.entries, int64(le.Uint64(hdr[72:]))*sectorSize); err != nil {
		return nil, fmt.Errorf("reading the GPT entries: %w", err)
	}
	if crc32.ChecksumIEEE(g.entries) != le.Uint32(hdr[88:]) {
		return nil, errors.New("GPT entries CRC mismatch")
	}
	return g, nil
}

// parts are the used entries.
func (g *gpt) parts() []gptPart {
	le := binary.LittleEndian
	var out []gptPart
	for i := range int(g.numEnt) {
		e := g.entries[i*int(g.entSize):]
		var p gptPart
		copy(p.Type[:], e[0:16])
		if p.Type == ([16]byte{}) {
			continue
		}
		p.Index = i
		copy(p.GUID[:], e[16:32])
		p.First, p.Last = le.Uint64(e[32:]), le.Uint64(e[40:])
		u := make([]uint16, 36)
		for k := range u {
			u[k] = le.Uint16(e[56+2*k:])
		}
		p.Name = string(utf16.Decode(u16bytes(u)))
		out = append(out, p)
	}
	return out
}

// u16bytes is a helper for trimming NULs from a UTF-16 name.
func u16bytes(u []uint16) []uint16 {
	n := len(u)
	for n > 0 && u[n-1] == 0 {
		n--
	}
	return u[:n]
}

// entrySectors is the size of the entry array in sectors.
func (g *gpt) entrySectors() uint64 {
	return (uint64(len(g.entries)) + sectorSize - 1) / sectorSize
}

// lastUsable is the last usable LBA on a disk of n sectors with the
// backup array right before the backup header.
func (g *gpt) lastUsable(n uint64) uint64 { return n - 2 - g.entrySectors() }

// write writes both copies of the table for a disk of n sectors: the
// backup header at the last LBA and its array right before it (sgdisk
// -e's move of the backup to the end of the disk).
func (g *gpt) write(w io.WriterAt, n uint64) error {
	le := binary.LittleEndian
	backupEntries := n - 1 - g.entrySectors()
	h := g.header
	le.PutUint64(h[24:], 1)
	le.PutUint64(h[32:], n-1)
	le.PutUint64(h[48:], g.lastUsable(n))
	le.PutUint32(h[88:], crc32.ChecksumIEEE(g.entries))
	primaryEntries := le.Uint64(h[72:])
	sealed := func(h [92]byte) []byte {
		le.PutUint32(h[16:], 0)
		le.PutUint32(h[16:], crc32.ChecksumIEEE(h[:]))
		out := make([]byte, sectorSize)
		copy(out, h[:])
		return out
	}
	b := h
	le.PutUint64(b[24:], n-1)
	le.PutUint64(b[32:], 1)
	le.PutUint64(b[72:], backupEntries)
	for _, wr := range []struct {
		data []byte
		lba  uint64
	}{
		{g.entries, primaryEntries}, {sealed(h), 1}, {g.entries, backupEntries}, {sealed(b), n - 1},
	} {
		if _, err := w.WriteAt(wr.data, int64(wr.lba)*sectorSize); err != nil {
			return err
		}
	}
	g.header = h
	return nil
}

// add fills the first free entry; it returns the partition number.
func (g *gpt) add(typ, guid [16]byte, first, last uint64, name string) (int, error) {
	le := binary.LittleEndian
	for i := range int(g.numEnt) {
		e := g.entries[i*int(g.entSize) : (i+1)*int(g.entSize)]
		if !bytes.Equal(e[0:16], make([]byte, 16)) {
			continue
		}
		clear(e)
		copy(e[0:16], typ[:])
		copy(e[16:32], guid[:])
		le.PutUint64(e[32:], first)
		le.PutUint64(e[40:], last)
		for k, c := range utf16.Encode([]rune(name)) {
			if k < 36 {
				le.PutUint16(e[56+2*k:], c)
			}
		}
		return i + 1, nil
	}
	return 0, errors.New("no free GPT partition entry")
}

// mbrPart is one primary entry of a DOS partition table.
type mbrPart struct {
	Index        int
	Type         byte
	Start, Count uint32
}

// readMBR reads the four primary entries of sector 0; ok is false
// without the 0x55AA signature.
func readMBR(r io.ReaderAt) (parts []mbrPart, ok bool) {
	var s [sectorSize]byte
	if _, err := r.ReadAt(s[:], 0); err != nil || s[510] != 0x55 || s[511] != 0xaa {
		return nil, false
	}
	le := binary.LittleEndian
	for i := range 4 {
		e := s[446+16*i:]
		if e[4] == 0 {
			continue
		}
		parts = append(parts, mbrPart{Index: i, Type: e[4], Start: le.Uint32(e[8:]), Count: le.Uint32(e[12:])})
	}
	return parts, true
}

// writeMBREntry writes primary entry i (LBA addressing, CHS maxed out as
// parted does for partitions beyond 8 GiB).
func writeMBREntry(w io.WriterAt, i int, typ byte, start, count uint32) error {
	e := make([]byte, 16)
	e[1], e[2], e[3] = 0xfe, 0xff, 0xff
	e[4] = typ
	e[5], e[6], e[7] = 0xfe, 0xff, 0xff
	binary.LittleEndian.PutUint32(e[8:], start)
	binary.LittleEndian.PutUint32(e[12:], count)
	_, err := w.WriteAt(e, int64(446+16*i))
	return err
}

// guidBytes is the on-disk form of a UUID.
func guidBytes(u [16]byte) [16]byte {
	var g [16]byte
	g[0], g[1], g[2], g[3] = u[3], u[2], u[1], u[0]
	g[4], g[5] = u[5], u[4]
	g[6], g[7] = u[7], u[6]
	copy(g[8:], u[8:])
	return g
}
