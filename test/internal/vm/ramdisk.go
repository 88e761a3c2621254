package vm

import (
	"cmp"
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/goironic/ironic/agent/ramdisk"
	"github.com/goironic/ironic/test/internal/cluster"
)

// DeployRamdisk builds the deploy kernel and initramfs nodes boot to run
// our agent: ./cmd/ironic-agent built static as /init, Debian's kernel
// (apt-get download, cached as cmd/ironic-ramdisk caches it) and its
// modules, written into dir. Without apt-get or dpkg-deb t skips (fails
// with RequireEnv=1).
func DeployRamdisk(ctx context.Context, t testing.TB, dir string) ramdisk.Output {
	t.Helper()
	for _, tool := range []string{"apt-get", "dpkg-deb"} {
		if _, err := exec.LookPath(tool); err != nil {
			cluster.Missing(t, RequireEnv, tool+" not installed (the deploy kernel is Debian's)")
		}
	}
	root, err := cluster.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	agentBin := filepath.Join(dir, "ironic-agent")
	if err := ramdisk.BuildStatic(ctx, root, "./cmd/ironic-agent", agentBin); err != nil {
		t.Fatal(err)
	}
	init, err := os.ReadFile(agentBin)
	if err != nil {
		t.Fatal(err)
	}
	cache, err := ramdisk.DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	k, err := ramdisk.KernelFetcher{Run: ramdisk.ExecRunner{}, CacheDir: cache}.Fetch(ctx, "")
	if err != nil {
		t.Fatalf("deploy kernel: %v", err)
	}
	out, err := ramdisk.Write(filepath.Join(dir, "deploy"), "deploy", k, ramdisk.Spec{Init: init})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// DeploySpec is a node deployed with our agent ramdisk (direct deploy,
// automated cleaning on) on a blank disk, with the all-in-one that
// drives it.
type DeploySpec struct {
	// UUID and MAC are the node's (Options).
	UUID, MAC string
	// Dir is the test's directory (database, http_root, disk).
	Dir string
	// Ramdisk is DeployRamdisk's output, served as deploy.kernel and
	// deploy.initramfs.
	Ramdisk ramdisk.Output
	// Files are more files to serve (path -> local file).
	Files map[string]string
	// Extra is added to the all-in-one's ironic.conf (Conf.Extra).
	Extra string
	// InspectInterfaces is Conf.InspectInterfaces.
	InspectInterfaces string
	// BootInterfaces is Conf.BootInterfaces.
	BootInterfaces string
	// DiskSize is the blank disk's size (default 256 MiB).
	DiskSize int64
}

// Deploy is a running DeploySpec.
type Deploy struct {
	Node  *Node
	API   *cluster.Service
	Files *Files
	// Disk is the node's disk file.
	Disk string
	// DriverInfo is the node's driver_info: the BMC's and the deploy
	// kernel and ramdisk's URLs.
	DriverInfo map[string]any
}

// StartDeploy starts the node (powered off), the file server and the
// all-in-one on API port 6740-6749 (the agent's forwarded port
// 6750-6759); the conductor's HTTP_PROXY is a HostProxy, so that it
// checks the image URLs where the guest fetches them. Everything stops
// when t ends.
func StartDeploy(ctx context.Context, t testing.TB, s DeploySpec) *Deploy {
	t.Helper()
	files := map[string]string{"/deploy.kernel": s.Ramdisk.Kernel, "/deploy.initramfs": s.Ramdisk.Initramfs}
	maps.Copy(files, s.Files)
	d := &Deploy{Files: ServeFiles(t, files)}
	apiPort, err := FreePort(6740, 6749)
	if err != nil {
		t.Fatal(err)
	}
	agentPort, err := FreePort(6750, 6759)
	if err != nil {
		t.Fatal(err)
	}
	conf := Conf{DBPath: filepath.Join(s.Dir, "ironic.sqlite"), HTTPURL: d.Files.URL, HTTPRoot: filepath.Join(s.Dir, "httproot"),
		DeployInterfaces: "direct", AutomatedClean: true, Extra: s.Extra, InspectInterfaces: s.InspectInterfaces,
		BootInterfaces: s.BootInterfaces,
		KernelAppend:   "ipa-debug=1 ipa-advertise-host=127.0.0.1 ipa-advertise-port=" + strconv.Itoa(agentPort)}
	if err := os.Mkdir(conf.HTTPRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	d.Files.ServeRoot(conf.HTTPRoot)
	d.Disk = BlankDisk(t, s.Dir, cmp.Or(s.DiskSize, 256<<20))
	d.Node = Start(t, Options{UUID: s.UUID, MAC: s.MAC, Disk: d.Disk, BootFile: IPXEConfigURL(apiPort, "redfish"), AgentPort: agentPort})
	proxy := HostProxy(t)
	for k, v := range map[string]string{"HTTP_PROXY": proxy, "http_proxy": proxy, "HTTPS_PROXY": "", "https_proxy": "",
		"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"} {
		t.Setenv(k, v)
	}
	d.API = cluster.Start(ctx, t, cluster.Spec{Program: cluster.Ours(cluster.AllInOne), Port: apiPort, Dir: s.Dir, Config: conf.Text, LogTail: 12000})
	d.DriverInfo = d.Node.DriverInfo()
	d.DriverInfo["deploy_kernel"], d.DriverInfo["deploy_ramdisk"] = d.Files.URL+"/deploy.kernel", d.Files.URL+"/deploy.initramfs"
	return d
}
