// Package configdrive builds OpenStack config drives in process: the ISO 9660
// image labelled config-2 that Ironic's conductor/utils.py build_configdrive
// makes (through openstacksdk's baremetal.configdrive and genisoimage), then
// gzipped and base64-encoded as Ironic stores and sends it.
//
// The tree is Ironic 21.4's: openstack/{2012-08-10,latest}/ each holding
// meta_data.json (always), network_data.json, vendor_data2.json and user_data
// (each only when given and non-empty, as Python's truth test decides). JSON
// files are written as Python's json.dump writes them. The image itself is
// laid out in memory by internal/isoimage: ISO 9660 with genisoimage's names plus
// Rock Ridge with the real ones, and a Joliet tree, as `genisoimage -r -J
// -l -V config-2` writes it.
package configdrive

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"time"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/internal/pyjson"
)

// VolumeID is the volume label cloud-init and glean look for.
const VolumeID = "config-2"

// Node is what the builder needs to know about the node: meta_data's uuid and
// name default to these.
type Node struct {
	UUID string
	Name string
}

// Contents is the JSON form of a config drive (API 1.56): every key optional.
// MetaData, NetworkData and VendorData are JSON objects; UserData is a
// string, an object, an array or nil. Objects are *pyjson.Dict in the
// client's key order (the API and the RPC layer keep it, as Ironic's
// dicts do), so that the files read as Ironic writes them.
type Contents struct {
	MetaData    *pyjson.Dict
	NetworkData any
	UserData    any
	VendorData  any
}

// FromDict reads the API's dict form ({"meta_data": ..., "network_data":
// ..., "user_data": ..., "vendor_data": ...}) as a *pyjson.Dict (or a
// pyjson.Object, or a map[string]any whose keys, having no order, are
// taken sorted); the API has validated its schema.
func FromDict(d any) (Contents, error) {
	var c Contents
	x, ok := pyjson.AsDict(pyjson.Ordered(d))
	if !ok {
		return c, fmt.Errorf("a configdrive must be a dict, not %T", d)
	}
	switch md := x.Get("meta_data").(type) {
	case nil:
	case *pyjson.Dict:
		c.MetaData = md
	default:
		return c, fmt.Errorf("meta_data must be an object, not %T", md)
	}
	c.NetworkData = x.Get("network_data")
	c.UserData = x.Get("user_data")
	c.VendorData = x.Get("vendor_data")
	return c, nil
}

// File is one file of the image, by its path below the root.
type File struct {
	Path string
	Data []byte
}

// marshal is json.dumps of what json.loads made of v.
func marshal(v any) ([]byte, error) { return pyjson.Marshal(pyjson.PythonNumbers(v)) }

// Files lays out the tree build_configdrive writes for node and c, in the
// order openstacksdk's populate_directory writes it. meta_data gets the
// node's uuid and then its name (when it has one) after the given keys,
// unless given: Ironic's setdefault calls.
func Files(node Node, c Contents) ([]File, error) {
	md := c.MetaData.Clone()
	if md == nil {
		md = pyjson.NewDict(2)
	}
	md.SetDefault("uuid", node.UUID)
	if node.Name != "" {
		md.SetDefault("name", node.Name)
	}
	metaJSON, err := marshal(md)
	if err != nil {
		return nil, fmt.Errorf("meta_data: %w", err)
	}
	var netJSON, vendorJSON, userData []byte
	if Truthy(c.NetworkData) {
		if netJSON, err = marshal(c.NetworkData); err != nil {
			return nil, fmt.Errorf("network_data: %w", err)
		}
	}
	if Truthy(c.VendorData) {
		if vendorJSON, err = marshal(c.VendorData); err != nil {
			return nil, fmt.Errorf("vendor_data: %w", err)
		}
	}
	switch ud := c.UserData.(type) {
	case nil:
	case string:
		userData = []byte(ud)
	default:
		// jsonutils.dump_as_bytes: json.dumps, UTF-8.
		if userData, err = marshal(ud); err != nil {
			return nil, fmt.Errorf("user_data: %w", err)
		}
	}
	files := make([]File, 0, 8)
	// openstacksdk's default metadata versions.
	for _, v := range [...]string{"2012-08-10", "latest"} {
		dir := "openstack/" + v + "/"
		files = append(files, File{dir + "meta_data.json", metaJSON})
		if len(netJSON) > 0 {
			files = append(files, File{dir + "network_data.json", netJSON})
		}
		if len(vendorJSON) > 0 {
			files = append(files, File{dir + "vendor_data2.json", vendorJSON})
		}
		if len(userData) > 0 {
			files = append(files, File{dir + "user_data", userData})
		}
	}
	return files, nil
}

// Truthy is Python's truth test for a decoded JSON value: Ironic writes a
// file only for a truthy value, and builds and stores a configdrive only
// when it is truthy.
func Truthy(v any) bool {
	switch v.(type) {
	case nil, *pyjson.Dict, pyjson.Object, map[string]any, []any, string, bool:
		return pyjson.Truthy(v)
	}
	return true // numbers too, as before: Ironic's schema allows none here
}

// Builder builds config drive images, in memory.
type Builder struct {
	Log *slog.Logger
	// Now stamps the volume and its records (time.Now when nil).
	Now func() time.Time
}

// ISO writes the ISO 9660 + Rock Ridge + Joliet image of files, labelled
// config-2.
func (b Builder) ISO(ctx context.Context, files []File) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	img, err := writeISO(ctx, files, VolumeID, now())
	if err != nil {
		return nil, fmt.Errorf("writing the ISO image: %w", err)
	}
	return img, nil
}

// Build is build_configdrive: the gzipped, base64-encoded config drive image
// for node and c, as Ironic stores it in instance_info.configdrive.
func (b Builder) Build(ctx context.Context, node Node, c Contents) (string, error) {
	files, err := Files(node, c)
	if err != nil {
		return "", err
	}
	if b.Log != nil {
		b.Log.DebugContext(ctx, "Building a configdrive", "node", node.UUID)
	}
	img, err := b.ISO(ctx, files)
	if err != nil {
		return "", err
	}
	return Pack(img)
}

// BuildConfigdrive is conductor.utils.build_configdrive for the dict
// form cd (see FromDict) of the node with this UUID and name ("" for
// None): the image as Build makes it. A dict that is no config drive is
// InvalidParameterValue "Invalid configdrive: ...". It implements the
// conductor's ConfigdriveBuilder.
func (b Builder) BuildConfigdrive(ctx context.Context, uuid, name string, cd any) (string, error) {
	c, err := FromDict(cd)
	if err != nil {
		return "", ironic.Errorf(ironic.InvalidParameterValue, "Invalid configdrive: %s", err)
	}
	return b.Build(ctx, Node{UUID: uuid, Name: name}, c)
}

// Pack gzips and base64-encodes an image. Level 6, not Python's 9: the
// bytes unpacked are the same, and level 9 doubles the build time.
func Pack(img []byte) (string, error) {
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.DefaultCompression)
	if err != nil {
		return "", err
	}
	if _, err := zw.Write(img); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(gz.Bytes()), nil
}

// Unpack reverses Pack.
func Unpack(s string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	defer func() { _ = zr.Close() }() // everything was read; a late checksum error shows in the read
	var out bytes.Buffer
	if _, err := out.ReadFrom(zr); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
