// Package etcdgateway speaks to etcd through its JSON gateway (the v3 API
// over HTTP), for the few calls the harness makes directly on storage:
// reading the revision, compacting, counting and deleting key ranges. It
// needs no etcd client library.
package etcdgateway
