// Package external is the fake external system the composite reference
// controller manages: an HTTP service keyed by external name, with a
// configurable delete latency, a switch that makes deletes fail, and an
// operation log that tests read to check who touched what, when.
//
//	GET    /resources/{name}?owner=ID   observe (200 with the owner, or 404)
//	POST   /resources/{name}?owner=ID   create (201, or 409 with the current owner)
//	DELETE /resources/{name}?owner=ID   delete (204, 404, or 500 when deletes fail)
//	PUT    /config                      {"deleteLatency": "2s", "failDeletes": true}
//	GET    /log                         the operation log
package external
