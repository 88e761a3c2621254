// Command ironic-dbsync creates and upgrades Ironic's database schema:
//
//	ironic-dbsync --config-file /etc/ironic/ironic.conf create_schema|upgrade|version|online_data_migrations
//
// With --print-effective-options it opens the database, prints the
// options it read (see wire.PrintOptionsFlag) and runs no command.
package main

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/goironic/ironic/internal/wire"
)

func main() {
	wire.Main("ironic-dbsync", run)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, rest, ok, err := wire.Config("ironic-dbsync", args, stdout, false)
	if err != nil || !ok {
		return err
	}
	printOnly := slices.Contains(rest, wire.PrintOptionsFlag)
	rest = slices.DeleteFunc(rest, func(a string) bool { return a == wire.PrintOptionsFlag })
	if len(rest) != 1 && !printOnly {
		return fmt.Errorf("expected one command: create_schema, upgrade, version or online_data_migrations")
	}
	log := wire.Logger(cfg, stderr)
	if err := wire.Report(ctx, cfg, log); err != nil {
		return err
	}
	store, err := wire.OpenDB(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer store.Close()
	if printOnly {
		return wire.PrintEffectiveOptions(cfg, stdout)
	}
	switch rest[0] {
	case "create_schema":
		return store.CreateSchema(ctx)
	case "upgrade":
		return store.Upgrade(ctx)
	case "version":
		v, err := store.Version(ctx)
		if err != nil {
			return err
		}
		if v == "" {
			v = "None"
		}
		fmt.Fprintln(stdout, v)
		return nil
	case "online_data_migrations":
		// Rows are written at this release's object versions, so there is
		// nothing to migrate; Ironic prints its summary table the same way.
		fmt.Fprintln(stdout, "Running batches of 50 until complete")
		fmt.Fprintln(stdout, "No online data migrations need to be run.")
		return nil
	}
	return fmt.Errorf("unknown command %q", rest[0])
}
