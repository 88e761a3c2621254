package differential

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/goironic/ironic/db/dbtest"
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
	s.Database = func(t *testing.T) string {
		srv := dbtest.MariaDBServer(t)
		name := fmt.Sprintf("diff%d", os.Getpid())
		if err := srv.CreateDatabase(t.Context(), name); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_ = srv.DropDatabase(ctx, name)
		})
		return srv.PythonURL(name)
	}
	runSuite(t, s)
}
