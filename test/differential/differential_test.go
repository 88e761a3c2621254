package differential

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"text/template"
	"time"

	"github.com/goironic/ironic/test/internal/cluster"
)

var (
	recordFlag = flag.Bool("record", false,
		"record goldens from -target (a fresh reference Ironic) instead of comparing")
	targetFlag = flag.String("target", "",
		"URL of a running endpoint to replay against (e.g. http://127.0.0.1:6391); empty: build and start ours")
	targetHostFlag = flag.String("target-host", "",
		"conductor host name of -target, replaced by <host>; default: discovered with GET /v1/conductors")
	ignoreDeviationsFlag = flag.Bool("ignore-deviations", false,
		"compare every entry with its golden, deviations included (to check a fresh reference)")
	strictStyleFlag = flag.Bool("strict-style", false,
		"fail, rather than log, when a JSON body is not written in Python's json.dumps style")
	dumpFlag = flag.String("dump", "",
		"write this run's normalised answers to this directory, one <id>.json per entry")
	maxDiffsFlag    = flag.Int("max-diffs", 40, "print at most this many diffs in full")
	keyOrderAllFlag = flag.Bool("key-order-all", false,
		"treat every entry as key_order (with -dump, to survey the key order of a whole suite; "+
			"goldens recorded without it then differ)")
	onlyFlag = flag.String("only", "",
		"print diffs only for entries whose id matches this regular expression (every entry still runs)")
)

const (
	// oursHost is [DEFAULT]host of the server the test starts.
	oursHost = "goironic-differential"
	// buildBudget bounds building and starting our server (a cold build
	// compiles the pure-Go SQLite driver).
	buildBudget = 5 * time.Minute
	// runBudget bounds a whole replay.
	runBudget = 5 * time.Minute
	// requestTimeout bounds one request.
	requestTimeout = 30 * time.Second
	// startTimeout bounds the wait for our server's first answer.
	startTimeout = 20 * time.Second
)

// suite is one corpus with its goldens and deviations. Another test file
// (auth, provisioning actions, ...) declares its own and calls runSuite;
// the command-line flags apply to every suite.
type suite struct {
	// CorpusDir holds the corpus files (*.json, run in lexical order).
	CorpusDir string
	// GoldenDir holds one <id>.json per entry.
	GoldenDir string
	// DeviationsFile lists our deliberate differences; empty for none.
	DeviationsFile string
	// ConfTemplate is the ironic.conf template our server is started with.
	ConfTemplate string
	// Database, when set, returns [database]connection for our server
	// (default: SQLite in its state directory).
	Database func(t *testing.T) string
	// ExtraDeviationsFile adds deviations that only apply to this suite
	// (for example where the database engine decides the answer).
	ExtraDeviationsFile string
	// Skip lists entries not compared in this suite, each with its reason.
	Skip map[string]string
}

func TestMain(m *testing.M) { cluster.Main(m) }

// apiSuite is the v1 API corpus of TestDifferential.
func apiSuite() suite {
	return suite{
		CorpusDir:      "testdata/corpus",
		GoldenDir:      "testdata/golden",
		DeviationsFile: "testdata/deviations.json",
		ConfTemplate:   "testdata/ours.conf.tmpl",
	}
}

// actionsSuite is the node-action corpus of TestActionsDifferential: every
// provision verb through the fake-hardware lifecycle, and the other node
// actions. It is a suite of its own (its own fresh server and goldens)
// because its nodes move through states asynchronously.
func actionsSuite() suite {
	return suite{
		CorpusDir:      "testdata/actions/corpus",
		GoldenDir:      "testdata/actions/golden",
		DeviationsFile: "testdata/actions/deviations.json",
		ConfTemplate:   "testdata/ours.conf.tmpl",
	}
}

// orderSuite is the corpus of TestDictOrderDifferential: the dicts clients
// give (extra, properties, driver_info, instance_info, network_data, the
// dicts of ports, port groups, chassis, allocations, deploy templates and
// volume resources) with their keys in no sorted order, nested too,
// created, patched and carried through a deploy and a rescue, every entry
// compared with its key order (key_order). Its own suite: its goldens
// record the reference's key order, which the older suites' do not.
func orderSuite() suite {
	return suite{
		CorpusDir:      "testdata/order/corpus",
		GoldenDir:      "testdata/order/golden",
		DeviationsFile: "testdata/order/deviations.json",
		ConfTemplate:   "testdata/ours.conf.tmpl",
	}
}

// TestDictOrderDifferential replays the key-order corpus. Record it from
// its own fresh reference:
//
//	go test ./test/differential -run TestDictOrderDifferential -record -target http://127.0.0.1:6391
func TestDictOrderDifferential(t *testing.T) {
	runSuite(t, orderSuite())
}

