package redfishbmc_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stmcginnis/gofish/schemas"

	"github.com/goironic/ironic/test/redfishbmc"
)

// TestGofishEveryResource reads every resource through gofish v0.22.0
// and writes those Ironic writes: BIOS settings, secure boot, volumes,
// virtual media, indicators, subscriptions.
func TestGofishEveryResource(t *testing.T) {
	ts := redfishbmc.ForTest(t, redfishbmc.Options{})
	sys := ts.AddSystem(redfishbmc.SystemSpec{PowerState: redfishbmc.PowerOn, NICs: []redfishbmc.NIC{
		{ID: "NIC1", MAC: "52:54:00:aa:bb:01"}, {ID: "NIC2", MAC: "52:54:00:aa:bb:02", Down: true},
	}})
	c := connect(t, ts.URL, false)
	s := oneSystem(t, c)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	procs, err := s.Processors()
	must(err)
	if len(procs) != 2 || procs[0].TotalThreads == nil || *procs[0].TotalThreads != 8 ||
		procs[0].ProcessorArchitecture != schemas.X86ProcessorArchitecture || procs[0].InstructionSet != schemas.X8664InstructionSet {
		t.Errorf("processors %+v", procs[0])
	}
	mem, err := s.Memory()
	must(err)
	if len(mem) != 2 || mem[0].CapacityMiB == nil || *mem[0].CapacityMiB != 16384 {
		t.Errorf("memory %+v", mem)
	}
	if s.MemorySummary.TotalSystemMemoryGiB == nil || *s.MemorySummary.TotalSystemMemoryGiB != 32 {
		t.Errorf("memory summary %+v", s.MemorySummary)
	}
	nics, err := s.EthernetInterfaces()
	must(err)
	// gofish reads members concurrently: order them.
	slices.SortFunc(nics, func(a, b *schemas.EthernetInterface) int { return strings.Compare(a.ID, b.ID) })
	if len(nics) != 2 || nics[0].MACAddress != "52:54:00:aa:bb:01" || nics[1].LinkStatus != schemas.LinkDownLinkStatus {
		t.Errorf("nics %s %s %s", nics[0].MACAddress, nics[1].ID, nics[1].LinkStatus)
	}
	simple, err := s.SimpleStorage()
	must(err)
	if len(simple) != 1 || len(simple[0].Devices) != 2 {
		t.Errorf("simple storage %+v", simple)
	}

	// Bios: staged, applied at the next boot.
	bios, err := s.Bios()
	must(err)
	if bios.Attributes["ProcTurboMode"] != "Enabled" {
		t.Errorf("bios %v", bios.Attributes)
	}
	must(bios.UpdateBiosAttributesApplyAt(schemas.SettingsAttributes{"ProcTurboMode": "Disabled"}, schemas.OnResetSettingsApplyTime))
	if got := sys.PendingBiosAttributes()["ProcTurboMode"]; got != "Disabled" {
		t.Errorf("pending %v", got)
	}
	if sys.BiosAttributes()["ProcTurboMode"] != "Enabled" {
		t.Error("a staged BIOS setting applied before the reboot")
	}
	_, err = s.Reset(schemas.ForceRestartResetType)
	must(err)
	if sys.BiosAttributes()["ProcTurboMode"] != "Disabled" || len(sys.PendingBiosAttributes()) != 0 {
		t.Errorf("after reboot: %v pending %v", sys.BiosAttributes(), sys.PendingBiosAttributes())
	}
	regs, err := c.Service.Registries()
	must(err)
	if len(regs) != 1 || regs[0].ID != "BiosAttributeRegistry.v1_0_0" || len(regs[0].Location) != 1 {
		t.Errorf("registries %+v", regs)
	}

	sb, err := s.SecureBoot()
	must(err)
	sb.SecureBootEnable = true
	must(sb.Update())
	if !sys.SecureBoot() {
		t.Error("secure boot not enabled")
	}
	_, err = sb.ResetKeys(schemas.DeleteAllKeysResetKeysType)
	must(err)

	// Storage: drives, and a volume created and deleted.
	storage, err := s.Storage()
	must(err)
	ctls := storage[0].StorageControllers //nolint:staticcheck // deprecated in the schema; what sushy 4.3 and Ironic 21.4 use
	if len(storage) != 1 || len(ctls) != 1 || !slices.Contains(ctls[0].SupportedRAIDTypes, schemas.RAID1RAIDType) {
		t.Fatalf("storage %+v", storage)
	}
	drives, err := storage[0].Drives()
	must(err)
	slices.SortFunc(drives, func(a, b *schemas.Drive) int { return strings.Compare(a.ID, b.ID) })
	if len(drives) != 2 || drives[0].CapacityBytes == nil || *drives[0].CapacityBytes != 480_103_981_056 {
		t.Errorf("%d drives, first %s", len(drives), drives[0].ID)
	}
	drives[0].IndicatorLED = schemas.BlinkingIndicatorLED //nolint:staticcheck // deprecated in the schema; what sushy 4.3 and Ironic 21.4 use
	must(drives[0].Update())
	resp, err := c.Post(storage[0].ODataID+"/Volumes", map[string]any{
		"RAIDType": "RAID0", "Links": map[string]any{"Drives": []any{map[string]any{"@odata.id": drives[1].ODataID}}},
	})
	must(err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("Location") == "" {
		t.Fatalf("volume create: %d %v", resp.StatusCode, resp.Header)
	}
	vols, err := storage[0].Volumes()
	must(err)
	if len(vols) != 1 || vols[0].RAIDType != schemas.RAID0RAIDType {
		t.Fatalf("volumes %+v", vols)
	}
	resp, err = c.Delete(vols[0].ODataID)
	must(err)
	resp.Body.Close()
	if len(sys.Volumes()) != 0 {
		t.Error("volume not deleted")
	}

	// Virtual media: InsertMedia downloads the image.
	image := []byte("an ISO image, as far as anyone can tell")
	var gets atomic.Int32
	images := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gets.Add(1)
		_, _ = w.Write(image)
	}))
	t.Cleanup(images.Close)
	managers, err := s.ManagedBy()
	must(err)
	media, err := managers[0].VirtualMedia()
	must(err)
	slices.SortFunc(media, func(a, b *schemas.VirtualMedia) int { return strings.Compare(a.ID, b.ID) })
	if len(media) != 2 || !slices.Contains(media[1].MediaTypes, schemas.USBStickVirtualMediaType) {
		t.Fatalf("%d virtual media, second %s %v", len(media), media[1].ID, media[1].MediaTypes)
	}
	url := images.URL + "/boot.iso"
	_, err = media[0].InsertMedia(&schemas.VirtualMediaInsertMediaParameters{Image: url})
	must(err)
	got, _ := sys.VirtualMedia("Cd")
	sum := sha256.Sum256(image)
	if !got.Inserted || got.Image != url || got.SHA256 != hex.EncodeToString(sum[:]) || gets.Load() != 1 {
		t.Errorf("cd %+v after %d downloads", got, gets.Load())
	}
	_, err = media[0].EjectMedia()
	must(err)
	if got, _ := sys.VirtualMedia("Cd"); got.Inserted || got.Image != "" {
		t.Errorf("cd after eject %+v", got)
	}

	chassis, err := s.Chassis()
	must(err)
	thermal, err := chassis[0].Thermal()
	must(err)
	if len(thermal.Fans) != 1 || len(thermal.Temperatures) != 1 {
		t.Errorf("thermal %+v", thermal)
	}
	power, err := chassis[0].Power()
	must(err)
	if len(power.PowerSupplies) != 1 || power.PowerSupplies[0].PowerCapacityWatts == nil {
		t.Errorf("power %+v", power)
	}
	chassis[0].IndicatorLED = schemas.LitIndicatorLED //nolint:staticcheck // deprecated in the schema; what sushy 4.3 and Ironic 21.4 use
	must(chassis[0].Update())

	events, err := c.Service.EventService()
	must(err)
	link, err := events.CreateEventSubscription("http://127.0.0.1:9/events", []schemas.EventType{schemas.AlertEventType}, //nolint:staticcheck // deprecated in the schema; what sushy 4.3 and Ironic 21.4 use
		map[string]string{"X-Token": "t"}, schemas.RedfishEventDestinationProtocol, "ctx", nil)
	must(err)
	subs, err := events.Subscriptions()
	must(err)
	if len(subs) != 1 || subs[0].Destination != "http://127.0.0.1:9/events" || subs[0].Context != "ctx" {
		t.Errorf("subscriptions %+v", subs)
	}
	must(events.DeleteEventSubscription(link))
	if n := len(ts.Default().Subscriptions()); n != 0 {
		t.Errorf("%d subscriptions after delete", n)
	}
	tasks, err := c.Service.Tasks()
	must(err)
	if _, err := tasks.Tasks(); err != nil {
		t.Error(err)
	}
}
