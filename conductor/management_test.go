package conductor_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/goironic/ironic"
	"github.com/goironic/ironic/db"
	"github.com/goironic/ironic/db/dbtest"
	"github.com/goironic/ironic/db/models"
	"github.com/goironic/ironic/drivers"
	"github.com/goironic/ironic/drivers/fake"
	"github.com/goironic/ironic/rpc"
)

func TestBootDevices(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		h := newHarness(t, store, withManualManagement())
		n := h.node(t, "fake-hardware", nil)

		devs, err := h.m.GetSupportedBootDevices(ctx, "", n.UUID)
		if err != nil || !slices.Equal(devs, []string{"pxe"}) {
			t.Errorf("supported boot devices: %v %v", devs, err)
		}
		if err := h.m.SetBootDevice(ctx, "", n.UUID, "pxe", true); err != nil {
			t.Errorf("set pxe: %v", err)
		}
		wantFault(t, "set disk", h.m.SetBootDevice(ctx, "", n.UUID, "disk", false),
			ironic.InvalidParameterValue, "Invalid boot device disk specified.")
		bd, err := h.m.GetBootDevice(ctx, "", n.UUID)
		if err != nil {
			t.Fatal(err)
		}
		f := false
		pxe := "pxe"
		if diff := cmp.Diff(&rpc.BootDevice{BootDevice: &pxe, Persistent: &f}, bd); diff != "" {
			t.Errorf("boot device (-want +got):\n%s", diff)
		}
		wantFault(t, "inject nmi", h.m.InjectNMI(ctx, "", n.UUID), ironic.UnsupportedDriverExtension,
			"Driver fake-hardware does not support inject_nmi (disabled or not implemented).")
		if got := h.reload(t, n); got.Reservation != nil {
			t.Errorf("lock left behind: %v", *got.Reservation)
		}

		// Setting and reading the boot device take the exclusive lock;
		// listing the supported devices doesn't.
		h.lockElsewhere(t, n)
		for name, err := range map[string]error{
			"set":  h.m.SetBootDevice(ctx, "", n.UUID, "pxe", false),
			"get":  func() error { _, err := h.m.GetBootDevice(ctx, "", n.UUID); return err }(),
			"nmi":  h.m.InjectNMI(ctx, "", n.UUID),
			"mode": h.m.ChangeNodeBootMode(ctx, "", n.UUID, "uefi"),
		} {
			if !ironic.IsClass(err, ironic.NodeLocked) {
				t.Errorf("%s under a foreign lock: %v", name, err)
			}
		}
		if _, err := h.m.GetSupportedBootDevices(ctx, "", n.UUID); err != nil {
			t.Errorf("supported boot devices under a foreign lock: %v", err)
		}

		// manual-management defaults to the noop management interface.
		mm := h.node(t, "manual-management", nil)
		if err := h.m.SetBootDevice(ctx, "", mm.UUID, "disk", false); err != nil {
			t.Errorf("noop set disk: %v", err)
		}
		wantFault(t, "noop set cdrom", h.m.SetBootDevice(ctx, "", mm.UUID, "cdrom", false),
			ironic.InvalidParameterValue, "Invalid boot device cdrom specified, supported are pxe, disk.")
		devs, err = h.m.GetSupportedBootDevices(ctx, "", mm.UUID)
		if err != nil || !slices.Equal(devs, []string{"pxe", "disk"}) {
			t.Errorf("noop supported boot devices: %v %v", devs, err)
		}
	})
}

// modalManagement is the fake management interface with boot modes and
// secure boot, counting changes; SetBootMode waits for block when set.
type modalManagement struct {
	fake.Management
	mu       sync.Mutex
	mode     string
	secure   bool
	sets     int
	block    chan struct{}
	failWith error
}

func (mm *modalManagement) GetBootMode(context.Context, drivers.Task) (string, error) {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	return mm.mode, nil
}

