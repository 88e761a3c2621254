// Package wire holds the start-up steps the binaries share: reading the
// configuration, setting up logging and opening the database, and
// building each component with the options it binds (option.Binder; see
// bindAll for the list). It only connects packages; behaviour lives in
// them.
package wire

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/goironic/ironic/conf"
	"github.com/goironic/ironic/db"
)

// PrintOptionsFlag makes a server binary build its components exactly as
// a normal start does, print every option they bound with the value the
// component holds (JSON: component name -> "section.name" -> value;
// durations in seconds) on standard output, and exit without serving.
// The start-up log on standard error is the normal one. Tests use it to
// check that every option reaches its component.
const PrintOptionsFlag = "--print-effective-options"

// Config reads the command line; with allInOne and no config files the
// all-in-one defaults apply. ok is false when the binary should exit 0
// (help was printed).
func Config(prog string, args []string, stdout io.Writer, allInOne bool) (cfg *conf.Config, rest []string, ok bool, err error) {
	var opts []conf.LoadOption
	if allInOne {
		opts = append(opts, conf.AllInOne())
	}
	cfg, rest, err = conf.FromArgs(args, opts...)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, conf.Usage(prog))
		return nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, false, err
	}
	return cfg, rest, true, nil
}

// Logger builds the process logger: text to stderr, debug level when
// [DEFAULT]debug is set.
func Logger(cfg *conf.Config, w io.Writer) *slog.Logger {
	level := slog.LevelInfo
	if bound[logConfig](cfg.Binder(), compLog).Debug {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

// Report logs the configuration's start-up report (conf.Config.Report)
// with the options this build implements. A bad value of an implemented
// option is an error.
func Report(ctx context.Context, cfg *conf.Config, log *slog.Logger) error {
	implemented, err := Implemented(cfg)
	if err != nil {
		return err
	}
	cfg.Report(ctx, log, implemented)
	return nil
}

// OpenDB opens [database]connection with the [database] pool options.
// For SQLite the file's directory is created if missing (the all-in-one's
// ./data).
func OpenDB(ctx context.Context, cfg *conf.Config, log *slog.Logger, opts ...db.Option) (*db.Store, error) {
	b := cfg.Binder()
	dc := bound[db.Config](b, compDB)
	if err := b.Err(); err != nil {
		return nil, err
	}
	u, err := conf.ParseDatabaseURL(dc.Connection)
	if err != nil {
		return nil, err
	}
	if u.Driver == "sqlite" && !u.Memory {
		if dir := filepath.Dir(u.DSN); dir != "" {
			if err := os.MkdirAll(dir, 0o750); err != nil {
				return nil, fmt.Errorf("creating database directory: %w", err)
			}
		}
	}
	// Node lists reuse unchanged rows (SQLite only; see db.WithNodeCache).
	opts = append([]db.Option{db.WithConfig(dc), db.WithNodeCache(20000)}, opts...)
	if u.TLS != nil {
		tc, err := u.TLS.Config()
		if err != nil {
			return nil, err
		}
		opts = append(opts, db.WithTLS(tc))
	}
	return db.Open(ctx, u.Driver, u.DSN, log, opts...)
}

// Server is what a server binary starts from: its configuration, its
// logger and its database.
type Server struct {
	Cfg   *conf.Config
	Log   *slog.Logger
	Store *db.Store
	// PrintOptions is set by PrintOptionsFlag: once the components are
	// built, call PrintEffectiveOptions instead of serving.
	PrintOptions bool
}

// StartServer reads the command line (see Config), sets up logging,
// reports the configuration and opens the database. The all-in-one
// (allInOne) warns that it ignores [DEFAULT]rpc_transport. ok is false
// when the binary should exit 0; otherwise the caller closes s.Store.
func StartServer(ctx context.Context, prog string, args []string, stdout, stderr io.Writer, allInOne bool) (s Server, ok bool, err error) {
	cfg, rest, ok, err := Config(prog, args, stdout, allInOne)
	if err != nil || !ok {
		return Server{}, false, err
	}
	log := Logger(cfg, stderr)
	if err := Report(ctx, cfg, log); err != nil {
		return Server{}, false, err
	}
	if allInOne {
		if t := bound[transportConfig](cfg.Binder(), compTransport).RPCTransport; t != "none" {
			log.WarnContext(ctx, "the all-in-one runs its conductor in-process; [DEFAULT]rpc_transport is treated as none",
				"rpc_transport", t)
		}
	}
	store, err := OpenDB(ctx, cfg, log)
	if err != nil {
		return Server{}, false, err
	}
	return Server{Cfg: cfg, Log: log, Store: store, PrintOptions: slices.Contains(rest, PrintOptionsFlag)}, true, nil
}

// PrintEffectiveOptions writes, as JSON, every option the components
// built so far bound, with the value each component holds (see
// PrintOptionsFlag).
func PrintEffectiveOptions(cfg *conf.Config, w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(cfg.Binder().Effective())
}
