// Package victim runs unmodified client-go informers for fault tests and
// records what their event handlers saw, in order.
package victim
