package ramdisk

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// The newc ("070701") format of cpio, the one the kernel unpacks into
// its rootfs (Documentation/driver-api/early-userspace/buffer-format.rst):
// a 110-byte ASCII header of 13 eight-digit hex fields, the NUL-ended
// name padded so that the data starts on a 4-byte boundary, the data
// padded likewise, and a last entry named TRAILER!!!.
const (
	newcMagic   = "070701"
	newcHeader  = 110
	trailerName = "TRAILER!!!"
)

// File type bits of a cpio mode (those of stat(2)).
const (
	modeDir  = 0o040000
	modeReg  = 0o100000
	modeLink = 0o120000
	modeChr  = 0o020000
)

// CPIOWriter writes a newc archive entry by entry. Every entry gets its
// own inode number and one link, so the archive holds no hard links;
// every entry carries the same mtime, owner root:root.
type CPIOWriter struct {
	w      io.Writer
	mtime  int64
	ino    uint32
	off    int64
	closed bool
}

// NewCPIOWriter writes to w; mtime is stamped on every entry.
func NewCPIOWriter(w io.Writer, mtime time.Time) *CPIOWriter {
	return &CPIOWriter{w: w, mtime: mtime.Unix()}
}

// Dir adds a directory.
func (c *CPIOWriter) Dir(name string, perm fs.FileMode) error {
	return c.entry(name, modeDir|uint32(perm.Perm())|stickyBits(perm), 2, 0, 0, nil)
}

// File adds a regular file holding data.
func (c *CPIOWriter) File(name string, perm fs.FileMode, data []byte) error {
	return c.entry(name, modeReg|uint32(perm.Perm())|stickyBits(perm), 1, 0, 0, data)
}

// Symlink adds a symbolic link to target.
func (c *CPIOWriter) Symlink(name, target string) error {
	return c.entry(name, modeLink|0o777, 1, 0, 0, []byte(target))
}

// CharDev adds a character device node major:minor.
func (c *CPIOWriter) CharDev(name string, perm fs.FileMode, major, minor uint32) error {
	return c.entry(name, modeChr|uint32(perm.Perm()), 1, major, minor, nil)
}

// Close writes the trailer; it does not close the underlying writer.
func (c *CPIOWriter) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	c.mtime = 0
	c.ino = ^uint32(0) // the trailer's inode is 0 after the increment below
	return c.entry(trailerName, 0, 1, 0, 0, nil)
}

func stickyBits(perm fs.FileMode) uint32 {
	var m uint32
	if perm&fs.ModeSetuid != 0 {
		m |= 0o4000
	}
	if perm&fs.ModeSetgid != 0 {
		m |= 0o2000
	}
	if perm&fs.ModeSticky != 0 {
		m |= 0o1000
	}
	return m
}

func (c *CPIOWriter) entry(name string, mode, nlink, rmajor, rminor uint32, data []byte) error {
	if c.closed && name != trailerName {
		return errors.New("cpio: write after Close")
	}
	if name == "" || strings.HasPrefix(name, "/") || name != path.Clean(name) {
		return fmt.Errorf("cpio: bad entry name %q (relative and clean, e.g. etc/hosts)", name)
	}
	if uint64(len(data)) > 0xffffffff {
		return fmt.Errorf("cpio: %s: %d bytes is over newc's 4 GiB limit", name, len(data))
	}
	c.ino++
	fields := []uint32{
		c.ino, mode, 0, 0, nlink, uint32(c.mtime), uint32(len(data)),
		0, 0, rmajor, rminor, uint32(len(name) + 1), 0,
	}
	hdr := make([]byte, 0, newcHeader+len(name)+4)
	hdr = append(hdr, newcMagic...)
	for _, f := range fields {
		hdr = fmt.Appendf(hdr, "%08x", f)
	}
	hdr = append(hdr, name...)
	hdr = append(hdr, 0)
	hdr = append(hdr, make([]byte, pad4(len(hdr)))...)
	if err := c.write(hdr); err != nil {
		return err
	}
	if len(data) > 0 {
		if err := c.write(data); err != nil {
			return err
		}
		if err := c.write(make([]byte, pad4(len(data)))); err != nil {
			return err
		}
	}
	return nil
}

func (c *CPIOWriter) write(b []byte) error {
	n, err := c.w.Write(b)
	c.off += int64(n)
	if err != nil {
		return fmt.Errorf("cpio: %w", err)
	}
	return nil
}

func pad4(n int) int { return (4 - n%4) % 4 }

// Tree is an archive's content before it is written: entries by path,
// written sorted by path with every parent directory before its
// children (parents not added explicitly are created 0755), so the same
// tree always gives the same bytes.
type Tree struct {
	entries map[string]treeEntry
}

type treeEntry struct {
	kind         byte // 'd', 'f', 'l', 'c'
	perm         fs.FileMode
	data         []byte
	target       string
	major, minor uint32
}

// NewTree returns an empty tree.
func NewTree() *Tree { return &Tree{entries: map[string]treeEntry{}} }

func cleanName(name string) string { return strings.TrimPrefix(path.Clean("/"+name), "/") }

// Dir adds a directory with perm.
func (t *Tree) Dir(name string, perm fs.FileMode) {
	t.entries[cleanName(name)] = treeEntry{kind: 'd', perm: perm}
}

// File adds a regular file.
func (t *Tree) File(name string, perm fs.FileMode, data []byte) {
	t.entries[cleanName(name)] = treeEntry{kind: 'f', perm: perm, data: data}
}

// Symlink adds a symbolic link.
func (t *Tree) Symlink(name, target string) {
	t.entries[cleanName(name)] = treeEntry{kind: 'l', target: target}
}

// CharDev adds a character device node.
func (t *Tree) CharDev(name string, perm fs.FileMode, major, minor uint32) {
	t.entries[cleanName(name)] = treeEntry{kind: 'c', perm: perm, major: major, minor: minor}
}

// Paths lists the tree's entries (implied parents included), sorted.
func (t *Tree) Paths() []string {
	all := map[string]bool{}
	for p := range t.entries {
		for q := p; q != "." && q != ""; q = path.Dir(q) {
			all[q] = true
		}
	}
	out := make([]string, 0, len(all))
	for p := range all {
		out = append(out, p)
	}
	// Sorted component by component, so that a directory always comes
	// right before its own entries ("a", "a/b", "a-b", not "a", "a-b", "a/b").
	slices.SortFunc(out, func(a, b string) int {
		return slices.Compare(strings.Split(a, "/"), strings.Split(b, "/"))
	})
	return out
}

// WriteCPIO writes the tree as a newc archive, every entry stamped
// mtime, and the trailer.
func (t *Tree) WriteCPIO(w io.Writer, mtime time.Time) error {
	c := NewCPIOWriter(w, mtime)
	for _, p := range t.Paths() {
		e, ok := t.entries[p]
		if !ok {
			e = treeEntry{kind: 'd', perm: 0o755}
		}
		var err error
		switch e.kind {
		case 'd':
			err = c.Dir(p, e.perm)
		case 'f':
			err = c.File(p, e.perm, e.data)
		case 'l':
			err = c.Symlink(p, e.target)
		case 'c':
			err = c.CharDev(p, e.perm, e.major, e.minor)
		}
		if err != nil {
			return err
		}
	}
	return c.Close()
}