func (mm *modalManagement) SetBootMode(ctx context.Context, _ drivers.Task, mode string) error {
	if mm.block != nil {
		select {
		case <-mm.block:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	mm.mu.Lock()
	defer mm.mu.Unlock()
	if mm.failWith != nil {
		return mm.failWith
	}
	mm.mode = mode
	mm.sets++
	return nil
}

func (mm *modalManagement) GetSecureBootState(context.Context, drivers.Task) (bool, error) {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	return mm.secure, nil
}

func (mm *modalManagement) SetSecureBootState(_ context.Context, _ drivers.Task, on bool) error {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	if mm.failWith != nil {
		return mm.failWith
	}
	mm.secure = on
	mm.sets++
	return nil
}

func (mm *modalManagement) setCount() int {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	return mm.sets
}

func TestBootModeUnsupportedByFake(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		h := newHarness(t, store)
		n := h.node(t, "fake-hardware", db.Values{"last_error": "old"})
		// Ironic's fake management has no boot modes: the worker records
		// the refusal, the call itself succeeds.
		if err := h.m.ChangeNodeBootMode(ctx, "", n.UUID, "uefi"); err != nil {
			t.Fatal(err)
		}
		h.m.Wait()
		got := h.reload(t, n)
		want := "Failed to change boot mode to 'uefi: Driver fake-hardware does not support set_boot_mode (disabled or not implemented)."
		if models.Deref(got.LastError) != want || got.BootMode != nil || got.Reservation != nil {
			t.Errorf("after boot mode change: last_error %q boot_mode %v reservation %v", models.Deref(got.LastError), got.BootMode, got.Reservation)
		}
		if err := h.m.ChangeNodeSecureBoot(ctx, "", n.UUID, true); err != nil {
			t.Fatal(err)
		}
		h.m.Wait()
		got = h.reload(t, n)
		want = "Failed to change secure_boot state to 'True': Driver fake-hardware does not support set_secure_boot_state (disabled or not implemented)."
		if models.Deref(got.LastError) != want || got.SecureBoot != nil {
			t.Errorf("after secure boot change: last_error %q secure_boot %v", models.Deref(got.LastError), got.SecureBoot)
		}
	})
}

func TestBootModeChanges(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		mgmt := &modalManagement{mode: "bios"}
		h := newHarness(t, store, withImpl(drivers.Management, "fake", mgmt))
		n := h.node(t, "fake-hardware", db.Values{"last_error": "old"})

		if err := h.m.ChangeNodeBootMode(ctx, "", n.UUID, "uefi"); err != nil {
			t.Fatal(err)
		}
		h.m.Wait()
		got := h.reload(t, n)
		if models.Deref(got.BootMode) != "uefi" || got.LastError != nil || got.Reservation != nil {
			t.Errorf("boot mode: %v last_error %v reservation %v", models.Deref(got.BootMode), got.LastError, got.Reservation)
		}
		if err := h.m.ChangeNodeSecureBoot(ctx, "", n.UUID, true); err != nil {
			t.Fatal(err)
		}
		h.m.Wait()
		if got := h.reload(t, n); got.SecureBoot == nil || !*got.SecureBoot {
			t.Errorf("secure boot: %v", got.SecureBoot)
		}
		if c := mgmt.setCount(); c != 2 {
			t.Errorf("%d changes reached the driver, want 2", c)
		}

		// Asking for the current mode changes nothing, not even the node.
		other := h.node(t, "fake-hardware", nil)
		if err := h.m.ChangeNodeBootMode(ctx, "", other.UUID, "uefi"); err != nil {
			t.Fatal(err)
		}
		h.m.Wait()
		if got := h.reload(t, other); got.BootMode != nil || mgmt.setCount() != 2 {
			t.Errorf("identical mode: node boot_mode %v, %d driver changes", got.BootMode, mgmt.setCount())
		}

		// A driver failure lands in last_error.
		mgmt.mu.Lock()
		mgmt.failWith = ironic.Errorf(ironic.DriverOperationError, "BMC said no")
		mgmt.mu.Unlock()
		if err := h.m.ChangeNodeBootMode(ctx, "", n.UUID, "bios"); err != nil {
			t.Fatal(err)
		}
		h.m.Wait()
		got = h.reload(t, n)
		if models.Deref(got.LastError) != "Failed to change boot mode to 'bios: BMC said no" || models.Deref(got.BootMode) != "uefi" {
			t.Errorf("failed change: last_error %q boot_mode %v", models.Deref(got.LastError), models.Deref(got.BootMode))
		}
	})
}

func TestBootModeWithoutFreeWorker(t *testing.T) {
	dbtest.RunBoth(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		mgmt := &modalManagement{mode: "bios", block: make(chan struct{})}
		h := newHarness(t, store, withImpl(drivers.Management, "fake", mgmt), withWorkers(1))
		busy := h.node(t, "fake-hardware", nil)
		n := h.node(t, "fake-hardware", nil)
		if err := h.m.ChangeNodeBootMode(ctx, "", busy.UUID, "uefi"); err != nil {
			t.Fatal(err)
		}
		// The only worker now waits in SetBootMode.
		err := h.m.ChangeNodeBootMode(ctx, "", n.UUID, "uefi")
		close(mgmt.block)
		h.m.Wait()
		wantFault(t, "second change", err, ironic.NoFreeConductorWorker,
			"Requested action cannot be performed due to lack of free conductor workers.")
		got := h.reload(t, n)
		if models.Deref(got.LastError) != "No free conductor workers available" || got.Reservation != nil {
			t.Errorf("refused node: last_error %q reservation %v", models.Deref(got.LastError), got.Reservation)
		}
		if got := h.reload(t, busy); models.Deref(got.BootMode) != "uefi" {
			t.Errorf("busy node boot mode %v", models.Deref(got.BootMode))
		}
	})
}
