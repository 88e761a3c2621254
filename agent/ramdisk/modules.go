package ramdisk

import (
	"bufio"
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ulikunitz/xz"
)

// DefaultModules are the modules the deploy ramdisk loads (with what
// they depend on): the virtio devices of a QEMU/KVM guest, IDE/SATA and
// SCSI disks and CD-ROMs, NVMe, the file systems of config drives and
// virtual media (ISO 9660, FAT with its code pages and the kernel's
// default FAT I/O charset, ascii), efivarfs (the
// UEFI boot entries image.install_bootloader writes), and Intel's e1000
// and e1000e NICs (QEMU's default NICs for pc and q35 machines), and
// 802.1Q VLANs and bonding (network_data's vlan and bond links).
// Built-in ones (modules.builtin) are skipped.
func DefaultModules() []string {
	return []string{
		"virtio_pci", "virtio_net", "virtio_blk", "virtio_scsi",
		"ata_piix", "ahci", "sd_mod", "sr_mod", "cdrom", "nvme",
		"isofs", "vfat", "nls_cp437", "nls_utf8", "nls_iso8859_1", "nls_ascii", "efivarfs",
		"e1000", "e1000e", "8021q", "bonding",
	}
}

// ModuleParams are the parameters some modules are loaded with (the
// list agent/boot reads gives them after the path): bonding without
// max_bonds=0 creates a bond0 nobody asked for, which would take DHCP
// and the name a network_data bond may want.
func ModuleParams() map[string]string {
	return map[string]string{"bonding": "max_bonds=0"}
}

// modName is the kernel's name for a module file or a depends= entry:
// without the directory and the .ko[.xz|.zst|.gz] suffix, dashes as
// underscores (the kernel treats them alike).
func modName(s string) string {
	s = filepath.Base(s)
	if i := strings.Index(s, ".ko"); i >= 0 {
		s = s[:i]
	}
	return strings.ReplaceAll(s, "-", "_")
}

// ModuleTree is a kernel's /lib/modules/<version> directory as Debian's
// package ships it: the .ko files under kernel/ and modules.builtin,
// but no modules.dep (depmod writes that at install time). Dependencies
// come from each module's .modinfo "depends=" list, the one modpost
// wrote from the module's undefined symbols and depmod reads back.
type ModuleTree struct {
	Dir     string
	files   map[string]string // module name → path relative to Dir
	builtin map[string]bool
}

// OpenModuleTree indexes the modules under dir.
func OpenModuleTree(dir string) (*ModuleTree, error) {
	t := &ModuleTree{Dir: dir, files: map[string]string{}, builtin: map[string]bool{}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && strings.Contains(d.Name(), ".ko") {
			rel, _ := filepath.Rel(dir, p)
			t.files[modName(d.Name())] = rel
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("modules in %s: %w", dir, err)
	}
	if len(t.files) == 0 {
		return nil, fmt.Errorf("modules in %s: no .ko files", dir)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "modules.builtin")); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if l := strings.TrimSpace(sc.Text()); l != "" {
				t.builtin[modName(l)] = true
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return t, nil
}

// Module is one module to load: its name, its path relative to the tree
// and its decompressed bytes.
type Module struct {
	Name string
	Path string // relative to the tree, always ending in .ko
	Data []byte
}

// Resolve returns want and everything they depend on, each once, every
// module after its dependencies (the order to load them in). Built-in
// modules are left out; a module that is neither a file nor built in is
// an error.
func (t *ModuleTree) Resolve(want []string) ([]Module, error) {
	var out []Module
	state := map[string]byte{} // 'v' visiting, 'd' done
	var visit func(name, from string) error
	visit = func(name, from string) error {
		name = modName(name)
		switch state[name] {
		case 'd':
			return nil
		case 'v':
			return fmt.Errorf("module %s: dependency cycle through %s", name, from)
		}
		if t.builtin[name] {
			state[name] = 'd'
			return nil
		}
		rel, ok := t.files[name]
		if !ok {
			if from != "" {
				return fmt.Errorf("module %s (needed by %s): not in %s and not built in", name, from, t.Dir)
			}
			return fmt.Errorf("module %s: not in %s and not built in", name, t.Dir)
		}
		state[name] = 'v'
		data, err := readModule(filepath.Join(t.Dir, rel))
		if err != nil {
			return err
		}
		deps, err := modinfoDepends(data)
		if err != nil {
			return fmt.Errorf("module %s: %w", rel, err)
		}
		for _, d := range deps {
			if err := visit(d, name); err != nil {
				return err
			}
		}
		state[name] = 'd'
		out = append(out, Module{Name: name, Path: rel[:strings.Index(rel, ".ko")+3], Data: data})
		return nil
	}
	for _, w := range want {
		if err := visit(w, ""); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readModule reads a .ko, decompressing .ko.xz (the kernel's
// finit_module takes the plain ELF unless the kernel itself
// decompresses, which Debian's 6.1 does not).
func readModule(p string) ([]byte, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	switch {
	case strings.HasSuffix(p, ".ko"):
		return b, nil
	case strings.HasSuffix(p, ".ko.xz"):
		r, err := xz.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		out, err := io.ReadAll(r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		return out, nil
	default:
		return nil, fmt.Errorf("%s: unsupported module compression (plain .ko and .ko.xz are)", p)
	}
}

// modinfoDepends reads the depends= entry of a module's .modinfo
// section (NUL-separated key=value strings).
func modinfoDepends(ko []byte) ([]string, error) {
	f, err := elf.NewFile(bytes.NewReader(ko))
	if err != nil {
		return nil, fmt.Errorf("not an ELF module: %w", err)
	}
	s := f.Section(".modinfo")
	if s == nil {
		return nil, errors.New("no .modinfo section")
	}
	b, err := s.Data()
	if err != nil {
		return nil, err
	}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte("depends=")); ok {
			var deps []string
			for _, d := range strings.Split(string(v), ",") {
				if d != "" {
					deps = append(deps, d)
				}
			}
			return deps, nil
		}
	}
	return nil, nil
}
