package differential

import (
	"testing"

	"github.com/goironic/ironic/test/internal/cluster"
)

// TestDifferentialMariaDB replays the same corpus against our server on a
// real MariaDB (started by the test): the answers must not depend on the
// database engine.
func TestDifferentialMariaDB(t *testing.T) {
	if *recordFlag || *targetFlag != "" {
		t.Skip("recording and -target runs use TestDifferential")
	}
	s := apiSuite()
	s.ExtraDeviationsFile = "testdata/deviations-mariadb.json"
	s.Skip = map[string]string{
		"oversized-node-delete": "the node of oversized-node-create is not created on MySQL (see deviations-mariadb.json)",
	}
	s.Database = func(t *testing.T) string { return cluster.NewDatabase(t, nil, "diff").URL() }
	runSuite(t, s)
}

// TestDictOrderDifferentialMariaDB replays the key-order corpus on
// MariaDB: the dicts' order must survive the engine's TEXT columns too.
func TestDictOrderDifferentialMariaDB(t *testing.T) {
	if *recordFlag || *targetFlag != "" {
		t.Skip("recording and -target runs use TestDictOrderDifferential")
	}
	s := orderSuite()
	s.Database = func(t *testing.T) string { return cluster.NewDatabase(t, nil, "order").URL() }
	runSuite(t, s)
}