// TestActionsDifferential is TestDifferential for the node actions. Record
// it from its own fresh reference:
//
//	go test ./test/differential -run TestActionsDifferential -record -target http://127.0.0.1:6391
func TestActionsDifferential(t *testing.T) {
	runSuite(t, actionsSuite())
}

// TestDifferential replays the v1 API corpus against our server (built and
// started here) or -target, and compares the normalised answers with the
// goldens recorded from the reference Ironic 21.4. With -record it writes
// the goldens instead.
func TestDifferential(t *testing.T) {
	runSuite(t, apiSuite())
}

// runSuite records or compares one suite according to the flags.
func runSuite(t *testing.T, s suite) {
	t.Helper()
	corpus, err := LoadCorpus(s.CorpusDir)
	if err != nil {
		t.Fatal(err)
	}
	if *keyOrderAllFlag {
		for i := range corpus {
			corpus[i].KeyOrder = true
		}
	}
	deviations := map[string]Deviation{}
	if !*recordFlag && !*ignoreDeviationsFlag && s.DeviationsFile != "" {
		deviations, err = LoadDeviations(s.DeviationsFile)
		if err != nil {
			t.Fatal(err)
		}
		if s.ExtraDeviationsFile != "" {
			extra, err := LoadDeviations(s.ExtraDeviationsFile)
			if err != nil {
				t.Fatal(err)
			}
			for id, dv := range extra {
				deviations[id] = dv
			}
		}
	}

	baseURL, hosts := *targetFlag, []string(nil)
	switch {
	case *recordFlag && baseURL == "":
		t.Fatal("-record needs -target <URL of a fresh reference Ironic>")
	case baseURL == "":
		dbURL := ""
		if s.Database != nil {
			dbURL = s.Database(t)
		}
		baseURL = startOurs(t, s.ConfTemplate, dbURL)
		hosts = []string{oursHost}
	}
	ctx, cancel := context.WithTimeout(t.Context(), runBudget)
	defer cancel()
	baseURL = strings.TrimRight(baseURL, "/")
	if hosts == nil {
		hosts = targetHosts(ctx, t, baseURL)
	}

	replayer := &Replayer{
		Runner:     NewRunner(baseURL, requestTimeout),
		Normalizer: Normalizer{BaseURL: baseURL, Hosts: hosts},
		GoldenDir:  s.GoldenDir,
		Record:     *recordFlag,
		Deviations: deviations,
		DumpDir:    *dumpFlag,
	}
	results, runErr := replayer.Run(ctx, corpus)
	if *recordFlag {
		if runErr != nil {
			t.Fatalf("recording stopped after %d of %d entries: %v", len(results), len(corpus), runErr)
		}
		reportRecording(t, s, corpus, results)
		return
	}
	reportComparison(t, s, results)
	if runErr != nil {
		t.Fatalf("replay stopped after %d of %d entries: %v", len(results), len(corpus), runErr)
	}
}

// startOurs builds and starts our all-in-one server and returns its URL.
// It fails the test (never skips) when the server cannot be built or does
// not answer in time.
func startOurs(t *testing.T, confTemplate, dbURL string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), buildBudget)
	defer cancel()
	dir := t.TempDir()
	cluster.StateConfig(t, dir) // the directories the template names
	return cluster.Start(ctx, t, cluster.Spec{
		Program: cluster.Ours(cluster.AllInOne), Dir: dir, StartTimeout: startTimeout, StopGrace: 10 * time.Second,
		Config: func(port int) string {
			text, err := renderConfig(confTemplate, serverConfig{Host: oursHost, Port: port, StateDir: dir, DatabaseURL: dbURL})
			if err != nil {
				t.Fatal(err)
			}
			return text
		},
	}).URL
}

// serverConfig fills the config template (testdata/ours.conf.tmpl).
type serverConfig struct {
	// Host is [DEFAULT]host, the conductor's host name.
	Host string
	// Port is [api]port on 127.0.0.1.
	Port int
	// StateDir holds the SQLite database and anything else the server writes.
	StateDir string
	// DatabaseURL, when set, is [database]connection instead of SQLite in
	// StateDir (e.g. a MariaDB database).
	DatabaseURL string
}

// Connection is [database]connection for the server.
func (c serverConfig) Connection() string {
	if c.DatabaseURL != "" {
		return c.DatabaseURL
	}
	return "sqlite:///" + c.DBPath()
}

// DBPath is the SQLite file inside StateDir.
func (c serverConfig) DBPath() string { return filepath.Join(c.StateDir, "ironic.sqlite") }

