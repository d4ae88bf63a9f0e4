// Package proxy is the fault proxy: an HTTPS reverse proxy between one
// controller replica and the Kubernetes API server.
//
// The subject's kubeconfig points at the proxy; the proxy reaches the API
// server with the credentials the subject would have used, so the subject's
// identity and authorisation are unchanged. With no rule active every request
// and watch stream passes through untouched (HTTP/1.1 and HTTP/2, chunked
// lists, bookmarks, sendInitialEvents). Rules inject faults: cut or stall
// watches, answer re-watches with 410 Expired exactly as the API server does,
// drop or delay matching watch events, partition the replica, or answer
// matching requests with 429, 500 or 409; a 409 may be a real conflict,
// its object written first as by another party (Rule.Conflict).
//
// The proxy records every request (verb, resource, object, code, start, end,
// replica) and every watch event it delivered or dropped. It is driven from
// Go (Proxy) or over HTTP (Handler and Remote), so a proxy running beside a
// controller in a pod can be driven too.
package proxy
