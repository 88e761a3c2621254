// Package crosscheck proves, end to end, that the reference Python Ironic
// (Debian's python3-ironic 21.4) and our Go server can serve each other's
// databases, on SQLite and on MariaDB.
//
// The tests build ./cmd/ironic and ./cmd/ironic-dbsync, create the schema
// with one implementation, let that implementation's all-in-one server
// create a realistic set of objects through the REST API and record its
// GET answers, then start the other implementation on the same database
// and require the same answers. They also run our ironic-dbsync against
// schemas created by Python's and the other way round.
//
// The tests skip when /usr/bin/python3 cannot import ironic, unless
// IRONIC_TEST_REQUIRE_PYTHON=1 (then they fail); the MariaDB variants skip
// when MariaDB is not installed, unless IRONIC_TEST_REQUIRE_MARIADB=1.
package crosscheck