// renderConfig executes the text/template at tmplPath with cfg.
func renderConfig(tmplPath string, cfg serverConfig) (string, error) {
	tmpl, err := template.ParseFiles(tmplPath)
	if err != nil {
		return "", err
	}
	tmpl.Option("missingkey=error")
	var buf strings.Builder
	if err := tmpl.Execute(&buf, cfg); err != nil {
		return "", err
	}
	return buf.String(), nil
}

func targetHosts(ctx context.Context, t *testing.T, baseURL string) []string {
	t.Helper()
	if *targetHostFlag != "" {
		return strings.Split(*targetHostFlag, ",")
	}
	hosts, err := cluster.DiscoverHosts(ctx, baseURL)
	if err != nil {
		t.Fatalf("cannot discover the conductor host name of %s (give -target-host): %v", baseURL, err)
	}
	return hosts
}

func reportRecording(t *testing.T, s suite, corpus Corpus, results []Result) {
	t.Helper()
	removed, err := RemoveStaleGoldens(s.GoldenDir, corpus.IDs())
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) > 0 {
		t.Logf("removed stale goldens: %v", removed)
	}
	valid, invalid := 0, 0
	var fivexx []string
	for _, r := range results {
		if r.Err != nil {
			t.Errorf("%s: %v", r.Entry.ID, r.Err)
			continue
		}
		switch {
		case r.Got.Status >= 500:
			fivexx = append(fivexx, fmt.Sprintf("%s (%d)", r.Entry.ID, r.Got.Status))
			invalid++
		case r.Got.Status >= 400:
			invalid++
		default:
			valid++
		}
	}
	reportStyle(t, results)
	t.Logf("recorded %d goldens in %s: %d answered 2xx/3xx, %d answered 4xx/5xx", len(results), s.GoldenDir, valid, invalid)
	if len(fivexx) > 0 {
		t.Logf("the reference answered 5xx to (each needs a deviation): %s", strings.Join(fivexx, ", "))
	}
}

func reportComparison(t *testing.T, s suite, results []Result) {
	t.Helper()
	var failed []string
	printed := 0
	matched, deviated := 0, 0
	var only *regexp.Regexp
	if *onlyFlag != "" {
		only = regexp.MustCompile(*onlyFlag)
	}
	reportStyle(t, results)
	skipped := 0
	for _, r := range results {
		if reason, ok := s.Skip[r.Entry.ID]; ok {
			skipped++
			t.Logf("%s: not compared: %s", r.Entry.ID, reason)
			continue
		}
		switch {
		case r.Err != nil:
			failed = append(failed, r.Entry.ID)
			t.Errorf("%s: %v", r.Entry.ID, r.Err)
		case r.Diff != "":
			failed = append(failed, r.Entry.ID)
			if printed < *maxDiffsFlag && (only == nil || only.MatchString(r.Entry.ID)) {
				printed++
				what := "golden"
				if r.Deviation != nil {
					what = "deviation in " + s.DeviationsFile
				}
				t.Errorf("%s: %s: answer differs from the %s (-want +got):\n%s",
					r.Entry.ID, r.Entry.RequestLine(), what, r.Diff)
			}
		case r.Deviation != nil:
			deviated++
		default:
			matched++
		}
	}
	if len(failed) > printed {
		t.Errorf("%d entries differ in all (diffs above for the first %d): %s",
			len(failed), printed, strings.Join(failed, " "))
	}
	t.Logf("%d entries: %d match their golden, %d match their deviation, %d differ, %d not compared",
		len(results), matched, deviated, len(failed), skipped)
}

// maxStyleReports bounds the style problems printed one by one.
const maxStyleReports = 10

// reportStyle prints the entries whose raw JSON is not written the way
// Python's json.dumps writes it: as errors with -strict-style, else as a
// log summary.
func reportStyle(t *testing.T, results []Result) {
	t.Helper()
	var ids []string
	for _, r := range results {
		if len(r.Style) == 0 {
			continue
		}
		ids = append(ids, r.Entry.ID)
		if len(ids) > maxStyleReports {
			continue
		}
		sort.Strings(r.Style)
		msg := fmt.Sprintf("%s: JSON not in Python's json.dumps style: %s", r.Entry.ID, strings.Join(r.Style, "; "))
		if *strictStyleFlag {
			t.Error(msg)
		} else {
			t.Log(msg)
		}
	}
	if len(ids) == 0 {
		return
	}
	msg := fmt.Sprintf("%d entries answered JSON not in Python's json.dumps style (-strict-style makes this fatal): %s",
		len(ids), strings.Join(ids, " "))
	if *strictStyleFlag {
		t.Error(msg)
	} else {
		t.Log(msg)
	}
}
